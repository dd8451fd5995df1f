//! What a page printed to its console and fetched over the network, kept per page so that an
//! agent can ask afterwards (`console_messages`, `console_message`, `network_requests`,
//! `network_request`): the debugging half of what a person sees in DevTools.
//!
//! Why it is opt-in (`SessionOptions::collect_devtools`): collecting means enabling the
//! `Runtime`, `Log` and `Network` domains on every page, and then Chromium builds and sends an
//! event for every console call (with previews of its arguments), every exception and every
//! request and response of the page, and keeps response bodies for `Network.getResponseBody`.
//! Snapshots and actions need none of it, so a session that does not ask for it pays nothing.
//!
//! Why a task per page: the events come whether or not anyone asks, and a subscription's queue
//! drops its oldest events when nobody reads it. So each collecting page has a task that reads
//! its events as they come and folds them into bounded buffers ([`MAX_MESSAGES`],
//! [`MAX_REQUESTS`]: the oldest go first, and how many went is reported). The task ends when
//! the page's session ends (the page closed, the browser went away) or when the page is
//! dropped by the session.
//!
//! Why attaching stays cheap: the three `enable` commands are written together and their
//! replies awaited together (one round trip when a page is opened or attached, none per
//! command), and they touch neither the isolated worlds the actions use (those are created by
//! name with `Page.createIsolatedWorld` and addressed by their context id, which
//! `Runtime.enable` does not change) nor the snapshot's calls.
//!
//! Ids are numbers counted from 1 per page in the order things happened, and stay the same
//! for the page's life (a dropped entry's id is never reused). Messages and requests are kept
//! across the page's navigations.

mod console;
mod network;

use std::sync::{Arc, Mutex, MutexGuard};

use crate::browser::Page;
use crate::cdp::{log, network as cdp_network, runtime, Event};
use crate::error::{Error, ErrorCode, Result};

pub use console::{ConsoleMessageDetail, ConsoleMessageList, ConsoleMessageSummary, StackFrame};
pub use network::{NetworkRequestDetail, NetworkRequestList, NetworkRequestSummary, Timing};

/// How many console messages a page keeps; older ones are dropped.
pub const MAX_MESSAGES: usize = 1000;
/// How many network requests a page keeps; older ones are dropped.
pub const MAX_REQUESTS: usize = 1000;
/// The most of a response body (bytes) `network_request` returns.
pub const MAX_BODY: usize = 100_000;

/// What a caller is told when a page collects nothing.
pub const NOT_COLLECTING: &str = "this session does not record console messages and network \
     requests; start it with collection on (`pagesight run --collect-devtools`, or \
     `SessionOptions::collect_devtools`): pages opened or attached from then on are recorded";

/// The events a page's collector folds in.
const METHODS: &[&str] = &[
    runtime::ConsoleAPICalledEvent::METHOD,
    runtime::ExceptionThrownEvent::METHOD,
    log::EntryAddedEvent::METHOD,
    cdp_network::RequestWillBeSentEvent::METHOD,
    cdp_network::ResponseReceivedEvent::METHOD,
    cdp_network::LoadingFinishedEvent::METHOD,
    cdp_network::LoadingFailedEvent::METHOD,
];

/// How much of the page's responses Chromium keeps for `Network.getResponseBody`, in all and
/// per response (bytes).
const CHROMIUM_BODY_BUFFER: i64 = 20_000_000;
const CHROMIUM_BODY_PER_RESPONSE: i64 = 5_000_000;

/// The buffers of one page.
#[derive(Debug, Default)]
struct Log {
    console: console::Console,
    network: network::Network,
}

/// The console messages and network requests of one page, collected by a task of its own
/// from the moment [`DevtoolsLog::start`] returns.
#[derive(Debug)]
pub struct DevtoolsLog {
    log: Arc<Mutex<Log>>,
    task: tokio::task::JoinHandle<()>,
    page: Page,
}

impl Drop for DevtoolsLog {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock(log: &Mutex<Log>) -> MutexGuard<'_, Log> {
    // The buffers are only appended to and trimmed: a panic elsewhere cannot leave them broken.
    log.lock().unwrap_or_else(|p| p.into_inner())
}

