//! Acting on uids: `click`, `hover`, `fill`, `select`, `press`, `scroll`, `upload`, `drag`,
//! `type_text` and `dialog`, with trusted input events, the way a person would — or a precise
//! reason why not. `wait_for` lives here too: it reads the page in the same isolated worlds and
//! races the same dialogs.
//!
//! Why it works this way:
//! - **A uid is resolved against the live page every time** (`live.rs`): the document must be the
//!   one the snapshot saw and the node must still be in it. Otherwise `STALE_UID`; a uid is never
//!   re-bound to another node. `NO_SNAPSHOT` and `UNKNOWN_UID` come from the uid table.
//! - **Pointer actions hit-test first** (`pointer.rs`): the element is scrolled into view, a point
//!   inside its visible part is chosen from its *current* geometry and confirmed with Chromium's
//!   own hit test; covered elements get `OCCLUDED` naming what covers them, hidden, disabled or
//!   zero-size ones `NOT_INTERACTABLE` with the reason. Events are `Input.dispatchMouseEvent`
//!   and `Input.dispatchKeyEvent` / `Input.insertText` — trusted, as from real devices.
//! - **Out-of-process (cross-site) iframes work like the page** (`scope.rs`): a uid's node is
//!   resolved over the session of the renderer that holds it, its geometry and hit test are
//!   asked there in the frame's own coordinates, and the chosen point is translated through the
//!   content box of each owner `<iframe>` into the page's viewport, where the mouse events go.
//!   Every level's hit test must answer the owner `<iframe>` at that point, so something of the
//!   page on top of the frame is `OCCLUDED` too. Keys and `Input.insertText` go to the page,
//!   which routes them to the frame `DOM.focus` gave the focus.
//! - **Helper JavaScript runs in an isolated world** (`scope.rs`), one per frame and document:
//!   a page that overrides `getComputedStyle`, `getBoundingClientRect`, the `value` setters,
//!   `Node.prototype.contains` or `MutationObserver` in its own world cannot change what the
//!   actions check, set or report.
//! - **Nothing hangs behind a dialog** (`dialog.rs`): every action races its work against
//!   `Page.javascriptDialogOpening` and returns the dialog in its result. Page commands
//!   (`snapshot`, `diff`, `open`, `back`, `forward`, `reload`) race the same way
//!   ([`ActState::unless_dialog`], [`ActState::navigation`]) and fail at once with a retryable
//!   `OCCLUDED` naming the dialog — Chromium answers none of them while it is open, so they
//!   would otherwise wait for the 30 s command timeout. The exception is a dialog the document
//!   a navigation loads opens before its `load` event (an `alert` in an inline script): the
//!   navigation happened, so it is reported in the command's result (`"loaded": false`,
//!   `"dialog"`) — an error asking to retry would reload the page into the same dialog. A click whose `mousedown` opened the dialog left the button down: it
//!   is released once the dialog is answered (or before the next action).
//! - **The page is given time to settle** (`settle.rs`): when the action started a navigation of
//!   the main frame, until its `load` event (at most 10 s); otherwise until the DOM, watched by a
//!   `MutationObserver` in the isolated world, has been quiet for 100 ms, watching at least
//!   400 ms and at most 3 s: a fixed short pause misses anything a page does a moment after a
//!   click (a debounce, a delayed render). A page too busy to answer gets its result at 3 s.
//! - **A node that goes away during the action is `STALE_UID`**: the press is sent only while
//!   the node is still in its document (the pointer's arrival may make the page replace it),
//!   and a step that fails because the node, its document or its frame went away meanwhile is
//!   reported as `STALE_UID`, not as the protocol error or "not rendered" it looks like.
//! - JavaScript is used to *act* (checking a node, selecting an input's text, setting a native
//!   `<select>`, watching for mutations), always in the isolated world; perceiving never runs
//!   page JavaScript.
//!
//! Results (the `result` of `{"ok":true,"result":…}`), one JSON object per action:
//! - `click`: `{"clicked":uid,"at":{"x","y"},"button":"left","count":1}`
//! - `hover`: `{"hovered":uid,"at":{"x","y"}}`
//! - `fill`: `{"filled":uid,"value":"…"}` (a password reads `"********"`); for a checkbox or
//!   radio `{"filled":uid,"checked":bool}`; a `"warning"` when the value read back differs.
//! - `select`: native `{"selected":uid,"value":"…","options":[{"text","value"}],"changed":bool}`
//!   (`options`: the options selected now; `changed`: whether `change` fired); custom lists
//!   `{"selected":uid,"option":"…","value":"…"}` (`value`: what the widget shows afterwards).
//!   A `click` on an `<option>` of a drop-down selects it the same way (plus `"option"`).
//! - `press`: `{"pressed":"Control+A","uid"?:uid,"focus":{"tag","id","uid"?}|null}` — `focus`
//!   is the element that has the keyboard focus afterwards.
//! - `scroll`: `{"uid"?:uid,"scrolled":"page"|uid,"direction","pixels","moved",
//!   "before":{"x","y"},"after":{"x","y"},"atEnd":bool,"method":"wheel"|"script","at":{"x","y"}}`
//!   — `scrolled` is what moved (the page, or the uid's nearest scroll container; a short
//!   description when the container has no uid), `moved` how far it really moved in `direction`
//!   (px), `atEnd` whether it can go no further that way.
//! - `upload`: `{"uploaded":uid,"files":["name",…],"input"?:uid|null,"accept"?:"…"}`.
//! - `dialog`: `{"dialog":{"type","message"},"accepted":bool,"promptText"?:"…"}`, and
//!   `"next":{"type","message"}` when answering it opened another one.
//! - `drag`: `{"dragged":uid,"onto":uid,"from":{"x","y"},"to":{"x","y"},"native":bool}` —
//!   `native`: the page started an HTML5 drag, which was dropped with drag events.
//! - `type_text`: `{"typed":"…","into":{"tag","id","uid"?}|null,"value"?:"…","submitKey"?:"…",
//!   "focus"?:…}` — `into`: the focused element typed into (`null` inside a frame that cannot
//!   be looked into); `value` for an input or a text area.
//!
//! A dialog is `{"type":"alert|confirm|prompt|beforeunload","message"}`, plus `defaultPrompt`
//! for a prompt. While one is open every other action and every page command fails at once
//! with `OCCLUDED` (retryable: the dialog covers the page), saying how to answer it; `pages`
//! keeps working and lists it under the page's `"dialog"`.
//!
//! Every action's result also holds `"summary"`: a sentence or two saying what was done, to
//! which element, and what followed, written from the typed result by `crate::summary` (not
//! here: the steps only write facts). Every action may add `"dialog":{"type","message"}` (a
//! dialog opened and is waiting for `{"cmd":"dialog",…}`), `"navigated":true,"url":"…",
//! "loaded":bool` (it started a navigation), `"settled":false` (the DOM was still changing when
//! the 3 s wait ended), with `"snapshot": true` `"snapshot":<text>` (a JSON value for
//! `"format":"json"`), and with `"diff": true` `"changes":"<patch>"`: the exact change of the
//! snapshot text in the view of the page's last `snapshot` command, as a patch of the last
//! snapshot's text (`crate::render::diff::patch`; the new snapshot becomes the last one). No
//! snapshot is taken while a dialog is open (the page cannot answer until it is closed):
//! `snapshot` and `changes` are then `null`, and a `"note"` says why.

