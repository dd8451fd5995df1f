//! The floor: the CDP calls of one pagesight capture, sent bare by a client that only waits for
//! the raw bytes of each reply. What Chromium alone needs to produce a snapshot's inputs; every
//! live figure of pagesight (`live`, `tabs`) is read against it.
//!
//! Keep it in step with the engine's capture (`engine/src/live/capture.rs`): when the capture
//! asks for something else, this must ask for the same. What the default view asks for after
//! the snapshot depends on the page; [`ViewPlan`] takes it once from a capture of that page.

use pagesight::analysis::Expand;
use pagesight::browser::create_world;
use pagesight::browser::Page;
use pagesight::capture::box_rects::{boxes_needing_rects, RectBox, View};
use pagesight::capture::{Capture, COMPUTED_STYLES};
use pagesight::live::box_rects::{read_with_kept, KeptBoxes, Worlds};
use pagesight::live::{ax_fetch_set, AxFetch};
use pagesight::transport::RawJson;
use std::time::Duration;

use crate::dom_node_count;

/// The floor's replies of one run.
pub struct FloorReplies {
    pub snapshot: RawJson,
    pub ax: Vec<RawJson>,
    pub bytes: usize,
}

/// The parameters the engine's capture gives `DOMSnapshot.captureSnapshot`: every DOM rect
/// for the full trees, none for the default view (its few boxes are read afterwards).
pub fn snapshot_params(dom_rects: bool) -> serde_json::Value {
    serde_json::json!({
        "computedStyles": COMPUTED_STYLES,
        "includePaintOrder": true,
        "includeDOMRects": dom_rects,
    })
}

/// What the engine asks Chromium for after the snapshot, for the default view of one page
/// (taken once per page from a capture; the page does not change between runs).
pub struct ViewPlan {
    /// The boxes whose client and scroll rectangles are read (`live::box_rects`).
    pub boxes: Vec<RectBox>,
    /// The same for the whole page.
    pub all_boxes: Vec<RectBox>,
    /// The view's fetch set (`live::ax_fetch_set`).
    pub ids: Vec<i64>,
    /// Node by node (`AxFetch::Auto`), else the full trees after the snapshot.
    pub node_by_node: bool,
    /// The view shows so much of the page that it is captured whole, as `--expand all` is.
    pub whole_page: bool,
    /// Handles to the boxes read, kept from one run to the next as the engine keeps a page's.
    pub kept: KeptBoxes,
}

impl ViewPlan {
    pub fn of(capture: &Capture) -> Result<ViewPlan, String> {
        let ids = ax_fetch_set(capture, Expand::Viewport)
            .map_err(|e| format!("no fetch set: {e}"))?
            .into_iter()
            .next()
            .unwrap_or_default();
        let top = capture.dom_snapshot.documents.first();
        let viewport = &capture.layout_metrics.css_layout_viewport;
        let view = View {
            x: top.and_then(|d| d.scroll_offset_x).unwrap_or(0.0),
            y: top.and_then(|d| d.scroll_offset_y).unwrap_or(0.0),
            width: viewport.client_width as f64,
            height: viewport.client_height as f64,
            expand: 0.0,
        };
        Ok(ViewPlan {
            boxes: boxes_needing_rects(&capture.dom_snapshot, &capture.computed_styles, Some(view)),
            all_boxes: boxes_needing_rects(&capture.dom_snapshot, &capture.computed_styles, None),
            node_by_node: AxFetch::Auto.node_by_node(ids.len(), dom_node_count(capture)),
            whole_page: AxFetch::Auto.whole_page(&capture.layout_metrics, 0.0),
            ids,
            kept: KeptBoxes::default(),
        })
    }
}

