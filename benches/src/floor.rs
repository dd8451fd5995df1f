//! The floor: the CDP calls of one pagesight capture, sent bare by a client that only waits for
//! the raw bytes of each reply. What Chromium alone needs to produce a snapshot's inputs; every
//! live figure of pagesight is read against it.
//!
//! Keep it in step with the engine's capture (`engine/src/capture/live.rs`): when the capture
//! asks for something else, this must ask for the same.

use pagesight::browser::Page;
use pagesight::capture::COMPUTED_STYLES;
use pagesight::transport::RawJson;

/// The floor's replies of one run.
pub struct FloorReplies {
    pub snapshot: RawJson,
    pub ax: Vec<RawJson>,
    pub bytes: usize,
}

/// The parameters the engine's capture gives `DOMSnapshot.captureSnapshot`.
pub fn snapshot_params() -> serde_json::Value {
    serde_json::json!({
        "computedStyles": COMPUTED_STYLES,
        "includePaintOrder": true,
        "includeDOMRects": true,
    })
}

/// The engine's capture calls, sent bare; replies stay raw.
pub async fn floor(page: &Page) -> Result<FloorReplies, String> {
    let conn = page.connection();
    let session = Some(page.session_id());
    let empty = serde_json::json!({});
    let err = |what: &str, e: pagesight::Error| format!("{what}: {e}");
    let tree = conn
        .send_raw("Page.getFrameTree", session, &empty)
        .await
        .map_err(|e| err("Page.getFrameTree", e))?;
    let frames = child_frames(&tree);
    let snapshot_params = snapshot_params();
    let metrics = conn.send_raw("Page.getLayoutMetrics", session, &empty);
    let snapshot = conn.send_raw("DOMSnapshot.captureSnapshot", session, &snapshot_params);
    let ax_main = conn.send_raw("Accessibility.getFullAXTree", session, &empty);
    let children = futures_util::future::join_all(frames.iter().map(|f| {
        let params = serde_json::json!({ "frameId": f });
        async move {
            conn.send_raw("Accessibility.getFullAXTree", session, &params)
                .await
        }
    }));
    let (metrics, snapshot, ax_main, children) = tokio::join!(metrics, snapshot, ax_main, children);
    let metrics = metrics.map_err(|e| err("Page.getLayoutMetrics", e))?;
    let snapshot = snapshot.map_err(|e| err("DOMSnapshot.captureSnapshot", e))?;
    let ax_main = ax_main.map_err(|e| err("Accessibility.getFullAXTree", e))?;
    let after = conn
        .send_raw("Page.getFrameTree", session, &empty)
        .await
        .map_err(|e| err("Page.getFrameTree", e))?;
    let mut bytes = tree.len() + metrics.len() + snapshot.len() + ax_main.len() + after.len();
    let mut ax = vec![ax_main];
    for reply in children.into_iter().flatten() {
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
