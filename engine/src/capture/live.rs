//! Taking a capture from a live page: the CDP calls of one snapshot.
//!
//! Why these calls: `Page.getFrameTree` (frame ids and loader ids — document identity),
//! `Page.getLayoutMetrics` (viewport, scroll, device pixel ratio), `DOMSnapshot.captureSnapshot`
//! (DOM, layout, styles, paint order, form state; the only source of geometry) and the
//! accessibility tree (roles and names). Chromium answers calls to one renderer one after
//! another, so a snapshot costs the sum of what it asks for, and the accessibility tree is the
//! largest part of that on a long page. How much of it is asked for is the capture's
//! [`AxScope`]:
//! - **full** (`--expand all`, `verbose`, and recorded captures): `Accessibility.getFullAXTree`
//!   per frame, sent together with the snapshot so their round trips overlap. A recorded capture
//!   ([`capture_page`]) asks for every DOM rectangle (`includeDOMRects`); a live snapshot reads
//!   those of the boxes geometry needs on their own, which costs Chromium far less (see
//!   [`super::box_rects`]);
//! - **viewport** (the default view, `--expand PX`): the snapshot first, without DOM rects (the
//!   few boxes geometry needs are read on their own, see [`super::box_rects`]), then
//!   `Accessibility.getPartialAXTree` for only the DOM nodes the render can print (see
//!   [`super::scope`]), all sent at once, rebuilt into trees by [`super::ax_partial`]. Where
//!   that costs Chromium more than the whole page would ([`AxFetch`]: a page at most three views
//!   large, decided from `Page.getLayoutMetrics` read with the first frame tree; a view holding
//!   a large share of the nodes), the whole page or the full trees are taken instead.
//!
//! Out-of-process iframes (see [`crate::browser::FrameTarget`]) are other renderers: each is
//! captured over its own session at the same time as the page, and its owner `<iframe>` is found
//! with `DOM.getFrameOwner` on the session that holds it. A frame that cannot be captured (it
//! does not answer in time, it fails) is recorded with the reason instead of being left blank.
//!
//! A snapshot must never mix two states of a page. Page scripts run between any two CDP calls,
//! so every attempt checks, after the heavy calls:
//! - the frame tree is read again: a frame whose loader id changed loaded a new document;
//! - `Page.frameNavigated` / `DOM.documentUpdated` arrived meanwhile (subscribed before);
//! - the main frame has a document at all (mid-navigation or in a redirect chain it may not);
//! - the DOM snapshot and the accessibility tree describe the same DOM ([`mixes_states`]): the
//!   AX tree names no node the snapshot lacks, and its root is named by the snapshot's title;
//!   with a viewport scope, a node the snapshot listed that Chromium no longer knows when its
//!   accessibility node is asked for also means the DOM changed in between.
//!
//! A change is retried a bounded number of times. If the page's own document keeps changing
//! the capture fails with the retryable `PAGE_NAVIGATING`; if only an iframe does (ad frames
//! reload on timers), the last attempt is returned with `consistent: false` rather than failing
//! the whole page for one frame.

use std::time::Duration;

use futures_util::future::join_all;
use rustc_hash::{FxHashMap, FxHashSet};

use super::ax::{AxNodeKey, AxNodeRecord, FullAxTree, GetFullAxTree, GetPartialAxTree};
use super::ax_partial;
use super::box_rects::{boxes_needing_rects, read_rects, write_rects, RectBox, View};
use super::dom::{CaptureDomSnapshot, DomSnapshot};
use super::scope::{fetch_set, AxFetch, AxScope};
use crate::analysis::{Expand, ViewFacts};
use crate::browser::{FrameTarget, Page};
use crate::cdp::dom::{DocumentUpdatedEvent, GetDocumentParams, GetFrameOwnerParams};
use crate::cdp::dom_snapshot::CaptureSnapshotParams;
use crate::cdp::page::{
    FrameNavigatedEvent, FrameTree, GetFrameTreeParams, GetLayoutMetricsParams,
};
use crate::cdp::Event;
use crate::error::{Error, ErrorCode, Result};
use crate::model::Model;
use crate::transport::{Connection, SessionId};

