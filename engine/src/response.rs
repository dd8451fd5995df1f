//! What each [`Command`](crate::Command) answers, as typed values: the `result` of a `run`
//! response line (`{"ok":true,"result":…}`), and what the typed methods of
//! [`Session`](crate::Session) return.
//!
//! Field names are the wire's (camelCase where the protocol has it); a field that does not
//! apply is absent rather than `null`, except where the protocol says `null` means something
//! (`"snapshot": null` when none could be taken, `"focus": null` for the body). The meaning of
//! every field is in `docs/protocol.md`.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::command::{ImageFormat, MouseButton, ScrollDirection};
pub use crate::devtools::{
    ConsoleMessageDetail, ConsoleMessageList, ConsoleMessageSummary, NetworkRequestDetail,
    NetworkRequestList, NetworkRequestSummary, StackFrame, Timing,
};
use crate::error::{Error, Result};
pub use crate::extract::Extraction;
use crate::render::budget::Omitted;
use crate::render::Format;
use crate::snapshot::{Shown, Snapshot, SnapshotOptions};

/// The result of any command, as [`Session::execute`](crate::Session::execute) returns it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Response {
    /// `open`.
    Opened(Opened),
    /// `snapshot`.
    Snapshot(SnapshotOutput),
    /// `diff`: the changed lines.
    Diff(String),
    /// `back`, `forward`, `reload`.
    Navigation(Navigation),
    /// `pages`.
    Pages(Vec<PageInfo>),
    /// `select_page`.
    PageSelected(PageSelected),
    /// `close`.
    Closed(Closed),
    /// `click`.
    Clicked(Clicked),
    /// `hover`.
    Hovered(Hovered),
    /// `fill`.
    Filled(Filled),
    /// `select`.
    Selected(Selected),
    /// `press`.
    Pressed(Pressed),
    /// `scroll`.
    Scrolled(Scrolled),
    /// `upload`.
    Uploaded(Uploaded),
    /// `dialog`.
    DialogAnswered(DialogAnswered),
    /// `extract`.
    Extracted(Extraction),
    /// `drag`.
    Dragged(Dragged),
    /// `type_text`.
    Typed(Typed),
    /// `wait_for`.
    Waited(Waited),
    /// `resize`.
    Resized(Resized),
    /// `new_page`.
    PageOpened(PageOpened),
    /// `screenshot`.
    Screenshot(Screenshot),
    /// `console_messages`.
    ConsoleMessages(ConsoleMessageList),
    /// `console_message`.
    ConsoleMessage(ConsoleMessageDetail),
    /// `network_requests`.
    NetworkRequests(NetworkRequestList),
    /// `network_request`.
    NetworkRequest(NetworkRequestDetail),
    /// `evaluate`.
    Evaluated(Evaluated),
}

impl Response {
    /// The result as a JSON value, as the `run` protocol writes it.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| {
            Value::String(format!("the result could not be written as JSON: {e}"))
        })
    }

    /// The JSON Schema of every result.
    pub fn json_schema() -> Schema {
        schemars::schema_for!(Response)
    }
}

/// A snapshot as rendered: text, or the JSON document (`"format":"json"`) as its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotOutput {
    /// What was rendered.
    pub format: Format,
    /// The text, or the JSON document.
    pub text: String,
    /// The `maxChars` asked for (text formats): the result is then an object saying how much
    /// the budget left out.
    pub max_chars: Option<usize>,
    /// What the budget left out; `None` when the text is whole.
    pub omitted: Option<Omitted>,
}

impl SnapshotOutput {
    /// The output of a snapshot taken with `options`.
    pub fn of(snapshot: &Snapshot, options: &SnapshotOptions) -> SnapshotOutput {
        SnapshotOutput {
            format: options.format,
            text: snapshot.output.clone(),
            max_chars: options.max_chars.filter(|_| options.format == Format::Text),
            omitted: match snapshot.shown {
                Shown::Budgeted(omitted) => Some(omitted),
                _ => None,
            },
        }
    }

    /// The rendered output as a JSON value: the text as a string, or the parsed document, or
    /// with a budget the object saying what it left out.
    pub fn to_json(&self) -> Result<Value> {
        match (self.format, self.max_chars) {
            (Format::Text, None) => Ok(Value::String(self.text.clone())),
            (Format::Text, Some(_)) => serde_json::to_value(self)
                .map_err(|e| Error::protocol(format!("the snapshot cannot be written: {e}"))),
            (Format::Json, _) => serde_json::from_str(&self.text).map_err(|e| {
                Error::protocol(format!("the JSON renderer produced invalid JSON: {e}"))
            }),
        }
    }
}

