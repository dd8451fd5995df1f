//! Records hit-test ground truth for the offline oracle (`engine/tests/analysis_hit_oracle.rs`):
//! loads each fixture page into a headless Chromium (1280x800, DPR 1), captures it, and asks
//! Chromium's own hit test (`DOM.getNodeForLocation`, default click semantics) about a grid of
//! viewport points on that same page state. Writes `<out>/<page>.capture.json.gz` and
//! `<out>/<page>.hit.json.gz` (the format is in `fixtures/hit/README.md`). The directory part of
//! every `file://` URL is rewritten to `file:///fixtures/pages/`, so a recording does not depend
//! on where the checkout lives.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- record-hits PAGE.html... [--out DIR]
//!     [--step 16] [--chrome PATH]
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pagesight::browser::{Browser, LaunchOptions, Viewport};
use pagesight::cdp::dom::{GetDocumentParams, GetNodeForLocationParams};
use pagesight::live::capture_everything;
use pagesight_benches::{fixtures_dir, with_browser};

use crate::shared::Chrome;

const LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// Time after the load event for the page's own scripts (scrolling, `showModal()`, ...) and a
/// frame or two of layout.
const SETTLE: Duration = Duration::from_millis(500);
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 800;

/// Options of `record-hits`.
#[derive(clap::Args)]
pub struct Args {
    /// The fixture pages to record.
    #[arg(value_name = "PAGE.html", required = true)]
    pages: Vec<PathBuf>,
    /// Where to write the recordings; default: fixtures/hit.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The grid's step, in CSS pixels.
    #[arg(long, value_name = "PX", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    step: u32,
    #[command(flatten)]
    chrome: Chrome,
}

pub async fn run(args: Args) -> Result<(), String> {
    let out = args.out.unwrap_or_else(|| fixtures_dir().join("hit"));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let options = LaunchOptions {
        executable: args.chrome.path,
        viewport: Viewport {
            width: WIDTH,
            height: HEIGHT,
            device_scale_factor: 1.0,
        },
        ..LaunchOptions::default()
    };
    with_browser(options, async |browser| {
        for page in &args.pages {
            record(browser, page, &out, args.step).await?;
        }
        Ok(())
    })
    .await
}

async fn record(browser: &Browser, path: &Path, out: &Path, step: u32) -> Result<(), String> {
    let path = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_stem()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a page file name", path.display()))?
        .to_string();
    let dir = path
        .parent()
        .map(|d| format!("file://{}/", d.display()))
        .unwrap_or_default();
    let url = format!("file://{}", path.display());
    let page = browser
        .new_page()
        .await
        .map_err(|e| format!("cannot open a tab: {e}"))?;
    let result = async {
        page.navigate(&url, LOAD_TIMEOUT)
            .await
            .map_err(|e| format!("loading {url}: {e}"))?;
        tokio::time::sleep(SETTLE).await;
        let capture = capture_everything(&page)
            .await
            .map_err(|e| format!("capturing {url}: {e}"))?;
        page.send(&GetDocumentParams {
            depth: Some(0),
            ..Default::default()
        })
        .await
        .map_err(|e| format!("DOM.getDocument: {e}"))?;
        let (sx, sy) = capture
            .dom_snapshot
            .documents
            .first()
            .map(|d| {
                (
                    d.scroll_offset_x.unwrap_or(0.0),
                    d.scroll_offset_y.unwrap_or(0.0),
                )
            })
            .unwrap_or((0.0, 0.0));
        let mut pending = Vec::new();
        for y in (0..HEIGHT).step_by(step as usize) {
            for x in (0..WIDTH).step_by(step as usize) {
                let params = GetNodeForLocationParams {
                    include_user_agent_shadow_dom: Some(false),
                    ..GetNodeForLocationParams::new(
                        (f64::from(x) + sx) as i64,
                        (f64::from(y) + sy) as i64,
                    )
                };
                pending.push((x, y, page.send_now(&params)));
            }
        }
        let mut points = Vec::with_capacity(pending.len());
        for (x, y, reply) in pending {
            let point = match reply.await {
                Ok(hit) => serde_json::json!([x, y, hit.backend_node_id, hit.frame_id]),
                Err(_) => serde_json::json!([x, y, null, null]),
            };
            points.push(point);
        }
        Ok::<_, String>((capture, sx, sy, points))
    }
    .await;
    if let Err(e) = page.close().await {
        eprintln!("warning: closing the tab of {name}: {e}");
    }
    let (capture, sx, sy, points) = result?;
    let capture_json =
        serde_json::to_string(&capture).map_err(|e| format!("encoding the capture: {e}"))?;
    let capture_json = capture_json.replace(&dir, "file:///fixtures/pages/");
    let truth = serde_json::json!({
        "url": url.replace(&dir, "file:///fixtures/pages/"),
        "step": step,
        "scrollX": sx,
        "scrollY": sy,
        "points": points,
    });
    write_gz(
        &out.join(format!("{name}.capture.json.gz")),
        capture_json.as_bytes(),
    )?;
    write_gz(
        &out.join(format!("{name}.hit.json.gz")),
        truth.to_string().as_bytes(),
    )?;
    println!(
        "{name}: {} points",
        truth["points"].as_array().map_or(0, Vec::len)
    );
    Ok(())
}

fn write_gz(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes)
        .and_then(|_| gz.finish())
        .and_then(|data| std::fs::write(path, data))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