mod dialog;
mod drag;
mod evaluate;
mod form;
mod keyboard;
mod live;
mod pointer;
mod remote;
mod scope;
mod scroll;
mod settle;
mod typing;
mod upload;
mod wait;

use std::future::Future;

use serde_json::{json, Map, Value};

pub use dialog::{DialogInfo, DialogWatch};
pub(crate) use evaluate::evaluate;

use crate::browser::Page;
use crate::cdp::emulation::SetFocusEmulationEnabledParams;
use crate::cdp::page::HandleJavaScriptDialogParams;
use crate::cdp::runtime::EvaluateParams;
use crate::command::{self, AfterAction};
use crate::error::{Error, ErrorCode, Result};
use crate::identity::UidTable;
use crate::live::Kept;
use crate::response::{Dialog, SnapshotOutput};
use crate::snapshot::{Snapshot, SnapshotOptions};
use dialog::Raced;
use remote::{Frames, LiveNode};
use scope::{Scope, Worlds};
use settle::{Settle, Settled};

/// What a page keeps for acting on it between commands.
#[derive(Debug)]
pub struct ActState {
    dialogs: DialogWatch,
    focus_emulated: bool,
    /// The isolated worlds of the page's frames, by loader.
    worlds: Worlds,
    /// A mouse button a click interrupted by a dialog left down.
    held: pointer::HeldButton,
}

impl ActState {
    /// Starts following the page's dialogs. Call when the page is attached, before any action.
    pub fn new(page: &Page) -> Self {
        ActState {
            dialogs: DialogWatch::new(page),
            focus_emulated: false,
            worlds: Worlds::default(),
            held: pointer::HeldButton::default(),
        }
    }

    /// The dialog open on the page now, if any (for `pages`).
    pub fn open_dialog(&mut self) -> Option<Dialog> {
        self.dialogs.current().map(DialogInfo::to_dialog)
    }

    /// Runs a page command (`snapshot`, `diff`) unless a dialog blocks the page: with one open,
    /// or opening while the command waits, it fails at once with a retryable `OCCLUDED` that
    /// names the dialog — Chromium would not answer until it is closed.
    pub async fn unless_dialog<T>(&mut self, work: impl Future<Output = Result<T>>) -> Result<T> {
        if let Some(d) = self.dialogs.current() {
            return Err(dialog::blocked(d));
        }
        match self.dialogs.race(work).await {
            Raced::Done(r) => r,
            Raced::Dialog(d) => Err(dialog::blocked(&d)),
        }
    }

    /// Runs a navigation (`open`, `back`, `forward`, `reload`) unless a dialog blocks the page.
    /// With one open before it starts, or a `beforeunload` dialog opening meanwhile (the page
    /// asks whether it may be left: nothing has happened yet), it fails like
    /// [`ActState::unless_dialog`]. Any other dialog that opens meanwhile comes from the
    /// document being loaded — the navigation happened — so it is returned as
    /// [`Navigated::Dialog`] (`{"type","message"}`), for the command to report like an action
    /// does: repeating the command would load the page again and open the dialog again.
    pub async fn navigation<T>(
        &mut self,
        work: impl Future<Output = Result<T>>,
    ) -> Result<Navigated<T>> {
        if let Some(d) = self.dialogs.current() {
            return Err(dialog::blocked(d));
        }
        match self.dialogs.race(work).await {
            Raced::Done(r) => r.map(Navigated::Done),
            Raced::Dialog(d) if d.kind == "beforeunload" => Err(dialog::blocked(&d)),
            Raced::Dialog(d) => Ok(Navigated::Dialog(d.to_dialog())),
        }
    }
}

