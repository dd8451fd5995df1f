//! The commands of a [`Session`](crate::Session), as typed values: what every front end (the
//! JSON-lines `run`, the C ABI, MCP) parses its input into before the engine sees it.
//!
//! The wire form of a command is one JSON object with a `cmd` field naming it
//! (`{"cmd":"click","uid":"1_4"}`); [`Command`] is that object as a Rust enum, so a Rust caller
//! builds the same commands without JSON, and `docs/protocol.schema.json` is generated from
//! these types. [`Command::from_json`] is the one parser of the wire form: it answers bad input
//! with a message that names the command and the field and shows an example, which serde's own
//! messages do not.
//!
//! Fields that are absent or `null` take their defaults; fields a command does not know are
//! ignored (clients may send more than an older engine reads).

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::analysis::Expand;
use crate::error::{Error, Result};
use crate::extract::ExtractOptions;
use crate::render::{Format, Mode};
use crate::snapshot::SnapshotOptions;

/// One command of the session protocol (`docs/protocol.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "cmd", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Command {
    /// Navigate the current page (opening one if there is none) and wait for its `load`.
    Open(Open),
    /// Take a snapshot of the current page.
    Snapshot(SnapshotOptions),
    /// Take a snapshot and print what changed since the previous one.
    Diff(Diff),
    /// Go back one entry in the page's history.
    Back(Back),
    /// Go forward one entry in the page's history.
    Forward(Forward),
    /// Reload the page.
    Reload(Reload),
    /// List the browser's pages.
    Pages(Pages),
    /// Make another page of the browser the current one.
    SelectPage(SelectPage),
    /// Close the current page.
    Close(Close),
    /// Click an element.
    Click(Click),
    /// Move the mouse over an element.
    Hover(Hover),
    /// Type into a field, tick a checkbox or radio, or choose an option.
    Fill(Fill),
    /// Choose options of a `<select>`, a listbox or a custom drop-down.
    Select(Select),
    /// Press a key or chord, on an element or on whatever has the focus.
    Press(Press),
    /// Scroll the page or an element's scroll container.
    Scroll(Scroll),
    /// Set the files of a file input.
    Upload(Upload),
    /// Accept or dismiss the open JavaScript dialog.
    Dialog(AnswerDialog),
    /// The page's main content (or with `all`, the whole visible page) as markdown and text.
    Extract(ExtractOptions),
    /// Drag an element with the mouse and drop it on another.
    Drag(Drag),
    /// Type text into whatever has the keyboard focus.
    TypeText(TypeText),
    /// Wait until one of some texts appears on the page.
    WaitFor(WaitFor),
    /// Set the size of the page's viewport.
    Resize(Resize),
    /// Open a new tab, navigate it and make it the current page.
    NewPage(NewPage),
    /// A picture of the page, of the whole page or of one element; with `annotate`, every
    /// interactive element boxed and labelled with its uid.
    Screenshot(Screenshot),
    /// The console messages the page logged, a page of the list at a time.
    ConsoleMessages(ConsoleMessages),
    /// One console message with its arguments and stack trace.
    ConsoleMessage(ConsoleMessage),
    /// The network requests the page made, a page of the list at a time.
    NetworkRequests(NetworkRequests),
    /// One network request with its headers, timing and response body.
    NetworkRequest(NetworkRequest),
    /// Run a JavaScript function in the page's main world, with elements as its arguments.
    Evaluate(Evaluate),
}

/// `open`: navigate to a URL or a local file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Open {
    /// A URL (`https://…`, `file://…`, `data:…`) or the path of a local file.
    pub url: String,
}

macro_rules! no_fields {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
        pub struct $name {}
    )*};
}

no_fields! {
    /// `diff`: no fields; it compares in the mode of the last `snapshot`.
    Diff;
    /// `back`: no fields.
    Back;
    /// `forward`: no fields.
    Forward;
    /// `reload`: no fields.
    Reload;
    /// `pages`: no fields.
    Pages;
    /// `close`: no fields; it closes the current page.
    Close;
}

/// `select_page`: which page (an index of `pages`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SelectPage {
    /// The page's `index` in the `pages` list.
    pub index: usize,
}

/// What every action may ask for after it is done: a snapshot of the page, taken as `snapshot`
/// would with these options, and the exact change of the page's snapshot text.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct AfterAction {
    /// Take a snapshot after the action and return it in the result's `snapshot`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub snapshot: bool,
    /// How to take that snapshot.
    #[serde(flatten)]
    pub options: ActionSnapshotOptions,
    /// Take a snapshot after the action with the options of the page's last `snapshot` command
    /// (its mode, `expand` and `verbose`, as text) and return in the result's `changes` how its
    /// text differs from the page's last snapshot's, as a patch (docs/protocol.md, "Patch").
    #[serde(default, deserialize_with = "null_as_default")]
    pub diff: bool,
}

/// How to take the snapshot after an action: the fields of `snapshot` but `uid` (an action's
/// `uid` is the element it acts on).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ActionSnapshotOptions {
    /// `a11y` (default) or `dom`.
    #[serde(deserialize_with = "null_as_default")]
    pub mode: Mode,
    /// `text` (default) or `json`.
    #[serde(deserialize_with = "null_as_default")]
    pub format: Format,
    /// How far beyond the viewport to show elements (default: the viewport).
    #[serde(deserialize_with = "null_as_default")]
    pub expand: Expand,
    /// a11y mode: the full AX tree instead of the interesting nodes.
    #[serde(deserialize_with = "null_as_default")]
    pub verbose: bool,
    /// Text formats: at most this many characters (see `snapshot`).
    #[serde(rename = "maxChars", skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
}

