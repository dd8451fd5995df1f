//! Oracles for the fuzz targets (`fuzz/`), and the replay of their corpus as plain tests.
//!
//! Each function takes arbitrary bytes, runs one stage of the engine the way it runs on what a
//! browser, a page or a caller sends it, and panics only when a promise of that stage is
//! broken: a panic inside the stage itself (an index out of range, an overflow in a debug
//! build, an allocation it cannot make), or a result its documentation rules out (a fast reader
//! giving something other than serde_json's value, a frame cut in the wrong place). Errors are
//! not findings: they are what bad input should get.
//!
//! The targets are one call each into this module, so a crash a fuzzer finds replays in
//! `cargo test` on the stable toolchain: the tests below run every file of `fuzz/corpus/` (and
//! of `fuzz/regressions/`, where each input that once failed is kept) through its oracle.

use crate::analysis::Expand;
use crate::capture::ax::split;
use crate::capture::{AxNodes, Capture, DomSnapshot, FullAxTree};
use crate::command::Command;
use crate::identity::UidTable;
use crate::line_reader::{Line, LineReader};
use crate::render::{Format, Mode};
use crate::snapshot::{process, SnapshotOptions};
use crate::transport::envelope::{parse_frame, Envelope, Incoming, RawJson};
use crate::transport::pipe::FrameBuffer;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Bytes;

/// The most JSON a capture read here may hold: large enough for the seed captures and what
/// mutations make of them, small enough that an input inflating past it is refused in
/// microseconds rather than after filling the fuzzer's memory.
const CAPTURE_LIMIT: usize = 4 << 20;

/// The pipe's frame splitter, then the envelope of every frame it hands over.
///
/// The first byte sets how many bytes each read brings (1 to 255; 0: as many as there is
/// room for), the rest is the stream. The frames must be exactly the stream's NUL-separated
/// pieces but the last, which is held as a partial frame when it is not empty.
pub fn pipe_stream(data: &[u8]) {
    let Some((&step, stream)) = data.split_first() else {
        return;
    };
    let mut buffer = FrameBuffer::new();
    let mut frames = Vec::new();
    let mut fed = 0;
    while fed < stream.len() {
        let spare = buffer.spare();
        let room = spare.capacity() - spare.len();
        let n = match step {
            0 => room,
            step => room.min(usize::from(step)),
        }
        .min(stream.len() - fed);
        spare.extend_from_slice(&stream[fed..fed + n]);
        fed += n;
        while let Some(frame) = buffer.next_frame() {
            frames.push(frame);
        }
    }
    let mut pieces: Vec<&[u8]> = stream.split(|&b| b == 0).collect();
    let partial = pieces.pop().unwrap_or_default();
    assert_eq!(frames.len(), pieces.len(), "frames read");
    for (frame, piece) in frames.iter().zip(&pieces) {
        assert_eq!(&frame[..], *piece, "a frame's bytes");
    }
    assert_eq!(
        buffer.holds_partial_frame(),
        !partial.is_empty(),
        "the partial frame"
    );
    for frame in &frames {
        envelope(frame);
    }
}

