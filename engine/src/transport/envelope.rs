//! The CDP message envelope: what the reader task looks at, and how requests are written.
//!
//! Why only the envelope: replies such as `Accessibility.getFullAXTree` run to tens of megabytes
//! and most events are of no interest to anyone. The reader task therefore reads just `id`,
//! `method`, `sessionId` and `error`, remembers where `result` / `params` sit inside the frame,
//! and hands the frame (reference-counted, never copied) to whoever asked. The typed parse happens
//! later, in the task that wants the value.
//!
//! Even reading only the envelope means stepping over the whole payload, because a JSON reader
//! finds the end of `result` only by reading it: on a snapshot of a long page that was a fifth
//! of the engine's own CPU time, all of it spent again by the typed parse; on a small page, whose
//! replies are tens of kilobytes, about a seventh. A reply in the shape Chromium writes
//! (`{"id":N,"result":{…}}`, or with `,"sessionId":"…"` last) is therefore split from its two
//! ends instead (`reply_by_its_ends`); the typed parse is what reads the payload, once. Small
//! replies too: a snapshot of a small page gets four of a few hundred bytes, and reading their
//! envelopes was a twentieth of the engine's CPU time for it. Should a reply have some other
//! shape that the ends do not show (an extra key after `result`), the typed parse fails on the
//! span, and the frame's envelope is then read in full to find the real one.

use std::borrow::Cow;
use std::ops::Range;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio_tungstenite::tungstenite::Bytes;

use crate::error::{Error, Result};

/// A JSON value still in its wire form: a span of a received frame.
///
/// Cloning is cheap (the frame is reference-counted). Parse it with [`RawJson::parse`] or read
/// the text with [`RawJson::as_str`].
#[derive(Clone)]
pub struct RawJson {
    frame: Bytes,
    span: Range<usize>,
    /// Whether the span was found by reading the envelope (else from the frame's ends, see the
    /// module docs).
    checked: bool,
}

impl RawJson {
    pub(crate) fn new(frame: Bytes, span: Range<usize>) -> Self {
        RawJson {
            frame,
            span,
            checked: true,
        }
    }

    /// An empty object (`{}`), for replies and events that carry no payload.
    pub(crate) fn empty_object() -> Self {
        RawJson {
            frame: Bytes::from_static(b"{}"),
            span: 0..2,
            checked: true,
        }
    }

    /// The JSON bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.frame[self.span.clone()]
    }

    /// The JSON text; empty if the bytes are not UTF-8 (Chromium writes UTF-8 only; a reply
    /// split from its ends is not checked before, and [`RawJson::parse`] reports where it is
    /// not).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// Size of the JSON text in bytes.
    pub fn len(&self) -> usize {
        self.span.len()
    }

    /// Whether the JSON text is empty (never for a value that came off the wire).
    pub fn is_empty(&self) -> bool {
        self.span.is_empty()
    }

    /// Parses the value into `T`; `what` names it in the error (e.g. the method).
    pub fn parse<T: DeserializeOwned>(&self, what: &str) -> Result<T> {
        match parse_tolerant(self.as_bytes(), what) {
            Err(e) if !self.checked => {
                // The span came from the frame's ends: read the envelope to be sure of it.
                match enveloped_result(&self.frame) {
                    Some(span) if span != self.span => parse_tolerant(&self.frame[span], what),
                    _ => Err(e),
                }
            }
            parsed => parsed,
        }
    }

    /// The value as an owned [`RawValue`] (copies the span).
    pub fn to_raw_value(&self) -> Result<Box<RawValue>> {
        RawValue::from_string(self.as_str().to_owned())
            .map_err(|e| Error::protocol(format!("the browser sent invalid JSON: {e}")))
    }

    /// The value as a [`serde_json::Value`].
    pub fn to_value(&self) -> Result<serde_json::Value> {
        self.parse("the message")
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 200;
        let text = self.as_str();
        if text.len() <= SHOWN {
            write!(f, "RawJson({text})")
        } else {
            let mut cut = SHOWN;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            write!(f, "RawJson({}… {} bytes)", &text[..cut], text.len())
        }
    }
}

