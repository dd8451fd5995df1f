//! The connection to a browser: the only place in the engine that does I/O.
//!
//! Why it is shaped like this: many tasks (captures of several frames, actions, event waiters)
//! talk to one browser at once, and replies can be tens of megabytes. So one task per connection
//! owns the socket or pipe; callers hold a cheap [`Connection`] handle, register a one-shot slot
//! for their command id and wait on it with a timeout. The reader task reads only the envelope of
//! each frame ([`envelope`]) and hands the untouched frame to the waiter or to the event
//! subscribers ([`events`]); the typed parse happens on the caller's task. Flattened sessions
//! (`Target.attachToTarget` with `flatten: true`) share the connection and are routed by
//! `sessionId`.
//!
//! Failure is total and immediate: when the browser goes away (EOF, closed socket, killed
//! process) every waiting command and every subscriber gets `BROWSER_CLOSED` at once. When a
//! session detaches (its page closed or crashed), the commands and subscribers of that session
//! get `BROWSER_CLOSED` with a message naming the page. A CDP error reply is `PROTOCOL_ERROR`
//! carrying Chromium's code and message. A malformed frame is counted
//! ([`Connection::malformed_frames`]), logged to stderr only when `PAGESIGHT_DEBUG_CDP` is set,
//! and skipped.

pub mod envelope;
pub mod events;
pub(crate) mod pipe;
mod websocket;

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::Bytes;

use crate::cdp::{Command, Event};
use crate::error::{Error, ErrorCode, Result};
use envelope::{encode_request, parse_frame, CdpError, Incoming, Malformed};
use events::{EventQueue, Filter, Registration};

pub use envelope::RawJson;
pub use events::{EventStream, RawEvent, Subscription};

/// The id of a flattened CDP session (one attached target, usually a page).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(Arc<str>);

impl Serialize for SessionId {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SessionId {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        String::deserialize(deserializer).map(SessionId::from)
    }
}

impl SessionId {
    pub fn new(id: impl AsRef<str>) -> Self {
        SessionId(Arc::from(id.as_ref()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SessionId {
    fn from(id: &str) -> Self {
        SessionId::new(id)
    }
}

impl From<String> for SessionId {
    fn from(id: String) -> Self {
        SessionId(Arc::from(id))
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionId({})", self.0)
    }
}

/// The largest message read from a browser: 1 GiB. The largest replies are a long page's DOM
/// snapshot and accessibility tree (the benchmarks' page of 300k elements, about as large as
/// Chromium captures in reasonable time, makes a capture of 237 MiB in all); a message past
/// this is not a browser's, and reading it on would only take the memory. The connection
/// ends with `PROTOCOL_ERROR` naming the limit.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

fn message_too_large(len: usize) -> Error {
    Error::protocol(format!(
        "the browser sent a message of {len} bytes, past the limit of {} MiB that no reply of \
         a real page comes near; the connection was closed — check that the endpoint is a \
         Chromium DevTools endpoint",
        MAX_MESSAGE_BYTES >> 20
    ))
}

/// Tunables of a connection.
#[derive(Debug, Clone)]
pub struct ConnectionOptions {
    /// How long a command waits for its reply unless the call says otherwise. Default 30 s.
    pub command_timeout: Duration,
    /// How many events a subscription buffers before it drops the oldest. Default 1024.
    pub event_capacity: usize,
    /// Headers sent with the WebSocket handshake (an endpoint's token, for a hosted browser).
    pub headers: Vec<(String, String)>,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            command_timeout: Duration::from_secs(30),
            event_capacity: 1024,
            headers: Vec::new(),
        }
    }
}

/// A cheap, cloneable handle to one browser connection (WebSocket or pipe).
///
/// All methods may be called from many tasks at once. The connection stays open while a handle
/// exists (subscriptions do not keep it open) or until [`Connection::close`].
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    next_id: AtomicU64,
    options: ConnectionOptions,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.is_closed())
            .field("options", &self.inner.options)
            .finish()
    }
}

/// What a waiting command receives.
enum Reply {
    Result(RawJson),
    Cdp(CdpError),
    Failed(Error),
}

