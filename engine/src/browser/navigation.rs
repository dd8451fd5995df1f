//! Telling whether a navigation the engine asked for is the document a frame ends up showing.
//!
//! Why not just wait for the `load` of the loader id `Page.navigate` answers with: a navigation
//! the old document started a moment before (a script's `location.replace` on a timer) can
//! still be in flight when ours starts. Chromium does not cancel it: it commits after ours and
//! replaces our document before its `load`. Waiting for our `load` then waits out the whole
//! timeout and reports the page asked for while the tab shows another one (seen on a page that
//! navigates itself every 50 ms: about one open in ten).
//!
//! So the wait follows what commits in the frame, in the order Chromium reports it:
//! - our document commits: its `load` is waited for, and then for the frame to stop loading.
//!   The old document's navigation can still be pending then and commit after our `load`; a
//!   frame stops loading only once no navigation of it is pending;
//! - a navigation started after ours committed commits: our document navigated itself (a
//!   client-side redirect), which is what a person would see load; its `load` is waited for;
//! - any other navigation commits after ours: one the old document started replaced ours, and
//!   the navigation is asked for again;
//! - another document commits first and the frame then stops loading with ours never
//!   committed: ours was dropped for it, and it is asked for again too.
//!
//! A redirect and a late navigation of the old document are told apart by
//! `Page.frameStartedNavigating`, which Chromium reports for ours too. A browser that never
//! reports it for ours cannot tell them apart: there every later commit is followed, as a
//! redirect.
//!
//! A page can navigate itself without end (each document to the next as it loads, or while
//! it is parsed): there is no last document to wait for. After [`SETTLED_REDIRECTS`]
//! redirects, the `load` of any document of the chain ends the wait at once, without waiting
//! for the frame to stop loading (it does not while the next navigation is pending; and a
//! document's `load` can be reported after the next one committed), and twice as many end it
//! as not loaded: the page keeps navigating.
//!
//! A wait can end earlier, at our document's `DOMContentLoaded` ([`WaitUntil::DomContentLoaded`],
//! what a crawler that reads the HTML wants: a page's images, fonts, frames and third-party
//! scripts can hold its `load` back by seconds). The order of commits is followed the same
//! way; what changes is the moment that ends it: the waited-for document is parsed and no
//! navigation started after ours committed is pending. A pending one (a script that redirects
//! while the page is parsed) is waited for, and then its document's `DOMContentLoaded`; one
//! that never commits is given up when the frame stops loading. A navigation the old document
//! started that commits after that moment is not seen: the page read is then the one that
//! replaced ours, which a snapshot reports as a navigation.

use std::collections::VecDeque;

/// How many redirects are followed before a document's `load` is taken as the end of the
/// wait even while the frame goes on loading. Redirect chains a person waits through are
/// short; a page that keeps navigating itself passes this in a fraction of a second.
const SETTLED_REDIRECTS: usize = 8;

/// How many navigations started after ours committed are remembered (the latest).
const STARTED_KEPT: usize = 64;

/// The moment of a document's life that ends the wait for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WaitUntil {
    /// `load`, and the frame done loading: the document's images, styles, frames and scripts
    /// loaded, and no navigation of the frame pending.
    #[default]
    Load,
    /// `DOMContentLoaded`: the document parsed and its deferred scripts run, and no navigation
    /// it started pending; images, fonts, frames and async scripts may still be loading.
    DomContentLoaded,
}

impl WaitUntil {
    /// Each wait and the name the command line and the bindings take for it.
    pub const NAMES: [(&'static str, WaitUntil); 2] = [
        ("load", WaitUntil::Load),
        ("domcontentloaded", WaitUntil::DomContentLoaded),
    ];
}

impl std::str::FromStr for WaitUntil {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        WaitUntil::NAMES
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, until)| until)
            .ok_or_else(|| {
                crate::Error::invalid_argument(format!(
                    "unknown wait {s:?}: use load or domcontentloaded"
                ))
            })
    }
}

/// What a navigation's watch makes of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep waiting.
    Wait,
    /// The document waited for fired `load` and the frame stopped loading.
    Loaded,
    /// Another document took the frame's place; this is its URL.
    Replaced(String),
    /// The document waited for navigated on past twice [`SETTLED_REDIRECTS`] redirects, none
    /// of them loaded since the first [`SETTLED_REDIRECTS`]: the page keeps navigating itself.
    KeptNavigating,
}

