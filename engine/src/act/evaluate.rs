//! `evaluate`: a caller's JavaScript function, run in the page's main world with elements of
//! the latest snapshot as its arguments.
//!
//! Why the main world, unlike every other script the engine runs: the caller wants the page's
//! own state — its globals, its framework's objects, what its scripts put on `window` — and
//! only the main world has it. The function therefore sees whatever the page changed there
//! (a page can replace `Array.prototype.map` or `JSON`), which is the point.
//!
//! Why uids are resolved as actions resolve them: an argument must be the element the snapshot
//! named, or the call fails with `STALE_UID` (`live::resolve_uid` does every check); the node is
//! then resolved again into the main world of its own frame, and the function runs in that
//! frame's window, so all arguments must come from one frame. Without arguments it runs in the
//! top frame's window.
//!
//! Why it is refused unless the session allows it (`SessionOptions::allow_evaluate`): it gives
//! whoever sends commands full script power over the page (its cookies, its storage, requests
//! in its name), which the other commands do not.

use serde_json::Value;

use super::dialog::{self, Raced};
use super::live::{self, resolve_in, resolve_uid};
use super::remote::{Frames, OBJECT_GROUP};
use super::ActTarget;
use crate::browser::Page;
use crate::cdp::runtime::{
    CallArgument, CallFunctionOnParams, EvaluateParams, ExceptionDetails, RemoteObject,
};
use crate::command;
use crate::error::{Error, ErrorCode, Result};
use crate::response::Evaluated;

/// What a function that opened a dialog leaves the caller to do.
const DIALOG_OPENED: &str = "the function opened a dialog, which blocks the page until it is \
     answered; answer it with {\"cmd\":\"dialog\",\"accept\":true|false} (the function's result \
     is lost)";

/// Runs `command.function` in the page's main world (see the module docs).
pub(crate) async fn evaluate(
    target: ActTarget<'_>,
    command: &command::Evaluate,
) -> Result<Evaluated> {
    let ActTarget {
        page, uids, state, ..
    } = target;
    if let Some(d) = state.dialogs.current() {
        return Err(dialog::blocked(d));
    }
    let worlds = &state.worlds;
    let mut sessions: Vec<Page> = Vec::new();
    let work = async {
        let frames = Frames::read(page).await?;
        // Each argument's node, in the main world of its frame.
        let mut frame: Option<(Page, String)> = None;
        let mut objects = Vec::with_capacity(command.args.len());
        for uid in &command.args {
            let (scope, node) = resolve_uid(page, uids, &frames, worlds, uid).await?;
            sessions.push(scope.session.clone());
            sessions.extend(scope.owners.iter().map(|o| o.parent.clone()));
            match &frame {
                Some((session, frame_id))
                    if session.session_id() != scope.session.session_id()
                        || *frame_id != scope.frame_id =>
                {
                    return Err(Error::invalid_argument(format!(
                        "{uid} is in another frame than {}; the function runs in one frame's \
                         window, so pass elements of one frame (or run it once per frame)",
                        command.args[0]
                    )));
                }
                Some(_) => {}
                None => frame = Some((scope.session.clone(), scope.frame_id.clone())),
            }
            let main = resolve_in(&scope.session, None, node.backend_node_id).await?;
            objects.push(main.object_id);
        }
        let (session, window) = match (frame, objects.first()) {
            (Some((session, _)), Some(first)) => {
                let window = window_of(&session, first).await?;
                (session, window)
            }
            _ => (page.clone(), top_window(page).await?),
        };
        call(&session, &window, &command.function, &objects).await
    };
    let outcome = state.dialogs.race(work).await;
    if state.dialogs.current().is_none() {
        for s in &sessions {
            if s.session_id() != page.session_id() {
                live::release(s).await;
            }
        }
        live::release(page).await;
    }
    match outcome {
        Raced::Done(value) => Ok(Evaluated {
            value: value?,
            dialog: None,
            note: None,
        }),
        Raced::Dialog(d) => Ok(Evaluated {
            value: Value::Null,
            dialog: Some(d.to_dialog()),
            note: Some(DIALOG_OPENED.into()),
        }),
    }
}

/// The main world's `window` of the page's top frame.
async fn top_window(page: &Page) -> Result<String> {
    let reply = page
        .send(&EvaluateParams {
            object_group: Some(OBJECT_GROUP.into()),
            silent: Some(true),
            return_by_value: Some(false),
            ..EvaluateParams::new("globalThis".into())
        })
        .await?;
    reply.result.object_id.ok_or_else(|| {
        Error::protocol("the page's window could not be reached; open the page again")
    })
}

/// The `window` of the document a node (a main-world handle) belongs to.
async fn window_of(session: &Page, node: &str) -> Result<String> {
    let reply = session
        .send(&CallFunctionOnParams {
            object_id: Some(node.to_string()),
            silent: Some(true),
            return_by_value: Some(false),
            object_group: Some(OBJECT_GROUP.into()),
            ..CallFunctionOnParams::new("function(){return this.ownerDocument.defaultView}".into())
        })
        .await?;
    reply.result.object_id.ok_or_else(|| {
        Error::protocol(
            "the element's document has no window (it was taken out of its frame); take a new \
             snapshot and try again",
        )
    })
}

/// Calls the caller's function with `this` = the window and the nodes as arguments, awaiting
/// a promise, and returns its result as JSON.
async fn call(session: &Page, window: &str, function: &str, args: &[String]) -> Result<Value> {
    let arguments = args
        .iter()
        .map(|id| CallArgument {
            object_id: Some(id.clone()),
            ..CallArgument::default()
        })
        .collect();
    let reply = session
        .send(&CallFunctionOnParams {
            object_id: Some(window.to_string()),
            arguments: Some(arguments),
            await_promise: Some(true),
            return_by_value: Some(true),
            user_gesture: Some(true),
            object_group: Some(OBJECT_GROUP.into()),
            ..CallFunctionOnParams::new(function.to_string())
        })
        .await
        .map_err(|e| match e.code() {
            ErrorCode::ProtocolError => Error::invalid_argument(format!(
                "the function's result could not be returned ({}); return a JSON value \
                 (numbers, strings, plain objects and arrays; e.g. el.innerText, not el)",
                e.message()
            )),
            _ => e,
        })?;
    if let Some(details) = reply.exception_details {
        return Err(thrown(&details));
    }
    Ok(json_of(reply.result))
}

/// The error of a function that threw (or did not compile): the exception and where.
fn thrown(details: &ExceptionDetails) -> Error {
    let exception = details
        .exception
        .as_ref()
        .and_then(|x| {
            x.description
                .clone()
                .or_else(|| x.value.as_ref().map(|v| v.to_string()))
        })
        .unwrap_or_else(|| details.text.clone());
    Error::invalid_argument(format!(
        "the function threw: {exception} (line {}, column {} of the function); fix the function \
         and try again",
        details.line_number + 1,
        details.column_number + 1
    ))
}

/// A by-value result as JSON: `undefined` is `null`, `NaN`, `Infinity` and big integers are
/// their text.
fn json_of(result: RemoteObject) -> Value {
    match (result.value, result.unserializable_value) {
        (Some(v), _) => v,
        (None, Some(u)) => Value::String(u),
        (None, None) => Value::Null,
    }
}
