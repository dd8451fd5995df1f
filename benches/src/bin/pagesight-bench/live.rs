//! The live bench: pagesight against the floor Chromium sets, on a real headless Chromium.
//!
//! For each page, after one untimed warm-up snapshot, `--runs` rounds of (interleaved, so drift
//! hits all alike):
//! - **floor**: the CDP calls the engine's capture makes for the default view, in its order,
//!   kept in step with `live/capture.rs` (what to ask for is taken once per page from one
//!   capture; the page does not change between runs): `Page.getFrameTree` and
//!   `Page.getLayoutMetrics`, then the main frame's isolated world and
//!   `DOMSnapshot.captureSnapshot` (the engine's styles, paint order, no DOM rects) written
//!   together, then the client and scroll rectangles of the boxes geometry needs (`live::box_rects`:
//!   `DOM.resolveNode` per box, one `Runtime.callFunctionOn`), then at once
//!   `Accessibility.getPartialAXTree` (fetchRelatives false) for every node of the view's fetch
//!   set (`live::ax_fetch_set`) — or `Accessibility.getFullAXTree` per frame when the view
//!   holds a large share of the page's nodes (`AxFetch::node_by_node`) — with
//!   `Page.getFrameTree` again behind them; a page at most three views large is taken whole,
//!   as below (`AxFetch::whole_page`). Sent bare and waited for, the replies left raw: the time
//!   Chromium needs to produce a capture;
//! - **floor all**: the world, `captureSnapshot` and `Accessibility.getFullAXTree` per frame
//!   written together, then the rectangles of every box geometry needs with
//!   `Page.getFrameTree` again behind them, as `--expand all` and `verbose` ask;
//! - **a11y** / **dom**: pagesight end to end, `capture_for_view` + `snapshot::process_next` in
//!   that mode (default view), and **a11y all** (`--expand all`), each mode as one agent's
//!   session would take it (its own warm uid table and last snapshot); these find the page
//!   unchanged since their last snapshot, as an agent that looks again without acting does
//!   (the engine then uses the model it kept, see the engine's `live::kept_model`, and finds
//!   that the last snapshot stands, see `Snapshot::repeats`), so **a11y changed** takes the
//!   default view of a page changed just before (an attribute of its root element set,
//!   untimed), as after an action, in runs of its own after the others; the offline part is
//!   timed alone too, and the process's CPU time (all threads, `getrusage`) and the browser's
//!   (its processes' threads, `/proc`) are taken around the whole snapshot: the engine's share
//!   of the work a snapshot costs. How many snapshots of each mode used the kept model, and
//!   how many repeated the last, is printed below the table.
//!
//! Out-of-process iframes are captured over their own sessions in parallel; the floor leaves
//! them out (the bench pages have none).
//!
//! Also the typed parse of the raw `captureSnapshot` and `getFullAXTree` replies Chromium sent
//! in the floor runs (MB/s on the browser's own bytes): the snapshot by the engine's own reader
//! (`DomSnapshot::from_reply`, as the capture reads it), the AX tree by the engine's own reader
//! too (`FullAxTree::from_reply`, as the capture reads it); the whole offline pipeline on a
//! capture file made of the `floor all` replies, rendered right after the calls (as a
//! snapshot's offline work runs, its caches cold from the browser's work) and again at once
//! (warm, as a loop of renders such as the criterion benches measures it); and the floor's own
//! CPU (its calls sent through the engine's connection) against the browser's over the same
//! calls: the least the engine's share can be with that connection (`bare-floor` measures the
//! least any client spends). Medians of the runs are printed.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- live [--runs 7] [--stdtypes PATH]
//!     [--page PATH_OR_URL]... [--chrome PATH]
//! ```

use std::time::{Duration, Instant};

