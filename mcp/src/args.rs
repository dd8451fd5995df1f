//! The arguments of each tool, as typed values: chrome-devtools-mcp 1.11's names and types, so
//! its clients' calls are accepted unchanged, plus pagesight's own additions. The tools' input
//! schemas in `tools/list` are generated from these types.
//!
//! Descriptions are short on purpose: the tool list is sent to the model in every conversation.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

use pagesight::Error;

/// Reads a tool's arguments into its type, with a message that names the field at fault.
pub fn parse<T: DeserializeOwned>(tool: &str, arguments: serde_json::Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            Error::invalid_argument(format!("{tool}: {inner}"))
        } else {
            Error::invalid_argument(format!("{tool}: the argument {path}: {inner}"))
        }
    })
}

/// `null` reads as the field's default, as in the engine's own commands.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// One string or a list of them.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

/// `take_snapshot`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeSnapshot {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// Every accessibility node, not only the useful ones.
    #[serde(default, deserialize_with = "null_default")]
    pub verbose: bool,
    /// Only this element's subtree.
    #[serde(default)]
    pub uid: Option<String>,
    /// Character budget; what does not fit is named with the uid that shows it.
    #[serde(default)]
    pub max_chars: Option<usize>,
    /// Save the snapshot to this file (in an allowed folder) instead of returning it.
    #[serde(default)]
    pub file_path: Option<String>,
}

/// `click`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Click {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// Double click.
    #[serde(default, deserialize_with = "null_default")]
    pub dbl_click: bool,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// `hover`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hover {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// `fill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fill {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The element's uid from the latest snapshot.
    pub uid: String,
    /// The text; an option's text or value for a select; "true"/"false" for a checkbox.
    pub value: String,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// One field of `fill_form`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FormField {
    /// The element's uid.
    pub uid: String,
    /// Its value, as for fill.
    pub value: String,
}

/// `fill_form`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillForm {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The fields, filled in this order.
    pub elements: Vec<FormField>,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// `press_key`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PressKey {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// A key or chord: "Enter", "Control+A", "Shift+Tab".
    pub key: String,
    /// Focus this element first (default: the focused one).
    #[serde(default)]
    pub uid: Option<String>,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// `upload_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadFile {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The file input's uid (or the element that opens the file chooser).
    pub uid: String,
    /// The files to set (in allowed folders).
    #[serde(default, deserialize_with = "one_or_many", alias = "filePath")]
    #[schemars(length(min = 1))]
    pub file_paths: Vec<String>,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// Accept or dismiss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DialogAction {
    /// Press OK.
    Accept,
    /// Press Cancel.
    Dismiss,
}

/// `handle_dialog`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandleDialog {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// What to press.
    pub action: DialogAction,
    /// The text for a prompt.
    #[serde(default)]
    pub prompt_text: Option<String>,
}

/// How `navigate_page` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NavigationType {
    /// To `url`.
    #[default]
    Url,
    /// Back in history.
    Back,
    /// Forward in history.
    Forward,
    /// Reload.
    Reload,
}

/// `navigate_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NavigatePage {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// url (default), back, forward or reload.
    #[serde(default, rename = "type", deserialize_with = "null_default")]
    pub kind: NavigationType,
    /// Where to go (type url).
    #[serde(default)]
    pub url: Option<String>,
}

/// `new_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewPage {
    /// What to load in the new tab.
    pub url: String,
}

/// `select_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectPage {
    /// The page's id from list_pages.
    pub page_id: u32,
}

/// `close_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClosePage {
    /// The page's id from list_pages.
    pub page_id: u32,
}

/// `extract_markdown`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtractMarkdown {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The whole visible page, not only its main content.
    #[serde(default, deserialize_with = "null_default")]
    pub all: bool,
}

/// `scroll`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scroll {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// Which way (default down).
    #[serde(default, deserialize_with = "null_default")]
    pub direction: pagesight::command::ScrollDirection,
    /// Scroll this element's container instead of the page.
    #[serde(default)]
    pub uid: Option<String>,
    /// How far, in CSS px (default: most of a screen).
    #[serde(default)]
    pub pixels: Option<f64>,
}

/// `drag`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drag {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The uid of the element to drag.
    #[serde(rename = "from_uid", alias = "fromUid")]
    pub from_uid: String,
    /// The uid of the element to drop it on.
    #[serde(rename = "to_uid", alias = "toUid")]
    pub to_uid: String,
    /// Answer with the new snapshot, not what changed.
    #[serde(default, deserialize_with = "null_default")]
    pub include_snapshot: bool,
}

/// `type_text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeText {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The text.
    pub text: String,
    /// A key to press afterwards ("Enter", "Tab").
    #[serde(default)]
    pub submit_key: Option<String>,
}

/// `wait_for`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitFor {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// Texts; the wait ends when any of them shows.
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(length(min = 1))]
    pub text: Vec<String>,
    /// Milliseconds (default 5000, at most 60000; 0 or less: the default).
    #[serde(default)]
    pub timeout: Option<i64>,
}

/// `resize_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResizePage {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// Viewport width, CSS px.
    pub width: u32,
    /// Viewport height, CSS px.
    pub height: u32,
}

/// `take_screenshot`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeScreenshot {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// png (default), jpeg or webp.
    #[serde(default, deserialize_with = "null_default")]
    pub format: pagesight::command::ImageFormat,
    /// 0-100, for jpeg and webp.
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    pub quality: Option<f64>,
    /// Only this element.
    #[serde(default)]
    pub uid: Option<String>,
    /// The whole scrollable page (not with uid).
    #[serde(default, deserialize_with = "null_default")]
    pub full_page: bool,
    /// Box and label every interactive element with its snapshot uid (PNG).
    #[serde(default, deserialize_with = "null_default")]
    pub annotate: bool,
    /// Save the image to this file (in an allowed folder) instead of returning it.
    #[serde(default)]
    pub file_path: Option<String>,
}

/// An engine command that takes no more than it says, on a page.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnPage<T> {
    #[serde(default)]
    #[schemars(description = "Page id from list_pages (default: the selected one).")]
    pub page_id: Option<u32>,
    /// The command.
    #[serde(flatten)]
    pub command: T,
}
