//! One try at one page: a session on a browser of the fleet (in a browser context of its own
//! unless the crawl shares one), robots.txt when asked, the page opened, what was asked of it
//! read, and the context disposed of — whatever happened in between. A crawl sharing the
//! default context reads the page in a tab its browser's last page left (see
//! [`crate::fleet::Tab`]) and leaves its own for the next, unless the try failed.

use std::path::PathBuf;
use std::time::Duration;

use pagesight::extract::ExtractOptions;
use pagesight::live::capture_everything;
use pagesight::{
    AllowedFolders, Error, ErrorCode, Mode, Session, SessionOptions, SnapshotOptions, WaitUntil,
};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::fleet::{BrowserHandle, Tab};
use crate::record::{codes, Failure, PageRecord};
use crate::robots::{RobotsCache, Verdict};
use crate::Stop;

/// The main content's form in a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtractFormat {
    /// `markdown`.
    Markdown,
    /// `text`: the same blocks without markup.
    Text,
}

/// What a crawl reads of each page.
#[derive(Debug, Clone, Default)]
pub struct Perception {
    /// The main content.
    pub extract: Option<ExtractFormat>,
    /// The snapshot an agent reads on opening the page (a11y or dom text).
    pub snapshot: Option<Mode>,
    /// The page's links.
    pub links: bool,
    /// A capture file per page in this folder, for offline work.
    pub capture_dir: Option<PathBuf>,
}

/// What every try shares.
pub(crate) struct VisitSettings {
    pub(crate) perception: Perception,
    /// Links are read for following them, whether or not they are printed.
    pub(crate) read_links: bool,
    pub(crate) robots: Option<RobotsCache>,
    pub(crate) page_timeout: Duration,
    pub(crate) wait_until: WaitUntil,
    pub(crate) shared_context: bool,
    pub(crate) files: AllowedFolders,
}

/// How a try ended, for the crawl to decide what comes next.
pub(crate) enum Ending {
    /// The page is done (crawled, or failed for good).
    Done,
    /// It failed in a way another try may not (a timeout, a crashed page).
    Retry,
    /// Its browser failed: the page is tried again elsewhere and the browser set aside.
    BrowserFailed,
}

/// A try's record and how it ended.
pub(crate) struct Visit {
    pub(crate) record: PageRecord,
    pub(crate) ending: Ending,
    /// Its tab, for the next page, when the crawl shares the default context and the try
    /// went well.
    pub(crate) tab: Option<Tab>,
}

/// How long disposing of a try's browser context may take before it is left to the browser.
const CLEANUP_LIMIT: Duration = Duration::from_secs(5);

/// Tries `url` once on the browser of `handle`, in `reused` when a tab was kept for it.
pub(crate) async fn visit(
    url: &str,
    handle: &BrowserHandle,
    settings: &VisitSettings,
    mut stop: watch::Receiver<Stop>,
    reused: Option<Tab>,
) -> Visit {
    let start = Instant::now();
    let mut record = PageRecord {
        url: url.to_owned(),
        browser: Some(handle.label.clone()),
        ..PageRecord::default()
    };
    let mut tab = match reused {
        Some(tab) => tab,
        None => match new_tab(handle, settings).await {
            Ok(tab) => tab,
            Err((e, ending)) => {
                record.error = Some(failure(&e));
                record.timings.total = millis(start.elapsed());
                return Visit {
                    record,
                    ending,
                    tab: None,
                };
            }
        },
    };
    let session = &mut tab.session;
    let outcome = {
        let work = read_page(url, session, settings, &mut record);
        let aborted = async {
            let _ = stop.wait_for(|s| *s == Stop::Abort).await;
        };
        tokio::select! {
            done = tokio::time::timeout(settings.page_timeout, work) => match done {
                Ok(done) => done,
                Err(_) => Err(Stopped::Engine(Error::new(
                    ErrorCode::Timeout,
                    format!(
                        "the page was not done within {} s (--page-timeout); it was cut",
                        settings.page_timeout.as_secs_f64()
                    ),
                ))),
            },
            () = aborted => Err(Stopped::Cancelled),
        }
    };
    // Whether the tab is fit for another page: not after a failure in it. A page robots.txt
    // refuses is not opened at all (the rules were read before, or just now as a page of
    // their own).
    let mut sound = true;
    let ending = match outcome {
        Ok(()) => Ending::Done,
        Err(stopped) => {
            sound = matches!(stopped, Stopped::Robots(_));
            let (failure, ending) = match stopped {
                Stopped::Engine(e) => {
                    let open = !tab.session.browser().connection().is_closed();
                    (failure(&e), ending_of(&e, open))
                }
                Stopped::Robots(why) => (
                    Failure {
                        code: codes::ROBOTS_DISALLOWED.into(),
                        message: why,
                    },
                    Ending::Done,
                ),
                Stopped::Cancelled => (
                    Failure {
                        code: codes::CANCELLED.into(),
                        message: "the crawl was stopped while the page was in flight; \
                                  --resume visits it again"
                            .into(),
                    },
                    Ending::Done,
                ),
            };
            record.error = Some(failure);
            // Content read before a failure is not kept: a record either has content or says
            // why not.
            record.markdown = None;
            record.text = None;
            record.snapshot = None;
            record.links = None;
            record.capture = None;
            ending
        }
    };
    tab.pages += 1;
    let kept = if !settings.shared_context {
        let _ = tokio::time::timeout(CLEANUP_LIMIT, tab.session.shutdown()).await;
        None
    } else if sound && tab.session.current_page().is_some() {
        Some(tab)
    } else {
        tab.close().await;
        None
    };
    record.timings.total = millis(start.elapsed());
    Visit {
        record,
        ending,
        tab: kept,
    }
}