/// One frame's envelope, read the way the transport reads it (a reply in the shape Chromium
/// writes is taken by its ends, without reading the result), against serde_json reading the
/// whole frame: where serde_json reads the frame, both say the same — a reply to the same id
/// with the same result or error, or the same event.
pub fn envelope(frame: &[u8]) {
    let bytes = Bytes::copy_from_slice(frame);
    let ours = parse_frame(&bytes);
    let Ok(theirs) = serde_json::from_slice::<Envelope<'_>>(frame) else {
        // Not an envelope serde_json reads: whatever the engine made of it, the result of a
        // reply taken by its ends is still read (or refused) without a panic.
        if let Ok(Incoming::Reply {
            outcome: Ok(raw), ..
        }) = ours
        {
            let _ = raw.to_value();
        }
        return;
    };
    match ours {
        Err(_) => assert!(
            theirs.id.is_none() && theirs.method.is_none(),
            "a frame serde_json reads as a reply or an event was refused"
        ),
        Ok(Incoming::Reply { id, outcome }) => {
            assert_eq!(Some(id), theirs.id, "the reply's id");
            match (outcome, theirs.error) {
                (Ok(raw), None) => {
                    let expected = match theirs.result {
                        Some(result) => serde_json::from_str::<Value>(result.get()).ok(),
                        None => Some(Value::Object(Default::default())),
                    };
                    assert_eq!(raw.to_value().ok(), expected, "the reply's result");
                }
                (Err(ours), Some(theirs)) => {
                    assert_eq!((ours.code, ours.message), (theirs.code, theirs.message))
                }
                // Both a result and an error (no browser sends that): either reading stands.
                (Ok(_), Some(_)) if theirs.result.is_some() => {}
                (outcome, error) => panic!("the reply read as {outcome:?}; serde_json: {error:?}"),
            }
        }
        Ok(Incoming::Event {
            method,
            session_id,
            params,
        }) => {
            assert!(theirs.id.is_none(), "a reply read as an event");
            assert_eq!(Some(&method), theirs.method.as_ref(), "the event's method");
            assert_eq!(session_id, theirs.session_id, "the event's session");
            let expected = match theirs.params {
                Some(params) => serde_json::from_str::<Value>(params.get()).ok(),
                None => Some(Value::Object(Default::default())),
            };
            assert_eq!(params.to_value().ok(), expected, "the event's params");
        }
    }
}

/// The DOM snapshot's reader and the accessibility nodes' readers against serde_json: for any
/// bytes, each gives exactly serde_json's value, or says it cannot (and serde_json decides).
pub fn json_readers(data: &[u8]) {
    let text = std::str::from_utf8(data).ok();

    // The DOM snapshot, as read from a capture file (`from_json`) and from a reply.
    let theirs = text.map(serde_json::from_str::<DomSnapshot>);
    if let Some(ours) = DomSnapshot::read_fast(data) {
        match &theirs {
            Some(Ok(theirs)) => assert_eq!(&ours, theirs, "the DOM snapshot reader"),
            _ => panic!("the DOM snapshot reader read what serde_json refuses"),
        }
    }
    if let (Some(text), Some(theirs)) = (text, &theirs) {
        same_outcome(
            &DomSnapshot::from_json(text),
            theirs,
            "DomSnapshot::from_json",
        );
    }
    let raw = RawJson::new(Bytes::copy_from_slice(data), 0..data.len());
    let reference = raw.parse::<DomSnapshot>("the reply");
    match (DomSnapshot::from_reply(&raw), reference) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "DomSnapshot::from_reply"),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("DomSnapshot::from_reply: {ours:?}; serde_json: {theirs:?}"),
    }

    // The accessibility nodes: a list (a capture file's `nodes`) and a whole reply, on one
    // thread and on two.
    let Some(text) = text else {
        return;
    };
    let theirs = serde_json::from_str::<AxNodes>(text);
    if let Some(ours) = AxNodes::read_fast(text) {
        match &theirs {
            Ok(theirs) => assert!(ours == *theirs, "the AX node reader: {ours:?} {theirs:?}"),
            Err(e) => panic!("the AX node reader read what serde_json refuses ({e})"),
        }
    }
    same_outcome(&AxNodes::from_json(text), &theirs, "AxNodes::from_json");
    let theirs = serde_json::from_str::<FullAxTree>(text).map(|tree| tree.nodes);
    for parallel in [false, true] {
        if let Some(ours) = split::read_reply_nodes(text, parallel) {
            match &theirs {
                Ok(theirs) => assert!(ours == *theirs, "the AX reply reader ({parallel})"),
                Err(e) => {
                    panic!("the AX reply reader ({parallel}) read what serde_json refuses ({e})")
                }
            }
        }
    }
}