struct Pending {
    session: Option<SessionId>,
    reply: oneshot::Sender<Reply>,
}

/// A subscriber's queue with its subscription id.
type Subscriber = (u64, Arc<EventQueue>);

#[derive(Default)]
struct SessionRoutes {
    by_method: FxHashMap<Box<str>, SmallVec<[Subscriber; 2]>>,
    any: Vec<Subscriber>,
}

impl SessionRoutes {
    fn is_empty(&self) -> bool {
        self.by_method.is_empty() && self.any.is_empty()
    }

    fn drain_queues(self) -> impl Iterator<Item = Arc<EventQueue>> {
        self.by_method
            .into_values()
            .flatten()
            .chain(self.any)
            .map(|(_, queue)| queue)
    }
}

#[derive(Default)]
struct State {
    closed: Option<Error>,
    pending: FxHashMap<u64, Pending>,
    /// Routes per session id; `""` is the browser session.
    sessions: FxHashMap<Box<str>, SessionRoutes>,
    all: Vec<Subscriber>,
    /// Sessions that went away, with the error their calls get from then on.
    ended_sessions: FxHashMap<Box<str>, Error>,
    /// The keys of `ended_sessions`, oldest first.
    ended_order: std::collections::VecDeque<Box<str>>,
    next_subscription: u64,
}

/// The state shared by the handles, the subscriptions and the connection task.
pub(crate) struct Shared {
    state: Mutex<State>,
    malformed: AtomicU64,
    shutdown: watch::Sender<bool>,
}

fn session_key(session: Option<&SessionId>) -> &str {
    session.map_or("", SessionId::as_str)
}

fn session_ended(session: &str) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!(
            "the page's session {session} ended (the page was closed, crashed or detached); \
             open or select another page"
        ),
    )
}

/// How many ended sessions are remembered (see `Shared::end_session`).
const MAX_ENDED_SESSIONS: usize = 1024;

fn session_crashed(session: &str) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!(
            "the page's renderer crashed (session {session}); nothing more can be done in it: \
             open or select another page"
        ),
    )
}

fn debug_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("PAGESIGHT_DEBUG_CDP").is_some())
}

