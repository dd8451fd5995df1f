//! Records the captures of the scale series: generates pages of about 1k, 10k, 100k and 300k
//! DOM nodes, loads each one into a headless Chromium through pagesight, and writes its
//! capture as `scale-<n>.json.gz` (by default under `<target>/scale-captures/`), where the
//! `pipeline` benchmark's scale group finds them.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- record-scale [--sizes 1000,10000,100000,300000]
//!     [--out DIR] [--chrome PATH]
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions};
use pagesight::live::capture_everything;
use pagesight_benches::{
    ax_node_count, dom_node_count, mib, scale, scale_capture_path, scale_dir, with_browser,
};

use crate::shared::{Chrome, Sizes};

/// Options of `record-scale`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sizes: Sizes,
    /// Where to write the captures; default: `PAGESIGHT_SCALE_DIR`, else the target directory's
    /// scale-captures.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    chrome: Chrome,
}

pub async fn run(args: Args) -> Result<(), String> {
    let out = args.out.clone().unwrap_or_else(scale_dir);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut options = LaunchOptions {
        executable: args.chrome.path.clone(),
        ..LaunchOptions::default()
    };
    // The largest pages take Chromium tens of seconds to lay out and serialise.
    options.connection.command_timeout = Duration::from_secs(600);
    with_browser(options, async |browser| {
        record_all(browser, &args.sizes.or_default(), &out).await
    })
    .await
}

async fn record_all(browser: &Browser, sizes: &[usize], out: &Path) -> Result<(), String> {
    println!(
        "{:>8} {:>10} {:>10} {:>9} {:>9} {:>10} {:>10} {:>9}",
        "target", "DOM nodes", "AX nodes", "HTML MiB", "load s", "capture s", "JSON MiB", "gz MiB"
    );
    for &size in sizes {
        let page_html = scale::generate(size);
        let html_path = out.join(format!("scale-{size}.html"));
        std::fs::write(&html_path, &page_html.html)
            .map_err(|e| format!("cannot write {}: {e}", html_path.display()))?;
        let url = pagesight_benches::page_url(&html_path.to_string_lossy())?;

        let page = browser
            .new_page()
            .await
            .map_err(|e| format!("cannot open a page: {e}"))?;
        let started = Instant::now();
        let outcome = page
            .navigate(&url, Duration::from_secs(300))
            .await
            .map_err(|e| format!("loading the {size}-node page: {e}"))?;
        let load = started.elapsed();
        if outcome.timed_out {
            eprintln!(
                "warning: the {size}-node page did not finish loading in 300 s; capturing anyway"
            );
        }
        let started = Instant::now();
        let capture = capture_everything(&page)
            .await
            .map_err(|e| format!("capturing the {size}-node page: {e}"))?;
        let capture_time = started.elapsed();
        let dom_nodes = dom_node_count(&capture);
        let ax_nodes = ax_node_count(&capture);
        let json_len = serde_json::to_vec(&capture)
            .map(|v| v.len() as u64)
            .unwrap_or(0);
        let bytes = capture
            .to_bytes()
            .map_err(|e| format!("encoding the {size}-node capture: {e}"))?;
        let path = scale_capture_path(out, size);
        std::fs::write(&path, &bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if let Err(e) = page.close().await {
            eprintln!("warning: closing the page: {e}");
        }
        println!(
            "{:>8} {:>10} {:>10} {:>9} {:>9.2} {:>10.2} {:>10} {:>9}",
            size,
            dom_nodes,
            ax_nodes,
            mib(page_html.html.len() as u64),
            load.as_secs_f64(),
            capture_time.as_secs_f64(),
            mib(json_len),
            mib(bytes.len() as u64),
        );
    }
    println!("captures written to {}", out.display());
    Ok(())
}