use pagesight::analysis::Expand;
use pagesight::browser::{Browser, LaunchOptions, Page};
use pagesight::capture::{AxScope, Capture, DomSnapshot, FullAxTree};
use pagesight::cdp::page::FrameTree;
use pagesight::cdp::runtime::EvaluateParams;
use pagesight::identity::UidTable;
use pagesight::live::{capture_for_view, Kept};
use pagesight::render::Mode;
use pagesight::snapshot::{process, process_next, render_capture, Snapshot, SnapshotOptions};
use pagesight_benches::floor::{floor, snapshot_params, FloorReplies, ViewPlan};
use pagesight_benches::{
    dom_node_count, median, mib, ms, ms_fine, page_name, page_url, process_tree_cpu, usage,
    with_browser,
};

use crate::shared::{count, Chrome, Pages};

/// Where Debian's python3.11-doc package installs the stdtypes page.
const DEFAULT_STDTYPES: &str = "/usr/share/doc/python3.11-doc/html/library/stdtypes.html";

/// Options of `live`.
#[derive(clap::Args)]
pub struct Args {
    /// Timed runs of each figure (medians are printed).
    #[arg(long, value_name = "N", default_value_t = 7, value_parser = count)]
    runs: usize,
    /// The stdtypes page measured when no page is given (skipped if not there).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_STDTYPES)]
    stdtypes: String,
    #[command(flatten)]
    pages: Pages,
    #[command(flatten)]
    chrome: Chrome,
}

/// The pages to measure: the given ones, or stdtypes (if installed) and two fixture pages.
fn pages(args: &Args) -> Vec<(String, String)> {
    if !args.pages.pages.is_empty() {
        return args
            .pages
            .pages
            .iter()
            .map(|p| (page_name(p), p.clone()))
            .collect();
    }
    let mut out = Vec::new();
    if std::path::Path::new(&args.stdtypes).is_file() || args.stdtypes.contains("://") {
        out.push(("stdtypes".to_string(), args.stdtypes.clone()));
    } else {
        eprintln!(
            "note: {} not found, stdtypes skipped (install Debian's python3.11-doc, or pass \
             --stdtypes PATH)",
            args.stdtypes
        );
    }
    out.extend(
        args.pages
            .or_small_fixtures()
            .into_iter()
            .map(|p| (page_name(&p), p)),
    );
    out
}

pub async fn run(args: Args) -> Result<(), String> {
    let mut options = LaunchOptions {
        executable: args.chrome.path.clone(),
        ..LaunchOptions::default()
    };
    options.connection.command_timeout = Duration::from_secs(120);
    with_browser(options, async |browser| measure_all(browser, &args).await).await
}

/// The medians of one page.
struct PageFigures {
    name: String,
    dom_nodes: usize,
    reply_bytes: usize,
    floor: Duration,
    floor_cpu: Duration,
    /// The floor with the full accessibility trees (`--expand all`).
    floor_all: Duration,
    /// How many `getPartialAXTree` calls the default view makes (0: full trees; `whole`: the
    /// page is captured whole).
    partial_calls: String,
    /// How many boxes' rectangles the default view reads.
    rect_boxes: usize,
    /// Per mode of [`MODES`].
    capture: [Duration; MODES.len()],
    process: [Duration; MODES.len()],
    total: [Duration; MODES.len()],
    cpu: [Duration; MODES.len()],
    /// The browser's processes' CPU time per snapshot, where it can be read.
    browser_cpu: [Option<Duration>; MODES.len()],
    /// Per mode: how many of its snapshots used the model kept from the one before, how many
    /// full accessibility trees were copied from the last one read, and how many snapshots
    /// repeated the last one (see the engine's `Snapshot::repeats`).
    reused: [Reuse; MODES.len()],
    /// The browser's processes' CPU time per second with no call in flight.
    browser_idle: Option<Duration>,
    parse_snapshot_mbps: f64,
    parse_ax_mbps: f64,
    /// The whole offline pipeline (`snapshot::render_capture`, a11y, `--expand all`) on a
    /// capture file made of the `floor all` replies: Chromium's own bytes to the text. Its
    /// first render right after the calls, as a snapshot's offline work runs (the caches hold
    /// what the browser last touched), and the same file rendered again at once (warm, as a
    /// loop of renders such as the criterion benches measures it).
    offline_whole: Duration,
    offline_again: Duration,
    /// The floor's own CPU as a share of the browser's over the same calls: what the engine's
    /// connection costs to write the calls and read their replies, the least the engine's share
    /// can be with it.
    floor_share: Option<f64>,
    /// `DOMSnapshot.captureSnapshot` and `Accessibility.getFullAXTree` each sent alone.
    snapshot_alone: Duration,
    /// The same without `includeDOMRects`.
    snapshot_bare: Duration,
    ax_alone: Duration,
}

