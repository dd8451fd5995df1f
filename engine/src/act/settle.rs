//! Waiting for the page to settle after an action, so the result (and the snapshot, if asked
//! for) shows what the action did.
//!
//! The rule: if the main frame starts a navigation, wait for its load (at most
//! [`NAVIGATION_TIMEOUT`]). Otherwise watch the DOM for at least [`MIN_WINDOW`] and until it has
//! been quiet — no mutation — for [`QUIET`], at most [`DOM_CAP`] in all (a page that never stops
//! changing, a ticker or an animation written in script, still gets its answer, marked
//! `"settled": false`). The minimum window is what catches the common "click, then the page
//! reacts a few hundred ms later" (a debounce, a delayed render): a quiet rule alone would answer
//! before anything happened.
//!
//! How the DOM is watched: a `MutationObserver` on the document, installed before the action in
//! the actions' isolated world (see `scope.rs`) — never in the page's own world — and read by
//! polling that world (`Runtime.evaluate` with its context id, one small reply per poll). It was
//! chosen over CDP's own DOM events (`DOM.childNodeInserted`/`Removed`, `attributeModified`,
//! `characterDataModified`) because those only report mutations under nodes the client has
//! been sent: to see every mutation the whole tree must be requested first (`DOM.getDocument`
//! depth -1: ~0.3 s, ~5 MB on a long page; docs/chromium-facts.md) and every later mutation is then
//! streamed over the connection, so a page that mutates forever floods it. The observer costs
//! a few small round trips per action (install, one read per [`POLL`], remove) whatever the
//! page's size, and a timestamp update per mutation batch inside the page. A frame whose
//! isolated world cannot be created is not watched (no script is put in its main world): its
//! action waits the minimum window only.
//!
//! Every evaluation is bounded: a page whose main thread is busy (a long script, an endless
//! loop) answers none, in any world, until it is done. Reads end at the cap and the action is
//! marked `"settled": false`; installing and removing wait at most [`EVAL_LIMIT`].

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::browser::Page;
use crate::cdp::page::{
    FrameNavigatedEvent, FrameStartedLoadingEvent, FrameStoppedLoadingEvent, LoadEventFiredEvent,
};
use crate::cdp::runtime::EvaluateParams;
use crate::cdp::Event;
use crate::transport::EventStream;

