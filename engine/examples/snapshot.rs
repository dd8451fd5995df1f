//! Opens a page in a headless Chromium and prints the snapshot an agent reads.
//!
//! `cargo run --example snapshot -p pagesight [-- URL|PATH]` (default: a bundled form page)

use pagesight::{Session, SessionOptions, SnapshotOptions};

#[tokio::main]
async fn main() -> pagesight::Result<()> {
    let page = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/pages/forms.html").into()
    });
    let mut session = Session::start(SessionOptions::default()).await?;
    let result = async {
        let opened = session.open(&page).await?;
        eprintln!("opened {} (loaded: {})", opened.url, opened.loaded);
        session.snapshot(&SnapshotOptions::default()).await
    }
    .await;
    session.shutdown().await?;
    println!("{}", result?.text);
    Ok(())
}