/// One navigation of one frame, watched from the moment it was asked for.
#[derive(Debug)]
pub(crate) struct NavigationWatch {
    frame: String,
    /// The loader id `Page.navigate` answered with.
    ours: String,
    /// Whether our document committed.
    committed: bool,
    /// Whether the browser reported our navigation's start (see the module docs).
    reports_starts: bool,
    /// Cross-document navigations of the frame started after ours committed (the latest
    /// [`STARTED_KEPT`]).
    started_after: VecDeque<String>,
    /// How many redirects were followed.
    redirects: usize,
    /// The document whose `load` ends the wait: ours, or one it navigated to.
    waited_for: String,
    /// The URL of another document that committed while ours had not yet.
    other_first: Option<String>,
    /// Whether the document waited for fired `load`.
    loaded: bool,
    /// Whether the frame stopped loading since that document committed.
    stopped: bool,
    /// What ends the wait.
    until: WaitUntil,
    /// Whether the document waited for fired `DOMContentLoaded`.
    parsed: bool,
    /// A cross-document navigation started after ours committed that has not committed yet.
    pending: Option<String>,
}

impl NavigationWatch {
    pub(crate) fn new(frame: &str, loader: &str) -> Self {
        NavigationWatch {
            frame: frame.to_owned(),
            ours: loader.to_owned(),
            committed: false,
            reports_starts: false,
            started_after: VecDeque::new(),
            redirects: 0,
            waited_for: loader.to_owned(),
            other_first: None,
            loaded: false,
            stopped: false,
            until: WaitUntil::Load,
            parsed: false,
            pending: None,
        }
    }

    /// The watch with `until` ending the wait instead of `load`.
    pub(crate) fn until(mut self, until: WaitUntil) -> Self {
        self.until = until;
        self
    }

    /// The loader id of the document whose `load` is waited for.
    pub(crate) fn waited_for(&self) -> &str {
        &self.waited_for
    }

    /// Whether that document reached the moment waited for (the frame may still have a
    /// navigation pending).
    pub(crate) fn loaded(&self) -> bool {
        match self.until {
            WaitUntil::Load => self.loaded,
            WaitUntil::DomContentLoaded => self.parsed || self.loaded,
        }
    }

    fn wait_for(&mut self, loader: &str) {
        self.waited_for = loader.to_owned();
        self.loaded = false;
        self.stopped = false;
        self.parsed = false;
    }

    /// `Page.frameStartedNavigating`; `cross_document`: the navigation will load a document.
    pub(crate) fn started(&mut self, frame: &str, loader: &str, cross_document: bool) {
        if frame != self.frame {
            return;
        }
        if loader == self.ours {
            self.reports_starts = true;
        } else if self.committed && cross_document {
            if self.started_after.len() == STARTED_KEPT {
                self.started_after.pop_front();
            }
            self.started_after.push_back(loader.to_owned());
            self.pending = Some(loader.to_owned());
        }
    }

    /// `Page.frameNavigated`: `loader`'s document committed in `frame`, at `url`.
    pub(crate) fn committed(&mut self, frame: &str, loader: &str, url: &str) -> Step {
        if frame != self.frame {
            return Step::Wait;
        }
        if loader == self.ours {
            self.committed = true;
            self.wait_for(loader);
            return Step::Wait;
        }
        if !self.committed {
            self.other_first = Some(url.to_owned());
            return Step::Wait;
        }
        let redirect = !self.reports_starts || self.started_after.iter().any(|l| l == loader);
        if self.pending.as_deref() == Some(loader) {
            self.pending = None;
        }
        if redirect {
            self.redirects += 1;
            if self.redirects > 2 * SETTLED_REDIRECTS {
                return Step::KeptNavigating;
            }
            self.wait_for(loader);
            Step::Wait
        } else {
            Step::Replaced(url.to_owned())
        }
    }

    /// `Page.frameStoppedLoading`.
    pub(crate) fn stopped_loading(&mut self, frame: &str) -> Step {
        if frame != self.frame {
            return Step::Wait;
        }
        if self.committed {
            self.stopped = true;
            return self.settled();
        }
        match &self.other_first {
            Some(url) => Step::Replaced(url.clone()),
            None => Step::Wait,
        }
    }

