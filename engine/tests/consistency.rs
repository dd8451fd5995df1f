//! A snapshot never mixes two states of a page. Two pages change on a short timer while
//! snapshots are taken in a loop: one navigates to a new document every few milliseconds, the
//! other rebuilds its whole body. Each state writes its generation number into both the title
//! (which names the accessibility tree's root) and the body (DOM text), so a snapshot whose AX
//! root name and DOM text disagree is mixed. Every capture must be either unmixed or a
//! retryable `PAGE_NAVIGATING`.

use std::path::{Path, PathBuf};

use pagesight::capture::{AxNodes, Capture};
use pagesight::live::{capture_everything, mixes_states};
use pagesight::model::Model;
use pagesight::session::{Session, SessionOptions};
use pagesight::ErrorCode;
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (AX root name, text of `#gen`) of a capture.
fn generations(capture: Capture) -> (String, String) {
    let model = Model::from_capture(capture).expect("model");
    let ax_name = model.docs[0]
        .root
        .index()
        .checked_sub(0)
        .and_then(|i| model.nodes.get(i))
        .and_then(|n| n.ax)
        .and_then(|a| model.opt_str(model.ax(a).name))
        .unwrap_or("")
        .to_string();
    let text = model
        .node_ids()
        .find(|&n| model.attr(n, "id") == Some("gen") && model.node(n).doc.get() == 0)
        .map(|n| model.text_content(n, 200))
        .unwrap_or_default();
    (ax_name, text.trim().to_string())
}

struct Tally {
    ok: usize,
    navigating: usize,
    mixed: Vec<String>,
}

async fn hammer(session: &Session, iterations: usize) -> Tally {
    let page = session.current_page().expect("a page");
    let mut tally = Tally {
        ok: 0,
        navigating: 0,
        mixed: Vec::new(),
    };
    for _ in 0..iterations {
        match capture_everything(page).await {
            Ok(capture) => {
                assert!(
                    capture.consistent,
                    "the page's own document was marked mixed"
                );
                let (ax, text) = generations(capture);
                if ax.starts_with("generation") && text.starts_with("generation") && ax != text {
                    tally.mixed.push(format!("AX root {ax:?} vs DOM {text:?}"));
                } else {
                    tally.ok += 1;
                }
            }
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::PageNavigating, "{e}");
                assert!(e.retryable(), "{e}");
                tally.navigating += 1;
            }
        }
    }
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshots_of_changing_pages_are_never_mixed() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let pages = root().join("fixtures/pages/frames");
    for (page, iterations) in [("gen-nav.html", 150), ("gen-rebuild.html", 300)] {
        let opened = session
            .open(&pages.join(page).to_string_lossy())
            .await
            .expect("open");
        assert!(opened.loaded, "{page}: {opened:?}");
        let started = std::time::Instant::now();
        let tally = hammer(&session, iterations).await;
        eprintln!(
            "{page}: {iterations} snapshots in {:?}, {} whole, {} PAGE_NAVIGATING, {} mixed",
            started.elapsed(),
            tally.ok,
            tally.navigating,
            tally.mixed.len()
        );
        assert!(tally.mixed.is_empty(), "{page}: {:?}", tally.mixed);
        assert!(tally.ok > 0, "{page}: no snapshot ever succeeded");
    }
    // The session reports a whole snapshot as consistent in its JSON.
    let opened = session
        .open(&root().join("fixtures/pages/forms.html").to_string_lossy())
        .await
        .expect("open");
    assert!(opened.loaded, "{opened:?}");
    let result = session
        .execute_json(&json!({"cmd": "snapshot", "format": "json"}))
        .await
        .expect("snapshot");
    assert_eq!(result["consistent"], json!(true));
    session.shutdown().await.expect("close");
}

/// The state check has no false alarms on recorded real pages (each was one quiet state).
#[test]
fn recorded_pages_are_not_mixed() {
    let dir = root().join("fixtures/captures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/captures") {
        let path = entry.expect("entry").path();
        let bytes = std::fs::read(&path).expect("read");
        let capture = Capture::from_bytes(&bytes).expect("capture");
        let empty = AxNodes::default();
        let ax = capture.ax_trees.first().map_or(&empty, |t| &t.nodes);
        assert_eq!(
            mixes_states(&capture.dom_snapshot, ax),
            None,
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 5);
}