impl ActionSnapshotOptions {
    /// The options of the `snapshot` command that takes the same snapshot.
    pub fn snapshot_options(&self) -> SnapshotOptions {
        SnapshotOptions {
            mode: self.mode,
            format: self.format,
            expand: self.expand,
            verbose: self.verbose,
            uid: None,
            max_chars: self.max_chars,
        }
    }
}

/// `click`: a trusted mouse click at a visible, uncovered point of the element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Click {
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// The mouse button (default left).
    #[serde(default, deserialize_with = "null_as_default")]
    pub button: MouseButton,
    /// 1 (click, the default), 2 (double click) or 3.
    #[serde(default = "one", deserialize_with = "click_count")]
    #[schemars(range(min = 1, max = 3))]
    pub count: u8,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

fn one() -> u8 {
    1
}

/// `hover`: move the mouse over the element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hover {
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// The longest text `fill` types, in characters.
pub const MAX_TEXT_CHARS: usize = 1_000_000;

/// `fill`: set a field's value by typing, tick or untick a checkbox or radio (`"true"` /
/// `"false"`), or choose the option of a select with this text or value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fill {
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// The text (a number or `true`/`false` is taken as its text).
    #[serde(deserialize_with = "text_like")]
    #[schemars(schema_with = "text_like_schema")]
    pub text: String,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `select`: choose options by their text or value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Select {
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// One option, or several for a multiple select.
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(schema_with = "one_or_many_schema")]
    pub option: Vec<String>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `press`: a key or chord (`Enter`, `Tab`, `Control+A`, `Shift+ArrowDown`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Press {
    /// The key or chord.
    pub key: String,
    /// Focus this element first; without it the key goes to whatever has the focus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `scroll`: scroll the page, or the scroll container of an element, with the mouse wheel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scroll {
    /// Scroll this element's nearest scroll container instead of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Which way (default down).
    #[serde(default, deserialize_with = "null_as_default")]
    pub direction: ScrollDirection,
    /// How far in CSS px (default: most of the view).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "positive_pixels"
    )]
    #[schemars(range(min = 0))]
    pub pixels: Option<f64>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `upload`: set the files of a file input (or of the input a button opens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Upload {
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// One path or several.
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(schema_with = "one_or_many_schema")]
    pub files: Vec<String>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `dialog`: answer the open `alert`, `confirm`, `prompt` or `beforeunload` dialog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerDialog {
    /// `true` presses OK, `false` Cancel.
    pub accept: bool,
    /// The text typed into a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `drag`: press the mouse on one element, move it in steps onto another and release it there
/// (HTML5 drag and drop as well as script-driven dragging).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drag {
    /// The uid of the element to drag, from the latest snapshot.
    #[serde(alias = "from_uid")]
    pub from_uid: String,
    /// The uid of the element to drop it on.
    #[serde(alias = "to_uid")]
    pub to_uid: String,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// `type_text`: type text into whatever has the keyboard focus, then optionally press a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeText {
    /// The text (a line break presses Enter).
    #[serde(deserialize_with = "text_like")]
    #[schemars(schema_with = "text_like_schema")]
    pub text: String,
    /// A key or chord to press after typing (`Enter`, `Tab`, `Escape`), as `press` takes it.
    #[serde(
        default,
        alias = "submit_key",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_name"
    )]
    pub submit_key: Option<String>,
    /// What to take after the action.
    #[serde(flatten)]
    pub then: AfterAction,
}

/// How long `wait_for` waits when no timeout is given, in ms.
pub const WAIT_FOR_DEFAULT_MS: u64 = 5_000;
/// The longest `wait_for` may be asked to wait, in ms.
pub const WAIT_FOR_MAX_MS: u64 = 60_000;

/// `wait_for`: wait until any of the texts appears on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitFor {
    /// One text, or several: the wait ends when any of them appears.
    #[serde(deserialize_with = "texts_to_find")]
    #[schemars(schema_with = "one_or_many_schema")]
    pub text: Vec<String>,
    /// How long to wait at most, in ms (default 5000, at most 60000; 0 is the default).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "wait_timeout"
    )]
    #[schemars(range(min = 0, max = 60000))]
    pub timeout: Option<u64>,
}

impl WaitFor {
    /// The wait asked for, or the default.
    pub fn timeout_ms(&self) -> u64 {
        match self.timeout {
            None | Some(0) => WAIT_FOR_DEFAULT_MS,
            Some(ms) => ms.min(WAIT_FOR_MAX_MS),
        }
    }
}

/// `screenshot`: a picture of the viewport, of the whole page (`fullPage`) or of one element
/// (`uid`), returned as base64 or written to a file (`path`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Screenshot {
    /// `png` (default), `jpeg` or `webp`. An annotated screenshot is always PNG.
    #[serde(default, deserialize_with = "null_as_default")]
    pub format: ImageFormat,
    /// Compression quality 0-100 for `jpeg` and `webp` (Chromium's default when absent); not
    /// used for PNG.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "quality"
    )]
    #[schemars(range(min = 0, max = 100))]
    pub quality: Option<u8>,
    /// Only this element (its border box, scrolled into view first), by its uid from the
    /// latest snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The whole scrollable page instead of the viewport (not with `uid`).
    #[serde(default, deserialize_with = "null_as_default")]
    pub full_page: bool,
    /// Take a snapshot first and draw a box and a uid label on every interactive element it
    /// shows in the picture.
    #[serde(default, deserialize_with = "null_as_default")]
    pub annotate: bool,
    /// Write the image to this file instead of returning its bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The encoding of a screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// Lossless; the default.
    #[default]
    Png,
    /// Lossy, small.
    Jpeg,
    /// Lossy or lossless, small.
    Webp,
}