async fn measure_all(browser: &Browser, args: &Args) -> Result<(), String> {
    match browser.version().await {
        Ok(v) => println!(
            "browser: {} ({} runs per figure, medians)",
            v.product, args.runs
        ),
        Err(e) => eprintln!("warning: Browser.getVersion failed: {e}"),
    }
    let mut figures = Vec::new();
    for (name, location) in pages(args) {
        let url = page_url(&location)?;
        let page = browser
            .new_page()
            .await
            .map_err(|e| format!("cannot open a page: {e}"))?;
        let outcome = page
            .navigate(&url, Duration::from_secs(60))
            .await
            .map_err(|e| format!("loading {url}: {e}"))?;
        if outcome.timed_out {
            eprintln!("warning: {url} did not finish loading in 60 s; measuring anyway");
        }
        let result = measure_page(&page, &Kept::default(), &name, args.runs, browser.pid()).await;
        if let Err(e) = page.close().await {
            eprintln!("warning: closing the page: {e}");
        }
        match result {
            Ok(f) => figures.push(f),
            // One page failing (e.g. a capture refused) must not lose the others' figures.
            Err(message) => eprintln!("warning: {name} skipped: {message}"),
        }
    }
    if figures.is_empty() {
        return Err("no page could be measured".to_string());
    }
    print_table(&figures, args.runs);
    Ok(())
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    if d.is_zero() {
        return 0.0;
    }
    bytes as f64 / d.as_secs_f64() / 1e6
}

/// The snapshots taken in each run: name, mode, view, and whether the page is changed (an
/// attribute set, untimed) just before.
const MODES: [(&str, Mode, Expand, bool); 4] = [
    ("a11y", Mode::A11y, Expand::Viewport, false),
    ("dom", Mode::Dom, Expand::Viewport, false),
    ("a11y all", Mode::A11y, Expand::All, false),
    ("a11y changed", Mode::A11y, Expand::Viewport, true),
];