impl ActState {
    /// `wait_for`: waits until one of `texts` shows on the page (see `wait.rs`).
    pub(crate) async fn wait_for_text(
        &mut self,
        page: &Page,
        texts: &[String],
        timeout: std::time::Duration,
    ) -> Result<crate::response::Waited> {
        wait::wait_for_text(page, self, texts, timeout).await
    }

    /// Evaluates `js` in the isolated world of the page's main frame, unless a dialog blocks
    /// the page.
    pub(crate) async fn page_value(&mut self, page: &Page, js: &str) -> Result<Value> {
        let worlds = &self.worlds;
        let read = wait::page_value(page, worlds, js);
        if let Some(d) = self.dialogs.current() {
            return Err(dialog::blocked(d));
        }
        match self.dialogs.race(read).await {
            Raced::Done(r) => r,
            Raced::Dialog(d) => Err(dialog::blocked(&d)),
        }
    }
}

/// How a navigation run by [`ActState::navigation`] ended.
#[derive(Debug)]
pub enum Navigated<T> {
    /// It finished.
    Done(T),
    /// The loaded document opened this dialog before its `load` event.
    Dialog(Dialog),
}

/// What to do about a dialog the loading document opened, for the result of the navigation.
pub(crate) const DIALOG_WHILE_LOADING: &str = "the page opened a dialog while loading and waits \
     for it; answer it with {\"cmd\":\"dialog\",\"accept\":true|false} (loading then goes on), \
     not by repeating this command";

/// Everything an action needs of one page.
pub struct ActTarget<'a> {
    pub page: &'a Page,
    /// What the page's snapshots keep for the next one.
    pub kept: &'a Kept,
    pub uids: &'a mut UidTable,
    pub last: &'a mut Option<Snapshot>,
    pub state: &'a mut ActState,
    /// The options of the page's last `snapshot` command: the view `"diff": true` compares in.
    pub view: SnapshotOptions,
}

/// What the inner steps of an action read: the page (where input goes), the scope the node
/// lives in (where DOM and JavaScript commands go), and the last snapshot (to name uids).
pub(crate) struct ActionContext<'a> {
    pub page: &'a Page,
    pub scope: &'a Scope,
    pub worlds: &'a Worlds,
    /// The isolated world of the page's main frame.
    pub page_world: Option<i64>,
    pub held: &'a pointer::HeldButton,
    pub last: Option<&'a Snapshot>,
}

impl ActionContext<'_> {
    /// The session that holds the action's document: DOM, Runtime and hit-test commands go
    /// there.
    pub(crate) fn dom(&self) -> &Page {
        &self.scope.session
    }

    /// The uid the last snapshot gave the node with this `backendNodeId` in the action's
    /// renderer, if any.
    pub(crate) fn uid_of(&self, backend_node_id: i64) -> Option<String> {
        self.uid_in(&self.scope.frame_id, backend_node_id)
    }

    /// The uid of a node of the renderer that holds `frame_id` (backend ids are per renderer).
    pub(crate) fn uid_in(&self, frame_id: &str, backend_node_id: i64) -> Option<String> {
        let snap = self.last?;
        let node = self.model_node(frame_id, backend_node_id)?;
        snap.uids.dom(node).map(|u| u.to_string())
    }

    /// The last snapshot's node for a `backendNodeId` of the renderer that holds `frame_id`.
    pub(crate) fn model_node(
        &self,
        frame_id: &str,
        backend_node_id: i64,
    ) -> Option<crate::model::NodeId> {
        let model = &self.last?.model;
        let target = model
            .docs
            .iter()
            .find(|d| model.opt_str(d.frame_id) == Some(frame_id))
            .map_or(0, |d| d.target);
        model.node_by_target_backend_id(target, backend_node_id)
    }
}

/// An action, read from its command.
pub(crate) enum Action {
    Click {
        button: pointer::Button,
        count: i64,
    },
    Hover,
    Fill {
        text: String,
    },
    Select {
        options: Vec<String>,
    },
    Press {
        chord: keyboard::Chord,
        spec: String,
    },
    Scroll {
        direction: scroll::Direction,
        pixels: Option<f64>,
    },
    Upload {
        files: Vec<String>,
    },
    Drag,
    TypeText {
        text: String,
        submit: Option<(keyboard::Chord, String)>,
    },
}

impl Action {
    /// The result key naming the uid (`clicked`, `filled`, …).
    fn verb(&self) -> &'static str {
        match self {
            Action::Click { .. } => "clicked",
            Action::Hover => "hovered",
            Action::Fill { .. } => "filled",
            Action::Select { .. } => "selected",
            Action::Press { .. } => "uid",
            Action::Scroll { .. } => "uid",
            Action::Upload { .. } => "uploaded",
            Action::Drag => "dragged",
            Action::TypeText { .. } => "uid",
        }
    }
}