use super::{
    AxTreeCapture, Capture, Captured, OopifCapture, UncapturedFrame, COMPUTED_STYLES,
    FORMAT_VERSION,
};

/// How many times a capture is retried when the page changes documents under it.
const MAX_ATTEMPTS: usize = 4;
/// How long an out-of-process iframe may take to answer one call before it is reported as not
/// captured (a hung frame must not hold the whole page's snapshot for the default timeout).
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);
/// How many more rounds of `getPartialAXTree` may look for parents the replies name but the
/// DOM ancestry did not give (`aria-owns` chains).
const PARENT_ROUNDS: usize = 3;

/// Captures everything any snapshot of `page` needs: every frame's full accessibility tree
/// and every box's DOM rectangles, JavaScript-free (what a recorded capture holds, renderable
/// with any options).
pub async fn capture_page(page: &Page) -> Result<Capture> {
    let captured = capture(page, AxScope::Full, AxFetch::Auto, Rects::Every).await?;
    Ok(captured.into_capture())
}

/// Captures what a snapshot viewed with `scope` needs (see [`AxScope::for_view`]), with the
/// model of its DOM when a viewport scope built one to choose what to ask for.
pub async fn capture_page_for(page: &Page, scope: AxScope) -> Result<Captured> {
    capture_page_with(page, scope, AxFetch::Auto).await
}

/// [`capture_page_for`], choosing how a viewport scope's accessibility nodes are fetched.
pub async fn capture_page_with(page: &Page, scope: AxScope, fetch: AxFetch) -> Result<Captured> {
    capture(page, scope, fetch, Rects::Needed).await
}

/// Which DOM rectangles a capture asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rects {
    /// Every box's (`includeDOMRects`).
    Every,
    /// Only those of the boxes geometry needs (see [`super::box_rects`]): for a viewport scope
    /// those in the view, for a full one all of them.
    Needed,
}

async fn capture(page: &Page, scope: AxScope, fetch: AxFetch, rects: Rects) -> Result<Captured> {
    let mut last_change = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(50 * attempt as u64)).await;
        }
        let last = attempt + 1 == MAX_ATTEMPTS;
        match capture_once(page, last, scope, fetch, rects).await {
            Ok(Attempt::Done(capture)) => return Ok(*capture),
            Ok(Attempt::Changed(what)) => last_change = what,
            Err(e) if is_missing_document(&e) => last_change = e.message().to_string(),
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorCode::PageNavigating,
        format!(
            "the page kept changing while it was captured ({last_change}); \
             retry once the page has loaded"
        ),
    ))
}

enum Attempt {
    Done(Box<Captured>),
    Changed(String),
}

/// Chromium answers these when a frame has no document yet (mid-navigation, redirects).
fn is_missing_document(e: &Error) -> bool {
    e.code() == ErrorCode::ProtocolError && {
        let m = e.message();
        m.contains("No frame")
            || m.contains("not found")
            || m.contains("Document is not available")
            || m.contains("No document")
    }
}

/// `DOMSnapshot.captureSnapshot` with the engine's styles; `dom_rects`: with every box's
/// client, offset and scroll rectangles (else the few that geometry needs are read afterwards,
/// see [`super::box_rects`]).
fn snapshot_params(dom_rects: bool) -> CaptureDomSnapshot {
    CaptureDomSnapshot(CaptureSnapshotParams {
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        include_paint_order: Some(true),
        include_dom_rects: Some(dom_rects),
        include_blended_background_colors: None,
        include_text_color_opacities: None,
    })
}

