//! The `summary` of every action and navigation result: one or two short sentences an agent
//! reads instead of the result's fields — what was done, to which element (by role, accessible
//! name and uid), and what followed (a navigation, a dialog, a page still changing).
//!
//! Why one module that turns a typed result into its sentence: the steps of an action only
//! write facts (the fields of the result), and the wording of all of them is kept together so
//! that it reads the same from every action and can change in one place. The element's role
//! and name come from the page's last snapshot model (the node its uid names there), not from
//! the browser: the summary costs no call, and names the element the way the snapshot the agent
//! read named it. A password's value is never written: the field is found to be one from its
//! `type` in that model, and from the masked value the action read back.

use std::fmt::Write as _;

use crate::command::{MouseButton, ScrollDirection};
use crate::identity::Uid;
use crate::render::{caps, escape};
use crate::response::{
    Aftermath, Choice, Clicked, Dialog, DialogAnswered, Dragged, Filled, Focused, Hovered,
    Navigation, Opened, Pressed, Scrolled, Selected, Typed, Uploaded,
};
use crate::snapshot::Snapshot;

/// How many characters of a value or a message a summary quotes.
const QUOTE: usize = 80;

/// What the last snapshot says of the element a uid names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// Its accessibility role (`button`, `textbox`), or its tag when it has none.
    pub role: String,
    /// Its accessible name (may be empty).
    pub name: String,
    /// A password field: its value is never written.
    pub secret: bool,
}

impl Element {
    /// The element of `snapshot` that `uid` names, if that snapshot printed or knew it.
    pub(crate) fn of(snapshot: &Snapshot, uid: &str) -> Option<Element> {
        let uid: Uid = uid.parse().ok()?;
        let model = &snapshot.model;
        let id = model
            .node_ids()
            .find(|&id| snapshot.uids.dom(id) == Some(uid))?;
        let tag = model.tag(id);
        let role = model
            .role(id)
            .filter(|r| !matches!(*r, "" | "none" | "generic" | "Ignored"))
            .or(tag)
            .unwrap_or("element");
        let secret = tag == Some("input")
            && model
                .attr(id, "type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"));
        Some(Element {
            role: role.to_string(),
            name: model.ax_name(id).unwrap_or("").trim().to_string(),
            secret,
        })
    }
}

/// How a summary names elements: the action's own element as the last snapshot before the
/// action saw it (it may be gone since), any other by the page's last snapshot now.
pub(crate) struct Names<'a> {
    /// The action's uid and what the snapshot before the action said of it.
    pub target: Option<(String, Option<Element>)>,
    /// The page's last snapshot now.
    pub last: Option<&'a Snapshot>,
}

impl Names<'_> {
    fn element(&self, uid: &str) -> Option<Element> {
        match &self.target {
            Some((u, e)) if u == uid => e.clone(),
            _ => self.last.and_then(|s| Element::of(s, uid)),
        }
    }

    /// `button "Sign in" (uid=1_5)`, `textbox (uid=1_7)`, or `element (uid=1_9)` when no
    /// snapshot knew it.
    fn label(&self, uid: &str) -> String {
        let mut out = String::new();
        match self.element(uid) {
            Some(e) => {
                out.push_str(&e.role);
                if !e.name.is_empty() {
                    out.push(' ');
                    escape::push_quoted(&mut out, &e.name, caps::NAME);
                }
            }
            None => out.push_str("element"),
        }
        let _ = write!(out, " (uid={uid})");
        out
    }

    fn is_secret(&self, uid: &str) -> bool {
        self.element(uid).is_some_and(|e| e.secret)
    }

    fn role(&self, uid: &str) -> String {
        self.element(uid).map(|e| e.role).unwrap_or_default()
    }
}

/// `"text"`, escaped and cut as the snapshot's text is.
fn quote(text: &str) -> String {
    let mut out = String::new();
    escape::push_quoted(&mut out, text, QUOTE);
    out
}

/// A result that can say what happened in a sentence or two.
pub(crate) trait Summarize {
    /// The summary of this result, naming elements with `names`.
    fn summarize(&self, names: &Names<'_>) -> String;
}

/// Appends the sentences of what followed an action: a navigation, the page still changing,
/// a dialog waiting (`dialog`), the snapshot's text not changing.
fn followed(out: &mut String, after: &Aftermath, dialog: Option<&Dialog>) {
    if after.navigated == Some(true) {
        out.push_str(" The page navigated");
        if let Some(url) = &after.url {
            let _ = write!(out, " to {url}");
        }
        match after.loaded {
            Some(false) => out.push_str(" but had not loaded after 10 s."),
            _ => out.push_str(" and loaded."),
        }
    }
    if after.settled == Some(false) {
        out.push_str(" The page was still changing after 3 s.");
    }
    if let Some(d) = dialog {
        out.push(' ');
        out.push_str(&dialog_opened(d));
    }
    if matches!(&after.changes, Some(Some(c)) if c.is_empty()) {
        out.push_str(" The snapshot did not change.");
    }
}

/// `A confirm dialog opened: "Delete?" — answer it with dialog.`
fn dialog_opened(d: &Dialog) -> String {
    format!(
        "A{} {} dialog opened: {} — answer it with dialog.",
        if d.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "n"
        } else {
            ""
        },
        d.kind,
        quote(&d.message)
    )
}

