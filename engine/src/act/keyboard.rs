//! Keys and chords: `Enter`, `Tab`, `Shift+Tab`, `Control+A`, `ArrowDown`, `a`, `A`, `F5`, ….
//!
//! Why a table: `Input.dispatchKeyEvent` does not derive anything from a key name — a page's
//! `keydown` listener sees exactly the `key`, `code`, `keyCode` and modifiers it is sent, and
//! Chromium inserts text and runs default actions (submitting a form on Enter, moving focus on
//! Tab) only when `text` and `windowsVirtualKeyCode` are right. So every key the agent may name
//! maps to the values a US keyboard produces, with Shift applied to printable keys.
//!
//! Each press is `rawKeyDown` (the `keydown` event), then `char` when the key produces text
//! and no Control/Alt/Meta is held (the `keypress` event and the text insertion, which Chromium
//! suppresses if `keydown` was cancelled), then `keyUp`. Modifiers are pressed first and
//! released last; a [`ModifierGuard`] releases them even when the press fails or the action is
//! abandoned (a dialog opened), so no key is left stuck down in the page.

use crate::browser::Page;
use crate::cdp::input::{DispatchKeyEventParams, DispatchKeyEventType};
use crate::error::{Error, Result};

/// Modifier bits of `Input.dispatchKeyEvent` / `dispatchMouseEvent`.
pub(crate) const ALT: i64 = 1;
pub(crate) const CTRL: i64 = 2;
pub(crate) const META: i64 = 4;
pub(crate) const SHIFT: i64 = 8;

/// One physical key as Chromium should see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// `KeyboardEvent.code`.
    pub code: String,
    /// `windowsVirtualKeyCode` (`keyCode`).
    pub key_code: i64,
    /// The text the key types, if any.
    pub text: Option<String>,
    /// 1 = left side of the keyboard (modifiers), 3 = numpad, 0 otherwise.
    pub location: i64,
}

/// A chord: modifiers (bitmask and keys, in press order) plus the main key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chord {
    pub modifiers: i64,
    pub modifier_keys: Vec<(i64, Key)>,
    pub key: Key,
}

fn named(key: &str, code: &str, key_code: i64, text: Option<&str>) -> Key {
    Key {
        key: key.to_string(),
        code: code.to_string(),
        key_code,
        text: text.map(str::to_string),
        location: 0,
    }
}

/// Printable keys of a US layout: (unshifted, shifted, code, keyCode).
const PRINTABLE: &[(char, char, &str, i64)] = &[
    ('`', '~', "Backquote", 192),
    ('1', '!', "Digit1", 49),
    ('2', '@', "Digit2", 50),
    ('3', '#', "Digit3", 51),
    ('4', '$', "Digit4", 52),
    ('5', '%', "Digit5", 53),
    ('6', '^', "Digit6", 54),
    ('7', '&', "Digit7", 55),
    ('8', '*', "Digit8", 56),
    ('9', '(', "Digit9", 57),
    ('0', ')', "Digit0", 48),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
    (' ', ' ', "Space", 32),
];

/// The modifier a name stands for: (bit, key).
fn modifier(name: &str) -> Option<(i64, Key)> {
    let lower = name.to_ascii_lowercase();
    let (bit, key, code, key_code) = match lower.as_str() {
        "shift" => (SHIFT, "Shift", "ShiftLeft", 16),
        "control" | "ctrl" | "controlormeta" => (CTRL, "Control", "ControlLeft", 17),
        "alt" | "option" => (ALT, "Alt", "AltLeft", 18),
        "meta" | "cmd" | "command" | "super" | "win" => (META, "Meta", "MetaLeft", 91),
        _ => return None,
    };
    let mut k = named(key, code, key_code, None);
    k.location = 1;
    Some((bit, k))
}