/// What an action reports: the fields its steps wrote, and the snapshot and the changes taken
/// after it when they were asked for (`Some(None)`: none could be taken). They are kept apart
/// so that their text is never copied into, or read back out of, JSON.
pub(crate) struct Done {
    pub fields: Map<String, Value>,
    pub snapshot: Option<Option<SnapshotOutput>>,
    pub changes: Option<Option<String>>,
}

/// One action command: what to do, to which element, and what to take afterwards.
pub(crate) struct ActionRequest<'c> {
    action: Action,
    uid: Option<&'c str>,
    /// The second element of the action (where `drag` drops).
    to: Option<&'c str>,
    then: &'c AfterAction,
}

impl<'c> ActionRequest<'c> {
    /// The uid the action names, if any.
    pub(crate) fn uid(&self) -> Option<&'c str> {
        self.uid
    }

    pub(crate) fn click(c: &'c command::Click) -> Self {
        let action = Action::Click {
            button: c.button,
            count: i64::from(c.count),
        };
        Self::on(action, &c.uid, &c.then)
    }

    pub(crate) fn hover(c: &'c command::Hover) -> Self {
        Self::on(Action::Hover, &c.uid, &c.then)
    }

    pub(crate) fn fill(c: &'c command::Fill) -> Self {
        let action = Action::Fill {
            text: c.text.clone(),
        };
        Self::on(action, &c.uid, &c.then)
    }

    pub(crate) fn select(c: &'c command::Select) -> Self {
        let action = Action::Select {
            options: c.option.clone(),
        };
        Self::on(action, &c.uid, &c.then)
    }

    pub(crate) fn press(c: &'c command::Press) -> Result<Self> {
        let action = Action::Press {
            chord: keyboard::parse_chord(&c.key)?,
            spec: c.key.clone(),
        };
        Ok(ActionRequest {
            action,
            uid: c.uid.as_deref(),
            to: None,
            then: &c.then,
        })
    }

    pub(crate) fn scroll(c: &'c command::Scroll) -> Self {
        let action = Action::Scroll {
            direction: c.direction,
            pixels: c.pixels,
        };
        ActionRequest {
            action,
            uid: c.uid.as_deref(),
            to: None,
            then: &c.then,
        }
    }

    pub(crate) fn upload(c: &'c command::Upload) -> Self {
        let action = Action::Upload {
            files: c.files.clone(),
        };
        Self::on(action, &c.uid, &c.then)
    }

    pub(crate) fn drag(c: &'c command::Drag) -> Result<Self> {
        if c.from_uid.trim() == c.to_uid.trim() {
            return Err(Error::invalid_argument(format!(
                "\"fromUid\" and \"toUid\" are both {:?}; drag an element onto another one",
                c.from_uid
            )));
        }
        Ok(ActionRequest {
            action: Action::Drag,
            uid: Some(&c.from_uid),
            to: Some(&c.to_uid),
            then: &c.then,
        })
    }

    pub(crate) fn type_text(c: &'c command::TypeText) -> Result<Self> {
        let submit = match &c.submit_key {
            Some(key) => Some((keyboard::parse_chord(key)?, key.clone())),
            None => None,
        };
        let action = Action::TypeText {
            text: c.text.clone(),
            submit,
        };
        Ok(ActionRequest {
            action,
            uid: None,
            to: None,
            then: &c.then,
        })
    }

    fn on(action: Action, uid: &'c str, then: &'c AfterAction) -> Self {
        ActionRequest {
            action,
            uid: Some(uid),
            to: None,
            then,
        }
    }
}

