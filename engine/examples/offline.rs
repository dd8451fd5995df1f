//! Renders a saved capture without a browser: what `pagesight snapshot --from-capture` does.
//!
//! `cargo run --example offline -p pagesight [-- CAPTURE.json.gz]` (default: a recorded page)

use pagesight::{render_capture, Mode, SnapshotOptions};

fn main() -> pagesight::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/captures/checkout.json.gz"
        )
        .into()
    });
    let bytes = std::fs::read(&path)
        .map_err(|e| pagesight::Error::invalid_argument(format!("cannot read {path}: {e}")))?;
    let options = SnapshotOptions {
        mode: Mode::Dom,
        ..SnapshotOptions::default()
    };
    println!("{}", render_capture(&bytes, &options)?);
    Ok(())
}
