//! Client and scroll geometry of the few boxes that need it, without `includeDOMRects`.
//!
//! Why: `includeDOMRects` makes `DOMSnapshot.captureSnapshot` report `offsetRects`,
//! `clientRects` and `scrollRects` for *every* layout box, and that is the most expensive option
//! of the call (python's `stdtypes` page: about 0.55 s without it, 0.85–1.4 s with it). The
//! analysis reads those rectangles for three kinds of boxes only (`bounds`, always reported, give
//! the border box of everything else):
//! - boxes whose `overflow` is not `visible`: they clip their descendants at the padding box
//!   (`clientLeft/Top/Width/Height`, scrollbars excluded), and scroll containers say how far
//!   they are scrolled and how much they hold (`scrollLeft/Top/Width/Height`);
//! - `<iframe>` (and `<frame>`, `<object>`) owners of a captured document: the child document
//!   starts at the owner's content box;
//! - the root element of every child document: its client size is that frame's viewport.
//!
//! For a snapshot of the viewport (the default view, `--expand PX`), only such boxes in the
//! expanded viewport matter: a box outside it clips only descendants that its border box already
//! keeps outside. For the whole page (`--expand all`) all of them are read: still few (1,661 of
//! 31,116 boxes on `stdtypes`, read in about 0.2 s against the option's 0.3–0.6 s). So the snapshot is taken without `includeDOMRects`, and the client and scroll
//! rectangles of those few boxes are read afterwards, and written into the snapshot where
//! `includeDOMRects` would have put them (`[]` for every other box, as Chromium gives for text),
//! so the model reads them unchanged.
//!
//! CDP has no call that reports these values for chosen nodes (`DOM.getBoxModel` gives quads
//! without scrollbars or scroll positions). They are read with the DOM's own `clientLeft`,
//! `clientTop`, `clientWidth`, `clientHeight`, `scrollLeft`, `scrollTop`, `scrollWidth` and
//! `scrollHeight` — the very values `includeDOMRects` reports — in one `Runtime.callFunctionOn`
//! per frame, in an isolated world (`Page.createIsolatedWorld`) so the page's scripts cannot
//! see the call or change what the getters answer. This is the one place perception runs
//! JavaScript; it reads, never writes. Should any step fail (scripts disabled for the frame,
//! a node gone), the capture takes the snapshot again with `includeDOMRects` instead.
//!
//! Three steps, each waiting for the one before: the world, a handle per box
//! (`DOM.resolveNode`), the call. Chromium keeps one world of a name per frame and document and
//! answers the same context when asked again, so a capture asks for its frame's world
//! ([`create_world`]) together with the snapshot, before it knows the boxes (a few tenths of a ms
//! of Chromium's time when no box turns out to need it), and the reading creates only the
//! worlds it was not given ([`resolve_boxes`]). The call and the release of the handles are
//! written at once and only the call is waited for ([`Resolved::read`]), so the caller can
//! write what must be answered after them (the capture's check that nothing navigated) without
//! a round trip of its own.
//!
//! A page keeps its handles from one capture to the next ([`KeptBoxes`]): the boxes that need
//! rectangles are nearly always the same from one snapshot of a document to the next (scroll
//! containers, frames), and resolving then calling are two round trips after the snapshot that,
//! on a whole-page capture, wait behind the accessibility tree Chromium computes meanwhile
//! (about 1 ms of a 9 ms snapshot of bootstrap's checkout example). With the handles kept, the
//! reader is called on them in the same write as the snapshot, so the values come right behind
//! it; only boxes new to a snapshot are resolved. Nor is the world asked for again while it
//! holds kept handles: a page that has not changed needs no new handle, and a box new to a
//! snapshot has its world created when it is resolved, one round trip more for a page that
//! changed, against a call less, each way, for every snapshot.

use futures_util::future::join_all;
use rustc_hash::FxHashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::dom::{DomSnapshot, Ragged};
use super::json_reader::{Reader, Surrogates};
use crate::cdp::dom::ResolveNodeParams;
use crate::cdp::page::CreateIsolatedWorldParams;
use crate::cdp::runtime::{CallArgument, CallFunctionOnParams, ReleaseObjectGroupParams};
use crate::cdp::Command;
use crate::error::{Error, Result};
use crate::transport::{Connection, SessionId};

/// The isolated world the values are read in (one per frame; Chromium reuses it by name).
const WORLD: &str = "pagesight-geometry";
/// The object group of the handles resolved for one read, released right after.
const GROUP: &str = "pagesight-geometry";
/// The object group of the handles a page keeps from one capture to the next ([`KeptBoxes`]).
const KEPT_GROUP: &str = "pagesight-geometry-kept";
/// How many more kept handles than a capture uses are tolerated before the group is released
/// (each holds its element alive, even once removed from the document).
const STALE_SLACK: usize = 64;