/// Executes one action on a page; the result's fields are listed in `docs/protocol.md`.
pub(crate) async fn execute(target: ActTarget<'_>, request: ActionRequest<'_>) -> Result<Done> {
    let ActionRequest {
        action,
        uid,
        to,
        then,
    } = request;
    let ActTarget {
        page,
        kept,
        uids,
        last,
        state,
        view,
    } = target;
    if let Some(d) = state.dialogs.current() {
        return Err(dialog::blocked(d));
    }
    // A click a dialog interrupted left its button down: release it before acting again.
    if let Raced::Dialog(d) = state.dialogs.race(state.held.release(page)).await {
        return Err(dialog::blocked(&d));
    }
    if !state.focus_emulated {
        // Several pages of one browser all behave as if focused (focus events, :focus).
        let emulate = page.send(&SetFocusEmulationEnabledParams { enabled: true });
        if let Raced::Dialog(d) = state.dialogs.race(emulate).await {
            return Err(dialog::blocked(&d));
        }
        state.focus_emulated = true;
    }
    // Every step that talks to the page is raced against dialogs: a page blocked by one
    // cannot answer.
    let worlds = &state.worlds;
    let prepare = async {
        let frames = Frames::read(page).await?;
        let (scope, node) = match uid {
            Some(u) => {
                let (scope, node) = live::resolve_uid(page, uids, &frames, worlds, u).await?;
                (scope, Some(node))
            }
            None => (live::page_scope(page, &frames, worlds).await, None),
        };
        let second = match to {
            Some(u) => Some(live::resolve_uid(page, uids, &frames, worlds, u).await?),
            None => None,
        };
        Ok::<_, Error>((frames, scope, node, second))
    };
    let (frames, scope, node, second) = match state.dialogs.race(prepare).await {
        Raced::Done(r) => r?,
        Raced::Dialog(d) => return Err(dialog::blocked(&d)),
    };
    // Watch for what the action causes from before it starts: a navigation, DOM mutations in
    // the page and in the action's frame.
    let mut settle = Settle::start(page, &frames.main_frame);
    let worlds = &state.worlds;
    let watch = async {
        let main_world = worlds
            .context(page, &frames.main_frame, frames.main_loader())
            .await;
        let documents = [
            (page.clone(), main_world),
            (scope.session.clone(), scope.world),
        ];
        settle.observe(&documents).await;
        main_world
    };
    let page_world = match state.dialogs.race(watch).await {
        Raced::Done(w) => w,
        Raced::Dialog(d) => return Err(dialog::blocked(&d)),
    };
    let mut out = Map::new();
    if let Some(u) = uid {
        out.insert(action.verb().into(), Value::String(u.to_string()));
    }
    let outcome = {
        let cx = ActionContext {
            page,
            scope: &scope,
            worlds: &state.worlds,
            page_world,
            held: &state.held,
            last: last.as_ref(),
        };
        let other = second.as_ref().map(|(scope, node)| {
            let cx = ActionContext { scope, ..cx };
            (cx, node, to.unwrap_or(""))
        });
        let work = Box::pin(run(
            &cx,
            &action,
            node.as_ref(),
            uid.unwrap_or(""),
            other.as_ref().map(|(cx, node, uid)| (cx, *node, *uid)),
            &mut out,
        ));
        state.dialogs.race(work).await
    };
    // A failure is explained while the action's objects still exist (see `explain_failure`).
    let outcome = match (outcome, uid, &node) {
        (Raced::Done(Err(e)), Some(u), Some(n)) => {
            let (e, gone) = explain_failure(&mut state.dialogs, &scope, n, u, e).await;
            if gone {
                forget_uid(uids, u);
            }
            Raced::Done(Err(e))
        }
        (Raced::Done(Err(e)), None, None) if e.code() == ErrorCode::ProtocolError => {
            match state.dialogs.race(live::navigated_since(&scope)).await {
                Raced::Done(Some(why)) => Raced::Done(Err(live::navigated(why))),
                _ if live::world_lost(&e) => Raced::Done(Err(live::navigated(
                    "its document went away as the action ran",
                ))),
                _ => Raced::Done(Err(e)),
            }
        }
        (outcome, _, _) => outcome,
    };
    // Objects resolved in other renderers are released there, the page's own in `finish` —
    // unless a dialog is open: then the renderers cannot answer.
    if state.dialogs.current().is_none() {
        let _ = state
            .dialogs
            .race(live::release_other_sessions(page, &scope))
            .await;
        if let Some((other, _)) = &second {
            let _ = state
                .dialogs
                .race(live::release_other_sessions(page, other))
                .await;
        }
    }
    match outcome {
        Raced::Done(Ok(())) => {}
        Raced::Done(Err(e)) => {
            let _ = state.dialogs.race(live::release(page)).await;
            return Err(e);
        }
        Raced::Dialog(d) => {
            out.insert("dialog".into(), d.to_json());
        }
    }
    if state.dialogs.current().is_none() {
        // The wait for the page to settle hears nothing more from a browser that is gone: it
        // ends there, and the action with the reason, not as if the page had gone quiet.
        let settled = async {
            tokio::select! {
                settled = settle.wait() => Some(settled),
                () = page.connection().closed() => None,
            }
        };
        if let Raced::Done(settled) = state.dialogs.race(settled).await {
            match settled {
                Some(settled) => add_settled(&mut out, settled),
                None => return Err(browser_gone(page)),
            }
        }
    }
    let end = End {
        dialog_key: "dialog",
        then,
        view: &view,
    };
    let (snapshot, changes) = finish(page, kept, uids, last, state, &mut out, &end).await;
    // The browser died after the action's last reply: the caller hears of it now, not with
    // its next call.
    if page.connection().is_closed() {
        return Err(browser_gone(page));
    }
    Ok(Done {
        fields: out,
        snapshot,
        changes,
    })
}

/// The current border box of the element `uid` names, in the page's viewport CSS px, after
/// scrolling it into view: what a screenshot of one element clips to. The uid is resolved as
/// every action resolves it (`NO_SNAPSHOT`, `UNKNOWN_UID`, `STALE_UID`), and a dialog blocks it
/// as it blocks an action.
pub(crate) async fn element_box(target: ActTarget<'_>, uid: &str) -> Result<crate::model::Rect> {
    let ActTarget {
        page, uids, state, ..
    } = target;
    if let Some(d) = state.dialogs.current() {
        return Err(dialog::blocked(d));
    }
    let worlds = &state.worlds;
    let work = async {
        let frames = Frames::read(page).await?;
        let (scope, node) = live::resolve_uid(page, uids, &frames, worlds, uid).await?;
        let found = pointer::page_box(&scope, &node, uid).await;
        let found = match found {
            Err(e)
                if e.code() == ErrorCode::NotInteractable
                    || e.code() == ErrorCode::ProtocolError =>
            {
                match live::gone_since(&scope, &node).await {
                    Some(why) => {
                        forget_uid(uids, uid);
                        Err(live::stale(uid, why))
                    }
                    None => Err(e),
                }
            }
            other => other,
        };
        live::release_other_sessions(page, &scope).await;
        live::release(page).await;
        found
    };
    match state.dialogs.race(work).await {
        Raced::Done(r) => r,
        Raced::Dialog(d) => Err(dialog::blocked(&d)),
    }
}