impl DevtoolsLog {
    /// Enables the `Runtime`, `Log` and `Network` domains on `page` and starts collecting its
    /// events. Subscribed before the domains are enabled, so nothing they report is missed
    /// (`Runtime.enable` and `Log.enable` also report what the page logged before).
    pub async fn start(page: &Page) -> Result<DevtoolsLog> {
        let mut events = page
            .connection()
            .subscribe_methods(Some(page.session_id()), METHODS);
        let network_params = cdp_network::EnableParams {
            max_total_buffer_size: Some(CHROMIUM_BODY_BUFFER),
            max_resource_buffer_size: Some(CHROMIUM_BODY_PER_RESPONSE),
            ..Default::default()
        };
        let runtime_on = page.send_now(&runtime::EnableParams {});
        let log_on = page.send_now(&log::EnableParams {});
        let network_on = page.send_now(&network_params);
        let (runtime_on, log_on, network_on) = tokio::join!(runtime_on, log_on, network_on);
        runtime_on?;
        log_on?;
        network_on?;
        let log = Arc::new(Mutex::new(Log::default()));
        let collected = Arc::clone(&log);
        let task = tokio::spawn(async move {
            loop {
                match events.next().await {
                    // The session or the connection ended: so does the page's record.
                    None => break,
                    Some(Err(e)) if e.code() == ErrorCode::BrowserClosed => break,
                    // Events lost to a full queue: the record goes on with what comes next.
                    Some(Err(_)) => continue,
                    Some(Ok(event)) => {
                        let mut log = lock(&collected);
                        let log = &mut *log;
                        if !log.console.apply(&event) {
                            log.network.apply(&event);
                        }
                    }
                }
            }
        });
        Ok(DevtoolsLog {
            log,
            task,
            page: page.clone(),
        })
    }

    /// One page of the console messages, oldest first, of the given `types` (all when empty).
    pub async fn console_messages(
        &self,
        types: &[String],
        paging: Paging,
    ) -> Result<ConsoleMessageList> {
        caught_up().await;
        let log = lock(&self.log);
        log.console.list(types, paging)
    }

    /// The console message `id`, with its arguments and stack trace.
    pub async fn console_message(&self, id: u64) -> Result<ConsoleMessageDetail> {
        caught_up().await;
        let log = lock(&self.log);
        log.console.get(id)
    }

    /// One page of the network requests, oldest first, of the given resource types (all when
    /// empty).
    pub async fn network_requests(
        &self,
        resource_types: &[String],
        paging: Paging,
    ) -> Result<NetworkRequestList> {
        caught_up().await;
        let log = lock(&self.log);
        log.network.list(resource_types, paging)
    }

    /// The network request `id` with its headers and timing, and its response body when
    /// Chromium still has it (at most [`MAX_BODY`] bytes of it).
    pub async fn network_request(&self, id: u64) -> Result<NetworkRequestDetail> {
        caught_up().await;
        let (mut detail, body_of) = {
            let log = lock(&self.log);
            log.network.get(id)?
        };
        if let Some(request_id) = body_of {
            network::add_body(&self.page, &request_id, &mut detail).await;
        }
        Ok(detail)
    }
}

/// Lets the collector tasks fold in the events the connection has already received, so that
/// what a command just made the page do is in the answer.
async fn caught_up() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}

/// Which part of a long list to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paging {
    /// How many entries a page of the list holds (`None`: all of them).
    pub page_size: Option<usize>,
    /// Which page, from 0.
    pub page_idx: usize,
}

impl Paging {
    /// The range of a list of `total` entries this paging selects, and how many pages there are.
    fn range(self, total: usize) -> Result<(std::ops::Range<usize>, usize)> {
        let Some(size) = self.page_size else {
            if self.page_idx > 0 {
                return Err(Error::invalid_argument(
                    "\"pageIdx\" needs a \"pageSize\"; without one the whole list is page 0",
                ));
            }
            return Ok((0..total, 1));
        };
        if size == 0 {
            return Err(Error::invalid_argument(
                "\"pageSize\" must be at least 1, e.g. {\"pageSize\":20,\"pageIdx\":0}",
            ));
        }
        let pages = total.div_ceil(size).max(1);
        let start = self.page_idx.saturating_mul(size).min(total);
        let end = start.saturating_add(size).min(total);
        Ok((start..end, pages))
    }
}

/// The error for an id no entry has.
fn unknown_id(what: &str, id: u64, oldest: Option<u64>, next: u64, list: &str) -> Error {
    let why = match oldest {
        _ if id == 0 || id >= next => "no such id was given on this page".to_string(),
        Some(first) if id < first => {
            format!(
                "it was dropped: a page keeps only the latest {what}s, the oldest now is {first}"
            )
        }
        None if next > 1 => format!("it was dropped: a page keeps only the latest {what}s"),
        _ => "no such id was given on this page".to_string(),
    };
    Error::new(
        ErrorCode::InvalidArgument,
        format!("there is no {what} {id} ({why}); list them with {{\"cmd\":\"{list}\"}}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_selects_whole_pages_and_counts_them() {
        let all = Paging::default();
        assert_eq!(all.range(5).ok(), Some((0..5, 1)));
        let p = |page_size, page_idx| Paging {
            page_size: Some(page_size),
            page_idx,
        };
        assert_eq!(p(2, 0).range(5).ok(), Some((0..2, 3)));
        assert_eq!(p(2, 2).range(5).ok(), Some((4..5, 3)));
        assert_eq!(p(2, 9).range(5).ok(), Some((5..5, 3)));
        assert_eq!(p(2, 0).range(0).ok(), Some((0..0, 1)));
        assert!(p(0, 0).range(5).is_err());
        let no_size = Paging {
            page_size: None,
            page_idx: 1,
        };
        assert!(no_size.range(5).is_err());
    }
}
