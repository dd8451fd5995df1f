//! A reader of `DOMSnapshot.captureSnapshot` JSON written for that one shape.
//!
//! Why: reading this reply was the largest single piece of the engine's CPU per live snapshot
//! and half of reading a capture file. serde_json goes through the derived visitors value by
//! value, while the reply is nearly all long arrays of small integers
//! (node, string and style indices), rows of four numbers (rectangles) and one array of
//! strings: a scanner that reads exactly those, straight into the `Vec`s and [`Ragged`] lists
//! of [`DomSnapshot`], has far less to do per byte.
//!
//! It gives what serde_json gives, or nothing. Fields, `null`s and unknown keys (skipped at any
//! depth, keys in any order) are treated as the derived `Deserialize` treats them, numbers are
//! converted as serde_json converts them, and anything else — malformed JSON, a shape serde
//! would read another way (a struct written as an array, a key with escapes), a number outside
//! the exact fast paths — makes it answer `None`: the caller then reads the text with
//! serde_json, whose value or error is the one given, as it always was.
//!
//! It reads bytes, not text: every byte it accepts outside a string is ASCII, so only strings
//! (values, keys, skipped ones) are checked to be UTF-8, which spares checking the whole reply,
//! mostly numbers, once more (a reply is megabytes). Bytes that are not UTF-8 anywhere are
//! refused all the same; text already known to be UTF-8 (a capture file's) is not checked
//! again. The tokens, strings and skipped values are read by the reader the accessibility
//! tree's reader shares (`json_reader.rs`); the lists of numbers, most of this reply, here.

use rustc_hash::FxHashMap;

use super::super::json_reader::{
    eight_digits, set_once, Reader, Surrogates, POW10, POW10_U64, SKIP_DEPTH,
};

use super::{
    CaptureDomSnapshot, DocumentRecord, DomSnapshot, LayoutTreeRecord, NodeTreeRecord, Ragged,
    TextBoxRecord,
};
use crate::cdp::dom_snapshot::{RareBooleanData, RareIntegerData, RareStringData};
use crate::transport::RawJson;
use crate::Result;

impl DomSnapshot {
    /// Reads a `DOMSnapshot.captureSnapshot` result from JSON text: the value, or the error,
    /// of `serde_json::from_str::<DomSnapshot>`, in about two thirds of its time.
    pub fn from_json(text: &str) -> serde_json::Result<DomSnapshot> {
        match Reader::in_text(text, 0, Surrogates::Refuse).read() {
            Some(snapshot) => Ok(snapshot),
            None => serde_json::from_str(text),
        }
    }

    /// The fast reader alone: what `serde_json::from_slice::<DomSnapshot>` gives, or `None`
    /// when the bytes are not JSON it is sure to read the same way (see the module docs).
    pub fn read_fast(bytes: &[u8]) -> Option<DomSnapshot> {
        Reader::new(bytes, Surrogates::Refuse).read()
    }

    /// Reads the reply of [`CaptureDomSnapshot`]: the value, or the error, of
    /// [`RawJson::parse`], which also reads unpaired UTF-16 surrogates in page text as U+FFFD.
    /// The engine's live capture reads the reply this way.
    pub fn from_reply(raw: &RawJson) -> Result<DomSnapshot> {
        match Reader::new(raw.as_bytes(), Surrogates::Replace).read() {
            Some(snapshot) => Ok(snapshot),
            None => raw.parse(<CaptureDomSnapshot as crate::cdp::Command>::METHOD),
        }
    }
}

