//! One page (tab) of the browser, driven over its own flattened CDP session.
//!
//! Why a page owns so little: everything the engine does to a page is a CDP command on the
//! page's session, so a `Page` is just (connection, session, target) plus the two operations
//! every front end needs in the same way — navigate-and-wait-for-load and close.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use crate::cdp::{dom, emulation, network, page, runtime, target, Command, Event};
use crate::error::{Error, ErrorCode, Result};
use crate::transport::{Connection, EventStream, RawEvent, SessionId, Subscription};

use super::frames::{FrameTarget, FrameTargets};
use super::navigation::{NavigationWatch, NextDocument, Step, WaitUntil};
use super::Viewport;

/// How long a loaded page is given to render its first frames (see [`Page::rendered`]).
const FIRST_FRAMES: Duration = Duration::from_millis(250);

/// Resolves once two frames have been rendered.
const TWO_FRAMES_JS: &str =
    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))";

/// How many times [`Page::navigate`] asks for a page whose document another navigation
/// replaced before it loaded (see [`super::navigation`]).
const NAVIGATE_ATTEMPTS: usize = 5;

/// How long a document that fired `load` gives its frame to stop loading before it is taken
/// as loaded anyway (see [`super::navigation`]): the frame stops loading a moment after `load`
/// unless another navigation of it is pending.
const SETTLE: Duration = Duration::from_secs(1);

/// How one navigation of [`Page::navigate`] ended.
enum Landing {
    Done(LoadOutcome),
    /// Another document replaced ours; its URL.
    Replaced(String),
}

/// The next event of `events` before `until`; `None` when none came in time. Events dropped
/// from a lagging queue are passed over (the waits that read them look for what comes next); a
/// closed browser is an error.
async fn event_before(events: &mut EventStream, until: Instant) -> Result<Option<RawEvent>> {
    loop {
        match tokio::time::timeout_at(until, events.next()).await {
            Err(_) => return Ok(None),
            Ok(None) => return Err(Error::browser_closed()),
            Ok(Some(Err(e))) if e.code() == ErrorCode::BrowserClosed => return Err(e),
            Ok(Some(Err(_))) => continue,
            Ok(Some(Ok(event))) => return Ok(Some(event)),
        }
    }
}

/// The error Chromium reports for a navigation whose response has an error status and an
/// empty body (it shows an error page of its own): see [`Page::error_status`].
pub const HTTP_ERROR_PAGE: &str = "net::ERR_HTTP_RESPONSE_CODE_FAILURE";

/// What [`Page::navigate`] observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOutcome {
    /// The frame that navigated (the main frame); `None` if `Page.navigate` itself timed out.
    pub frame_id: Option<String>,
    /// The new document's loader id; `None` for a same-document navigation (e.g. `#fragment`),
    /// a download, or when `Page.navigate` timed out.
    pub loader_id: Option<String>,
    /// The `load` event did not arrive in time. The page is still usable: it may still be
    /// loading (a slow subresource) — snapshot it anyway or wait longer.
    pub timed_out: bool,
    /// The page kept navigating itself from one document to the next, none of which loaded,
    /// and the wait was given up (`timed_out` is set too): it shows whichever document it is
    /// on.
    pub kept_navigating: bool,
}

/// A page target attached over a flattened session.
#[derive(Debug, Clone)]
pub struct Page {
    connection: Connection,
    session_id: SessionId,
    target_id: String,
    /// Its out-of-process iframe targets (see [`super::frames`]).
    frames: FrameTargets,
}

