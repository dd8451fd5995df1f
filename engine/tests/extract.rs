//! Extraction of the fixture pages of `fixtures/extract/`, live in headless Chromium, compared
//! with their golden markdown (`<page>.md` beside each page). The pages are served on two
//! loopback origins so that a frame of the second is an out-of-process iframe; the origins
//! are written `{{A}}` and `{{B}}` in the goldens. After checking a change by eye, rewrite
//! them with `PAGESIGHT_BLESS=1 cargo test -p pagesight --test extract`.

mod common;

use std::path::{Path, PathBuf};

use pagesight::extract::ExtractOptions;
use pagesight::session::{Session, SessionOptions};

const PAGES: &[&str] = &[
    "tables.html",
    "code.html",
    "lists.html",
    "cookie-sticky.html",
    "hidden.html",
    "forging.html",
    "iframe.html",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/extract")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_pages_extract_as_their_goldens() {
    let mut goldens = common::Goldens::new();
    let origins = common::serve_two_origins(dir()).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    for page in PAGES {
        session
            .open(&format!("{}/{page}", origins.a))
            .await
            .expect("open fixture page");
        let extraction = session
            .extract(&ExtractOptions::default())
            .await
            .expect("extract");
        assert!(
            !extraction.markdown.contains("SECRET") && !extraction.text.contains("SECRET"),
            "{page}: hidden text was extracted:\n{}",
            extraction.markdown
        );
        assert!(!extraction.blocks.is_empty(), "{page}: no block uids");
        let got = extraction
            .markdown
            .replace(&origins.a, "{{A}}")
            .replace(&origins.b, "{{B}}");
        let path = dir().join(format!("{page}.md"));
        goldens.check(&path, &got);
    }
    session.shutdown().await.expect("close");
    goldens.assert_all_match();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_page_keeps_its_chrome_but_not_hidden_text() {
    let origins = common::serve_two_origins(dir()).expect("serve the fixture pages");
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    let mut all = Vec::new();
    for page in ["cookie-sticky.html", "hidden.html"] {
        session
            .open(&format!("{}/{page}", origins.a))
            .await
            .expect("open fixture page");
        let main = session
            .extract(&ExtractOptions::default())
            .await
            .expect("extract");
        let whole = session
            .extract(&ExtractOptions {
                all: true,
                ..Default::default()
            })
            .await
            .expect("extract all");
        all.push((page, main, whole));
    }
    session.shutdown().await.expect("close");
    let (_, main, whole) = &all[0];
    assert!(!main.markdown.contains("cookies"), "{}", main.markdown);
    assert!(!main.markdown.contains("Most read"), "{}", main.markdown);
    assert!(
        whole.markdown.contains("We use cookies"),
        "{}",
        whole.markdown
    );
    assert!(whole.markdown.contains("Most read"), "{}", whole.markdown);
    assert!(
        whole.markdown.contains("city council voted"),
        "{}",
        whole.markdown
    );
    assert_eq!(
        main.title.as_deref(),
        Some("City council approves the new park")
    );
    let (_, _, hidden_whole) = &all[1];
    assert!(
        !hidden_whole.markdown.contains("SECRET"),
        "{}",
        hidden_whole.markdown
    );
}
