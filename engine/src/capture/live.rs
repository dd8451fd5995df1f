//! Taking a capture from a live page: the CDP calls of one snapshot.
//!
//! Why these calls, issued together: `Page.getFrameTree` (frame ids and loader ids — document
//! identity), `Page.getLayoutMetrics` (viewport, scroll, device pixel ratio),
//! `DOMSnapshot.captureSnapshot` (DOM, layout, styles, paint order, form state; the only source
//! of geometry) and `Accessibility.getFullAXTree` per frame (roles and names). They are sent at
//! once so their round trips overlap; Chromium answers calls to one renderer one after another.
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
//!   AX tree names no node the snapshot lacks, and its root is named by the snapshot's title.
//!
//! A change is retried a bounded number of times. If the page's own document keeps changing
//! the capture fails with the retryable `PAGE_NAVIGATING`; if only an iframe does (ad frames
//! reload on timers), the last attempt is returned with `consistent: false` rather than failing
//! the whole page for one frame.

use std::time::Duration;

use futures_util::future::join_all;
use rustc_hash::FxHashMap;

use super::ax::{AxNodeKey, AxNodeRecord, GetFullAxTree};
use crate::browser::{FrameTarget, Page};
use crate::cdp::dom::{DocumentUpdatedEvent, GetDocumentParams, GetFrameOwnerParams};
use crate::cdp::dom_snapshot::{CaptureSnapshotParams, CaptureSnapshotReturns};
use crate::cdp::page::{
    FrameNavigatedEvent, FrameTree, GetFrameTreeParams, GetLayoutMetricsParams,
};
use crate::cdp::Event;
use crate::error::{Error, ErrorCode, Result};
use crate::transport::SessionId;

use super::{
    AxTreeCapture, Capture, OopifCapture, UncapturedFrame, COMPUTED_STYLES, FORMAT_VERSION,
};

/// How many times a capture is retried when the page changes documents under it.
const MAX_ATTEMPTS: usize = 4;
/// How long an out-of-process iframe may take to answer one call before it is reported as not
/// captured (a hung frame must not hold the whole page's snapshot for the default timeout).
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