/// A new session on the browser of `handle` (in a context of its own unless the crawl shares
/// one); on failure, the error and what it means for the page.
async fn new_tab(handle: &BrowserHandle, settings: &VisitSettings) -> Result<Tab, (Error, Ending)> {
    let browser = handle.get().await.map_err(|e| (e, Ending::BrowserFailed))?;
    let options = SessionOptions {
        isolated: !settings.shared_context,
        // The load is waited for at most half the page's time: a page that never finishes
        // loading is read as it is, and the rest of the time is the reading's.
        load_timeout: Some(settings.page_timeout / 2),
        wait_until: settings.wait_until,
        viewport: browser.default_viewport(),
        files: settings.files.clone(),
        // For robots.txt's text; the crawl sends no other script.
        allow_evaluate: true,
        ..SessionOptions::default()
    };
    let connection = browser.connection().clone();
    match Session::with_browser(browser, options).await {
        Ok(session) => Ok(handle.tab(session)),
        Err(e) => {
            let ending = ending_of(&e, !connection.is_closed());
            Err((e, ending))
        }
    }
}

/// robots.txt, the page, and what is asked of it; fills `record` as it goes.
async fn read_page(
    url: &str,
    session: &mut Session,
    settings: &VisitSettings,
    record: &mut PageRecord,
) -> Result<(), Stopped> {
    if let Some(robots) = &settings.robots {
        let started = Instant::now();
        let mut read = false;
        let verdict = robots.check(url, session, &mut read).await;
        if read {
            record.timings.robots = millis(started.elapsed());
        }
        if let Verdict::Disallowed(why) = verdict {
            return Err(Stopped::Robots(why));
        }
    }
    let started = Instant::now();
    let opened = session.open(url).await?;
    record.timings.navigation = millis(started.elapsed());
    record.final_url = opened.final_url;
    record.status = opened.status;
    record.title = opened.title;
    record.loaded = Some(opened.loaded);
    record.warning = opened.warning;
    if opened.dialog.is_some() {
        // A dialog that blocks the page while it loads is dismissed: nobody is there to
        // answer it, and the page goes on loading.
        session
            .answer_dialog(&pagesight::command::AnswerDialog {
                accept: false,
                text: None,
                then: Default::default(),
            })
            .await?;
    }
    let started = Instant::now();
    let perception = &settings.perception;
    if perception.extract.is_some() || settings.read_links {
        let extraction = session
            .extract(&ExtractOptions {
                all: false,
                links: settings.read_links,
            })
            .await?;
        match perception.extract {
            Some(ExtractFormat::Markdown) => record.markdown = Some(extraction.markdown),
            Some(ExtractFormat::Text) => record.text = Some(extraction.text),
            None => {}
        }
        if settings.read_links {
            record.links = Some(extraction.links);
        }
    }
    if let Some(mode) = perception.snapshot {
        let snapshot = session
            .snapshot(&SnapshotOptions {
                mode,
                ..SnapshotOptions::default()
            })
            .await?;
        record.snapshot = Some(snapshot.text);
    }
    if let Some(folder) = &perception.capture_dir {
        let page = session
            .current_page()
            .ok_or_else(|| Error::invalid_argument("the page closed before its capture"))?;
        let capture = capture_everything(page).await?;
        let path = folder.join(capture_name(url));
        let path = path.to_string_lossy().into_owned();
        settings.files.write_with(&path, |file| {
            let mut out = std::io::BufWriter::new(file);
            capture.to_writer(&mut out)?;
            std::io::Write::flush(&mut out).map_err(|e| pagesight::files::write_failed(&e))
        })?;
        record.capture = Some(path);
    }
    record.timings.perception = millis(started.elapsed());
    Ok(())
}

/// Why a try stopped short.
enum Stopped {
    Engine(Error),
    Robots(String),
    Cancelled,
}

impl From<Error> for Stopped {
    fn from(e: Error) -> Self {
        Stopped::Engine(e)
    }
}

/// A record's failure for an engine error.
fn failure(e: &Error) -> Failure {
    Failure {
        code: e.code().as_str().into(),
        message: e.message().into(),
    }
}

/// What a failed try means for the page and its browser, whose connection is still `open` or
/// not.
fn ending_of(e: &Error, open: bool) -> Ending {
    let message = e.message().to_ascii_lowercase();
    match e.code() {
        // The page's session ended (its tab closed, its renderer crashed) while the browser
        // answers on: the page is tried again, the browser kept.
        ErrorCode::BrowserClosed if open || message.contains("crash") => Ending::Retry,
        ErrorCode::BrowserClosed => Ending::BrowserFailed,
        ErrorCode::Timeout | ErrorCode::PageNavigating => Ending::Retry,
        _ if message.contains("crash") => Ending::Retry,
        _ => Ending::Done,
    }
}

/// The capture file's name for a page: readable from its URL, unique by a hash of it.
fn capture_name(url: &str) -> String {
    let readable: String = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    // FNV-1a: stable across runs and builds, which a resumed crawl's names need.
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{readable}-{hash:016x}.json.gz")
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_are_readable_stable_and_distinct() {
        let a = capture_name("https://example.com/a?x=1");
        assert!(a.starts_with("example.com_a_x_1-"), "{a}");
        assert!(a.ends_with(".json.gz"));
        assert_eq!(a, capture_name("https://example.com/a?x=1"));
        assert_ne!(a, capture_name("https://example.com/a?x=2"));
        let long = capture_name(&format!("https://example.com/{}", "a/".repeat(500)));
        assert!(long.len() < 120, "{long}");
    }
}