/// Parses `bytes` as `T`. A command without return values replies `{}`; bindings may model that
/// as `()`, which serde reads from `null`, so `{}` is retried as `null` before giving up.
pub(crate) fn parse_tolerant<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T> {
    // UTF-8 is checked once over the whole value rather than string by string (a large reply
    // holds hundreds of thousands of strings); text that is not UTF-8 takes the slice path,
    // which reports where.
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str::<T>(text),
        Err(_) => serde_json::from_slice::<T>(bytes),
    };
    match parsed {
        Ok(value) => Ok(value),
        Err(first) => {
            // Chromium sends unpaired UTF-16 surrogates in page text as `\ud800` escapes, which
            // are not valid JSON strings for a strict reader; one hostile text node must not make
            // a whole snapshot unreadable, so they become U+FFFD and the parse is retried.
            if let Some(repaired) = replace_lone_surrogates(bytes) {
                if let Ok(value) = serde_json::from_slice::<T>(&repaired) {
                    return Ok(value);
                }
            }
            if bytes
                .iter()
                .filter(|b| !b.is_ascii_whitespace())
                .eq(b"{}".iter())
            {
                if let Ok(value) = serde_json::from_slice::<T>(b"null") {
                    return Ok(value);
                }
            }
            Err(Error::protocol(format!(
                "could not read {what} from the browser: {first}; the browser may speak a \
                 different protocol version (run `pagesight doctor`)"
            )))
        }
    }
}

/// JSON text with every unpaired surrogate escape (`\\uD800`–`\\uDFFF` not forming a pair)
/// replaced by `\\uFFFD`; `None` when there is none.
pub(crate) fn replace_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    if !has_surrogate_escape(bytes) {
        return None;
    }
    let mut out = bytes.to_vec();
    repair_lone_surrogates(&mut out).then_some(out)
}

/// Whether a `\uD...` escape (a possible surrogate) occurs: only the backslashes are looked at,
/// found with a vectorised search, because this runs over every byte of every capture.
pub(crate) fn has_surrogate_escape(json: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', json).any(|i| {
        matches!(json.get(i + 1), Some(b'u' | b'U')) && matches!(json.get(i + 2), Some(b'd' | b'D'))
    })
}

/// Rewrites, in place, the `\uXXXX` escapes of unpaired surrogates as `\ufffd` (same length);
/// whether there was any.
pub(crate) fn repair_lone_surrogates(json: &mut [u8]) -> bool {
    fn hex4(b: &[u8]) -> Option<u32> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    }
    let mut repaired = false;
    let mut i = 0;
    let n = json.len();
    while i < n {
        if json[i] != b'\\' {
            i += 1;
            continue;
        }
        if i + 1 >= n {
            break;
        }
        if json[i + 1] != b'u' {
            // Any other escape: skip the escaped character (this also handles `\\`).
            i += 2;
            continue;
        }
        let Some(cp) = hex4(&json[i + 2..]) else {
            i += 2;
            continue;
        };
        let lone = match cp {
            0xD800..=0xDBFF => {
                let next_low = i + 12 <= n
                    && json[i + 6] == b'\\'
                    && json[i + 7] == b'u'
                    && hex4(&json[i + 8..]).is_some_and(|c| (0xDC00..0xE000).contains(&c));
                if next_low {
                    i += 12;
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            json[i + 2..i + 6].copy_from_slice(b"fffd");
            repaired = true;
        }
        i += 6;
    }
    repaired
}

/// The error object of a failed command, as Chromium sends it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CdpError {
    #[serde(default)]
    pub code: i64,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub data: Option<serde_json::Value>,
}

impl CdpError {
    /// The engine error for a failed `method`: `PROTOCOL_ERROR` with the CDP code and message.
    pub fn into_error(self, method: &str) -> Error {
        let data = match &self.data {
            Some(serde_json::Value::String(s)) => format!(" ({s})"),
            Some(other) => format!(" ({other})"),
            None => String::new(),
        };
        Error::protocol(format!(
            "{method} failed: {}{data} [CDP error {}]",
            self.message, self.code
        ))
    }
}

