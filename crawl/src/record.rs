//! What a crawl says about each page: one [`PageRecord`] per URL, written as one JSON line.
//! The field names are part of the contract (`docs/crawl.md`).

use pagesight::extract::Link;
use serde::{Deserialize, Serialize};

/// The codes a record's `error` can carry besides the engine's own (`TIMEOUT`,
/// `BROWSER_CLOSED`, `NAVIGATION_FAILED`, …).
pub mod codes {
    /// The site's robots.txt does not allow the page (`--ignore-robots` crawls it anyway).
    pub const ROBOTS_DISALLOWED: &str = "ROBOTS_DISALLOWED";
    /// The crawl was stopped (a second Ctrl-C) while the page was in flight; `--resume`
    /// visits it again.
    pub const CANCELLED: &str = "CANCELLED";
    /// The crawl failed inside itself on this page (a bug: worth a report); the crawl went
    /// on with the other pages.
    pub const INTERNAL_ERROR: &str = "INTERNAL_ERROR";
}

/// One page of a crawl.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRecord {
    /// The URL as given (or as found in a link, absolute and without its fragment).
    pub url: String,
    /// Where the page ended up, after redirects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The HTTP status of the document (a 404 page is a page, with status 404); absent for
    /// documents not loaded over HTTP, and when the page could not be opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The document's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the page's `load` event came in time; absent when it could not be opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// Why the page may not be as expected (it did not finish loading, it kept navigating).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// How many links away from a seed the page is (0: a seed); only when following links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// How long each stage took.
    pub timings: Timings,
    /// `--extract markdown`: the main content as markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// `--extract text`: the main content as plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `--snapshot a11y|dom`: the snapshot an agent would read on opening the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// `--links` (and always when following links): the page's links, absolute, each once,
    /// with the uid of the anchor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Link>>,
    /// `--capture DIR`: the capture file written for the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<String>,
    /// How many times the page was tried (more than 1 after retries).
    pub attempts: u32,
    /// The browser endpoint of the last try (`launched` for the browser the crawl started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    /// Why the page has no content; absent when it was crawled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
}

/// How long the stages of a page took, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Opening the page: from the navigation's start to the document's `load` and its first
    /// rendered frame, and reading where it arrived (URL, title, status).
    pub navigation: u64,
    /// Reading the site's robots.txt, the first time a page of its origin is crawled.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub robots: u64,
    /// What was asked of the page: extraction, links, snapshot, capture.
    pub perception: u64,
    /// The whole try, including opening and closing its browser context.
    pub total: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a page has no content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The engine's error code, or one of [`codes`].
    pub code: String,
    /// What happened, for a person.
    pub message: String,
}

impl PageRecord {
    /// Whether the page is done for good: a `--resume` does not visit it again.
    pub fn is_final(&self) -> bool {
        self.error
            .as_ref()
            .is_none_or(|e| e.code != codes::CANCELLED)
    }
}
