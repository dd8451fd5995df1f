//! Client and scroll geometry of the few boxes that need it, without `includeDOMRects`.
//!
//! Why: `includeDOMRects` makes `DOMSnapshot.captureSnapshot` report `offsetRects`,
//! `clientRects` and `scrollRects` for *every* layout box, and that is the most expensive option
//! of the call on a long page. The
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
//! keeps outside. For the whole page (`--expand all`) all of them are read: still few, and read
//! in less time than the option costs. So the snapshot is taken without `includeDOMRects`, and
//! the client and scroll
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
//! ([`crate::browser::create_world`]) together with the snapshot, before it knows the boxes (a few tenths of a ms
//! of Chromium's time when no box turns out to need it), and the reading creates only the
//! worlds it was not given ([`resolve_boxes`]). The call and the release of the handles are
//! written at once and only the call is waited for ([`Resolved::read`]), so the caller can
//! write what must be answered after them (the capture's check that nothing navigated) without
//! a round trip of its own.
//!
//! A page keeps its handles from one capture to the next ([`KeptBoxes`]): the boxes that need
//! rectangles are nearly always the same from one snapshot of a document to the next (scroll
//! containers, frames), and resolving then calling are two round trips after the snapshot that,
//! on a whole-page capture, wait behind the accessibility tree Chromium computes meanwhile.
//! With the handles kept, the
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

use crate::browser::create_world;
use crate::capture::box_rects::{read_rows, ReaderReply, RectBox};
use crate::cdp::dom::ResolveNodeParams;
use crate::cdp::runtime::{CallArgument, CallFunctionOnParams, ReleaseObjectGroupParams};
use crate::cdp::Command;
use crate::error::{Error, Result};
use crate::transport::{Connection, SessionId};

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

/// Execution contexts of the isolated world, by frame id: those a reader already has.
pub type Worlds = FxHashMap<String, i64>;

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
