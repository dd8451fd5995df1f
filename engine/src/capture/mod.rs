//! The capture file format: everything a snapshot needs, recorded from a live page, so the model,
//! the analysis and the renderer can run offline (tests, benchmarks, `snapshot --from-capture`).
//!
//! A capture is gzip'd JSON (plain JSON is read too) holding the raw CDP results, typed with the
//! generated bindings so a newer Chromium's extra fields or enum values never break reading:
//!
//! | key | what |
//! |---|---|
//! | `format` | [`FORMAT_VERSION`]; a file from a newer format is refused with a message saying so |
//! | `url`, `title` | the page |
//! | `targetId` | the page's CDP target, when known |
//! | `computedStyles` | the style names requested, in order: `layout.styles[i][k]` is the value of `computedStyles[k]` |
//! | `frameTree` | `Page.getFrameTree().frameTree` (loader ids, frame URLs) |
//! | `layoutMetrics` | the full `Page.getLayoutMetrics` result |
//! | `domSnapshot` | the full `DOMSnapshot.captureSnapshot` result, held as a lean [`DomSnapshot`] (`includePaintOrder`; `includeDOMRects` in a recorded capture, while a live snapshot has client and scroll rects only for the boxes geometry needs, see [`box_rects`]) |
//! | `axTrees` | `[{frameId, nodes}]`: `Accessibility.getFullAXTree` per frame, kept as flat [`AxNodes`] (the fields the model reads; older files with full nodes read the same) |
//! | `oopifs` | out-of-process iframes: one section per iframe target, same keys as above, plus where its owner `<iframe>` lives |
//! | `uncapturedFrames` | iframes whose content could not be captured, with the reason (shown as such, not as empty frames) |
//! | `axScope` | how much of the tree `axTrees` holds ([`AxScope`]): absent = every frame's full tree; `{"kind":"viewport","expand":px}` = only what a snapshot of that view can print, so a wider view of the file is refused; `{"kind":"subtree","backendNodeId":n}` = one element's subtree; `{"kind":"none"}` = no tree (an extraction's capture: no snapshot is rendered from it) |
//! | `consistent` | `false` when the page changed while it was captured: the page's accessibility tree holds only the nodes that agree with its DOM snapshot, or a frame's section may mix two states (absent = `true`) |
//!
//! Why these styles ([`COMPUTED_STYLES`]): each one feeds a rule of the analysis and nothing else is
//! asked for, because every requested style costs Chromium time on every layout box.

use crate::cdp::page::{FrameTree, GetLayoutMetricsReturns};
use crate::transport::envelope::{has_surrogate_escape, repair_lone_surrogates};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::sync::Arc;

pub(crate) mod ax;
pub mod ax_partial;
pub mod box_rects;
mod dom;
mod json_reader;
mod scope;
mod split_file;
pub use ax::{
    AxKeyRef, AxNodeKey, AxNodeRef, AxNodes, AxPropertyRef, AxScalar, AxValueRef, FullAxTree,
    GetFullAxTree, GetPartialAxTree,
};
pub use dom::{
    CaptureDomSnapshot, DocumentRecord, DomSnapshot, LayoutTreeRecord, NodeTreeRecord, Ragged,
    TextBoxRecord,
};
pub use scope::AxScope;

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The computed styles a live capture requests, in this order.
///
/// - `display`: `none`/`contents`, inline vs. block vs. atomic boxes (hit-test paint phases).
/// - `visibility`: hidden boxes are neither seen nor hit (their visible descendants are both).
/// - `opacity`: `0` hides from a person but still receives clicks.
/// - `overflow-x`, `overflow-y`: clipping ancestors and scroll containers.
/// - `cursor`: `pointer` marks clickable elements that have no other sign.
/// - `pointer-events`: `none` boxes are skipped by the hit test.
/// - `position`: containing-block chain for clipping, `clip` applicability, stacking.
/// - `z-index`: negative-z layers paint below their stacking context's content.
/// - `clip`: the legacy `clip: rect()` used to hide inputs visually.
/// - `content-visibility`: `hidden` subtrees are neither painted nor hit.
/// - `float`: floats paint (and hit) between block backgrounds and inline content.
/// - `background-color`: a decorated inline box is hit at its own rectangle.
/// - `transform`: rotated / 3-D boxes make hit-test answers near them unsure.
/// - `rotate`, `scale`, `translate`: the individual transform properties (how utility CSS
///   writes every transform), which the computed `transform` leaves out: a turned box is hit
///   only inside its turned rectangle, and any of them contains fixed descendants.
/// - `clip-path`: `inset()` clips like `clip` (the "visually hidden" idiom `inset(50%)`);
///   `circle()` and `ellipse()` cut the box to the ellipse; other shapes make hit-test answers
///   inside them unsure.
/// - `contain`: paint containment clips descendants like `overflow:clip`.
/// - `filter`: a filtered box, like a transformed one, contains (and clips) its fixed
///   descendants; `opacity(0)` hides it as `opacity: 0` does.
/// - `border-*-radius`: rounded corners take no clicks (a round button's bounding-box corners
///   belong to what is under it), and cut the content of a box that clips its overflow.
pub const COMPUTED_STYLES: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "overflow-x",
    "overflow-y",
    "cursor",
    "pointer-events",
    "position",
    "z-index",
    "clip",
    "content-visibility",
    "float",
    "background-color",
    "transform",
    "rotate",
    "scale",
    "translate",
    "clip-path",
    "contain",
    "filter",
    "border-radius",
];