impl ImageFormat {
    /// The wire name (`png`, `jpeg`, `webp`).
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Webp => "webp",
        }
    }
}

/// The smallest width or height `resize` takes, CSS px.
pub const VIEWPORT_MIN: u32 = 100;
/// The largest width or height `resize` takes, CSS px.
pub const VIEWPORT_MAX: u32 = 10_000;

/// `resize`: the size of the page's viewport, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Resize {
    /// The viewport's width (100 to 10000).
    #[serde(deserialize_with = "viewport_side")]
    #[schemars(range(min = 100, max = 10000))]
    pub width: u32,
    /// The viewport's height (100 to 10000).
    #[serde(deserialize_with = "viewport_side")]
    #[schemars(range(min = 100, max = 10000))]
    pub height: u32,
}

/// `new_page`: open a new tab and navigate it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NewPage {
    /// A URL (`https://…`, `file://…`, `data:…`) or the path of a local file, as `open` takes.
    pub url: String,
}

impl<'de> Deserialize<'de> for ImageFormat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match lenient_name(d)?.as_str() {
            "png" => Ok(ImageFormat::Png),
            "jpeg" | "jpg" => Ok(ImageFormat::Jpeg),
            "webp" => Ok(ImageFormat::Webp),
            other => Err(de::Error::custom(format!(
                "\"format\" must be \"png\", \"jpeg\" or \"webp\", not {other:?}"
            ))),
        }
    }
}

/// `quality`: a whole number from 0 to 100 (`80.0` is 80).
fn quality<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u8>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        None => Ok(None),
        Some(q) if (0.0..=100.0).contains(&q) && q.fract() == 0.0 => Ok(Some(q as u8)),
        Some(q) => Err(de::Error::custom(format!(
            "\"quality\" must be a whole number from 0 to 100, not {q}"
        ))),
    }
}

/// `console_messages`: which messages, and which part of the list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessages {
    /// How many messages a page of the list holds (default: all of them in one).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "page_size"
    )]
    #[schemars(range(min = 1))]
    pub page_size: Option<usize>,
    /// Which page of the list, from 0 (default 0).
    #[serde(default, deserialize_with = "null_as_default")]
    pub page_idx: usize,
    /// Only messages of these types (`log`, `info`, `warn`, `error`, `debug`, …); all when
    /// absent or empty.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub types: Vec<String>,
}

/// `console_message`: which message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleMessage {
    /// The message's `id` from `console_messages` (`msgid` is read as well).
    #[serde(alias = "msgid")]
    pub id: u64,
}

/// `network_requests`: which requests, and which part of the list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequests {
    /// How many requests a page of the list holds (default: all of them in one).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "page_size"
    )]
    #[schemars(range(min = 1))]
    pub page_size: Option<usize>,
    /// Which page of the list, from 0 (default 0).
    #[serde(default, deserialize_with = "null_as_default")]
    pub page_idx: usize,
    /// Only requests of these resource types (`document`, `script`, `stylesheet`, `image`,
    /// `font`, `xhr`, `fetch`, `other`, …); all when absent or empty.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub resource_types: Vec<String>,
}

/// `network_request`: which request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NetworkRequest {
    /// The request's `id` from `network_requests` (`reqid` is read as well).
    #[serde(alias = "reqid")]
    pub id: u64,
}

/// `evaluate`: a JavaScript function to run in the page's main world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Evaluate {
    /// The function's source, e.g. `() => document.title` or `(el) => el.innerText`; it may be
    /// `async`. Its result must be JSON-serialisable.
    pub function: String,
    /// Uids from the latest snapshot, passed to the function as its arguments (the elements).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub args: Vec<String>,
}

/// `pageSize`: a whole number of at least 1.
fn page_size<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<usize>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        None => Ok(None),
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= usize::MAX as f64 => Ok(Some(n as usize)),
        Some(n) => Err(de::Error::custom(format!(
            "\"pageSize\" must be a whole number of at least 1, not {n}"
        ))),
    }
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The main button.
    #[default]
    Left,
    /// The secondary button (a context menu).
    Right,
    /// The wheel button.
    Middle,
}

impl MouseButton {
    /// The wire name (`left`, `right`, `middle`).
    pub fn name(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }
}

/// Which way to scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDirection {
    /// Towards the end of the page.
    #[default]
    Down,
    /// Towards the top.
    Up,
    /// Towards the start of a line.
    Left,
    /// Towards the end of a line.
    Right,
}

impl ScrollDirection {
    /// The wire name (`down`, `up`, `left`, `right`).
    pub fn name(self) -> &'static str {
        match self {
            ScrollDirection::Down => "down",
            ScrollDirection::Up => "up",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        }
    }
}

/// Reads a name case-insensitively, ignoring surrounding spaces, as people type them.
fn lenient_name<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    String::deserialize(d).map(|s| s.trim().to_ascii_lowercase())
}