async fn measure_page(
    page: &Page,
    kept: &Kept,
    name: &str,
    runs: usize,
    browser_pid: Option<u32>,
) -> Result<PageFigures, String> {
    let mut table = UidTable::new();
    let target = page.target_id().to_string();

    // Warm-up (untimed): Chromium builds its accessibility tree, caches warm up. The default
    // view's fetch set is taken from it for the floor.
    let view = AxScope::for_view(Expand::Viewport, false);
    let warm = capture_for_view(page, kept, view)
        .await
        .map_err(|e| format!("{name}: capture failed: {e}"))?;
    let dom_nodes = dom_node_count(warm.capture());
    let warm_meta = Some(warm.capture().clone());
    let plan = ViewPlan::of(warm.capture()).map_err(|e| format!("{name}: {e}"))?;
    process(warm, &mut table, &target, &SnapshotOptions::default())
        .map_err(|e| format!("{name}: processing failed: {e}"))?;
    // Each view seen twice more, so that the unchanged modes find their model kept from the
    // first timed run on.
    for expand in [Expand::Viewport, Expand::All, Expand::Viewport, Expand::All] {
        untimed_snapshot(page, kept, name, &mut table, &target, expand).await?;
    }
    floor(page, &plan, false).await?;
    floor(page, &plan, true).await?;

    let mut floor_t = Vec::new();
    let mut floor_cpu = Vec::new();
    let mut floor_all_t = Vec::new();
    let mut reply_bytes = 0;
    let mut times: [ModeTimes; MODES.len()] = Default::default();
    let browser_cpu = || browser_pid.map(process_tree_cpu);
    // What the browser spends with no call in flight (timers, the compositor, the page's own
    // work), over a second: how much of its figure per snapshot is not the snapshot's.
    let idle_rate = {
        let (b0, t0) = (browser_cpu(), Instant::now());
        tokio::time::sleep(Duration::from_secs(1)).await;
        match (b0, browser_cpu()) {
            (Some(b0), Some(b1)) => {
                b1.saturating_sub(b0).as_secs_f64() / t0.elapsed().as_secs_f64()
            }
            _ => 0.0,
        }
    };

    let mut parse_snapshot = Vec::new();
    let mut parse_ax = Vec::new();
    let mut snapshot_len = 0;
    let mut ax_len = 0;
    let mut snapshot_alone = Vec::new();
    let mut snapshot_bare = Vec::new();
    let mut ax_alone = Vec::new();
    let mut offline_whole = Vec::new();
    let mut offline_again = Vec::new();
    let mut floor_browser_cpu = Vec::new();
    let whole_options = SnapshotOptions {
        expand: Expand::All,
        ..SnapshotOptions::default()
    };

    let mut changes = 0;
    // Each mode's snapshots as one agent taking that mode would take them: with their own uid
    // table and last snapshot, each seen twice before (a second snapshot of a page is the
    // first whose uids mint nothing, which a repeat asks for).
    let mut agents: [Agent; MODES.len()] = Default::default();
    for (agent, (_, mode, expand, _)) in agents.iter_mut().zip(MODES) {
        for _ in 0..2 {
            let capture = capture_for_view(page, kept, AxScope::for_view(expand, false))
                .await
                .map_err(|e| format!("{name}: capture failed: {e}"))?;
            let options = mode_options(mode, expand);
            process_next(
                capture,
                &mut agent.table,
                &target,
                &options,
                &mut agent.last,
            )
            .map_err(|e| format!("{name}: processing failed: {e}"))?;
        }
    }
    for run in 0..runs {
        // (a) the floor
        // As a snapshot is timed: the browser's CPU read outside this process's.
        let b0 = browser_cpu();
        let u0 = usage();
        let t0 = Instant::now();
        let replies = floor(page, &plan, false).await?;
        floor_t.push(t0.elapsed());
        floor_cpu.push(usage().cpu.saturating_sub(u0.cpu));
        if let (Some(b0), Some(b1)) = (b0, browser_cpu()) {
            floor_browser_cpu.push(b1.saturating_sub(b0));
        }
        reply_bytes = replies.bytes;
        drop(replies);
        let t0 = Instant::now();
        let replies = floor(page, &plan, true).await?;
        floor_all_t.push(t0.elapsed());

        // typed parse of Chromium's own reply bytes, as the engine's capture reads them
        let t = Instant::now();
        let parsed = DomSnapshot::from_reply(&replies.snapshot)
            .map_err(|e| format!("{name}: the snapshot reply does not parse: {e}"))?;
        parse_snapshot.push(t.elapsed());
        snapshot_len = replies.snapshot.len();
        drop(parsed);
        let t = Instant::now();
        let parsed = FullAxTree::from_reply(&replies.ax[0])
            .map_err(|e| format!("{name}: the AX reply does not parse: {e}"))?;
        parse_ax.push(t.elapsed());
        ax_len = replies.ax[0].len();
        std::hint::black_box(parsed.nodes.len());
        drop(parsed);

        // the offline pipeline on those very bytes, as a capture file would hold them
        let file = capture_file(warm_meta.as_ref(), &replies)
            .ok_or_else(|| format!("{name}: the floor's replies do not make a capture"))?;
        drop(replies);
        let t = Instant::now();
        let text = render_capture(&file, &whole_options)
            .map_err(|e| format!("{name}: the floor's replies do not render: {e}"))?;
        offline_whole.push(t.elapsed());
        // Again at once: the same work with the caches warm from the first.
        let t = Instant::now();
        let again = render_capture(&file, &whole_options)
            .map_err(|e| format!("{name}: the floor's replies do not render: {e}"))?;
        offline_again.push(t.elapsed());
        drop(again);
        std::hint::black_box(text.len());

        // the two heavy calls, each alone
        let conn = page.connection();
        let session = Some(page.session_id());
        for (rects, alone) in [(true, &mut snapshot_alone), (false, &mut snapshot_bare)] {
            let t = Instant::now();
            conn.send_raw(
                "DOMSnapshot.captureSnapshot",
                session,
                &snapshot_params(rects),
            )
            .await
            .map_err(|e| format!("{name}: DOMSnapshot.captureSnapshot: {e}"))?;
            alone.push(t.elapsed());
        }
        let t = Instant::now();
        conn.send_raw(
            "Accessibility.getFullAXTree",
            session,
            &serde_json::json!({}),
        )
        .await
        .map_err(|e| format!("{name}: Accessibility.getFullAXTree: {e}"))?;
        ax_alone.push(t.elapsed());

        // (b) end to end, and (c) the offline part alone; the changed page after every run
        // of the unchanged ones (below): they would otherwise find the page changed since
        // their last snapshot every time. Each run starts with the next mode: the first
        // snapshot after the heavy calls above pays for what they left behind (the caches,
        // the allocator's and the runtime's state), which no one mode should pay every time.
        let unchanged: Vec<usize> = (0..MODES.len()).filter(|&k| !MODES[k].3).collect();
        for i in 0..unchanged.len() {
            let k = unchanged[(run + i) % unchanged.len()];
            let (_, mode, expand, _) = MODES[k];
            let (agent, options) = (&mut agents[k], mode_options(mode, expand));
            timed_snapshot(
                page,
                kept,
                name,
                agent,
                &options,
                browser_pid,
                &mut times[k],
            )
            .await?;
        }
    }
    for _ in 0..runs {
        for (k, (_, mode, expand, change)) in MODES.iter().enumerate() {
            if !*change {
                continue;
            }
            changes += 1;
            let expression =
                format!("document.documentElement.setAttribute('data-bench', '{changes}')");
            page.send(&EvaluateParams::new(expression))
                .await
                .map_err(|e| format!("{name}: changing the page: {e}"))?;
            let (agent, options) = (&mut agents[k], mode_options(*mode, *expand));
            timed_snapshot(
                page,
                kept,
                name,
                agent,
                &options,
                browser_pid,
                &mut times[k],
            )
            .await?;
            // The page as it was, seen twice: the next run finds its model kept again.
            page.send(&EvaluateParams::new(
                "document.documentElement.removeAttribute('data-bench')".to_string(),
            ))
            .await
            .map_err(|e| format!("{name}: changing the page back: {e}"))?;
            for _ in 0..2 {
                untimed_snapshot(page, kept, name, &mut table, &target, *expand).await?;
            }
        }
    }
    Ok(PageFigures {
        name: name.to_string(),
        dom_nodes,
        reply_bytes,
        floor: median(&floor_t),
        floor_cpu: median(&floor_cpu),
        floor_all: median(&floor_all_t),
        partial_calls: match (plan.whole_page, plan.node_by_node) {
            (true, _) => "whole".to_string(),
            (false, true) => plan.ids.len().to_string(),
            (false, false) => "0".to_string(),
        },
        rect_boxes: if plan.whole_page {
            plan.all_boxes.len()
        } else {
            plan.boxes.len()
        },
        capture: times.each_ref().map(|t| median(&t.capture)),
        process: times.each_ref().map(|t| median(&t.process)),
        total: times.each_ref().map(|t| median(&t.total)),
        cpu: times.each_ref().map(|t| median(&t.cpu)),
        browser_cpu: times
            .each_ref()
            .map(|t| (t.browser_cpu.len() == runs).then(|| median(&t.browser_cpu))),
        reused: times.each_ref().map(|t| t.reused),
        browser_idle: browser_pid.map(|_| Duration::from_secs_f64(idle_rate)),
        parse_snapshot_mbps: mbps(snapshot_len, median(&parse_snapshot)),
        parse_ax_mbps: mbps(ax_len, median(&parse_ax)),
        offline_whole: median(&offline_whole),
        offline_again: median(&offline_again),
        // As the snapshots' `CPU / browser CPU`: the one median over the other.
        floor_share: (floor_browser_cpu.len() == runs).then(|| {
            median(&floor_cpu).as_secs_f64() / median(&floor_browser_cpu).as_secs_f64().max(1e-9)
        }),
        snapshot_alone: median(&snapshot_alone),
        snapshot_bare: median(&snapshot_bare),
        ax_alone: median(&ax_alone),
    })
}