/// The accessibility tree of one frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxTreeCapture {
    /// The frame the tree was asked for.
    pub frame_id: String,
    /// `Accessibility.getFullAXTree().nodes`, held flat (see [`AxNodes`]): files holding the
    /// protocol's full `AXNode`s read the same.
    pub nodes: AxNodes,
}

/// An out-of-process iframe: a separate renderer target with its own snapshot and AX tree.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OopifCapture {
    /// The iframe's CDP target id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// The frame shown in the iframe.
    pub frame_id: String,
    /// Where the owner `<iframe>` element lives: 0 = the page's own target, `k` = `oopifs[k-1]`.
    pub owner_target: u32,
    /// The owner `<iframe>`'s `backendNodeId` in that target (`DOM.getFrameOwner`).
    pub owner_backend_node_id: i64,
    /// The style names requested for this snapshot, in order.
    pub computed_styles: Vec<String>,
    /// `DOMSnapshot.captureSnapshot` of the iframe target.
    pub dom_snapshot: Arc<DomSnapshot>,
    /// Its accessibility trees.
    #[serde(default)]
    pub ax_trees: Vec<AxTreeCapture>,
    /// `Page.getFrameTree().frameTree` of the iframe's own session (its frames' loader ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_tree: Option<FrameTree>,
}

/// An iframe whose content is not in the capture, and why (so it is not shown as an empty frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UncapturedFrame {
    /// Where the owner `<iframe>` element lives: 0 = the page's own target, `k` = `oopifs[k-1]`.
    pub owner_target: u32,
    /// The owner `<iframe>`'s `backendNodeId` in that target.
    pub owner_backend_node_id: i64,
    /// A short, human-readable reason (e.g. "the frame did not answer in time").
    pub reason: String,
}

