//! The out-of-process iframes of one page: which iframe targets exist right now, and over which
//! session each one is driven.
//!
//! Why this is tracked from events rather than asked for at capture time: a cross-site frame is
//! a separate renderer with its own CDP target, and the page's own `captureSnapshot` stops at its
//! `<iframe>` element. Chromium only hands out those targets through `Target.setAutoAttach`
//! (flattened, so each gets a session on the same connection): it announces every existing and
//! future iframe target with `Target.attachedToTarget` on the *parent's* session and withdraws it
//! with `Target.detachedFromTarget`. Auto-attach is set again on every iframe session, because a
//! frame nested in an out-of-process frame is announced by that frame's session, not the page's.
//! A capture then reads the current list and captures every frame in parallel — each renderer
//! answers on its own, so the frames cost about as much as the slowest one.
//!
//! Only `iframe` targets are attached (a target filter); anything else Chromium might announce
//! (workers) is detached at once, so it costs nothing. One small task per tracked session listens
//! for the events; it ends when its session or the connection ends.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::cdp::target::{
    AttachedToTargetEvent, DetachFromTargetParams, DetachedFromTargetEvent, FilterEntry,
    SetAutoAttachParams,
};
use crate::error::{ErrorCode, Result};
use crate::transport::{Connection, SessionId};

/// Deepest nesting of out-of-process frames that is followed (hostile pages can nest forever).
const MAX_NESTING: usize = 16;
/// Most iframe targets tracked for one page.
const MAX_TARGETS: usize = 256;

/// One out-of-process iframe target of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameTarget {
    /// The target id (Chromium uses the frame id).
    pub target_id: String,
    /// Its flattened session.
    pub session_id: SessionId,
    /// The session of the target that holds the owner `<iframe>`: the page's, or another
    /// iframe target's.
    pub parent_session: SessionId,
    /// The frame's URL when it was attached.
    pub url: String,
}

#[derive(Debug, Default)]
struct State {
    /// In attach order, which keeps the order of captures (and so of uids) stable.
    targets: Vec<FrameTarget>,
}

/// The live list of a page's out-of-process iframe targets (cheap to clone).
#[derive(Clone, Default)]
pub struct FrameTargets {
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for FrameTargets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameTargets")
            .field("targets", &self.lock().targets.len())
            .finish()
    }
}

fn auto_attach() -> SetAutoAttachParams {
    SetAutoAttachParams {
        auto_attach: true,
        wait_for_debugger_on_start: false,
        flatten: Some(true),
        filter: Some(vec![
            FilterEntry {
                exclude: Some(false),
                type_: Some("iframe".to_string()),
            },
            FilterEntry {
                exclude: Some(true),
                ..Default::default()
            },
        ]),
    }
}

impl FrameTargets {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the list consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts tracking the iframe targets under the page session `page`: listens first, then
    /// turns auto-attach on (Chromium then announces the frames that already exist).
    pub(crate) async fn start(connection: &Connection, page: &SessionId) -> Result<FrameTargets> {
        let frames = FrameTargets::default();
        frames.watch(connection, page, 0).await?;
        Ok(frames)
    }

    /// The iframe targets attached right now, parents before their children.
    pub fn list(&self) -> Vec<FrameTarget> {
        self.lock().targets.clone()
    }

    /// Subscribes to the attach events of `session`, spawns their listener, and enables
    /// auto-attach on it.
    async fn watch(
        &self,
        connection: &Connection,
        session: &SessionId,
        depth: usize,
    ) -> Result<()> {
        let mut attached = connection.subscribe::<AttachedToTargetEvent>(Some(session));
        let mut detached = connection.subscribe::<DetachedFromTargetEvent>(Some(session));
        let this = self.clone();
        let conn = connection.clone();
        let parent = session.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    event = attached.next() => match event {
                        Some(Ok(event)) => this.on_attached(&conn, &parent, event, depth),
                        Some(Err(e)) if e.code() == ErrorCode::BrowserClosed => break,
                        // Dropped or unparsable events: the list may miss a frame until it is
                        // announced again; keep listening.
                        Some(Err(_)) => continue,
                        None => break,
                    },
                    event = detached.next() => match event {
                        Some(Ok(event)) => this.remove(event.session_id.as_str()),
                        Some(Err(e)) if e.code() == ErrorCode::BrowserClosed => break,
                        Some(Err(_)) => continue,
                        None => break,
                    },
                }
            }
            // The session is gone: so are the frames it announced (and theirs).
            this.remove_under(parent.as_str());
        });
        connection.send(Some(session), &auto_attach()).await?;
        Ok(())
    }

    fn on_attached(
        &self,
        connection: &Connection,
        parent: &SessionId,
        event: AttachedToTargetEvent,
        depth: usize,
    ) {
        let child = SessionId::from(event.session_id);
        let info = event.target_info;
        let keep = info.type_ == "iframe"
            && depth < MAX_NESTING
            && self.lock().targets.len() < MAX_TARGETS;
        if !keep {
            let conn = connection.clone();
            tokio::spawn(async move {
                let _ = conn
                    .send(
                        None,
                        &DetachFromTargetParams {
                            session_id: Some(child.to_string()),
                            ..Default::default()
                        },
                    )
                    .await;
            });
            return;
        }
        {
            let mut state = self.lock();
            state.targets.retain(|t| t.target_id != info.target_id);
            state.targets.push(FrameTarget {
                target_id: info.target_id,
                session_id: child.clone(),
                parent_session: parent.clone(),
                url: info.url,
            });
        }
        let this = self.clone();
        let conn = connection.clone();
        tokio::spawn(async move {
            // Frames nested in this one are announced on its session. A failure here means the
            // frame went away already; its detach event cleans up.
            let _ = this.watch(&conn, &child, depth + 1).await;
        });
    }

    fn remove(&self, session: &str) {
        self.lock()
            .targets
            .retain(|t| t.session_id.as_str() != session);
        self.remove_under(session);
    }

    /// Drops every target announced (directly or not) by `session`.
    fn remove_under(&self, session: &str) {
        let mut state = self.lock();
        let mut gone = vec![session.to_string()];
        while let Some(s) = gone.pop() {
            let (drop, keep): (Vec<FrameTarget>, Vec<FrameTarget>) =
                std::mem::take(&mut state.targets)
                    .into_iter()
                    .partition(|t| t.parent_session.as_str() == s);
            state.targets = keep;
            gone.extend(drop.into_iter().map(|t| t.session_id.to_string()));
        }
    }
}