async fn capture_once(
    page: &Page,
    last: bool,
    scope: AxScope,
    fetch: AxFetch,
    rects: Rects,
) -> Result<Attempt> {
    // Listen before looking, so a navigation during the capture cannot go unseen.
    let mut changes = page.connection().subscribe_methods(
        Some(page.session_id()),
        &[FrameNavigatedEvent::METHOD, DocumentUpdatedEvent::METHOD],
    );
    // `DOM.documentUpdated` is only sent once the DOM agent has a document; asking for its root
    // (depth 0) is cheap and rides along with the frame tree.
    let document_root = GetDocumentParams {
        depth: Some(0),
        ..Default::default()
    };
    // The metrics come first: how much of the page the view shows decides what to ask for.
    let (before, _, metrics) = tokio::join!(
        page.send(&GetFrameTreeParams {}),
        page.send(&document_root),
        page.send(&GetLayoutMetricsParams {})
    );
    let (before, metrics) = (before?.frame_tree, metrics?);
    let scope = match scope {
        AxScope::Viewport { expand } if fetch.whole_page(&metrics, expand) => AxScope::Full,
        scope => scope,
    };
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let main_frame = before.frame.id.clone();
    let full = scope.is_full();

    let dom_rects = rects == Rects::Every;
    let snapshot_params = snapshot_params(dom_rects);
    let snapshot = page.send(&snapshot_params);
    // The full trees ride along with the snapshot; a viewport scope asks once the snapshot says
    // what is in view.
    let ax_full = async {
        if full {
            Some(full_trees(page.connection(), Some(page.session_id()), &frames, None).await)
        } else {
            None
        }
    };
    let targets = page.frame_targets();
    let parts = join_all(targets.iter().map(|t| frame_part(page, t, full, dom_rects)));
    let (snapshot, ax_full, parts) = tokio::join!(snapshot, ax_full, parts);
    let snapshot = snapshot?;
    match snapshot.documents.first() {
        None => return Ok(Attempt::Changed("the page has no document yet".into())),
        Some(doc) => {
            let frame = usize::try_from(doc.frame_id)
                .ok()
                .and_then(|i| snapshot.strings.get(i));
            if frame.is_some_and(|f| *f != main_frame) {
                return Ok(Attempt::Changed(
                    "the page's document belongs to another frame".into(),
                ));
            }
        }
    }

    // The out-of-process frames, numbered in the order they are kept so owners come first.
    let mut consistent = true;
    let mut kept: Vec<(SessionId, OopifCapture)> = Vec::new();
    let mut uncaptured = Vec::new();
    for (target, outcome) in targets.iter().zip(parts) {
        let owner_target = if target.parent_session == *page.session_id() {
            Some(0)
        } else {
            kept.iter()
                .position(|(s, _)| *s == target.parent_session)
                .map(|k| k as u32 + 1)
        };
        // Its owner is inside a frame that was not captured: nothing to attach it to.
        let Some(owner_target) = owner_target else {
            continue;
        };
        match outcome {
            FrameOutcome::Gone => {}
            FrameOutcome::Changed(why) if !last => return Ok(Attempt::Changed(why)),
            FrameOutcome::Changed(_) => consistent = false,
            FrameOutcome::Failed { owner, reason } => {
                if let Some(owner) = owner {
                    uncaptured.push(UncapturedFrame {
                        owner_target,
                        owner_backend_node_id: owner,
                        reason,
                    });
                }
            }
            FrameOutcome::Captured(mut capture) => {
                capture.owner_target = owner_target;
                kept.push((target.session_id.clone(), *capture));
            }
        }
    }

    let ax_trees = match ax_full {
        Some(trees) => trees?,
        None => Vec::new(),
    };
    let mut capture = Capture {
        format: FORMAT_VERSION,
        url: before.frame.url.clone(),
        title: document_title(&snapshot),
        target_id: Some(page.target_id().to_string()),
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        frame_tree: None,
        layout_metrics: metrics,
        dom_snapshot: snapshot,
        ax_trees,
        oopifs: Vec::new(),
        uncaptured_frames: uncaptured,
        consistent: true,
        ax_scope: scope,
    };
    let sessions: Vec<SessionId> = kept.iter().map(|(s, _)| s.clone()).collect();
    capture.oopifs = kept.into_iter().map(|(_, c)| c).collect();

    if !dom_rects {
        let view = match scope {
            AxScope::Viewport { expand } => Some(expand),
            AxScope::Full => None,
        };
        add_box_rects(page, &sessions, &mut capture, view).await?;
    }
    let mut dom_model = None;
    if let AxScope::Viewport { expand } = scope {
        let expand = if expand > 0.0 {
            Expand::Pixels(expand)
        } else {
            Expand::Viewport
        };
        // The model of the DOM decides what to ask for, and is kept: the snapshot's pipeline
        // adds the answers to it rather than building it again.
        // So are its geometry and visibility, which the analysis would compute again.
        let model = Model::from_dom_snapshots(&capture)?;
        let view = ViewFacts::new(&model, expand);
        let sets = fetch_set(&model, &view, 1 + capture.oopifs.len());
        dom_model = Some((model, view));
        let conn = page.connection();
        let wanted: usize = sets.iter().map(Vec::len).sum();
        if !fetch.node_by_node(wanted, dom_nodes(&capture)) {
            // The view holds much of the page: the full trees cost Chromium less. The capture
            // keeps its viewport scope (its box rectangles cover the view only).
            let main = full_trees(conn, Some(page.session_id()), &frames, None);
            let others = join_all(sessions.iter().zip(&capture.oopifs).map(|(s, o)| {
                let mut frames = Vec::new();
                if let Some(tree) = &o.frame_tree {
                    collect_frames(tree, &mut frames, 0);
                }
                async move { full_trees(conn, Some(s), &frames, Some(FRAME_TIMEOUT)).await }
            }));
            let (main, others) = tokio::join!(main, others);
            capture.ax_trees = main?;
            for (o, trees) in capture.oopifs.iter_mut().zip(others) {
                match trees {
                    Ok(trees) => o.ax_trees = trees,
                    Err(_) => consistent = false,
                }
            }
        } else {
            let none = Vec::new();
            let ids = |k: usize| sets.get(k).unwrap_or(&none);
            let main = partial_trees(conn, Some(page.session_id()), ids(0), None);
            let others = join_all(
                sessions
                    .iter()
                    .enumerate()
                    .map(|(k, s)| partial_trees(conn, Some(s), ids(k + 1), Some(FRAME_TIMEOUT))),
            );
            let (main, others) = tokio::join!(main, others);
            match main {
                Ok(trees) => capture.ax_trees = trees,
                Err(e) if is_missing_node(&e) => return Ok(Attempt::Changed(e.message().into())),
                Err(e) => return Err(e),
            }
            for (o, trees) in capture.oopifs.iter_mut().zip(others) {
                match trees {
                    Ok(trees) => o.ax_trees = trees,
                    Err(e) if is_missing_node(&e) && !last => {
                        return Ok(Attempt::Changed(format!(
                            "frame {}: {}",
                            o.frame_id,
                            e.message()
                        )))
                    }
                    // The frame answered its snapshot but not its tree: shown without roles,
                    // flagged as not taken of one state.
                    Err(_) => consistent = false,
                }
            }
        }
    }

    let after = page.send(&GetFrameTreeParams {});
    let frames_after = join_all(sessions.iter().map(|s| {
        page.connection()
            .send_with_timeout(Some(s), &GetFrameTreeParams {}, FRAME_TIMEOUT)
    }));
    let (after, frames_after) = tokio::join!(after, frames_after);
    let after = after?.frame_tree;
    // A change of the page's own document is retried (and finally fails); a change inside a
    // child frame only is tolerated on the last attempt, marked inconsistent.
    let mut child_change = None;
    if let Some((frame, change)) = document_change(&before, &after) {
        if frame == main_frame {
            return Ok(Attempt::Changed(change));
        }
        child_change = Some(change);
    }
    while let Some(event) = changes.try_next() {
        let child_frame = event
            .parse::<FrameNavigatedEvent>()
            .ok()
            .is_some_and(|e| e.frame.parent_id.is_some());
        let what = format!("{} arrived", event.method);
        if !child_frame {
            return Ok(Attempt::Changed(what));
        }
        child_change = Some(what);
    }
    for (o, reply) in capture.oopifs.iter_mut().zip(frames_after) {
        let change = match (reply, &o.frame_tree) {
            (Ok(r), Some(before)) => {
                let change = document_change(before, &r.frame_tree).map(|(_, c)| c);
                o.frame_id = r.frame_tree.frame.id.clone();
                o.frame_tree = Some(r.frame_tree);
                change
            }
            (Ok(_), None) => None,
            (Err(e), _) => Some(format!("frame {}: {}", o.frame_id, e.message())),
        };
        let change = change.or_else(|| {
            let tree = o.ax_trees.first().map_or(&[][..], |t| &t.nodes[..]);
            mixes_states(&o.dom_snapshot, tree).map(|why| format!("frame {}: {why}", o.frame_id))
        });
        if let Some(change) = change {
            child_change = Some(change);
        }
    }
    if let Some(change) = child_change {
        if !last {
            return Ok(Attempt::Changed(change));
        }
        consistent = false;
    }
    let main_tree = capture
        .ax_trees
        .iter()
        .find(|t| t.frame_id == main_frame)
        .map_or(&[][..], |t| &t.nodes[..]);
    if let Some(why) = mixes_states(&capture.dom_snapshot, main_tree) {
        return Ok(Attempt::Changed(why));
    }
    capture.url = after.frame.url.clone();
    capture.frame_tree = Some(after);
    capture.consistent = consistent;
    Ok(Attempt::Done(Box::new(Captured::new(capture, dom_model))))
}