impl<'de> Deserialize<'de> for MouseButton {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match lenient_name(d)?.as_str() {
            "left" => Ok(MouseButton::Left),
            "right" => Ok(MouseButton::Right),
            "middle" => Ok(MouseButton::Middle),
            other => Err(de::Error::custom(format!(
                "\"button\" must be \"left\", \"right\" or \"middle\", not {other:?}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for ScrollDirection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match lenient_name(d)?.as_str() {
            "down" => Ok(ScrollDirection::Down),
            "up" => Ok(ScrollDirection::Up),
            "left" => Ok(ScrollDirection::Left),
            "right" => Ok(ScrollDirection::Right),
            other => Err(de::Error::custom(format!(
                "\"direction\" must be \"down\", \"up\", \"left\" or \"right\", not {other:?}"
            ))),
        }
    }
}

// The snapshot options' wire forms. `Mode`, `Format` and `Expand` belong to the render and the
// analysis, which know nothing of the protocol; how they are spelt on the wire is said here.

impl Serialize for Mode {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Mode::A11y => "a11y",
            Mode::Dom => "dom",
        })
    }
}

impl<'de> Deserialize<'de> for Mode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        SnapshotOptions::parse_mode(&text).map_err(|e| de::Error::custom(e.message()))
    }
}

impl JsonSchema for Mode {
    fn schema_name() -> Cow<'static, str> {
        "Mode".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "a11y: the accessibility view; dom: the indexed list of interactive elements",
            "type": "string",
            "enum": ["a11y", "dom"]
        })
    }
}

impl Serialize for Format {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Format::Text => "text",
            Format::Json => "json",
        })
    }
}

impl<'de> Deserialize<'de> for Format {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        SnapshotOptions::parse_format(&text).map_err(|e| de::Error::custom(e.message()))
    }
}

impl JsonSchema for Format {
    fn schema_name() -> Cow<'static, str> {
        "Format".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": ["text", "json"] })
    }
}

impl Serialize for Expand {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Expand::Viewport => s.serialize_f64(0.0),
            Expand::Pixels(px) => s.serialize_f64(px),
            Expand::All => s.serialize_str("all"),
        }
    }
}

impl<'de> Deserialize<'de> for Expand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = match Value::deserialize(d)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            _ => {
                return Err(de::Error::custom(
                    "\"expand\" must be a number of pixels or \"all\"",
                ))
            }
        };
        SnapshotOptions::parse_expand(&text).map_err(|e| de::Error::custom(e.message()))
    }
}

impl JsonSchema for Expand {
    fn schema_name() -> Cow<'static, str> {
        "Expand".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "How far beyond the viewport elements are shown: CSS px (0: the viewport only), or \"all\" for the whole page",
            "anyOf": [
                { "type": "number", "minimum": 0 },
                { "type": "string", "enum": ["all"] }
            ]
        })
    }
}

/// A field whose `null` means "not given".
pub(crate) fn null_as_default<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

/// `count`: 1, 2 or 3 (`2.0` is 2).
fn click_count<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u8, D::Error> {
    match Option::<f64>::deserialize(d)? {
        None => Ok(1),
        Some(n) if n == 1.0 || n == 2.0 || n == 3.0 => Ok(n as u8),
        Some(n) => Err(de::Error::custom(format!(
            "\"count\" must be 1 (click), 2 (double click) or 3, not {n}"
        ))),
    }
}

/// `pixels`: a positive, finite number.
fn positive_pixels<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    let pixels = Option::<f64>::deserialize(d)?;
    match pixels {
        Some(p) if !(p.is_finite() && p > 0.0) => Err(de::Error::custom(
            "\"pixels\" must be a positive number (use \"direction\" to go up or left)",
        )),
        _ => Ok(pixels),
    }
}

/// An optional key name: absent, `null` or blank is none.
fn optional_name<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let name = Option::<String>::deserialize(d)?;
    Ok(name.filter(|n| !n.trim().is_empty()))
}

/// `wait_for`'s texts: one string or a list, none of them empty.
fn texts_to_find<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    let texts = one_or_many(d)?;
    if texts.is_empty() || texts.iter().any(|t| t.trim().is_empty()) {
        return Err(de::Error::custom(
            "\"text\" must name at least one text to wait for, none of them empty",
        ));
    }
    Ok(texts)
}

/// `wait_for`'s `timeout`: a whole number of ms, 0 to 60000 (`null` or 0: the default).
fn wait_timeout<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<u64>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        None => Ok(None),
        Some(ms) if ms.is_finite() && ms >= 0.0 && ms.fract() == 0.0 => {
            if ms > WAIT_FOR_MAX_MS as f64 {
                return Err(de::Error::custom(format!(
                    "\"timeout\" is at most {WAIT_FOR_MAX_MS} ms, not {ms}; wait again if the \
                     page needs longer"
                )));
            }
            Ok(Some(ms as u64))
        }
        Some(ms) => Err(de::Error::custom(format!(
            "\"timeout\" must be a whole number of milliseconds from 0 to {WAIT_FOR_MAX_MS}, not {ms}"
        ))),
    }
}

/// A side of the viewport: a whole number of CSS px within the bounds.
fn viewport_side<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    let px = f64::deserialize(d)?;
    if !(px.is_finite() && px.fract() == 0.0)
        || px < f64::from(VIEWPORT_MIN)
        || px > f64::from(VIEWPORT_MAX)
    {
        return Err(de::Error::custom(format!(
            "\"width\" and \"height\" must be whole CSS px from {VIEWPORT_MIN} to {VIEWPORT_MAX}, \
             not {px}"
        )));
    }
    Ok(px as u32)
}

