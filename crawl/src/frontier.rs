//! The pages still to crawl: each URL admitted once (by its normalised form), links admitted
//! while they are within the crawl's scope, depth and page count, retries held back until
//! their time.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use tokio::time::Instant;
use url::Url;

use crate::scope::{address_of, normalize, Follow};

/// One page to crawl, with what its tries so far say.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    /// What is opened: the URL, a local file's `file://` URL.
    pub(crate) url: String,
    /// As given, or as found in a link: what its record says.
    pub(crate) given: String,
    /// How many links from a seed.
    pub(crate) depth: u32,
    /// The seed it was reached from: what `--follow` compares its links with.
    pub(crate) root: Arc<Url>,
    /// Tries so far.
    pub(crate) tries: u32,
    /// Tries whose browser failed (they do not count against `--retries`).
    pub(crate) browser_failures: u32,
    /// Not to be tried before then (a retry's backoff).
    pub(crate) not_before: Instant,
    /// The fleet member its last try failed on.
    pub(crate) avoid: Option<usize>,
}

/// What a seed became.
pub(crate) enum Seeded {
    /// Admitted.
    Queued,
    /// Done already (`--resume`), or given twice.
    Skipped,
    /// Not a URL or file that can be opened: the message says why.
    Invalid(String),
}

pub(crate) struct Frontier {
    ready: VecDeque<Job>,
    /// Retries waiting for their time.
    later: Vec<Job>,
    seen: HashSet<String>,
    admitted: usize,
    max_pages: Option<usize>,
    follow: Option<Follow>,
    max_depth: u32,
    roots: Vec<Arc<Url>>,
}

impl Frontier {
    /// A frontier that takes links as `follow` says (none without), up to `max_depth` links
    /// from a seed and `max_pages` pages in all; `done` are normalised URLs done already.
    pub(crate) fn new(
        follow: Option<Follow>,
        max_depth: u32,
        max_pages: Option<usize>,
        done: impl IntoIterator<Item = String>,
    ) -> Frontier {
        let seen: HashSet<String> = done.into_iter().collect();
        Frontier {
            ready: VecDeque::new(),
            later: Vec::new(),
            admitted: seen.len(),
            seen,
            max_pages,
            follow,
            max_depth,
            roots: Vec::new(),
        }
    }

    fn admit(&mut self, key: String) -> bool {
        if self.max_pages.is_some_and(|max| self.admitted >= max) || self.seen.contains(&key) {
            return false;
        }
        self.seen.insert(key);
        self.admitted += 1;
        true
    }

    /// A URL (or a local file) given to the crawl.
    pub(crate) fn seed(&mut self, given: &str, now: Instant) -> Seeded {
        let (address, key) = match address_of(given) {
            Ok(known) => known,
            Err(why) => return Seeded::Invalid(why),
        };
        let Ok(root) = Url::parse(&address) else {
            return Seeded::Invalid(format!("{given} is not a URL a page can be opened at"));
        };
        let root = Arc::new(root);
        self.roots.push(root.clone());
        if !self.admit(key) {
            return Seeded::Skipped;
        }
        self.ready.push_back(Job {
            url: address,
            given: given.to_owned(),
            depth: 0,
            root,
            tries: 0,
            browser_failures: 0,
            not_before: now,
            avoid: None,
        });
        Seeded::Queued
    }

    /// A link found on a page `depth` links from `root`; `None` for `root`: any seed's
    /// (links read back by `--resume`, whose seed is not recorded). Whether it was admitted.
    pub(crate) fn link(
        &mut self,
        url: &str,
        depth: u32,
        root: Option<&Arc<Url>>,
        now: Instant,
    ) -> bool {
        let Some(follow) = &self.follow else {
            return false;
        };
        if depth > self.max_depth {
            return false;
        }
        let Some(key) = normalize(url) else {
            return false;
        };
        let root = match root {
            Some(root) => follow.allows(root, &key).then(|| root.clone()),
            None => self.roots.iter().find(|r| follow.allows(r, &key)).cloned(),
        };
        let Some(root) = root else {
            return false;
        };
        if !self.admit(key.clone()) {
            return false;
        }
        self.ready.push_back(Job {
            given: key.clone(),
            url: key,
            depth,
            root,
            tries: 0,
            browser_failures: 0,
            not_before: now,
            avoid: None,
        });
        true
    }