/// The snapshot options of a mode.
fn mode_options(mode: Mode, expand: Expand) -> SnapshotOptions {
    SnapshotOptions {
        mode,
        expand,
        ..SnapshotOptions::default()
    }
}

/// The uid table and last snapshot of one agent's session on a page.
#[derive(Default)]
struct Agent {
    table: UidTable,
    last: Option<Snapshot>,
}

/// What the timed snapshots of one mode measured.
#[derive(Default)]
struct ModeTimes {
    capture: Vec<Duration>,
    process: Vec<Duration>,
    total: Vec<Duration>,
    cpu: Vec<Duration>,
    browser_cpu: Vec<Duration>,
    reused: Reuse,
}

/// How often a mode's snapshots used what was kept (see [`PageFigures::reused`]).
#[derive(Default, Clone, Copy)]
struct Reuse {
    models: u64,
    trees: u64,
    repeats: u64,
}

/// One timed snapshot, end to end, as `agent` takes it: `capture_for_view`, then
/// `snapshot::process_next`, each timed, and the CPU time this process and the browser
/// (`browser_pid`'s processes) spent around the two.
async fn timed_snapshot(
    page: &Page,
    kept: &Kept,
    name: &str,
    agent: &mut Agent,
    options: &SnapshotOptions,
    browser_pid: Option<u32>,
    times: &mut ModeTimes,
) -> Result<(), String> {
    let target = page.target_id();
    let browser_cpu = || browser_pid.map(process_tree_cpu);
    let reused_before = (kept.reused_snapshots(), kept.reused_trees());
    let passes_before = agent.table.snapshots();
    let b0 = browser_cpu();
    let u0 = usage();
    let t0 = Instant::now();
    let capture = capture_for_view(
        page,
        kept,
        AxScope::for_view(options.expand, options.verbose),
    )
    .await
    .map_err(|e| format!("{name}: capture failed: {e}"))?;
    let t1 = Instant::now();
    let snapshot = process_next(capture, &mut agent.table, target, options, &mut agent.last)
        .map_err(|e| format!("{name}: processing failed: {e}"))?;
    std::hint::black_box(snapshot.output.len());
    let t2 = Instant::now();
    let u1 = usage();
    if let (Some(b0), Some(b1)) = (b0, browser_cpu()) {
        times.browser_cpu.push(b1.saturating_sub(b0));
    }
    times.capture.push(t1 - t0);
    times.process.push(t2 - t1);
    times.total.push(t2 - t0);
    times.cpu.push(u1.cpu.saturating_sub(u0.cpu));
    times.reused.models += kept.reused_snapshots() - reused_before.0;
    times.reused.trees += kept.reused_trees() - reused_before.1;
    // A repeat makes no pass over the uid table.
    times.reused.repeats += u64::from(agent.table.snapshots() == passes_before);
    Ok(())
}

