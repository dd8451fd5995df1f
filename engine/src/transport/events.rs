//! Event subscriptions: per (session, method), per session, or everything.
//!
//! Why a queue of its own per subscriber: the reader task must never wait for a slow consumer
//! (that would stall every reply on the connection), yet a consumer must learn when it missed
//! something. Each subscription therefore owns a bounded queue; when it is full the *oldest* event
//! is dropped and the next call to `next()` reports how many were lost (before the events that
//! are still queued, which is where the gap is). Events are parsed into their typed form by the
//! subscriber, on its own task, and only if someone subscribed at all.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::Notify;

use super::envelope::RawJson;
use super::{SessionId, Shared};
use crate::cdp::Event;
use crate::error::{Error, ErrorCode, Result};

/// One event as received: its method, its session (`None` for the browser session) and its
/// still-raw params.
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub method: Arc<str>,
    pub session_id: Option<SessionId>,
    pub params: RawJson,
}

impl RawEvent {
    /// Parses the params as the typed event `E` (whose method should be `self.method`).
    pub fn parse<E: Event>(&self) -> Result<E> {
        self.params.parse(E::METHOD)
    }
}

enum QueueEnd {
    Open,
    /// Closed with a reason not yet reported to the subscriber.
    Failed(Error),
    /// Closed and reported (or closed quietly).
    Done,
}

struct QueueState {
    items: VecDeque<RawEvent>,
    capacity: usize,
    lagged: u64,
    end: QueueEnd,
}

/// The queue between the reader task and one subscriber.
pub(crate) struct EventQueue {
    state: Mutex<QueueState>,
    notify: Notify,
}

fn lock(m: &Mutex<QueueState>) -> MutexGuard<'_, QueueState> {
    // A panic while holding this lock cannot leave the queue inconsistent: keep going.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl EventQueue {
    pub(crate) fn new(capacity: usize, end: Option<Error>) -> Arc<Self> {
        Arc::new(EventQueue {
            state: Mutex::new(QueueState {
                items: VecDeque::new(),
                capacity: capacity.max(1),
                lagged: 0,
                end: match end {
                    Some(e) => QueueEnd::Failed(e),
                    None => QueueEnd::Open,
                },
            }),
            notify: Notify::new(),
        })
    }

    /// Never blocks: drops the oldest event when full.
    pub(crate) fn push(&self, event: RawEvent) {
        {
            let mut state = lock(&self.state);
            if !matches!(state.end, QueueEnd::Open) {
                return;
            }
            if state.items.len() >= state.capacity {
                state.items.pop_front();
                state.lagged += 1;
            }
            state.items.push_back(event);
        }
        self.notify.notify_one();
    }

    /// Ends the queue: queued events are still delivered, then `reason` once, then `None`.
    pub(crate) fn close(&self, reason: Error) {
        {
            let mut state = lock(&self.state);
            if matches!(state.end, QueueEnd::Open) {
                state.end = QueueEnd::Failed(reason);
            }
        }
        self.notify.notify_one();
    }

    async fn next(&self) -> Option<Result<RawEvent>> {
        loop {
            {
                let mut state = lock(&self.state);
                if state.lagged > 0 {
                    let lost = std::mem::take(&mut state.lagged);
                    let capacity = state.capacity;
                    return Some(Err(Error::new(
                        ErrorCode::ProtocolError,
                        format!(
                            "{lost} event(s) were dropped because this subscriber fell behind \
                             (queue capacity {capacity}); re-read the state you track, or \
                             consume events faster"
                        ),
                    )));
                }
                if let Some(event) = state.items.pop_front() {
                    return Some(Ok(event));
                }
                match std::mem::replace(&mut state.end, QueueEnd::Done) {
                    QueueEnd::Open => state.end = QueueEnd::Open,
                    QueueEnd::Failed(reason) => return Some(Err(reason)),
                    QueueEnd::Done => return None,
                }
            }
            self.notify.notified().await;
        }
    }

    fn try_next(&self) -> Option<RawEvent> {
        lock(&self.state).items.pop_front()
    }
}

/// What a subscription listens to.
#[derive(Debug, Clone)]
pub(crate) enum Filter {
    /// These methods on one session (`""` is the browser session).
    Methods {
        session: Box<str>,
        methods: Vec<Box<str>>,
    },
    /// Every event of one session.
    Session(Box<str>),
    /// Every event of every session.
    All,
}

/// The registration of a queue in the connection's routing table; removed on drop.
pub(crate) struct Registration {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) filter: Filter,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.unsubscribe(self.id, &self.filter);
        }
    }
}

/// A stream of raw events (several methods, a whole session, or everything).
///
/// `next()` yields the events in arrival order; `Err` when events were dropped because the queue
/// was full (then the stream goes on), or once when the connection or the session ended (then
/// `None`).
pub struct EventStream {
    queue: Arc<EventQueue>,
    _registration: Registration,
}

impl EventStream {
    pub(crate) fn new(queue: Arc<EventQueue>, registration: Registration) -> Self {
        EventStream {
            queue,
            _registration: registration,
        }
    }

    /// The next event; see the type docs.
    pub async fn next(&mut self) -> Option<Result<RawEvent>> {
        self.queue.next().await
    }

    /// The next already-queued event, without waiting.
    pub fn try_next(&mut self) -> Option<RawEvent> {
        self.queue.try_next()
    }
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("filter", &self._registration.filter)
            .finish()
    }
}

/// A typed subscription to one event on one session.
///
/// `next()` parses each event into `E` on the caller's task; see [`EventStream`] for the error
/// and end semantics.
pub struct Subscription<E: Event> {
    stream: EventStream,
    _event: PhantomData<fn() -> E>,
}

impl<E: Event> Subscription<E> {
    pub(crate) fn new(stream: EventStream) -> Self {
        Subscription {
            stream,
            _event: PhantomData,
        }
    }

    /// The next event, parsed.
    pub async fn next(&mut self) -> Option<Result<E>> {
        match self.stream.next().await? {
            Ok(event) => Some(event.parse()),
            Err(e) => Some(Err(e)),
        }
    }

    /// The next already-queued event, parsed, without waiting.
    pub fn try_next(&mut self) -> Option<Result<E>> {
        self.stream.try_next().map(|event| event.parse())
    }
}

impl<E: Event> std::fmt::Debug for Subscription<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("method", &E::METHOD)
            .finish()
    }
}