/// A string, or a number or boolean taken as its text (`fill`'s `"true"` for a checkbox).
fn text_like<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(de::Error::custom(
            "must be a string (\"true\"/\"false\" for checkboxes)",
        )),
    }
}

fn text_like_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": ["string", "number", "boolean"] })
}

/// A string, or a list of strings.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(s)) => Ok(vec![s]),
        Ok(OneOrMany::Many(v)) => Ok(v),
        Err(_) => Err(de::Error::custom("must be a string or a list of strings")),
    }
}

fn one_or_many_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "string" } }
        ]
    })
}

/// The name and an example line of every command, in the order `docs/protocol.md` lists them.
const COMMANDS: &[(&str, &str)] = &[
    ("open", r#"{"cmd":"open","url":"https://example.com"}"#),
    ("snapshot", r#"{"cmd":"snapshot","mode":"a11y"}"#),
    ("diff", r#"{"cmd":"diff"}"#),
    ("back", r#"{"cmd":"back"}"#),
    ("forward", r#"{"cmd":"forward"}"#),
    ("reload", r#"{"cmd":"reload"}"#),
    ("pages", r#"{"cmd":"pages"}"#),
    ("select_page", r#"{"cmd":"select_page","index":1}"#),
    ("close", r#"{"cmd":"close"}"#),
    ("click", r#"{"cmd":"click","uid":"1_4"}"#),
    ("hover", r#"{"cmd":"hover","uid":"1_4"}"#),
    ("fill", r#"{"cmd":"fill","uid":"1_5","text":"Ada"}"#),
    (
        "select",
        r#"{"cmd":"select","uid":"1_7","option":"Portugal"}"#,
    ),
    ("press", r#"{"cmd":"press","key":"Control+A"}"#),
    ("scroll", r#"{"cmd":"scroll","direction":"down"}"#),
    (
        "upload",
        r#"{"cmd":"upload","uid":"1_9","files":["cv.pdf"]}"#,
    ),
    ("dialog", r#"{"cmd":"dialog","accept":true}"#),
    ("extract", r#"{"cmd":"extract"}"#),
    ("drag", r#"{"cmd":"drag","fromUid":"1_12","toUid":"1_15"}"#),
    (
        "type_text",
        r#"{"cmd":"type_text","text":"Ada","submitKey":"Enter"}"#,
    ),
    ("wait_for", r#"{"cmd":"wait_for","text":["Saved","Error"]}"#),
    ("resize", r#"{"cmd":"resize","width":390,"height":844}"#),
    (
        "new_page",
        r#"{"cmd":"new_page","url":"https://example.com"}"#,
    ),
    (
        "screenshot",
        r#"{"cmd":"screenshot","format":"png","annotate":true}"#,
    ),
    (
        "console_messages",
        r#"{"cmd":"console_messages","pageSize":20,"types":["error","warn"]}"#,
    ),
    ("console_message", r#"{"cmd":"console_message","id":3}"#),
    (
        "network_requests",
        r#"{"cmd":"network_requests","pageSize":20,"resourceTypes":["fetch","xhr"]}"#,
    ),
    ("network_request", r#"{"cmd":"network_request","id":2}"#),
    (
        "evaluate",
        r#"{"cmd":"evaluate","function":"(el) => el.innerText","args":["1_4"]}"#,
    ),
];

/// How deeply a command line's arrays and objects may nest: serde_json's recursion limit (its
/// depth counter starts at 128 and an opening bracket that brings it to zero is refused), which
/// refuses deeper JSON with an error before it can overflow the stack. No command needs more
/// than three levels.
pub const MAX_JSON_DEPTH: usize = 127;

impl Command {
    /// The names of all commands (`open`, `snapshot`, …).
    pub fn names() -> impl Iterator<Item = &'static str> {
        COMMANDS.iter().map(|(name, _)| *name)
    }

    /// An example line of the command `name`, if there is such a command.
    pub fn example(name: &str) -> Option<&'static str> {
        COMMANDS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
    }

    /// This command's name on the wire (`cmd`).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Open(_) => "open",
            Command::Snapshot(_) => "snapshot",
            Command::Diff(_) => "diff",
            Command::Back(_) => "back",
            Command::Forward(_) => "forward",
            Command::Reload(_) => "reload",
            Command::Pages(_) => "pages",
            Command::SelectPage(_) => "select_page",
            Command::Close(_) => "close",
            Command::Click(_) => "click",
            Command::Hover(_) => "hover",
            Command::Fill(_) => "fill",
            Command::Select(_) => "select",
            Command::Press(_) => "press",
            Command::Scroll(_) => "scroll",
            Command::Upload(_) => "upload",
            Command::Dialog(_) => "dialog",
            Command::Extract(_) => "extract",
            Command::Drag(_) => "drag",
            Command::TypeText(_) => "type_text",
            Command::WaitFor(_) => "wait_for",
            Command::Resize(_) => "resize",
            Command::NewPage(_) => "new_page",
            Command::Screenshot(_) => "screenshot",
            Command::ConsoleMessages(_) => "console_messages",
            Command::ConsoleMessage(_) => "console_message",
            Command::NetworkRequests(_) => "network_requests",
            Command::NetworkRequest(_) => "network_request",
            Command::Evaluate(_) => "evaluate",
        }
    }

    /// Parses one command line of the `run` protocol.
    ///
    /// JSON nested deeper than [`MAX_JSON_DEPTH`] is refused (serde_json's own limit, which
    /// keeps a hostile line from overflowing the stack), with an error that says so.
    pub fn from_line(line: &str) -> Result<Command> {
        let value: Value = serde_json::from_str(line).map_err(|e| {
            let e = e.to_string();
            if e.starts_with("recursion limit exceeded") {
                Error::invalid_argument(format!(
                    "the line nests arrays and objects deeper than {MAX_JSON_DEPTH} levels ({e}); \
                     a command is one JSON object per line, like {{\"cmd\":\"snapshot\"}}"
                ))
            } else {
                Error::invalid_argument(format!(
                    "a command is one JSON object per line, like {{\"cmd\":\"snapshot\"}}: {e}"
                ))
            }
        })?;
        Command::from_json(&value)
    }

    /// Reads a command object (`{"cmd": …, …}`), with errors that name the command and the
    /// field and show an example.
    pub fn from_json(value: &Value) -> Result<Command> {
        let map = value.as_object().ok_or_else(|| {
            Error::invalid_argument("a command is a JSON object like {\"cmd\":\"snapshot\"}")
        })?;
        let cmd = map.get("cmd").and_then(Value::as_str).ok_or_else(|| {
            Error::invalid_argument("the command has no \"cmd\" field (a string)")
        })?;
        let Some(example) = Command::example(cmd) else {
            return Err(Error::invalid_argument(format!(
                "unknown command {cmd:?}; commands are {}",
                Command::names().collect::<Vec<_>>().join(", ")
            )));
        };
        // Each command's fields are read on their own, so a failure knows its field's path
        // (through an internally tagged enum serde loses it).
        fn fields<T: serde::de::DeserializeOwned>(
            value: &Value,
            cmd: &str,
            example: &str,
        ) -> Result<T> {
            serde_path_to_error::deserialize(value).map_err(|e| field_error(e, cmd, example))
        }
        let e = example;
        Ok(match cmd {
            "open" => Command::Open(fields(value, cmd, e)?),
            "snapshot" => Command::Snapshot(fields(value, cmd, e)?),
            "diff" => Command::Diff(fields(value, cmd, e)?),
            "back" => Command::Back(fields(value, cmd, e)?),
            "forward" => Command::Forward(fields(value, cmd, e)?),
            "reload" => Command::Reload(fields(value, cmd, e)?),
            "pages" => Command::Pages(fields(value, cmd, e)?),
            "select_page" => Command::SelectPage(fields(value, cmd, e)?),
            "close" => Command::Close(fields(value, cmd, e)?),
            "click" => Command::Click(fields(value, cmd, e)?),
            "hover" => Command::Hover(fields(value, cmd, e)?),
            "fill" => Command::Fill(fields(value, cmd, e)?),
            "select" => Command::Select(fields(value, cmd, e)?),
            "press" => Command::Press(fields(value, cmd, e)?),
            "scroll" => Command::Scroll(fields(value, cmd, e)?),
            "upload" => Command::Upload(fields(value, cmd, e)?),
            "dialog" => Command::Dialog(fields(value, cmd, e)?),
            "extract" => Command::Extract(fields(value, cmd, e)?),
            "drag" => Command::Drag(fields(value, cmd, e)?),
            "type_text" => Command::TypeText(fields(value, cmd, e)?),
            "wait_for" => Command::WaitFor(fields(value, cmd, e)?),
            "resize" => Command::Resize(fields(value, cmd, e)?),
            "new_page" => Command::NewPage(fields(value, cmd, e)?),
            "screenshot" => Command::Screenshot(fields(value, cmd, e)?),
            "console_messages" => Command::ConsoleMessages(fields(value, cmd, e)?),
            "console_message" => Command::ConsoleMessage(fields(value, cmd, e)?),
            "network_requests" => Command::NetworkRequests(fields(value, cmd, e)?),
            "network_request" => Command::NetworkRequest(fields(value, cmd, e)?),
            "evaluate" => Command::Evaluate(fields(value, cmd, e)?),
            other => {
                return Err(Error::invalid_argument(format!(
                    "the command {other:?} is listed but not read; this is a bug"
                )))
            }
        })
    }

    /// The JSON Schema of every command (`docs/protocol.schema.json`).
    pub fn json_schema() -> Schema {
        schemars::schema_for!(Command)
    }
}

/// The message of a field that could not be read: which field of which command, what it must
/// be, and an example.
fn field_error(
    e: serde_path_to_error::Error<serde_json::Error>,
    cmd: &str,
    example: &str,
) -> Error {
    let path = e.path().to_string();
    let inner = e.into_inner().to_string();
    if let Some(missing) = inner
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        return Error::invalid_argument(format!(
            "{cmd:?} needs a {missing:?} field, e.g. {example}"
        ));
    }
    let field = path.split('.').next().unwrap_or("").to_string();
    if let Some(expected) = inner.split(", expected ").nth(1) {
        // serde's "invalid type: integer `5`, expected a string"
        return Error::invalid_argument(format!(
            "the {field:?} field of {cmd:?} must be {expected}, e.g. {example}"
        ));
    }
    if inner.starts_with('"') {
        // One of the messages above, which names its field already.
        return Error::invalid_argument(inner);
    }
    if field.is_empty() || field == "?" {
        return Error::invalid_argument(format!("{cmd:?}: {inner}, e.g. {example}"));
    }
    Error::invalid_argument(format!(
        "the {field:?} field of {cmd:?} {inner}, e.g. {example}"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn deep_nesting_is_a_clear_error() {
        for open in ["[", "{\"a\":"] {
            let line = open.repeat(100_000);
            let e = Command::from_line(&line).expect_err("too deep");
            assert_eq!(e.code(), crate::ErrorCode::InvalidArgument);
            assert!(
                e.message()
                    .contains(&format!("deeper than {MAX_JSON_DEPTH}")),
                "{}",
                e.message()
            );
        }
        // Just within the limit: a JSON error of another kind (not an object).
        let line = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        let e = Command::from_line(&line).expect_err("not an object");
        assert!(!e.message().contains("deeper"), "{}", e.message());
    }

    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Command> {
        Command::from_json(&v)
    }

    fn message(v: Value) -> String {
        match parse(v) {
            Ok(c) => panic!("expected an error, got {c:?}"),
            Err(e) => e.message().to_string(),
        }
    }

    #[test]
    fn every_example_parses_to_its_command_both_ways() {
        for (name, example) in COMMANDS {
            let from_line = Command::from_line(example).expect(name);
            assert_eq!(from_line.name(), *name);
            // The derived form of the enum reads the same line to the same command.
            let derived: Command = serde_json::from_str(example).expect(name);
            assert_eq!(derived, from_line, "{name}");
            // And writes it back to a line that reads the same.
            let written = serde_json::to_string(&from_line).expect("serialise");
            assert_eq!(Command::from_line(&written).expect(name), from_line);
        }
    }

    #[test]
    fn fields_take_their_defaults_when_absent_or_null() {
        let Command::Click(c) =
            parse(json!({"cmd":"click","uid":"1_2","button":null,"count":null,"diff":null}))
                .expect("click")
        else {
            panic!("not a click")
        };
        assert_eq!(c.button, MouseButton::Left);
        assert_eq!(c.count, 1);
        assert!(!c.then.snapshot);
        assert!(!c.then.diff);
        let Command::Snapshot(s) =
            parse(json!({"cmd":"snapshot","mode":"dom","expand":"ALL","verbose":null}))
                .expect("snapshot")
        else {
            panic!("not a snapshot")
        };
        assert_eq!(s.mode, Mode::Dom);
        assert_eq!(s.expand, Expand::All);
        assert!(!s.verbose);
    }

    #[test]
    fn lenient_values_read_as_before() {
        let Command::Fill(f) = parse(json!({"cmd":"fill","uid":"1","text":true})).expect("fill")
        else {
            panic!()
        };
        assert_eq!(f.text, "true");
        let Command::Fill(f) = parse(json!({"cmd":"fill","uid":"1","text":42})).expect("fill")
        else {
            panic!()
        };
        assert_eq!(f.text, "42");
        let Command::Select(s) =
            parse(json!({"cmd":"select","uid":"1","option":"A"})).expect("select")
        else {
            panic!()
        };
        assert_eq!(s.option, vec!["A".to_string()]);
        let Command::Click(c) =
            parse(json!({"cmd":"click","uid":"1","count":2.0,"button":" Right "})).expect("click")
        else {
            panic!()
        };
        assert_eq!((c.count, c.button), (2, MouseButton::Right));
        let Command::Snapshot(s) = parse(json!({"cmd":"snapshot","expand":300})).expect("expand")
        else {
            panic!()
        };
        assert_eq!(s.expand, Expand::Pixels(300.0));
        let Command::Click(c) =
            parse(json!({"cmd":"click","uid":"1","snapshot":true,"mode":"dom"})).expect("click")
        else {
            panic!()
        };
        assert!(c.then.snapshot);
        assert_eq!(c.then.options.mode, Mode::Dom);
    }

    #[test]
    fn bad_input_names_the_command_and_the_field() {
        let m = message(json!({"cmd":"open"}));
        assert!(m.contains("\"open\" needs a \"url\" field"), "{m}");
        assert!(m.contains("https://example.com"), "{m}");
        let m = message(json!({"cmd":"open","url":5}));
        assert!(
            m.contains("the \"url\" field of \"open\" must be a string"),
            "{m}"
        );
        let m = message(json!({"cmd":"click"}));
        assert!(m.contains("\"click\" needs a \"uid\" field"), "{m}");
        let m = message(json!({"cmd":"click","uid":"1","count":4}));
        assert!(m.contains("\"count\" must be 1"), "{m}");
        let m = message(json!({"cmd":"click","uid":"1","button":"up"}));
        assert!(m.contains("\"button\" must be \"left\""), "{m}");
        let m = message(json!({"cmd":"scroll","pixels":-3}));
        assert!(m.contains("\"pixels\" must be a positive number"), "{m}");
        let m = message(json!({"cmd":"snapshot","mode":"pixels"}));
        assert!(m.contains("mode must be"), "{m}");
        let m = message(json!({"cmd":"snapshot","expand":[1]}));
        assert!(m.contains("\"expand\" must be a number of pixels"), "{m}");
        let m = message(json!({"cmd":"select","uid":"1","option":[1]}));
        assert!(m.contains("\"option\""), "{m}");
        assert!(m.contains("a string or a list of strings"), "{m}");
        let m = message(json!({"cmd":"fly"}));
        assert!(
            m.contains("unknown command \"fly\"; commands are open, snapshot"),
            "{m}"
        );
        let m = message(json!(["cmd"]));
        assert!(m.contains("a command is a JSON object"), "{m}");
        let m = message(json!({"url":"x"}));
        assert!(m.contains("no \"cmd\" field"), "{m}");
        let m = message(json!({"cmd":"dialog"}));
        assert!(m.contains("\"dialog\" needs a \"accept\" field"), "{m}");
    }

    #[test]
    fn the_input_commands_read_leniently_and_check_their_bounds() {
        let Command::Drag(d) =
            parse(json!({"cmd":"drag","from_uid":"1_2","to_uid":"1_3","snapshot":null}))
                .expect("drag")
        else {
            panic!("not a drag")
        };
        assert_eq!((d.from_uid.as_str(), d.to_uid.as_str()), ("1_2", "1_3"));
        let m = message(json!({"cmd":"drag","fromUid":"1_2"}));
        assert!(m.contains("\"drag\" needs a \"toUid\" field"), "{m}");
        let Command::TypeText(t) =
            parse(json!({"cmd":"type_text","text":42,"submitKey":" "})).expect("type_text")
        else {
            panic!("not type_text")
        };
        assert_eq!((t.text.as_str(), t.submit_key), ("42", None));
        let Command::WaitFor(w) =
            parse(json!({"cmd":"wait_for","text":"Saved","timeout":0})).expect("wait_for")
        else {
            panic!("not wait_for")
        };
        assert_eq!(w.text, vec!["Saved".to_string()]);
        assert_eq!(w.timeout_ms(), WAIT_FOR_DEFAULT_MS);
        let m = message(json!({"cmd":"wait_for","text":["a",""]}));
        assert!(m.contains("none of them empty"), "{m}");
        let m = message(json!({"cmd":"wait_for","text":"a","timeout":-5}));
        assert!(m.contains("\"timeout\" must be a whole number"), "{m}");
        let m = message(json!({"cmd":"wait_for","text":"a","timeout":60001}));
        assert!(m.contains("at most 60000"), "{m}");
        let Command::Resize(r) =
            parse(json!({"cmd":"resize","width":800.0,"height":600})).expect("resize")
        else {
            panic!("not resize")
        };
        assert_eq!((r.width, r.height), (800, 600));
        let m = message(json!({"cmd":"resize","width":99,"height":600}));
        assert!(m.contains("from 100 to 10000"), "{m}");
        let m = message(json!({"cmd":"resize","width":"wide","height":600}));
        assert!(m.contains("\"width\""), "{m}");
        let m = message(json!({"cmd":"new_page"}));
        assert!(m.contains("\"new_page\" needs a \"url\" field"), "{m}");
    }

    #[test]
    fn screenshot_fields_read_leniently() {
        let Command::Screenshot(s) = parse(json!({"cmd":"screenshot"})).expect("screenshot") else {
            panic!()
        };
        assert_eq!(s, Screenshot::default());
        assert_eq!(s.format, ImageFormat::Png);
        let Command::Screenshot(s) = parse(json!({
            "cmd":"screenshot","format":" JPEG ","quality":80.0,"fullPage":true,
            "annotate":null,"uid":null,"path":null
        }))
        .expect("screenshot") else {
            panic!()
        };
        assert_eq!(s.format, ImageFormat::Jpeg);
        assert_eq!(s.quality, Some(80));
        assert!(s.full_page && !s.annotate);
        assert_eq!((s.uid, s.path), (None, None));
        let m = message(json!({"cmd":"screenshot","quality":101}));
        assert!(
            m.contains("\"quality\" must be a whole number from 0 to 100"),
            "{m}"
        );
        let m = message(json!({"cmd":"screenshot","format":"gif"}));
        assert!(m.contains("\"format\" must be \"png\""), "{m}");
    }

    #[test]
    fn the_debugging_commands_read_their_ids_and_paging_leniently() {
        let Command::ConsoleMessage(c) =
            parse(json!({"cmd":"console_message","msgid":3})).expect("msgid")
        else {
            panic!("not a console_message")
        };
        assert_eq!(c.id, 3);
        let Command::NetworkRequest(r) =
            parse(json!({"cmd":"network_request","reqid":4})).expect("reqid")
        else {
            panic!("not a network_request")
        };
        assert_eq!(r.id, 4);
        let Command::ConsoleMessages(l) =
            parse(json!({"cmd":"console_messages","pageSize":2.0,"pageIdx":null,"types":null}))
                .expect("paging")
        else {
            panic!("not console_messages")
        };
        assert_eq!((l.page_size, l.page_idx, l.types.len()), (Some(2), 0, 0));
        let m = message(json!({"cmd":"network_requests","pageSize":0}));
        assert!(m.contains("\"pageSize\" must be a whole number"), "{m}");
        let m = message(json!({"cmd":"evaluate"}));
        assert!(m.contains("\"evaluate\" needs a \"function\" field"), "{m}");
    }

    #[test]
    fn unknown_fields_are_ignored() {
        assert!(parse(json!({"cmd":"diff","extra":1})).is_ok());
        assert!(parse(json!({"cmd":"open","url":"x","whatever":[1,2]})).is_ok());
    }

    #[test]
    fn the_schema_lists_every_command() {
        let schema = serde_json::to_string(&Command::json_schema()).expect("schema");
        for name in Command::names() {
            assert!(schema.contains(&format!("\"const\":\"{name}\"")), "{name}");
        }
    }
}