/// The engine's capture calls, sent bare and written in the engine's order; replies stay raw
/// (the box rectangles are read with the engine's own `box_rects`: a few small replies). The
/// default view's calls (`plan`), or with `whole` the whole page's, as `--expand all` asks.
pub async fn floor(page: &Page, plan: &ViewPlan, whole: bool) -> Result<FloorReplies, String> {
    let view = Some(plan).filter(|v| !whole && !v.whole_page);
    let conn = page.connection();
    let session = Some(page.session_id());
    let timeout = conn.command_timeout();
    let rects_timeout = Duration::from_secs(10);
    let empty = serde_json::json!({});
    let err = |what: &str, e: pagesight::Error| format!("{what}: {e}");
    let ax_method = "Accessibility.getFullAXTree";
    let full_trees = |frames: &[String]| {
        let main = conn.send_raw_now(ax_method, session, &empty, timeout);
        let children: Vec<_> = frames
            .iter()
            .map(|f| {
                let params = serde_json::json!({ "frameId": f });
                conn.send_raw_now(ax_method, session, &params, timeout)
            })
            .collect();
        async move { tokio::join!(main, futures_util::future::join_all(children)) }
    };
    // Together, as the engine writes them: the frame tree, the metrics, the main frame's
    // isolated world (unless handles are kept in it), the snapshot, the kept boxes' reading;
    // the full trees (whole page) once the frame tree is in.
    let tree = conn.send_raw_now("Page.getFrameTree", session, &empty, timeout);
    let metrics = conn.send_raw_now("Page.getLayoutMetrics", session, &empty, timeout);
    let world = (!plan.kept.holds(page.target_id()))
        .then(|| create_world(conn, session, page.target_id(), rects_timeout));
    let world = async move {
        match world {
            Some(world) => world.await.ok(),
            None => None,
        }
    };
    let snapshot_params = snapshot_params(false);
    let snapshot = conn.send_raw_now(
        "DOMSnapshot.captureSnapshot",
        session,
        &snapshot_params,
        timeout,
    );
    let early = plan.kept.read_now(conn, session, rects_timeout);
    let (tree, metrics) = tokio::join!(tree, metrics);
    let tree = tree.map_err(|e| err("Page.getFrameTree", e))?;
    let metrics = metrics.map_err(|e| err("Page.getLayoutMetrics", e))?;
    let (main_frame, frames) = frame_ids(&tree);
    let full = view.is_none();
    let trees = full.then(|| full_trees(&frames));
    let (snapshot, world, early) = tokio::join!(snapshot, world, early);
    let snapshot = snapshot.map_err(|e| err("DOMSnapshot.captureSnapshot", e))?;
    let worlds: Worlds = world.map(|id| (main_frame, id)).into_iter().collect();
    let boxes = match view {
        Some(plan) => &plan.boxes,
        None => &plan.all_boxes,
    };
    let all = plan.all_boxes.len();
    let values = read_with_kept(
        &plan.kept,
        early,
        conn,
        session,
        boxes,
        || all,
        &worlds,
        rects_timeout,
    )
    .await
    .map_err(|e| err("resolving boxes", e))?;
    let (ax_main, children, after) = if let Some(plan) = view {
        values.await.map_err(|e| err("reading box rectangles", e))?;
        // The view's accessibility nodes (or the full trees), then the frame tree again.
        let (ax_main, children, after) = if plan.node_by_node {
            let nodes: Vec<_> = plan
                .ids
                .iter()
                .map(|id| {
                    let params =
                        serde_json::json!({ "backendNodeId": id, "fetchRelatives": false });
                    conn.send_raw_now("Accessibility.getPartialAXTree", session, &params, timeout)
                })
                .collect();
            let after = conn.send_raw_now("Page.getFrameTree", session, &empty, timeout);
            let (nodes, after) = tokio::join!(futures_util::future::join_all(nodes), after);
            (None, nodes, after)
        } else {
            let trees = full_trees(&frames);
            let after = conn.send_raw_now("Page.getFrameTree", session, &empty, timeout);
            let ((main, others), after) = tokio::join!(trees, after);
            let main = main.map_err(|e| err(ax_method, e))?;
            (Some(main), others, after)
        };
        (ax_main, children, after)
    } else {
        // The rectangles are the last data asked for: the frame tree again goes behind them.
        let after = conn.send_raw_now("Page.getFrameTree", session, &empty, timeout);
        let trees = async {
            match trees {
                Some(trees) => Some(trees.await),
                None => None,
            }
        };
        let (trees, values, after) = tokio::join!(trees, values, after);
        values.map_err(|e| err("reading box rectangles", e))?;
        match trees {
            Some((main, others)) => (Some(main.map_err(|e| err(ax_method, e))?), others, after),
            None => (None, Vec::new(), after),
        }
    };
    let after = after.map_err(|e| err("Page.getFrameTree", e))?;
    let mut bytes = tree.len() + metrics.len() + snapshot.len() + after.len();
    let mut ax = Vec::new();
    for reply in ax_main.into_iter().chain(children.into_iter().flatten()) {
        bytes += reply.len();
        ax.push(reply);
    }
    Ok(FloorReplies {
        snapshot,
        ax,
        bytes,
    })
}

/// The main frame id and the child frame ids (in pre-order) of a raw `Page.getFrameTree`
/// reply.
fn frame_ids(tree: &RawJson) -> (String, Vec<String>) {
    let main = tree
        .to_value()
        .ok()
        .and_then(|v| {
            v.pointer("/frameTree/frame/id")
                .and_then(|id| id.as_str())
                .map(str::to_string)
        })
        .unwrap_or_default();
    (main, child_frames(tree))
}

/// Child frame ids of a raw `Page.getFrameTree` reply, in pre-order.
fn child_frames(tree: &RawJson) -> Vec<String> {
    fn walk(node: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
        if depth > 64 {
            return;
        }
        if let Some(children) = node.get("childFrames").and_then(|c| c.as_array()) {
            for child in children {
                if let Some(id) = child.pointer("/frame/id").and_then(|v| v.as_str()) {
                    out.push(id.to_string());
                }
                walk(child, out, depth + 1);
            }
        }
    }
    let mut out = Vec::new();
    if let Ok(value) = tree.to_value() {
        if let Some(root) = value.get("frameTree") {
            walk(root, &mut out, 0);
        }
    }
    out
}