/// The result of a text snapshot taken with `maxChars`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BudgetedJson {
    text: String,
    max_chars: usize,
    /// Whether lines were left out.
    truncated: bool,
    omitted_lines: usize,
    total_lines: usize,
    total_chars: usize,
}

impl Serialize for SnapshotOutput {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match (self.format, self.max_chars) {
            (Format::Text, None) => s.serialize_str(&self.text),
            (Format::Text, Some(max_chars)) => {
                let lines = self.text.lines().count();
                let chars = self.text.chars().count();
                BudgetedJson {
                    text: self.text.clone(),
                    max_chars,
                    truncated: self.omitted.is_some(),
                    omitted_lines: self.omitted.map_or(0, |o| o.lines),
                    total_lines: self.omitted.map_or(lines, |o| o.total_lines),
                    total_chars: self.omitted.map_or(chars, |o| o.total_chars),
                }
                .serialize(s)
            }
            (Format::Json, _) => {
                let raw = serde_json::value::RawValue::from_string(self.text.clone())
                    .map_err(serde::ser::Error::custom)?;
                raw.serialize(s)
            }
        }
    }
}

impl<'de> Deserialize<'de> for SnapshotOutput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match value {
            Value::String(text) => SnapshotOutput {
                format: Format::Text,
                text,
                max_chars: None,
                omitted: None,
            },
            Value::Object(ref o) if o.contains_key("maxChars") && o.contains_key("text") => {
                let b: BudgetedJson =
                    serde_json::from_value(value).map_err(serde::de::Error::custom)?;
                SnapshotOutput {
                    format: Format::Text,
                    text: b.text,
                    max_chars: Some(b.max_chars),
                    omitted: b.truncated.then_some(Omitted {
                        lines: b.omitted_lines,
                        total_lines: b.total_lines,
                        total_chars: b.total_chars,
                    }),
                }
            }
            other => SnapshotOutput {
                format: Format::Json,
                text: other.to_string(),
                max_chars: None,
                omitted: None,
            },
        })
    }
}

impl JsonSchema for SnapshotOutput {
    fn schema_name() -> Cow<'static, str> {
        "SnapshotOutput".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The snapshot text; with maxChars an object {text, maxChars, truncated, omittedLines, totalLines, totalChars}; for \"format\":\"json\" the snapshot document (docs/protocol.md, \"Snapshot JSON\")",
            "anyOf": [{ "type": "string" }, { "type": "object" }]
        })
    }
}

/// A point in the viewport, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// From the viewport's left edge.
    pub x: f64,
    /// From the viewport's top edge.
    pub y: f64,
}

/// A JavaScript dialog waiting for an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text the page shows in it.
    pub message: String,
    /// A prompt's default text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}

/// A failure inside an otherwise successful command (the snapshot after an action).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// The error code (`STALE_UID`, …).
    pub code: String,
    /// What happened and what to do.
    pub message: String,
}

/// `open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Opened {
    /// What happened, in a sentence or two for an agent to read.
    #[serde(default)]
    pub summary: String,
    /// The URL navigated to (a file path becomes its `file://` URL).
    pub url: String,
    /// The URL of the document the page shows, after redirects; absent when it could not be
    /// read (a dialog blocks the page).
    #[serde(default, rename = "finalUrl", skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The HTTP status of that document's response (a 404 page is a page with status 404);
    /// absent for documents not loaded over HTTP (`file:`, `data:`, `about:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The document's title; absent when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the page's `load` came before the timeout.
    pub loaded: bool,
    /// Why the page may not be as expected (it kept navigating, or did not load in time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// A dialog the loading document opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What to do about that dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `back`, `forward` and `reload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Navigation {
    /// What happened, in a sentence or two for an agent to read.
    #[serde(default)]
    pub summary: String,
    /// The history entry's URL (`back`, `forward`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Whether the document came (and loaded) before the timeout.
    pub loaded: bool,
    /// A dialog the loading document opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What to do about that dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One page of `pages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    /// What `select_page` takes.
    pub index: usize,
    /// Chromium's id of the page (`--target` attaches to it).
    pub target_id: String,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// Whether commands act on this page.
    pub current: bool,
    /// The dialog open on the page, or `null`.
    pub dialog: Option<Dialog>,
}