/// Everything one snapshot needs, as recorded from a live page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// [`FORMAT_VERSION`].
    pub format: u32,
    /// The page URL.
    pub url: String,
    /// The page title.
    #[serde(default)]
    pub title: String,
    /// The page's CDP target id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// The computed style names requested, in order.
    pub computed_styles: Vec<String>,
    /// `Page.getFrameTree().frameTree`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_tree: Option<FrameTree>,
    /// `Page.getLayoutMetrics()`.
    pub layout_metrics: GetLayoutMetricsReturns,
    /// `DOMSnapshot.captureSnapshot()` of the page's own target. Shared: a page keeps the
    /// snapshot of its last state, and the next capture of that same state holds it too rather
    /// than a copy (see `kept_model`).
    // Parsed apart from the other fields in a large file (see `split_file.rs`): a serde attribute
    // changing how it reads must be matched there.
    pub dom_snapshot: Arc<DomSnapshot>,
    /// `Accessibility.getFullAXTree()` per frame of the page's own target.
    // Parsed apart too, like `dom_snapshot`.
    #[serde(default)]
    pub ax_trees: Vec<AxTreeCapture>,
    /// Out-of-process iframes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub oopifs: Vec<OopifCapture>,
    /// Iframes whose content could not be captured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncaptured_frames: Vec<UncapturedFrame>,
    /// Whether every part was taken of one state of its frame (see the module docs).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub consistent: bool,
    /// How much of the accessibility tree `ax_trees` holds (absent: all of it).
    #[serde(default, skip_serializing_if = "AxScope::is_full")]
    pub ax_scope: AxScope,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Capture {
    /// The same capture without its accessibility trees (`AxScope::None`): what a live
    /// extraction reads, made from a recorded capture.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn without_accessibility(mut self) -> Capture {
        self.ax_trees.clear();
        for frame in &mut self.oopifs {
            frame.ax_trees.clear();
        }
        self.ax_scope = AxScope::None;
        self
    }

    /// Writes the capture as gzip'd JSON.
    pub fn to_writer<W: Write>(&self, writer: W) -> Result<()> {
        let mut gz = flate2::write::GzEncoder::new(writer, flate2::Compression::default());
        serde_json::to_writer(&mut gz, self).map_err(|e| match e.io_error_kind() {
            Some(kind) => crate::files::write_failed(&std::io::Error::new(kind, e)),
            None => Error::invalid_argument(format!("cannot write the capture: {e}")),
        })?;
        gz.finish().map_err(|e| crate::files::write_failed(&e))?;
        Ok(())
    }

    /// The capture as gzip'd JSON bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.to_writer(&mut out)?;
        Ok(out)
    }

    /// Reads a capture (gzip'd or plain JSON) from a reader, refusing one of more than
    /// [`MAX_CAPTURE_BYTES`] without reading further.
    pub fn from_reader<R: Read>(reader: R) -> Result<Capture> {
        Capture::from_bytes(&read_bounded(reader, "the capture", MAX_CAPTURE_BYTES)?)
    }

    /// Reads a capture from bytes: gzip'd JSON (recognised by its magic number) or plain JSON,
    /// of at most [`MAX_CAPTURE_BYTES`] of JSON. Gzip'd JSON is inflated only up to the limit.
    pub fn from_bytes(bytes: &[u8]) -> Result<Capture> {
        Capture::from_bytes_within(bytes, MAX_CAPTURE_BYTES)
    }

    /// [`Capture::from_bytes`] with another limit, for tests.
    pub(crate) fn from_bytes_within(bytes: &[u8], limit: usize) -> Result<Capture> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Capture::from_json(&gunzip_within(bytes, limit)?)
        } else if bytes.len() > limit {
            Err(too_large(&format!("{} bytes", bytes.len()), limit))
        } else {
            Capture::from_json(bytes)
        }
    }

    pub(crate) fn from_json(json: &[u8]) -> Result<Capture> {
        // On one core the second thread could only take turns with the first.
        let parallel = json.len() >= SPLIT_PARSE_MIN && crate::parallel::two_cores();
        let split_min = if parallel {
            SPLIT_PARSE_MIN
        } else {
            usize::MAX
        };
        Capture::from_json_with(json, split_min, true)
    }

    /// [`Capture::from_json`], parsing a file of at least `split_min` bytes on two threads;
    /// `pieces: false` parses it in one piece (what the pieces must give, for tests).
    pub(crate) fn from_json_with(json: &[u8], split_min: usize, pieces: bool) -> Result<Capture> {
        // Chromium sends lone UTF-16 surrogates (from page text) as `\ud800` escapes, which a
        // strict JSON decoder rejects; they become U+FFFD instead of failing the whole capture.
        // Valid UTF-8 is checked once over the whole file rather than once per string (about a
        // tenth of the parse on a large page); a file that is not UTF-8 takes the slice path,
        // which reports where. Both looks at every byte of a large file are bound by memory
        // reads, so they are made at once. A repair keeps the file valid UTF-8 or not, but
        // moves it: the copy is checked again.
        let (text, surrogates) = crate::parallel::join(
            json.len() >= split_min,
            || std::str::from_utf8(json),
            || has_surrogate_escape(json),
        );
        let mut owned;
        let (json, text) = if surrogates {
            owned = json.to_vec();
            repair_lone_surrogates(&mut owned);
            (&owned[..], std::str::from_utf8(&owned))
        } else {
            (json, text)
        };
        // One parse. A file this build cannot read is then looked at again for its version, so
        // a newer format is reported as such rather than as whatever field it renamed.
        let parsed: std::result::Result<Capture, _> = match text {
            Ok(text) => match pieces
                .then(|| split_file::parse_split(text, text.len() >= split_min))
                .flatten()
            {
                Some(capture) => Ok(capture),
                None => serde_json::from_str(text),
            },
            Err(_) => serde_json::from_slice(json),
        };
        let format = match &parsed {
            Ok(c) => Some(u64::from(c.format)),
            Err(_) => {
                #[derive(Deserialize)]
                struct Header {
                    format: Option<serde_json::Value>,
                }
                let header: Header = serde_json::from_slice(json).map_err(|e| {
                    Error::invalid_argument(format!(
                        "not a pagesight capture (expected a JSON object with \"format\": {FORMAT_VERSION}): {e}"
                    ))
                })?;
                header.format.as_ref().and_then(|v| v.as_u64())
            }
        };
        match format {
            Some(v) if v == u64::from(FORMAT_VERSION) => {}
            Some(v) => {
                return Err(Error::invalid_argument(format!(
                "capture format {v} is not supported (this build reads format {FORMAT_VERSION}); \
                     record the capture again with this version"
            )))
            }
            None => {
                return Err(Error::invalid_argument(format!(
                    "not a pagesight capture: no \"format\": {FORMAT_VERSION} field"
                )))
            }
        }
        parsed.map_err(|e| Error::invalid_argument(format!("the capture is malformed: {e}")))
    }
}