/// Reads the eight values of `includeDOMRects`' `clientRects` and `scrollRects`, per argument.
const READ: &str = "function() { return Array.prototype.map.call(arguments, e => [\
    e.clientLeft, e.clientTop, e.clientWidth, e.clientHeight, \
    e.scrollLeft, e.scrollTop, e.scrollWidth, e.scrollHeight]); }";

/// One layout box whose client and scroll rectangles are needed.
#[derive(Debug, Clone, PartialEq)]
pub struct RectBox {
    /// Index of its document in the snapshot.
    pub doc: usize,
    /// Index of the box in that document's `layout` arrays.
    pub layout: usize,
    /// Its element.
    pub backend_node_id: i64,
    /// The frame of its document.
    pub frame_id: String,
}

/// The part of the top document a view can show: its viewport, in the document's own
/// coordinates, grown by `expand` CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub expand: f64,
}

/// The boxes of `snapshot` whose client and scroll rectangles geometry needs (see the module
/// docs). `view`: for the page's own snapshot, the part of its top document (`documents[0]`)
/// that can be shown — boxes of that document outside it are left out; boxes of any other
/// document are all kept (frames are small). `None`: every document is another renderer's
/// frame, all kept.
///
/// Pure.
pub fn boxes_needing_rects(
    snapshot: &DomSnapshot,
    computed_styles: &[String],
    view: Option<View>,
) -> Vec<RectBox> {
    let strings = &snapshot.strings;
    let style_at = |name: &str| computed_styles.iter().position(|s| s == name);
    let (ox, oy) = (style_at("overflow-x"), style_at("overflow-y"));
    let text = |i: i64| usize::try_from(i).ok().and_then(|i| strings.get(i));
    let mut out = Vec::new();
    for (d, doc) in snapshot.documents.iter().enumerate() {
        let nodes = &doc.nodes;
        let (Some(ids), Some(parents), Some(types)) = (
            &nodes.backend_node_id,
            &nodes.parent_index,
            &nodes.node_type,
        ) else {
            continue;
        };
        let mut wanted = vec![false; ids.len()];
        if let Some(owners) = &nodes.content_document_index {
            for &i in &owners.index {
                if let Some(w) = usize::try_from(i).ok().and_then(|i| wanted.get_mut(i)) {
                    *w = true;
                }
            }
        }
        let child_document = view.is_none() || d > 0;
        if child_document {
            // The root element: the element child of the `#document` (node 0).
            for (i, (&p, &t)) in parents.iter().zip(types).enumerate() {
                if p == 0 && t == 1 {
                    wanted[i] = true;
                }
            }
        }
        let shown = |bounds: &[f64]| match (view, d) {
            (Some(v), 0) => {
                bounds.len() >= 4
                    && bounds[0] < v.x + v.width + v.expand
                    && bounds[0] + bounds[2] > v.x - v.expand
                    && bounds[1] < v.y + v.height + v.expand
                    && bounds[1] + bounds[3] > v.y - v.expand
            }
            _ => true,
        };
        let frame_id = text(doc.frame_id).cloned().unwrap_or_default();
        let layout = &doc.layout;
        for (k, &ni) in layout.node_index.iter().enumerate() {
            let Some(node) = usize::try_from(ni).ok().filter(|&n| n < ids.len()) else {
                continue;
            };
            let style = layout.styles.get(k);
            let clips = |at: Option<usize>| {
                at.and_then(|a| style.and_then(|s| s.get(a)))
                    .and_then(|&v| text(v))
                    .is_some_and(|v| v != "visible")
            };
            let needed = wanted[node] || clips(ox) || clips(oy);
            if needed && types.get(node) == Some(&1) {
                let bounds = layout.bounds.get(k).unwrap_or(&[]);
                if shown(bounds) {
                    out.push(RectBox {
                        doc: d,
                        layout: k,
                        backend_node_id: ids[node],
                        frame_id: frame_id.clone(),
                    });
                }
            }
        }
    }
    out
}

