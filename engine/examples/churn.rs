//! Takes snapshots of a page that never stops changing and counts how they came out: whole,
//! partial (the page changed while it was read, and the snapshot says what it left out) or
//! failed, by error code.
//!
//! Why: a feed, a ticker or an ad frame changes the DOM every few milliseconds long after the
//! page has loaded, so the DOM snapshot and the accessibility tree read right after it can
//! describe two states. This is the one command that shows how often that costs an agent its
//! snapshot, before and after a change to how captures are checked.
//!
//! `cargo run -p pagesight --example churn [-- SNAPSHOTS [PAGE]]` (default: 60 snapshots of
//! `fixtures/pages/churn/feed.html`, in turn a11y text, JSON of the whole page, dom text).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::render::{Format, Mode};
use pagesight::{Session, SessionOptions, SnapshotOptions};

/// What a text snapshot says when the page changed while it was read.
const CHANGED_NOTE: &str = "changed while it was read";

#[tokio::main]
async fn main() -> pagesight::Result<()> {
    let mut args = std::env::args().skip(1);
    let snapshots = match args.next() {
        None => 60,
        Some(n) => n.parse::<usize>().map_err(|_| {
            pagesight::Error::invalid_argument(format!(
                "the number of snapshots must be a number, not {n:?}"
            ))
        })?,
    };
    let page = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/pages/churn/feed.html"
        )
        .into()
    });
    let mut session = Session::start(SessionOptions::default()).await?;
    let tally = async {
        let opened = session.open(&page).await?;
        eprintln!("opened {} (loaded: {})", opened.url, opened.loaded);
        // Long after the load: the page's timers have run many times.
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, pagesight::Error>(take(&mut session, snapshots).await)
    }
    .await;
    session.shutdown().await?;
    let (outcomes, elapsed) = tally?;
    let failed: usize = outcomes
        .iter()
        .filter(|(k, _)| k.starts_with("failed"))
        .map(|(_, n)| n)
        .sum();
    println!(
        "{snapshots} snapshots of {page} in {:.1} s: {failed} failed",
        elapsed.as_secs_f64()
    );
    for (outcome, n) in &outcomes {
        println!("  {n:>4}  {outcome}");
    }
    Ok(())
}

/// Takes `snapshots` snapshots, the views in turn, and counts each outcome.
async fn take(session: &mut Session, snapshots: usize) -> (BTreeMap<String, usize>, Duration) {
    let views = [
        ("a11y text", Mode::A11y, Format::Text, Expand::Viewport),
        ("json, whole page", Mode::A11y, Format::Json, Expand::All),
        ("dom text", Mode::Dom, Format::Text, Expand::Viewport),
    ];
    let mut outcomes = BTreeMap::new();
    let started = Instant::now();
    for k in 0..snapshots {
        let (name, mode, format, expand) = views[k % views.len()];
        let options = SnapshotOptions {
            mode,
            format,
            expand,
            ..SnapshotOptions::default()
        };
        let outcome = match session.snapshot(&options).await {
            Ok(out) => match format {
                Format::Json => {
                    let consistent = serde_json::from_str::<serde_json::Value>(&out.text)
                        .ok()
                        .and_then(|v| v.get("consistent").and_then(|c| c.as_bool()));
                    match consistent {
                        Some(true) => format!("whole ({name})"),
                        Some(false) => format!("partial, consistent: false ({name})"),
                        None => format!("unreadable JSON ({name})"),
                    }
                }
                Format::Text if out.text.contains(CHANGED_NOTE) => {
                    format!("partial, with a note ({name})")
                }
                Format::Text => format!("whole ({name})"),
            },
            Err(e) => {
                let message = e.message();
                eprintln!("snapshot {k} ({name}): {}: {message}", e.code().as_str());
                format!("failed: {} ({name})", e.code().as_str())
            }
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
    }
    (outcomes, started.elapsed())
}