/// `"Cheese", "Basil"`.
fn quoted_list<'s>(items: impl Iterator<Item = &'s str>) -> String {
    items.map(quote).collect::<Vec<_>>().join(", ")
}

/// What a choice in a select or drop-down chose, quoted, if the result says.
fn chosen(choice: &Choice) -> Option<String> {
    if let Some(o) = &choice.option {
        return Some(quote(o));
    }
    match &choice.options {
        Some(options) if options.is_empty() => Some("nothing".into()),
        Some(options) => Some(quoted_list(options.iter().map(|o| o.text.as_str()))),
        None => None,
    }
}

/// `Chose "Spain" in combobox "Country" (uid=1_82).`, plus whether that changed anything.
fn chose(out: &mut String, choice: &Choice, what: &str) {
    let options = chosen(choice).unwrap_or_else(|| "an option".into());
    let _ = write!(out, "Chose {options} in {what}.");
    if choice.changed == Some(false) {
        out.push_str(" It was chosen already.");
    }
}

impl Summarize for Clicked {
    fn summarize(&self, names: &Names<'_>) -> String {
        let what = names.label(&self.clicked);
        let mut out = String::new();
        if self.choice.option.is_some() {
            let options = chosen(&self.choice).unwrap_or_default();
            let _ = write!(out, "Clicked {what}, choosing {options} in its drop-down.");
        } else {
            let verb = match (self.button, self.count) {
                (_, Some(2)) => "Double-clicked",
                (_, Some(3)) => "Triple-clicked",
                (Some(MouseButton::Right), _) => "Right-clicked",
                (Some(MouseButton::Middle), _) => "Middle-clicked",
                _ => "Clicked",
            };
            let _ = write!(out, "{verb} {what}.");
        }
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Dragged {
    fn summarize(&self, names: &Names<'_>) -> String {
        let mut out = format!("Dragged {}", names.label(&self.dragged));
        if let Some(onto) = &self.onto {
            let _ = write!(out, " onto {}", names.label(onto));
        }
        out.push('.');
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Typed {
    fn summarize(&self, names: &Names<'_>) -> String {
        let into = match &self.into {
            Some(Some(Focused { uid: Some(uid), .. })) => Some(uid.as_str()),
            _ => None,
        };
        let secret = into.is_some_and(|u| names.is_secret(u));
        let mut out = if secret {
            "Typed the password".to_string()
        } else {
            format!("Typed {}", quote(&self.typed))
        };
        match into {
            Some(uid) => {
                let _ = write!(out, " into {}", names.label(uid));
            }
            None => out.push_str(" into the focused field"),
        }
        out.push('.');
        if let Some(key) = &self.submit_key {
            let _ = write!(out, " Then pressed {key}.");
        }
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Hovered {
    fn summarize(&self, names: &Names<'_>) -> String {
        let mut out = format!("Moved the mouse over {}.", names.label(&self.hovered));
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Filled {
    fn summarize(&self, names: &Names<'_>) -> String {
        let what = names.label(&self.filled);
        let mut out = String::new();
        let value = self.choice.value.as_ref();
        if let Some(checked) = self.checked {
            let radio = names.role(&self.filled).contains("radio");
            let verb = match (checked, radio) {
                (true, true) => "Selected",
                (true, false) => "Ticked",
                (false, _) => "Unticked",
            };
            let _ = write!(out, "{verb} {what}.");
        } else if self.choice.options.is_some() || self.choice.option.is_some() {
            chose(&mut out, &self.choice, &what);
        } else {
            let text = value.map(|v| match v.as_str() {
                Some(s) => s.to_string(),
                None => v.to_string(),
            });
            let secret = names.is_secret(&self.filled)
                || text
                    .as_deref()
                    .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c == '*'));
            match text.as_deref() {
                Some("") => {
                    let _ = write!(out, "Cleared {what}.");
                }
                _ if secret => {
                    let _ = write!(out, "Filled {what} (the value is not shown).");
                }
                Some(t) => {
                    let _ = write!(out, "Filled {what} with {}.", quote(t));
                }
                None => {
                    let _ = write!(out, "Filled {what}.");
                }
            }
        }
        if self.warning.is_some() {
            out.push_str(" It did not take the value exactly as sent (see warning).");
        }
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Selected {
    fn summarize(&self, names: &Names<'_>) -> String {
        let what = names.label(&self.selected);
        let mut out = String::new();
        if self.choice.options.is_none() && self.choice.option.is_none() {
            let _ = write!(out, "Chose {what}.");
        } else {
            chose(&mut out, &self.choice, &what);
        }
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Pressed {
    fn summarize(&self, names: &Names<'_>) -> String {
        let mut out = format!("Pressed {}", self.pressed);
        if let Some(uid) = &self.uid {
            let _ = write!(out, " on {}", names.label(uid));
        }
        out.push('.');
        match &self.focus {
            Some(Some(f)) if f.uid.is_some() && f.uid != self.uid => {
                if let Some(uid) = &f.uid {
                    let _ = write!(out, " The focus is now on {}.", names.label(uid));
                }
            }
            Some(Some(f)) if f.uid.is_none() => {
                let tag = f.tag.as_deref().unwrap_or("element");
                let _ = write!(out, " The focus is now on a {tag} without a uid.");
            }
            Some(None) if self.uid.is_some() => out.push_str(" Nothing has the focus now."),
            _ => {}
        }
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for Scrolled {
    fn summarize(&self, names: &Names<'_>) -> String {
        let what = match self.scrolled.as_deref() {
            Some("page") | None => "the page".to_string(),
            Some(s) if s.parse::<Uid>().is_ok() => names.label(s),
            Some(s) => s.to_string(),
        };
        let way = match self.direction.unwrap_or_default() {
            ScrollDirection::Down => "down",
            ScrollDirection::Up => "up",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        };
        let moved = self.moved.unwrap_or(0.0);
        let at_end = self.at_end == Some(true);
        let mut out = if moved == 0.0 && at_end {
            format!("Did not scroll {what} {way}: it is at its end already.")
        } else {
            let mut s = format!("Scrolled {what} {way} by {} px", moved.round());
            s.push_str(if at_end {
                "; it can go no further that way."
            } else {
                "."
            });
            s
        };
        followed(&mut out, &self.then, self.dialog.as_ref());
        out
    }
}

impl Summarize for Uploaded {
    fn summarize(&self, names: &Names<'_>) -> String {
        let files = self.files.as_deref().unwrap_or_default();
        let what = match files.len() {
            0 => "no file".to_string(),
            1 => quote(&files[0]),
            n => format!(
                "{n} files ({})",
                quoted_list(files.iter().map(String::as_str))
            ),
        };
        let mut out = format!("Uploaded {what} to {}", names.label(&self.uploaded));
        match &self.input {
            Some(Some(input)) => {
                let _ = write!(out, " (through {})", names.label(input));
            }
            Some(None) => out.push_str(" (through its file input)"),
            None => {}
        }
        out.push('.');
        followed(&mut out, &self.after, self.dialog.as_ref());
        out
    }
}

impl Summarize for DialogAnswered {
    fn summarize(&self, _: &Names<'_>) -> String {
        let mut out = match (&self.dialog, &self.prompt_text) {
            (Some(d), Some(text)) if self.accepted => format!(
                "Answered the {} dialog {} with {}.",
                d.kind,
                quote(&d.message),
                quote(text)
            ),
            (Some(d), _) => format!(
                "{} the {} dialog {}.",
                if self.accepted {
                    "Accepted"
                } else {
                    "Dismissed"
                },
                d.kind,
                quote(&d.message)
            ),
            (None, _) => "Answered the dialog (it had closed already).".to_string(),
        };
        followed(&mut out, &self.after, self.next.as_ref());
        out
    }
}

/// The summary of `open`.
pub(crate) fn opened(result: &Opened) -> String {
    let mut out = format!("Opened {}", result.url);
    let same = |a: &str, b: &str| {
        a == b || matches!((url::Url::parse(a), url::Url::parse(b)), (Ok(a), Ok(b)) if a == b)
    };
    if let Some(to) = result
        .final_url
        .as_deref()
        .filter(|&u| !same(u, &result.url))
    {
        out.push_str(&format!(" (now at {to})"));
    }
    if let Some(status) = result.status.filter(|&s| s >= 400) {
        out.push_str(&format!(", which answered HTTP {status},"));
    }
    match (&result.dialog, result.loaded) {
        (Some(d), _) => {
            out.push_str("; it is loading. ");
            out.push_str(&dialog_opened(d));
        }
        (None, true) => out.push_str(" and it loaded."),
        (None, false) => out.push_str("; it has not finished loading (see warning)."),
    }
    out
}

/// Which history move or reload a [`Navigation`] was.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Went {
    Back,
    Forward,
    Reload,
}

/// The summary of `back`, `forward` and `reload`.
pub(crate) fn navigated(went: Went, result: &Navigation) -> String {
    let mut out = match went {
        Went::Back => "Went back".to_string(),
        Went::Forward => "Went forward".to_string(),
        Went::Reload => "Reloaded the page".to_string(),
    };
    if let Some(url) = &result.url {
        let _ = write!(out, " to {url}");
    }
    match (&result.dialog, result.loaded) {
        (Some(d), _) => {
            out.push_str("; it is loading. ");
            out.push_str(&dialog_opened(d));
        }
        (None, true) => out.push_str(" and it loaded."),
        (None, false) => out.push_str("; it had not loaded after 30 s."),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::{Focused, SelectOption};
    use serde_json::json;

    fn names(role: &str, name: &str, secret: bool) -> Names<'static> {
        Names {
            target: Some((
                "1_5".into(),
                Some(Element {
                    role: role.into(),
                    name: name.into(),
                    secret,
                }),
            )),
            last: None,
        }
    }

    fn filled(value: &str) -> Filled {
        Filled {
            filled: "1_5".into(),
            checked: None,
            warning: None,
            choice: Choice {
                value: Some(json!(value)),
                ..Choice::default()
            },
            dialog: None,
            after: Aftermath::default(),
        }
    }

    #[test]
    fn a_click_names_the_element_and_what_followed() {
        let clicked = Clicked {
            clicked: "1_5".into(),
            at: None,
            button: Some(MouseButton::Left),
            count: Some(1),
            choice: Choice::default(),
            dialog: Some(Dialog {
                kind: "confirm".into(),
                message: "Delete?".into(),
                default_prompt: None,
            }),
            after: Aftermath {
                navigated: Some(true),
                url: Some("https://example.com/".into()),
                loaded: Some(true),
                settled: Some(false),
                ..Aftermath::default()
            },
        };
        assert_eq!(
            clicked.summarize(&names("button", "Sign in", false)),
            "Clicked button \"Sign in\" (uid=1_5). The page navigated to https://example.com/ and \
             loaded. The page was still changing after 3 s. A confirm dialog opened: \"Delete?\" \
             — answer it with dialog."
        );
    }

    #[test]
    fn a_fill_echoes_the_value_but_never_a_password() {
        assert_eq!(
            filled("a@b.c").summarize(&names("textbox", "Email", false)),
            "Filled textbox \"Email\" (uid=1_5) with \"a@b.c\"."
        );
        let secret = filled("hunter2").summarize(&names("textbox", "Password", true));
        assert!(!secret.contains("hunter2"), "{secret}");
        let masked = filled("********").summarize(&names("textbox", "Password", false));
        assert_eq!(
            masked,
            "Filled textbox \"Password\" (uid=1_5) (the value is not shown)."
        );
        assert_eq!(
            filled("").summarize(&names("textbox", "Email", false)),
            "Cleared textbox \"Email\" (uid=1_5)."
        );
        let mut tick = filled("");
        tick.choice = Choice::default();
        tick.checked = Some(true);
        assert_eq!(
            tick.summarize(&names("checkbox", "Remember me", false)),
            "Ticked checkbox \"Remember me\" (uid=1_5)."
        );
    }

    #[test]
    fn a_select_names_the_options() {
        let selected = Selected {
            selected: "1_5".into(),
            choice: Choice {
                value: Some(json!("ca")),
                options: Some(vec![SelectOption {
                    text: "Canada".into(),
                    value: "ca".into(),
                }]),
                changed: Some(true),
                option: None,
            },
            dialog: None,
            after: Aftermath::default(),
        };
        assert_eq!(
            selected.summarize(&names("combobox", "Country", false)),
            "Chose \"Canada\" in combobox \"Country\" (uid=1_5)."
        );
    }

    #[test]
    fn a_press_says_where_the_focus_went() {
        let pressed = Pressed {
            pressed: "Enter".into(),
            uid: Some("1_5".into()),
            focus: Some(Some(Focused {
                tag: Some("input".into()),
                id: Some(String::new()),
                uid: Some("1_5".into()),
            })),
            dialog: None,
            after: Aftermath {
                changes: Some(Some(String::new())),
                ..Aftermath::default()
            },
        };
        assert_eq!(
            pressed.summarize(&names("textbox", "Search", false)),
            "Pressed Enter on textbox \"Search\" (uid=1_5). The snapshot did not change."
        );
        let unknown = Names {
            target: None,
            last: None,
        };
        assert_eq!(unknown.label("2_3"), "element (uid=2_3)");
    }
}
