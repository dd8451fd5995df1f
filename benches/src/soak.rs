//! The soak: several tabs over one connection, for a long time, on pages that never stop
//! changing, with the engine's process watched for growth.
//!
//! Each tab is a [`Session`] of its own on a shared handle of one launched browser (one pipe),
//! and loops: open a page of `fixtures/pages/soak/`, then a few rounds of snapshot → click →
//! fill → scroll → diff. The pages mutate themselves (a card added every 100 ms and the oldest
//! removed, an iframe inserted and removed every 600 ms, a status line, and on every other open
//! a navigation of the page to a new document of itself), so acts race the page: failures with
//! a code (a uid gone stale, an element covered, a page navigating) are expected and counted.
//! What must not happen is a panic or a hang: every call runs under a timeout, and one that
//! hits it counts as a hang; a panic inside a call is caught and counted.
//!
//! Every `interval` the process's memory (the least heap it held since the last sample, and
//! its resident memory), its open file descriptors and the tabs' uid tables are sampled. The verdict
//! ([`SoakReport::problems`]): after `warm_up`, the descriptors stay within 10% of the first
//! sample taken after it, the heap's lowest point in the later half of the samples within 10%
//! of its lowest in the earlier half, the uid tables within half again of the largest
//! seen during the warm-up, and no panic and no hang happened.
//!
//! Why the heap held and not resident memory: a process that takes many snapshots keeps what
//! they free for the next ones ([`pagesight::keep_freed_memory`], up to 256 MiB), so its
//! resident memory follows the largest moment it has met (eight tabs snapshotting at once),
//! not what it holds. A leak grows the heap held; the resident memory is printed beside it.
//! The heap is taken at its lowest between two samples because at any one moment eight tabs
//! hold their calls' replies and models (a megabyte or two, as much as the rest), and a leak
//! raises the lowest point as surely as any other.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use pagesight::browser::{Browser, LaunchOptions};
use pagesight::session::{Session, SessionOptions};
use serde_json::{json, Value};

/// How a soak runs.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Tabs, each its own session over the one connection.
    pub tabs: usize,
    /// How long the tabs loop.
    pub duration: Duration,
    /// Time between two samples.
    pub interval: Duration,
    /// Growth before this is not held against the run (caches filling, the allocator settling).
    pub warm_up: Duration,
    /// A call that takes longer is a hang.
    pub call_timeout: Duration,
    /// How much the heap's low may rise on top of the 10% (0 for a long run): a short run
    /// samples the heap over windows too short to reach its quiet level every time.
    pub heap_slack_bytes: u64,
    /// Chromium's executable (`None`: found as the engine finds it).
    pub executable: Option<PathBuf>,
}

impl SoakOptions {
    /// `minutes` long, eight tabs, sampled every minute, the first five minutes (or a sixth of
    /// a shorter run) as warm-up.
    pub fn minutes(minutes: u64) -> SoakOptions {
        let duration = Duration::from_secs(minutes * 60);
        SoakOptions {
            tabs: 8,
            duration,
            interval: Duration::from_secs(60).min(duration / 12),
            warm_up: Duration::from_secs(300).min(duration / 3),
            call_timeout: Duration::from_secs(60),
            heap_slack_bytes: 0,
            executable: None,
        }
    }
}

/// One sample of the process and the tabs.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Since the tabs started.
    pub at: Duration,
    /// Resident memory of this process.
    pub rss_bytes: u64,
    /// The heap this process held at its lowest since the last sample (read four times a
    /// second): what stays allocated between the tabs' calls, without what a call in flight
    /// holds for a moment. 0 where the allocator is not glibc's.
    pub heap_bytes: u64,
    /// Open file descriptors of this process.
    pub fds: usize,
    /// The largest uid table of a tab: nodes remembered.
    pub uid_nodes: usize,
    /// The largest uid table of a tab: documents remembered.
    pub uid_documents: usize,
    /// Snapshots and actions done by then, all tabs.
    pub snapshots: u64,
    pub actions: u64,
    /// Failed calls by then, all tabs.
    pub failures: u64,
}

/// What the tabs did.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub opens: u64,
    pub snapshots: u64,
    /// Clicks, fills and scrolls that succeeded.
    pub actions: u64,
    pub diffs: u64,
    /// Failed calls by error code.
    pub failures: BTreeMap<String, u64>,
    /// The first failure of each code: the command and the message.
    pub first_failures: BTreeMap<String, String>,
    /// Calls that hit the timeout, by command.
    pub hangs: BTreeMap<String, u64>,
    /// Calls that panicked, by command.
    pub panics: BTreeMap<String, u64>,
}