/// Writes the values read for `boxes` into `snapshot` as `clientRects` and `scrollRects`
/// (`[]` for every other box of a document that has any). Pure.
///
/// A document whose rows come out as it already has them is left alone, and a snapshot none of
/// whose documents change is not copied: a page's kept snapshot (see `kept_model.rs`) is
/// shared with the next capture of an unchanged page, and copying a long page's snapshot cost
/// more than the rest of that capture's reading.
pub fn write_rects(snapshot: &mut Arc<DomSnapshot>, boxes: &[RectBox], values: &[[f64; 8]]) {
    // Per document, the boxes read, in layout order; the rows are then written in one pass.
    let mut per_doc: Vec<Vec<(usize, &[f64; 8])>> = vec![Vec::new(); snapshot.documents.len()];
    for (b, v) in boxes.iter().zip(values) {
        if let Some(read) = per_doc.get_mut(b.doc) {
            read.push((b.layout, v));
        }
    }
    let mut changed = Vec::new();
    for (d, (doc, mut read)) in snapshot.documents.iter().zip(per_doc).enumerate() {
        if read.is_empty() {
            continue;
        }
        read.sort_by_key(|&(layout, _)| layout);
        let n = doc.layout.node_index.len();
        // Rows a document already has (all of them or none) are kept where nothing was read.
        let had = |r: &Option<Ragged<f64>>, k: usize| {
            r.as_ref()
                .filter(|r| r.len() == n)
                .and_then(|r| r.get(k))
                .filter(|row| row.len() == 4)
                .map(|row| [row[0], row[1], row[2], row[3]])
        };
        let (mut client, mut scroll) = (Ragged::new(), Ragged::new());
        let mut next = read.iter().peekable();
        for k in 0..n {
            let mut value = None;
            while let Some(&&(layout, v)) = next.peek() {
                if layout > k {
                    break;
                }
                if layout == k {
                    value = Some(*v);
                }
                next.next();
            }
            let value = value.or_else(|| {
                match (
                    had(&doc.layout.client_rects, k),
                    had(&doc.layout.scroll_rects, k),
                ) {
                    (Some(c), Some(s)) => Some([c[0], c[1], c[2], c[3], s[0], s[1], s[2], s[3]]),
                    _ => None,
                }
            });
            match value {
                Some(v) => {
                    client.push(&v[..4]);
                    scroll.push(&v[4..]);
                }
                None => {
                    client.push(&[]);
                    scroll.push(&[]);
                }
            }
        }
        let same = doc.layout.client_rects.as_ref() == Some(&client)
            && doc.layout.scroll_rects.as_ref() == Some(&scroll);
        if !same {
            changed.push((d, client, scroll));
        }
    }
    if changed.is_empty() {
        return;
    }
    let snapshot = Arc::make_mut(snapshot);
    for (d, client, scroll) in changed {
        if let Some(doc) = snapshot.documents.get_mut(d) {
            doc.layout.client_rects = Some(client);
            doc.layout.scroll_rects = Some(scroll);
        }
    }
}

/// Execution contexts of the isolated world, by frame id: those a reader already has.
pub type Worlds = FxHashMap<String, i64>;

/// Creates (or finds: Chromium keeps one world of a name per frame and document, and answers
/// the same context again) the isolated world the values are read in, in the frame
/// `frame_id` of one renderer. Written now, so it can ride along with other requests; the
/// context comes with the reply.
pub fn create_world<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    frame_id: &str,
    timeout: Duration,
) -> impl Future<Output = Result<i64>> + Send + use<'a> {
    let params = CreateIsolatedWorldParams {
        world_name: Some(WORLD.to_string()),
        ..CreateIsolatedWorldParams::new(frame_id.to_string())
    };
    let reply = conn.send_now(session, &params, timeout);
    async move { Ok(reply.await?.execution_context_id) }
}

/// The boxes of one read, resolved to handles in their frames' isolated worlds.
#[derive(Debug)]
pub struct Resolved {
    /// Per frame, the boxes' indexes and their handles.
    frames: Vec<(Vec<usize>, Vec<String>)>,
    count: usize,
    /// Whether the handles are released once read (not when a page keeps them).
    release: bool,
}

/// Resolves `boxes` of one renderer to handles in their frames' isolated worlds: a world is
/// created for each frame `worlds` has no context for, then a handle is asked for each box,
/// all of each step sent at once. Fails when a world or a box cannot be had.
pub async fn resolve_boxes(
    conn: &Connection,
    session: Option<&SessionId>,
    boxes: &[RectBox],
    worlds: &Worlds,
    timeout: Duration,
) -> Result<Resolved> {
    resolve_in_group(conn, session, boxes, worlds, timeout, GROUP).await
}

