//! The many-tabs bench: aggregate snapshot throughput of several tabs over one connection.
//!
//! High-throughput scrapers keep many tabs open on one browser and snapshot them all at once.
//! Chromium's renderers then share the machine's cores with pagesight's own work (parsing the
//! replies, the offline pipeline), so the question is not "how fast is one snapshot" but "how
//! close to Chromium's own aggregate throughput do N tabs get" — the engine's CPU is paid out of
//! the same cores the renderers need.
//!
//! One headless Chromium, one connection (the pipe), `--tabs` pages with the same page loaded.
//! After one untimed warm-up snapshot per tab, `--repeats` rounds alternate (so drift hits all
//! alike) three phases, each running every tab at once, `--snapshots` snapshots per tab, one
//! after the other within a tab:
//! - **floor**: the default view's CDP calls sent bare, replies left raw ([`pagesight_benches::floor`]);
//! - **a11y** / **dom**: pagesight end to end (`capture_for_view` + `snapshot::process` on the tab's
//!   warm uid table), each tab in its own task so the offline work of two tabs can use both cores.
//!
//! Throughput of a phase = snapshots taken by all tabs / wall time of the phase. Medians over
//! the rounds are printed, with pagesight's throughput as a share of the floor's, and the CPU
//! time of this process against that of the browser's processes (read from `/proc`) in the
//! same phase: the engine's own cost measured in the currency the tabs compete for.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- tabs [--tabs 8] [--snapshots 3]
//!     [--repeats 3] [--page PATH_OR_URL] [--chrome PATH]
//! ```

use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::browser::{Browser, LaunchOptions, Page};
use pagesight::capture::AxScope;
use pagesight::identity::UidTable;
use pagesight::live::{capture_for_view, Kept};
use pagesight::render::Mode;
use pagesight::snapshot::{process, SnapshotOptions};
use pagesight_benches::floor::{floor, ViewPlan};
use pagesight_benches::{
    dom_node_count, fixtures_dir, median, page_url, process_tree_cpu, usage, with_browser,
};

use crate::shared::{count, Chrome};

/// Where Debian's python3.11-doc package installs the stdtypes page.
const DEFAULT_STDTYPES: &str = "/usr/share/doc/python3.11-doc/html/library/stdtypes.html";

/// Options of `tabs`.
#[derive(clap::Args)]
pub struct Args {
    /// Tabs open at once, each with the page loaded.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = count)]
    tabs: usize,
    /// Snapshots per tab per phase, one after the other.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = count)]
    snapshots: usize,
    /// Rounds of the three phases (medians are printed).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = count)]
    repeats: usize,
    /// The page, a path or a URL; default: stdtypes if installed, else the long-page fixture.
    #[arg(long, value_name = "PATH_OR_URL")]
    page: Option<String>,
    #[command(flatten)]
    chrome: Chrome,
}

/// The page to load in every tab: the given one, else stdtypes if installed, else a fixture.
fn page_location(args: &Args) -> String {
    if let Some(page) = &args.page {
        return page.clone();
    }
    if std::path::Path::new(DEFAULT_STDTYPES).is_file() {
        return DEFAULT_STDTYPES.to_string();
    }
    eprintln!(
        "note: {DEFAULT_STDTYPES} not found (install Debian's python3.11-doc); using the \
         long-page fixture"
    );
    fixtures_dir()
        .join("pages")
        .join("long-page.html")
        .to_string_lossy()
        .into_owned()
}

pub async fn run(args: Args) -> Result<(), String> {
    let mut options = LaunchOptions {
        executable: args.chrome.path.clone(),
        ..LaunchOptions::default()
    };
    // Eight tabs of a large page queue behind each other in a busy browser.
    options.connection.command_timeout = Duration::from_secs(300);
    with_browser(options, async |browser| measure(browser, &args).await).await
}

/// One tab: its page, its uid table (which outlives the snapshots, as in a session) and what
/// the floor asks for on it.
struct Tab {
    page: Page,
    /// What its snapshots keep for the next one.
    kept: Kept,
    table: UidTable,
    plan: Option<ViewPlan>,
}

#[derive(Clone, Copy)]
enum Phase {
    Floor,
    Pagesight(Mode),
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Floor => "floor",
            Phase::Pagesight(Mode::A11y) => "pagesight a11y",
            Phase::Pagesight(Mode::Dom) => "pagesight dom",
        }
    }
}