/// How many DOM nodes a capture's snapshots hold.
fn dom_nodes(capture: &Capture) -> usize {
    capture.dom_snapshot.node_count()
        + capture
            .oopifs
            .iter()
            .map(|o| o.dom_snapshot.node_count())
            .sum::<usize>()
}

/// Fills in the client and scroll rectangles of the boxes geometry needs, in the page's snapshot
/// (those in the view grown by `expand`; all of them for `None`) and every out-of-process frame's, all renderers at
/// once (see [`super::box_rects`]). A renderer whose boxes cannot be read is snapshotted again
/// with every rectangle.
async fn add_box_rects(
    page: &Page,
    sessions: &[SessionId],
    capture: &mut Capture,
    expand: Option<f64>,
) -> Result<()> {
    let conn = page.connection();
    let styles = &capture.computed_styles;
    let top = capture.dom_snapshot.documents.first();
    let viewport = &capture.layout_metrics.css_layout_viewport;
    let view = expand.map(|expand| View {
        x: top.and_then(|d| d.scroll_offset_x).unwrap_or(0.0),
        y: top.and_then(|d| d.scroll_offset_y).unwrap_or(0.0),
        width: viewport.client_width as f64,
        height: viewport.client_height as f64,
        expand,
    });
    let page_boxes = boxes_needing_rects(&capture.dom_snapshot, styles, view);
    let frame_boxes: Vec<Vec<RectBox>> = capture
        .oopifs
        .iter()
        .map(|o| boxes_needing_rects(&o.dom_snapshot, &o.computed_styles, None))
        .collect();
    let main = read_rects(conn, Some(page.session_id()), &page_boxes, FRAME_TIMEOUT);
    let frames = join_all(
        sessions
            .iter()
            .zip(&frame_boxes)
            .map(|(s, b)| read_rects(conn, Some(s), b, FRAME_TIMEOUT)),
    );
    let (main, frames) = tokio::join!(main, frames);
    match main {
        Ok(values) => write_rects(&mut capture.dom_snapshot, &page_boxes, &values),
        Err(_) => capture.dom_snapshot = page.send(&snapshot_params(true)).await?,
    }
    for ((o, s), (boxes, values)) in capture
        .oopifs
        .iter_mut()
        .zip(sessions)
        .zip(frame_boxes.iter().zip(frames))
    {
        match values {
            Ok(values) => write_rects(&mut o.dom_snapshot, boxes, &values),
            Err(_) => {
                if let Ok(again) = conn
                    .send_with_timeout(Some(s), &snapshot_params(true), FRAME_TIMEOUT)
                    .await
                {
                    o.dom_snapshot = again;
                }
            }
        }
    }
    Ok(())
}

