//! Console messages: `console.*` calls (`Runtime.consoleAPICalled`), uncaught exceptions
//! (`Runtime.exceptionThrown`) and what the browser itself logs about the page
//! (`Log.entryAdded`: failed loads, violations, deprecations, interventions).
//!
//! Why one list with one `type` for all three: an agent asks "what went wrong", not which
//! domain said it. The types are the console's own names as DevTools clients spell them
//! (`log`, `warn`, `error`, …; Chromium's `warning` is `warn`), an exception is an `error`,
//! and `source` says where a message came from (`console-api`, `exception`, or the browser's
//! source: `network`, `violation`, `javascript`, …).
//!
//! Why arguments are kept as previews: Chromium sends each argument as a remote object with a
//! short preview of its properties; the preview is what a person sees in the console, and the
//! remote objects may be gone (the document navigated) by the time anyone asks. Strings are
//! cut at [`MAX_TEXT`] so a page that logs megabytes cannot fill the session's memory.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{unknown_id, Paging, MAX_MESSAGES};
use crate::cdp::runtime::{
    ConsoleAPICalledEvent, ConsoleAPICalledType, ExceptionThrownEvent, ObjectPreview, RemoteObject,
    StackTrace,
};
use crate::cdp::{log, Event};
use crate::error::Result;
use crate::transport::RawEvent;

/// The most characters of a message's text, or of one string argument, that are kept.
const MAX_TEXT: usize = 10_000;
/// The most stack frames kept of a message.
const MAX_FRAMES: usize = 50;

/// One console message as `console_messages` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConsoleMessageSummary {
    /// The message's id on this page (what `console_message` takes).
    pub id: u64,
    /// `log`, `debug`, `info`, `error`, `warn`, `dir`, `table`, `trace`, `assert`, `count`,
    /// `timeEnd`, `verbose`, … (an uncaught exception is an `error`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The message as the console shows it: the arguments joined by spaces.
    pub text: String,
    /// `console-api` (a `console.*` call), `exception` (uncaught), or what of the browser
    /// logged it (`network`, `violation`, `javascript`, `deprecation`, `intervention`, …).
    pub source: String,
    /// The script or resource it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its line there (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    /// Its column there (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<i64>,
}

/// One call frame of a message's stack trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackFrame {
    /// The function's name (empty for top-level code).
    pub function: String,
    /// The script's URL.
    pub url: String,
    /// The line (from 1).
    pub line: i64,
    /// The column (from 1).
    pub column: i64,
}

/// `console_message`: one message in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessageDetail {
    /// What the list shows of it.
    #[serde(flatten)]
    pub message: ConsoleMessageSummary,
    /// Each argument of the `console.*` call: a string, number or boolean as itself, an
    /// object or array as the preview the console shows (property values as text), anything
    /// else as its description.
    pub args: Vec<Value>,
    /// Where it was logged or thrown, innermost call first (empty when Chromium gave none).
    pub stack_trace: Vec<StackFrame>,
    /// When, in milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<f64>,
}

/// `console_messages`: one page of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessageList {
    /// The messages of this page of the list, oldest first.
    pub messages: Vec<ConsoleMessageSummary>,
    /// How many messages (of the requested types) the page has kept.
    pub total: usize,
    /// How many pages of `pageSize` those make.
    pub pages: usize,
    /// The page of the list returned.
    pub page_idx: usize,
    /// How many older messages were dropped to keep the newest 1000.
    pub dropped: u64,
}

#[derive(Debug, Clone)]
struct Entry {
    detail: ConsoleMessageDetail,
}

/// The messages of one page.
#[derive(Debug)]
pub(super) struct Console {
    entries: VecDeque<Entry>,
    next_id: u64,
    dropped: u64,
}

impl Default for Console {
    fn default() -> Self {
        Console {
            entries: VecDeque::new(),
            next_id: 1,
            dropped: 0,
        }
    }
}

