//! pagesight's crawler: many pages, many browsers, one crawl, nothing lost.
//!
//! A crawl takes URLs (and, with [`Follow`], the links of the pages it reads), opens each in
//! a browser context of its own on one of its browsers ([`Endpoint`]: one it launches, or a
//! fleet of remote ones), reads what was asked ([`Perception`]: the main content, the
//! snapshot an agent reads, the links, a capture file) and answers with one [`PageRecord`]
//! per page — a failure is a record too, with its code. The engine does the reading, so a
//! crawl's records say what a person sees on each page, not what its markup might show.
//!
//! # Quickstart
//!
//! ```no_run
//! use pagesight_crawl::{CrawlOptions, ExtractFormat};
//!
//! # async fn run() -> pagesight::Result<()> {
//! let mut options = CrawlOptions::new(vec!["https://example.com".into()]);
//! options.perception.extract = Some(ExtractFormat::Markdown);
//! let mut crawl = pagesight_crawl::start(options).await?;
//! while let Some(record) = crawl.next().await {
//!     println!("{} {:?} {:?}", record.url, record.status, record.error);
//! }
//! let summary = crawl.finish().await;
//! println!("{} pages, {} failed", summary.pages, summary.failed);
//! # Ok(())
//! # }
//! ```
//!
//! What a crawl promises: every URL admitted gets exactly one record; [`Crawl::stop`] takes
//! no new page and lets those in flight finish, [`Crawl::abort`] cuts them short (each still
//! gets its record, [`codes::CANCELLED`]); a page is cut at its `page_timeout`; a try that
//! failed in a way another may not (a timeout, a crashed page, a browser that went away) is
//! tried again, up to `retries` times, after a backoff, on another browser when there is
//! one. Each page's context is disposed of with its record (with a shared context, its tab
//! is kept for the next page, up to a bound), so a long crawl's memory stays that of the
//! pages in flight. How records are named on disk and how a crawl is resumed:
//! [`OutputFile`].

mod fleet;
mod frontier;
mod output;
mod record;
mod robots;
mod scope;
mod visit;

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use pagesight::{AllowedFolders, Error, Result, Viewport, WaitUntil};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

pub use fleet::Endpoint;
pub use output::{OutputFile, Resume};
pub use record::{codes, Failure, PageRecord, Timings};
pub use robots::AGENT as ROBOTS_AGENT;
pub use scope::{normalize, Follow};
pub use visit::{ExtractFormat, Perception};

use fleet::{Fleet, Slot};
use frontier::{Frontier, Job, Seeded};
use visit::{Ending, Visit, VisitSettings};

/// What to crawl and how.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// The URLs (or local files) to start from.
    pub seeds: Vec<String>,
    /// Pages in flight at once, across all browsers.
    pub concurrency: usize,
    /// What is read of each page.
    pub perception: Perception,
    /// Which links to follow; `None`: only the seeds are crawled.
    pub follow: Option<Follow>,
    /// How many links from a seed a followed page may be.
    pub max_depth: u32,
    /// At most this many pages in all (records, counting those `resume` found done).
    pub max_pages: Option<usize>,
    /// Honour robots.txt when following links.
    pub robots: bool,
    /// The browsers; empty: one launched headless Chromium.
    pub browsers: Vec<Endpoint>,
    /// A page not done in this time is cut (`TIMEOUT`); its load is waited for at most half
    /// of it, and a page that has not loaded by then is read as it is.
    pub page_timeout: Duration,
    /// What ends the wait for a page before it is read: its `DOMContentLoaded` (the
    /// default: the HTML is parsed, which is what the main content and links come from), or
    /// its `load` (images, frames and every script loaded too).
    pub wait_until: WaitUntil,
    /// How many more times a page is tried after a try that may go better next time.
    pub retries: u32,
    /// Open every page in the browser's default context (shared cookies and storage)
    /// instead of a context of its own.
    pub shared_context: bool,
    /// The viewport of launched browsers' pages.
    pub viewport: Viewport,
    /// Where capture files may be written.
    pub files: AllowedFolders,
    /// What an earlier crawl's output says was done.
    pub resume: Resume,
}