/// [`resolve_boxes`], the handles in `group`.
async fn resolve_in_group(
    conn: &Connection,
    session: Option<&SessionId>,
    boxes: &[RectBox],
    worlds: &Worlds,
    timeout: Duration,
    group: &str,
) -> Result<Resolved> {
    let mut frames: Vec<&str> = boxes.iter().map(|b| b.frame_id.as_str()).collect();
    frames.sort_unstable();
    frames.dedup();
    let mut context: FxHashMap<&str, i64> = FxHashMap::default();
    let missing: Vec<&str> = frames
        .iter()
        .copied()
        .filter(|f| match worlds.get(*f) {
            Some(&id) => {
                context.insert(f, id);
                false
            }
            None => true,
        })
        .collect();
    let created = join_all(
        missing
            .iter()
            .map(|f| create_world(conn, session, f, timeout)),
    )
    .await;
    for (f, id) in missing.iter().zip(created) {
        context.insert(f, id?);
    }
    let handles = join_all(boxes.iter().map(|b| {
        let params = ResolveNodeParams {
            backend_node_id: Some(b.backend_node_id),
            object_group: Some(group.to_string()),
            execution_context_id: context.get(b.frame_id.as_str()).copied(),
            ..Default::default()
        };
        conn.send_now(session, &params, timeout)
    }))
    .await;
    let mut objects: Vec<Option<String>> = Vec::with_capacity(boxes.len());
    for h in handles {
        match h?.object.object_id {
            Some(id) => objects.push(Some(id)),
            None => return Err(Error::protocol("a box to measure has no handle")),
        }
    }
    let frames = frames
        .iter()
        .map(|f| {
            let mine: Vec<usize> = (0..boxes.len())
                .filter(|&i| boxes[i].frame_id == *f)
                .collect();
            let handles = mine
                .iter()
                .filter_map(|&i| objects.get_mut(i).and_then(Option::take))
                .collect();
            (mine, handles)
        })
        .collect();
    Ok(Resolved {
        frames,
        count: boxes.len(),
        release: group == GROUP,
    })
}

impl Resolved {
    /// Reads the values: one call per frame, its boxes as arguments, then the release of the
    /// handles. Written now (the release behind the calls, so it cannot free a handle they
    /// still use), so whatever is written next is answered after them.
    pub fn read<'a>(
        self,
        conn: &'a Connection,
        session: Option<&SessionId>,
        timeout: Duration,
    ) -> impl Future<Output = Result<Vec<[f64; 8]>>> + Send + use<'a> {
        let Resolved {
            frames,
            count,
            release,
        } = self;
        let calls: Vec<_> = frames
            .into_iter()
            .map(|(mine, handles)| (mine, call_reader(conn, session, handles, timeout)))
            .collect();
        if count > 0 && release {
            let params = ReleaseObjectGroupParams {
                object_group: GROUP.to_string(),
            };
            // Written, its reply not awaited: nothing needs it (a release that fails leaves
            // handles the next read's release frees), and waiting would hold the values back.
            drop(conn.send_now(session, &params, timeout));
        }
        async move {
            let (mine, replies): (Vec<_>, Vec<_>) = calls.into_iter().unzip();
            let replies = join_all(replies).await;
            let mut values = vec![[0.0; 8]; count];
            for (mine, reply) in mine.iter().zip(replies) {
                let rows = reply?;
                if rows.len() != mine.len() {
                    return Err(Error::protocol("box geometry came back incomplete"));
                }
                for (&i, row) in mine.iter().zip(rows) {
                    if let Some(slots) = values.get_mut(i) {
                        *slots = row;
                    }
                }
            }
            Ok(values)
        }
    }

    /// Each box's handle, by the boxes' order in `boxes` (those it was resolved from).
    fn handles<'b>(&self, boxes: &'b [RectBox]) -> Vec<(&'b RectBox, String)> {
        self.frames
            .iter()
            .flat_map(|(mine, handles)| mine.iter().zip(handles))
            .filter_map(|(&i, h)| Some((boxes.get(i)?, h.clone())))
            .collect()
    }
}

/// Calls the reader on `handles` (all of one frame's world), written now: one row of the
/// eight values per handle, in their order.
fn call_reader<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    handles: Vec<String>,
    timeout: Duration,
) -> impl Future<Output = Result<Vec<[f64; 8]>>> + Send + use<'a> {
    let params = CallFunctionOnParams {
        object_id: handles.first().cloned(),
        arguments: Some(
            handles
                .into_iter()
                .map(|h| CallArgument {
                    object_id: Some(h),
                    ..CallArgument::default()
                })
                .collect(),
        ),
        silent: Some(true),
        return_by_value: Some(true),
        ..CallFunctionOnParams::new(READ.to_string())
    };
    let reply = conn.send_now_unparsed(session, &params, timeout);
    async move {
        let reply = reply.await?;
        if let Some(rows) = read_rows(reply.as_bytes()) {
            return Ok(rows);
        }
        let reply: ReaderReply = reply.parse(CallFunctionOnParams::METHOD)?;
        if reply.exception_details.is_some() {
            return Err(Error::protocol("reading box geometry failed in the frame"));
        }
        Ok(reply
            .result
            .value
            .map_or_else(Vec::new, |rows| rows.into_iter().map(|row| row.0).collect()))
    }
}