impl Console {
    /// Folds in an event if it is a console one; whether it was.
    pub(super) fn apply(&mut self, event: &RawEvent) -> bool {
        match &*event.method {
            ConsoleAPICalledEvent::METHOD => {
                if let Ok(e) = event.parse::<ConsoleAPICalledEvent>() {
                    self.push(from_console_call(e));
                }
                true
            }
            ExceptionThrownEvent::METHOD => {
                if let Ok(e) = event.parse::<ExceptionThrownEvent>() {
                    self.push(from_exception(e));
                }
                true
            }
            log::EntryAddedEvent::METHOD => {
                if let Ok(e) = event.parse::<log::EntryAddedEvent>() {
                    self.push(from_log_entry(e.entry));
                }
                true
            }
            _ => false,
        }
    }

    fn push(&mut self, mut detail: ConsoleMessageDetail) {
        detail.message.id = self.next_id;
        self.next_id += 1;
        if self.entries.len() >= MAX_MESSAGES {
            self.entries.pop_front();
            self.dropped += 1;
        }
        self.entries.push_back(Entry { detail });
    }

    pub(super) fn list(&self, types: &[String], paging: Paging) -> Result<ConsoleMessageList> {
        let wanted = |e: &&Entry| types.is_empty() || types.contains(&e.detail.message.kind);
        let total = self.entries.iter().filter(wanted).count();
        let (range, pages) = paging.range(total)?;
        let messages = self
            .entries
            .iter()
            .filter(wanted)
            .skip(range.start)
            .take(range.len())
            .map(|e| e.detail.message.clone())
            .collect();
        Ok(ConsoleMessageList {
            messages,
            total,
            pages,
            page_idx: paging.page_idx,
            dropped: self.dropped,
        })
    }

    pub(super) fn get(&self, id: u64) -> Result<ConsoleMessageDetail> {
        let oldest = self.entries.front().map(|e| e.detail.message.id);
        // Ids are given in order and only the oldest are dropped: the entries' ids are
        // consecutive.
        let found = oldest
            .and_then(|first| id.checked_sub(first))
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.entries.get(i))
            .filter(|e| e.detail.message.id == id);
        match found {
            Some(e) => Ok(e.detail.clone()),
            None => Err(unknown_id(
                "console message",
                id,
                oldest,
                self.next_id,
                "console_messages",
            )),
        }
    }
}

/// A message with no id yet (given by [`Console::push`]).
fn message(
    kind: &str,
    text: String,
    source: &str,
    stack: Option<&StackTrace>,
    url: Option<String>,
    line: Option<i64>,
    timestamp: f64,
) -> ConsoleMessageDetail {
    let stack_trace = stack.map(frames).unwrap_or_default();
    let top = stack_trace.first();
    let url = url
        .filter(|u| !u.is_empty())
        .or_else(|| top.map(|f| f.url.clone()).filter(|u| !u.is_empty()));
    let (line, column) = match (line, top) {
        (Some(l), _) => (Some(l + 1), None),
        (None, Some(f)) => (Some(f.line), Some(f.column)),
        (None, None) => (None, None),
    };
    ConsoleMessageDetail {
        message: ConsoleMessageSummary {
            id: 0,
            kind: kind.to_string(),
            text: cut(text),
            source: source.to_string(),
            url,
            line,
            column,
        },
        args: Vec::new(),
        stack_trace,
        timestamp: Some(timestamp),
    }
}

fn from_console_call(e: ConsoleAPICalledEvent) -> ConsoleMessageDetail {
    let kind = match &e.type_ {
        ConsoleAPICalledType::Warning => "warn",
        other => other.as_str(),
    };
    let text = e.args.iter().map(arg_text).collect::<Vec<_>>().join(" ");
    let mut m = message(
        kind,
        text,
        "console-api",
        e.stack_trace.as_ref(),
        None,
        None,
        e.timestamp,
    );
    m.args = e.args.iter().map(arg_value).collect();
    m
}