/// `Accessibility.getFullAXTree` of every frame of one renderer: the root frame's tree, then
/// each child frame's (frames in other processes answer with an error and are left out: they
/// are captured over their own sessions).
async fn full_trees(
    conn: &Connection,
    session: Option<&SessionId>,
    frames: &[String],
    timeout: Option<Duration>,
) -> Result<Vec<AxTreeCapture>> {
    // Sent raw and read with `FullAxTree::from_reply`, which reads a large tree on two threads.
    let send = |frame_id: Option<String>| async move {
        let params = serde_json::to_value(GetFullAxTree {
            depth: None,
            frame_id,
        })
        .map_err(|e| Error::invalid_argument(format!("cannot encode the AX tree request: {e}")))?;
        let method = <GetFullAxTree as crate::cdp::Command>::METHOD;
        let raw = match timeout {
            Some(t) => {
                conn.send_raw_with_timeout(method, session, &params, t)
                    .await?
            }
            None => conn.send_raw(method, session, &params).await?,
        };
        FullAxTree::from_reply(&raw)
    };
    let main = send(None);
    let children = join_all(
        frames
            .iter()
            .skip(1)
            .map(|f| async move { (f.clone(), send(Some(f.clone())).await) }),
    );
    let (main, children) = tokio::join!(main, children);
    let mut trees = vec![AxTreeCapture {
        frame_id: frames.first().cloned().unwrap_or_default(),
        nodes: main?.nodes,
    }];
    for (frame_id, reply) in children {
        if let Ok(reply) = reply {
            trees.push(AxTreeCapture {
                frame_id,
                nodes: reply.nodes,
            });
        }
    }
    Ok(trees)
}