/// `select_page`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageSelected {
    /// The index given.
    pub index: usize,
    /// Chromium's id of the page.
    pub target_id: String,
    /// The page's URL.
    pub url: String,
}

/// `close`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Closed {
    /// The closed page's target id.
    pub closed: String,
}

/// `screenshot`: the image, as base64 or written to a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Screenshot {
    /// The image's encoding (`png` for every annotated screenshot).
    pub format: ImageFormat,
    /// The image's width, px.
    pub width: u32,
    /// The image's height, px.
    pub height: u32,
    /// The image, base64; absent when it was written to `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// The file the image was written to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// With `annotate`: how many elements were labelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotated: Option<usize>,
    /// With `annotate`: the uids labelled, in the order they were drawn (the colours cycle
    /// in this order). Every one is a uid of the snapshot the screenshot took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uids: Option<Vec<String>>,
}

/// What followed an action, common to every action's result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Aftermath {
    /// What was done, to which element, and what followed, in a sentence or two for an agent
    /// to read (a password is never in it).
    #[serde(default)]
    pub summary: String,
    /// The action started a navigation of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated: Option<bool>,
    /// Where that navigation went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Whether that navigation's document loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// `false` when the DOM was still changing when the wait for it to settle ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<bool>,
    /// With `"snapshot": true`: the snapshot after the action, or `null` when none could be
    /// taken (a dialog blocks the page; `snapshotError` or `note` says why).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub snapshot: Option<Option<SnapshotOutput>>,
    /// With `"diff": true`: how the text of the page's snapshot changed, as a patch of the last
    /// snapshot's text (`""`: no change), or `null` when no snapshot could be taken.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub changes: Option<Option<String>>,
    /// Why the snapshot after the action failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_error: Option<ErrorBody>,
    /// What to do next, when something blocks the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A field whose presence matters even when it is `null`.
fn present<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `click`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Clicked {
    /// The uid clicked.
    pub clicked: String,
    /// Where (viewport CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Point>,
    /// The button pressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// How many clicks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u8>,
    /// A click on an `<option>` of a drop-down chose it, as `select` does.
    #[serde(flatten)]
    pub choice: Choice,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `hover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hovered {
    /// The uid hovered.
    pub hovered: String,
    /// Where the mouse is now (viewport CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Point>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// What an action on a form control left in it: its value, and for a select or a drop-down
/// what was chosen.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    /// The value the control holds now (a password reads `********`; a native select's value,
    /// or what a custom drop-down shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A native select: the options selected now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<SelectOption>>,
    /// A native select: whether `change` fired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
    /// A custom drop-down, or an `<option>` clicked: the option chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
}

/// An option of a native `<select>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SelectOption {
    /// The option's text.
    pub text: String,
    /// The option's value.
    pub value: String,
}

/// `fill`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Filled {
    /// The uid filled.
    pub filled: String,
    /// For a checkbox or radio: whether it is checked now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// The value read back differs from what was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The value the field holds now, and for a select or a drop-down what was chosen.
    #[serde(flatten)]
    pub choice: Choice,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `select`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Selected {
    /// The uid of the select or list.
    pub selected: String,
    /// What was chosen.
    #[serde(flatten)]
    pub choice: Choice,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// The element that has the keyboard focus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Focused {
    /// Its tag name.
    pub tag: Option<String>,
    /// Its `id` attribute (empty when it has none).
    pub id: Option<String>,
    /// Its uid, when the last snapshot gave it one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// `press`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Pressed {
    /// The key or chord pressed.
    pub pressed: String,
    /// The element focused first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// What has the keyboard focus afterwards (`null`: the body).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub focus: Option<Option<Focused>>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `scroll`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scrolled {
    /// The uid the command named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// What moved: `"page"`, a uid, or a short description of a container with no uid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrolled: Option<String>,
    /// Which way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollDirection>,
    /// How far was asked (CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<f64>,
    /// How far it really moved in `direction` (CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<f64>,
    /// The scroll position before (CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Point>,
    /// The scroll position after (CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Point>,
    /// Whether it can go no further that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_end: Option<bool>,
    /// `wheel` or `script`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Where the wheel turned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Point>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub then: Aftermath,
}

/// `upload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Uploaded {
    /// The uid given.
    pub uploaded: String,
    /// The names of the files the input holds now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// The file input that took the files, when the uid was another element (a button, a
    /// label): its uid, or `null` when it has none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub input: Option<Option<String>>,
    /// The input's `accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<String>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `dialog`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DialogAnswered {
    /// The dialog answered (`null` if it had closed meanwhile).
    pub dialog: Option<Dialog>,
    /// Whether it was accepted (OK) or dismissed (Cancel).
    pub accepted: bool,
    /// The text typed into a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// Another dialog that opened right after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `drag`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Dragged {
    /// The uid dragged.
    pub dragged: String,
    /// The uid it was dropped on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onto: Option<String>,
    /// Where the mouse was pressed (viewport CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Point>,
    /// Where it was released (viewport CSS px).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Point>,
    /// Whether the page started an HTML5 drag (`dragstart`), which was then dropped with drag
    /// events; `false`: the page followed the mouse alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<bool>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `type_text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Typed {
    /// The text typed.
    pub typed: String,
    /// The element that had the keyboard focus and took the text (`null`: it is inside a frame
    /// whose document cannot be looked into from the page).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub into: Option<Option<Focused>>,
    /// The value of that field after typing (a password reads `********`), for an `<input>` or
    /// a `<textarea>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The key or chord pressed after typing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_key: Option<String>,
    /// With a `submitKey`: what has the keyboard focus afterwards (`null`: the body).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub focus: Option<Option<Focused>>,
    /// A dialog opened and waits for `{"cmd":"dialog",…}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What followed the action.
    #[serde(flatten)]
    pub after: Aftermath,
}