    /// `Page.lifecycleEvent`.
    pub(crate) fn lifecycle(&mut self, frame: &str, loader: &str, name: &str) -> Step {
        if frame != self.frame {
            return Step::Wait;
        }
        if name == "DOMContentLoaded" && loader == self.waited_for {
            self.parsed = true;
            return self.settled();
        }
        if name != "load" {
            return Step::Wait;
        }
        if loader == self.waited_for {
            self.loaded = true;
            if self.redirects >= SETTLED_REDIRECTS {
                return Step::Loaded;
            }
            return self.settled();
        }
        let of_the_chain = loader == self.ours || self.started_after.iter().any(|l| l == loader);
        if self.redirects >= SETTLED_REDIRECTS && of_the_chain {
            self.waited_for = loader.to_owned();
            self.loaded = true;
            return Step::Loaded;
        }
        Step::Wait
    }

    fn settled(&self) -> Step {
        let done = match self.until {
            WaitUntil::Load => self.loaded && self.stopped,
            // A frame that stopped loading has no navigation pending any more.
            WaitUntil::DomContentLoaded => {
                self.committed && self.parsed && (self.pending.is_none() || self.stopped)
            }
        };
        if done {
            Step::Loaded
        } else {
            Step::Wait
        }
    }
}

/// The next document of a frame, for a navigation whose loader id is not answered (a move in
/// the history, a reload): the first document that commits in the frame after the call is
/// the one waited for.
///
/// Why not wait for the next `load` of the page: a document restored from the back-forward
/// cache (a move back or forward on a site served over HTTP) fires none, it is shown as it was
/// left, and the wait took the whole timeout to report it as not loaded; and a `load` of the
/// document being left, still loading when the call was made, is not the new one's.
#[derive(Debug)]
pub(crate) struct NextDocument {
    frame: String,
    /// The loader id of the document that committed, once one has.
    committed: Option<String>,
}

impl NextDocument {
    pub(crate) fn new(frame: &str) -> Self {
        NextDocument {
            frame: frame.to_owned(),
            committed: None,
        }
    }

    /// `Page.frameNavigated`; `restored`: the document came back from the back-forward cache.
    pub(crate) fn committed(&mut self, frame: &str, loader: &str, restored: bool) -> Step {
        if frame != self.frame {
            return Step::Wait;
        }
        if restored {
            return Step::Loaded;
        }
        self.committed = Some(loader.to_owned());
        Step::Wait
    }

    /// `Page.navigatedWithinDocument`: the entry was one of the same document.
    pub(crate) fn within_document(&self, frame: &str) -> Step {
        if frame == self.frame && self.committed.is_none() {
            Step::Loaded
        } else {
            Step::Wait
        }
    }

