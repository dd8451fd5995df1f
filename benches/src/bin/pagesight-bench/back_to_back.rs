//! The engine's CPU per snapshot of an unchanged page, snapshots taken back to back.
//!
//! The live bench times each snapshot alone, between the floor's calls, the other modes' and
//! the reading of `/proc`: what it finds moves by a tenth of a millisecond from one run to the
//! next, as much as a change to the engine's work per snapshot of a small page. Here each page
//! is snapshotted `--snapshots` times in a row, in each phase, and the CPU time of the whole
//! phase is divided by the snapshots, so such a change shows:
//! - **floor**: the calls the engine's capture makes for the default view, sent through the
//!   engine's own connection, replies left raw ([`pagesight_benches::floor`]);
//! - **a11y** / **dom**: pagesight end to end, `capture_for_view` + `snapshot::process_next`
//!   (default view) on one uid table and last snapshot per mode, as one agent's session takes
//!   them: the page unchanged, each snapshot after the first repeats the last.
//!
//! Per phase: wall time, this process's CPU time (all threads, `getrusage`) and the browser's
//! (its processes' threads, `/proc`) per snapshot, and the one as a share of the other.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- back-to-back [--snapshots 2000]
//!     [--page PATH_OR_URL]... [--chrome PATH]
//! ```

use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::browser::{Browser, LaunchOptions, Page};
use pagesight::capture::AxScope;
use pagesight::identity::UidTable;
use pagesight::live::{capture_for_view, Kept};
use pagesight::render::Mode;
use pagesight::snapshot::{process_next, Snapshot, SnapshotOptions};
use pagesight_benches::floor::{floor, ViewPlan};
use pagesight_benches::{ms_fine, page_name, page_url, process_tree_cpu, usage, with_browser};

use crate::shared::{Chrome, Pages, Snapshots};

/// Options of `back-to-back`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    snapshots: Snapshots,
    #[command(flatten)]
    pages: Pages,
    #[command(flatten)]
    chrome: Chrome,
}

pub async fn run(args: Args) -> Result<(), String> {
    let options = LaunchOptions {
        executable: args.chrome.path.clone(),
        ..LaunchOptions::default()
    };
    with_browser(options, async |browser| {
        println!(
            "| page | phase | snapshots | ms per snapshot | CPU ms | browser CPU ms | CPU / browser CPU | repeated |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|");
        for page in &args.pages.or_small_fixtures() {
            measure(browser, page, args.snapshots.snapshots).await?;
        }
        Ok(())
    })
    .await
}

/// One agent's session in one mode: its uid table and last snapshot.
struct Agent {
    options: SnapshotOptions,
    table: UidTable,
    last: Option<Snapshot>,
}

impl Agent {
    fn new(mode: Mode) -> Agent {
        Agent {
            options: SnapshotOptions {
                mode,
                expand: Expand::Viewport,
                ..SnapshotOptions::default()
            },
            table: UidTable::new(),
            last: None,
        }
    }

    async fn snapshot(&mut self, page: &Page, kept: &Kept) -> Result<(), String> {
        let capture = capture_for_view(page, kept, AxScope::for_view(self.options.expand, false))
            .await
            .map_err(|e| format!("capture failed: {e}"))?;
        let snapshot = process_next(
            capture,
            &mut self.table,
            page.target_id(),
            &self.options,
            &mut self.last,
        )
        .map_err(|e| format!("processing failed: {e}"))?;
        std::hint::black_box(snapshot.output.len());
        Ok(())
    }
}

async fn measure(browser: &Browser, location: &str, snapshots: usize) -> Result<(), String> {
    let url = page_url(location)?;
    let page = browser.new_page().await.map_err(|e| e.to_string())?;
    page.navigate(&url, Duration::from_secs(30))
        .await
        .map_err(|e| format!("{location}: {e}"))?;
    let name = page_name(location);
    let pid = browser
        .pid()
        .ok_or("the browser's process is not known (connected, not launched)")?;
    let kept = Kept::default();
    let mut agents = [Agent::new(Mode::A11y), Agent::new(Mode::Dom)];
    // Untimed: the plan of the floor's calls, and each agent's first snapshots (the second
    // finds the page's model kept, the third repeats).
    let capture = capture_for_view(&page, &kept, AxScope::for_view(Expand::Viewport, false))
        .await
        .map_err(|e| format!("{name}: capture failed: {e}"))?;
    let plan = ViewPlan::of(capture.capture())?;
    for agent in &mut agents {
        for _ in 0..3 {
            agent.snapshot(&page, &kept).await?;
        }
    }
    // Each phase: its name, and the agent whose snapshots it takes (none: the floor's calls).
    for (phase, agent) in [("floor", None), ("a11y", Some(0)), ("dom", Some(1))] {
        let passes = agent.map(|k: usize| agents[k].table.snapshots());
        let (b0, u0, t0) = (process_tree_cpu(pid), usage(), Instant::now());
        for _ in 0..snapshots {
            match agent {
                None => {
                    std::hint::black_box(floor(&page, &plan, false).await?.bytes);
                }
                Some(k) => agents[k].snapshot(&page, &kept).await?,
            }
        }
        let elapsed = t0.elapsed();
        let cpu = usage().cpu.saturating_sub(u0.cpu);
        let browser_cpu = process_tree_cpu(pid).saturating_sub(b0);
        let per = |d: Duration| d.div_f64(snapshots as f64);
        // A repeat makes no pass over the uid table.
        let repeated = agent.zip(passes).map_or("-".to_string(), |(k, before)| {
            let passes = u64::from(agents[k].table.snapshots() - before);
            (snapshots as u64).saturating_sub(passes).to_string()
        });
        println!(
            "| {name} | {phase} | {snapshots} | {} | {:.3} | {} | {:.1}% | {repeated} |",
            ms_fine(per(elapsed)),
            per(cpu).as_secs_f64() * 1e3,
            ms_fine(per(browser_cpu)),
            100.0 * cpu.as_secs_f64() / browser_cpu.as_secs_f64().max(1e-9),
        );
    }
    page.close().await.map_err(|e| e.to_string())
}