/// The accessibility trees of one renderer holding the nodes of `ids` and their ancestors:
/// `Accessibility.getPartialAXTree` for each, all sent at once, then once more for parents
/// the replies name that were not asked for (`aria-owns`), a bounded number of rounds.
async fn partial_trees(
    conn: &Connection,
    session: Option<&SessionId>,
    ids: &[i64],
    timeout: Option<Duration>,
) -> Result<Vec<AxTreeCapture>> {
    let send = |id: i64| async move {
        let params = GetPartialAxTree::of(id);
        match timeout {
            Some(t) => conn.send_with_timeout(session, &params, t).await,
            None => conn.send(session, &params).await,
        }
    };
    let mut nodes = Vec::new();
    for reply in join_all(ids.iter().map(|&id| send(id))).await {
        // A node the snapshot had and Chromium no longer knows: the DOM changed in between.
        nodes.extend(reply?.nodes);
    }
    let mut asked: FxHashSet<i64> = ids.iter().copied().collect();
    for _ in 0..PARENT_ROUNDS {
        let ask: Vec<i64> = ax_partial::missing_parents(&nodes)
            .into_iter()
            .filter(|id| asked.insert(*id))
            .collect();
        if ask.is_empty() {
            break;
        }
        // A parent that is no DOM node cannot be asked for: its children are left out.
        for reply in join_all(ask.iter().map(|&id| send(id))).await {
            nodes.extend(reply.map(|r| r.nodes).unwrap_or_default());
        }
    }
    Ok(ax_partial::assemble(nodes))
}

/// Chromium answers this when a node the snapshot listed is gone.
fn is_missing_node(e: &Error) -> bool {
    e.code() == ErrorCode::ProtocolError && e.message().contains("No node")
}

