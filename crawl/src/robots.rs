//! robots.txt, read once per origin through the browser that crawls it, and asked before
//! each page of a crawl that follows links.
//!
//! Why through the browser and not a client of our own: the browser is what reaches the site
//! (it may sit on another machine, behind its own proxy, with its own certificates), so it
//! reads robots.txt from where it crawls. How a file is answered follows RFC 9309: a 4xx
//! status means no rules (everything allowed), a 5xx status or an unreachable server means
//! the site cannot say, so nothing is crawled from it; rules are matched for the agent
//! `pagesight`, else `*`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pagesight::command::Evaluate;
use pagesight::Session;
use texting_robots::Robot;
use tokio::sync::OnceCell;
use url::Url;

/// The name matched against robots.txt's `User-agent` lines.
pub const AGENT: &str = "pagesight";

/// What an origin's robots.txt says.
#[derive(Debug)]
enum Rules {
    AllowAll,
    DisallowAll(String),
    Parsed(Box<Robot>),
}

/// robots.txt of every origin a crawl met, each read once however many pages ask at once.
#[derive(Default)]
pub(crate) struct RobotsCache {
    by_origin: Mutex<HashMap<String, Arc<OnceCell<Rules>>>>,
}

/// Whether a page may be crawled, and if not, why.
pub(crate) enum Verdict {
    Allowed,
    Disallowed(String),
}

impl RobotsCache {
    /// Whether `url` may be crawled; reads its origin's robots.txt with `session` (navigating
    /// its page there) when no page of the origin asked before. `read` is set when it did.
    pub(crate) async fn check(&self, url: &str, session: &mut Session, read: &mut bool) -> Verdict {
        let Ok(parsed) = Url::parse(url) else {
            return Verdict::Allowed;
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return Verdict::Allowed;
        }
        let origin = parsed.origin().ascii_serialization();
        let cell = {
            let mut map = match self.by_origin.lock() {
                Ok(map) => map,
                Err(poisoned) => poisoned.into_inner(),
            };
            map.entry(origin.clone()).or_default().clone()
        };
        let rules = cell
            .get_or_init(|| async {
                *read = true;
                fetch(&origin, session).await
            })
            .await;
        match rules {
            Rules::AllowAll => Verdict::Allowed,
            Rules::DisallowAll(why) => Verdict::Disallowed(why.clone()),
            Rules::Parsed(robot) if robot.allowed(url) => Verdict::Allowed,
            Rules::Parsed(_) => Verdict::Disallowed(format!(
                "{origin}/robots.txt disallows this page for {AGENT} (--ignore-robots crawls it \
                 anyway)"
            )),
        }
    }
}

async fn fetch(origin: &str, session: &mut Session) -> Rules {
    let address = format!("{origin}/robots.txt");
    let opened = match session.open(&address).await {
        Ok(opened) => opened,
        Err(e) => {
            return Rules::DisallowAll(format!(
                "{address} could not be read ({e}); a site that cannot say what it allows is \
                 not crawled (--ignore-robots crawls it anyway)"
            ))
        }
    };
    match opened.status {
        Some(status) if (400..500).contains(&status) => return Rules::AllowAll,
        Some(status) if status >= 500 => {
            return Rules::DisallowAll(format!(
                "{address} answered HTTP {status}; a site that cannot say what it allows is \
                 not crawled (--ignore-robots crawls it anyway)"
            ))
        }
        _ => {}
    }
    let read = session
        .evaluate(&Evaluate {
            function: "() => document.body ? document.body.innerText : ''".into(),
            args: Vec::new(),
        })
        .await;
    let text = match read {
        Ok(evaluated) => evaluated
            .value
            .as_str()
            .map(str::to_owned)
            .unwrap_or_default(),
        Err(e) => {
            return Rules::DisallowAll(format!(
                "{address} could not be read ({e}); --ignore-robots crawls the site anyway"
            ))
        }
    };
    match Robot::new(AGENT, text.as_bytes()) {
        Ok(robot) => Rules::Parsed(Box::new(robot)),
        // A file that does not parse says nothing a crawler can follow.
        Err(_) => Rules::AllowAll,
    }
}
