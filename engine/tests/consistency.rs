//! A snapshot never mixes two states of a page. Two pages change on a short timer while
//! snapshots are taken in a loop: one navigates to a new document every few milliseconds, the
//! other rebuilds its whole body. Each state writes its generation number into both the title
//! (which names the accessibility tree's root) and the body (DOM text), so a snapshot whose AX
//! root name and DOM text disagree is mixed. Every capture must be unmixed: whole, or (the page
//! that rebuilds its body) marked not consistent with what changed left out, or (the page that
//! navigates) a retryable `PAGE_NAVIGATING` that says it navigated.
//!
//! A page that never stops changing after it has loaded (`fixtures/pages/churn/feed.html`:
//! rows, a ticker, a title, an iframe) answers every snapshot, each whole or saying what it
//! left out, with the same uids for the elements that stay.

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
    /// Unmixed, marked not consistent: what changed was left out.
    partial: usize,
    navigating: usize,
    mixed: Vec<String>,
}

async fn hammer(session: &Session, iterations: usize) -> Tally {
    let page = session.current_page().expect("a page");
    let mut tally = Tally {
        ok: 0,
        partial: 0,
        navigating: 0,
        mixed: Vec::new(),
    };
    for _ in 0..iterations {
        match capture_everything(page).await {
            Ok(capture) => {
                let consistent = capture.consistent;
                let (ax, text) = generations(capture);
                if ax.starts_with("generation") && text.starts_with("generation") && ax != text {
                    tally.mixed.push(format!(
                        "AX root {ax:?} vs DOM {text:?} (consistent: {consistent})"
                    ));
                } else if consistent {
                    tally.ok += 1;
                } else {
                    tally.partial += 1;
                }
            }
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::PageNavigating, "{e}");
                assert!(e.retryable(), "{e}");
                assert!(e.message().contains("navigated"), "{e}");
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
    for (page, iterations) in [("gen-nav.html", 500), ("gen-rebuild.html", 300)] {
        let opened = session
            .open(&pages.join(page).to_string_lossy())
            .await
            .expect("open");
        assert!(opened.loaded, "{page}: {opened:?}");
        let started = std::time::Instant::now();
        let tally = hammer(&session, iterations).await;
        eprintln!(
            "{page}: {iterations} snapshots in {:?}, {} whole, {} partial, {} PAGE_NAVIGATING, \
             {} mixed",
            started.elapsed(),
            tally.ok,
            tally.partial,
            tally.navigating,
            tally.mixed.len()
        );
        assert!(tally.mixed.is_empty(), "{page}: {:?}", tally.mixed);
        assert!(tally.ok > 0, "{page}: no snapshot ever succeeded");
        if page == "gen-rebuild.html" {
            // The document stays: a DOM changing under it is never a navigation.
            assert_eq!(tally.navigating, 0, "{page}");
        } else {
            // A new document is never answered with a part of two, and a page navigating
            // under every attempt is reported as navigating.
            assert_eq!(tally.partial, 0, "{page}");
            assert!(tally.navigating > 0, "{page}: never seen navigating");
        }
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

/// The line a text snapshot has when the page changed while it was read.
const CHANGED: &str = "changed while it was read";

/// `(uid, name)` of every node of a snapshot's JSON tree, depth first, and whether each node
/// with a name in the page's own feed is tied to a DOM node.
fn json_nodes(node: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
    out.push(node.clone());
    for child in node["children"].as_array().into_iter().flatten() {
        json_nodes(child, out);
    }
}

/// The uid of the first text line naming `needle` (`uid=<uid> <role> "<needle>"`).
fn uid_in_text(text: &str, needle: &str) -> Option<String> {
    text.lines()
        .map(str::trim_start)
        .find(|l| l.contains(needle))
        .and_then(|l| l.strip_prefix("uid="))
        .and_then(|l| l.split(' ').next())
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_stops_changing_answers_every_snapshot() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let feed = root().join("fixtures/pages/churn/feed.html");
    let opened = session.open(&feed.to_string_lossy()).await.expect("open");
    assert!(opened.loaded, "{opened:?}");
    // Long after the load: rows, ticker and frame have changed many times.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let (mut whole, mut partial) = (0, 0);
    let mut heading_uids = std::collections::BTreeSet::new();
    let mut button_uids = std::collections::BTreeSet::new();
    for k in 0..30 {
        let command = match k % 3 {
            0 => json!({"cmd": "snapshot"}),
            1 => json!({"cmd": "snapshot", "format": "json", "expand": "all"}),
            _ => json!({"cmd": "snapshot", "mode": "dom"}),
        };
        let result = match session.execute_json(&command).await {
            Ok(result) => result,
            Err(e) => panic!("snapshot {k} ({command}) failed: {e}"),
        };
        if let Some(text) = result.as_str() {
            let notes: Vec<&str> = text.lines().filter(|l| l.contains(CHANGED)).collect();
            match notes.as_slice() {
                [] => whole += 1,
                [note] => {
                    // The engine's own line, in the mode's spelling, last.
                    assert!(
                        note.starts_with("… ") || note.starts_with("... "),
                        "snapshot {k}: {note}"
                    );
                    assert_eq!(text.trim_end().lines().last(), Some(*note), "snapshot {k}");
                    partial += 1;
                }
                _ => panic!("snapshot {k}: more than one note: {notes:?}"),
            }
            if k % 3 == 0 {
                heading_uids.insert(uid_in_text(text, "heading \"Live feed\""));
                button_uids.insert(uid_in_text(text, "button \"Pause\""));
            }
            continue;
        }
        match result["consistent"].as_bool() {
            Some(true) => whole += 1,
            Some(false) => partial += 1,
            None => panic!("snapshot {k}: no `consistent` in {result}"),
        }
        let mut nodes = Vec::new();
        json_nodes(&result["root"], &mut nodes);
        for n in &nodes {
            let name = n["name"].as_str().unwrap_or("");
            if n["role"] == json!("heading") && name == "Live feed" {
                heading_uids.insert(n["uid"].as_str().map(str::to_string));
            }
            if n["role"] == json!("button") && name == "Pause" {
                button_uids.insert(n["uid"].as_str().map(str::to_string));
            }
            // A feed row shown is one the DOM snapshot holds: never a node of another moment
            // with no element behind it.
            if n["role"] == json!("link") && name.starts_with("row ") {
                assert!(
                    n["backendNodeId"].is_i64() && n["uid"].as_str().is_some_and(|u| !u.is_empty()),
                    "snapshot {k}: a row link without its element: {n}"
                );
            }
        }
    }
    eprintln!("30 snapshots of the churning page: {whole} whole, {partial} partial");
    // The elements that stay keep their uids through every snapshot, whole or partial.
    assert_eq!(heading_uids.len(), 1, "{heading_uids:?}");
    assert_eq!(button_uids.len(), 1, "{button_uids:?}");
    assert!(!heading_uids.contains(&None), "the heading was not shown");
    assert!(!button_uids.contains(&None), "the button was not shown");
    session.shutdown().await.expect("close");
}