/// The most JSON a capture may hold, in bytes (inflated, for a gzip'd file): 512 MiB.
///
/// A page's capture is about 16 KB of JSON for a sign-in form and 19 MB for one of the longest
/// documentation pages (`fixtures/captures/stdtypes.json.gz`, 36k elements); the benchmarks'
/// generated page of 300k elements, about as large as Chromium can capture in reasonable time,
/// is 237 MiB. Twice that leaves room for any real page, while a file past it (a gzip bomb: a
/// few MB that inflate to gigabytes) is refused once this much is read, before the 5 to 7 times
/// its size that reading it into a model takes.
pub const MAX_CAPTURE_BYTES: usize = 512 << 20;

/// Reads a capture file, refusing one larger than [`MAX_CAPTURE_BYTES`] by its length before
/// reading it (a gzip'd file inflating past the limit is refused as it is read).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>> {
    let cannot = |e: std::io::Error| {
        Error::invalid_argument(format!("cannot read the capture {}: {e}", path.display()))
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    if len > MAX_CAPTURE_BYTES as u64 {
        return Err(too_large(
            &format!("{} ({len} bytes)", path.display()),
            MAX_CAPTURE_BYTES,
        ));
    }
    // The length may change while the file is read: the read is bounded as well.
    read_bounded(file, &path.display().to_string(), MAX_CAPTURE_BYTES)
}

/// Everything `reader` holds, if it is at most `limit` bytes.
fn read_bounded(reader: impl Read, what: &str, limit: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid_argument(format!("cannot read {what}: {e}")))?;
    if bytes.len() > limit {
        return Err(too_large(
            &format!("{what} (more than {limit} bytes)"),
            limit,
        ));
    }
    Ok(bytes)
}

/// The error for a capture of more than `limit` bytes of JSON.
fn too_large(what: &str, limit: usize) -> Error {
    Error::invalid_argument(format!(
        "the capture is too large: {what}, while a capture holds at most {limit} bytes \
         ({} MiB) of JSON; it is not a capture of a page pagesight can snapshot",
        limit >> 20
    ))
}

/// The JSON of a gzip'd capture, inflated only up to `limit` bytes: one more and it is refused,
/// so a small file that inflates to gigabytes costs at most `limit` bytes of memory.
fn gunzip_within(gz: &[u8], limit: usize) -> Result<Vec<u8>> {
    let mut json = Vec::new();
    // Only a hint: when the room cannot be had, reading grows the buffer as it goes.
    let _ = json.try_reserve_exact(gunzipped_size_hint(gz).min(limit));
    let mut decoder = flate2::read::MultiGzDecoder::new(gz);
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => return Ok(json),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::invalid_argument(format!(
                    "the capture is not valid gzip (corrupt or truncated?): {e}"
                )))
            }
        };
        let len = json.len() + n;
        if len > limit {
            return Err(too_large("its gzip inflates past the limit", limit));
        }
        if len > json.capacity() {
            // Grown by doubling, but never past the limit.
            let room = (json.capacity() * 2).clamp(len, limit);
            json.reserve_exact(room - json.len());
        }
        json.extend_from_slice(&chunk[..n]);
    }
}

/// Below this size a capture's pieces are parsed one after the other: a second thread costs
/// more than it saves.
const SPLIT_PARSE_MIN: usize = 1 << 20;