impl Counts {
    pub fn failed(&self) -> u64 {
        self.failures.values().sum()
    }
}

/// The outcome of a soak.
#[derive(Debug, Clone)]
pub struct SoakReport {
    pub options: SoakOptions,
    pub counts: Counts,
    pub samples: Vec<Sample>,
    pub elapsed: Duration,
}

/// `value` may be at most `limit` of `reference` (1.10: 10% more).
fn within(value: f64, reference: f64, limit: f64) -> bool {
    value <= reference * limit
}

impl SoakReport {
    /// What breaks the verdict; empty when the run held.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let hangs: u64 = self.counts.hangs.values().sum();
        if hangs > 0 {
            problems.push(format!(
                "{hangs} call(s) hit the {:?} timeout: {:?}",
                self.options.call_timeout, self.counts.hangs
            ));
        }
        let panics: u64 = self.counts.panics.values().sum();
        if panics > 0 {
            problems.push(format!(
                "{panics} call(s) panicked: {:?}",
                self.counts.panics
            ));
        }
        if self.counts.snapshots == 0 || self.counts.actions == 0 {
            problems.push(format!(
                "the tabs did no work: {} snapshot(s), {} action(s)",
                self.counts.snapshots, self.counts.actions
            ));
        }
        let (warm, after): (Vec<&Sample>, Vec<&Sample>) = self
            .samples
            .iter()
            .partition(|s| s.at < self.options.warm_up);
        let Some(reference) = after.first() else {
            problems.push("no sample after the warm-up".to_string());
            return problems;
        };
        if after.len() < 2 {
            problems.push("fewer than two samples after the warm-up".to_string());
        }
        // The heap: the lowest of the later half of the samples against the lowest of the
        // earlier half. One sample's low moves by a tenth with what the tabs happen to hold,
        // leak or not; a leak raises the later half's lowest point above the earlier half's.
        let (early, late) = after.split_at(after.len().div_ceil(2));
        let lowest = |samples: &[&Sample]| samples.iter().map(|s| s.heap_bytes).min();
        if let (Some(early_low), Some(late_low)) = (lowest(early), lowest(late)) {
            let slack = self.options.heap_slack_bytes as f64;
            if late_low as f64 > early_low as f64 * 1.10 + slack {
                problems.push(format!(
                    "the heap held grew more than 10%: at least {} in the later half of the run \
                     against {} in the earlier half",
                    crate::mib(late_low),
                    crate::mib(early_low)
                ));
            }
        }
        for s in &after {
            if !within(s.fds as f64, reference.fds as f64, 1.10) {
                problems.push(format!(
                    "descriptors grew more than 10%: {} at {:?} against {} at {:?}",
                    s.fds, s.at, reference.fds, reference.at
                ));
            }
        }
        let bound = |f: fn(&Sample) -> usize| {
            warm.iter()
                .chain(std::iter::once(reference))
                .map(|s| f(s))
                .max()
                .unwrap_or(0)
        };
        let (nodes_bound, documents_bound) = (bound(|s| s.uid_nodes), bound(|s| s.uid_documents));
        for s in &after {
            if !within(s.uid_nodes as f64, nodes_bound as f64, 1.5) {
                problems.push(format!(
                    "a uid table grew to {} nodes at {:?}; at most {nodes_bound} until the \
                     warm-up ended",
                    s.uid_nodes, s.at
                ));
            }
            if !within(s.uid_documents as f64, documents_bound as f64, 1.5) {
                problems.push(format!(
                    "a uid table grew to {} documents at {:?}; at most {documents_bound} until \
                     the warm-up ended",
                    s.uid_documents, s.at
                ));
            }
        }
        problems
    }

    /// The per-sample table and the totals, as printed by the bench.
    pub fn table(&self) -> String {
        let mut out = SoakReport::header();
        for s in &self.samples {
            out.push_str(&SoakReport::line(s));
        }
        let c = &self.counts;
        out.push_str(&format!(
            "{} tab(s), {:?}: {} opens, {} snapshots, {} actions, {} diffs; failures by code: \
             {:?}; hangs: {:?}; panics: {:?}\nfirst failure of each code: {:#?}\n",
            self.options.tabs,
            self.elapsed,
            c.opens,
            c.snapshots,
            c.actions,
            c.diffs,
            c.failures,
            c.hangs,
            c.panics,
            c.first_failures
        ));
        out
    }
}