impl Shared {
    fn new() -> Arc<Self> {
        Arc::new(Shared {
            state: Mutex::new(State::default()),
            malformed: AtomicU64::new(0),
            shutdown: watch::Sender::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the maps consistent, so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts (and, with `PAGESIGHT_DEBUG_CDP` set, logs) a frame that was skipped.
    pub(crate) fn note_malformed(&self, why: &str) {
        self.malformed.fetch_add(1, Ordering::Relaxed);
        if debug_enabled() {
            eprintln!("pagesight: skipped a malformed CDP frame: {why}");
        }
    }

    /// Handles one incoming frame (a whole message without its delimiter).
    pub(crate) fn dispatch(&self, frame: Bytes) {
        match parse_frame(&frame) {
            Err(Malformed(why)) => {
                self.note_malformed(&why);
                if debug_enabled() {
                    let shown = &frame[..frame.len().min(200)];
                    eprintln!("pagesight: frame was: {}", String::from_utf8_lossy(shown));
                }
            }
            Ok(Incoming::Reply { id, outcome }) => {
                let pending = self.lock().pending.remove(&id);
                // No waiter: the command timed out or its caller went away. Nothing to do.
                if let Some(pending) = pending {
                    let _ = pending.reply.send(match outcome {
                        Ok(raw) => Reply::Result(raw),
                        Err(cdp) => Reply::Cdp(cdp),
                    });
                }
            }
            Ok(Incoming::Event {
                method,
                session_id,
                params,
            }) => {
                // A renderer that crashed never answers its session's commands: they fail now,
                // as those of a closed page do, rather than each waiting for its timeout.
                let crashed_session = (&*method == "Inspector.targetCrashed")
                    .then(|| session_id.as_deref().map(str::to_owned))
                    .flatten();
                let detached_session = if method == "Target.detachedFromTarget" {
                    #[derive(Deserialize)]
                    struct Detached {
                        #[serde(rename = "sessionId")]
                        session_id: Option<String>,
                    }
                    params
                        .parse::<Detached>("Target.detachedFromTarget")
                        .ok()
                        .and_then(|d| d.session_id)
                } else {
                    None
                };
                let queues: SmallVec<[Arc<EventQueue>; 4]> = {
                    let state = self.lock();
                    let mut queues = SmallVec::new();
                    if let Some(routes) = state.sessions.get(session_id.as_deref().unwrap_or("")) {
                        if let Some(list) = routes.by_method.get(&*method) {
                            queues.extend(list.iter().map(|(_, q)| q.clone()));
                        }
                        queues.extend(routes.any.iter().map(|(_, q)| q.clone()));
                    }
                    queues.extend(state.all.iter().map(|(_, q)| q.clone()));
                    queues
                };
                if !queues.is_empty() {
                    let event = RawEvent {
                        method: Arc::from(&*method),
                        session_id: session_id.as_deref().map(SessionId::new),
                        params,
                    };
                    for queue in queues {
                        queue.push(event.clone());
                    }
                }
                if let Some(session) = detached_session {
                    self.end_session(&session, session_ended(&session));
                }
                if let Some(session) = crashed_session {
                    self.end_session(&session, session_crashed(&session));
                }
            }
        }
    }

    /// A session went away: fail its commands, end its subscriptions, refuse new ones, each
    /// with `reason`. The first reason stays (a crashed page's session detaches later).
    fn end_session(&self, session: &str, reason: Error) {
        let (pending, routes, reason) = {
            let mut state = self.lock();
            if !state.ended_sessions.contains_key(session) {
                // Remembered for a while, not for ever: a page whose iframes come and go ends
                // a session every second or so for hours. A call on a session forgotten here
                // goes to the browser, which refuses it as a session it does not know.
                if state.ended_order.len() >= MAX_ENDED_SESSIONS {
                    if let Some(oldest) = state.ended_order.pop_front() {
                        state.ended_sessions.remove(&oldest);
                    }
                }
                state.ended_order.push_back(session.into());
            }
            let reason = state
                .ended_sessions
                .entry(session.into())
                .or_insert(reason)
                .clone();
            let ids: Vec<u64> = state
                .pending
                .iter()
                .filter(|(_, p)| p.session.as_ref().is_some_and(|s| s.as_str() == session))
                .map(|(id, _)| *id)
                .collect();
            let pending: Vec<Pending> = ids
                .into_iter()
                .filter_map(|id| state.pending.remove(&id))
                .collect();
            (pending, state.sessions.remove(session), reason)
        };
        for p in pending {
            let _ = p.reply.send(Reply::Failed(reason.clone()));
        }
        for queue in routes.into_iter().flat_map(SessionRoutes::drain_queues) {
            queue.close(reason.clone());
        }
    }

    /// Closes the connection: every waiter and subscriber gets `reason` now.
    pub(crate) fn close(&self, reason: Error) {
        let (pending, queues) = {
            let mut state = self.lock();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(reason.clone());
            let pending: Vec<Pending> = state.pending.drain().map(|(_, p)| p).collect();
            let mut queues: Vec<Arc<EventQueue>> = std::mem::take(&mut state.sessions)
                .into_values()
                .flat_map(SessionRoutes::drain_queues)
                .collect();
            queues.extend(std::mem::take(&mut state.all).into_iter().map(|(_, q)| q));
            (pending, queues)
        };
        for p in pending {
            let _ = p.reply.send(Reply::Failed(reason.clone()));
        }
        for queue in queues {
            queue.close(reason.clone());
        }
        self.shutdown.send_replace(true);
    }

    fn subscribe(self: &Arc<Self>, filter: Filter, capacity: usize) -> EventStream {
        let mut state = self.lock();
        let id = state.next_subscription;
        state.next_subscription += 1;
        let end = state.closed.clone().or_else(|| match &filter {
            Filter::Methods { session, .. } | Filter::Session(session) => {
                state.ended_sessions.get(&**session).cloned()
            }
            _ => None,
        });
        let queue = EventQueue::new(capacity, end.clone());
        if end.is_none() {
            match &filter {
                Filter::Methods { session, methods } => {
                    let routes = state.sessions.entry(session.clone()).or_default();
                    for method in methods {
                        routes
                            .by_method
                            .entry(method.clone())
                            .or_default()
                            .push((id, queue.clone()));
                    }
                }
                Filter::Session(session) => {
                    let routes = state.sessions.entry(session.clone()).or_default();
                    routes.any.push((id, queue.clone()));
                }
                Filter::All => state.all.push((id, queue.clone())),
            }
        }
        drop(state);
        EventStream::new(
            queue,
            Registration {
                shared: Arc::downgrade(self),
                id,
                filter,
            },
        )
    }

    pub(crate) fn unsubscribe(&self, id: u64, filter: &Filter) {
        let mut state = self.lock();
        match filter {
            Filter::Methods { session, methods } => {
                if let Some(routes) = state.sessions.get_mut(session) {
                    for method in methods {
                        if let Some(list) = routes.by_method.get_mut(method) {
                            list.retain(|(sub, _)| *sub != id);
                            if list.is_empty() {
                                routes.by_method.remove(method);
                            }
                        }
                    }
                    if routes.is_empty() {
                        state.sessions.remove(session);
                    }
                }
            }
            Filter::Session(session) => {
                if let Some(routes) = state.sessions.get_mut(session) {
                    routes.any.retain(|(sub, _)| *sub != id);
                    if routes.is_empty() {
                        state.sessions.remove(session);
                    }
                }
            }
            Filter::All => state.all.retain(|(sub, _)| *sub != id),
        }
    }
}

/// A command written to the browser, its reply not yet taken.
struct Sent<'a> {
    guard: PendingGuard<'a>,
    reply: oneshot::Receiver<Reply>,
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
}

/// Removes a pending command if its caller stops waiting (timeout or dropped future).
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: u64,
    armed: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.shared.lock().pending.remove(&self.id);
        }
    }
}