    /// `Page.lifecycleEvent`.
    pub(crate) fn lifecycle(&self, frame: &str, loader: &str, name: &str) -> Step {
        if name == "load" && frame == self.frame && self.committed.as_deref() == Some(loader) {
            Step::Loaded
        } else {
            Step::Wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_document_loading_ends_the_wait_and_other_frames_do_not() {
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        assert_eq!(watch.committed("child", "ad", "https://ads/"), Step::Wait);
        assert_eq!(watch.lifecycle("child", "ad", "load"), Step::Wait);
        assert_eq!(
            watch.committed("main", "ours", "https://asked/"),
            Step::Wait
        );
        assert_eq!(
            watch.lifecycle("main", "ours", "DOMContentLoaded"),
            Step::Wait
        );
        assert_eq!(watch.lifecycle("main", "ours", "load"), Step::Wait);
        assert!(watch.loaded());
        assert_eq!(watch.stopped_loading("child"), Step::Wait);
        assert_eq!(watch.stopped_loading("main"), Step::Loaded);
        // The frame may stop loading first (nothing else pending): `load` then ends it.
        let mut watch = NavigationWatch::new("main", "ours");
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(watch.stopped_loading("main"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "ours", "load"), Step::Loaded);
    }

    #[test]
    fn a_navigation_of_the_old_document_committing_after_ours_replaced_it() {
        // The order Chromium reported on a page that navigates itself on a timer.
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.started("main", "old's", true);
        assert_eq!(
            watch.committed("main", "ours", "https://asked/"),
            Step::Wait
        );
        assert_eq!(
            watch.committed("main", "old's", "https://old/?n=2"),
            Step::Replaced("https://old/?n=2".into())
        );
        // Or after our `load`, while the frame had it pending.
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.started("main", "old's", true);
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(watch.lifecycle("main", "ours", "load"), Step::Wait);
        assert_eq!(
            watch.committed("main", "old's", "https://old/?n=2"),
            Step::Replaced("https://old/?n=2".into())
        );
        // Even when its start came before ours was asked for (not seen at all).
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(
            watch.committed("main", "unseen", "https://old/"),
            Step::Replaced("https://old/".into())
        );
    }

    #[test]
    fn a_navigation_our_document_started_is_followed_to_its_load() {
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.committed("main", "ours", "https://asked/");
        // A same-document navigation (a fragment) never commits a document.
        watch.started("main", "ours", false);
        watch.started("main", "redirect", true);
        assert_eq!(
            watch.committed("main", "redirect", "https://asked/login"),
            Step::Wait
        );
        assert_eq!(watch.waited_for(), "redirect");
        assert_eq!(watch.lifecycle("main", "ours", "load"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "redirect", "load"), Step::Wait);
        assert_eq!(watch.stopped_loading("main"), Step::Loaded);
    }

    /// Our document, committed, then `n` documents it navigated to, each started and committed
    /// by the one before, without a `load`.
    fn chain(n: usize) -> NavigationWatch {
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.committed("main", "ours", "https://asked/");
        for k in 1..=n {
            watch.started("main", &format!("next{k}"), true);
            assert_eq!(
                watch.committed("main", &format!("next{k}"), "https://asked/?n"),
                Step::Wait,
                "{k}"
            );
        }
        watch
    }

    #[test]
    fn a_page_that_navigates_itself_without_end_is_followed_only_so_far() {
        // A few redirects: a document's load waits for the frame to stop loading, as always.
        let mut watch = chain(SETTLED_REDIRECTS - 1);
        let last = format!("next{}", SETTLED_REDIRECTS - 1);
        assert_eq!(watch.lifecycle("main", &last, "load"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "next1", "load"), Step::Wait);
        // Past them, the load of the document waited for ends the wait at once...
        let mut watch = chain(SETTLED_REDIRECTS);
        let last = format!("next{SETTLED_REDIRECTS}");
        assert_eq!(watch.lifecycle("main", &last, "load"), Step::Loaded);
        // ...and so does a load of an earlier document of the chain reported late, which is
        // then the one given back; not a load of another frame or of a document not of it.
        let mut watch = chain(SETTLED_REDIRECTS + 2);
        assert_eq!(watch.lifecycle("child", "next3", "load"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "elsewhere", "load"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "next3", "load"), Step::Loaded);
        assert_eq!(watch.waited_for(), "next3");
        // With no load at all, the page is given up on.
        let mut watch = chain(2 * SETTLED_REDIRECTS);
        watch.started("main", "one-more", true);
        assert_eq!(
            watch.committed("main", "one-more", "https://asked/?n"),
            Step::KeptNavigating
        );
        // More starts than are remembered: the latest are.
        let mut watch = chain(1);
        for k in 0..STARTED_KEPT + 10 {
            watch.started("main", &format!("s{k}"), true);
        }
        let latest = format!("s{}", STARTED_KEPT + 9);
        assert_eq!(
            watch.committed("main", &latest, "https://asked/?s"),
            Step::Wait
        );
        assert_eq!(watch.waited_for(), latest);
    }

    #[test]
    fn another_document_first_is_waited_past_unless_ours_never_comes() {
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        assert_eq!(watch.committed("main", "old's", "https://old/"), Step::Wait);
        assert_eq!(
            watch.committed("main", "ours", "https://asked/"),
            Step::Wait
        );
        assert_eq!(watch.lifecycle("main", "ours", "load"), Step::Wait);
        assert_eq!(watch.stopped_loading("main"), Step::Loaded);

        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        watch.committed("main", "old's", "https://old/");
        assert_eq!(watch.stopped_loading("child"), Step::Wait);
        assert_eq!(
            watch.stopped_loading("main"),
            Step::Replaced("https://old/".into())
        );
        // Stopping without anything else committed (a download, an empty answer) is not a
        // replacement: the wait goes on as before.
        let mut watch = NavigationWatch::new("main", "ours");
        watch.started("main", "ours", true);
        assert_eq!(watch.stopped_loading("main"), Step::Wait);
    }

    #[test]
    fn a_browser_that_reports_no_starts_follows_every_later_commit() {
        let mut watch = NavigationWatch::new("main", "ours");
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(watch.committed("main", "next", "https://next/"), Step::Wait);
        assert_eq!(watch.lifecycle("main", "next", "load"), Step::Wait);
        assert_eq!(watch.stopped_loading("main"), Step::Loaded);
    }

    #[test]
    fn the_next_document_is_the_first_to_commit_and_a_restored_one_is_loaded() {
        let mut next = NextDocument::new("main");
        // The load of the document being left does not count.
        assert_eq!(next.lifecycle("main", "old", "load"), Step::Wait);
        assert_eq!(next.committed("child", "ad", false), Step::Wait);
        assert_eq!(next.committed("main", "new", false), Step::Wait);
        assert_eq!(next.lifecycle("main", "old", "load"), Step::Wait);
        assert_eq!(next.lifecycle("main", "new", "load"), Step::Loaded);

        let mut next = NextDocument::new("main");
        assert_eq!(next.committed("main", "kept", true), Step::Loaded);

        let next = NextDocument::new("main");
        assert_eq!(next.within_document("child"), Step::Wait);
        assert_eq!(next.within_document("main"), Step::Loaded);
    }

    fn parsed_watch() -> NavigationWatch {
        let mut watch = NavigationWatch::new("main", "ours").until(WaitUntil::DomContentLoaded);
        watch.started("main", "ours", true);
        watch
    }

    #[test]
    fn waiting_until_parsed_ends_at_our_documents_dom_content_loaded() {
        let mut watch = parsed_watch();
        // Another frame's, or the old document's, is not ours.
        assert_eq!(
            watch.lifecycle("main", "old", "DOMContentLoaded"),
            Step::Wait
        );
        assert_eq!(
            watch.committed("main", "ours", "https://asked/"),
            Step::Wait
        );
        assert_eq!(
            watch.lifecycle("child", "ours", "DOMContentLoaded"),
            Step::Wait
        );
        assert!(!watch.loaded());
        assert_eq!(
            watch.lifecycle("main", "ours", "DOMContentLoaded"),
            Step::Loaded
        );
        assert!(watch.loaded());
        // Waiting for `load` goes on past the same event.
        let mut watch = NavigationWatch::new("main", "ours");
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(
            watch.lifecycle("main", "ours", "DOMContentLoaded"),
            Step::Wait
        );
        assert!(!watch.loaded());
    }

    #[test]
    fn waiting_until_parsed_follows_a_redirect_started_while_parsing() {
        let mut watch = parsed_watch();
        watch.committed("main", "ours", "https://asked/");
        // A script of the document redirects while it is parsed.
        watch.started("main", "redirect", true);
        assert_eq!(
            watch.lifecycle("main", "ours", "DOMContentLoaded"),
            Step::Wait
        );
        assert_eq!(
            watch.committed("main", "redirect", "https://asked/login"),
            Step::Wait
        );
        assert_eq!(watch.waited_for(), "redirect");
        assert!(!watch.loaded());
        assert_eq!(
            watch.lifecycle("main", "redirect", "DOMContentLoaded"),
            Step::Loaded
        );
        // A navigation started that never commits (a download, a 204) is given up when the
        // frame stops loading.
        let mut watch = parsed_watch();
        watch.committed("main", "ours", "https://asked/");
        watch.started("main", "nothing", true);
        assert_eq!(
            watch.lifecycle("main", "ours", "DOMContentLoaded"),
            Step::Wait
        );
        assert_eq!(watch.stopped_loading("main"), Step::Loaded);
        // The old document's navigation committing first still replaces ours.
        let mut watch = parsed_watch();
        watch.started("main", "old's", true);
        watch.committed("main", "ours", "https://asked/");
        assert_eq!(
            watch.committed("main", "old's", "https://old/"),
            Step::Replaced("https://old/".into())
        );
    }

    #[test]
    fn wait_names_read_back() {
        for (name, until) in WaitUntil::NAMES {
            assert_eq!(name.parse::<WaitUntil>().ok(), Some(until));
        }
        assert!("networkidle".parse::<WaitUntil>().is_err());
    }
}