/// `dialog`: accepts or dismisses the open dialog, then ends like an action.
pub(crate) async fn answer(target: ActTarget<'_>, command: &command::AnswerDialog) -> Result<Done> {
    let ActTarget {
        page,
        kept,
        uids,
        last,
        state,
        view,
    } = target;
    let mut out = answer_dialog(page, state, command).await?;
    // Another dialog right after this one is reported as the next one.
    let end = End {
        dialog_key: "next",
        then: &command.then,
        view: &view,
    };
    let (snapshot, changes) = finish(page, kept, uids, last, state, &mut out, &end).await;
    Ok(Done {
        fields: out,
        snapshot,
        changes,
    })
}

/// The error an action on a node ends with, and whether the uid's node is gone. A node that
/// went away while the action ran (its frame navigated or was removed, the page took the node
/// out) makes later steps fail in ways that say something else — a helper call on a vanished
/// document is a protocol error, a removed node has no box, a detached one looks hidden — so
/// those failures are checked against the live page and become `STALE_UID` when the node is
/// gone. A `STALE_UID` about another element the action used (an option, a label) leaves the
/// uid's own node alone.
async fn explain_failure(
    dialogs: &mut DialogWatch,
    scope: &Scope,
    node: &LiveNode,
    uid: &str,
    e: Error,
) -> (Error, bool) {
    let explained = matches!(
        e.code(),
        ErrorCode::ProtocolError
            | ErrorCode::NotInteractable
            | ErrorCode::Occluded
            | ErrorCode::StaleUid
    );
    if !explained || dialogs.current().is_some() {
        return (e, false);
    }
    match dialogs.race(live::gone_since(scope, node)).await {
        Raced::Done(Some(_)) if e.code() == ErrorCode::StaleUid => (e, true),
        Raced::Done(Some(why)) => (live::stale(uid, why), true),
        // The frame tree may still name the old document while the new one commits.
        _ if e.code() == ErrorCode::ProtocolError && live::world_lost(&e) => (
            live::stale(uid, "its document went away: the page is loading another"),
            true,
        ),
        _ => (e, false),
    }
}

/// The error of an action whose browser went away as it ran.
fn browser_gone(page: &Page) -> Error {
    page.connection().closed_error().unwrap_or_else(|| {
        Error::new(
            ErrorCode::BrowserClosed,
            "the connection to the browser closed during the action; launch or connect again",
        )
    })
}

/// Forgets a uid whose node is gone, so the next try fails fast.
fn forget_uid(uids: &mut UidTable, uid: &str) {
    if let Ok(parsed) = uids.resolve(uid).map(|r| r.uid) {
        uids.forget(parsed);
    }
}

/// How [`finish`] ends a command.
struct End<'a> {
    /// The result key an open dialog is reported under.
    dialog_key: &'static str,
    /// Whether to take a snapshot and the changes, and how.
    then: &'a AfterAction,
    /// The view the changes compare in (the options of the page's last `snapshot` command).
    view: &'a SnapshotOptions,
}

/// What [`finish`] took: the snapshot and the changes, each `None` when not asked for and
/// `Some(None)` when it could not be taken.
type Taken = (Option<Option<SnapshotOutput>>, Option<Option<String>>);

/// The shared end of every command: report an open dialog, release objects, take the snapshot
/// and the changes.
///
/// The changes compare the last snapshot's text in the view with a new snapshot's text in
/// it, which becomes the page's last snapshot: the next action's changes start from there. With
/// no earlier snapshot the changes add the whole text.
async fn finish(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    last: &mut Option<Snapshot>,
    state: &mut ActState,
    out: &mut Map<String, Value>,
    end: &End<'_>,
) -> Taken {
    let (wants_snapshot, wants_diff) = (end.then.snapshot, end.then.diff);
    let not_taken: Taken = (wants_snapshot.then_some(None), wants_diff.then_some(None));
    let open = state.dialogs.current().map(DialogInfo::to_json);
    let blocked = open.is_some() || (end.dialog_key == "dialog" && out.contains_key("dialog"));
    if let Some(d) = open {
        out.insert(end.dialog_key.into(), d);
    }
    if blocked {
        if !wants_snapshot && !wants_diff {
            return (None, None);
        }
        let what = match (wants_snapshot, wants_diff) {
            (true, true) => "no snapshot was taken and no changes are reported",
            (true, false) => "no snapshot was taken",
            _ => "no changes are reported",
        };
        out.insert(
            "note".into(),
            Value::String(format!(
                "a dialog is open and blocks the page, so {what}; answer it with \
                 {{\"cmd\":\"dialog\",\"accept\":true|false}}"
            )),
        );
        return not_taken;
    }
    if let Raced::Dialog(d) = state.dialogs.race(live::release(page)).await {
        out.insert(end.dialog_key.into(), d.to_json());
        return (None, wants_diff.then_some(None));
    }
    if !wants_snapshot && !wants_diff {
        return (None, None);
    }
    let view = SnapshotOptions {
        format: crate::render::Format::Text,
        ..end.view.clone()
    };
    // The text the changes start from, before a new snapshot replaces the last one.
    let before = wants_diff.then(|| last.as_ref().map(|s| s.text_in(&view)).unwrap_or_default());
    let mut snapshot = None;
    if wants_snapshot {
        // Boxed: a snapshot's future is large, and an action's future holds two of them.
        let taken = state
            .dialogs
            .race(Box::pin(take_snapshot(
                page,
                kept,
                uids,
                last,
                &end.then.options.snapshot_options(),
            )))
            .await;
        snapshot = Some(match taken {
            Raced::Done(Ok(taken)) => Some(taken),
            Raced::Done(Err(e)) => {
                out.insert("snapshotError".into(), error_json(&e));
                None
            }
            Raced::Dialog(d) => {
                out.insert(end.dialog_key.into(), d.to_json());
                return (Some(None), wants_diff.then_some(None));
            }
        });
    }
    let Some(before) = before else {
        return (snapshot, None);
    };
    // The snapshot just taken is the one the changes need when it was taken in the view.
    let same_view =
        matches!(&snapshot, Some(Some(_)) if end.then.options.snapshot_options() == view);
    let after = if same_view {
        last.as_ref().map(|s| Ok(s.output.clone()))
    } else {
        let taken = state
            .dialogs
            .race(Box::pin(take_snapshot(page, kept, uids, last, &view)))
            .await;
        match taken {
            Raced::Done(r) => Some(r.map(|s| s.text)),
            Raced::Dialog(d) => {
                out.insert(end.dialog_key.into(), d.to_json());
                None
            }
        }
    };
    let changes = match after {
        Some(Ok(after)) => Some(crate::render::diff::patch(&before, &after)),
        Some(Err(e)) => {
            out.entry("snapshotError").or_insert_with(|| error_json(&e));
            None
        }
        None => None,
    };
    (snapshot, Some(changes))
}