/// What capturing one out-of-process iframe gave.
enum FrameOutcome {
    /// Its snapshot (and, for a full scope, its trees); `frame_tree` holds the tree read
    /// before, replaced by the one read after once the page checks it.
    Captured(Box<OopifCapture>),
    /// The frame changed documents during the capture.
    Changed(String),
    /// The frame could not be captured; `owner` is its `<iframe>` when that is known.
    Failed { owner: Option<i64>, reason: String },
    /// The frame's target went away (it navigated, or its `<iframe>` was removed).
    Gone,
}

/// Snapshots one out-of-process iframe over its own session (with its full trees when `full`,
/// every DOM rectangle when `dom_rects`).
async fn frame_part(
    page: &Page,
    target: &FrameTarget,
    full: bool,
    dom_rects: bool,
) -> FrameOutcome {
    let conn = page.connection();
    let session = Some(&target.session_id);
    let before = match conn
        .send_with_timeout(session, &GetFrameTreeParams {}, FRAME_TIMEOUT)
        .await
    {
        Ok(r) => r.frame_tree,
        Err(e) => return failed(None, &e),
    };
    let owner_params = GetFrameOwnerParams {
        frame_id: before.frame.id.clone(),
    };
    let owner = conn.send_with_timeout(Some(&target.parent_session), &owner_params, FRAME_TIMEOUT);
    let params = snapshot_params(dom_rects);
    let snapshot = conn.send_with_timeout(session, &params, FRAME_TIMEOUT);
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let trees = async {
        if full {
            full_trees(conn, session, &frames, Some(FRAME_TIMEOUT)).await
        } else {
            Ok(Vec::new())
        }
    };
    let (owner, snapshot, trees) = tokio::join!(owner, snapshot, trees);
    let owner = match owner {
        Ok(o) => o.backend_node_id,
        // The parent does not know the frame (any more): it was removed or navigated away.
        Err(_) => return FrameOutcome::Gone,
    };
    let (snapshot, ax_trees) = match (snapshot, trees) {
        (Ok(s), Ok(a)) => (s, a),
        (Err(e), _) | (_, Err(e)) => return failed(Some(owner), &e),
    };
    if snapshot.documents.is_empty() {
        return FrameOutcome::Changed(format!("frame {} has no document yet", before.frame.id));
    }
    FrameOutcome::Captured(Box::new(OopifCapture {
        target_id: Some(target.target_id.clone()),
        frame_id: before.frame.id.clone(),
        owner_target: 0,
        owner_backend_node_id: owner,
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        dom_snapshot: snapshot,
        ax_trees,
        frame_tree: Some(before),
    }))
}

fn failed(owner: Option<i64>, e: &Error) -> FrameOutcome {
    match e.code() {
        // The frame's session ended: the frame is gone, not broken.
        ErrorCode::BrowserClosed => FrameOutcome::Gone,
        ErrorCode::Timeout => FrameOutcome::Failed {
            owner,
            reason: "the frame did not answer in time".into(),
        },
        _ if is_missing_document(e) => FrameOutcome::Changed(e.message().to_string()),
        _ => FrameOutcome::Failed {
            owner,
            reason: format!("the frame could not be read: {}", e.message()),
        },
    }
}

fn document_title(snapshot: &DomSnapshot) -> String {
    snapshot
        .documents
        .first()
        .and_then(|d| usize::try_from(d.title).ok())
        .and_then(|i| snapshot.strings.get(i))
        .cloned()
        .unwrap_or_default()
}