impl CrawlOptions {
    /// Options to crawl `seeds` with the defaults: [`default_concurrency`] pages at once on
    /// one launched browser, 30 s per page read once parsed, 2 retries, nothing followed,
    /// nothing read but where each page arrived.
    pub fn new(seeds: Vec<String>) -> CrawlOptions {
        CrawlOptions {
            seeds,
            concurrency: default_concurrency(),
            perception: Perception::default(),
            follow: None,
            max_depth: 3,
            max_pages: None,
            robots: true,
            browsers: Vec::new(),
            page_timeout: Duration::from_secs(30),
            wait_until: WaitUntil::DomContentLoaded,
            retries: 2,
            shared_context: false,
            viewport: Viewport::default(),
            files: AllowedFolders::none(),
            resume: Resume::default(),
        }
    }
}

/// Pages in flight by default: two per core. A page's time is mostly Chromium's (its
/// renderer, on a core of its own while it lays out and paints) and waiting (the network);
/// the crawl's own CPU per page is a few percent of Chromium's. Two per core keeps the cores
/// busy while pages wait without making every page slower.
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get() * 2)
}

/// How a crawl is asked to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Not asked.
    Running,
    /// Take no new page; finish those in flight.
    Graceful,
    /// Cut the pages in flight short too.
    Abort,
}

/// Where a crawl is, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Records given out.
    pub done: usize,
    /// Of those, records with an error.
    pub failed: usize,
    /// Pages being tried.
    pub in_flight: usize,
    /// Pages waiting.
    pub queued: usize,
}

#[derive(Default)]
struct Counters {
    done: AtomicUsize,
    failed: AtomicUsize,
    in_flight: AtomicUsize,
    queued: AtomicUsize,
}

/// How a crawl went.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    /// Records given out.
    pub pages: usize,
    /// Of those, records with an error.
    pub failed: usize,
    /// Failed records by error code.
    pub failures: BTreeMap<String, usize>,
    /// Tries that were tried again.
    pub retried: usize,
    /// Whether it was stopped before its pages ran out.
    pub stopped: bool,
}

/// A running crawl: its records as they come, and the means to stop it.
pub struct Crawl {
    records: mpsc::Receiver<PageRecord>,
    stop: watch::Sender<Stop>,
    counters: Arc<Counters>,
    task: tokio::task::JoinHandle<Summary>,
}

/// Starts a crawl on the current tokio runtime, once its browsers are launched or connected
/// to. Fails at once on options that cannot work (no seed, no concurrency, a capture folder
/// outside the allowed ones) and when no browser can be reached; a browser of several that
/// cannot is set aside and tried again later.
pub async fn start(options: CrawlOptions) -> Result<Crawl> {
    if options.seeds.is_empty() && options.resume.links.is_empty() {
        return Err(Error::invalid_argument(
            "no URL to crawl: give a file of URLs (one per line), - for stdin, or --url",
        ));
    }
    if options.concurrency == 0 {
        return Err(Error::invalid_argument("--concurrency must be at least 1"));
    }
    if let Some(folder) = &options.perception.capture_dir {
        options.files.check(&folder.to_string_lossy())?;
    }
    let endpoints = match options.browsers.is_empty() {
        true => vec![Endpoint::Launch],
        false => options.browsers.clone(),
    };
    let mut fleet = Fleet::new(&endpoints, options.concurrency, options.viewport);
    fleet.connect_all(Instant::now()).await?;
    let (stop, stop_rx) = watch::channel(Stop::Running);
    let (sender, records) = mpsc::channel(options.concurrency.saturating_mul(2).max(4));
    let counters = Arc::new(Counters::default());
    let task = tokio::spawn(run(options, fleet, stop_rx, sender, counters.clone()));
    Ok(Crawl {
        records,
        stop,
        counters,
        task,
    })
}

