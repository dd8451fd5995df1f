//! The browsers a crawl drives: the one it launched, or the endpoints it was given (a
//! browserless or Selenium Grid deployment, Chromiums started with `--remote-debugging-port`
//! on other machines), each with a share of the crawl's pages in flight.
//!
//! Work goes to the browser with the most free places. A browser that fails — its connection
//! drops, it cannot be reached, it answers 429 (a hosted browser's queue is full) — is set
//! aside for a while that doubles with each failure in a row (1 s up to a minute) and its
//! pages go to the others; it is connected to again (a launched one launched again) once the
//! while is over.
//!
//! A crawl that shares the default context keeps each finished page's tab for the next page
//! of its browser ([`Tab`]): navigating a tab costs the browser the page alone, a new tab
//! costs it a renderer's start as well.

use std::sync::Arc;
use std::time::Duration;

use pagesight::browser::LaunchOptions;
use pagesight::transport::ConnectionOptions;
use pagesight::{Browser, Error, ErrorCode, Result, Session, Viewport};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Where a crawl's browsers come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A headless Chromium the crawl launches (and closes, profile and all).
    Launch,
    /// A running browser: `ws://…`, or `http://host:port` whose `/json/version` names its
    /// WebSocket; `headers` go with the WebSocket handshake (an endpoint's token).
    Remote {
        url: String,
        headers: Vec<(String, String)>,
    },
}

impl Endpoint {
    /// How records name the endpoint (`launched`, or its URL without query or credentials:
    /// a token in the query stays out of the output).
    pub fn label(&self) -> String {
        match self {
            Endpoint::Launch => "launched".into(),
            Endpoint::Remote { url, .. } => match url::Url::parse(url) {
                Ok(mut parsed) => {
                    parsed.set_query(None);
                    let _ = parsed.set_password(None);
                    let _ = parsed.set_username("");
                    parsed.into()
                }
                Err(_) => url.clone(),
            },
        }
    }
}

/// The longest a failing browser is set aside.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The longest connecting to a remote browser may take. A hosted browser whose sessions are
/// all taken (browserless) holds a new connection in its queue until one ends, and a crawl
/// holds its connections for as long as it runs: waiting would stall the crawl — and
/// `connect_all` with it — until the host's session timeout.
const CONNECT_LIMIT: Duration = Duration::from_secs(15);

/// How many pages a kept tab reads before it is closed for a new one: what a tab gathers in
/// the browser (its history, pages held for going back) stays bounded however long a crawl is.
const TAB_PAGES: u32 = 50;

/// How long closing a tab may take before it is left to the browser.
const CLOSE_LIMIT: Duration = Duration::from_secs(5);

/// A page's tab, kept for the next page of its browser when the crawl shares the default
/// context.
pub(crate) struct Tab {
    pub(crate) session: Session,
    /// Pages read in it so far.
    pub(crate) pages: u32,
    /// The member's connection it was opened on ([`Member::generation`]).
    generation: u64,
}

impl Tab {
    /// Closes the tab (its page, then the session; the browser stays).
    pub(crate) async fn close(mut self) {
        let session = &mut self.session;
        if session.current_page().is_some() {
            let _ = tokio::time::timeout(CLOSE_LIMIT, session.close()).await;
        }
        let _ = tokio::time::timeout(CLOSE_LIMIT, self.session.shutdown()).await;
    }
}

/// One browser of the fleet.
pub(crate) struct Member {
    pub(crate) endpoint: Endpoint,
    pub(crate) label: String,
    /// How many pages it may have in flight.
    capacity: usize,
    in_flight: usize,
    /// Set aside until then.
    down_until: Option<Instant>,
    failures_in_a_row: u32,
    /// The connection, made by the first page that needs it; shared with the pages in flight.
    browser: Arc<Mutex<Option<Browser>>>,
    viewport: Viewport,
    /// Counts the member's failures: a tab opened before the last one belongs to a
    /// connection that is gone.
    generation: u64,
    /// Tabs waiting for the member's next page.
    idle: Vec<Tab>,
}

/// The fleet: which browser takes the next page.
pub(crate) struct Fleet {
    members: Vec<Member>,
}

/// A place taken on a member for one page; given back with [`Fleet::release`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot(pub(crate) usize);