/// The DOM must have been quiet this long.
const QUIET: Duration = Duration::from_millis(100);
/// The page is watched at least this long after an action.
const MIN_WINDOW: Duration = Duration::from_millis(400);
/// A page that keeps changing gets its answer after this long.
const DOM_CAP: Duration = Duration::from_secs(3);
/// How often the observers are read.
const POLL: Duration = Duration::from_millis(30);
/// How long a navigation an action started may take to load before the action returns anyway.
const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long installing or removing an observer may take. A page whose main thread is busy (a
/// long script, an endless loop) answers no evaluation until it is done, isolated world or not.
const EVAL_LIMIT: Duration = Duration::from_millis(500);

/// Installs the observer (replacing an earlier one) in the isolated world it is evaluated in.
const INSTALL_JS: &str = "(()=>{const o=globalThis.__quiet;if(o)o.observer.disconnect();\
    const s={last:performance.now()};\
    s.observer=new MutationObserver(()=>{s.last=performance.now();});\
    s.observer.observe(document,{subtree:true,childList:true,attributes:true,characterData:true});\
    globalThis.__quiet=s;return true})()";
/// Milliseconds since the last mutation, or `null` without an observer.
const IDLE_JS: &str = "(()=>{const s=globalThis.__quiet;return s?performance.now()-s.last:null})()";
const REMOVE_JS: &str =
    "(()=>{const s=globalThis.__quiet;if(s){s.observer.disconnect();delete globalThis.__quiet;}})()";

/// Evaluates `js` in an isolated world, returning its value (`None` when the world is gone or
/// did not answer within `limit`).
async fn eval(session: &Page, world: i64, js: &str, limit: Duration) -> Option<Value> {
    let params = EvaluateParams {
        context_id: Some(world),
        return_by_value: Some(true),
        silent: Some(true),
        ..EvaluateParams::new(js.to_string())
    };
    let reply = tokio::time::timeout(limit, session.send(&params))
        .await
        .ok()?
        .ok()?;
    if reply.exception_details.is_some() {
        return None;
    }
    Some(reply.result.value.unwrap_or(Value::Null))
}

/// Watches the page across one action: started before the action, waited on after it.
pub(crate) struct Settle {
    navigation: NavigationWatch,
    /// The documents watched for mutations: a session and its isolated world.
    observers: Vec<(Page, i64)>,
}

/// How the page settled.
pub(crate) struct Settled {
    /// `{"navigated":true,"url","loaded"}` when the main frame navigated or started to.
    pub navigation: Option<Map<String, Value>>,
    /// False when the DOM was still changing at [`DOM_CAP`].
    pub quiet: bool,
}

impl Settle {
    /// Starts watching the navigation events of the page's main frame (subscribed at once,
    /// so nothing the action causes is missed).
    pub(crate) fn start(page: &Page, main_frame: &str) -> Settle {
        Settle {
            navigation: NavigationWatch::new(page, main_frame),
            observers: Vec::new(),
        }
    }

    /// Starts watching the DOM of each `(session, world)` (the page's main frame and the
    /// action's frame). A document without an isolated world is not watched.
    pub(crate) async fn observe(&mut self, documents: &[(Page, Option<i64>)]) {
        for (session, world) in documents {
            let Some(world) = *world else { continue };
            let known = self
                .observers
                .iter()
                .any(|(s, w)| s.session_id() == session.session_id() && *w == world);
            if !known
                && eval(session, world, INSTALL_JS, EVAL_LIMIT).await == Some(Value::Bool(true))
            {
                self.observers.push((session.clone(), world));
            }
        }
    }

    /// Learns the main frame after the fact (see `answer_dialog`, which cannot ask before).
    pub(crate) fn set_main_frame(&mut self, main_frame: &str) {
        self.navigation.main_frame = main_frame.to_string();
    }

    /// Waits until the page settles (see the module docs).
    pub(crate) async fn wait(mut self) -> Settled {
        let start = Instant::now();
        let mut quiet = true;
        loop {
            self.navigation.drain();
            if self.navigation.started && !self.navigation.done {
                break;
            }
            let elapsed = start.elapsed();
            if elapsed >= DOM_CAP {
                quiet = self.observers.is_empty();
                break;
            }
            let mut idle = f64::INFINITY;
            let mut kept = Vec::with_capacity(self.observers.len());
            let mut busy = false;
            for (session, world) in std::mem::take(&mut self.observers) {
                // A read may take until the cap: a busy page answers late or not at all.
                let left = DOM_CAP.saturating_sub(start.elapsed());
                match eval(&session, world, IDLE_JS, left).await {
                    Some(v) => {
                        // A document that is gone (navigated or removed) is no longer watched.
                        if let Some(ms) = v.as_f64().filter(|ms| !ms.is_nan()) {
                            idle = idle.min(ms);
                            kept.push((session, world));
                        }
                    }
                    None if start.elapsed() >= DOM_CAP => {
                        // Still busy at the cap: not known to be quiet.
                        busy = true;
                        kept.push((session, world));
                    }
                    None => {}
                }
            }
            self.observers = kept;
            if busy {
                quiet = false;
                break;
            }
            if elapsed >= MIN_WINDOW && idle >= QUIET.as_secs_f64() * 1000.0 {
                break;
            }
            self.navigation.wait_for_event(POLL).await;
        }
        for (session, world) in &self.observers {
            let _ = eval(session, *world, REMOVE_JS, EVAL_LIMIT).await;
        }
        Settled {
            navigation: self.navigation.finish().await,
            quiet,
        }
    }
}

/// Watches the main frame for a navigation an action started.
struct NavigationWatch {
    events: EventStream,
    main_frame: String,
    started: bool,
    done: bool,
    url: Option<String>,
}

impl NavigationWatch {
    fn new(page: &Page, main_frame: &str) -> Self {
        NavigationWatch {
            events: page.connection().subscribe_methods(
                Some(page.session_id()),
                &[
                    FrameStartedLoadingEvent::METHOD,
                    FrameStoppedLoadingEvent::METHOD,
                    FrameNavigatedEvent::METHOD,
                    LoadEventFiredEvent::METHOD,
                ],
            ),
            main_frame: main_frame.to_string(),
            started: false,
            done: false,
            url: None,
        }
    }

    /// Takes in the events received so far.
    fn drain(&mut self) {
        while let Some(event) = self.events.try_next() {
            self.note(&event);
        }
    }

    /// Waits up to `limit` for the next event and takes it in.
    async fn wait_for_event(&mut self, limit: Duration) {
        if let Ok(Some(Ok(event))) = tokio::time::timeout(limit, self.events.next()).await {
            self.note(&event);
        }
    }

    /// Waits for a started navigation to load. Returns `{"navigated":true,"url","loaded"}` when
    /// the main frame navigated or started to.
    async fn finish(mut self) -> Option<Map<String, Value>> {
        let deadline = Instant::now() + NAVIGATION_TIMEOUT;
        loop {
            self.drain();
            if !self.started || self.done {
                break;
            }
            match tokio::time::timeout_at(deadline, self.events.next()).await {
                Ok(Some(Ok(event))) => self.note(&event),
                Ok(Some(Err(_))) => continue,
                Ok(None) | Err(_) => break,
            }
        }
        if !self.started && self.url.is_none() {
            return None;
        }
        let mut v = Map::new();
        v.insert("navigated".into(), Value::Bool(true));
        if let Some(u) = self.url {
            v.insert("url".into(), Value::String(u));
        }
        v.insert("loaded".into(), Value::Bool(!self.started || self.done));
        Some(v)
    }

    fn note(&mut self, event: &crate::transport::RawEvent) {
        let method = &*event.method;
        if method == FrameStartedLoadingEvent::METHOD {
            if event
                .parse::<FrameStartedLoadingEvent>()
                .is_ok_and(|e| e.frame_id == self.main_frame)
            {
                self.started = true;
                self.done = false;
            }
        } else if method == FrameStoppedLoadingEvent::METHOD {
            if self.started
                && event
                    .parse::<FrameStoppedLoadingEvent>()
                    .is_ok_and(|e| e.frame_id == self.main_frame)
            {
                self.done = true;
            }
        } else if method == LoadEventFiredEvent::METHOD {
            if self.started {
                self.done = true;
            }
        } else if method == FrameNavigatedEvent::METHOD {
            if let Ok(e) = event.parse::<FrameNavigatedEvent>() {
                if e.frame.id == self.main_frame && e.frame.parent_id.is_none() {
                    self.url = Some(e.frame.url);
                }
            }
        }
    }
}
