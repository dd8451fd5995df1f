//! The engine's own readers of `DOMSnapshot.captureSnapshot` and `Accessibility.getFullAXTree`
//! on Chromium's reply bytes: the recorded captures hold the replies as the engine writes them
//! back, so this checks the text Chromium itself writes (its number formats, its escapes)
//! against serde_json, on every page of `fixtures/pages/`.

use std::path::Path;

mod common;
use common::{html_in, pages_dir};

use pagesight::browser::Page;
use pagesight::capture::{AxNodes, DomSnapshot, FullAxTree, COMPUTED_STYLES};
use pagesight::session::{Session, SessionOptions};
use serde_json::json;
use serde_json::value::RawValue;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_readers_read_chromium_replies_as_serde_does() {
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let pages = html_in(&pages_dir(""));
    assert!(pages.len() > 10, "{pages:?}");
    let (mut dom, mut ax) = (0, 0);
    for path in pages {
        session
            .open(&path.to_string_lossy())
            .await
            .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
        let page = session.current_page().expect("a page");
        dom += dom_replies_agree(page, &path).await;
        ax += ax_replies_agree(page, &path).await;
    }
    assert!(dom > 10, "{dom}");
    assert!(ax > 10, "{ax}");
    session.shutdown().await.expect("close");
}

/// Reads the page's snapshot reply, with and without DOM rects, both ways; how many read.
async fn dom_replies_agree(page: &Page, path: &Path) -> usize {
    let mut read = 0;
    for rects in [false, true] {
        let params = json!({
            "computedStyles": COMPUTED_STYLES,
            "includePaintOrder": true,
            "includeDOMRects": rects,
            "includeBlendedBackgroundColors": true,
            "includeTextColorOpacities": true,
        });
        let raw = page
            .connection()
            .send_raw(
                "DOMSnapshot.captureSnapshot",
                Some(page.session_id()),
                &params,
            )
            .await
            .expect("captureSnapshot");
        let text = raw.as_str();
        let fast = DomSnapshot::read_fast(raw.as_bytes());
        match serde_json::from_str::<DomSnapshot>(text) {
            Ok(serde) => {
                let fast =
                    fast.unwrap_or_else(|| panic!("{}: the fast reader gave up", path.display()));
                assert_eq!(fast, serde, "{}", path.display());
                // Every float to the bit.
                assert_eq!(
                    serde_json::to_string(&fast).unwrap(),
                    serde_json::to_string(&serde).unwrap(),
                    "{}",
                    path.display()
                );
                read += 1;
            }
            // Unpaired surrogates in page text: serde_json refuses them, and so must the
            // fast reader on its own (the engine then reads the reply repaired).
            Err(e) => {
                assert!(fast.is_none(), "{}: serde refused it ({e})", path.display());
                raw.parse::<DomSnapshot>("DOMSnapshot.captureSnapshot")
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }
    read
}

/// Reads the page's full accessibility tree, and some nodes' own trees, both ways; how many
/// full trees read (0 or 1).
async fn ax_replies_agree(page: &Page, path: &Path) -> usize {
    let mut read = 0;
    let raw = page
        .connection()
        .send_raw(
            "Accessibility.getFullAXTree",
            Some(page.session_id()),
            &json!({}),
        )
        .await
        .expect("getFullAXTree");
    let text = raw.as_str();
    #[derive(serde::Deserialize)]
    struct Reply<'a> {
        #[serde(borrow)]
        nodes: &'a RawValue,
    }
    let nodes = serde_json::from_str::<Reply<'_>>(text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .nodes
        .get();
    let fast = AxNodes::read_fast(nodes);
    match serde_json::from_str::<FullAxTree>(text) {
        Ok(serde) => {
            let fast =
                fast.unwrap_or_else(|| panic!("{}: the fast reader gave up", path.display()));
            assert!(serde.nodes.len() > 3, "{}", path.display());
            assert_eq!(fast, serde.nodes, "{}", path.display());
            assert_eq!(
                serde_json::to_string(&fast).unwrap(),
                serde_json::to_string(&serde.nodes).unwrap(),
                "{}",
                path.display()
            );
            // As the capture reads the reply.
            let reply =
                FullAxTree::from_reply(&raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(reply.nodes, serde.nodes, "{}", path.display());
            // A node's own tree, as a snapshot of a long page asks for it.
            let backends = serde.nodes.iter().filter_map(|n| n.backend_dom_node_id());
            for backend in backends.take(12) {
                let raw = page
                    .connection()
                    .send_raw(
                        "Accessibility.getPartialAXTree",
                        Some(page.session_id()),
                        &json!({"backendNodeId": backend, "fetchRelatives": false}),
                    )
                    .await
                    .expect("getPartialAXTree");
                let serde: FullAxTree = serde_json::from_str(raw.as_str())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let reply = FullAxTree::from_reply(&raw)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(!reply.nodes.is_empty(), "{}", path.display());
                assert_eq!(reply.nodes, serde.nodes, "{}", path.display());
            }
            read += 1;
        }
        // Unpaired surrogates in page text, as for the DOM snapshot.
        Err(e) => {
            assert!(fast.is_none(), "{}: serde refused it ({e})", path.display());
            FullAxTree::from_reply(&raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
    read
}
