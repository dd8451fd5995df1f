//! A crawl: the crawl crate's `Crawl` driven from Python. The options are read (and refused,
//! with the package's error classes) when the object is made, synchronously; `start()` launches
//! or connects to the browsers; `next()` answers each page's record as the JSON line of
//! `pagesight crawl` (plain Python objects) and `None` at the end. Every awaitable runs on the
//! extension's runtime without the GIL.
//!
//! A task of the runtime owns the running crawl and hands its records over a channel of one:
//! `stop()` and `abort()` reach it through a watch channel, so they take effect at once, even
//! while a `next()` is waiting for a page. Dropping the object (Python collected it) aborts
//! the crawl; its browsers close with it.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tokio::sync::{mpsc, watch, Mutex};
use tokio::task::JoinHandle;

use pagesight::{Error, Mode};
use pagesight_crawl::{Crawl, Progress, Stop, Summary};
use pagesight_crawl::{CrawlOptions, Endpoint, ExtractFormat, Follow, PageRecord, Perception};

use crate::convert::Json;
use crate::engine_error;
use crate::settle::awaitable;

/// The longest `page_timeout` taken (a day), as the command line takes it.
const MAX_PAGE_TIMEOUT: f64 = 86_400.0;

/// Where the task that owns the crawl is.
enum Driver {
    NotStarted,
    Running(JoinHandle<Summary>),
    Done(Summary),
}

/// A crawl of many pages. Made with its options; `start()` begins it.
#[pyclass(module = "pagesight._native", name = "Crawl", frozen)]
pub struct NativeCrawl {
    /// The options and the records' sender, until `start()` takes them.
    pending: StdMutex<Option<(CrawlOptions, mpsc::Sender<PageRecord>)>>,
    records: Arc<Mutex<mpsc::Receiver<PageRecord>>>,
    control: watch::Sender<Stop>,
    driver: Arc<Mutex<Driver>>,
    /// The crawl's counts, published by the driver (the crawl itself is the driver's).
    progress: watch::Receiver<Progress>,
    progress_sender: StdMutex<Option<watch::Sender<Progress>>>,
}

fn invalid(message: impl Into<String>) -> PyErr {
    engine_error(Error::invalid_argument(message))
}

fn non_negative(value: i64, name: &str) -> PyResult<u64> {
    u64::try_from(value).map_err(|_| invalid(format!("{name} must be at least 0, not {value}")))
}