/// Captures everything one snapshot of `page` needs.
pub async fn capture_page(page: &Page) -> Result<Capture> {
    let mut last_change = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(50 * attempt as u64)).await;
        }
        let last = attempt + 1 == MAX_ATTEMPTS;
        match capture_once(page, last).await {
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
    Done(Box<Capture>),
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

fn snapshot_params() -> CaptureSnapshotParams {
    CaptureSnapshotParams {
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        include_paint_order: Some(true),
        include_dom_rects: Some(true),
        include_blended_background_colors: None,
        include_text_color_opacities: None,
    }
}

async fn capture_once(page: &Page, last: bool) -> Result<Attempt> {
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
    let (before, _) = tokio::join!(page.send(&GetFrameTreeParams {}), page.send(&document_root));
    let before = before?.frame_tree;
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let main_frame = before.frame.id.clone();

    let snapshot_params = snapshot_params();
    let metrics = page.send(&GetLayoutMetricsParams {});
    let snapshot = page.send(&snapshot_params);
    let ax_main = page.send(&GetFullAxTree {
        depth: None,
        frame_id: None,
    });
    // Child frames in this process answer with their own tree; frames in other processes
    // (out-of-process iframes) answer with an error and are captured over their own sessions.
    let ax_children = join_all(frames.iter().skip(1).map(|f| async move {
        let params = GetFullAxTree {
            depth: None,
            frame_id: Some(f.clone()),
        };
        (f.clone(), page.send(&params).await)
    }));
    let targets = page.frame_targets();
    let oopifs = join_all(targets.iter().map(|t| capture_frame(page, t)));
    let (metrics, snapshot, ax_main, ax_children, oopifs) =
        tokio::join!(metrics, snapshot, ax_main, ax_children, oopifs);
    let (metrics, snapshot, ax_main) = (metrics?, snapshot?, ax_main?);

    let after = page.send(&GetFrameTreeParams {}).await?.frame_tree;
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
    let mut consistent = true;
    if let Some(change) = child_change {
        if !last {
            return Ok(Attempt::Changed(change));
        }
        consistent = false;
    }
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
    if let Some(why) = mixes_states(&snapshot, &ax_main.nodes) {
        return Ok(Attempt::Changed(why));
    }

    // The out-of-process frames, numbered in the order they are kept so owners come first.
    let mut kept: Vec<(SessionId, OopifCapture)> = Vec::new();
    let mut uncaptured = Vec::new();
    for (target, outcome) in targets.iter().zip(oopifs) {
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

    let mut ax_trees = vec![AxTreeCapture {
        frame_id: main_frame,
        nodes: ax_main.nodes,
    }];
    for (frame_id, reply) in ax_children {
        if let Ok(reply) = reply {
            ax_trees.push(AxTreeCapture {
                frame_id,
                nodes: reply.nodes,
            });
        }
    }
    let title = document_title(&snapshot);
    Ok(Attempt::Done(Box::new(Capture {
        format: FORMAT_VERSION,
        url: after.frame.url.clone(),
        title,
        target_id: Some(page.target_id().to_string()),
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        frame_tree: Some(after),
        layout_metrics: metrics,
        dom_snapshot: snapshot,
        ax_trees,
        oopifs: kept.into_iter().map(|(_, c)| c).collect(),
        uncaptured_frames: uncaptured,
        consistent,
    })))
}

/// What capturing one out-of-process iframe gave.
enum FrameOutcome {
    Captured(Box<OopifCapture>),
    /// The frame changed documents during the capture.
    Changed(String),
    /// The frame could not be captured; `owner` is its `<iframe>` when that is known.
    Failed {
        owner: Option<i64>,
        reason: String,
    },
    /// The frame's target went away (it navigated, or its `<iframe>` was removed).
    Gone,
}

/// Captures one out-of-process iframe over its own session.
async fn capture_frame(page: &Page, target: &FrameTarget) -> FrameOutcome {
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
    let params = snapshot_params();
    let snapshot = conn.send_with_timeout(session, &params, FRAME_TIMEOUT);
    let ax = conn.send_with_timeout(
        session,
        &GetFullAxTree {
            depth: None,
            frame_id: None,
        },
        FRAME_TIMEOUT,
    );
    let mut children = Vec::new();
    collect_frames(&before, &mut children, 0);
    let ax_children = join_all(children.iter().skip(1).map(|f| async move {
        let params = GetFullAxTree {
            depth: None,
            frame_id: Some(f.clone()),
        };
        (
            f.clone(),
            conn.send_with_timeout(session, &params, FRAME_TIMEOUT)
                .await,
        )
    }));
    let (owner, snapshot, ax, ax_children) = tokio::join!(owner, snapshot, ax, ax_children);
    let owner = match owner {
        Ok(o) => o.backend_node_id,
        // The parent does not know the frame (any more): it was removed or navigated away.
        Err(_) => return FrameOutcome::Gone,
    };
    let (snapshot, ax) = match (snapshot, ax) {
        (Ok(s), Ok(a)) => (s, a),
        (Err(e), _) | (_, Err(e)) => return failed(Some(owner), &e),
    };
    let after = match conn
        .send_with_timeout(session, &GetFrameTreeParams {}, FRAME_TIMEOUT)
        .await
    {
        Ok(r) => r.frame_tree,
        Err(e) => return failed(Some(owner), &e),
    };
    if let Some((_, change)) = document_change(&before, &after) {
        return FrameOutcome::Changed(change);
    }
    if snapshot.documents.is_empty() {
        return FrameOutcome::Changed(format!("frame {} has no document yet", after.frame.id));
    }
    if let Some(why) = mixes_states(&snapshot, &ax.nodes) {
        return FrameOutcome::Changed(format!("frame {}: {why}", after.frame.id));
    }
    let mut ax_trees = vec![AxTreeCapture {
        frame_id: after.frame.id.clone(),
        nodes: ax.nodes,
    }];
    for (frame_id, reply) in ax_children {
        if let Ok(reply) = reply {
            ax_trees.push(AxTreeCapture {
                frame_id,
                nodes: reply.nodes,
            });
        }
    }
    FrameOutcome::Captured(Box::new(OopifCapture {
        target_id: Some(target.target_id.clone()),
        frame_id: after.frame.id.clone(),
        owner_target: 0,
        owner_backend_node_id: owner,
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        dom_snapshot: snapshot,
        ax_trees,
        frame_tree: Some(after),
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

fn document_title(snapshot: &CaptureSnapshotReturns) -> String {
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
pub fn mixes_states(snapshot: &CaptureSnapshotReturns, ax: &[AxNodeRecord]) -> Option<String> {
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