/// An error as a result's `snapshotError`.
fn error_json(e: &Error) -> Value {
    json!({ "code": e.code().as_str(), "message": e.message() })
}

/// The same live snapshot as the `snapshot` command, as rendered.
async fn take_snapshot(
    page: &Page,
    kept: &Kept,
    uids: &mut UidTable,
    last: &mut Option<Snapshot>,
    options: &SnapshotOptions,
) -> Result<SnapshotOutput> {
    let snapshot = crate::snapshot::take_snapshot_after(page, kept, uids, options, last).await?;
    snapshot
        .shown
        .check(None, options.mode, options.max_chars)?;
    Ok(SnapshotOutput::of(snapshot, options))
}

/// The body of one action, raced against dialogs by [`execute`]. `other`: the second element
/// of the action, in its own scope.
async fn run(
    cx: &ActionContext<'_>,
    action: &Action,
    node: Option<&LiveNode>,
    uid: &str,
    other: Option<(&ActionContext<'_>, &LiveNode, &str)>,
    out: &mut Map<String, Value>,
) -> Result<()> {
    let need = || node.ok_or_else(|| Error::invalid_argument("this action needs a \"uid\" field"));
    match action {
        Action::Click { button, count } => {
            let node = need()?;
            if let Some((select, option)) = dropdown_option(cx, node).await? {
                // The browser draws a drop-down's options itself; choose it as `select` does.
                out.insert("option".into(), Value::String(option.clone()));
                return form::select(cx, &select, uid, &[option], out).await;
            }
            let p = pointer::actionable_point(cx, node, uid, true).await?;
            out.insert("at".into(), p.to_json());
            out.insert("button".into(), Value::String(button.name().into()));
            out.insert("count".into(), json!(count));
            pointer::click_at(cx, node, uid, p, *button, *count).await
        }
        Action::Hover => {
            let node = need()?;
            let p = pointer::actionable_point(cx, node, uid, false).await?;
            out.insert("at".into(), p.to_json());
            pointer::move_to(cx.page, p).await
        }
        Action::Fill { text } => form::fill(cx, need()?, uid, text, out).await,
        Action::Select { options } => form::select(cx, need()?, uid, options, out).await,
        Action::Press { chord, spec } => {
            out.insert("pressed".into(), Value::String(spec.clone()));
            if let Some(node) = node {
                focus_for_keys(cx, node, uid).await?;
            }
            keyboard::press(cx.page, chord).await?;
            out.insert("focus".into(), focused(cx).await);
            Ok(())
        }
        Action::Scroll { direction, pixels } => {
            scroll::scroll(cx, node.map(|n| (n, uid)), *direction, *pixels, out).await
        }
        Action::Upload { files } => upload::upload(cx, need()?, uid, files, out).await,
        Action::Drag => {
            let Some(to) = other else {
                return Err(Error::invalid_argument(
                    "drag needs a \"toUid\": the element to drop on",
                ));
            };
            Box::pin(drag::drag((cx, need()?, uid), to, out)).await
        }
        Action::TypeText { text, submit } => {
            let submit = submit.as_ref().map(|(chord, spec)| (chord, spec.as_str()));
            typing::type_text(cx, text, submit, out).await
        }
    }
}

/// For an `<option>` of a drop-down `<select>`: the select and the option's text.
async fn dropdown_option(
    cx: &ActionContext<'_>,
    node: &LiveNode,
) -> Result<Option<(LiveNode, String)>> {
    const FN: &str = r#"function(){
      if(this.localName!=='option')return null;
      const s=this.closest('select');
      return (s&&!s.multiple&&s.size<=1)?s:null;
    }"#;
    let Some(select) = remote::call_node(cx.dom(), &node.object_id, FN, &[]).await? else {
        return Ok(None);
    };
    let text = remote::call(
        cx.dom(),
        &node.object_id,
        "function(){return this.text.replace(/\\s+/g,' ').trim()}",
        &[],
    )
    .await?;
    Ok(Some((select, text.as_str().unwrap_or("").to_string())))
}