#[pymethods]
impl NativeCrawl {
    /// Reads the options; anything that cannot work raises `EngineError` with
    /// `INVALID_ARGUMENT`, naming the argument as Python spells it.
    #[new]
    #[pyo3(signature = (
        urls,
        *,
        concurrency=None,
        extract=None,
        snapshot=None,
        links=false,
        follow=None,
        depth=None,
        max_pages=None,
        ignore_robots=false,
        browsers=Vec::new(),
        page_timeout=30.0,
        wait_until=String::from("domcontentloaded"),
        retries=2,
        shared_context=false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        urls: Vec<String>,
        concurrency: Option<i64>,
        extract: Option<String>,
        snapshot: Option<String>,
        links: bool,
        follow: Option<String>,
        depth: Option<i64>,
        max_pages: Option<i64>,
        ignore_robots: bool,
        browsers: Vec<String>,
        page_timeout: f64,
        wait_until: String,
        retries: i64,
        shared_context: bool,
    ) -> PyResult<Self> {
        let seeds: Vec<String> = urls
            .into_iter()
            .map(|u| u.trim().to_owned())
            .filter(|u| !u.is_empty())
            .collect();
        if seeds.is_empty() {
            return Err(invalid("no URL to crawl: give at least one URL or file"));
        }
        let mut options = CrawlOptions::new(seeds);
        if let Some(n) = concurrency {
            options.concurrency = match usize::try_from(n) {
                Ok(n) if n >= 1 => n,
                _ => return Err(invalid(format!("concurrency must be at least 1, not {n}"))),
            };
        }
        options.perception = Perception {
            extract: match extract.as_deref() {
                None => None,
                Some("markdown") => Some(ExtractFormat::Markdown),
                Some("text") => Some(ExtractFormat::Text),
                Some(other) => {
                    return Err(invalid(format!(
                        "extract is \"markdown\", \"text\" or None, not {other:?}"
                    )))
                }
            },
            snapshot: match snapshot.as_deref() {
                None => None,
                Some("a11y") => Some(Mode::A11y),
                Some("dom") => Some(Mode::Dom),
                Some(other) => {
                    return Err(invalid(format!(
                        "snapshot is \"a11y\", \"dom\" or None, not {other:?}"
                    )))
                }
            },
            links,
            capture_dir: None,
        };
        options.follow = match follow.as_deref() {
            None => None,
            Some(text) => Some(Follow::parse(text).map_err(|_| {
                invalid(format!(
                    "follow is \"same-site\", \"same-origin\" or an absolute URL prefix \
                     (\"https://example.com/docs/\"), not {text:?}"
                ))
            })?),
        };
        if let Some(depth) = depth {
            if options.follow.is_none() {
                return Err(invalid(
                    "depth counts links followed from a seed: give follow= with it, or leave \
                     it out",
                ));
            }
            options.max_depth = u32::try_from(non_negative(depth, "depth")?).unwrap_or(u32::MAX);
        }
        options.max_pages = max_pages
            .map(|n| non_negative(n, "max_pages"))
            .transpose()?
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        options.robots = !ignore_robots;
        options.browsers = browsers
            .into_iter()
            .map(|url| match url.trim() {
                "" => Err(invalid(
                    "a browser endpoint is ws://… or http://host:port, not \"\"",
                )),
                url => Ok(Endpoint::Remote {
                    url: url.to_owned(),
                    headers: Vec::new(),
                }),
            })
            .collect::<PyResult<_>>()?;
        if !(page_timeout.is_finite() && page_timeout > 0.0) {
            return Err(invalid(format!(
                "page_timeout must be a positive number of seconds, not {page_timeout}"
            )));
        }
        options.page_timeout = Duration::from_secs_f64(page_timeout.min(MAX_PAGE_TIMEOUT));
        options.wait_until = wait_until.parse().map_err(|_| {
            invalid(format!(
                "wait_until is \"domcontentloaded\" or \"load\", not {wait_until:?}"
            ))
        })?;
        options.retries = u32::try_from(non_negative(retries, "retries")?).unwrap_or(u32::MAX);
        options.shared_context = shared_context;

        let (sender, receiver) = mpsc::channel(1);
        let (progress_sender, progress) = watch::channel(Progress::default());
        Ok(NativeCrawl {
            pending: StdMutex::new(Some((options, sender))),
            records: Arc::new(Mutex::new(receiver)),
            control: watch::Sender::new(Stop::Running),
            driver: Arc::new(Mutex::new(Driver::NotStarted)),
            progress,
            progress_sender: StdMutex::new(Some(progress_sender)),
        })
    }

    /// Starts the crawl: launches its browser (or connects to its browsers). Raises if it
    /// cannot, or if the crawl was started before.
    fn start<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Held while the crawl starts, so that a `finish()` called meanwhile waits for it.
        let mut driver = Arc::clone(&self.driver)
            .try_lock_owned()
            .map_err(|_| invalid("this crawl was started already"))?;
        let taken = self.pending.lock().ok().and_then(|mut p| p.take());
        let Some((options, sender)) = taken else {
            return Err(invalid("this crawl was started already"));
        };
        let progress = self
            .progress_sender
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_else(|| watch::channel(Progress::default()).0);
        let control = self.control.subscribe();
        awaitable(py, async move {
            let crawl = pagesight_crawl::start(options)
                .await
                .map_err(engine_error)?;
            let task = tokio::spawn(drive(crawl, control, sender, progress));
            *driver = Driver::Running(task);
            Ok(())
        })
    }

    /// The next page's record (a dict, the JSON line of `pagesight crawl`), in the order pages
    /// are done; `None` once the crawl is over.
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.pending.lock().map(|p| p.is_some()).unwrap_or(false) {
            return Err(invalid("start the crawl before reading its pages"));
        }
        let records = Arc::clone(&self.records);
        awaitable(py, async move {
            let record = records.lock().await.recv().await;
            record
                .map(|record| {
                    serde_json::to_value(&record)
                        .map(Json)
                        .map_err(|e| engine_error(Error::protocol(e.to_string())))
                })
                .transpose()
        })
    }

    /// Takes no new page; those in flight finish and still come out of `next()`.
    fn stop(&self) {
        self.control.send_if_modified(|s| {
            let changed = *s == Stop::Running;
            if changed {
                *s = Stop::Graceful;
            }
            changed
        });
    }

    /// Cuts the pages in flight short: each still comes out, with the error `CANCELLED`.
    fn abort(&self) {
        self.control.send_replace(Stop::Abort);
    }

    /// Waits for the crawl to end, dropping the records not read yet (read them with `next()`
    /// first; call `stop()` or `abort()` to end it early), and answers how it went as a dict:
    /// `pages`, `failed`, `failures` (by code), `retried`, `stopped`. Its browsers are closed
    /// by then. Answers the same again when called twice.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // A crawl never started never will be: its records' sender goes.
        drop(self.pending.lock().ok().and_then(|mut p| p.take()));
        let records = Arc::clone(&self.records);
        let driver = Arc::clone(&self.driver);
        awaitable(py, async move {
            {
                let mut records = records.lock().await;
                records.close();
                while records.recv().await.is_some() {}
            }
            let mut driver = driver.lock().await;
            let summary = match std::mem::replace(&mut *driver, Driver::NotStarted) {
                Driver::Running(task) => task.await.unwrap_or_default(),
                Driver::Done(summary) => summary,
                Driver::NotStarted => Summary::default(),
            };
            *driver = Driver::Done(summary.clone());
            Ok(SummaryOut(summary))
        })
    }

    /// Where the crawl is: `(done, failed, in_flight, queued)`.
    fn progress(&self) -> (usize, usize, usize, usize) {
        let p = *self.progress.borrow();
        (p.done, p.failed, p.in_flight, p.queued)
    }
}