/// The reader's rows from its reply as it comes nearly always (`{"result":{"type":"object",
/// "value":[[…],…]}}`), by the engine's JSON reader: its numbers are the ones serde_json reads,
/// found without its general decimal conversion, which was most of reading the reply. `None`
/// for anything else (an exception, a value that is not a number), which [`ReaderReply`] reads.
fn read_rows(bytes: &[u8]) -> Option<Vec<[f64; 8]>> {
    let mut reader = Reader::new(bytes, Surrogates::Refuse);
    let mut rows = None;
    reader.object(|reader, key| match key {
        b"result" => reader.object(|reader, key| match key {
            b"value" => {
                let mut list = Vec::new();
                reader.array(|reader| {
                    let mut slots = [0.0; 8];
                    let mut k = 0;
                    reader.array(|reader| {
                        let value = reader.nullable(Reader::f64)?;
                        if let Some(slot) = slots.get_mut(k) {
                            *slot = value.filter(|x| x.is_finite()).unwrap_or(0.0);
                        }
                        k += 1;
                        Some(())
                    })?;
                    list.push(slots);
                    Some(())
                })?;
                rows = Some(list);
                Some(())
            }
            _ => reader.skip_value(0),
        }),
        _ => None,
    })?;
    // Nothing but whitespace after the reply.
    reader.next().is_none().then_some(())?;
    rows
}

/// The reader's reply in any shape serde reads, where [`read_rows`] reads only the usual one:
/// each row straight into eight numbers (as a generic value every row was a list of its own).
#[derive(serde::Deserialize)]
struct ReaderReply {
    result: ReaderResult,
    #[serde(rename = "exceptionDetails", default)]
    exception_details: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct ReaderResult {
    #[serde(default)]
    value: Option<Vec<ReaderRow>>,
}

/// One row of eight values; what is not a finite number, or missing, is 0, and what is beyond
/// the eighth is ignored.
struct ReaderRow([f64; 8]);

impl<'de> serde::Deserialize<'de> for ReaderRow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ReaderRow;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a row of numbers")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<ReaderRow, A::Error> {
                let mut slots = [0.0; 8];
                let mut k = 0;
                // A number needs no allocation as a generic value; anything else is 0.
                while let Some(v) = seq.next_element::<serde_json::Value>()? {
                    if let Some(slot) = slots.get_mut(k) {
                        *slot = v.as_f64().filter(|x| x.is_finite()).unwrap_or(0.0);
                    }
                    k += 1;
                }
                Ok(ReaderRow(slots))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<ReaderRow, E> {
                Ok(ReaderRow([0.0; 8]))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Handles to the boxes a page's captures measured, kept from one capture to the next (see the
/// module docs). One per page session; cheap to clone (clones share the handles).
#[derive(Clone, Default)]
pub struct KeptBoxes {
    state: Arc<Mutex<Kept>>,
}

#[derive(Default)]
struct Kept {
    /// Per frame: its handles (in its isolated world) with their elements' backend node ids.
    frames: Vec<(String, Vec<(i64, String)>)>,
}

impl Kept {
    fn len(&self) -> usize {
        self.frames.iter().map(|(_, h)| h.len()).sum()
    }
}

impl std::fmt::Debug for KeptBoxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptBoxes")
            .field("handles", &self.lock().len())
            .finish()
    }
}

/// Values read through kept handles, by backend node id.
pub type KeptValues = FxHashMap<i64, [f64; 8]>;

impl KeptBoxes {
    fn lock(&self) -> MutexGuard<'_, Kept> {
        // Every critical section leaves the handles consistent: a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether handles are kept in `frame`'s world (so that world exists, for its document).
    pub fn holds(&self, frame: &str) -> bool {
        self.lock()
            .frames
            .iter()
            .any(|(f, handles)| f == frame && !handles.is_empty())
    }