/// Gives the keyboard focus to the element a `press` names.
async fn focus_for_keys(cx: &ActionContext<'_>, node: &LiveNode, uid: &str) -> Result<()> {
    pointer::check_state(cx.dom(), node, uid, true).await?;
    let focused = cx
        .dom()
        .send(&crate::cdp::dom::FocusParams {
            backend_node_id: Some(node.backend_node_id),
            ..Default::default()
        })
        .await;
    focused.map(|_| ()).map_err(|e| match e.code() {
        ErrorCode::ProtocolError => Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{uid} cannot take the keyboard focus; press without a uid to send the key to \
                 whatever has focus, or click the element first"
            ),
        ),
        _ => e,
    })
}

/// The element that has the keyboard focus: `{"tag","id","uid"?}`, or `null` for the body.
async fn focused(cx: &ActionContext<'_>) -> Value {
    let reply = cx
        .dom()
        .send(&EvaluateParams {
            object_group: Some(remote::OBJECT_GROUP.into()),
            silent: Some(true),
            context_id: cx.scope.world,
            return_by_value: Some(false),
            ..EvaluateParams::new(
                "(()=>{let a=document.activeElement;\
                 while(a&&a.shadowRoot&&a.shadowRoot.activeElement)a=a.shadowRoot.activeElement;\
                 return a&&a!==document.body&&a!==document.documentElement?a:null})()"
                    .into(),
            )
        })
        .await;
    let Some(object_id) = reply.ok().and_then(|r| r.result.object_id) else {
        return Value::Null;
    };
    let Ok(node) = remote::node_from_object(cx.dom(), object_id).await else {
        return Value::Null;
    };
    let info = remote::call(
        cx.dom(),
        &node.object_id,
        "function(){return {tag:this.localName,id:this.id||''}}",
        &[],
    )
    .await
    .unwrap_or(Value::Null);
    let mut v = json!({
        "tag": info.get("tag").cloned().unwrap_or(Value::Null),
        "id": info.get("id").cloned().unwrap_or(Value::Null),
    });
    if let (Some(uid), Some(map)) = (cx.uid_of(node.backend_node_id), v.as_object_mut()) {
        map.insert("uid".into(), Value::String(uid));
    }
    v
}

/// `dialog`: accepts or dismisses the open dialog.
async fn answer_dialog(
    page: &Page,
    state: &mut ActState,
    command: &command::AnswerDialog,
) -> Result<Map<String, Value>> {
    let accept = command.accept;
    let text = command.text.clone();
    let open = state.dialogs.current().cloned();
    // Nothing else may be sent before the answer: the page cannot reply while the dialog is
    // open. Subscribe first, learn the main frame after.
    let mut settle = Settle::start(page, "");
    let answered = page
        .send(&HandleJavaScriptDialogParams {
            accept,
            prompt_text: text.clone(),
        })
        .await;
    if let Err(e) = answered {
        if e.code() == ErrorCode::ProtocolError {
            state.dialogs.answered();
            return Err(Error::invalid_argument(
                "no dialog is open on this page; `dialog` answers an alert, confirm or prompt \
                 that an action reported",
            ));
        }
        return Err(e);
    }
    state.dialogs.answered();
    let mut out = Map::new();
    // The dialog interrupted a click between press and release: finish it, as a person lets
    // go of the button once the dialog is gone. That may open the next dialog (on `mouseup`).
    if let Raced::Dialog(d) = state.dialogs.race(state.held.release(page)).await {
        out.insert("next".into(), d.to_json());
    }
    out.insert(
        "dialog".into(),
        open.as_ref().map_or(Value::Null, DialogInfo::to_json),
    );
    out.insert("accepted".into(), Value::Bool(accept));
    if let Some(t) = text {
        out.insert("promptText".into(), Value::String(t));
    }
    if state.dialogs.current().is_some() {
        return Ok(out);
    }
    if let Raced::Done(Ok(frames)) = state.dialogs.race(Frames::read(page)).await {
        settle.set_main_frame(&frames.main_frame);
        let worlds = &state.worlds;
        let watch = async {
            let world = worlds
                .context(page, &frames.main_frame, frames.main_loader())
                .await;
            settle.observe(&[(page.clone(), world)]).await;
            settle.wait().await
        };
        if let Raced::Done(settled) = state.dialogs.race(watch).await {
            add_settled(&mut out, settled);
        }
    }
    Ok(out)
}

/// Adds how the page settled to a result: the navigation, and `"settled": false` when the DOM
/// was still changing when the wait ended.
fn add_settled(out: &mut Map<String, Value>, settled: Settled) {
    if let Some(nav) = settled.navigation {
        out.extend(nav);
    }
    if !settled.quiet {
        out.insert("settled".into(), Value::Bool(false));
    }
}