/// A snapshot of the page that is not measured (it readies the page's kept model).
async fn untimed_snapshot(
    page: &Page,
    kept: &Kept,
    name: &str,
    table: &mut UidTable,
    target: &str,
    expand: Expand,
) -> Result<(), String> {
    let capture = capture_for_view(page, kept, AxScope::for_view(expand, false))
        .await
        .map_err(|e| format!("{name}: capture failed: {e}"))?;
    let options = SnapshotOptions {
        expand,
        ..SnapshotOptions::default()
    };
    process(capture, table, target, &options)
        .map_err(|e| format!("{name}: processing failed: {e}"))?;
    Ok(())
}

/// A capture file (plain JSON) holding the floor's raw `captureSnapshot` and `getFullAXTree`
/// replies, with the page's metadata (URL, metrics, frame tree) from `meta`.
fn capture_file(meta: Option<&Capture>, replies: &FloorReplies) -> Option<Vec<u8>> {
    let mut meta = meta?.clone();
    meta.dom_snapshot = Default::default();
    meta.ax_trees.clear();
    meta.oopifs.clear();
    meta.uncaptured_frames.clear();
    meta.ax_scope = AxScope::Full;
    // The floor asks for the main frame's tree, then each child frame's, in pre-order.
    fn frames(tree: &FrameTree, out: &mut Vec<String>) {
        out.push(tree.frame.id.clone());
        for child in tree.child_frames.iter().flatten() {
            frames(child, out);
        }
    }
    let mut ids = Vec::new();
    frames(meta.frame_tree.as_ref()?, &mut ids);
    if ids.len() != replies.ax.len() {
        return None;
    }
    let trees: Vec<String> = ids
        .iter()
        .zip(&replies.ax)
        .map(|(id, raw)| {
            // `{"nodes":[…]}` becomes `{"frameId":"…","nodes":[…]}`.
            let body = raw.as_str().strip_prefix('{')?;
            Some(format!(
                "{{\"frameId\":{},{body}",
                serde_json::to_string(id).ok()?
            ))
        })
        .collect::<Option<_>>()?;
    let text = serde_json::to_string(&meta).ok()?;
    let (no_dom, no_ax) = (
        r#""domSnapshot":{"documents":[],"strings":[]}"#,
        r#""axTrees":[]"#,
    );
    (text.matches(no_dom).count() == 1 && text.matches(no_ax).count() == 1).then(|| {
        text.replacen(
            no_dom,
            &format!(r#""domSnapshot":{}"#, replies.snapshot.as_str()),
            1,
        )
        .replacen(no_ax, &format!(r#""axTrees":[{}]"#, trees.join(",")), 1)
        .into_bytes()
    })
}

fn ratio(a: Duration, b: Duration) -> String {
    if b.is_zero() {
        return "-".to_string();
    }
    format!("1/{:.0}", b.as_secs_f64() / a.as_secs_f64().max(1e-9))
}

fn print_table(figures: &[PageFigures], runs: usize) {
    println!();
    println!(
        "All times in ms (medians). floor = the engine's CDP calls for the default view sent bare,"
    );
    println!(
        "replies left raw (in parentheses: its getPartialAXTree calls, 0 = full trees, whole ="
    );
    println!("a page at most three views large, taken whole / the boxes whose rects it reads);");
    println!("floor all = the whole page, as --expand all asks (the floor of the `a11y all` row);");
    println!("capture = pagesight's capture_for_view (same calls + typed parse + fetch set);");
    println!("process = offline pipeline;");
    println!(
        "total = capture + process; CPU = this process's CPU time (all threads) per snapshot;"
    );
    println!(
        "browser CPU = the browser's processes' CPU time (all threads) over the same snapshot"
    );
    println!("(idle = the same per second with no call in flight, before the runs).");
    println!();
    println!(
        "| page | DOM nodes | replies MiB | floor | floor CPU | floor all | mode | capture | process | total | process / floor | CPU | CPU / total | browser CPU (idle) | CPU / browser CPU |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for f in figures {
        for (k, (mode, _, _, _)) in MODES.iter().enumerate() {
            println!(
                "| {} | {} | {} | {} ({}/{}) | {} | {} | {} | {} | {} | {} | {} | {} | {:.0}% | {} | {} |",
                f.name,
                f.dom_nodes,
                mib(f.reply_bytes as u64),
                ms(f.floor),
                f.partial_calls,
                f.rect_boxes,
                ms_fine(f.floor_cpu),
                ms(f.floor_all),
                mode,
                ms(f.capture[k]),
                ms(f.process[k]),
                ms(f.total[k]),
                ratio(f.process[k], f.floor),
                ms_fine(f.cpu[k]),
                100.0 * f.cpu[k].as_secs_f64() / f.total[k].as_secs_f64().max(1e-9),
                match (f.browser_cpu[k], f.browser_idle) {
                    (Some(b), Some(idle)) => format!("{} ({}/s)", ms(b), ms(idle)),
                    _ => "-".to_string(),
                },
                f.browser_cpu[k].map_or("-".to_string(), |b| format!(
                    "{:.1}%",
                    100.0 * f.cpu[k].as_secs_f64() / b.as_secs_f64().max(1e-9)
                )),
            );
        }
    }
    println!();
    println!(
        "Snapshots that used the model kept from the one before (of {runs} per mode), full \
         accessibility trees copied from the last one read, and snapshots that repeated the \
         last one (nothing they are computed from changed):"
    );
    for f in figures {
        let counts: Vec<String> = MODES
            .iter()
            .zip(f.reused)
            .map(|((mode, ..), r)| {
                format!(
                    "{mode} {} ({} trees, {} repeats)",
                    r.models, r.trees, r.repeats
                )
            })
            .collect();
        println!("{}: {}", f.name, counts.join(", "));
    }
    println!();
    println!("The heavy calls each sent alone, and the typed parse of Chromium's own reply bytes");
    println!("(on the floor runs' replies); medians:");
    println!("| page | captureSnapshot ms (with DOM rects / without) | getFullAXTree ms | parse captureSnapshot MB/s (engine's reader, `DomSnapshot::from_reply`) | parse getFullAXTree MB/s (engine's reader, `FullAxTree::from_reply`) |");
    println!("|---|---:|---:|---:|---:|");
    for f in figures {
        println!(
            "| {} | {} / {} | {} | {:.0} | {:.0} |",
            f.name,
            ms(f.snapshot_alone),
            ms(f.snapshot_bare),
            ms(f.ax_alone),
            f.parse_snapshot_mbps,
            f.parse_ax_mbps
        );
    }
    println!();
    println!("The engine's offline work on a whole capture against the time Chromium took to");
    println!("produce it, same runs: floor all = captureSnapshot + getFullAXTree (+ the rects);");
    println!("offline = parse + merge + analysis + uids + render (a11y, --expand all) of a");
    println!("capture file made of exactly those replies (`snapshot::render_capture`), first");
    println!("right after the calls, then again at once (warm caches); medians:");
    println!("| page | floor all ms | offline ms (first / again) | offline / floor all (first / again) |");
    println!("|---|---:|---:|---:|");
    for f in figures {
        println!(
            "| {} | {} | {} / {} | {} / {} |",
            f.name,
            ms(f.floor_all),
            ms_fine(f.offline_whole),
            ms_fine(f.offline_again),
            ratio(f.offline_whole, f.floor_all),
            ratio(f.offline_again, f.floor_all)
        );
    }
    println!();
    println!("The floor's own CPU against the browser's over the same calls (medians): what the");
    println!("engine's connection costs to write the calls and read their replies, the least its");
    println!("`CPU / browser CPU` can be with that connection (`bare-floor`: any client):");
    for f in figures {
        println!(
            "{}: {}",
            f.name,
            f.floor_share
                .map_or("-".to_string(), |share| format!("{:.1}%", 100.0 * share))
        );
    }
}