impl Crawl {
    /// The next page's record, in the order pages are done; `None` once the crawl is over.
    pub async fn next(&mut self) -> Option<PageRecord> {
        self.records.recv().await
    }

    /// Takes no new page; those in flight finish and get their records.
    pub fn stop(&self) {
        self.stop.send_if_modified(|s| {
            let changed = *s == Stop::Running;
            if changed {
                *s = Stop::Graceful;
            }
            changed
        });
    }

    /// Cuts the pages in flight short: each gets a record with [`codes::CANCELLED`].
    pub fn abort(&self) {
        self.stop.send_replace(Stop::Abort);
    }

    /// How far the crawl is.
    pub fn progress(&self) -> Progress {
        Progress {
            done: self.counters.done.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
            in_flight: self.counters.in_flight.load(Ordering::Relaxed),
            queued: self.counters.queued.load(Ordering::Relaxed),
        }
    }

    /// Waits for the crawl to end (taking what records remain and dropping them: read them
    /// with [`Crawl::next`] first) and says how it went. Its browsers are closed by then.
    pub async fn finish(mut self) -> Summary {
        while self.records.recv().await.is_some() {}
        self.task.await.unwrap_or_default()
    }
}

/// The crawl itself: hands pages to browsers, collects their tries, decides retries.
async fn run(
    options: CrawlOptions,
    mut fleet: Fleet,
    mut stop: watch::Receiver<Stop>,
    records: mpsc::Sender<PageRecord>,
    counters: Arc<Counters>,
) -> Summary {
    let following = options.follow.is_some();
    let settings = Arc::new(VisitSettings {
        perception: options.perception.clone(),
        read_links: options.perception.links || following,
        robots: (following && options.robots).then(Default::default),
        page_timeout: options.page_timeout,
        wait_until: options.wait_until,
        shared_context: options.shared_context,
        files: options.files.clone(),
    });
    let mut frontier = Frontier::new(
        options.follow.clone(),
        options.max_depth,
        options.max_pages,
        options.resume.done.iter().cloned(),
    );
    let mut summary = Summary::default();
    let mut emit = Emitter {
        records: &records,
        counters: &counters,
        summary: &mut summary,
        receiver_gone: false,
    };
    let start = Instant::now();
    for seed in &options.seeds {
        if let Seeded::Invalid(why) = frontier.seed(seed, start) {
            emit.send(PageRecord {
                url: seed.clone(),
                error: Some(Failure {
                    code: pagesight::ErrorCode::InvalidArgument.as_str().into(),
                    message: why,
                }),
                ..PageRecord::default()
            })
            .await;
        }
    }
    for (url, depth) in &options.resume.links {
        frontier.link(url, depth + 1, None, start);
    }
    let browsers_count = u32::try_from(fleet.len()).unwrap_or(u32::MAX);
    let mut tries: JoinSet<(Job, Slot, Visit)> = JoinSet::new();
    let mut stopping = false;
    loop {
        stopping |= *stop.borrow() != Stop::Running || emit.receiver_gone;
        let now = Instant::now();
        if !stopping {
            while tries.len() < options.concurrency {
                let Some(job) = frontier.next(now) else {
                    break;
                };
                let Some(slot) = fleet.take(job.avoid, now) else {
                    frontier.put_back(job);
                    break;
                };
                let Some(handle) = fleet.handle(slot) else {
                    fleet.release(slot, true);
                    frontier.put_back(job);
                    break;
                };
                let reused = fleet.take_tab(slot);
                let settings = settings.clone();
                let stop = stop.clone();
                tries.spawn(async move {
                    let tried = visit::visit(&job.url, &handle, &settings, stop, reused);
                    let visit = match AssertUnwindSafe(tried).catch_unwind().await {
                        Ok(visit) => visit,
                        Err(_) => Visit {
                            record: PageRecord {
                                url: job.url.clone(),
                                browser: Some(handle.label.clone()),
                                error: Some(Failure {
                                    code: codes::INTERNAL_ERROR.into(),
                                    message: "the crawl failed inside itself on this page; \
                                              the other pages went on"
                                        .into(),
                                }),
                                ..PageRecord::default()
                            },
                            ending: Ending::Done,
                            tab: None,
                        },
                    };
                    (job, slot, visit)
                });
            }
        }
        counters.in_flight.store(tries.len(), Ordering::Relaxed);
        counters.queued.store(frontier.len(), Ordering::Relaxed);
        if tries.is_empty() && (stopping || frontier.is_empty()) {
            break;
        }
        let wake = [frontier.next_due(), fleet.next_back(now)]
            .into_iter()
            .flatten()
            .min();
        tokio::select! {
            joined = tries.join_next(), if !tries.is_empty() => {
                let Some(joined) = joined else { continue };
                let (mut job, slot, visit) = match joined {
                    Ok(done) => done,
                    // Only a try cancelled with the whole set ends here: the crawl is over.
                    Err(_) => continue,
                };
                job.tries += 1;
                let Visit { mut record, ending, tab } = visit;
                if let Some(tab) = tab {
                    fleet.keep_tab(slot, tab);
                }
                let now = Instant::now();
                let again = match ending {
                    Ending::Done => {
                        fleet.release(slot, true);
                        false
                    }
                    Ending::Retry => {
                        fleet.release(slot, true);
                        job.tries - job.browser_failures <= options.retries
                    }
                    Ending::BrowserFailed => {
                        fleet.release(slot, false);
                        fleet.failed(slot, now).await;
                        job.browser_failures += 1;
                        job.browser_failures < browsers_count + options.retries
                    }
                };
                if again && !stopping {
                    summary_retried(&mut emit);
                    let backoff = Duration::from_millis(500)
                        .saturating_mul(1 << job.tries.min(6))
                        .min(Duration::from_secs(30));
                    job.not_before = now + backoff;
                    job.avoid = Some(slot.0);
                    frontier.retry(job);
                    continue;
                }
                record.url = job.given.clone();
                record.attempts = job.tries;
                if following {
                    record.depth = Some(job.depth);
                    if let Some(links) = &record.links {
                        for link in links {
                            frontier.link(&link.url, job.depth + 1, Some(&job.root), now);
                        }
                    }
                    if !options.perception.links {
                        record.links = None;
                    }
                }
                emit.send(record).await;
            }
            changed = stop.changed() => {
                if changed.is_err() {
                    stopping = true;
                }
            }
            () = sleep_until(wake), if wake.is_some() => {}
        }
    }
    summary.stopped = stopping && !frontier.is_empty();
    fleet.close().await;
    summary
}

fn summary_retried(emit: &mut Emitter<'_>) {
    emit.summary.retried += 1;
}

async fn sleep_until(when: Option<Instant>) {
    match when {
        Some(when) => tokio::time::sleep_until(when).await,
        None => std::future::pending().await,
    }
}

/// Gives out records and keeps the counts.
struct Emitter<'a> {
    records: &'a mpsc::Sender<PageRecord>,
    counters: &'a Counters,
    summary: &'a mut Summary,
    /// Nobody takes the records any more: the crawl ends.
    receiver_gone: bool,
}

impl Emitter<'_> {
    async fn send(&mut self, record: PageRecord) {
        self.summary.pages += 1;
        self.counters.done.fetch_add(1, Ordering::Relaxed);
        if let Some(e) = &record.error {
            self.summary.failed += 1;
            self.counters.failed.fetch_add(1, Ordering::Relaxed);
            *self.summary.failures.entry(e.code.clone()).or_default() += 1;
        }
        if self.records.send(record).await.is_err() {
            self.receiver_gone = true;
        }
    }
}