impl Page {
    /// Attaches to `target_id` (flattened), enables the `Page` and `DOM` domains and lifecycle
    /// events, and sets the viewport if one is given.
    pub(crate) async fn attach(
        connection: &Connection,
        target_id: &str,
        viewport: Option<Viewport>,
    ) -> Result<Page> {
        let attached = connection
            .send(
                None,
                &target::AttachToTargetParams {
                    target_id: target_id.to_owned(),
                    flatten: Some(true),
                },
            )
            .await
            .map_err(|e| match e.code() {
                ErrorCode::ProtocolError => Error::invalid_argument(format!(
                    "could not attach to target {target_id}: {}; list the pages and pick an \
                     existing page target id",
                    e.message()
                )),
                _ => e,
            })?;
        let session_id = SessionId::from(attached.session_id);
        let frames = FrameTargets::start(connection, &session_id).await?;
        let page = Page {
            connection: connection.clone(),
            session_id,
            target_id: target_id.to_owned(),
            frames,
        };
        // Pipelined: one round trip for all four. The DOM domain reports each new document
        // (`DOM.documentUpdated`, which a capture watches for) once enabled, and only then.
        let enable_params = page::EnableParams::default();
        let lifecycle_params = page::SetLifecycleEventsEnabledParams { enabled: true };
        let dom_params = dom::EnableParams::default();
        let enable = page.send(&enable_params);
        let lifecycle = page.send(&lifecycle_params);
        let dom = page.send(&dom_params);
        let metrics = async {
            match viewport {
                Some(viewport) => page.set_viewport(viewport).await,
                None => Ok(()),
            }
        };
        let (enable, lifecycle, dom, metrics) = tokio::join!(enable, lifecycle, dom, metrics);
        enable?;
        lifecycle?;
        dom?;
        metrics?;
        Ok(page)
    }

    /// The same commands, sent to one of the page's out-of-process iframe targets instead: a
    /// renderer session of its own, with no frames of its own tracked. Actions use it to reach
    /// nodes inside such frames; input events still go to the page.
    pub(crate) fn frame_session(&self, frame: &FrameTarget) -> Page {
        Page {
            connection: self.connection.clone(),
            session_id: frame.session_id.clone(),
            target_id: frame.target_id.clone(),
            frames: FrameTargets::default(),
        }
    }

    /// The connection the page's session runs on.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The page's flattened session id.
    pub fn session_id(&self) -> &SessionId {
        &self.session_id
    }

    /// The page's target id (what `--target` takes).
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// The page's out-of-process iframe targets attached right now, parents before children.
    pub fn frame_targets(&self) -> Vec<FrameTarget> {
        self.frames.list()
    }

    /// Sends a typed command on the page's session (the connection's default timeout).
    pub async fn send<C: Command>(&self, params: &C) -> Result<C::Response> {
        self.connection.send(Some(&self.session_id), params).await
    }

