//! Records the captures of the real pages in `fixtures/captures/`: serves the documentation
//! trees Debian installs (`python3.11-doc`, `libjs-bootstrap5-doc`, `libjs-bootstrap5`) over
//! loopback HTTP, with Bootstrap's example sources rendered into full pages, loads each page
//! into a headless Chromium through pagesight (viewport 1280x800), and writes its capture as
//! `<out>/<name>.json.gz`. The pages are listed in `pagesight_benches::docs_site::REAL_PAGES`.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- record-captures [--only NAME,...]
//!     [--out DIR] [--port 8765] [--chrome PATH] [--list]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use pagesight::browser::{Browser, LaunchOptions, Viewport};
use pagesight::live::capture_everything;
use pagesight_benches::docs_site::server::{DocsServer, Site};
use pagesight_benches::docs_site::{missing_packages, real_page, RealPage, REAL_PAGES};
use pagesight_benches::{ax_node_count, dom_node_count, fixtures_dir, with_browser};

use crate::shared::Chrome;

/// The port the existing captures were recorded on (it is part of each capture's URL).
const DEFAULT_PORT: u16 = 8765;
/// How long a page may take to load.
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// Time after the load event for scripts to finish setting the page up (Bootstrap's
/// components, the examples' own scripts, web fonts).
const SETTLE: Duration = Duration::from_millis(750);

/// Options of `record-captures`.
#[derive(clap::Args)]
pub struct Args {
    /// Record only these pages (names as `--list` shows them), comma-separated.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', value_parser = page_named)]
    only: Vec<&'static RealPage>,
    /// Where to write the captures; default: fixtures/captures.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The loopback port to serve the pages on (it is part of each capture's URL).
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_PORT)]
    port: u16,
    #[command(flatten)]
    chrome: Chrome,
    /// List the pages and exit.
    #[arg(long)]
    list: bool,
}

/// One of [`REAL_PAGES`] by name.
fn page_named(name: &str) -> Result<&'static RealPage, String> {
    real_page(name.trim()).ok_or_else(|| {
        let known: Vec<&str> = REAL_PAGES.iter().map(|p| p.name).collect();
        format!("no page named {name:?}; the pages: {}", known.join(", "))
    })
}

/// What to record, where.
struct Job {
    pages: Vec<&'static RealPage>,
    out: PathBuf,
    port: u16,
    chrome: Option<PathBuf>,
}

pub fn main(args: Args) -> ExitCode {
    if args.list {
        for page in REAL_PAGES {
            println!("{:<18} {:<52} {}", page.name, page.kind, page.path);
        }
        return ExitCode::SUCCESS;
    }
    let mut pages: Vec<&'static RealPage> = Vec::new();
    for page in args.only {
        if !pages.iter().any(|p| p.name == page.name) {
            pages.push(page);
        }
    }
    if pages.is_empty() {
        pages = REAL_PAGES.iter().collect();
    }
    let job = Job {
        pages,
        out: args.out.unwrap_or_else(|| fixtures_dir().join("captures")),
        port: args.port,
        chrome: args.chrome.path,
    };
    let missing = missing_packages(&job.pages);
    if !missing.is_empty() {
        eprintln!(
            "record-captures: the pages come from Debian packages that are not installed; run:\n\
             \n    apt-get install -y {}\n",
            missing.join(" ")
        );
        return ExitCode::FAILURE;
    }
    match pagesight_benches::block_on(run(job)).and_then(|r| r) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(failed) => {
            eprintln!("record-captures: {failed} page(s) failed; the others were recorded");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("record-captures: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Records every page; returns how many failed.
async fn run(args: Job) -> Result<usize, String> {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let site = Site::debian();
    let server = DocsServer::start(site.clone(), args.port)
        .await
        .map_err(|e| {
            format!(
                "cannot serve on 127.0.0.1:{}: {e} (another program on that port? try --port)",
                args.port
            )
        })?;
    let options = LaunchOptions {
        executable: args.chrome.clone(),
        viewport: Viewport {
            width: 1280,
            height: 800,
            device_scale_factor: 1.0,
        },
        ..LaunchOptions::default()
    };
    let failed = with_browser(options, async |browser| {
        Ok(record_pages(browser, &server, &site, &args).await)
    })
    .await;
    drop(server);
    failed
}

/// Records `args.pages` one after the other, printing a line each; returns how many failed.
async fn record_pages(browser: &Browser, server: &DocsServer, site: &Site, args: &Job) -> usize {
    println!(
        "{:<18} {:>9} {:>9} {:>8} {:>8}  file",
        "page", "DOM nodes", "AX nodes", "gz KiB", "time s"
    );
    let mut failed = 0;
    let mut total_bytes = 0u64;
    for page in &args.pages {
        let started = Instant::now();
        let recorded = match site.resolve(page.path) {
            Ok(_) => record(browser, server, page, &args.out).await,
            Err(status) => Err(format!(
                "{} is not served (HTTP {status}); is its package complete?",
                page.path
            )),
        };
        match recorded {
            Ok(recorded) => {
                total_bytes += recorded.bytes;
                println!(
                    "{:<18} {:>9} {:>9} {:>8.1} {:>8.2}  {}",
                    page.name,
                    recorded.dom_nodes,
                    recorded.ax_nodes,
                    recorded.bytes as f64 / 1024.0,
                    started.elapsed().as_secs_f64(),
                    recorded.path.display()
                );
            }
            Err(message) => {
                failed += 1;
                eprintln!("{:<18} FAILED: {message}", page.name);
            }
        }
    }
    println!(
        "{} of {} page(s) recorded, {:.1} KiB in all",
        args.pages.len() - failed,
        args.pages.len(),
        total_bytes as f64 / 1024.0
    );
    failed
}

struct Recorded {
    path: PathBuf,
    bytes: u64,
    dom_nodes: usize,
    ax_nodes: usize,
}

async fn record(
    browser: &Browser,
    server: &DocsServer,
    page_spec: &RealPage,
    out: &Path,
) -> Result<Recorded, String> {
    let url = server.url(page_spec.path);
    let page = browser
        .new_page()
        .await
        .map_err(|e| format!("cannot open a tab: {e}"))?;
    let result = async {
        let outcome = page
            .navigate(&url, LOAD_TIMEOUT)
            .await
            .map_err(|e| format!("loading {url}: {e}"))?;
        if outcome.timed_out {
            eprintln!(
                "warning: {} did not finish loading in {} s; capturing anyway",
                page_spec.name,
                LOAD_TIMEOUT.as_secs()
            );
        }
        tokio::time::sleep(SETTLE).await;
        capture_everything(&page)
            .await
            .map_err(|e| format!("capturing {url}: {e}"))
    }
    .await;
    if let Err(e) = page.close().await {
        eprintln!("warning: closing the tab of {}: {e}", page_spec.name);
    }
    let capture = result?;
    if capture.title.trim().is_empty() {
        return Err(format!(
            "{url} loaded without a title; is the page there? (the docs server answered it \
             with an error page)"
        ));
    }
    let bytes = capture
        .to_bytes()
        .map_err(|e| format!("encoding the capture: {e}"))?;
    // Written beside the target and renamed over it, so a failure never leaves half a file.
    let path = out.join(format!("{}.json.gz", page_spec.name));
    let partial = out.join(format!(".{}.json.gz.partial", page_spec.name));
    std::fs::write(&partial, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &path).map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        format!("cannot write {}: {e}", path.display())
    })?;
    Ok(Recorded {
        path,
        bytes: bytes.len() as u64,
        dom_nodes: dom_node_count(&capture),
        ax_nodes: ax_node_count(&capture),
    })
}