    /// A job to try again once its time comes.
    pub(crate) fn retry(&mut self, job: Job) {
        self.later.push(job);
    }

    /// A job taken back because no browser had a free place.
    pub(crate) fn put_back(&mut self, job: Job) {
        self.ready.push_front(job);
    }

    /// The next job whose time has come.
    pub(crate) fn next(&mut self, now: Instant) -> Option<Job> {
        if let Some(i) = self.later.iter().position(|j| j.not_before <= now) {
            return Some(self.later.swap_remove(i));
        }
        self.ready.pop_front()
    }

    /// When the next retry's time comes, if one waits.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.later.iter().map(|j| j.not_before).min()
    }

    /// How many pages wait.
    pub(crate) fn len(&self) -> usize {
        self.ready.len() + self.later.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(f: &mut Frontier, now: Instant) -> Vec<String> {
        std::iter::from_fn(|| f.next(now)).map(|j| j.url).collect()
    }

    #[test]
    fn links_are_admitted_once_within_scope_depth_and_count() {
        let now = Instant::now();
        let mut f = Frontier::new(Some(Follow::SameOrigin), 1, Some(4), []);
        assert!(matches!(f.seed("http://127.0.0.1:1/", now), Seeded::Queued));
        assert!(matches!(
            f.seed("http://127.0.0.1:1/#top", now),
            Seeded::Skipped
        ));
        let root = f.next(now).expect("the seed").root;
        assert!(f.link("http://127.0.0.1:1/a", 1, Some(&root), now));
        assert!(
            !f.link("http://127.0.0.1:1/a#x", 1, Some(&root), now),
            "seen"
        );
        assert!(
            !f.link("http://127.0.0.1:2/b", 1, Some(&root), now),
            "another origin"
        );
        assert!(
            !f.link("http://127.0.0.1:1/deep", 2, Some(&root), now),
            "too deep"
        );
        assert!(f.link("http://127.0.0.1:1/b", 1, Some(&root), now));
        assert!(f.link("http://127.0.0.1:1/c", 1, Some(&root), now));
        assert!(
            !f.link("http://127.0.0.1:1/d", 1, Some(&root), now),
            "four pages in all"
        );
        assert_eq!(
            drain(&mut f, now),
            [
                "http://127.0.0.1:1/a",
                "http://127.0.0.1:1/b",
                "http://127.0.0.1:1/c"
            ]
        );
    }

    #[test]
    fn without_follow_no_link_is_taken_and_done_pages_are_skipped() {
        let now = Instant::now();
        let mut f = Frontier::new(None, 5, None, ["http://127.0.0.1:1/done".to_string()]);
        assert!(matches!(
            f.seed("http://127.0.0.1:1/done", now),
            Seeded::Skipped
        ));
        assert!(matches!(
            f.seed("no such file here", now),
            Seeded::Invalid(_)
        ));
        assert!(matches!(
            f.seed("http://127.0.0.1:1/new", now),
            Seeded::Queued
        ));
        let root = f.next(now).expect("the seed").root;
        assert!(!f.link("http://127.0.0.1:1/x", 1, Some(&root), now));
    }

    #[test]
    fn a_retry_waits_for_its_time() {
        let now = Instant::now();
        let mut f = Frontier::new(None, 0, None, []);
        assert!(matches!(f.seed("http://127.0.0.1:1/", now), Seeded::Queued));
        let mut job = f.next(now).expect("the seed");
        job.not_before = now + std::time::Duration::from_secs(1);
        f.retry(job);
        assert!(f.next(now).is_none());
        assert_eq!(f.next_due(), Some(now + std::time::Duration::from_secs(1)));
        assert!(f.next(now + std::time::Duration::from_secs(1)).is_some());
    }
}