/// The key a name stands for (case-insensitive for named keys; a single character as typed).
pub(crate) fn key(name: &str) -> Option<Key> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return char_key(c);
    }
    let lower = name.to_ascii_lowercase();
    let k = match lower.as_str() {
        "enter" | "return" => named("Enter", "Enter", 13, Some("\r")),
        "tab" => named("Tab", "Tab", 9, None),
        "escape" | "esc" => named("Escape", "Escape", 27, None),
        "backspace" => named("Backspace", "Backspace", 8, None),
        "delete" | "del" => named("Delete", "Delete", 46, None),
        "insert" => named("Insert", "Insert", 45, None),
        "space" | "spacebar" => named(" ", "Space", 32, Some(" ")),
        "arrowup" | "up" => named("ArrowUp", "ArrowUp", 38, None),
        "arrowdown" | "down" => named("ArrowDown", "ArrowDown", 40, None),
        "arrowleft" | "left" => named("ArrowLeft", "ArrowLeft", 37, None),
        "arrowright" | "right" => named("ArrowRight", "ArrowRight", 39, None),
        "home" => named("Home", "Home", 36, None),
        "end" => named("End", "End", 35, None),
        "pageup" => named("PageUp", "PageUp", 33, None),
        "pagedown" => named("PageDown", "PageDown", 34, None),
        "capslock" => named("CapsLock", "CapsLock", 20, None),
        "contextmenu" => named("ContextMenu", "ContextMenu", 93, None),
        "plus" => return char_key('+'),
        "minus" => return char_key('-'),
        _ => {
            if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<i64>().ok()) {
                if (1..=24).contains(&n) {
                    let name = format!("F{n}");
                    return Some(named(&name, &name, 111 + n, None));
                }
            }
            return modifier(name).map(|(_, k)| k);
        }
    };
    Some(k)
}

fn char_key(c: char) -> Option<Key> {
    if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        return Some(Key {
            key: c.to_string(),
            code: format!("Key{upper}"),
            key_code: upper as i64,
            text: Some(c.to_string()),
            location: 0,
        });
    }
    for &(plain, shifted, code, key_code) in PRINTABLE {
        if c == plain || c == shifted {
            return Some(Key {
                key: c.to_string(),
                code: code.to_string(),
                key_code,
                text: Some(c.to_string()),
                location: 0,
            });
        }
    }
    None
}

/// With Shift held, a printable key types its shifted character.
fn shifted(mut k: Key) -> Key {
    let Some(c) = k.key.chars().next().filter(|_| k.key.chars().count() == 1) else {
        return k;
    };
    let s = if c.is_ascii_lowercase() {
        Some(c.to_ascii_uppercase())
    } else {
        PRINTABLE
            .iter()
            .find(|(plain, _, _, _)| *plain == c)
            .map(|(_, s, _, _)| *s)
    };
    if let Some(s) = s {
        k.key = s.to_string();
        k.text = Some(s.to_string());
    }
    k
}

/// Parses `Enter`, `Control+A`, `Shift+Tab`, `Control+Shift+ArrowLeft`, `Control++`.
pub(crate) fn parse_chord(spec: &str) -> Result<Chord> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(Error::invalid_argument(
            "\"key\" is empty; name a key like \"Enter\", \"Tab\", \"a\" or a chord like \"Control+A\"",
        ));
    }
    // A trailing "+" after a separator is the plus key itself ("Control++").
    let (head, last) = match spec.strip_suffix("++") {
        Some(rest) => (rest, "+"),
        None if spec == "+" => ("", "+"),
        None => match spec.rsplit_once('+') {
            Some((h, l)) => (h, l),
            None => ("", spec),
        },
    };
    let mut modifiers = 0;
    let mut modifier_keys = Vec::new();
    for part in head.split('+').filter(|p| !p.is_empty()) {
        let Some((bit, k)) = modifier(part.trim()) else {
            return Err(Error::invalid_argument(format!(
                "{part:?} in {spec:?} is not a modifier; chords look like \"Control+A\" or \
                 \"Shift+Tab\" (modifiers: Control, Shift, Alt, Meta)"
            )));
        };
        if modifiers & bit == 0 {
            modifiers |= bit;
            modifier_keys.push((bit, k));
        }
    }
    let Some(mut main) = key(last.trim()).or_else(|| key(last)) else {
        return Err(Error::invalid_argument(format!(
            "unknown key {last:?}; use a single character (\"a\", \"A\", \"1\", \"/\") or a key name: \
             Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp, ArrowDown, ArrowLeft, \
             ArrowRight, Home, End, PageUp, PageDown, Insert, F1–F24, Shift, Control, Alt, Meta"
        )));
    };
    if modifiers & SHIFT != 0 {
        main = shifted(main);
    } else if modifiers != 0 && main.key.len() == 1 && main.key.is_ascii() {
        // "Control+A" is the A key with Control: without Shift it reports "a".
        main.key = main.key.to_ascii_lowercase();
    }
    if modifiers & (CTRL | ALT | META) != 0 {
        main.text = None;
    }
    Ok(Chord {
        modifiers,
        modifier_keys,
        key: main,
    })
}