impl Connection {
    /// Starts the connection task around a reader and a writer future.
    fn start<R, W>(
        options: ConnectionOptions,
        read: impl FnOnce(Arc<Shared>) -> R,
        write: impl FnOnce(mpsc::UnboundedReceiver<Vec<u8>>) -> W,
    ) -> Connection
    where
        R: Future<Output = Error> + Send + 'static,
        W: Future<Output = Error> + Send + 'static,
    {
        let shared = Shared::new();
        let (outgoing, incoming) = mpsc::unbounded_channel();
        let reader = read(shared.clone());
        let writer = write(incoming);
        let mut shutdown = shared.shutdown.subscribe();
        let task_shared = shared.clone();
        tokio::spawn(async move {
            let reason = tokio::select! {
                reason = reader => reason,
                reason = writer => reason,
                _ = shutdown.wait_for(|closed| *closed) => Error::browser_closed(),
            };
            task_shared.close(reason);
        });
        Connection {
            inner: Arc::new(Inner {
                shared,
                outgoing,
                next_id: AtomicU64::new(1),
                options,
            }),
        }
    }

    /// A connection over a pair of byte streams carrying NUL-terminated JSON messages, the
    /// framing of `--remote-debugging-pipe` (read the browser's fd 4, write its fd 3).
    /// Must be called inside a tokio runtime.
    pub fn over_pipe<R, W>(reader: R, writer: W, options: ConnectionOptions) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Connection::start(
            options,
            |shared| pipe::read_frames(reader, shared),
            |rx| pipe::write_frames(writer, rx),
        )
    }

    /// Connects to a browser's DevTools WebSocket (`ws://host:port/devtools/browser/…`).
    pub async fn connect_websocket(url: &str, options: ConnectionOptions) -> Result<Connection> {
        let (reader, writer) = websocket::open(url, &options.headers).await?;
        Ok(Connection::start(
            options,
            |shared| websocket::read_frames(reader, shared),
            |rx| websocket::write_frames(writer, rx),
        ))
    }

    /// Sends a typed command and waits for its typed reply (default timeout).
    /// `session` is `None` for the browser session.
    pub async fn send<C: Command>(
        &self,
        session: Option<&SessionId>,
        params: &C,
    ) -> Result<C::Response> {
        self.send_with_timeout(session, params, self.inner.options.command_timeout)
            .await
    }

    /// [`Connection::send`] with its own timeout. On `TIMEOUT` the connection stays usable; a
    /// late reply is discarded.
    pub async fn send_with_timeout<C: Command>(
        &self,
        session: Option<&SessionId>,
        params: &C,
        timeout: Duration,
    ) -> Result<C::Response> {
        self.send_now(session, params, timeout).await
    }

    /// Sends any command by name with JSON params; the reply's `result` stays raw.
    pub async fn send_raw(
        &self,
        method: &str,
        session: Option<&SessionId>,
        params: &serde_json::Value,
    ) -> Result<RawJson> {
        self.send_raw_with_timeout(method, session, params, self.inner.options.command_timeout)
            .await
    }

    /// [`Connection::send_raw`] with its own timeout.
    pub async fn send_raw_with_timeout(
        &self,
        method: &str,
        session: Option<&SessionId>,
        params: &serde_json::Value,
        timeout: Duration,
    ) -> Result<RawJson> {
        self.send_raw_now(method, session, params, timeout).await
    }

    /// Writes a typed command now and returns the wait for its reply (`timeout` counts from
    /// now). Commands are written in the order of these calls, and Chromium answers the
    /// commands of one session in the order it receives them: what must be asked *after*
    /// something else (a check that nothing changed while data was read) is written after it
    /// here, whenever the replies are awaited.
    pub fn send_now<'a, C: Command>(
        &'a self,
        session: Option<&SessionId>,
        params: &C,
        timeout: Duration,
    ) -> impl Future<Output = Result<C::Response>> + Send + use<'a, C> {
        let reply = self.send_now_unparsed(session, params, timeout);
        async move { reply.await?.parse(C::METHOD) }
    }

    /// [`Connection::send_now`], the reply's `result` left raw (see [`RawJson::parse`]).
    pub fn send_now_unparsed<'a, C: Command>(
        &'a self,
        session: Option<&SessionId>,
        params: &C,
        timeout: Duration,
    ) -> impl Future<Output = Result<RawJson>> + Send + use<'a, C> {
        let sent = self.write(
            C::METHOD,
            session,
            |buf| serde_json::to_writer(buf, params),
            timeout,
        );
        async move { self.reply(sent?, C::METHOD).await }
    }

    /// [`Connection::send_now`] by name with JSON params; the reply's `result` stays raw.
    pub fn send_raw_now<'a>(
        &'a self,
        method: &'a str,
        session: Option<&SessionId>,
        params: &serde_json::Value,
        timeout: Duration,
    ) -> impl Future<Output = Result<RawJson>> + Send + use<'a> {
        let sent = if method.is_empty() {
            Err(Error::invalid_argument(
                "a CDP method name is required, e.g. \"Page.reload\"",
            ))
        } else {
            self.write(
                method,
                session,
                |buf| serde_json::to_writer(buf, params),
                timeout,
            )
        };
        async move { self.reply(sent?, method).await }
    }

    /// Registers a command's reply slot and queues the command for the writer.
    fn write(
        &self,
        method: &str,
        session: Option<&SessionId>,
        write_params: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
        timeout: Duration,
    ) -> Result<Sent<'_>> {
        let shared = &*self.inner.shared;
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let request = encode_request(id, method, session.map(SessionId::as_str), write_params)?;
        let (reply_tx, reply_rx) = oneshot::channel();
        {
            let mut state = shared.lock();
            if let Some(reason) = &state.closed {
                return Err(reason.clone());
            }
            if let Some(session) = session {
                if let Some(reason) = state.ended_sessions.get(session.as_str()) {
                    return Err(reason.clone());
                }
            }
            state.pending.insert(
                id,
                Pending {
                    session: session.cloned(),
                    reply: reply_tx,
                },
            );
        }
        let guard = PendingGuard {
            shared,
            id,
            armed: true,
        };
        if self.inner.outgoing.send(request).is_err() {
            return Err(self.closed_reason());
        }
        Ok(Sent {
            guard,
            reply: reply_rx,
            // No deadline when it lies beyond what the clock can represent.
            deadline: tokio::time::Instant::now().checked_add(timeout),
            timeout,
        })
    }

    /// Waits for the reply of a command [`Connection::write`] sent.
    async fn reply(&self, sent: Sent<'_>, method: &str) -> Result<RawJson> {
        let Sent {
            mut guard,
            reply,
            deadline,
            timeout,
        } = sent;
        let reply = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, reply).await,
            None => Ok(reply.await),
        };
        let reply = match reply {
            Err(_) => {
                return Err(Error::timeout(format_args!(
                    "the reply to {method} ({} ms); the connection is still usable: retry with \
                     a longer timeout or check what the page is doing",
                    timeout.as_millis()
                )))
            }
            Ok(Err(_)) => {
                guard.armed = false;
                return Err(self.closed_reason());
            }
            Ok(Ok(reply)) => reply,
        };
        guard.armed = false;
        match reply {
            Reply::Result(raw) => Ok(raw),
            Reply::Cdp(cdp) => Err(cdp.into_error(method)),
            Reply::Failed(reason) => Err(reason),
        }
    }

    fn closed_reason(&self) -> Error {
        self.inner
            .shared
            .lock()
            .closed
            .clone()
            .unwrap_or_else(Error::browser_closed)
    }

    /// Subscribes to the typed event `E` on `session` (`None`: the browser session).
    /// Subscribe before sending the command that triggers the event: nothing is missed.
    pub fn subscribe<E: Event>(&self, session: Option<&SessionId>) -> Subscription<E> {
        Subscription::new(self.subscribe_methods(session, &[E::METHOD]))
    }

    /// Subscribes to several event methods of one session, in arrival order.
    pub fn subscribe_methods(&self, session: Option<&SessionId>, methods: &[&str]) -> EventStream {
        self.inner.shared.subscribe(
            Filter::Methods {
                session: session_key(session).into(),
                methods: methods.iter().map(|m| Box::from(*m)).collect(),
            },
            self.inner.options.event_capacity,
        )
    }

    /// Subscribes to every event of one session (`None`: the browser session).
    pub fn subscribe_session(&self, session: Option<&SessionId>) -> EventStream {
        self.inner.shared.subscribe(
            Filter::Session(session_key(session).into()),
            self.inner.options.event_capacity,
        )
    }

    /// Subscribes to every event of every session.
    pub fn subscribe_all(&self) -> EventStream {
        self.inner
            .shared
            .subscribe(Filter::All, self.inner.options.event_capacity)
    }

    /// Whether the connection is closed (browser gone or [`Connection::close`] called).
    pub fn is_closed(&self) -> bool {
        self.inner.shared.lock().closed.is_some()
    }

    /// Why the connection closed, once it has (`BROWSER_CLOSED` with the reason).
    pub fn closed_error(&self) -> Option<Error> {
        self.inner.shared.lock().closed.clone()
    }

    /// Waits until the connection is closed.
    pub async fn closed(&self) {
        let mut shutdown = self.inner.shared.shutdown.subscribe();
        let _ = shutdown.wait_for(|closed| *closed).await;
    }

    /// Closes the connection now: waiters and subscribers get `BROWSER_CLOSED`, the socket or
    /// pipe is released. Does not close the browser itself.
    pub fn close(&self) {
        self.close_with(Error::new(
            ErrorCode::BrowserClosed,
            "the connection to the browser was closed by this program; launch or connect again",
        ));
    }

    /// Closes the connection with a specific reason (e.g. the browser process exited).
    pub(crate) fn close_with(&self, reason: Error) {
        self.inner.shared.close(reason);
    }

    /// How many incoming frames were skipped because they were not valid CDP messages.
    pub fn malformed_frames(&self) -> u64 {
        self.inner.shared.malformed.load(Ordering::Relaxed)
    }

    /// The default command timeout of this connection.
    pub fn command_timeout(&self) -> Duration {
        self.inner.options.command_timeout
    }
}

#[cfg(test)]
mod tests;