fn same_outcome<T: PartialEq + std::fmt::Debug, E: std::fmt::Display>(
    ours: &Result<T, serde_json::Error>,
    theirs: &Result<T, E>,
    what: &str,
) {
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert!(ours == theirs, "{what}: {ours:?} != {theirs:?}"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("{what} read what serde_json refuses ({e})"),
        (Err(e), Ok(_)) => panic!("{what} refused what serde_json reads ({e})"),
    }
}

/// The capture file loader on any bytes, as given and gzip'd: a capture or an error, within a
/// bounded memory (a gzip bomb is refused at the limit), and a capture read in pieces exactly
/// as read whole. A capture that loads is then modelled, analysed and rendered.
pub fn capture_file(data: &[u8]) {
    let gzipped;
    let inputs: [&[u8]; 2] = if data.starts_with(&[0x1f, 0x8b]) {
        [data, &[]]
    } else {
        gzipped = gzip(data);
        [data, &gzipped]
    };
    for bytes in inputs.into_iter().filter(|b| !b.is_empty()) {
        if let Ok(capture) = Capture::from_bytes_within(bytes, CAPTURE_LIMIT) {
            render_every_way(capture);
        }
    }
    if data.len() <= CAPTURE_LIMIT {
        let pieces = Capture::from_json_with(data, 0, true);
        let whole = Capture::from_json_with(data, usize::MAX, false);
        match (pieces, whole) {
            (Ok(pieces), Ok(whole)) => assert_eq!(
                serde_json::to_value(&pieces).ok(),
                serde_json::to_value(&whole).ok(),
                "a capture read in pieces"
            ),
            (Err(_), Err(_)) => {}
            (pieces, whole) => panic!(
                "a capture read in pieces: {:?}; whole: {:?}",
                pieces.err(),
                whole.err()
            ),
        }
    }
}

/// A capture that is valid JSON of the right shape but says anything: `seed` (a real capture's
/// JSON) changed as `data` says, then loaded, modelled, analysed and rendered every way. Errors
/// are fine; a panic, or memory out of proportion to the file, is not.
///
/// Each change takes four bytes: what to do, where (any number, string or list of the
/// capture), and with what — indices pointing at the node itself, its parent, past the end,
/// negative or huge; coordinates huge, negative or tiny; strings long, empty or of
/// right-to-left, combining and control characters; lists cut short or grown by copies.
pub fn adversarial_capture(seed: &Value, data: &[u8]) {
    let mut capture = seed.clone();
    let mut sites = Vec::new();
    collect_sites(&capture, &mut String::new(), &mut sites);
    if sites.is_empty() {
        return;
    }
    for change in data.chunks_exact(4) {
        let [op, at_high, at_low, pick] = [change[0], change[1], change[2], change[3]];
        let at = (usize::from(at_high) << 8 | usize::from(at_low)) % sites.len();
        let (pointer, kind) = &sites[at];
        let Some(target) = capture.pointer_mut(pointer) else {
            continue;
        };
        match (kind, op % 4) {
            (Site::Number, 0..=2) => *target = adversarial_number(pick, target),
            (Site::Number, _) => *target = Value::String(adversarial_string(pick)),
            (Site::String, 0..=2) => *target = Value::String(adversarial_string(pick)),
            (Site::String, _) => *target = adversarial_number(pick, target),
            (Site::List, 0 | 1) => {
                if let Value::Array(items) = target {
                    let keep = usize::from(pick) % (items.len() + 1);
                    items.truncate(keep);
                }
            }
            (Site::List, 2) => {
                if let Value::Array(items) = target {
                    if let Some(item) = items.get(usize::from(pick) % items.len().max(1)).cloned() {
                        let copies = 1 + usize::from(pick >> 4);
                        items.extend(std::iter::repeat_n(item, copies));
                    }
                }
            }
            (Site::List, _) => {
                if let Value::Array(items) = target {
                    if items.len() > 1 {
                        let other = usize::from(pick) % items.len();
                        items.swap(0, other);
                    }
                }
            }
        }
    }
    let Ok(json) = serde_json::to_vec(&capture) else {
        return;
    };
    if let Ok(capture) = Capture::from_bytes_within(&json, CAPTURE_LIMIT) {
        render_every_way(capture);
    }
}