async fn measure(browser: &Browser, args: &Args) -> Result<(), String> {
    let location = page_location(args);
    let url = page_url(&location)?;
    let product = browser
        .version()
        .await
        .map(|v| v.product)
        .unwrap_or_else(|_| "unknown browser".to_string());
    let mut tabs = Vec::with_capacity(args.tabs);
    for _ in 0..args.tabs {
        let page = browser
            .new_page()
            .await
            .map_err(|e| format!("cannot open a page: {e}"))?;
        let outcome = page
            .navigate(&url, Duration::from_secs(120))
            .await
            .map_err(|e| format!("loading {url}: {e}"))?;
        if outcome.timed_out {
            eprintln!("warning: {url} did not finish loading in 120 s; measuring anyway");
        }
        tabs.push(Tab {
            page,
            kept: Kept::default(),
            table: UidTable::new(),
            plan: None,
        });
    }

    // Warm-up, untimed: Chromium builds each tab's accessibility tree, the tables fill.
    let mut dom_nodes = 0;
    for tab in &mut tabs {
        let capture = capture_for_view(&tab.page, &tab.kept, default_view())
            .await
            .map_err(|e| format!("warm-up capture failed: {e}"))?;
        dom_nodes = dom_node_count(capture.capture());
        let plan = ViewPlan::of(capture.capture())?;
        floor(&tab.page, &plan, false).await?;
        tab.plan = Some(plan);
        let target = tab.page.target_id().to_string();
        process(
            capture,
            &mut tab.table,
            &target,
            &SnapshotOptions::default(),
        )
        .map_err(|e| format!("warm-up processing failed: {e}"))?;
    }

    let phases = [
        Phase::Floor,
        Phase::Pagesight(Mode::A11y),
        Phase::Pagesight(Mode::Dom),
    ];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); phases.len()];
    let mut walls: Vec<Vec<Duration>> = vec![Vec::new(); phases.len()];
    // This process's CPU and the browser's (all its processes) per phase.
    let mut cpu_own: Vec<Vec<Duration>> = vec![Vec::new(); phases.len()];
    let mut cpu_browser: Vec<Vec<Duration>> = vec![Vec::new(); phases.len()];
    let pid = browser.pid();
    let browser_cpu = || pid.map_or(Duration::ZERO, process_tree_cpu);
    for round in 0..args.repeats {
        for (k, phase) in phases.iter().enumerate() {
            let (own0, browser0) = (usage().cpu, browser_cpu());
            let (returned, wall) = run_phase(tabs, *phase, args.snapshots).await;
            cpu_own[k].push(usage().cpu.saturating_sub(own0));
            cpu_browser[k].push(browser_cpu().saturating_sub(browser0));
            tabs = returned?;
            let taken = args.tabs * args.snapshots;
            rates[k].push(taken as f64 / wall.as_secs_f64().max(1e-9));
            walls[k].push(wall);
            eprintln!(
                "round {}: {} {:.2} snapshots/s ({:.0} ms for {taken})",
                round + 1,
                phase.name(),
                taken as f64 / wall.as_secs_f64().max(1e-9),
                wall.as_secs_f64() * 1000.0
            );
        }
    }

    println!("browser: {product}");
    println!(
        "page: {location} ({dom_nodes} DOM nodes); {} tabs over one connection, {} snapshots \
         per tab per phase, {} rounds; medians",
        args.tabs, args.snapshots, args.repeats
    );
    println!();
    println!(
        "| phase | snapshots/s (all tabs) | ms per round | share of floor | own CPU ms | \
         browser CPU ms | own / browser CPU |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let floor_rate = median_f64(&rates[0]);
    for (k, phase) in phases.iter().enumerate() {
        let rate = median_f64(&rates[k]);
        let (own, browser) = (median(&cpu_own[k]), median(&cpu_browser[k]));
        println!(
            "| {} | {:.2} | {:.0} | {:.0}% | {:.0} | {:.0} | {:.1}% |",
            phase.name(),
            rate,
            median(&walls[k]).as_secs_f64() * 1000.0,
            100.0 * rate / floor_rate.max(1e-9),
            own.as_secs_f64() * 1000.0,
            browser.as_secs_f64() * 1000.0,
            100.0 * own.as_secs_f64() / browser.as_secs_f64().max(1e-9)
        );
    }
    for tab in tabs {
        if let Err(e) = tab.page.close().await {
            eprintln!("warning: closing a tab: {e}");
        }
    }
    Ok(())
}

/// Runs one phase on every tab at once; gives the tabs back with the phase's wall time.
async fn run_phase(
    tabs: Vec<Tab>,
    phase: Phase,
    snapshots: usize,
) -> (Result<Vec<Tab>, String>, Duration) {
    let start = Instant::now();
    let tasks: Vec<_> = tabs
        .into_iter()
        .map(|tab| tokio::spawn(tab_phase(tab, phase, snapshots)))
        .collect();
    let mut out = Vec::with_capacity(tasks.len());
    let mut failure = None;
    for task in tasks {
        match task.await {
            Ok(Ok(tab)) => out.push(tab),
            Ok(Err(message)) => failure = Some(message),
            Err(e) => failure = Some(format!("a tab's task failed: {e}")),
        }
    }
    let wall = start.elapsed();
    match failure {
        Some(message) => (Err(message), wall),
        None => (Ok(out), wall),
    }
}

/// `snapshots` snapshots of one tab, one after the other.
async fn tab_phase(mut tab: Tab, phase: Phase, snapshots: usize) -> Result<Tab, String> {
    let target = tab.page.target_id().to_string();
    for _ in 0..snapshots {
        match phase {
            Phase::Floor => {
                let plan = tab.plan.as_ref().ok_or("the tab was not warmed up")?;
                std::hint::black_box(floor(&tab.page, plan, false).await?.bytes);
            }
            Phase::Pagesight(mode) => {
                let capture = capture_for_view(&tab.page, &tab.kept, default_view())
                    .await
                    .map_err(|e| format!("capture failed: {e}"))?;
                let options = SnapshotOptions {
                    mode,
                    ..SnapshotOptions::default()
                };
                // The offline part is CPU work: off the runtime's worker threads, so other tabs'
                // replies keep being read meanwhile.
                let mut table = std::mem::take(&mut tab.table);
                let target = target.clone();
                let (table, output) = tokio::task::spawn_blocking(move || {
                    let output =
                        process(capture, &mut table, &target, &options).map(|s| s.output.len());
                    (table, output)
                })
                .await
                .map_err(|e| format!("the processing task failed: {e}"))?;
                tab.table = table;
                std::hint::black_box(output.map_err(|e| format!("processing failed: {e}"))?);
            }
        }
    }
    Ok(tab)
}

/// What a default snapshot captures: the viewport.
fn default_view() -> AxScope {
    AxScope::for_view(Expand::Viewport, false)
}

fn median_f64(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}