/// Resident memory of this process, from `/proc/self/status` (0 if it cannot be read).
pub fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The heap this process holds: bytes allocated and not yet freed, from glibc's `mallinfo2`
/// (its arenas' blocks in use and its mmapped blocks); 0 with another allocator.
pub fn heap_bytes() -> u64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        let info = unsafe { libc::mallinfo2() };
        (info.uordblks + info.hblkhd) as u64
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        0
    }
}

/// Open file descriptors of this process (0 if they cannot be listed).
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// The pages the tabs open in turn: the board, and the board that navigates itself.
pub fn soak_pages() -> Vec<String> {
    let board = crate::fixtures_dir().join("pages/soak/board.html");
    let url = format!("file://{}", board.to_string_lossy());
    vec![url.clone(), format!("{url}?hop=800")]
}

/// What the tabs share: counts, and each tab's latest uid table sizes.
struct Shared {
    counts: Mutex<Counts>,
    uid_nodes: Vec<AtomicUsize>,
    uid_documents: Vec<AtomicUsize>,
}

impl Shared {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One tab's loop.
struct Tab {
    index: usize,
    session: Session,
    shared: Arc<Shared>,
    call_timeout: Duration,
}

impl Tab {
    /// Runs one command under the timeout, counting its failure, hang or panic.
    async fn call(&mut self, command: Value) -> Option<Value> {
        let name = command["cmd"].as_str().unwrap_or("?").to_string();
        let run = AssertUnwindSafe(self.session.execute_json(&command)).catch_unwind();
        let outcome = tokio::time::timeout(self.call_timeout, run).await;
        let mut counts = self.shared.counts();
        match outcome {
            Err(_) => {
                *counts.hangs.entry(name).or_default() += 1;
                None
            }
            Ok(Err(_panic)) => {
                *counts.panics.entry(name).or_default() += 1;
                None
            }
            Ok(Ok(Err(e))) => {
                let code = e.code().as_str().to_string();
                counts
                    .first_failures
                    .entry(code.clone())
                    .or_insert_with(|| format!("{name}: {}", e.message()));
                *counts.failures.entry(code).or_default() += 1;
                None
            }
            Ok(Ok(Ok(value))) => {
                match name.as_str() {
                    "open" => counts.opens += 1,
                    "snapshot" => counts.snapshots += 1,
                    "diff" => counts.diffs += 1,
                    _ => counts.actions += 1,
                }
                Some(value)
            }
        }
    }

    fn publish_tables(&self) {
        let (nodes, documents) = self
            .session
            .uid_tables()
            .fold((0, 0), |(n, d), t| (n + t.len(), d + t.documents()));
        self.shared.uid_nodes[self.index].store(nodes, Ordering::Relaxed);
        self.shared.uid_documents[self.index].store(documents, Ordering::Relaxed);
    }

    async fn run(mut self, pages: Vec<String>, until: Instant) -> Session {
        let mut round = 0usize;
        while Instant::now() < until {
            let url = &pages[(round + self.index) % pages.len()];
            round += 1;
            if self
                .call(json!({"cmd": "open", "url": url}))
                .await
                .is_none()
            {
                continue;
            }
            for step in 0..3 {
                if Instant::now() >= until {
                    break;
                }
                let Some(snapshot) = self
                    .call(json!({"cmd": "snapshot", "format": "json"}))
                    .await
                else {
                    continue;
                };
                self.publish_tables();
                let mut nodes = Vec::new();
                flatten(&snapshot["root"], &mut nodes);
                let find = |role: &str, name: &str| {
                    nodes
                        .iter()
                        .find(|n| n["role"] == role && n["name"].as_str() == Some(name))
                        .and_then(|n| n["uid"].as_str())
                        .map(str::to_string)
                };
                // A card made by the page's timer, likely gone by the time it is clicked.
                let card = nodes
                    .iter()
                    .filter(|n| {
                        n["role"] == "button"
                            && n["name"].as_str().is_some_and(|s| s.starts_with("card "))
                    })
                    .nth(step)
                    .and_then(|n| n["uid"].as_str())
                    .map(str::to_string);
                if let Some(uid) = find("button", "Add card") {
                    self.call(json!({"cmd": "click", "uid": uid})).await;
                }
                if let Some(uid) = find("textbox", "Note") {
                    let text = format!("tab {} round {round} step {step}", self.index);
                    self.call(json!({"cmd": "fill", "uid": uid, "text": text}))
                        .await;
                }
                if let Some(uid) = card {
                    self.call(json!({"cmd": "click", "uid": uid})).await;
                }
                let direction = if step % 2 == 0 { "down" } else { "up" };
                self.call(json!({"cmd": "scroll", "direction": direction, "pixels": 300}))
                    .await;
                self.call(json!({"cmd": "diff"})).await;
            }
        }
        self.publish_tables();
        self.session
    }
}

/// Every node of a snapshot's JSON tree, depth first.
fn flatten<'a>(node: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(node);
    for child in node["children"].as_array().into_iter().flatten() {
        flatten(child, out);
    }
}