impl Fleet {
    /// A fleet of `endpoints` sharing `concurrency` pages in flight evenly.
    pub(crate) fn new(endpoints: &[Endpoint], concurrency: usize, viewport: Viewport) -> Fleet {
        let n = endpoints.len().max(1);
        let capacity = concurrency.div_ceil(n).max(1);
        let members = endpoints
            .iter()
            .map(|endpoint| Member {
                label: endpoint.label(),
                endpoint: endpoint.clone(),
                capacity,
                in_flight: 0,
                down_until: None,
                failures_in_a_row: 0,
                browser: Arc::new(Mutex::new(None)),
                viewport,
                generation: 0,
                idle: Vec::new(),
            })
            .collect();
        Fleet { members }
    }

    /// How many browsers the fleet has.
    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// Launches or connects to every browser, all at once; those that fail are set aside.
    /// Fails when none could be reached, saying why for each.
    pub(crate) async fn connect_all(&mut self, now: Instant) -> Result<()> {
        let handles: Vec<BrowserHandle> = (0..self.members.len())
            .filter_map(|i| self.handle(Slot(i)))
            .collect();
        let tries = handles
            .iter()
            .map(|h| async move { h.get().await.map(drop) });
        let results = futures_util::future::join_all(tries).await;
        let mut failures = Vec::new();
        for (i, result) in results.into_iter().enumerate() {
            if let Err(e) = result {
                failures.push(format!("{}: {}", self.members[i].label, e.message()));
                self.failed(Slot(i), now).await;
            }
        }
        if failures.len() == self.members.len() {
            return Err(Error::new(
                ErrorCode::BrowserClosed,
                format!("no browser to crawl with: {}", failures.join("; ")),
            ));
        }
        Ok(())
    }

    /// Takes a place on the member with the most free places that is not set aside,
    /// preferring any other member to `avoid` (where the page failed last).
    pub(crate) fn take(&mut self, avoid: Option<usize>, now: Instant) -> Option<Slot> {
        let free = |m: &Member| m.capacity.saturating_sub(m.in_flight);
        let usable = |m: &Member| free(m) > 0 && m.down_until.is_none_or(|until| until <= now);
        let best = |skip: Option<usize>| {
            self.members
                .iter()
                .enumerate()
                .filter(|(i, m)| Some(*i) != skip && usable(m))
                .max_by_key(|(i, m)| (free(m), std::cmp::Reverse(*i)))
                .map(|(i, _)| i)
        };
        let chosen = best(avoid).or_else(|| best(None))?;
        self.members[chosen].in_flight += 1;
        Some(Slot(chosen))
    }

    /// Gives a place back; `healthy` says whether its page found the browser working.
    pub(crate) fn release(&mut self, slot: Slot, healthy: bool) {
        let Some(member) = self.members.get_mut(slot.0) else {
            return;
        };
        member.in_flight = member.in_flight.saturating_sub(1);
        if healthy {
            member.failures_in_a_row = 0;
        }
    }

    /// Sets a member aside after its browser failed; its connection is dropped (a launched
    /// browser is killed and its profile removed) so the next page connects afresh.
    pub(crate) async fn failed(&mut self, slot: Slot, now: Instant) {
        let Some(member) = self.members.get_mut(slot.0) else {
            return;
        };
        member.failures_in_a_row = member.failures_in_a_row.saturating_add(1);
        let backoff = Duration::from_secs(1)
            .saturating_mul(1 << member.failures_in_a_row.min(6).saturating_sub(1))
            .min(MAX_BACKOFF);
        member.down_until = Some(now + backoff);
        member.generation += 1;
        let tabs = std::mem::take(&mut member.idle);
        let old = member.browser.lock().await.take();
        tokio::spawn(async move {
            for tab in tabs {
                tab.close().await;
            }
            if let Some(browser) = old {
                let _ = browser.close().await;
            }
        });
    }

    /// A tab kept on the member of `slot`, if one waits there.
    pub(crate) fn take_tab(&mut self, slot: Slot) -> Option<Tab> {
        self.members.get_mut(slot.0)?.idle.pop()
    }

    /// Keeps `tab` for the next page of its member, unless it has read its share of pages or
    /// belongs to a connection the member has since lost: then it is closed.
    pub(crate) fn keep_tab(&mut self, slot: Slot, tab: Tab) {
        match self.members.get_mut(slot.0) {
            Some(member)
                if tab.generation == member.generation
                    && tab.pages < TAB_PAGES
                    && !tab.session.browser().connection().is_closed() =>
            {
                member.idle.push(tab);
            }
            _ => {
                tokio::spawn(tab.close());
            }
        }
    }

    /// When the next member set aside comes back, if one is and none is usable now.
    pub(crate) fn next_back(&self, now: Instant) -> Option<Instant> {
        self.members
            .iter()
            .filter_map(|m| m.down_until.filter(|until| *until > now))
            .min()
    }

