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

/// What a navigation's watch makes of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep waiting.
    Wait,
    /// The document waited for fired `load` and the frame stopped loading.
    Loaded,
    /// Another document took the frame's place; this is its URL.
    Replaced(String),
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
    /// Cross-document navigations of the frame started after ours committed (the first 64: a
    /// page that starts more within one wait is not followed past them).
    started_after: Vec<String>,
    /// The document whose `load` ends the wait: ours, or one it navigated to.
    waited_for: String,
    /// The URL of another document that committed while ours had not yet.
    other_first: Option<String>,
    /// Whether the document waited for fired `load`.
    loaded: bool,
    /// Whether the frame stopped loading since that document committed.
    stopped: bool,
}

impl NavigationWatch {
    pub(crate) fn new(frame: &str, loader: &str) -> Self {
        NavigationWatch {
            frame: frame.to_owned(),
            ours: loader.to_owned(),
            committed: false,
            reports_starts: false,
            started_after: Vec::new(),
            waited_for: loader.to_owned(),
            other_first: None,
            loaded: false,
            stopped: false,
        }
    }

    /// The loader id of the document whose `load` is waited for.
    pub(crate) fn waited_for(&self) -> &str {
        &self.waited_for
    }

    /// Whether that document fired `load` (the frame may still have a navigation pending).
    pub(crate) fn loaded(&self) -> bool {
        self.loaded
    }

    fn wait_for(&mut self, loader: &str) {
        self.waited_for = loader.to_owned();
        self.loaded = false;
        self.stopped = false;
    }

    /// `Page.frameStartedNavigating`; `cross_document`: the navigation will load a document.
    pub(crate) fn started(&mut self, frame: &str, loader: &str, cross_document: bool) {
        if frame != self.frame {
            return;
        }
        if loader == self.ours {
            self.reports_starts = true;
        } else if self.committed && cross_document && self.started_after.len() < 64 {
            self.started_after.push(loader.to_owned());
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
        if redirect {
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
        if name == "load" && frame == self.frame && loader == self.waited_for {
            self.loaded = true;
            return self.settled();
        }
        Step::Wait
    }

    fn settled(&self) -> Step {
        if self.loaded && self.stopped {
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
}