#[derive(Clone, Copy)]
enum Site {
    Number,
    String,
    List,
}

/// The JSON pointers of every number, string and list in `value`.
fn collect_sites(value: &Value, pointer: &mut String, sites: &mut Vec<(String, Site)>) {
    let len = pointer.len();
    match value {
        Value::Number(_) => sites.push((pointer.clone(), Site::Number)),
        Value::String(_) => sites.push((pointer.clone(), Site::String)),
        Value::Array(items) => {
            sites.push((pointer.clone(), Site::List));
            for (k, item) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&k.to_string());
                collect_sites(item, pointer, sites);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                collect_sites(item, pointer, sites);
                pointer.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

fn adversarial_number(pick: u8, was: &Value) -> Value {
    let was = was.as_f64().unwrap_or(0.0);
    match pick % 16 {
        0 => Value::from(-1),
        1 => Value::from(0),
        2 => Value::from(i64::from(i32::MAX)),
        3 => Value::from(i64::MIN),
        4 => Value::from(u64::MAX),
        5 => Value::from(1_i64 << 53),
        6 => Value::from(1e308),
        7 => Value::from(-1e308),
        8 => Value::from(5e-324),
        9 => Value::from(-0.5),
        10 => Value::from(was + 1.0),
        11 => Value::from(was - 1.0),
        12 => Value::from(was * 1e6),
        13 => Value::from(-was),
        14 => Value::from(i64::from(pick >> 4)),
        _ => Value::from(1_000_000_000),
    }
}

fn adversarial_string(pick: u8) -> String {
    match pick % 8 {
        0 => String::new(),
        1 => "x".repeat(1 << 16),
        2 => "\u{202e}\u{0301}\u{0301}\u{200d}right-to-left".to_owned(),
        3 => "\u{0}\u{1}\u{7}\u{1b}[31m\r\n\t".to_owned(),
        4 => "🔥".repeat(1000),
        5 => "none".to_owned(),
        6 => "-1".to_owned(),
        _ => "\u{fffd}\u{feff}".repeat(usize::from(pick)),
    }
}

/// Renders a capture every way a caller can ask: both modes, text and JSON, the viewport and
/// the whole page, every node and the interesting ones, whole and cut to a few characters; and
/// extracts its content, main and whole, with its accessibility tree and without (as a live
/// extraction reads a page).
fn render_every_way(capture: Capture) {
    let target = capture.target_id.clone().unwrap_or_default();
    let without_tree = capture.clone().without_accessibility();
    for (capture, all) in [
        (capture.clone(), false),
        (without_tree.clone(), false),
        (without_tree, true),
    ] {
        let mut table = UidTable::new();
        let options = &crate::extract::SNAPSHOT_OPTIONS;
        if let Ok(snapshot) =
            crate::snapshot::analyze_unchecked(capture.into(), &mut table, &target, options)
        {
            let _ = crate::extract::extract(
                &snapshot.model,
                &snapshot.analysis,
                &snapshot.uids,
                &crate::extract::ExtractOptions { all, links: true },
            );
        }
    }
    for (mode, format, expand, verbose, max_chars) in [
        (Mode::A11y, Format::Text, Expand::Viewport, false, None),
        (Mode::A11y, Format::Json, Expand::All, true, None),
        (Mode::A11y, Format::Text, Expand::All, false, Some(200)),
        (Mode::Dom, Format::Text, Expand::Pixels(500.0), false, None),
        (Mode::Dom, Format::Json, Expand::All, false, None),
    ] {
        let options = SnapshotOptions {
            mode,
            format,
            expand,
            verbose,
            uid: None,
            max_chars,
        };
        let mut table = UidTable::new();
        let _ = process(capture.clone(), &mut table, &target, &options);
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    match encoder.write_all(data) {
        Ok(()) => encoder.finish().unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// The `run` protocol's input: the line reader on any bytes (with a small limit, so that long
/// lines are met), then each line read as a command. Every line is handed back as its text,
/// or refused as not UTF-8 or too long, exactly where the input says.
pub fn command_lines(data: &[u8]) {
    const LIMIT: usize = 64;
    let mut reader = LineReader::with_limit(data, LIMIT);
    let mut expected = data.split(|&b| b == b'\n').collect::<Vec<_>>();
    if expected.last().is_some_and(|last| last.is_empty()) {
        expected.pop();
    }
    let mut read = 0;
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => panic!("reading from memory failed: {e}"),
        };
        let Some(piece) = expected.get(read) else {
            panic!("a line more than the input holds: {line:?}");
        };
        read += 1;
        let piece = piece.strip_suffix(b"\r").unwrap_or(piece);
        match line {
            Line::Text(text) => {
                assert_eq!(text.as_bytes(), piece, "a line's text");
                assert!(
                    piece.len() <= LIMIT,
                    "a line past the limit was handed back"
                );
                let _ = Command::from_line(&text);
            }
            Line::NotUtf8 { valid_up_to } => {
                let e = std::str::from_utf8(piece).err();
                assert_eq!(
                    e.map(|e| e.valid_up_to()),
                    Some(valid_up_to),
                    "a line not UTF-8"
                );
            }
            Line::TooLong { len, limit } => {
                assert_eq!(limit, LIMIT);
                assert!(
                    len > LIMIT as u64,
                    "a line within the limit refused as too long"
                );
            }
        }
    }
    assert_eq!(read, expected.len(), "lines read");
}

/// The seed of [`adversarial_capture`]: a real capture (a sign-in form) as JSON.
pub fn seed_capture() -> &'static Value {
    static SEED: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SEED.get_or_init(|| {
        let gz: &[u8] = include_bytes!("../../fixtures/captures/sign-in.json.gz");
        let mut json = Vec::new();
        let read = std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz), &mut json);
        match read.ok().and_then(|_| serde_json::from_slice(&json).ok()) {
            Some(value) => value,
            None => panic!("the seed capture does not read"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// Every input kept for `target`: its corpus and its regressions.
    fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
        let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let mut inputs = Vec::new();
        for folder in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(folder).join(target)) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                match std::fs::read(&path) {
                    Ok(bytes) => inputs.push((path, bytes)),
                    Err(e) => panic!("cannot read {}: {e}", path.display()),
                }
            }
        }
        inputs
    }

    fn replay(target: &str, oracle: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
        let inputs = inputs(target);
        assert!(!inputs.is_empty(), "no corpus for the fuzz target {target}");
        for (path, bytes) in &inputs {
            if std::panic::catch_unwind(|| oracle(bytes)).is_err() {
                panic!("{} fails {target}", path.display());
            }
        }
    }

    #[test]
    fn the_pipe_stream_corpus_replays() {
        replay("pipe_stream", pipe_stream);
    }

    #[test]
    fn the_json_readers_corpus_replays() {
        replay("json_readers", json_readers);
    }

    #[test]
    fn the_capture_file_corpus_replays() {
        replay("capture_file", capture_file);
    }

    #[test]
    fn the_adversarial_capture_corpus_replays() {
        replay("adversarial_capture", |data| {
            adversarial_capture(seed_capture(), data)
        });
    }

    #[test]
    fn the_command_lines_corpus_replays() {
        replay("command_lines", command_lines);
    }

    #[test]
    fn the_seed_capture_renders() {
        let json = serde_json::to_vec(seed_capture()).unwrap_or_default();
        let capture = Capture::from_bytes(&json);
        assert!(capture.is_ok(), "{:?}", capture.err());
    }
}