/// Runs the soak, printing each sample (the table's line) to stderr as it is taken.
pub async fn soak(options: SoakOptions) -> Result<SoakReport, String> {
    let mut launch = LaunchOptions {
        executable: options.executable.clone(),
        ..LaunchOptions::default()
    };
    launch.connection.command_timeout = options.call_timeout;
    crate::with_browser(launch, async |browser| soak_on(browser, &options).await).await
}

async fn soak_on(browser: &Browser, options: &SoakOptions) -> Result<SoakReport, String> {
    let shared = Arc::new(Shared {
        counts: Mutex::new(Counts::default()),
        uid_nodes: (0..options.tabs).map(|_| AtomicUsize::new(0)).collect(),
        uid_documents: (0..options.tabs).map(|_| AtomicUsize::new(0)).collect(),
    });
    let pages = soak_pages();
    let started = Instant::now();
    let until = started + options.duration;
    let mut tasks = Vec::new();
    for index in 0..options.tabs {
        let session = Session::with_browser(browser.share(), SessionOptions::default())
            .await
            .map_err(|e| format!("cannot start tab {index}: {e}"))?;
        let tab = Tab {
            index,
            session,
            shared: shared.clone(),
            call_timeout: options.call_timeout,
        };
        tasks.push(tokio::spawn(tab.run(pages.clone(), until)));
    }
    let mut samples = Vec::new();
    eprint!("{}", SoakReport::header());
    let mut next = started + options.interval;
    while next <= until + Duration::from_millis(1) {
        let mut heap_floor = heap_bytes();
        while Instant::now() < next {
            let tick = next.min(Instant::now() + Duration::from_millis(250));
            tokio::time::sleep_until(tick.into()).await;
            heap_floor = heap_floor.min(heap_bytes());
        }
        let sample = {
            let counts = shared.counts();
            let max = |v: &Vec<AtomicUsize>| {
                v.iter()
                    .map(|a| a.load(Ordering::Relaxed))
                    .max()
                    .unwrap_or(0)
            };
            Sample {
                at: started.elapsed(),
                rss_bytes: rss_bytes(),
                heap_bytes: heap_floor,
                fds: open_fds(),
                uid_nodes: max(&shared.uid_nodes),
                uid_documents: max(&shared.uid_documents),
                snapshots: counts.snapshots,
                actions: counts.actions,
                failures: counts.failed(),
            }
        };
        eprint!("{}", SoakReport::line(&sample));
        samples.push(sample);
        next += options.interval;
    }
    for (index, task) in tasks.into_iter().enumerate() {
        // The tabs end by themselves at `until`; one stuck past it is a hang too.
        match tokio::time::timeout(options.call_timeout * 2, task).await {
            Ok(Ok(session)) => {
                let _ = session.shutdown().await;
            }
            Ok(Err(e)) => {
                let what = if e.is_panic() { "panics" } else { "hangs" };
                let mut counts = shared.counts();
                let map = if e.is_panic() {
                    &mut counts.panics
                } else {
                    &mut counts.hangs
                };
                *map.entry(format!("tab {index} ({what})")).or_default() += 1;
            }
            Err(_) => {
                *shared
                    .counts()
                    .hangs
                    .entry(format!("tab {index} did not end"))
                    .or_default() += 1;
            }
        }
    }
    let counts = shared.counts().clone();
    Ok(SoakReport {
        options: options.clone(),
        counts,
        samples,
        elapsed: started.elapsed(),
    })
}

impl SoakReport {
    fn header() -> String {
        "  time  heap MiB   RSS MiB  fds  uid nodes  uid docs  snapshots  actions  failures\n"
            .to_string()
    }

    fn line(s: &Sample) -> String {
        format!(
            "{:>6}  {:>8.1}  {:>8.1}  {:>3}  {:>9}  {:>8}  {:>9}  {:>7}  {:>8}\n",
            format!("{}s", s.at.as_secs()),
            s.heap_bytes as f64 / (1024.0 * 1024.0),
            s.rss_bytes as f64 / (1024.0 * 1024.0),
            s.fds,
            s.uid_nodes,
            s.uid_documents,
            s.snapshots,
            s.actions,
            s.failures
        )
    }
}
