//! Taking a capture from a live page: the CDP calls of one snapshot.
//!
//! Why these calls, issued together: `Page.getFrameTree` (frame ids and loader ids — document
//! identity), `Page.getLayoutMetrics` (viewport, scroll, device pixel ratio),
//! `DOMSnapshot.captureSnapshot` (DOM, layout, styles, paint order, form state; the only source
//! of geometry) and `Accessibility.getFullAXTree` per frame (roles and names). They are sent at
//! once so their round trips overlap; Chromium answers calls to one renderer one after another.
//!
//! A snapshot must never mix two documents: the frame tree is read again after the heavy calls,
//! and if a frame's loader id changed in between (the page navigated while we looked) the capture
//! is taken again, a bounded number of times, before failing with `PAGE_NAVIGATING`.

use std::time::Duration;

use crate::browser::Page;
use crate::cdp::accessibility::GetFullAXTreeParams;
use crate::cdp::dom_snapshot::CaptureSnapshotParams;
use crate::cdp::page::{FrameTree, GetFrameTreeParams, GetLayoutMetricsParams};
use crate::error::{Error, ErrorCode, Result};

use super::{AxTreeCapture, Capture, COMPUTED_STYLES, FORMAT_VERSION};

/// How many times a capture is retried when the page changes documents under it.
const MAX_ATTEMPTS: usize = 3;

/// Captures everything one snapshot of `page` needs.
pub async fn capture_page(page: &Page) -> Result<Capture> {
    let mut last_change = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(100 * attempt as u64)).await;
        }
        match capture_once(page).await {
            Ok(Attempt::Consistent(capture)) => return Ok(*capture),
            Ok(Attempt::Changed(what)) => last_change = what,
            Err(e) if is_missing_document(&e) => last_change = e.message().to_string(),
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorCode::PageNavigating,
        format!(
            "the page kept changing documents while it was captured ({last_change}); \
             retry once the page has loaded"
        ),
    ))
}

enum Attempt {
    Consistent(Box<Capture>),
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

async fn capture_once(page: &Page) -> Result<Attempt> {
    let before = page.send(&GetFrameTreeParams {}).await?.frame_tree;
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let main_frame = before.frame.id.clone();

    let snapshot_params = CaptureSnapshotParams {
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        include_paint_order: Some(true),
        include_dom_rects: Some(true),
        include_blended_background_colors: None,
        include_text_color_opacities: None,
    };
    let metrics = page.send(&GetLayoutMetricsParams {});
    let snapshot = page.send(&snapshot_params);
    let ax_main = page.send(&GetFullAXTreeParams {
        depth: None,
        frame_id: None,
    });
    // Child frames in this process answer with their own tree; frames in other processes
    // (out-of-process iframes) answer with an error and are left to their own targets.
    let ax_children = futures_util::future::join_all(frames.iter().skip(1).map(|f| async move {
        let params = GetFullAXTreeParams {
            depth: None,
            frame_id: Some(f.clone()),
        };
        (f.clone(), page.send(&params).await)
    }));
    let (metrics, snapshot, ax_main, ax_children) =
        tokio::join!(metrics, snapshot, ax_main, ax_children);
    let (metrics, snapshot, ax_main) = (metrics?, snapshot?, ax_main?);

    let after = page.send(&GetFrameTreeParams {}).await?.frame_tree;
    if let Some(change) = document_change(&before, &after) {
        return Ok(Attempt::Changed(change));
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
    let title = snapshot
        .documents
        .first()
        .and_then(|d| usize::try_from(d.title).ok())
        .and_then(|i| snapshot.strings.get(i))
        .cloned()
        .unwrap_or_default();
    Ok(Attempt::Consistent(Box::new(Capture {
        format: FORMAT_VERSION,
        url: after.frame.url.clone(),
        title,
        target_id: Some(page.target_id().to_string()),
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        frame_tree: Some(after),
        layout_metrics: metrics,
        dom_snapshot: snapshot,
        ax_trees,
        oopifs: Vec::new(),
    })))
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

/// A frame whose loader id differs between the two trees, if any (added or removed frames do not
/// count: they do not mix documents within a frame).
fn document_change(before: &FrameTree, after: &FrameTree) -> Option<String> {
    let mut a = Vec::new();
    loaders(before, &mut a, 0);
    let mut b = Vec::new();
    loaders(after, &mut b, 0);
    for (frame, loader) in &a {
        if let Some((_, other)) = b.iter().find(|(f, _)| f == frame) {
            if other != loader {
                return Some(format!("frame {frame} loaded a new document"));
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
