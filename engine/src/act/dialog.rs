//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`).
//!
//! Why they need care: while a dialog is open the page's main thread waits for an answer, and
//! so does any CDP command that needs it — `Input.dispatchMouseEvent` does not reply until the
//! dialog is closed. An action that opens one would hang forever if it simply awaited its
//! commands. So every page has a [`DialogWatch`] subscribed to `Page.javascriptDialogOpening`
//! and `Page.javascriptDialogClosed` from the moment the session attaches it; actions race
//! their work against "a dialog opened" and return as soon as either happens, reporting the
//! dialog. Page commands (`snapshot`, `open`, `reload`, …) race the same way and fail with a
//! retryable `OCCLUDED` that names the dialog ([`blocked`]). The `dialog` command answers it
//! (`Page.handleJavaScriptDialog`).

use std::future::Future;

use serde_json::Value;

use crate::browser::Page;
use crate::cdp::page::{JavascriptDialogClosedEvent, JavascriptDialogOpeningEvent};
use crate::cdp::Event;
use crate::error::{Error, ErrorCode};
use crate::response::Dialog;
use crate::transport::EventStream;

/// An open dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogInfo {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    pub message: String,
    /// The prompt's default text.
    pub default_prompt: Option<String>,
    /// The URL of the frame that opened it.
    pub url: String,
}

impl DialogInfo {
    /// The dialog as results report it: its type and message (plus the default text of a
    /// prompt).
    pub fn to_dialog(&self) -> Dialog {
        Dialog {
            kind: self.kind.clone(),
            message: self.message.clone(),
            default_prompt: (self.kind == "prompt")
                .then(|| self.default_prompt.clone().unwrap_or_default()),
        }
    }

    /// `{"type","message"}` (plus `defaultPrompt` for prompts).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.to_dialog()).unwrap_or(Value::Null)
    }
}

/// Follows the dialogs of one page.
pub struct DialogWatch {
    events: EventStream,
    open: Option<DialogInfo>,
}

impl std::fmt::Debug for DialogWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DialogWatch")
            .field("open", &self.open)
            .finish()
    }
}

/// How a raced action ended.
pub(crate) enum Raced<T> {
    Done(T),
    Dialog(DialogInfo),
}

impl DialogWatch {
    /// Subscribes to the page's dialog events.
    pub fn new(page: &Page) -> Self {
        DialogWatch {
            events: page.connection().subscribe_methods(
                Some(page.session_id()),
                &[
                    JavascriptDialogOpeningEvent::METHOD,
                    JavascriptDialogClosedEvent::METHOD,
                ],
            ),
            open: None,
        }
    }

    fn apply(&mut self, method: &str, event: &crate::transport::RawEvent) -> bool {
        if method == JavascriptDialogOpeningEvent::METHOD {
            if let Ok(e) = event.parse::<JavascriptDialogOpeningEvent>() {
                self.open = Some(DialogInfo {
                    kind: e.type_.as_str().to_string(),
                    message: e.message,
                    default_prompt: e.default_prompt,
                    url: e.url,
                });
                return true;
            }
        } else if method == JavascriptDialogClosedEvent::METHOD {
            self.open = None;
        }
        false
    }

    /// The dialog open now, as far as the events received so far tell.
    pub fn current(&mut self) -> Option<&DialogInfo> {
        while let Some(event) = self.events.try_next() {
            let method = event.method.clone();
            self.apply(&method, &event);
        }
        self.open.as_ref()
    }

    /// Forgets the open dialog (after answering it).
    pub(crate) fn answered(&mut self) {
        self.open = None;
    }

    /// Waits until a dialog opens; never returns otherwise (not even when the connection ends:
    /// the raced action reports that).
    async fn opened(&mut self) -> DialogInfo {
        loop {
            match self.events.next().await {
                Some(Ok(event)) => {
                    let method = event.method.clone();
                    if self.apply(&method, &event) {
                        if let Some(d) = &self.open {
                            return d.clone();
                        }
                    }
                }
                // Dropped events: keep listening.
                Some(Err(_)) => continue,
                None => std::future::pending::<()>().await,
            }
        }
    }

    /// Runs `work` until it finishes or a dialog opens, whichever comes first.
    pub(crate) async fn race<T>(&mut self, work: impl Future<Output = T>) -> Raced<T> {
        tokio::select! {
            biased;
            out = work => Raced::Done(out),
            d = self.opened() => Raced::Dialog(d),
        }
    }
}

/// The error for an action or a page command (`snapshot`, `back`, `reload`, `open`, …) while a
/// dialog blocks the page: the page cannot answer until the dialog is closed. `OCCLUDED`,
/// retryable, for both: like an overlay, the dialog sits in front of the page until it is
/// dismissed, and the agent's next step is the same whatever it tried.
pub(crate) fn blocked(d: &DialogInfo) -> Error {
    let text = serde_json::to_string(&d.message).unwrap_or_default();
    Error::new(
        ErrorCode::Occluded,
        format!(
            "a JavaScript {} dialog is open ({text}) and the page cannot answer until it is \
             closed; answer it with {{\"cmd\":\"dialog\",\"accept\":true}} or \
             {{\"cmd\":\"dialog\",\"accept\":false}}, then try again",
            d.kind
        ),
    )
}