    /// Calls the reader on every kept handle, written now (so it is answered right after what
    /// was written before it, the snapshot). `None` when nothing is kept or a frame's call
    /// failed (its document is gone: handles die with their world).
    pub fn read_now<'a>(
        &self,
        conn: &'a Connection,
        session: Option<&SessionId>,
        timeout: Duration,
    ) -> impl Future<Output = Option<KeptValues>> + Send + use<'a> {
        let kept = self.lock();
        let calls: Vec<_> = kept
            .frames
            .iter()
            .filter(|(_, handles)| !handles.is_empty())
            .map(|(_, handles)| {
                let ids: Vec<i64> = handles.iter().map(|(id, _)| *id).collect();
                let objects = handles.iter().map(|(_, h)| h.clone()).collect();
                (ids, call_reader(conn, session, objects, timeout))
            })
            .collect();
        drop(kept);
        async move {
            if calls.is_empty() {
                return None;
            }
            let (ids, replies): (Vec<_>, Vec<_>) = calls.into_iter().unzip();
            let mut values = KeptValues::default();
            for (ids, rows) in ids.iter().zip(join_all(replies).await) {
                let rows = rows.ok()?;
                if rows.len() != ids.len() {
                    return None;
                }
                values.extend(ids.iter().copied().zip(rows));
            }
            Some(values)
        }
    }

    /// Forgets every kept handle and releases them (written now, behind what uses them).
    fn release(&self, conn: &Connection, session: Option<&SessionId>, timeout: Duration) {
        let mut kept = self.lock();
        if kept.len() == 0 {
            return;
        }
        kept.frames.clear();
        let params = ReleaseObjectGroupParams {
            object_group: KEPT_GROUP.to_string(),
        };
        // Not awaited: a release that fails leaves handles a later release frees.
        drop(conn.send_now(session, &params, timeout));
    }

    /// Adds handles just resolved.
    fn add(&self, handles: Vec<(&RectBox, String)>) {
        let mut kept = self.lock();
        for (b, handle) in handles {
            let at = match kept.frames.iter().position(|(f, _)| *f == b.frame_id) {
                Some(at) => at,
                None => {
                    kept.frames.push((b.frame_id.clone(), Vec::new()));
                    kept.frames.len() - 1
                }
            };
            if let Some((_, frame)) = kept.frames.get_mut(at) {
                frame.push((b.backend_node_id, handle));
            }
        }
    }

    /// Releases the kept handles when there are far more of them than the page could use:
    /// `in_use` read now, `could_use()` the boxes of the whole page that may need reading (a
    /// view's capture reads a few of them; the page's others are kept for a wider view).
    fn trim(
        &self,
        in_use: usize,
        could_use: impl FnOnce() -> usize,
        conn: &Connection,
        session: Option<&SessionId>,
        timeout: Duration,
    ) {
        let len = self.lock().len();
        let too_many = |n: usize| len > 2 * n + STALE_SLACK;
        if too_many(in_use) && too_many(could_use()) {
            self.release(conn, session, timeout);
        }
    }
}

/// Reads the client and scroll rectangles of a page's `boxes` (its own renderer's), with the
/// values `early` read through its kept handles ([`KeptBoxes::read_now`]): the boxes those
/// cover cost nothing more, the others are resolved into the kept handles and read. Written
/// now; the future gives one row per box. Fails when a box cannot be resolved. `could_use`:
/// how many boxes of the whole page may need reading (asked only when many handles are kept).
#[allow(clippy::too_many_arguments)]
pub async fn read_with_kept<'a>(
    kept: &KeptBoxes,
    early: Option<KeptValues>,
    conn: &'a Connection,
    session: Option<&SessionId>,
    boxes: &[RectBox],
    could_use: impl FnOnce() -> usize,
    worlds: &Worlds,
    timeout: Duration,
) -> Result<futures_util::future::BoxFuture<'a, Result<Vec<[f64; 8]>>>> {
    use futures_util::FutureExt;
    let early = match early {
        Some(values) => values,
        None => {
            // Nothing kept, or a kept handle is gone with its document: start over.
            kept.release(conn, session, timeout);
            KeptValues::default()
        }
    };
    let missing: Vec<RectBox> = boxes
        .iter()
        .filter(|b| !early.contains_key(&b.backend_node_id))
        .cloned()
        .collect();
    let known: Vec<Option<[f64; 8]>> = boxes
        .iter()
        .map(|b| early.get(&b.backend_node_id).copied())
        .collect();
    if missing.is_empty() {
        kept.trim(boxes.len(), could_use, conn, session, timeout);
        let values = known.into_iter().map(|v| v.unwrap_or([0.0; 8])).collect();
        return Ok(futures_util::future::ready(Ok(values)).boxed());
    }
    let resolved = resolve_in_group(conn, session, &missing, worlds, timeout, KEPT_GROUP).await?;
    kept.add(resolved.handles(&missing));
    let read = resolved.read(conn, session, timeout);
    // Written behind the read, which still uses the handles it may release.
    kept.trim(boxes.len(), could_use, conn, session, timeout);
    Ok(async move {
        let mut fresh = read.await?.into_iter();
        Ok(known
            .into_iter()
            .map(|v| v.or_else(|| fresh.next()).unwrap_or([0.0; 8]))
            .collect())
    }
    .boxed())
}