impl Drop for NativeCrawl {
    fn drop(&mut self) {
        // Nobody can read the records any more: the crawl is cut short and its browsers
        // closed by the driver, which sees the abort (and its control channel close).
        self.control.send_replace(Stop::Abort);
    }
}

/// A crawl's summary, turned into a dict under the GIL.
struct SummaryOut(Summary);

impl<'py> IntoPyObject<'py> for SummaryOut {
    type Target = PyDict;
    type Output = Bound<'py, PyDict>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("pages", self.0.pages)?;
        dict.set_item("failed", self.0.failed)?;
        dict.set_item("failures", self.0.failures)?;
        dict.set_item("retried", self.0.retried)?;
        dict.set_item("stopped", self.0.stopped)?;
        Ok(dict)
    }
}

/// How often the progress the driver publishes is brought up to date.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Owns the running crawl: hands its records on one at a time, applies `stop` and `abort` as
/// they come (the object dropped: `abort`), and ends it with its browsers closed. Once nobody
/// reads the records (`finish()` was called, or the object dropped) they are let go.
async fn drive(
    mut crawl: Crawl,
    mut control: watch::Receiver<Stop>,
    records: mpsc::Sender<PageRecord>,
    progress: watch::Sender<Progress>,
) -> Summary {
    let mut control_open = true;
    apply(&crawl, *control.borrow_and_update());
    let mut ticker = tokio::time::interval(PROGRESS_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // A record waiting for a reader.
    let mut waiting: Option<PageRecord> = None;
    loop {
        tokio::select! {
            record = crawl.next(), if waiting.is_none() => {
                progress.send_replace(crawl.progress());
                match record {
                    Some(record) => waiting = Some(record),
                    None => break,
                }
            }
            permit = records.reserve(), if waiting.is_some() => {
                let record = waiting.take();
                if let (Ok(permit), Some(record)) = (permit, record) {
                    permit.send(record);
                }
                // Else nobody reads any more: the record is let go.
            }
            changed = control.changed(), if control_open => match changed {
                Ok(()) => apply(&crawl, *control.borrow_and_update()),
                Err(_) => {
                    control_open = false;
                    crawl.abort();
                }
            },
            _ = ticker.tick() => {
                progress.send_replace(crawl.progress());
            }
        }
    }
    let summary = crawl.finish().await;
    progress.send_replace(Progress {
        done: summary.pages,
        failed: summary.failed,
        in_flight: 0,
        queued: 0,
    });
    summary
}

fn apply(crawl: &Crawl, stop: Stop) {
    match stop {
        Stop::Running => {}
        Stop::Graceful => crawl.stop(),
        Stop::Abort => crawl.abort(),
    }
}