/// `wait_for`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Waited {
    /// The text that appeared (the first of the list, when several did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// How long the wait took, in ms.
    pub waited: u64,
    /// A dialog opened meanwhile and waits for `{"cmd":"dialog",…}`; the wait ended there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

/// `resize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resized {
    /// The width asked for.
    pub width: u32,
    /// The height asked for.
    pub height: u32,
    /// The page's `innerWidth` and `innerHeight` afterwards, read back from the page.
    pub inner: Size,
    /// The device pixel ratio.
    pub device_pixel_ratio: f64,
}

/// A width and a height, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Size {
    /// The width.
    pub width: f64,
    /// The height.
    pub height: f64,
}

/// `new_page`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageOpened {
    /// Chromium's id of the new page.
    pub target_id: String,
    /// Its `index` in the `pages` list (what `select_page` takes).
    pub index: usize,
    /// The navigation, as `open` reports it.
    #[serde(flatten)]
    pub opened: Opened,
}

/// `evaluate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evaluated {
    /// What the function returned (awaited when it is a promise), as JSON; `null` for
    /// `undefined`, and when a dialog interrupted it.
    pub value: Value,
    /// A dialog the function opened; it waits for `{"cmd":"dialog",…}` and the function's
    /// result is lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
    /// What to do about that dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The result of an action: it ends with what followed the action.
pub(crate) trait ActionResult: serde::de::DeserializeOwned + Serialize {
    fn aftermath(&mut self) -> &mut Aftermath;
}

macro_rules! action_results {
    ($($result:ty => $field:ident),* $(,)?) => {$(
        impl ActionResult for $result {
            fn aftermath(&mut self) -> &mut Aftermath {
                &mut self.$field
            }
        }
    )*};
}

action_results! {
    Clicked => after,
    Hovered => after,
    Filled => after,
    Selected => after,
    Pressed => after,
    Scrolled => then,
    Uploaded => after,
    DialogAnswered => after,
    Dragged => after,
    Typed => after,
}

/// An action's result, written field by field by the steps of the action, read into its typed
/// form, with the snapshot and the changes taken after it. In debug builds the typed form is
/// checked to write back exactly the fields written (and the `summary`, written later from the
/// typed form), so a field a step adds and the type lacks fails the tests instead of going
/// missing.
pub(crate) fn typed_result<T: ActionResult>(
    fields: Map<String, Value>,
    snapshot: Option<Option<SnapshotOutput>>,
    changes: Option<Option<String>>,
) -> Result<T> {
    #[cfg(debug_assertions)]
    let written = Value::Object(fields.clone());
    let mut typed: T = serde_json::from_value(Value::Object(fields))
        .map_err(|e| Error::protocol(format!("an action's result is not in its shape: {e}")))?;
    #[cfg(debug_assertions)]
    {
        let mut back = serde_json::to_value(&typed).ok();
        if let Some(Value::Object(map)) = back.as_mut() {
            map.remove("summary");
        }
        debug_assert_eq!(
            back.as_ref(),
            Some(&written),
            "the typed result drops or changes a field"
        );
    }
    let after = typed.aftermath();
    after.snapshot = snapshot;
    after.changes = changes;
    Ok(typed)
}