/// Reads the client and scroll rectangles of `boxes` from one renderer (see the module docs):
/// [`resolve_boxes`] (the worlds `worlds` lacks, then a handle per box), then
/// [`Resolved::read`]. Fails when any box cannot be read.
pub async fn read_rects(
    conn: &Connection,
    session: Option<&SessionId>,
    boxes: &[RectBox],
    worlds: &Worlds,
    timeout: Duration,
) -> Result<Vec<[f64; 8]>> {
    if boxes.is_empty() {
        return Ok(Vec::new());
    }
    let resolved = resolve_boxes(conn, session, boxes, worlds, timeout).await?;
    resolved.read(conn, session, timeout).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readers_reply_is_read_into_rows_of_eight() {
        let read = |json: &str| -> Option<Vec<[f64; 8]>> {
            let reply: ReaderReply = serde_json::from_str(json).ok()?;
            Some(reply.result.value?.into_iter().map(|row| row.0).collect())
        };
        let rows = read(
            r#"{"result":{"type":"object","value":[[1,2.5,3,4,5,6,7,8],[1,null,3],
                [1,2,3,4,5,6,7,8,9,10],null,[-0.5,1e3,0,0,0,0,0,"x"]]}}"#,
        );
        assert_eq!(
            rows,
            Some(vec![
                [1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                [1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                [0.0; 8],
                [-0.5, 1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ])
        );
        assert_eq!(read(r#"{"result":{"type":"undefined"}}"#), None);
        // The engine's reader reads what it reads as serde does, and leaves the rest to it.
        let replies = [
            r#"{"result":{"type":"object","value":[[1,2.5,3,4,5,6,7,8],[1,null,3],[1,2,3,4,5,6,7,8,9,10],[-0.5,1e3,0,0,0,0,0,0]]}}"#,
            r#"{"result":{"type":"object","value":[[0.1,173.34375,1e-7,12345678.875,-0,3.0e2,7,8]]}}"#,
            r#" {"result" : {"value" : [ [ 1 , 2 ] ] , "type":"object"} } "#,
            r#"{"result":{"type":"object","value":[]}}"#,
            r#"{"result":{"type":"object","value":[[1,"x"]]}}"#,
            r#"{"result":{"type":"object","value":[null]}}"#,
            r#"{"result":{"type":"undefined"}}"#,
            r#"{"result":{"type":"object","value":[[1]]},"exceptionDetails":{}}"#,
            r#"{"result":{"type":"object","value":[[1]]}} x"#,
            r#"{"result":{"type":"object","value":[[1,]]}}"#,
        ];
        for json in replies {
            if let Some(fast) = read_rows(json.as_bytes()) {
                assert_eq!(Some(fast), read(json), "{json}");
            }
        }
        assert!(read_rows(replies[0].as_bytes()).is_some());
        assert!(read_rows(replies[1].as_bytes()).is_some());
        assert!(read_rows(replies[7].as_bytes()).is_none(), "an exception");
        // A reply cut anywhere is not read (serde refuses it too).
        let whole = replies[1].as_bytes();
        for cut in 0..whole.len() {
            assert!(read_rows(&whole[..cut]).is_none(), "cut at {cut}");
        }
        let failed: ReaderReply = serde_json::from_str(
            r#"{"result":{"type":"object","subtype":"error"},"exceptionDetails":{"text":"x"}}"#,
        )
        .expect("a reply with an exception");
        assert!(failed.exception_details.is_some());
        // Rows that are not lists are an error, not rows made up.
        assert!(serde_json::from_str::<ReaderReply>(r#"{"result":{"value":[{"a":1}]}}"#).is_err());
    }

    fn snapshot() -> DomSnapshot {
        // #document > HTML > BODY > [DIV overflow:auto (in view), DIV overflow:hidden (far
        // below), IFRAME (content document 1), P]; document 1: #document > HTML.
        serde_json::from_value(serde_json::json!({
            "strings": ["visible", "auto", "hidden", "F0", "F1"],
            "documents": [
                {"documentURL": -1, "title": -1, "baseURL": -1, "contentLanguage": -1,
                 "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 3,
                 "nodes": {"parentIndex": [-1, 0, 1, 2, 2, 2, 2], "nodeType": [9, 1, 1, 1, 1, 1, 1],
                           "backendNodeId": [1, 2, 3, 4, 5, 6, 7],
                           "contentDocumentIndex": {"index": [5], "value": [1]}},
                 "layout": {"nodeIndex": [1, 2, 3, 4, 5, 6],
                            "styles": [[0, 0], [0, 0], [1, 1], [2, 2], [0, 0], [0, 0]],
                            "bounds": [[0,0,800,3000],[0,0,800,3000],[0,10,100,100],[0,2000,100,100],[0,50,300,150],[0,300,10,10]],
                            "text": [-1,-1,-1,-1,-1,-1], "stackingContexts": {"index": []}},
                 "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []}},
                {"documentURL": -1, "title": -1, "baseURL": -1, "contentLanguage": -1,
                 "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 4,
                 "nodes": {"parentIndex": [-1, 0], "nodeType": [9, 1], "backendNodeId": [20, 21]},
                 "layout": {"nodeIndex": [1], "styles": [[0, 0]], "bounds": [[0,0,300,150]],
                            "text": [-1], "stackingContexts": {"index": []}},
                 "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []}}
            ]
        }))
        .unwrap()
    }

    fn styles() -> Vec<String> {
        vec!["overflow-x".into(), "overflow-y".into()]
    }

    #[test]
    fn picks_clipping_boxes_in_view_iframe_owners_and_child_roots() {
        let s = snapshot();
        let view = View {
            x: 0.0,
            y: 0.0,
            width: 800.0,
            height: 600.0,
            expand: 0.0,
        };
        let ids = |v| {
            boxes_needing_rects(&s, &styles(), v)
                .iter()
                .map(|b| b.backend_node_id)
                .collect::<Vec<_>>()
        };
        // Not the top document's root; not the overflow box far below the view.
        assert_eq!(ids(Some(view)), vec![4, 6, 21]);
        assert_eq!(
            ids(Some(View {
                expand: 2000.0,
                ..view
            })),
            vec![4, 5, 6, 21]
        );
        // Another renderer's frames: every root element and every clipping box.
        assert_eq!(ids(None), vec![2, 4, 5, 6, 21]);
    }

    /// The snapshot with a row read for every box that needs one, the boxes and the rows.
    fn measured() -> (Arc<DomSnapshot>, Vec<RectBox>, Vec<[f64; 8]>) {
        let mut s = Arc::new(snapshot());
        let boxes = boxes_needing_rects(&s, &styles(), None);
        let values: Vec<[f64; 8]> = (0..boxes.len())
            .map(|i| [i as f64, 0.0, 10.0, 20.0, 0.0, 5.0, 10.0, 90.0])
            .collect();
        write_rects(&mut s, &boxes, &values);
        (s, boxes, values)
    }

    #[test]
    fn writes_rects_where_the_snapshot_option_would() {
        let (s, _, _) = measured();
        let l = &s.documents[0].layout;
        let client = l.client_rects.as_ref().unwrap();
        assert_eq!(client.len(), 6);
        assert_eq!(client.get(2), Some(&[1.0, 0.0, 10.0, 20.0][..]));
        assert_eq!(client.get(5), Some(&[][..]));
        assert_eq!(
            l.scroll_rects.as_ref().unwrap().get(2),
            Some(&[0.0, 5.0, 10.0, 90.0][..])
        );
        assert!(l.offset_rects.is_none());
    }

    #[test]
    fn a_shared_snapshot_is_copied_only_when_its_rects_change() {
        let (mut s, boxes, values) = measured();
        // Kept by a page, and handed to its next capture.
        let kept = Arc::clone(&s);
        write_rects(&mut s, &boxes, &values);
        assert!(Arc::ptr_eq(&kept, &s), "the same rects copied the snapshot");
        // A panel scrolled: the capture gets its own copy; the kept one is left as it was.
        let mut scrolled = values.clone();
        scrolled[0][5] = 40.0;
        write_rects(&mut s, &boxes, &scrolled);
        assert!(!Arc::ptr_eq(&kept, &s));
        let scroll_y = |s: &DomSnapshot| {
            let l = &s.documents[boxes[0].doc].layout;
            l.scroll_rects
                .as_ref()
                .unwrap()
                .get(boxes[0].layout)
                .unwrap()[1]
        };
        assert_eq!(scroll_y(&s), 40.0);
        assert_eq!(scroll_y(&kept), 5.0);
    }
}