/// Whether a DOM snapshot and an accessibility tree of the same renderer were taken of two
/// different states of its DOM (the page's scripts ran between the two calls), and how.
///
/// Both are checked against facts that hold for any single state: the accessibility nodes tied
/// to DOM nodes name nodes of the snapshot (a DOM rebuilt in between has new nodes; a quarter
/// unknown is taken as a rebuild; the insides of form controls and media are legitimately
/// unknown and not counted),
/// and the root web area is named after the document title the snapshot recorded. Pure:
/// callers can check recorded captures too.
pub fn mixes_states(snapshot: &DomSnapshot, ax: &[AxNodeRecord]) -> Option<String> {
    // backendNodeId -> tag name (upper case, as the snapshot spells it) of every snapshot node.
    let mut known: FxHashMap<i64, &str> = FxHashMap::default();
    for d in &snapshot.documents {
        let (Some(ids), Some(names)) = (&d.nodes.backend_node_id, &d.nodes.node_name) else {
            continue;
        };
        for (id, name) in ids.iter().zip(names) {
            let tag = usize::try_from(*name)
                .ok()
                .and_then(|i| snapshot.strings.get(i))
                .map_or("", String::as_str);
            known.insert(*id, tag);
        }
    }
    if known.is_empty() {
        return None;
    }
    let parents: FxHashMap<&AxNodeKey, &AxNodeRecord> =
        ax.iter().map(|n| (&n.node_id, n)).collect();
    // The AX tree also describes the insides of form controls and media (user-agent shadow
    // trees), which the snapshot leaves out: an unknown node under such a host is expected.
    let under_control = |n: &AxNodeRecord| {
        let mut cur = n.parent_id.as_ref().and_then(|p| parents.get(p));
        for _ in 0..64 {
            let Some(p) = cur else { return false };
            if let Some(tag) = p.backend_dom_node_id.and_then(|b| known.get(&b)) {
                return matches!(
                    tag.to_ascii_lowercase().as_str(),
                    "input"
                        | "textarea"
                        | "select"
                        | "video"
                        | "audio"
                        | "meter"
                        | "progress"
                        | "details"
                        | "img"
                        | "object"
                        | "embed"
                );
            }
            cur = p.parent_id.as_ref().and_then(|q| parents.get(q));
        }
        false
    };
    let (mut tied, mut missing) = (0usize, 0usize);
    for n in ax.iter().filter(|n| !n.ignored) {
        let Some(b) = n.backend_dom_node_id else {
            continue;
        };
        tied += 1;
        if !known.contains_key(&b) && !under_control(n) {
            missing += 1;
        }
    }
    // A DOM rebuilt between the two calls leaves much of the tree unknown.
    if missing >= 4 && missing * 4 > tied {
        return Some(format!(
            "the accessibility tree names {missing} node(s) the DOM snapshot does not have"
        ));
    }
    let root = ax.iter().find(|n| {
        n.parent_id.is_none() && n.role.as_ref().and_then(|r| r.as_str()) == Some("RootWebArea")
    });
    if let Some(name) = root.and_then(|r| r.name.as_ref()).and_then(|n| n.as_str()) {
        let title = document_title(snapshot);
        if !title.is_empty() && !same_words(name, &title) {
            return Some(
                "the document title changed between the DOM and the accessibility tree".into(),
            );
        }
    }
    None
}

fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// Frame ids in pre-order (main frame first). Depth-limited against hostile nesting.
fn collect_frames(tree: &FrameTree, out: &mut Vec<String>, depth: usize) {
    out.push(tree.frame.id.clone());
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            collect_frames(child, out, depth + 1);
        }
    }
}

/// A frame whose loader id differs between the two trees, if any, and what happened (added or
/// removed frames do not count: they do not mix documents within a frame).
fn document_change(before: &FrameTree, after: &FrameTree) -> Option<(String, String)> {
    let mut a = Vec::new();
    loaders(before, &mut a, 0);
    let mut b = Vec::new();
    loaders(after, &mut b, 0);
    for (frame, loader) in &a {
        if let Some((_, other)) = b.iter().find(|(f, _)| f == frame) {
            if other != loader {
                return Some((
                    frame.to_string(),
                    format!("frame {frame} loaded a new document"),
                ));
            }
        }
    }
    None
}

fn loaders<'a>(tree: &'a FrameTree, out: &mut Vec<(&'a str, &'a str)>, depth: usize) {
    out.push((&tree.frame.id, &tree.frame.loader_id));
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            loaders(child, out, depth + 1);
        }
    }
}