/// Room for the decompressed JSON: the size the gzip trailer records (exact for a file written
/// in one piece, as captures are), so the buffer is not grown by doubling to up to twice the
/// JSON's size, which would be the largest allocation of a snapshot read from a file. A trailer
/// claiming an implausible ratio (JSON of a page compresses about 10 to 30 times) is ignored.
fn gunzipped_size_hint(gz: &[u8]) -> usize {
    let fallback = gz.len().saturating_mul(8);
    let Some(trailer) = gz.len().checked_sub(4).and_then(|at| gz.get(at..)) else {
        return fallback;
    };
    let recorded = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]) as usize;
    if recorded > 0 && recorded <= gz.len().saturating_mul(256) {
        // One spare byte, so reading to the end needs no second allocation to find the end.
        recorded + 1
    } else {
        fallback
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::split_file::{parse_split, split_points};
    use super::*;
    use crate::ErrorCode;

    fn minimal_json() -> String {
        r#"{"format":1,"url":"about:blank","title":"t","computedStyles":["display"],
            "layoutMetrics":{
              "layoutViewport":{"pageX":0,"pageY":0,"clientWidth":800,"clientHeight":600},
              "visualViewport":{"offsetX":0,"offsetY":0,"pageX":0,"pageY":0,"clientWidth":800,"clientHeight":600,"scale":1},
              "contentSize":{"x":0,"y":0,"width":800,"height":600},
              "cssLayoutViewport":{"pageX":0,"pageY":0,"clientWidth":800,"clientHeight":600},
              "cssVisualViewport":{"offsetX":0,"offsetY":0,"pageX":0,"pageY":0,"clientWidth":800,"clientHeight":600,"scale":1},
              "cssContentSize":{"x":0,"y":0,"width":800,"height":600}},
            "domSnapshot":{"documents":[],"strings":[]},
            "axTrees":[]}"#
            .to_string()
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let mut j =
            br#"["a\ud800b", "\udc00", "\ud83d\ude00", "\\ud800", "\ud800\u0041"]"#.to_vec();
        repair_lone_surrogates(&mut j);
        let v: Vec<String> = serde_json::from_slice(&j).unwrap();
        assert_eq!(v[0], "a\u{fffd}b");
        assert_eq!(v[1], "\u{fffd}");
        assert_eq!(v[2], "\u{1f600}");
        assert_eq!(v[3], "\\ud800");
        assert_eq!(v[4], "\u{fffd}A");
    }

    #[test]
    fn gzip_size_hint_trusts_only_plausible_trailers() {
        let json = minimal_json();
        let gz = Capture::from_bytes(json.as_bytes())
            .unwrap()
            .to_bytes()
            .unwrap();
        let written = gunzipped_size_hint(&gz) - 1;
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&gz[..])
            .read_to_end(&mut plain)
            .unwrap();
        assert_eq!(written, plain.len(), "the trailer's size, exactly");
        let mut lying = gz.clone();
        let at = lying.len() - 4;
        lying[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(gunzipped_size_hint(&lying), lying.len() * 8);
        assert_eq!(
            gunzipped_size_hint(&[0x1f, 0x8b]),
            16,
            "too short for a trailer"
        );
    }

    #[test]
    fn round_trips_through_gzip() {
        let c = Capture::from_bytes(minimal_json().as_bytes()).unwrap();
        let bytes = c.to_bytes().unwrap();
        assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
        let back = Capture::from_bytes(&bytes).unwrap();
        assert_eq!(back.url, "about:blank");
        assert_eq!(back.format, FORMAT_VERSION);
    }

    #[test]
    fn rejects_foreign_truncated_and_newer_files() {
        for (bytes, needle) in [
            (b"hello".to_vec(), "not a pagesight capture"),
            (br#"{"a":1}"#.to_vec(), "no \"format\""),
            (
                minimal_json()
                    .replace("\"format\":1", "\"format\":9")
                    .into_bytes(),
                "format 9 is not supported",
            ),
            (
                minimal_json().replace("\"url\"", "\"uri\"").into_bytes(),
                "malformed",
            ),
        ] {
            let e = Capture::from_bytes(&bytes).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidArgument);
            assert!(e.message().contains(needle), "{}", e.message());
        }
        let c = Capture::from_bytes(minimal_json().as_bytes()).unwrap();
        let bytes = c.to_bytes().unwrap();
        let e = Capture::from_bytes(&bytes[..bytes.len() / 2]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message().contains("gzip"), "{}", e.message());
    }

    /// `len` zeros streamed through a gzip encoder: a few KB that inflate to `len` bytes.
    fn gzip_bomb(len: usize) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        let mut left = len;
        while left > 0 {
            let n = left.min(zeros.len());
            gz.write_all(&zeros[..n]).expect("write to memory");
            left -= n;
        }
        gz.finish().expect("write to memory")
    }

    #[test]
    fn a_gzip_bomb_is_refused_once_it_passes_the_limit() {
        let limit = 1 << 20;
        let bomb = gzip_bomb(64 << 20);
        assert!(bomb.len() < 128 << 10, "{}", bomb.len());
        let e = Capture::from_bytes_within(&bomb, limit).expect_err("too large");
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message().contains("1 MiB"), "{}", e.message());
        // The refusal holds no more than the limit.
        let e = gunzip_within(&bomb, limit).expect_err("too large");
        assert!(e.message().contains("too large"), "{}", e.message());
        // Exactly the limit is read (and then is not JSON).
        let json = gunzip_within(&gzip_bomb(limit), limit).expect("at the limit");
        assert_eq!(json.len(), limit);
        // The engine's own limit is the documented one.
        let e = Capture::from_bytes(&gzip_bomb(4 << 20)).expect_err("zeros are no capture");
        assert!(!e.message().contains("too large"), "{}", e.message());
        assert_eq!(MAX_CAPTURE_BYTES, 512 << 20);
    }

    #[test]
    fn json_nested_100k_deep_is_an_error_or_ignored_not_a_stack_overflow() {
        let n = 100_000;
        for deep in [
            format!("{}{}", "[".repeat(n), "]".repeat(n)),
            format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n)),
        ] {
            for json in [
                minimal_json().replacen(
                    "\"title\":\"t\"",
                    &format!("\"title\":\"t\",\"x\":{deep}"),
                    1,
                ),
                minimal_json().replacen(
                    "\"strings\":[]",
                    &format!("\"strings\":[],\"x\":{deep}"),
                    1,
                ),
            ] {
                // A field this build does not know is stepped over, however deep, without
                // recursion (serde_json ignores a value with a loop), so it costs no stack.
                Capture::from_bytes(json.as_bytes()).expect("an unknown field is ignored");
            }
            // Where a string is expected, the first bracket is the error.
            let json = minimal_json().replacen("\"title\":\"t\"", &format!("\"title\":{deep}"), 1);
            let e = Capture::from_bytes(json.as_bytes()).expect_err("not a string");
            assert_eq!(e.code(), ErrorCode::InvalidArgument);
            let e = Capture::from_bytes(deep.as_bytes()).expect_err("too deep");
            assert_eq!(e.code(), ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn a_truncated_gzip_is_refused() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/captures/sign-in.json.gz");
        let gz = std::fs::read(path).expect("the fixture");
        for cut in [2, 10, gz.len() / 3, gz.len() - 8, gz.len() - 1] {
            let e = Capture::from_bytes(&gz[..cut]).expect_err("truncated");
            assert_eq!(e.code(), ErrorCode::InvalidArgument);
            assert!(e.message().contains("gzip"), "{cut}: {}", e.message());
        }
        Capture::from_bytes(&gz).expect("the whole file reads");
    }

    #[test]
    fn plain_json_over_the_limit_is_refused() {
        let json = minimal_json();
        Capture::from_bytes_within(json.as_bytes(), json.len()).expect("at the limit");
        let e = Capture::from_bytes_within(json.as_bytes(), json.len() - 1).expect_err("over");
        assert!(e.message().contains("too large"), "{}", e.message());
    }

    #[test]
    fn a_file_over_the_limit_is_refused_by_its_length() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("huge.json");
        // Sparse: no byte of it is written, nor read.
        let file = std::fs::File::create(&path).expect("create");
        file.set_len(MAX_CAPTURE_BYTES as u64 + 1)
            .expect("set its length");
        let started = std::time::Instant::now();
        let e = read_file(&path).expect_err("too large");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert!(e.message().contains("512 MiB"), "{}", e.message());
        let e = read_file(&dir.path().join("missing.json")).expect_err("no file");
        assert!(e.message().contains("cannot read"), "{}", e.message());
        let e = read_bounded(std::io::repeat(b' ').take(1 << 20), "spaces", 1000)
            .expect_err("too large");
        assert!(
            e.message().contains("more than 1000 bytes"),
            "{}",
            e.message()
        );
        let read = read_bounded(&b"{}"[..], "two bytes", 2).expect("at the limit");
        assert_eq!(read, b"{}");
    }

    /// The file names of the recorded captures, sorted.
    pub(crate) fn recorded_capture_names() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/captures");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".json.gz"))
            .collect();
        names.sort();
        assert!(names.len() > 10, "{names:?}");
        names
    }

    /// A recorded capture's JSON.
    pub(crate) fn fixture_json(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/captures")
            .join(name);
        let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut json = Vec::new();
        flate2::read::MultiGzDecoder::new(&gz[..])
            .read_to_end(&mut json)
            .unwrap();
        json
    }

    /// Parses `json` in pieces (on two threads, and on one) and in one piece, asserts that all
    /// give the same capture or the same error, and returns the capture.
    fn parse_both_ways(json: &[u8]) -> Result<serde_json::Value> {
        let one_piece = Capture::from_json_with(json, usize::MAX, false);
        let pieces = [
            Capture::from_json_with(json, 0, true),
            Capture::from_json_with(json, usize::MAX, true),
        ];
        let one_piece = one_piece.map(|c| serde_json::to_value(c).unwrap());
        for (parallel, split) in [true, false].into_iter().zip(pieces) {
            match (split, &one_piece) {
                (Ok(split), Ok(one)) => {
                    let split = serde_json::to_value(split).unwrap();
                    assert!(split == *one, "the parses differ (parallel: {parallel})");
                }
                (Err(split), Err(one)) => assert_eq!(split.message(), one.message()),
                (split, one) => panic!(
                    "parallel: {parallel}, pieces: {:?}, one piece: {:?}",
                    split.map(|_| "a capture"),
                    one.as_ref().map(|_| "a capture")
                ),
            }
        }
        one_piece
    }

    /// A recorded capture with every optional section added; its oopif's `domSnapshot` and
    /// `axTrees` differ from the page's, so taking one for the other shows.
    fn full_capture() -> Capture {
        let mut c = Capture::from_json(&fixture_json("sign-in.json.gz")).unwrap();
        let mut oopif_trees = c.ax_trees.clone();
        oopif_trees.truncate(1);
        oopif_trees[0].frame_id = "F2".into();
        oopif_trees[0].nodes.truncate(2);
        c.oopifs.push(OopifCapture {
            target_id: Some("T2".into()),
            frame_id: "F2".into(),
            owner_target: 0,
            owner_backend_node_id: 7,
            computed_styles: c.computed_styles.clone(),
            dom_snapshot: Arc::new(DomSnapshot {
                documents: Vec::new(),
                strings: vec!["oopif".into()],
            }),
            ax_trees: oopif_trees,
            frame_tree: c.frame_tree.clone(),
        });
        c.uncaptured_frames.push(UncapturedFrame {
            owner_target: 1,
            owner_backend_node_id: 9,
            reason: "the frame did not answer in time".into(),
        });
        c.consistent = false;
        c.ax_scope = serde_json::from_str(r#"{"kind":"viewport","expand":300}"#).unwrap();
        c
    }

    /// The top-level members of a capture, each as its key and its value's JSON, in field order.
    fn members(c: &Capture) -> Vec<(String, String)> {
        let text = serde_json::to_string(c).unwrap();
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        let mut keyed: Vec<(usize, String, String)> = map
            .into_iter()
            .map(|(k, v)| {
                let at = text.find(&format!("\"{k}\":")).unwrap();
                (at, k, v.to_string())
            })
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, k, v)| (k, v)).collect()
    }

    fn object(members: &[(String, String)]) -> String {
        let inner: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect();
        format!("{{{}}}", inner.join(","))
    }

    fn with(members: &[(String, String)], key: &str, value: &str) -> Vec<(String, String)> {
        members
            .iter()
            .map(|(k, v)| (k.clone(), if k == key { value.into() } else { v.clone() }))
            .collect()
    }

    fn position(members: &[(String, String)], key: &str) -> usize {
        members.iter().position(|(k, _)| k == key).unwrap()
    }

    #[test]
    fn split_parse_reads_every_recorded_capture_as_one_parse_does() {
        for name in recorded_capture_names() {
            let json = fixture_json(&name);
            let text = std::str::from_utf8(&json).unwrap();
            assert!(parse_split(text, false).is_some(), "{name} is not split");
            parse_both_ways(&json).unwrap_or_else(|e| panic!("{name}: {}", e.message()));
        }
    }

    #[test]
    fn recorded_trees_read_on_two_threads_as_one_parse_does() {
        let mut read = 0;
        for name in [
            "stdtypes.json.gz",
            "sign-in.json.gz",
            "python-tutorial.json.gz",
        ] {
            let json = fixture_json(name);
            let text = std::str::from_utf8(&json).unwrap();
            let (_, _, ax_at) = split_points(text).unwrap();
            let ax = &text[ax_at..];
            let (two, ()) = ax::split::read_trees_with(ax, || ());
            let (trees, len) = two.unwrap_or_else(|| panic!("{name}: not read on two threads"));
            let mut values =
                serde_json::Deserializer::from_str(ax).into_iter::<Vec<AxTreeCapture>>();
            let whole = values.next().unwrap().unwrap();
            assert_eq!(len, values.byte_offset(), "{name}");
            assert_eq!(trees.len(), whole.len(), "{name}");
            for (a, b) in trees.iter().zip(&whole) {
                assert_eq!((&a.frame_id, &a.nodes), (&b.frame_id, &b.nodes), "{name}");
                read += a.nodes.len();
            }
        }
        assert!(read > 30_000, "{read}");
    }

    #[test]
    fn split_parse_reads_every_section_as_written() {
        let c = full_capture();
        let json = serde_json::to_string(&c).unwrap();
        for key in ["oopifs", "uncapturedFrames", "consistent", "axScope"] {
            assert!(json.contains(&format!("\"{key}\":")), "{key}");
        }
        assert!(parse_split(&json, true).is_some());
        let v = parse_both_ways(json.as_bytes()).unwrap();
        assert_eq!(v, serde_json::to_value(&c).unwrap());
        // Pretty-printed: whitespace around every key and value.
        let pretty = serde_json::to_string_pretty(&c).unwrap();
        assert!(parse_split(&pretty, false).is_some());
        assert_eq!(parse_both_ways(pretty.as_bytes()).unwrap(), v);
    }

    #[test]
    fn split_parse_of_odd_files_matches_one_parse() {
        let c = full_capture();
        let m = members(&c);
        let ax = position(&m, "axTrees");
        let dom = position(&m, "domSnapshot");
        assert_eq!(ax, dom + 1);
        // (what, file, parses, parsed on two threads)
        let mut cases: Vec<(&str, String, bool, bool)> = Vec::new();
        cases.push(("as written", object(&m), true, true));
        // `axTrees` before `domSnapshot`: the first key so named after `domSnapshot` is then the
        // oopif's.
        let mut m2 = m.clone();
        m2.swap(ax, dom);
        cases.push(("axTrees first", object(&m2), true, false));
        // `"axTrees":` within strings, one of them between the two keys.
        let quoted = r#""x\",\"axTrees\":[],\"domSnapshot\":{}""#;
        let mut m2 = with(&with(&m, "url", quoted), "title", quoted);
        let title = m2.remove(position(&m2, "title"));
        m2.insert(position(&m2, "axTrees"), title);
        cases.push(("keys in strings", object(&m2), true, false));
        let strings = r#"{"documents":[],"strings":["axTrees","\"axTrees\":","domSnapshot"]}"#;
        let m2 = with(&m, "domSnapshot", strings);
        cases.push(("key names as strings", object(&m2), true, true));
        // Keys of those names nested ahead of the top-level ones.
        let frame_tree = m[position(&m, "frameTree")].1.replacen(
            '{',
            &format!(r#"{{"domSnapshot":{strings},"axTrees":[{{"frameId":"X","nodes":[]}}],"#),
            1,
        );
        let m2 = with(&m, "frameTree", &frame_tree);
        cases.push(("keys nested in frameTree", object(&m2), true, false));
        let nested = r#"{"documents":[],"strings":[],"extra":{"n":1,"axTrees":[]}}"#;
        let m2 = with(&m, "domSnapshot", nested);
        cases.push(("axTrees nested in domSnapshot", object(&m2), true, false));
        // Unknown keys.
        let mut m2 = m.clone();
        m2.insert(ax + 1, ("extra".into(), r#"{"axTrees":[1]}"#.into()));
        cases.push(("unknown key after axTrees", object(&m2), true, true));
        let mut m2 = m.clone();
        m2.insert(ax, ("extra".into(), "1".into()));
        cases.push(("unknown key between", object(&m2), true, false));
        // Keys given twice.
        for key in ["axTrees", "domSnapshot", "url"] {
            let mut m2 = m.clone();
            m2.push((key.into(), m[position(&m, key)].1.clone()));
            cases.push(("a key twice", object(&m2), false, false));
        }
        // A newer format, a lone surrogate, garbage after the object.
        cases.push((
            "newer format",
            object(&with(&m, "format", "2")),
            false,
            true,
        ));
        let surrogate = r#"{"documents":[],"strings":["a\ud800b"]}"#;
        let m2 = with(&m, "domSnapshot", surrogate);
        cases.push(("lone surrogate", object(&m2), true, true));
        cases.push(("trailing garbage", object(&m) + " ]", false, false));
        // Cut short: in the keys before `domSnapshot`, in it, in `axTrees`, after it.
        let json = object(&m);
        for cut in [
            100,
            json.len() / 4,
            json.len() / 2,
            json.len() - 200,
            json.len() - 1,
        ] {
            let cut = (cut..json.len())
                .find(|&i| json.is_char_boundary(i))
                .unwrap();
            cases.push(("cut short", json[..cut].to_string(), false, false));
        }

        let real = serde_json::to_value(&c).unwrap();
        for (what, json, parses, splits) in cases {
            let mut text = json.clone().into_bytes();
            repair_lone_surrogates(&mut text);
            let text = String::from_utf8(text).unwrap();
            for parallel in [true, false] {
                assert_eq!(parse_split(&text, parallel).is_some(), splits, "{what}");
            }
            let parsed = parse_both_ways(json.as_bytes());
            assert_eq!(parsed.is_ok(), parses, "{what}: {:?}", parsed.err());
            if matches!(
                what,
                "as written" | "axTrees first" | "unknown key after axTrees"
            ) {
                assert!(parsed.unwrap() == real, "{what}");
            }
        }
        let mut bad = object(&m).into_bytes();
        bad[object(&m).find(r#""url":""#).unwrap() + 7] = 0xff;
        assert!(parse_both_ways(&bad).is_err(), "not UTF-8");
    }
}