fn from_exception(e: ExceptionThrownEvent) -> ConsoleMessageDetail {
    let d = e.exception_details;
    // "Uncaught" and the exception's own description ("Error: boom\n    at …"), first line.
    let described = d
        .exception
        .as_ref()
        .and_then(|x| x.description.as_deref())
        .map(|s| s.lines().next().unwrap_or("").to_string())
        .or_else(|| {
            d.exception
                .as_ref()
                .and_then(|x| x.value.as_ref())
                .map(value_text)
        });
    let text = match described {
        Some(s) if !d.text.contains(&s) => format!("{} {s}", d.text),
        _ => d.text.clone(),
    };
    let mut m = message(
        "error",
        text,
        "exception",
        d.stack_trace.as_ref(),
        d.url.clone(),
        None,
        e.timestamp,
    );
    if m.message.line.is_none() || d.stack_trace.is_none() {
        m.message.line = Some(d.line_number + 1);
        m.message.column = Some(d.column_number + 1);
    }
    m.args = d.exception.as_ref().map(arg_value).into_iter().collect();
    m
}

fn from_log_entry(entry: log::LogEntry) -> ConsoleMessageDetail {
    let kind = match entry.level.as_str() {
        "warning" => "warn",
        other => other,
    };
    let mut m = message(
        kind,
        entry.text,
        entry.source.as_str(),
        entry.stack_trace.as_ref(),
        entry.url,
        entry.line_number,
        entry.timestamp,
    );
    m.args = entry.args.iter().flatten().map(arg_value).collect();
    m
}

fn frames(stack: &StackTrace) -> Vec<StackFrame> {
    stack
        .call_frames
        .iter()
        .take(MAX_FRAMES)
        .map(|f| StackFrame {
            function: f.function_name.clone(),
            url: f.url.clone(),
            line: f.line_number + 1,
            column: f.column_number + 1,
        })
        .collect()
}

/// A string cut to [`MAX_TEXT`] characters, marked when cut.
fn cut(mut s: String) -> String {
    if let Some((at, _)) = s.char_indices().nth(MAX_TEXT) {
        s.truncate(at);
        s.push('…');
    }
    s
}

/// A JSON value as the console prints it: a string as itself, anything else as JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An argument as the console's text shows it.
fn arg_text(arg: &RemoteObject) -> String {
    if let Some(v) = &arg.value {
        return value_text(v);
    }
    if let Some(u) = &arg.unserializable_value {
        return u.to_string();
    }
    match &arg.description {
        Some(d) => d.clone(),
        None => arg.type_.as_str().to_string(),
    }
}

/// An argument as a JSON value (see [`ConsoleMessageDetail::args`]).
fn arg_value(arg: &RemoteObject) -> Value {
    if let Some(v) = &arg.value {
        return match v {
            Value::String(s) => Value::String(cut(s.clone())),
            other => other.clone(),
        };
    }
    if let Some(u) = &arg.unserializable_value {
        return Value::String(u.to_string());
    }
    if let Some(p) = &arg.preview {
        return preview_value(p);
    }
    Value::String(arg_text(arg))
}

/// An object's preview: an array's items or an object's properties, each value as the
/// preview gives it (text), numbers and booleans as themselves.
fn preview_value(p: &ObjectPreview) -> Value {
    let value = |prop: &crate::cdp::runtime::PropertyPreview| -> Value {
        if let Some(inner) = &prop.value_preview {
            return preview_value(inner);
        }
        let text = prop.value.clone().unwrap_or_default();
        match prop.type_.as_str() {
            "number" | "boolean" => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            _ => Value::String(cut(text)),
        }
    };
    let is_array = p
        .subtype
        .as_ref()
        .is_some_and(|s| matches!(s.as_str(), "array" | "typedarray"));
    if is_array {
        Value::Array(p.properties.iter().map(value).collect())
    } else {
        let map: Map<String, Value> = p
            .properties
            .iter()
            .map(|prop| (prop.name.clone(), value(prop)))
            .collect();
        Value::Object(map)
    }
}