    /// What a page on `slot` needs to get its browser.
    pub(crate) fn handle(&self, slot: Slot) -> Option<BrowserHandle> {
        self.members.get(slot.0).map(|m| BrowserHandle {
            endpoint: m.endpoint.clone(),
            label: m.label.clone(),
            browser: m.browser.clone(),
            viewport: m.viewport,
            generation: m.generation,
        })
    }

    /// Closes every kept tab and every browser (launched ones with their profiles).
    pub(crate) async fn close(self) {
        for mut member in self.members {
            futures_util::future::join_all(member.idle.drain(..).map(Tab::close)).await;
            if let Some(browser) = member.browser.lock().await.take() {
                let _ = browser.close().await;
            }
        }
    }
}

/// A page's way to its member's browser.
#[derive(Clone)]
pub(crate) struct BrowserHandle {
    endpoint: Endpoint,
    pub(crate) label: String,
    browser: Arc<Mutex<Option<Browser>>>,
    viewport: Viewport,
    generation: u64,
}

impl BrowserHandle {
    /// `session`, opened on this handle's browser, as a tab the fleet may keep.
    pub(crate) fn tab(&self, session: Session) -> Tab {
        Tab {
            session,
            pages: 0,
            generation: self.generation,
        }
    }

    /// A handle on the member's browser, launching it or connecting to it first if no page
    /// has yet.
    pub(crate) async fn get(&self) -> Result<Browser> {
        let mut slot = self.browser.lock().await;
        if let Some(browser) = slot.as_ref() {
            return Ok(browser.share());
        }
        let browser = match &self.endpoint {
            Endpoint::Launch => {
                Browser::launch(LaunchOptions {
                    viewport: self.viewport,
                    ..LaunchOptions::default()
                })
                .await?
            }
            Endpoint::Remote { url, headers } => {
                let connecting = Browser::connect_with(
                    url,
                    ConnectionOptions {
                        headers: headers.clone(),
                        ..ConnectionOptions::default()
                    },
                );
                tokio::time::timeout(CONNECT_LIMIT, connecting)
                    .await
                    .map_err(|_| {
                        Error::new(
                            ErrorCode::BrowserClosed,
                            format!(
                                "{} did not answer the connection within {} s (a hosted \
                                 browser holding it in its queue?); set aside",
                                self.label,
                                CONNECT_LIMIT.as_secs()
                            ),
                        )
                    })??
            }
        };
        let shared = browser.share();
        *slot = Some(browser);
        Ok(shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(n: u16) -> Endpoint {
        Endpoint::Remote {
            url: format!("http://127.0.0.1:{n}"),
            headers: Vec::new(),
        }
    }

    #[test]
    fn pages_go_where_most_places_are_free() {
        let mut fleet = Fleet::new(&[remote(1), remote(2)], 4, Viewport::default());
        let now = Instant::now();
        let taken: Vec<usize> = (0..4)
            .map(|_| fleet.take(None, now).expect("a free place").0)
            .collect();
        assert_eq!(taken, [0, 1, 0, 1]);
        assert_eq!(fleet.take(None, now), None, "four places in all");
        fleet.release(Slot(1), true);
        assert_eq!(
            fleet.take(Some(1), now),
            Some(Slot(1)),
            "the only free place"
        );
    }

    #[tokio::test]
    async fn a_failed_browser_is_set_aside_and_its_pages_go_elsewhere() {
        let mut fleet = Fleet::new(&[remote(1), remote(2)], 4, Viewport::default());
        let now = Instant::now();
        let slot = fleet.take(None, now).expect("a free place");
        assert_eq!(slot, Slot(0));
        fleet.release(slot, false);
        fleet.failed(slot, now).await;
        for _ in 0..2 {
            assert_eq!(fleet.take(None, now), Some(Slot(1)));
        }
        assert_eq!(fleet.take(None, now), None, "the failed one is set aside");
        assert_eq!(fleet.next_back(now), Some(now + Duration::from_secs(1)));
        let later = now + Duration::from_secs(2);
        assert_eq!(fleet.take(None, later), Some(Slot(0)), "and comes back");
        // A second failure in a row sets it aside for longer.
        fleet.release(Slot(0), false);
        fleet.failed(Slot(0), later).await;
        assert_eq!(fleet.next_back(later), Some(later + Duration::from_secs(2)));
    }

    #[test]
    fn a_label_keeps_tokens_out() {
        let e = Endpoint::Remote {
            url: "ws://user:secret@example.com:3000/chromium?token=abc".into(),
            headers: Vec::new(),
        };
        assert_eq!(e.label(), "ws://example.com:3000/chromium");
    }
}
