//! Parsing a large capture file in pieces: finding where its `domSnapshot` and `axTrees`
//! values lie, so each is read by the engine's own reader (the trees on two threads), and the
//! rest of the file as a whole [`Capture`].

use std::sync::Arc;

use super::json_reader::is_json_whitespace;
use super::{ax, AxTreeCapture, Capture, DomSnapshot};

/// How far into the file `domSnapshot` may start for [`parse_split`] to look for it: the keys
/// written before it are small, and finding that it is a top-level key reads every byte before it.
const SPLIT_PREFIX_MAX: usize = 1 << 20;

/// Parses a capture as three pieces, two of them at once when `parallel`: the `domSnapshot`
/// value and the `axTrees` value (together nearly all of a large file, and about equally long
/// to parse), then the file with those two values replaced by small stand-ins, as a whole
/// [`Capture`], so every rule of the one-piece parse (defaults, unknown keys ignored, a key
/// given twice refused) still holds for the rest. The two values are deserialised as the
/// `Capture` fields they fill would be.
///
/// Why in pieces even on one thread: the `domSnapshot` value is then read by the engine's own
/// reader ([`DomSnapshot::from_json`]), which a one-piece parse cannot call; on a small page
/// that value is over a third of the file's parse.
///
/// `None` when the file is not laid out as [`Capture::to_writer`] writes it (`axTrees` right
/// after `domSnapshot`, both top-level keys) or when any piece fails to parse: the caller then
/// parses the file in one piece, which gives the answer, or the error, it always gave.
pub(super) fn parse_split(text: &str, parallel: bool) -> Option<Capture> {
    const DOM_STAND_IN: &str = r#"{"documents":[],"strings":[]}"#;
    let (dom_at, comma, ax_at) = split_points(text)?;
    let dom_text = text.get(dom_at..comma)?;
    let ax_text = text.get(ax_at..)?;

    // The trees take longer to read than the DOM snapshot: this thread reads the DOM snapshot
    // and then helps with the trees (see `ax/split.rs`).
    let dom = || DomSnapshot::from_json(dom_text).ok();
    let (ax, dom) = if parallel {
        ax::split::read_trees_with(ax_text, dom)
    } else {
        (ax::split::read_trees(ax_text), dom())
    };
    let dom_snapshot = dom?;
    let (ax_trees, ax_len) = match ax {
        Some(read) => read,
        None => {
            let mut values =
                serde_json::Deserializer::from_str(ax_text).into_iter::<Vec<AxTreeCapture>>();
            let trees = values.next()?.ok()?;
            (trees, values.byte_offset())
        }
    };
    let ax_end = ax_at + ax_len;

    let (head, between, tail) = (
        text.get(..dom_at)?,
        text.get(comma..ax_at)?,
        text.get(ax_end..)?,
    );
    let mut rest =
        String::with_capacity(head.len() + DOM_STAND_IN.len() + between.len() + 2 + tail.len());
    rest.push_str(head);
    rest.push_str(DOM_STAND_IN);
    rest.push_str(between);
    rest.push_str("[]");
    rest.push_str(tail);
    let mut capture: Capture = serde_json::from_str(&rest).ok()?;
    capture.dom_snapshot = Arc::new(dom_snapshot);
    capture.ax_trees = ax_trees;
    Some(capture)
}

/// Where a capture file's `domSnapshot` value starts, where the `,` after it is, and where the
/// `axTrees` value starts, when the file is laid out as [`Capture::to_writer`] writes it (see
/// [`parse_split`]).
pub(super) fn split_points(text: &str) -> Option<(usize, usize, usize)> {
    const DOM_KEY: &[u8] = b"\"domSnapshot\"";
    const AX_KEY: &[u8] = b"\"axTrees\"";
    let bytes = text.as_bytes();
    let (dom_key, dom_at) = memchr::memmem::find_iter(bytes, DOM_KEY)
        .find_map(|at| Some((at, value_after_key(bytes, at + DOM_KEY.len())?)))?;
    // It must be a key of the top-level object: had a nested one its value replaced, the
    // top-level one, read with the rest, would then be overwritten by it.
    if dom_key > SPLIT_PREFIX_MAX || !at_top_level(&bytes[..dom_key]) {
        return None;
    }
    // The value of `domSnapshot` is then taken to be all up to the `,` before the next
    // `"axTrees":`. Parsing it whole proves that: had another key come between them, or this
    // `"axTrees"` been a key within `domSnapshot`, the slice would not be one JSON value.
    let (comma, ax_at) = memchr::memmem::find_iter(&bytes[dom_at..], AX_KEY).find_map(|at| {
        let at = dom_at + at;
        let comma = (at - trailing_whitespace(&bytes[dom_at..at])).checked_sub(1)?;
        let value = value_after_key(bytes, at + AX_KEY.len())?;
        (comma > dom_at && bytes[comma] == b',').then_some((comma, value))
    })?;
    Some((dom_at, comma, ax_at))
}

/// Where the value of a key starts, `at` being just past the key's closing quote: after the
/// `:` and any whitespace. `None` when no `:` follows (the string is not a key).
fn value_after_key(bytes: &[u8], at: usize) -> Option<usize> {
    let colon = at + leading_whitespace(bytes.get(at..)?);
    (bytes.get(colon) == Some(&b':')).then(|| colon + 1 + leading_whitespace(&bytes[colon + 1..]))
}

fn leading_whitespace(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_json_whitespace(b)).count()
}

fn trailing_whitespace(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rev()
        .take_while(|&&b| is_json_whitespace(b))
        .count()
}

/// Whether the start of a JSON text leaves the reader directly inside the outermost object or
/// array and outside any string: the next token is then one of its keys or values.
fn at_top_level(prefix: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in prefix {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    !in_string && depth == 1
}