/// What the reader task learns from a frame.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// The reply to command `id`.
    Reply {
        id: u64,
        outcome: std::result::Result<RawJson, CdpError>,
    },
    /// An event.
    Event {
        method: Cow<'a, str>,
        session_id: Option<Cow<'a, str>>,
        params: RawJson,
    },
}

#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(default)]
    pub(crate) id: Option<u64>,
    #[serde(default, borrow)]
    pub(crate) method: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "sessionId")]
    pub(crate) session_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) params: Option<&'a RawValue>,
    #[serde(default)]
    pub(crate) error: Option<CdpError>,
}

/// Why a frame was skipped.
#[derive(Debug)]
pub(crate) struct Malformed(pub String);

fn span_of(frame: &[u8], raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - frame.as_ptr() as usize;
    start..start + raw.get().len()
}

/// The id and the `result` span of a successful reply in the shape Chromium writes:
/// `{"id":N,"result":{…}}` or `{"id":N,"result":{…},"sessionId":"…"}`. `None` for any other
/// shape (those are read in full).
fn reply_by_its_ends(frame: &[u8]) -> Option<(u64, Range<usize>)> {
    let rest = frame.strip_prefix(b"{\"id\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let id: u64 = std::str::from_utf8(rest.get(..digits)?)
        .ok()?
        .parse()
        .ok()?;
    let payload = rest.get(digits..)?.strip_prefix(b",\"result\":")?;
    let start = frame.len() - payload.len();
    let end = if frame.ends_with(b"\"}") {
        const KEY: &[u8] = b",\"sessionId\":\"";
        let at = memchr::memmem::rfind(frame, KEY)?;
        let session = frame.get(at + KEY.len()..frame.len() - 2)?;
        if session.iter().any(|&b| b == b'"' || b == b'\\') {
            return None;
        }
        at
    } else {
        frame.len().checked_sub(1)?
    };
    let result = frame.get(start..end)?;
    (result.len() >= 2 && result[0] == b'{' && result[result.len() - 1] == b'}')
        .then_some((id, start..end))
}

/// The span of `result`, read from the envelope.
fn enveloped_result(frame: &[u8]) -> Option<Range<usize>> {
    let envelope: Envelope<'_> = serde_json::from_slice(frame).ok()?;
    envelope.result.map(|raw| span_of(frame, raw))
}

/// Reads the envelope of one frame. The payload stays in `frame`.
pub(crate) fn parse_frame(frame: &Bytes) -> std::result::Result<Incoming<'_>, Malformed> {
    if let Some((id, span)) = reply_by_its_ends(frame) {
        let raw = RawJson {
            frame: frame.clone(),
            span,
            checked: false,
        };
        return Ok(Incoming::Reply {
            id,
            outcome: Ok(raw),
        });
    }
    let envelope: Envelope<'_> =
        serde_json::from_slice(frame).map_err(|e| Malformed(format!("invalid JSON: {e}")))?;
    if let Some(id) = envelope.id {
        let outcome = match envelope.error {
            Some(error) => Err(error),
            None => Ok(match envelope.result {
                Some(raw) => RawJson::new(frame.clone(), span_of(frame, raw)),
                None => RawJson::empty_object(),
            }),
        };
        return Ok(Incoming::Reply { id, outcome });
    }
    match envelope.method {
        Some(method) => Ok(Incoming::Event {
            method,
            session_id: envelope.session_id,
            params: match envelope.params {
                Some(raw) => RawJson::new(frame.clone(), span_of(frame, raw)),
                None => RawJson::empty_object(),
            },
        }),
        None => Err(Malformed("neither an `id` nor a `method`".to_owned())),
    }
}

