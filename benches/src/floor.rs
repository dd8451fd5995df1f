//! The floor: the CDP calls of one pagesight capture, sent bare by a client that only waits for
//! the raw bytes of each reply. What Chromium alone needs to produce a snapshot's inputs; every
//! live figure of pagesight (`live`, `tabs`) is read against it.
//!
//! Keep it in step with the engine's capture (`engine/src/capture/live.rs`): when the capture
//! asks for something else, this must ask for the same. What the default view asks for after
//! the snapshot depends on the page; [`ViewPlan`] takes it once from a capture of that page.

use pagesight::analysis::Expand;
use pagesight::browser::Page;
use pagesight::capture::box_rects::{boxes_needing_rects, read_rects, RectBox, View};
use pagesight::capture::{ax_fetch_set, AxFetch, Capture, COMPUTED_STYLES};
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
    /// The boxes whose client and scroll rectangles are read (`capture::box_rects`).
    pub boxes: Vec<RectBox>,
    /// The same for the whole page.
    pub all_boxes: Vec<RectBox>,
    /// The view's fetch set (`capture::ax_fetch_set`).
    pub ids: Vec<i64>,
    /// Node by node (`AxFetch::Auto`), else the full trees after the snapshot.
    pub node_by_node: bool,
    /// The view shows so much of the page that it is captured whole, as `--expand all` is.
    pub whole_page: bool,
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
        })
    }
}

/// The engine's capture calls, sent bare; replies stay raw (the box rectangles are read with
/// the engine's own `box_rects::read_rects`: a few small replies). The default view's calls
/// (`plan`), or with `whole` the whole page's, as `--expand all` asks.
pub async fn floor(page: &Page, plan: &ViewPlan, whole: bool) -> Result<FloorReplies, String> {
    let view = Some(plan).filter(|v| !whole && !v.whole_page);
    let conn = page.connection();
    let session = Some(page.session_id());
    let empty = serde_json::json!({});
    let err = |what: &str, e: pagesight::Error| format!("{what}: {e}");
    let tree = conn.send_raw("Page.getFrameTree", session, &empty);
    let metrics = conn.send_raw("Page.getLayoutMetrics", session, &empty);
    let (tree, metrics) = tokio::join!(tree, metrics);
    let tree = tree.map_err(|e| err("Page.getFrameTree", e))?;
    let metrics = metrics.map_err(|e| err("Page.getLayoutMetrics", e))?;
    let frames = child_frames(&tree);
    let full = view.is_none();
    let snapshot_params = snapshot_params(false);
    let snapshot = conn.send_raw("DOMSnapshot.captureSnapshot", session, &snapshot_params);
    let ax_main = async {
        if full {
            Some(
                conn.send_raw("Accessibility.getFullAXTree", session, &empty)
                    .await,
            )
        } else {
            None
        }
    };
    let children = futures_util::future::join_all(frames.iter().filter(|_| full).map(|f| {
        let params = serde_json::json!({ "frameId": f });
        async move {
            conn.send_raw("Accessibility.getFullAXTree", session, &params)
                .await
        }
    }));
    let (snapshot, ax_main, mut children) = tokio::join!(snapshot, ax_main, children);
    let snapshot = snapshot.map_err(|e| err("DOMSnapshot.captureSnapshot", e))?;
    let mut ax_main = ax_main
        .transpose()
        .map_err(|e| err("Accessibility.getFullAXTree", e))?;
    if full {
        read_rects(conn, session, &plan.all_boxes, Duration::from_secs(10))
            .await
            .map_err(|e| err("reading box rectangles", e))?;
    }
    if let Some(plan) = view {
        read_rects(conn, session, &plan.boxes, Duration::from_secs(10))
            .await
            .map_err(|e| err("reading box rectangles", e))?;
        if plan.node_by_node {
            // The view's nodes' accessibility nodes, all asked at once.
            children = futures_util::future::join_all(plan.ids.iter().map(|id| {
                let params = serde_json::json!({ "backendNodeId": id, "fetchRelatives": false });
                async move {
                    conn.send_raw("Accessibility.getPartialAXTree", session, &params)
                        .await
                }
            }))
            .await;
        } else {
            let main = conn.send_raw("Accessibility.getFullAXTree", session, &empty);
            let others = futures_util::future::join_all(frames.iter().map(|f| {
                let params = serde_json::json!({ "frameId": f });
                async move {
                    conn.send_raw("Accessibility.getFullAXTree", session, &params)
                        .await
                }
            }));
            let (main, others) = tokio::join!(main, others);
            ax_main = Some(main.map_err(|e| err("Accessibility.getFullAXTree", e))?);
            children = others;
        }
    }
    let after = conn
        .send_raw("Page.getFrameTree", session, &empty)
        .await
        .map_err(|e| err("Page.getFrameTree", e))?;
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