/// A number in a list of numbers.
trait Number: Sized {
    /// Any number, as serde_json reads it.
    fn read(reader: &mut Reader<'_>) -> Option<Self>;
    /// A number written as Chromium writes nearly every one, and the `,` or `]` after it
    /// (whether the list ended); `None` for anything else, which [`Number::read`] then reads.
    fn compact(reader: &mut Reader<'_>) -> Option<(Self, bool)>;
}

impl Number for i64 {
    #[inline]
    fn read(reader: &mut Reader<'_>) -> Option<i64> {
        reader.i64()
    }

    #[inline]
    fn compact(reader: &mut Reader<'_>) -> Option<(i64, bool)> {
        let (negative, n, after) = reader.compact_integer()?;
        // `-0` is a float to serde_json.
        let value = match (negative, n) {
            (true, 0) => return None,
            (true, n) => -(n as i64),
            (false, n) => n as i64,
        };
        Some((value, reader.list_end(after)?))
    }
}

impl Number for f64 {
    #[inline]
    fn read(reader: &mut Reader<'_>) -> Option<f64> {
        reader.f64()
    }

    #[inline]
    fn compact(reader: &mut Reader<'_>) -> Option<(f64, bool)> {
        let (negative, integer, mut after) = reader.compact_integer()?;
        let magnitude = if after.next() == Some(b'.') {
            let fraction = compact_digits(reader.bytes, after.at + 1)?;
            // At most 7 + 7 digits, below 2^53, over at most 10^7: one exact division.
            let significand = integer * POW10_U64.get(fraction.len)? + fraction.value;
            after = fraction.after;
            significand as f64 / POW10.get(fraction.len)?
        } else {
            integer as f64
        };
        let ended = reader.list_end(after)?;
        Some((if negative { -magnitude } else { magnitude }, ended))
    }
}

/// A run of one to seven digits read from one word of text.
struct Digits {
    value: u64,
    len: usize,
    after: After,
}

/// What follows a run of digits: its position, and the bytes from there that the word the
/// digits were read from still holds (at least one), so that they need no second load.
#[derive(Clone, Copy)]
struct After {
    at: usize,
    word: u64,
    held: usize,
}

impl After {
    /// The byte at `at` (the word always holds it).
    #[inline]
    fn next(&self) -> Option<u8> {
        (self.held > 0).then_some(self.word as u8)
    }

    /// Whether the byte after the one at `at` is `b`, from the word when it holds it.
    #[inline]
    fn second_is(&self, bytes: &[u8], b: u8) -> bool {
        if self.held > 1 {
            (self.word >> 8) as u8 == b
        } else {
            bytes.get(self.at + 1) == Some(&b)
        }
    }
}

/// The run of one to seven digits at `at`, read from one word; `None` when there is no such
/// run (or fewer than eight bytes are left).
#[inline]
fn compact_digits(bytes: &[u8], at: usize) -> Option<Digits> {
    word_digits(
        u64::from_le_bytes(*bytes.get(at..)?.first_chunk::<8>()?),
        at,
    )
}

/// [`compact_digits`] of `word`, the eight bytes at `at`.
#[inline]
fn word_digits(word: u64, at: usize) -> Option<Digits> {
    let values = word.wrapping_sub(0x3030_3030_3030_3030);
    let not_digits = (word.wrapping_add(0x4646_4646_4646_4646) | values) & 0x8080_8080_8080_8080;
    let len = (not_digits.trailing_zeros() / 8) as usize;
    if len == 0 || len == 8 {
        return None;
    }
    Some(Digits {
        value: eight_digits(values << (64 - 8 * len)),
        len,
        after: After {
            at: at + len,
            word: word >> (8 * len),
            held: 8 - len,
        },
    })
}

impl<'a> Reader<'a> {
    /// The whole text as one snapshot, nothing but whitespace after it.
    fn read(mut self) -> Option<DomSnapshot> {
        let snapshot = self.snapshot()?;
        self.skip_ws();
        (self.at == self.bytes.len()).then_some(snapshot)
    }

    /// An integer of one to seven digits, no leading zero, at the reader's position, without
    /// whitespace before it: whether it is negative, its magnitude and what follows it. Read
    /// from words of the text, so that the next number's position waits on one or two loads,
    /// not on one per byte.
    #[inline]
    fn compact_integer(&self) -> Option<(bool, u64, After)> {
        let at = self.at;
        // Both words a number may start in, loaded at once rather than one after the other.
        let nine = self.bytes.get(at..)?.first_chunk::<9>()?;
        let (first, second) = (nine.first_chunk::<8>()?, nine.last_chunk::<8>()?);
        let negative = first[0] == b'-';
        let (start, word) = if negative {
            (at + 1, u64::from_le_bytes(*second))
        } else {
            (at, u64::from_le_bytes(*first))
        };
        let digits = word_digits(word, start)?;
        if digits.len > 1 && word as u8 == b'0' {
            return None;
        }
        Some((negative, digits.value, digits.after))
    }

    /// Whether what follows a number ends its list (`]`) or goes on (`,`, or `, ` as some
    /// writers put it), the reader moved past it; `None` for anything else.
    #[inline]
    fn list_end(&mut self, after: After) -> Option<bool> {
        match after.next()? {
            b',' => {
                self.at = after.at + 1 + usize::from(after.second_is(self.bytes, b' '));
                Some(false)
            }
            b']' => {
                self.at = after.at + 1;
                Some(true)
            }
            _ => None,
        }
    }

    /// An array of numbers, each handed to `push`.
    #[inline]
    fn numbers<T: Number>(&mut self, mut push: impl FnMut(T)) -> Option<()> {
        // `[` and what follows it in one look: a row of a list of lists is often short.
        match self.bytes.get(self.at..self.at + 2) {
            Some(b"[]") => {
                self.at += 2;
                return Some(());
            }
            Some([b'[', b]) if !matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b']') => self.at += 1,
            _ => {
                self.expect(b'[')?;
                if self.eat(b']') {
                    return Some(());
                }
            }
        }
        loop {
            if let Some((value, ended)) = T::compact(self) {
                push(value);
                if ended {
                    return Some(());
                }
                continue;
            }
            push(T::read(self)?);
            match self.next()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// A list of numbers. `rows` is the length of the last such list of the same object
    /// (every list of a node table has one entry per node), reserved ahead; then this one's.
    fn list<T: Number>(&mut self, rows: &mut usize) -> Option<Vec<T>> {
        let mut out = Vec::with_capacity((*rows).min(self.room()));
        self.numbers(|value| out.push(value))?;
        if out.len() < out.capacity() {
            out.shrink_to_fit();
        }
        *rows = out.len();
        Some(out)
    }

    /// A list of lists of numbers, each row read ([`Reader::ragged_with`]).
    fn ragged<T: Number>(&mut self, rows: &mut usize) -> Option<Ragged<T>> {
        self.ragged_with(rows, false)
    }

    /// A list of lists of numbers; `rows` as for [`Reader::list`]. Room for the values is
    /// reserved once the first row that has any says how long rows are. With `repeats`, a row
    /// written exactly as the one before shares its values instead of being read again: a
    /// box's bounds are often its only child's (a third of the boxes of a long page), and
    /// comparing a row's few bytes costs far less than reading four decimals.
    fn ragged_with<T: Number>(&mut self, rows: &mut usize, repeats: bool) -> Option<Ragged<T>> {
        let mut out = Ragged::<T>::new();
        out.reserve_rows((*rows).min(self.room()));
        let mut reserved = false;
        let bytes = self.bytes;
        // The text of the row before, from its first byte through its `]`.
        let mut before: &[u8] = &[];
        self.array(|r| {
            let at = r.at;
            if repeats && !before.is_empty() && bytes.get(at..at + before.len()) == Some(before) {
                // A row holds numbers only, so the text of the row before, `]` included, is
                // all of this one.
                out.repeat_row(out.len().checked_sub(1)?)?;
                r.at = at + before.len();
                return Some(());
            }
            let start = out.values_mut().len();
            r.numbers(|value| out.values_mut().push(value))?;
            if !reserved && !out.values_mut().is_empty() {
                reserved = true;
                let left = rows.saturating_sub(out.len());
                let more = out.values_mut().len().saturating_mul(left).min(r.room());
                out.values_mut().reserve(more);
            }
            before = bytes.get(at..r.at)?;
            out.end_row(start).ok()
        })?;
        // As the serde path: what is spare is given back.
        out.shrink_to_fit();
        *rows = out.len();
        Some(out)
    }

    /// A list of lists of numbers whose rows repeat (style rows, attribute lists), read as
    /// [`Reader::ragged`] reads it but each distinct row once: a row whose text was seen before
    /// shares the values read from it. Equal text is equal values, so only the text of a row is
    /// looked at (found with `memchr`, hashed, compared), not its numbers. `rows` as for
    /// [`Reader::list`].
    fn shared_ragged(&mut self, rows: &mut usize) -> Option<Ragged<i64>> {
        let mut out = Ragged::<i64>::new();
        out.reserve_rows((*rows).min(self.room()));
        let mut seen: FxHashMap<&'a [u8], usize> = FxHashMap::default();
        let bytes = self.bytes;
        self.array(|r| {
            // A row holds numbers only, so its text ends at the first `]`.
            let start = r.at;
            let end = start + memchr::memchr(b']', bytes.get(start..)?)? + 1;
            let text = bytes.get(start..end)?;
            if let Some(&k) = seen.get(text) {
                out.repeat_row(k)?;
                r.at = end;
                return Some(());
            }
            let first = out.values_mut().len();
            r.numbers(|value| out.values_mut().push(value))?;
            // Anything else (a row that is not a list) is left to serde to refuse.
            if r.at != end {
                return None;
            }
            seen.insert(text, out.len());
            out.end_row(first).ok()
        })?;
        out.shrink_to_fit();
        *rows = out.len();
        Some(out)
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        let mut out = Vec::new();
        self.array(|r| {
            out.push(r.quoted_text()?.into_owned());
            Some(())
        })?;
        Some(out)
    }

    fn snapshot(&mut self) -> Option<DomSnapshot> {
        let (mut documents, mut strings) = (None, None);
        self.object(|r, key| match key {
            b"documents" => {
                let mut list = Vec::new();
                let read = r.array(|r| {
                    list.push(r.document()?);
                    Some(())
                });
                set_once(&mut documents, read.map(|()| list))
            }
            b"strings" => set_once(&mut strings, r.strings()),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(DomSnapshot {
            documents: documents?,
            strings: strings?,
        })
    }

    fn document(&mut self) -> Option<DocumentRecord> {
        let (mut document_url, mut title, mut base_url, mut content_language) =
            (None, None, None, None);
        let (mut encoding_name, mut public_id, mut system_id, mut frame_id) =
            (None, None, None, None);
        let (mut nodes, mut layout, mut text_boxes) = (None, None, None);
        let (mut scroll_offset_x, mut scroll_offset_y) = (None, None);
        let (mut content_width, mut content_height) = (None, None);
        self.object(|r, key| match key {
            b"documentURL" => set_once(&mut document_url, r.i64()),
            b"title" => set_once(&mut title, r.i64()),
            b"baseURL" => set_once(&mut base_url, r.i64()),
            b"contentLanguage" => set_once(&mut content_language, r.i64()),
            b"encodingName" => set_once(&mut encoding_name, r.i64()),
            b"publicId" => set_once(&mut public_id, r.i64()),
            b"systemId" => set_once(&mut system_id, r.i64()),
            b"frameId" => set_once(&mut frame_id, r.i64()),
            b"nodes" => set_once(&mut nodes, r.nodes()),
            b"layout" => set_once(&mut layout, r.layout()),
            b"textBoxes" => set_once(&mut text_boxes, r.text_boxes()),
            b"scrollOffsetX" => set_once(&mut scroll_offset_x, r.nullable(Self::f64)),
            b"scrollOffsetY" => set_once(&mut scroll_offset_y, r.nullable(Self::f64)),
            b"contentWidth" => set_once(&mut content_width, r.nullable(Self::f64)),
            b"contentHeight" => set_once(&mut content_height, r.nullable(Self::f64)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(DocumentRecord {
            document_url: document_url?,
            title: title?,
            base_url: base_url?,
            content_language: content_language?,
            encoding_name: encoding_name?,
            public_id: public_id?,
            system_id: system_id?,
            frame_id: frame_id?,
            nodes: nodes?,
            layout: layout?,
            text_boxes: text_boxes?,
            scroll_offset_x: scroll_offset_x.flatten(),
            scroll_offset_y: scroll_offset_y.flatten(),
            content_width: content_width.flatten(),
            content_height: content_height.flatten(),
        })
    }

    fn nodes(&mut self) -> Option<NodeTreeRecord> {
        // One entry per node in every list: each list reserves the length of the one before.
        let mut rows = 0;
        let (mut parent_index, mut node_type, mut node_name, mut node_value) =
            (None, None, None, None);
        let (mut backend_node_id, mut attributes) = (None, None);
        let (mut shadow_root_type, mut text_value, mut input_value) = (None, None, None);
        let (mut input_checked, mut option_selected) = (None, None);
        let (mut content_document_index, mut pseudo_type, mut pseudo_identifier) =
            (None, None, None);
        let (mut is_clickable, mut current_source_url, mut origin_url) = (None, None, None);
        self.object(|r, key| match key {
            b"parentIndex" => set_once(&mut parent_index, r.nullable(|r| r.list(&mut rows))),
            b"nodeType" => set_once(&mut node_type, r.nullable(|r| r.list(&mut rows))),
            b"shadowRootType" => set_once(&mut shadow_root_type, r.nullable(Self::rare_strings)),
            b"nodeName" => set_once(&mut node_name, r.nullable(|r| r.list(&mut rows))),
            b"nodeValue" => set_once(&mut node_value, r.nullable(|r| r.list(&mut rows))),
            b"backendNodeId" => set_once(&mut backend_node_id, r.nullable(|r| r.list(&mut rows))),
            b"attributes" => set_once(&mut attributes, r.nullable(|r| r.shared_ragged(&mut rows))),
            b"textValue" => set_once(&mut text_value, r.nullable(Self::rare_strings)),
            b"inputValue" => set_once(&mut input_value, r.nullable(Self::rare_strings)),
            b"inputChecked" => set_once(&mut input_checked, r.nullable(Self::rare_booleans)),
            b"optionSelected" => set_once(&mut option_selected, r.nullable(Self::rare_booleans)),
            b"contentDocumentIndex" => {
                set_once(&mut content_document_index, r.nullable(Self::rare_integers))
            }
            b"pseudoType" => set_once(&mut pseudo_type, r.nullable(Self::rare_strings)),
            b"pseudoIdentifier" => set_once(&mut pseudo_identifier, r.nullable(Self::rare_strings)),
            b"isClickable" => set_once(&mut is_clickable, r.nullable(Self::rare_booleans)),
            b"currentSourceURL" => {
                set_once(&mut current_source_url, r.nullable(Self::rare_strings))
            }
            b"originURL" => set_once(&mut origin_url, r.nullable(Self::rare_strings)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(NodeTreeRecord {
            parent_index: parent_index.flatten(),
            node_type: node_type.flatten(),
            shadow_root_type: shadow_root_type.flatten(),
            node_name: node_name.flatten(),
            node_value: node_value.flatten(),
            backend_node_id: backend_node_id.flatten(),
            attributes: attributes.flatten(),
            text_value: text_value.flatten(),
            input_value: input_value.flatten(),
            input_checked: input_checked.flatten(),
            option_selected: option_selected.flatten(),
            content_document_index: content_document_index.flatten(),
            pseudo_type: pseudo_type.flatten(),
            pseudo_identifier: pseudo_identifier.flatten(),
            is_clickable: is_clickable.flatten(),
            current_source_url: current_source_url.flatten(),
            origin_url: origin_url.flatten(),
        })
    }

    fn layout(&mut self) -> Option<LayoutTreeRecord> {
        // One entry per box in every list, as for the nodes.
        let mut rows = 0;
        let (mut node_index, mut styles, mut bounds, mut text) = (None, None, None, None);
        let (mut stacking_contexts, mut paint_orders) = (None, None);
        let (mut offset_rects, mut scroll_rects, mut client_rects) = (None, None, None);
        let (mut blended_background_colors, mut text_color_opacities) = (None, None);
        self.object(|r, key| match key {
            b"nodeIndex" => set_once(&mut node_index, r.list(&mut rows)),
            b"styles" => set_once(&mut styles, r.shared_ragged(&mut rows)),
            b"bounds" => set_once(&mut bounds, r.ragged_with(&mut rows, true)),
            b"text" => set_once(&mut text, r.list(&mut rows)),
            b"stackingContexts" => set_once(&mut stacking_contexts, r.rare_booleans()),
            b"paintOrders" => set_once(&mut paint_orders, r.nullable(|r| r.list(&mut rows))),
            b"offsetRects" => set_once(&mut offset_rects, r.nullable(|r| r.ragged(&mut rows))),
            b"scrollRects" => set_once(&mut scroll_rects, r.nullable(|r| r.ragged(&mut rows))),
            b"clientRects" => set_once(&mut client_rects, r.nullable(|r| r.ragged(&mut rows))),
            b"blendedBackgroundColors" => set_once(
                &mut blended_background_colors,
                r.nullable(|r| r.list(&mut rows)),
            ),
            b"textColorOpacities" => {
                set_once(&mut text_color_opacities, r.nullable(|r| r.list(&mut rows)))
            }
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(LayoutTreeRecord {
            node_index: node_index?,
            styles: styles?,
            bounds: bounds?,
            text: text?,
            stacking_contexts: stacking_contexts?,
            paint_orders: paint_orders.flatten(),
            offset_rects: offset_rects.flatten(),
            scroll_rects: scroll_rects.flatten(),
            client_rects: client_rects.flatten(),
            blended_background_colors: blended_background_colors.flatten(),
            text_color_opacities: text_color_opacities.flatten(),
        })
    }

    fn text_boxes(&mut self) -> Option<TextBoxRecord> {
        // One entry per text box in every list, as for the nodes.
        let mut rows = 0;
        let (mut layout_index, mut bounds, mut start, mut length) = (None, None, None, None);
        self.object(|r, key| match key {
            b"layoutIndex" => set_once(&mut layout_index, r.list(&mut rows)),
            b"bounds" => set_once(&mut bounds, r.ragged(&mut rows)),
            b"start" => set_once(&mut start, r.list(&mut rows)),
            b"length" => set_once(&mut length, r.list(&mut rows)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(TextBoxRecord {
            layout_index: layout_index?,
            bounds: bounds?,
            start: start?,
            length: length?,
        })
    }

    fn rare_strings(&mut self) -> Option<RareStringData> {
        let (mut index, mut value) = (None, None);
        let mut rows = 0;
        self.object(|r, key| match key {
            b"index" => set_once(&mut index, r.list(&mut rows)),
            b"value" => set_once(&mut value, r.list(&mut rows)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(RareStringData {
            index: index?,
            value: value?,
        })
    }

    fn rare_booleans(&mut self) -> Option<RareBooleanData> {
        let mut index = None;
        let mut rows = 0;
        self.object(|r, key| match key {
            b"index" => set_once(&mut index, r.list(&mut rows)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(RareBooleanData { index: index? })
    }

    fn rare_integers(&mut self) -> Option<RareIntegerData> {
        let (mut index, mut value) = (None, None);
        let mut rows = 0;
        self.object(|r, key| match key {
            b"index" => set_once(&mut index, r.list(&mut rows)),
            b"value" => set_once(&mut value, r.list(&mut rows)),
            _ => r.skip_value(SKIP_DEPTH),
        })?;
        Some(RareIntegerData {
            index: index?,
            value: value?,
        })
    }
}

#[cfg(test)]
mod tests {

    use serde_json::value::RawValue;
    use tokio_tungstenite::tungstenite::Bytes;

    use super::*;
    use crate::capture::json_reader::{digits, more_digits};

    /// Equal, and every float the same to the bit (the JSON of an `f64` names its bits, and
    /// tells `-0.0` from `0.0`, which `==` does not).
    fn same(a: &DomSnapshot, b: &DomSnapshot) -> bool {
        a == b && serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
    }

    /// Reads `text` both ways: whatever the fast reader gives must be what serde gives, and
    /// `from_json` must give serde's value or serde's error. Returns the fast reader's answer.
    fn agree(text: &str) -> Option<DomSnapshot> {
        let fast = DomSnapshot::read_fast(text.as_bytes());
        let serde = serde_json::from_str::<DomSnapshot>(text);
        if let Some(fast) = &fast {
            match &serde {
                Ok(serde) => assert!(same(fast, serde), "fast and serde differ on {text}"),
                Err(e) => panic!("the fast reader read what serde refuses ({e}): {text}"),
            }
        }
        match (DomSnapshot::from_json(text), &serde) {
            (Ok(a), Ok(b)) => assert!(same(&a, b)),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("from_json gave {a:?}, serde {b:?}, on {text}"),
        }
        fast
    }

    /// Like [`agree`], and the fast reader must have read it.
    fn reads(text: &str) -> DomSnapshot {
        agree(text).unwrap_or_else(|| panic!("the fast reader gave up on {text}"))
    }

    /// The `domSnapshot` text of a recorded capture.
    fn capture_dom(name: &str) -> String {
        let json = String::from_utf8(crate::capture::tests::fixture_json(name)).unwrap();
        #[derive(serde::Deserialize)]
        struct Parts<'a> {
            #[serde(borrow, rename = "domSnapshot")]
            dom_snapshot: &'a RawValue,
        }
        let parts: Parts<'_> = serde_json::from_str(&json).unwrap();
        parts.dom_snapshot.get().to_owned()
    }

    fn captures() -> Vec<(String, String)> {
        crate::capture::tests::recorded_capture_names()
            .into_iter()
            .map(|name| {
                let dom = capture_dom(&name);
                (name, dom)
            })
            .collect()
    }

    const BASE: &str = r##"{"documents":[{"documentURL":0,"title":-1,"baseURL":0,
        "contentLanguage":-1,"encodingName":1,"publicId":-1,"systemId":-1,"frameId":2,
        "nodes":{"parentIndex":[-1,0,1],"nodeType":[9,1,3],"nodeName":[3,4,8],
            "nodeValue":[-1,-1,6],"backendNodeId":[1,2,3],"attributes":[[],[5,6],[]],
            "inputValue":{"index":[1],"value":[6]},"isClickable":{"index":[1]},
            "contentDocumentIndex":{"index":[],"value":[]}},
        "layout":{"nodeIndex":[0,1,2],"styles":[[],[7,7],[7,7]],
            "bounds":[[0,0,800,600],[8,8.5,100.25,20],[8,8.5,30.5,18.1875]],"text":[-1,-1,6],
            "stackingContexts":{"index":[0]},"paintOrders":[0,1,2],
            "clientRects":[[],[0,0,100,20],[]]},
        "textBoxes":{"layoutIndex":[2],"bounds":[[8,8.5,30.5,18.1875]],"start":[0],
            "length":[3]},
        "scrollOffsetX":0,"scrollOffsetY":12.5,"contentWidth":800,"contentHeight":600}],
        "strings":["http://x/","UTF-8","F1","#document","DIV","class","a b","block","#text"]}"##;

    #[test]
    fn reads_every_recorded_capture_as_serde_does() {
        for (name, dom) in captures() {
            let fast = DomSnapshot::read_fast(dom.as_bytes())
                .unwrap_or_else(|| panic!("{name}: the fast reader gave up"));
            let serde: DomSnapshot = serde_json::from_str(&dom).unwrap();
            assert!(same(&fast, &serde), "{name}: fast and serde differ");
            assert!(fast.node_count() > 0, "{name}");
            // The same JSON laid out otherwise: keys sorted, then whitespace everywhere.
            // (Written again from serde's values, whose floats may not read back to the bit, so
            // each is compared with serde's reading of the new text.)
            let value: serde_json::Value = serde_json::from_str(&dom).unwrap();
            let sorted = serde_json::to_string(&value).unwrap();
            assert_eq!(reads(&sorted).node_count(), serde.node_count(), "{name}");
            let pretty = format!(
                "\n\t {} \r\n",
                serde_json::to_string_pretty(&value).unwrap()
            );
            assert_eq!(reads(&pretty).node_count(), serde.node_count(), "{name}");
        }
    }

    #[test]
    fn reads_a_reply_as_the_protocol_writes_it() {
        let snapshot = reads(BASE);
        let d = &snapshot.documents[0];
        assert_eq!(d.layout.bounds.get(2), Some(&[8.0, 8.5, 30.5, 18.1875][..]));
        assert_eq!(
            d.nodes.attributes.as_ref().unwrap().get(1),
            Some(&[5i64, 6][..])
        );
        assert_eq!(d.nodes.input_value.as_ref().unwrap().value, vec![6]);
        assert_eq!(d.scroll_offset_y, Some(12.5));
        assert_eq!(snapshot.string(6), Some("a b"));
        // Spaces, tabs and line ends between every token (BASE has no escaped quote).
        let mut in_string = false;
        let spaced: String = BASE
            .chars()
            .flat_map(|c| match c {
                '"' => {
                    in_string = !in_string;
                    vec![c]
                }
                '{' | '}' | '[' | ']' | ',' | ':' if !in_string => {
                    vec![' ', c, '\n', '\t', '\r']
                }
                c => vec![c],
            })
            .collect();
        assert!(same(&reads(&spaced), &snapshot));
    }

    #[test]
    fn repeated_rows_are_read_once_yet_read_as_serde_reads_them() {
        let snapshot = reads(BASE);
        let styles = &snapshot.documents[0].layout.styles;
        assert!(styles.shared());
        assert_eq!(
            styles.rows().collect::<Vec<_>>(),
            vec![&[][..], &[7, 7], &[7, 7]]
        );
        assert!(!snapshot.documents[0].layout.bounds.shared());
        // Equal numbers written otherwise are other text, each read on its own; damaged rows,
        // seen before or not, are refused as serde refuses them.
        for rows in [
            "[[7,7],[7, 7],[ 7,7],[7,7 ]]",
            "[[1],[1],[1,2],[1],[],[]]",
            "[[1.0],[1.0]]",
            "[[-0],[-0]]",
            "[[7,7],[7,7],7]",
            "[[7,7],[7,7],[7,7",
            "[[7,7],[7,7],[7,\"7\"]]",
            "[[7,7],[7,7],[7,7]x]",
            "[[7,7],[7,7],{\"a\":[1]}]",
            "[[7,7],[7,7],null]",
        ] {
            let text = BASE.replace(
                r#""styles":[[],[7,7],[7,7]]"#,
                &format!(r#""styles":{rows}"#),
            );
            assert_ne!(text, BASE);
            agree(&text);
            let attrs = BASE.replace(
                r#""attributes":[[],[5,6],[]]"#,
                &format!(r#""attributes":{rows}"#),
            );
            agree(&attrs);
        }
        // Bounds are compared with the row before only.
        let bounds = r#""bounds":[[0,0,800,600],[8,8.5,100.25,20],[8,8.5,30.5,18.1875]]"#;
        for rows in [
            "[[1,2,3,4.5],[1,2,3,4.5],[1,2,3,4.5]]",
            "[[1,2,3,4.5],[1,2,3,4.5 ],[1,2,3,4.5]]",
            "[[1,2,3,4.5],[1,2,3,4.50],[1,2,3,4.5]]",
            "[[1,2,3,4],[1,2,3,4],[1,2,3,4]]",
            "[[1,2,3,4],[1,2,3,4],[1,2,3,4],[5]]",
            "[[],[],[1],[1]]",
            "[[1,2,3,4],[1,2,3,4],[1,2,3,4]",
            "[[1,2,3,4],[1,2,3,4]x[1,2,3,4]]",
            "[[1,2,3,4],[1,2,3,4],1,2,3,4]]",
        ] {
            let text = BASE.replace(bounds, &format!(r#""bounds":{rows}"#));
            assert_ne!(text, BASE);
            agree(&text);
        }
        let repeated = BASE.replace(bounds, r#""bounds":[[1,2,3,4.5],[1,2,3,4.5],[1,2,3,4.5]]"#);
        let layout = &reads(&repeated).documents[0].layout;
        assert!(layout.bounds.shared());
        assert_eq!(layout.bounds.get(2), Some(&[1.0, 2.0, 3.0, 4.5][..]));
        // A long page's style rows are a few distinct ones, and a box's bounds are often the
        // box before's.
        let stdtypes = reads(&capture_dom("stdtypes.json.gz"));
        let layout = &stdtypes.documents[0].layout;
        assert!(layout.styles.len() > 30_000 && layout.styles.shared());
        assert!(layout.bounds.shared());
        assert!(stdtypes.documents[0]
            .nodes
            .attributes
            .as_ref()
            .unwrap()
            .shared());
    }

    #[test]
    fn numbers_are_the_bits_serde_gives() {
        let floats = [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "0.1",
            "-0.1",
            "0.5",
            "1e-7",
            "1E3",
            "2.5e+2",
            "-3.5e-2",
            "12345.678",
            "82795.921875",
            "1204.59375",
            "0.30000000000000004",
            "12.399999618530273",
            "3.141592653589793",
            "2.718281828459045e-5",
            "1e22",
            "1e23",
            "1e-22",
            "1e-23",
            "9007199254740991",
            "9007199254740992",
            "9007199254740993",
            "9007199254740993.0",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "5e-324",
            "1e-400",
            "0e999",
            "4.9406564584124654e-324",
            "0.000000000000000000000000001",
            "1.00000000000000000001",
            "7.1875000000000000000000",
            "100000000000000000000e-20",
        ];
        for f in floats {
            let mut row = vec![f.to_owned()];
            if !f.starts_with('-') {
                row.push(format!("-{f}"));
            }
            if !f.contains(['e', 'E']) {
                row.extend([format!("{f}e0"), format!("{f}E-1"), format!("{f}e+2")]);
            }
            let text = BASE.replace("[8,8.5,100.25,20]", &format!("[{}]", row.join(",")));
            reads(&text);
        }
        for bad in [
            "1e400", "-1e400", "1.", ".5", "01", "1e", "1e+", "--1", "+1", "0x10", "1.5.5",
        ] {
            let text = BASE.replace("[8,8.5,100.25,20]", &format!("[{bad}]"));
            assert!(agree(&text).is_none(), "{bad}");
        }
        for i in ["9223372036854775807", "-9223372036854775808", "0", "-1"] {
            let snapshot = reads(&BASE.replace(
                "\"backendNodeId\":[1,2,3]",
                &format!("\"backendNodeId\":[{i},{i},{i}]"),
            ));
            let ids = snapshot.documents[0]
                .nodes
                .backend_node_id
                .as_ref()
                .unwrap();
            assert_eq!(ids[0], i.parse::<i64>().unwrap());
        }
        // serde_json reads all of these as floats (or refuses them), which an i64 is not.
        for bad in [
            "-0",
            "1.0",
            "1e2",
            "01",
            "9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "-",
            "1a",
            "\"1\"",
            "null",
            "true",
        ] {
            let text = BASE.replace(
                "\"backendNodeId\":[1,2,3]",
                &format!("\"backendNodeId\":[1,{bad},3]"),
            );
            assert!(agree(&text).is_none(), "{bad}");
            let text = BASE.replace("\"frameId\":2", &format!("\"frameId\":{bad}"));
            assert!(agree(&text).is_none(), "{bad}");
        }
    }

    #[test]
    fn digits_are_read_a_word_at_a_time_as_one_by_one() {
        let runs = [
            "0", "7", "10", "305", "9999", "12345", "654321", "1000001", "12345678",
        ];
        let mut texts: Vec<String> = Vec::new();
        for run in runs
            .iter()
            .map(|r| r.to_string())
            .chain((9..=21).map(|n| "98".repeat(n)[..n].to_string()))
        {
            for tail in [
                "", ",", "]", ", 5", ".5,", "e1", "/", ":", "\u{7f}", "é", "        ",
            ] {
                texts.push(format!("{run}{tail}"));
            }
        }
        for text in &texts {
            let bytes = text.as_bytes();
            let (value, len) = digits(bytes, 0);
            assert_eq!((value, len), more_digits(bytes, 0, 0, 0), "{text}");
            if let Some(found) = compact_digits(bytes, 0) {
                assert_eq!((found.value, found.len), (value, len), "{text}");
                assert_eq!(found.after.next(), bytes.get(len).copied(), "{text}");
                assert!((1..=7).contains(&len), "{text}");
            } else {
                assert!(len == 0 || len >= 8 || bytes.len() < 8, "{text}");
            }
        }
        for n in (0..100_000u64).chain([9_999_999, 10_000_000, 1 << 53, u64::MAX / 10]) {
            let text = format!("{n},]]]]]]]]");
            assert_eq!(digits(text.as_bytes(), 0), (n, n.to_string().len()), "{n}");
        }
    }

    #[test]
    fn lists_of_mixed_numbers_are_read_as_serde_reads_them() {
        // Numbers the fast path reads, next to ones it leaves to the general
        // reader (too long, exponents, spaces, leading zeros refused), in runs long enough
        // that numbers straddle words at every offset.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let integers = [
            "0",
            "7",
            "-1",
            "42",
            "-305",
            "9999999",
            "-9999999",
            "10000000",
            "123456789012",
            "-9223372036854775808",
            " 5",
            "6 ",
            " -7 ",
        ];
        let floats = [
            "0",
            "-0",
            "0.5",
            "-0.25",
            "1204.59375",
            "82795.921875",
            "1234567.1234567",
            "12345678.5",
            "1.12345678",
            "1e3",
            "2.5E-2",
            "7.1875",
            " 8",
            "9.5 ",
            "-3",
        ];
        for round in 0..300 {
            let count = 1 + (next() % 40) as usize;
            let pick = |list: &[&str], n: u64| list[n as usize % list.len()].to_owned();
            let ints: Vec<String> = (0..count).map(|_| pick(&integers, next())).collect();
            let rows: Vec<String> = (0..count)
                .map(|_| {
                    let width = (next() % 5) as usize;
                    let row: Vec<String> = (0..width).map(|_| pick(&floats, next())).collect();
                    format!("[{}]", row.join(","))
                })
                .collect();
            let text = BASE
                .replace(
                    "\"backendNodeId\":[1,2,3]",
                    &format!("\"backendNodeId\":[{}]", ints.join(",")),
                )
                .replace(
                    "\"bounds\":[[0,0,800,600],[8,8.5,100.25,20],[8,8.5,30.5,18.1875]]",
                    &format!("\"bounds\":[{}]", rows.join(",")),
                );
            let snapshot = agree(&text);
            // Within what the general reader reads, every list is read.
            if ints.iter().all(|i| i.trim().parse::<i64>().is_ok()) {
                assert!(snapshot.is_some(), "round {round}: {text}");
            }
        }
    }

    #[test]
    fn fast_path_floats_are_correctly_rounded() {
        // A simple generator: the values need only be many and varied.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let integer = next() % 10_000_000;
            let fraction_len = (next() % 8) as usize;
            let fraction = next() % 10u64.pow(fraction_len as u32);
            let number = if fraction_len == 0 {
                integer.to_string()
            } else {
                format!("{integer}.{fraction:0fraction_len$}")
            };
            // Room after it for the words read at once.
            let text = format!("{number},]]]]]]]]]]]]]]]]");
            let number = number.as_str();
            let mut reader = Reader::new(text.as_bytes(), Surrogates::Refuse);
            let fast = f64::compact(&mut reader).map(|(v, _)| v);
            let mut reader = Reader::new(text.as_bytes(), Surrogates::Refuse);
            let general = reader.f64();
            let exact: f64 = number.parse().unwrap();
            let serde: f64 = serde_json::from_str(number).unwrap();
            for read in [fast, general] {
                assert_eq!(read.map(f64::to_bits), Some(exact.to_bits()), "{number}");
            }
            assert_eq!(serde.to_bits(), exact.to_bits(), "{number}");
        }
    }

    #[test]
    fn strings_are_unescaped_as_serde_does() {
        let strings = [
            r#""""#,
            r#""plain""#,
            r#""a\"b""#,
            r#""\\""#,
            r#""\/""#,
            r#""\b\f\n\r\t""#,
            r#""\u0041\u00e9\u4E2D\u0000""#,
            r#""\ud83d\ude00 and \uD83D\uDE00""#,
            r#""é中😀 \" tail""#,
            r#""\\u0041""#,
            r#""\\\"""#,
        ];
        for s in strings {
            let text = BASE.replace(r#""a b""#, s);
            reads(&text);
        }
        let snapshot = reads(&BASE.replace(r#""a b""#, r#""x\u00e9\ud83d\ude00\n""#));
        assert_eq!(snapshot.string(6), Some("xé😀\n"));
        for bad in [
            r#""\x""#,
            r#""\u12""#,
            r#""\u12g4""#,
            "\"tab\there\"",
            "\"nul\u{1}\"",
            r#""unterminated"#,
            r#""\"#,
        ] {
            let text = BASE.replace(r#""a b""#, bad);
            assert!(agree(&text).is_none(), "{bad}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_wherever_they_are() {
        // Only strings are checked; each place a string can be must refuse what is not UTF-8,
        // as reading the bytes as text first would have.
        let good = r#""a é b""#;
        assert!(Reader::new(
            BASE.replace(r#""a b""#, good).as_bytes(),
            Surrogates::Replace
        )
        .read()
        .is_some());
        let places = [
            // a string of the table, plain and with an escape
            (r#""a b""#, "\"a \u{1} b\""),
            (r#""a b""#, "\"a\\n \u{1} b\""),
            // a key the reader knows the shape of, and one it skips
            (r#""title":-1"#, "\"ti\u{1}tle\":-1"),
            (r#""systemId":-1,"#, "\"systemId\":-1,\"x\u{1}\":1,"),
            // a string in a value that is skipped
            (
                r#""systemId":-1,"#,
                "\"systemId\":-1,\"extra\":[\"\u{1}\"],",
            ),
        ];
        for (from, to) in places {
            for bad in [&[0xFFu8][..], &[0xC3], &[0xED, 0xA0, 0x80]] {
                let mut bytes = Vec::new();
                let text = BASE.replacen(from, to, 1);
                assert_ne!(text, BASE, "{from}");
                for (k, part) in text.split('\u{1}').enumerate() {
                    if k > 0 {
                        bytes.extend_from_slice(bad);
                    }
                    bytes.extend_from_slice(part.as_bytes());
                }
                assert!(std::str::from_utf8(&bytes).is_err());
                let read = Reader::new(&bytes, Surrogates::Replace).read();
                assert!(read.is_none(), "{to} with {bad:?}");
            }
        }
    }

    #[test]
    fn unpaired_surrogates_read_as_the_serde_path_reads_them() {
        let lone = [
            r#""\ud800""#,
            r#""a\udc00b""#,
            r#""\ud800\ud800\udc00""#,
            r#""\ud800\u0041""#,
            r#""\udbff\n""#,
            r#""\ud800\\""#,
            r#""\uDFFF\uD800""#,
        ];
        for s in lone {
            let text = BASE.replace(r#""a b""#, s);
            // serde_json refuses them, and so does the fast reader on its own.
            assert!(agree(&text).is_none(), "{s}");
            // A reply from the browser: read as `RawJson::parse` reads it, U+FFFD for each.
            let raw = RawJson::new(Bytes::from(text.clone().into_bytes()), 0..text.len());
            let method = <CaptureDomSnapshot as crate::cdp::Command>::METHOD;
            let expected = raw.parse::<DomSnapshot>(method).unwrap();
            let fast = Reader::new(text.as_bytes(), Surrogates::Replace)
                .read()
                .unwrap();
            assert!(same(&fast, &expected), "{s}");
            assert!(same(&DomSnapshot::from_reply(&raw).unwrap(), &expected));
            assert!(expected.string(6).unwrap().contains('\u{FFFD}'));
        }
        // In a value serde ignores they are no error.
        let text = BASE.replace(r#""frameId":2"#, r#""frameId":2,"x":"\ud800""#);
        reads(&text);
        // A reply serde refuses gives serde's error.
        let text = BASE.replace(r#""frameId":2,"#, "");
        let raw = RawJson::new(Bytes::from(text.clone().into_bytes()), 0..text.len());
        let method = <CaptureDomSnapshot as crate::cdp::Command>::METHOD;
        assert_eq!(
            DomSnapshot::from_reply(&raw).unwrap_err().to_string(),
            raw.parse::<DomSnapshot>(method).unwrap_err().to_string()
        );
    }

    #[test]
    fn tolerates_what_the_bindings_tolerate() {
        let nested = r#"{"a":[1,{"b":null,"c":[true,false,"s\"]}",-1.5e3,{}]}],"d":{},"e":[]}"#;
        let base = reads(BASE);
        // Unknown keys, with any value, at every level.
        for at in [
            r#"{"documents":"#,
            r#"{"documentURL":"#,
            r#""nodes":{"#,
            r#""layout":{"#,
            r#""textBoxes":{"#,
            r#""isClickable":{"#,
            r#""inputValue":{"#,
            r#""stackingContexts":{"#,
        ] {
            let (key, rest) = at.split_at(at.rfind('{').unwrap() + 1);
            let text = BASE.replace(at, &format!("{key}\"future\":{nested},{rest}"));
            assert!(same(&reads(&text), &base), "{at}");
        }
        let text = BASE.replace(r#""frameId":2"#, &format!(r#""frameId":2,"x":{nested}"#));
        assert!(same(&reads(&text), &base));
        for value in [
            "null", "true", "false", "0", "-1.5e-3", "\"\"", "[]", "{}", "[[[[]]]]",
        ] {
            let text = BASE.replace(r#""frameId":2"#, &format!(r#""frameId":2,"x":{value}"#));
            assert!(same(&reads(&text), &base), "{value}");
        }
        // Every optional field absent, or null.
        let bare = r#"{"strings":[],"documents":[{"nodes":{},"title":0,"documentURL":0,
            "baseURL":0,"contentLanguage":0,"encodingName":0,"publicId":0,"systemId":0,
            "frameId":0,"textBoxes":{"length":[],"start":[],"bounds":[],"layoutIndex":[]},
            "layout":{"stackingContexts":{"index":[]},"text":[],"bounds":[],"styles":[],
            "nodeIndex":[]}}]}"#;
        let snapshot = reads(bare);
        assert_eq!(snapshot.documents[0].nodes, NodeTreeRecord::default());
        assert_eq!(snapshot.documents[0].scroll_offset_x, None);
        let nulls = bare
            .replace(
                r#""nodes":{}"#,
                r#""nodes":{"parentIndex":null,"nodeType":null,"shadowRootType":null,
                "nodeName":null,"nodeValue":null,"backendNodeId":null,"attributes":null,
                "textValue":null,"inputValue":null,"inputChecked":null,"optionSelected":null,
                "contentDocumentIndex":null,"pseudoType":null,"pseudoIdentifier":null,
                "isClickable":null,"currentSourceURL":null,"originURL":null}"#,
            )
            .replace(
                r#""nodeIndex":[]"#,
                r#""nodeIndex":[],"paintOrders":null,"offsetRects":null,"scrollRects":null,
                "clientRects":null,"blendedBackgroundColors":null,"textColorOpacities":null"#,
            )
            .replace(
                r#""frameId":0"#,
                r#""frameId":0,"scrollOffsetX":null,"scrollOffsetY":null,
                "contentWidth":null,"contentHeight":null"#,
            );
        assert!(same(&reads(&nulls), &snapshot));
        // Every optional field there, empty.
        let empty = bare
            .replace(
                r#""nodes":{}"#,
                r#""nodes":{"parentIndex":[],"nodeType":[],"shadowRootType":{"index":[],
                "value":[]},"nodeName":[],"nodeValue":[],"backendNodeId":[],"attributes":[],
                "textValue":{"index":[],"value":[]},"inputChecked":{"index":[]},
                "contentDocumentIndex":{"index":[],"value":[]}}"#,
            )
            .replace(
                r#""nodeIndex":[]"#,
                r#""nodeIndex":[],"paintOrders":[],"offsetRects":[[]],"scrollRects":[],
                "clientRects":[[],[]],"blendedBackgroundColors":[],"textColorOpacities":[0.5]"#,
            );
        reads(&empty);
        reads(r#"{"documents":[],"strings":[]}"#);
        reads(" {\"strings\" : [ ] , \"documents\" : [ ] } ");
    }

    #[test]
    fn leaves_to_serde_what_it_does_not_read() {
        for (from, to) in [
            // A field given twice (serde refuses it), even a null one.
            (r#""frameId":2"#, r#""frameId":2,"frameId":2"#),
            (
                r#""paintOrders":[0,1,2]"#,
                r#""paintOrders":null,"paintOrders":null"#,
            ),
            // A required field missing or null.
            (r#""frameId":2,"#, ""),
            (r#""frameId":2"#, r#""frameId":null"#),
            (
                r#""stackingContexts":{"index":[0]}"#,
                r#""stackingContexts":null"#,
            ),
            (r#""index":[1]}"#, r#""index":null}"#),
            // Keys with escapes: serde compares them unescaped.
            (r#""documents""#, r#""docu\u006dents""#),
            (r#""frameId":2"#, r#""frameId":2,"\u0078":1"#),
            // Wrong types.
            (r#""styles":[[],[7,7],[7,7]]"#, r#""styles":[7,7]"#),
            (r#""styles":[[],[7,7],[7,7]]"#, r#""styles":[[],null]"#),
            (r#""text":[-1,-1,6]"#, r#""text":{}"#),
            (r#""strings":["#, r#""strings":[1,"#),
            (r#""strings":["#, r#""strings":[null,"#),
            // A struct written as an array, which serde reads.
            (r#""isClickable":{"index":[1]}"#, r#""isClickable":[[1]]"#),
            // Not JSON.
            (r#""frameId":2"#, r#""frameId":2,"#),
            (r#""frameId":2"#, r#""frameId":2,,"x":1"#),
            (r#""frameId":2,"#, r#""frameId":2"#),
            (r#"[0,1,2]"#, r#"[0,1,2,]"#),
            (r#"[0,1,2]"#, r#"[0 1,2]"#),
            (r#""frameId":2"#, r#""frameId" 2"#),
            (r#""frameId":2"#, r#""frameId":2,"x":[1,}"#),
            (r#""frameId":2"#, r#""frameId":2,"x":{"a"}"#),
            (r#""frameId":2"#, r#""frameId":2,"x":{1:2}"#),
            (r#""frameId":2"#, r#""frameId":2,"x":tru"#),
            (r#""frameId":2"#, r#""frameId":2,"x":nul"#),
            (r#""frameId":2"#, r#""frameId":2,"x":"\q""#),
            (r#""frameId":2"#, r#""frameId":2,"x":-"#),
            (r#""frameId":2"#, r#""frameId":2,"x":1.e5"#),
            (r#""frameId":2"#, r#""frameId":2,"x":'a'"#),
        ] {
            assert!(BASE.contains(from), "{from}");
            let text = BASE.replacen(from, to, 1);
            assert!(agree(&text).is_none(), "{to}");
        }
        for text in [
            "",
            " ",
            "null",
            "[]",
            "{}",
            r#"{"documents":[],"strings":[]} x"#,
            r#"{"documents":[],"strings":[]}{}"#,
            r#"[[],[]]"#,
            "\u{feff}{\"documents\":[],\"strings\":[]}",
        ] {
            assert!(agree(text).is_none(), "{text}");
        }
    }

    #[test]
    fn deep_unknown_values_are_refused_without_recursing_far() {
        for depth in [10usize, 99, 100, 101, 127, 128, 129, 100_000] {
            for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
                let value = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                let text = BASE.replace(r#""frameId":2"#, &format!(r#""frameId":2,"x":{value}"#));
                let fast = agree(&text);
                assert_eq!(fast.is_some(), depth <= SKIP_DEPTH as usize, "{depth}");
            }
        }
    }

    #[test]
    fn cut_or_damaged_text_is_refused_or_read_as_serde_reads_it() {
        let base = BASE.replace("\n", "").replace("  ", "");
        for end in 0..base.len() {
            if let Some(prefix) = base.get(..end) {
                assert!(agree(prefix).is_none(), "{prefix}");
            }
        }
        let bytes = base.as_bytes();
        for at in 0..bytes.len() {
            for b in *b"[]{},:\"\\0-.en x\x01" {
                let mut damaged = bytes.to_vec();
                damaged[at] = b;
                if let Ok(text) = std::str::from_utf8(&damaged) {
                    agree(text);
                }
            }
            let mut without = bytes.to_vec();
            without.remove(at);
            if let Ok(text) = std::str::from_utf8(&without) {
                agree(text);
            }
        }
        // A recorded page: cut at many places, and bytes overwritten.
        let dom = capture_dom("sign-in.json.gz");
        for end in (0..dom.len()).step_by(31) {
            if let Some(prefix) = dom.get(..end) {
                assert!(agree(prefix).is_none());
            }
        }
        for at in (0..dom.len()).step_by(89) {
            for b in *b"]},\"\\0.-" {
                let mut damaged = dom.clone().into_bytes();
                damaged[at] = b;
                if let Ok(text) = std::str::from_utf8(&damaged) {
                    agree(text);
                }
            }
        }
    }
}
