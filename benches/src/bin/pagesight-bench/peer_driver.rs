//! pagesight as one more row of the peer benchmark (`--extra-peer` of the shared peers harness).
//!
//! The harness starts this once per run with
//! `--cdp-url http://127.0.0.1:PORT --reps N --warmup N --settle S --page-budget S
//! --call-timeout S --width W --height H [--emit-text] URL...`; for each URL it navigates, waits
//! `--settle` seconds, takes `warmup + reps` snapshots in each mode and prints one JSON object
//! per line on stdout: `{"event":"version"}`, one `{"event":"page", "variant": …}` per URL and
//! variant, then `{"event":"done"}`. Everything else goes to stderr. The variants: `a11y` and
//! `dom` (the default view, which fetches only the viewport's accessibility nodes) and
//! `a11y-all` (`--expand all`: the whole page, with the full accessibility tree, the
//! counterpart of chrome-devtools-mcp's full `take_snapshot`).
//!
//! The harness's command for it: `pagesight-bench peer-driver`, or a link to this binary named
//! `peer-driver`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::render::Mode;
use pagesight::session::{Session, SessionOptions};
use pagesight::snapshot::SnapshotOptions;
use serde_json::json;

/// Options of `peer-driver`, as the peers harness passes them.
#[derive(clap::Args)]
pub struct Args {
    /// The browser to attach to (its DevTools HTTP endpoint).
    #[arg(long, value_name = "URL")]
    cdp_url: String,
    /// Timed snapshots per page and variant (after the warm-up).
    #[arg(long, value_name = "N", default_value_t = 5)]
    reps: usize,
    /// Untimed snapshots first.
    #[arg(long, value_name = "N", default_value_t = 1)]
    warmup: usize,
    /// Seconds to wait after navigating.
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    settle: f64,
    /// Stop repeating on a page after this many seconds (once two snapshots are timed).
    #[arg(long, value_name = "S", default_value_t = 90.0)]
    page_budget: f64,
    /// Timeout of one navigation or snapshot, seconds.
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    call_timeout: f64,
    /// Viewport width.
    #[arg(long, value_name = "PX", default_value_t = 1280)]
    width: u32,
    /// Viewport height.
    #[arg(long, value_name = "PX", default_value_t = 800)]
    height: u32,
    /// Put each snapshot's text in its record.
    #[arg(long)]
    emit_text: bool,
    /// The pages.
    #[arg(value_name = "URL")]
    urls: Vec<String>,
}

fn emit(value: serde_json::Value) {
    println!("{value}");
}

/// Counts what an agent can act on and how many uids the text carries.
fn count(text: &str, mode: Mode) -> (usize, usize) {
    match mode {
        Mode::A11y => {
            let refs = text
                .lines()
                .filter(|l| l.trim_start().starts_with("uid="))
                .count();
            let interactive = text
                .lines()
                .filter(|l| {
                    let role = l.trim_start().split(' ').nth(1).unwrap_or("");
                    matches!(
                        role,
                        "button"
                            | "link"
                            | "textbox"
                            | "checkbox"
                            | "radio"
                            | "combobox"
                            | "listbox"
                            | "option"
                            | "menuitem"
                            | "tab"
                            | "switch"
                            | "slider"
                            | "searchbox"
                            | "spinbutton"
                    ) || l.contains(" clickable")
                })
                .count();
            (interactive, refs)
        }
        Mode::Dom => {
            let n = text
                .lines()
                .filter(|l| {
                    let t = l.trim_start_matches('\t');
                    t.starts_with('[') && !t.starts_with("[Start") && !t.starts_with("[End")
                        || t.starts_with("*[")
                })
                .count();
            (n, n)
        }
    }
}

async fn run(a: Args) -> Result<(), String> {
    let options = SessionOptions {
        browser: Some(a.cdp_url.clone()),
        viewport: pagesight::browser::Viewport {
            width: a.width,
            height: a.height,
            device_scale_factor: 1.0,
        },
        load_timeout: Some(Duration::from_secs_f64(a.call_timeout)),
        ..SessionOptions::default()
    };
    let mut session = Session::start(options).await.map_err(|e| e.to_string())?;
    emit(json!({"event": "version", "version": env!("CARGO_PKG_VERSION")}));
    for url in &a.urls {
        let t0 = Instant::now();
        if let Err(e) = session.open(url).await {
            for variant in ["a11y", "dom", "a11y-all"] {
                emit(
                    json!({"event": "page", "url": url, "variant": variant, "times_ms": [], "error": e.to_string()}),
                );
            }
            continue;
        }
        let nav_ms = t0.elapsed().as_secs_f64() * 1000.0;
        tokio::time::sleep(Duration::from_secs_f64(a.settle)).await;
        for (mode, expand, variant) in [
            (Mode::A11y, Expand::Viewport, "a11y"),
            (Mode::Dom, Expand::Viewport, "dom"),
            (Mode::A11y, Expand::All, "a11y-all"),
        ] {
            let snapshot = SnapshotOptions {
                mode,
                expand,
                ..SnapshotOptions::default()
            };
            let mut times = Vec::new();
            let mut first_ms = None;
            let mut text = String::new();
            let mut error = None;
            let page_start = Instant::now();
            for i in 0..a.warmup + a.reps {
                let t = Instant::now();
                match tokio::time::timeout(
                    Duration::from_secs_f64(a.call_timeout),
                    session.snapshot(&snapshot),
                )
                .await
                {
                    Ok(Ok(out)) => text = out.text,
                    Ok(Err(e)) => {
                        error = Some(e.to_string());
                        break;
                    }
                    Err(_) => {
                        error = Some("snapshot timed out".to_string());
                        break;
                    }
                }
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                if i == 0 {
                    first_ms = Some(ms);
                }
                if i >= a.warmup {
                    times.push(ms);
                }
                if times.len() >= 2 && page_start.elapsed().as_secs_f64() > a.page_budget {
                    break;
                }
            }
            let (interactive, refs) = count(&text, mode);
            let mut record = json!({
                "event": "page", "url": url, "variant": variant, "times_ms": times,
                "first_ms": first_ms, "interactive": interactive, "refs": refs,
                "chars": text.chars().count(), "nav_ms": nav_ms, "notes": "",
            });
            if a.emit_text {
                record["text"] = json!(text);
            }
            if let Some(e) = error {
                record["error"] = json!(e);
            }
            emit(record);
        }
    }
    emit(json!({"event": "done"}));
    // A connected browser is only disconnected from, never closed.
    let _ = session.shutdown().await;
    Ok(())
}

/// Says on stdout, for the harness, that the driver could not run, and on stderr for people.
pub fn fatal(message: &str) {
    eprintln!("peer-driver: {message}");
    emit(json!({"event": "fatal", "error": message}));
}

pub fn main(args: Args) -> ExitCode {
    pagesight::keep_freed_memory();
    match pagesight_benches::block_on(run(args)).and_then(|r| r) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            fatal(&e);
            ExitCode::FAILURE
        }
    }
}