    /// [`Connection::send_now`] on the page's session (the connection's default timeout): the
    /// command is written now, the reply awaited later.
    pub fn send_now<'a, C: Command>(
        &'a self,
        params: &C,
    ) -> impl Future<Output = Result<C::Response>> + Send + use<'a, C> {
        self.connection.send_now(
            Some(&self.session_id),
            params,
            self.connection.command_timeout(),
        )
    }

    /// Subscribes to a typed event of the page's session.
    pub fn subscribe<E: Event>(&self) -> Subscription<E> {
        self.connection.subscribe(Some(&self.session_id))
    }

    /// Sets the viewport (`Emulation.setDeviceMetricsOverride`).
    pub async fn set_viewport(&self, viewport: Viewport) -> Result<()> {
        if viewport.width == 0 || viewport.height == 0 || viewport.device_scale_factor <= 0.0 {
            return Err(Error::invalid_argument(format!(
                "invalid viewport {}x{} at device pixel ratio {}; use positive sizes, e.g. \
                 1280x800 at 1",
                viewport.width, viewport.height, viewport.device_scale_factor
            )));
        }
        self.send(&emulation::SetDeviceMetricsOverrideParams::new(
            i64::from(viewport.width),
            i64::from(viewport.height),
            viewport.device_scale_factor,
            false,
        ))
        .await
        .map(|_| ())
    }

    /// Waits, at most [`FIRST_FRAMES`] and not past `deadline`, for the loaded page to render
    /// two frames.
    ///
    /// Why: `load` may come before the page has rendered a frame, and some of what a person
    /// sees is decided only then: a `content-visibility: auto` section in view is skipped (no
    /// layout, no text) until a frame finds it near the view, and laid out in the next, so a
    /// snapshot taken at `load` could miss its buttons (2 of 8 fresh loads of a page whose first
    /// section was such). The frames are awaited with `requestAnimationFrame` in an isolated
    /// world, where the page's own script cannot replace it; a page that renders no frame (a
    /// background tab, a busy main thread) costs the wait's bound, never a hang.
    async fn rendered(&self, frame_id: &str, deadline: Instant) {
        let limit = FIRST_FRAMES.min(deadline.saturating_duration_since(Instant::now()));
        let frames = async {
            let world = create_world(&self.connection, Some(&self.session_id), frame_id, limit)
                .await
                .ok()?;
            let params = runtime::EvaluateParams {
                context_id: Some(world),
                await_promise: Some(true),
                silent: Some(true),
                ..runtime::EvaluateParams::new(TWO_FRAMES_JS.to_string())
            };
            self.send(&params).await.ok()
        };
        let _ = tokio::time::timeout(limit, frames).await;
    }

    /// Navigates the page to `url` and waits, up to `timeout` in all, for the main frame's
    /// `load` lifecycle event of *this* navigation (or of a document it navigated itself to),
    /// and then for its first frames to render (see `Page::rendered`).
    ///
    /// A navigation the old document had started that commits after ours and replaces it is
    /// answered by navigating again, a bounded number of times (see `browser/navigation.rs`).
    ///
    /// Fails with `NAVIGATION_FAILED` when Chromium reports an error (e.g.
    /// `net::ERR_CONNECTION_REFUSED`, an invalid URL), or when the old document's navigations
    /// replaced ours every time. A missing `load` event is not an error: the outcome says
    /// `timed_out` and the page stays usable.
    pub async fn navigate(&self, url: &str, timeout: Duration) -> Result<LoadOutcome> {
        self.navigate_until(url, timeout, WaitUntil::Load).await
    }

    /// [`Page::navigate`], with the wait ended by `until` instead of `load`.
    pub async fn navigate_until(
        &self,
        url: &str,
        timeout: Duration,
        until: WaitUntil,
    ) -> Result<LoadOutcome> {
        let deadline = Instant::now() + timeout;
        let mut replaced_by = String::new();
        for _ in 0..NAVIGATE_ATTEMPTS {
            match self.navigate_once(url, deadline, until).await? {
                Landing::Done(outcome) => return Ok(outcome),
                Landing::Replaced(other) => replaced_by = other,
            }
        }
        Err(Error::new(
            ErrorCode::NavigationFailed,
            format!(
                "{url} was replaced by {replaced_by} before it loaded, {NAVIGATE_ATTEMPTS} \
                 times: the page that was open kept navigating itself; open {url} again"
            ),
        ))
    }

    async fn navigate_once(
        &self,
        url: &str,
        deadline: Instant,
        until: WaitUntil,
    ) -> Result<Landing> {
        // Subscribed first, as one stream: the events may arrive before the reply to
        // Page.navigate, and what they mean depends on their order.
        let mut events = self.connection.subscribe_methods(
            Some(&self.session_id),
            &[
                page::LifecycleEventEvent::METHOD,
                page::FrameStartedNavigatingEvent::METHOD,
                page::FrameNavigatedEvent::METHOD,
                page::FrameStoppedLoadingEvent::METHOD,
            ],
        );
        let navigated = self
            .connection
            .send_with_timeout(
                Some(&self.session_id),
                &page::NavigateParams::new(url.to_owned()),
                deadline.saturating_duration_since(Instant::now()),
            )
            .await;
        let navigated = match navigated {
            Ok(navigated) => navigated,
            Err(e) if e.code() == ErrorCode::Timeout => {
                return Ok(Landing::Done(LoadOutcome {
                    frame_id: None,
                    loader_id: None,
                    timed_out: true,
                    kept_navigating: false,
                }))
            }
            Err(e) if e.code() == ErrorCode::ProtocolError => {
                return Err(Error::new(
                    ErrorCode::NavigationFailed,
                    format!("navigation to {url} failed: {}; check the URL", e.message()),
                ))
            }
            Err(e) => return Err(e),
        };
        if let Some(error_text) = navigated.error_text.filter(|t| !t.is_empty()) {
            return Err(Error::new(
                ErrorCode::NavigationFailed,
                format!(
                    "navigation to {url} failed: {error_text}; check the URL and that the \
                     server is reachable"
                ),
            ));
        }
        let frame_id = navigated.frame_id;
        let Some(loader_id) = navigated.loader_id else {
            return Ok(Landing::Done(LoadOutcome {
                frame_id: Some(frame_id),
                loader_id: None,
                timed_out: false,
                kept_navigating: false,
            }));
        };
        let mut watch = NavigationWatch::new(&frame_id, &loader_id).until(until);
        let outcome = |watch: &NavigationWatch, timed_out: bool| LoadOutcome {
            frame_id: Some(frame_id.clone()),
            loader_id: Some(watch.waited_for().to_owned()),
            timed_out,
            kept_navigating: false,
        };
        // Once our document loaded, how long the frame is given to stop loading.
        let mut settle_by = None;
        loop {
            let wait_until = settle_by.map_or(deadline, |s: Instant| s.min(deadline));
            let Some(event) = event_before(&mut events, wait_until).await? else {
                if watch.loaded() {
                    self.rendered(&frame_id, deadline).await;
                }
                return Ok(Landing::Done(outcome(&watch, !watch.loaded())));
            };
            // An event that does not parse is passed over, as one that never came.
            let step = match &*event.method {
                page::LifecycleEventEvent::METHOD => event
                    .parse::<page::LifecycleEventEvent>()
                    .map(|e| watch.lifecycle(&e.frame_id, &e.loader_id, &e.name)),
                page::FrameStartedNavigatingEvent::METHOD => {
                    event.parse::<page::FrameStartedNavigatingEvent>().map(|e| {
                        use page::FrameStartedNavigatingNavigationType as Type;
                        let same_document = matches!(
                            e.navigation_type,
                            Type::SameDocument | Type::HistorySameDocument
                        );
                        watch.started(&e.frame_id, &e.loader_id, !same_document);
                        Step::Wait
                    })
                }
                page::FrameNavigatedEvent::METHOD => event
                    .parse::<page::FrameNavigatedEvent>()
                    .map(|e| watch.committed(&e.frame.id, &e.frame.loader_id, &e.frame.url)),
                page::FrameStoppedLoadingEvent::METHOD => event
                    .parse::<page::FrameStoppedLoadingEvent>()
                    .map(|e| watch.stopped_loading(&e.frame_id)),
                _ => Ok(Step::Wait),
            };
            match step.unwrap_or(Step::Wait) {
                Step::Wait if watch.loaded() => {
                    settle_by.get_or_insert_with(|| Instant::now() + SETTLE);
                }
                Step::Wait => settle_by = None,
                Step::Loaded => {
                    self.rendered(&frame_id, deadline).await;
                    return Ok(Landing::Done(outcome(&watch, false)));
                }
                Step::Replaced(other) => return Ok(Landing::Replaced(other)),
                Step::KeptNavigating => {
                    return Ok(Landing::Done(LoadOutcome {
                        kept_navigating: true,
                        ..outcome(&watch, true)
                    }))
                }
            }
        }
    }

    /// The HTTP status `url` answers with, read by navigating to it once more with the
    /// `Network` domain on; `None` if no document response came within `timeout`.
    ///
    /// For a navigation Chromium failed with [`HTTP_ERROR_PAGE`]: an error status with an
    /// empty body, for which it shows an error page of its own and `Page.navigate` says no
    /// status. Only then, because the domain reports every request of the page while it is
    /// on. `network_on`: it is on already (the session records requests) and stays on.
    pub async fn error_status(
        &self,
        url: &str,
        timeout: Duration,
        network_on: bool,
    ) -> Result<Option<u16>> {
        let mut events = self.connection.subscribe_methods(
            Some(&self.session_id),
            &[network::ResponseReceivedEvent::METHOD],
        );
        if !network_on {
            self.send(&network::EnableParams::default()).await?;
        }
        let deadline = Instant::now() + timeout;
        let navigated = self
            .connection
            .send_with_timeout(
                Some(&self.session_id),
                &page::NavigateParams::new(url.to_owned()),
                timeout,
            )
            .await;
        let mut status = None;
        if let Ok(navigated) = navigated {
            while let Some(event) = event_before(&mut events, deadline).await? {
                let Ok(e) = event.parse::<network::ResponseReceivedEvent>() else {
                    continue;
                };
                if e.type_ == network::ResourceType::Document
                    && e.frame_id.as_deref() == Some(navigated.frame_id.as_str())
                {
                    status = u16::try_from(e.response.status).ok();
                    break;
                }
            }
        }
        if !network_on {
            let _ = self.send(&network::DisableParams {}).await;
        }
        Ok(status)
    }

    /// Goes to entry `entry_id` of the page's history (`Page.navigateToHistoryEntry`) and waits,
    /// up to `timeout`, for the document it shows (see `NextDocument` in
    /// `browser/navigation.rs`). Whether it was in place in time.
    pub async fn go_to_history_entry(&self, entry_id: i64, timeout: Duration) -> Result<bool> {
        let params = page::NavigateToHistoryEntryParams { entry_id };
        self.next_document(|| self.send(&params), timeout).await
    }

    /// Reloads the page (`Page.reload`) and waits, up to `timeout`, for the new document's
    /// `load`. Whether it came in time.
    pub async fn reload(&self, timeout: Duration) -> Result<bool> {
        let params = page::ReloadParams::default();
        self.next_document(|| self.send(&params), timeout).await
    }

    /// Sends `command` and waits, up to `timeout` in all, for the main frame's next document
    /// (see [`NextDocument`]), then for its first frames to render. Whether it was in place in
    /// time.
    async fn next_document<F, T>(
        &self,
        command: impl FnOnce() -> F,
        timeout: Duration,
    ) -> Result<bool>
    where
        F: Future<Output = Result<T>>,
    {
        let deadline = Instant::now() + timeout;
        // Subscribed before the command is written: the events may come before its reply.
        let mut events = self.connection.subscribe_methods(
            Some(&self.session_id),
            &[
                page::LifecycleEventEvent::METHOD,
                page::FrameNavigatedEvent::METHOD,
                page::NavigatedWithinDocumentEvent::METHOD,
            ],
        );
        command().await?;
        // A page target's main frame has the target's id.
        let frame = self.target_id.as_str();
        let mut next = NextDocument::new(frame);
        loop {
            let Some(event) = event_before(&mut events, deadline).await? else {
                return Ok(false);
            };
            let step = match &*event.method {
                page::LifecycleEventEvent::METHOD => event
                    .parse::<page::LifecycleEventEvent>()
                    .map(|e| next.lifecycle(&e.frame_id, &e.loader_id, &e.name)),
                page::FrameNavigatedEvent::METHOD => {
                    event.parse::<page::FrameNavigatedEvent>().map(|e| {
                        let restored = e.type_ == page::NavigationType::BackForwardCacheRestore;
                        next.committed(&e.frame.id, &e.frame.loader_id, restored)
                    })
                }
                page::NavigatedWithinDocumentEvent::METHOD => event
                    .parse::<page::NavigatedWithinDocumentEvent>()
                    .map(|e| next.within_document(&e.frame_id)),
                _ => Ok(Step::Wait),
            };
            if step.unwrap_or(Step::Wait) == Step::Loaded {
                self.rendered(frame, deadline).await;
                return Ok(true);
            }
        }
    }

    /// Closes the page (`Target.closeTarget`).
    pub async fn close(self) -> Result<()> {
        self.connection
            .send(
                None,
                &target::CloseTargetParams {
                    target_id: self.target_id.clone(),
                },
            )
            .await
            .map(|_| ())
    }
}

/// The isolated world the engine reads a page in (one per frame; Chromium reuses it by name):
/// the boxes' rectangles a live snapshot measures, the frames a load waits for.
const WORLD: &str = "pagesight-geometry";

/// Creates (or finds: Chromium keeps one world of a name per frame and document, and answers
/// the same context again) the isolated world the engine reads a page in, in the frame
/// `frame_id` of one renderer. Written now, so it can ride along with other requests; the
/// context comes with the reply.
pub fn create_world<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    frame_id: &str,
    timeout: Duration,
) -> impl Future<Output = Result<i64>> + Send + use<'a> {
    let params = page::CreateIsolatedWorldParams {
        world_name: Some(WORLD.to_string()),
        ..page::CreateIsolatedWorldParams::new(frame_id.to_string())
    };
    let reply = conn.send_now(session, &params, timeout);
    async move { Ok(reply.await?.execution_context_id) }
}