/// Writes a request: `{"id":…,"method":…,"sessionId":…,"params":…}`. `write_params` writes the
/// params value; a params value of `null` (a unit struct) is left out.
pub(crate) fn encode_request(
    id: u64,
    method: &str,
    session_id: Option<&str>,
    write_params: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
) -> Result<Vec<u8>> {
    let invalid = |e: serde_json::Error| {
        Error::invalid_argument(format!("could not encode the params of {method}: {e}"))
    };
    let mut buf = Vec::with_capacity(96);
    buf.extend_from_slice(b"{\"id\":");
    buf.extend_from_slice(id.to_string().as_bytes());
    buf.extend_from_slice(b",\"method\":");
    serde_json::to_writer(&mut buf, method).map_err(invalid)?;
    if let Some(session_id) = session_id {
        buf.extend_from_slice(b",\"sessionId\":");
        serde_json::to_writer(&mut buf, session_id).map_err(invalid)?;
    }
    let before_params = buf.len();
    buf.extend_from_slice(b",\"params\":");
    let value_start = buf.len();
    write_params(&mut buf).map_err(invalid)?;
    if &buf[value_start..] == b"null" {
        buf.truncate(before_params);
    }
    buf.push(b'}');
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(s: &str) -> Bytes {
        Bytes::from(s.as_bytes().to_vec())
    }

    #[test]
    fn reply_keeps_result_raw() {
        let f = frame(r#"{"id":7,"result":{"a":[1,2,{"b":"c"}]},"sessionId":"S"}"#);
        match parse_frame(&f) {
            Ok(Incoming::Reply {
                id,
                outcome: Ok(raw),
            }) => {
                assert_eq!(id, 7);
                assert_eq!(raw.as_str(), r#"{"a":[1,2,{"b":"c"}]}"#);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// The sizes of string the test replies are given: a few bytes to a large reply's.
    const FILLERS: [usize; 4] = [0, 3, 1024, 100_000];

    /// A reply with a string of `filler` bytes in its `result`.
    fn reply_around(filler: usize, head: &str, result_tail: &str, tail: &str) -> (Bytes, String) {
        let filler = "x".repeat(filler);
        let result = format!(r#"{{"s":"{filler}"{result_tail}}}"#);
        (frame(&format!("{head}{result}{tail}")), result)
    }

    fn reply_of(f: &Bytes) -> (u64, RawJson) {
        match parse_frame(f) {
            Ok(Incoming::Reply {
                id,
                outcome: Ok(raw),
            }) => (id, raw),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn replies_are_split_from_their_ends() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct R {
            s: String,
        }
        for (filler, tail) in FILLERS
            .into_iter()
            .flat_map(|n| [(n, "}"), (n, r#","sessionId":"9F0A"}"#)])
        {
            let (f, result) = reply_around(filler, r#"{"id":42,"result":"#, "", tail);
            let (id, raw) = reply_of(&f);
            assert_eq!(id, 42);
            assert!(!raw.checked, "the fast path was not taken for {tail}");
            assert_eq!(raw.as_str(), result);
            let r: R = raw.parse("X.y").unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.s.len(), filler);
        }
    }

    #[test]
    fn replies_of_another_shape_are_read_in_full() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct R {
            s: String,
        }
        // Keys in another order, or a key the ends do not show: still the right payload.
        let shapes = [
            (r#"{"sessionId":"S","id":5,"result":"#, ""),
            (r#"{"id":5,"result":"#, r#","extra":{"k":"}"}"#),
            (r#"{"id":5,"result":"#, r#","sessionId":"a\"b""#),
        ];
        for (filler, (head, tail)) in FILLERS
            .into_iter()
            .flat_map(|n| shapes.map(|shape| (n, shape)))
        {
            let tail = if tail.is_empty() {
                "}".to_string()
            } else {
                format!("{tail}}}")
            };
            let (f, result) = reply_around(filler, head, "", &tail);
            let (id, raw) = reply_of(&f);
            assert_eq!(id, 5, "{head}…{tail}");
            let r: R = raw
                .parse("X.y")
                .unwrap_or_else(|e| panic!("{head}…{tail}: {e}"));
            assert_eq!(r.s.len() + 8, result.len(), "{head}…{tail}");
        }
        // A broken payload is an error for the caller (not a skipped frame and a wait).
        for filler in FILLERS {
            let (f, _) = reply_around(filler, r#"{"id":6,"result":"#, r#","n":[1,"#, "}");
            let (_, raw) = reply_of(&f);
            assert!(raw.parse::<R>("X.y").is_err());
        }
    }

    #[test]
    fn error_reply() {
        let f = frame(r#"{"id":1,"error":{"code":-32601,"message":"'Foo.bar' wasn't found"}}"#);
        match parse_frame(&f) {
            Ok(Incoming::Reply {
                outcome: Err(e), ..
            }) => {
                let err = e.into_error("Foo.bar");
                assert_eq!(err.code(), crate::ErrorCode::ProtocolError);
                assert!(err.message().contains("wasn't found"), "{err}");
                assert!(err.message().contains("-32601"), "{err}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn event_with_session_and_escaped_method() {
        let f = frame(
            r#"{"method":"Page.load\u0045ventFired","params":{"timestamp":1.5},"sessionId":"AB"}"#,
        );
        match parse_frame(&f) {
            Ok(Incoming::Event {
                method,
                session_id,
                params,
            }) => {
                assert_eq!(method, "Page.loadEventFired");
                assert_eq!(session_id.as_deref(), Some("AB"));
                assert_eq!(params.as_str(), r#"{"timestamp":1.5}"#);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn malformed_frames() {
        for bad in [
            "",
            "not json",
            "{\"id\":",
            "{}",
            "[1,2]",
            "{\"params\":{}}",
            "{\"id\":\"x\"}",
        ] {
            assert!(
                parse_frame(&frame(bad)).is_err(),
                "{bad:?} should be malformed"
            );
        }
        // Invalid UTF-8 inside a payload string.
        let mut bytes = br#"{"method":"X.y","params":{"s":""#.to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe]);
        bytes.extend_from_slice(br#""}}"#);
        assert!(parse_frame(&Bytes::from(bytes)).is_err());
    }

    #[test]
    fn missing_payloads_are_empty_objects() {
        match parse_frame(&frame(r#"{"id":3}"#)) {
            Ok(Incoming::Reply {
                outcome: Ok(raw), ..
            }) => assert_eq!(raw.as_str(), "{}"),
            other => panic!("unexpected {other:?}"),
        }
        match parse_frame(&frame(r#"{"method":"A.b"}"#)) {
            Ok(Incoming::Event { params, .. }) => assert_eq!(params.as_str(), "{}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn encode_omits_null_params_and_escapes() {
        #[derive(serde::Serialize)]
        struct Unit;
        let bytes = encode_request(5, "Browser.getVersion", None, |b| {
            serde_json::to_writer(b, &Unit)
        })
        .unwrap_or_default();
        assert_eq!(bytes, br#"{"id":5,"method":"Browser.getVersion"}"#);
        let bytes = encode_request(6, "A.b", Some("S\"1"), |b| {
            serde_json::to_writer(b, &serde_json::json!({"x": 1}))
        })
        .unwrap_or_default();
        assert_eq!(
            std::str::from_utf8(&bytes).unwrap_or_default(),
            r#"{"id":6,"method":"A.b","sessionId":"S\"1","params":{"x":1}}"#
        );
    }

    #[test]
    fn unit_response_from_empty_object() {
        let unit: Result<()> = parse_tolerant(b"{}", "x");
        assert!(unit.is_ok());
        let bad: Result<u32> = parse_tolerant(b"{}", "x");
        assert!(bad.is_err());
    }
}

#[cfg(test)]
mod surrogate_tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let raw =
            br#"{"a":"x\ud800y","b":"\udc00","c":"\ud83d\ude00","d":"\\ud800","e":"\udc00\ud800"}"#;
        let fixed = replace_lone_surrogates(raw).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_slice(&fixed).unwrap_or_default();
        assert_eq!(v["a"], "x\u{FFFD}y");
        assert_eq!(v["b"], "\u{FFFD}");
        assert_eq!(v["c"], "\u{1F600}", "a valid pair is kept");
        assert_eq!(v["d"], "\\ud800", "an escaped backslash is not an escape");
        assert_eq!(
            v["e"], "\u{FFFD}\u{FFFD}",
            "a reversed pair is two lone halves"
        );
        assert!(replace_lone_surrogates(br#"{"a":"\ud83d\ude00 \\u"}"#).is_none());
    }

    #[test]
    fn typed_parse_survives_lone_surrogates() {
        let parsed: Result<String> = parse_tolerant(br#""before\udfffafter""#, "a test");
        assert_eq!(parsed.ok().as_deref(), Some("before\u{FFFD}after"));
    }
}
