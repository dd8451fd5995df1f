//! Golden text snapshots of fixture pages, in both text formats, taken live in headless
//! Chromium. A change to what an agent reads shows up as a diff of these files; after checking
//! it by eye, rewrite them with `PAGESIGHT_BLESS=1 cargo test -p pagesight --test fixture_goldens`.

mod common;

use std::path::{Path, PathBuf};

use pagesight::render::Mode;
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::SnapshotOptions;

const PAGES: &[&str] = &[
    "forms.html",
    "widgets-custom.html",
    "overlay-modal.html",
    "overlay-sticky-header.html",
    "hostile-text.html",
    "long-page.html",
    "top-layer-dialog.html",
    "custom-toggles.html",
    "svg-and-image-maps.html",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_pages_render_as_their_goldens() {
    let mut goldens = common::Goldens::new();
    let pages_dir = root().join("fixtures/pages");
    let golden_dir = root().join("fixtures/golden/pages");
    // The page URLs hold where the checkout lives; the goldens must not.
    let url_prefix = format!(
        "file://{}/",
        std::fs::canonicalize(&pages_dir)
            .expect("fixtures/pages exists")
            .display()
    );
    let mut session = Session::start(SessionOptions::default())
        .await
        .expect("launch Chromium");
    for page in PAGES {
        session
            .open(&pages_dir.join(page).to_string_lossy())
            .await
            .expect("open fixture page");
        for (mode, ext) in [(Mode::A11y, "a11y"), (Mode::Dom, "dom")] {
            let options = SnapshotOptions {
                mode,
                ..SnapshotOptions::default()
            };
            let text = session
                .snapshot(&options)
                .await
                .expect("snapshot")
                .text
                .replace(&url_prefix, "file:///fixtures/pages/");
            let path = golden_dir.join(format!("{page}.{ext}.txt"));
            goldens.check(&path, &text);
        }
    }
    session.shutdown().await.expect("close");
    goldens.assert_all_match();
}