fn event(
    type_: DispatchKeyEventType,
    k: &Key,
    modifiers: i64,
    with_text: bool,
) -> DispatchKeyEventParams {
    let text = if with_text { k.text.clone() } else { None };
    DispatchKeyEventParams {
        modifiers: Some(modifiers),
        unmodified_text: text.clone(),
        text,
        code: Some(k.code.clone()),
        key: Some(k.key.clone()),
        windows_virtual_key_code: Some(k.key_code),
        native_virtual_key_code: Some(k.key_code),
        location: (k.location != 0).then_some(k.location),
        ..DispatchKeyEventParams::new(type_)
    }
}

/// Releases held modifiers: explicitly with [`ModifierGuard::release`], or on drop (from a
/// spawned task) when the press was abandoned half-way.
pub(crate) struct ModifierGuard {
    page: Page,
    held: Vec<(i64, Key)>,
    modifiers: i64,
}

impl ModifierGuard {
    fn new(page: &Page) -> Self {
        ModifierGuard {
            page: page.clone(),
            held: Vec::new(),
            modifiers: 0,
        }
    }

    async fn press(&mut self, bit: i64, k: &Key) -> Result<()> {
        self.modifiers |= bit;
        self.held.push((bit, k.clone()));
        self.page
            .send(&event(
                DispatchKeyEventType::RawKeyDown,
                k,
                self.modifiers,
                false,
            ))
            .await
            .map(|_| ())
    }

    async fn release(mut self) -> Result<()> {
        let held = std::mem::take(&mut self.held);
        release_all(&self.page, held, self.modifiers).await
    }
}

async fn release_all(page: &Page, mut held: Vec<(i64, Key)>, mut modifiers: i64) -> Result<()> {
    let mut first_error = None;
    while let Some((bit, k)) = held.pop() {
        modifiers &= !bit;
        if let Err(e) = page
            .send(&event(DispatchKeyEventType::KeyUp, &k, modifiers, false))
            .await
        {
            first_error.get_or_insert(e);
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Drop for ModifierGuard {
    fn drop(&mut self) {
        if self.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let page = self.page.clone();
        let modifiers = self.modifiers;
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = release_all(&page, held, modifiers).await;
            });
        }
    }
}

/// Presses a chord on whatever has focus.
pub(crate) async fn press(page: &Page, chord: &Chord) -> Result<()> {
    let mut guard = ModifierGuard::new(page);
    let main = async {
        for (bit, k) in &chord.modifier_keys {
            guard.press(*bit, k).await?;
        }
        let m = chord.modifiers;
        let k = &chord.key;
        page.send(&event(DispatchKeyEventType::RawKeyDown, k, m, false))
            .await?;
        if k.text.is_some() {
            page.send(&event(DispatchKeyEventType::Char, k, m, true))
                .await?;
        }
        page.send(&event(DispatchKeyEventType::KeyUp, k, m, false))
            .await
            .map(|_| ())
    }
    .await;
    let released = guard.release().await;
    main.and(released)
}

/// A key press without modifiers, by name (used by `fill` to clear a field).
pub(crate) async fn press_key(page: &Page, name: &str) -> Result<()> {
    press(page, &parse_chord(name)?).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_parse() {
        let c = parse_chord("Control+A").map_err(|e| e.to_string());
        let c = c
            .as_ref()
            .map(|c| (c.modifiers, c.key.key.as_str(), c.key.text.clone()));
        assert_eq!(c, Ok((CTRL, "a", None)));
        let c = parse_chord("Shift+Tab").ok();
        assert_eq!(
            c.map(|c| (c.modifiers, c.key.code)),
            Some((SHIFT, "Tab".into()))
        );
        let c = parse_chord("shift+a").ok();
        assert_eq!(
            c.map(|c| (c.key.key, c.key.text)),
            Some(("A".into(), Some("A".into())))
        );
        let c = parse_chord("A").ok();
        assert_eq!(
            c.map(|c| (c.modifiers, c.key.code, c.key.key_code)),
            Some((0, "KeyA".into(), 65))
        );
        let c = parse_chord("Control++").ok();
        assert_eq!(
            c.map(|c| (c.modifiers, c.key.key)),
            Some((CTRL, "+".into()))
        );
        let c = parse_chord("enter").ok();
        assert_eq!(
            c.map(|c| (c.key.key, c.key.key_code, c.key.text)),
            Some(("Enter".into(), 13, Some("\r".into())))
        );
        let c = parse_chord("F5").ok();
        assert_eq!(c.map(|c| c.key.key_code), Some(116));
        let c = parse_chord("Shift+1").ok();
        assert_eq!(c.map(|c| c.key.text), Some(Some("!".into())));
    }

    #[test]
    fn bad_chords_say_why() {
        for bad in ["", "Hyper+A", "Control+Nope", "Foo"] {
            assert!(parse_chord(bad).is_err(), "{bad:?}");
        }
    }
}
