//! The DOM model of a page's last snapshot, kept for the next snapshot of the same page state.
//!
//! Why: an agent often takes a snapshot of a page that has not changed since its last one (it
//! waited, it scrolled a panel back, an action did nothing). Chromium must still be asked (only
//! its answer says that nothing changed), but the engine need not read that answer again: on a
//! long page, reading the `DOMSnapshot.captureSnapshot` reply, building the model of the DOM and
//! computing the view's geometry and visibility are most of the engine's own work per snapshot,
//! and on the default view they lie between Chromium's two answers (the accessibility nodes
//! asked for depend on them), so the page waits for them too.
//!
//! What decides "the same state": the reply's text, byte for byte (Chromium writes it the same
//! way for the same DOM, layout and styles; a node's backend id changes with its document, so a
//! page loaded again never matches), the layout metrics, the page's URL and the view asked for.
//! Byte equality rather than a hash: a page controls its text and could aim at a weak hash's
//! collisions; comparing two texts of the same length runs at memory speed. The rectangles read for the boxes geometry needs (see
//! [`super::box_rects`]) are read every time and compared too: a panel scrolled changes them
//! and nothing else.
//!
//! What it costs: the last reply's text stays alive with the page (it is reference-counted, so
//! that costs no copy, but it holds the reply's memory until the page's next snapshot). A model
//! and its view are copied into the page only once its state has been seen twice in a row, so a
//! page that changes between every two snapshots (a clock, a feed) pays nothing but the
//! comparison; a page that does not change pays that copy once and then a copy out per snapshot
//! (the pipeline adds the accessibility trees to its model), which costs a small part of what it
//! replaces. The last state of two views is kept (an agent may
//! alternate the default view and the whole page). Snapshots of pages with out-of-process
//! frames, and captures taken to be saved, are not kept.
//!
//! The same holds for a full accessibility tree ([`KeptTrees`]): Chromium writes the same
//! reply, byte for byte, for an unchanged page, and reading it is most of the engine's work on
//! a page taken whole. A frame's tree seen twice in a row is kept
//! and copied out after, which costs a fraction of reading it; and for the accessibility nodes
//! of a long page's view, asked for one by one ([`KeptPartialTrees`]). And, on a small scale,
//! for the frame tree and the layout metrics every snapshot asks for ([`KeptReply`]).
//!
//! Each kept state and tree carries a number no other was given ([`kept_id`]): a capture whose
//! every part is a kept one names them ([`KeptParts`]), so that a snapshot computed from the same
//! parts can be known again without comparing anything more (`Snapshot::repeats`).
//!
//! A kept state takes four to six times its reply's size, so all pages' kept states together are held to [`KEPT_BUDGET`]: an agent with many
//! long pages open keeps what fits and reads the rest again, rather than holding a copy of every
//! page it has seen.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::de::DeserializeOwned;

use crate::analysis::{Expand, ViewFacts};
use crate::cdp::page::{GetFrameTreeReturns, GetLayoutMetricsReturns};
use crate::error::Result;
use crate::model::Model;
use crate::transport::RawJson;

use crate::capture::box_rects::RectBox;
use crate::capture::{AxNodes, AxTreeCapture, DomSnapshot};

/// What a snapshot's DOM model is built from, besides the rectangles read afterwards.
#[derive(Clone)]
pub(crate) struct StateKey {
    /// The `captureSnapshot` reply.
    pub text: RawJson,
    pub metrics: GetLayoutMetricsReturns,
    pub url: String,
    /// The view the geometry and visibility were computed for (`None`: not computed).
    pub view: Option<Expand>,
    /// The part of the page whose boxes' rectangles are read (`None`: all of it).
    pub rects_view: Option<f64>,
}

impl StateKey {
    /// Whether both describe the same view (what is kept for one view is kept apart from
    /// another's).
    fn same_view(&self, other: &StateKey) -> bool {
        self.view == other.view && self.rects_view == other.rects_view
    }

    fn same(&self, other: &StateKey) -> bool {
        self.same_view(other)
            && self.metrics == other.metrics
            && self.url == other.url
            && self.text.as_bytes() == other.text.as_bytes()
    }
}

/// A snapshot's DOM, with its rectangles written, the model built from it and its view's
/// geometry and visibility.
pub(crate) struct KeptState {
    /// Which kept state this is: never given to another (see [`kept_id`]).
    pub id: u64,
    pub snapshot: Arc<DomSnapshot>,
    pub model: Model,
    pub facts: Option<ViewFacts>,
    /// What the capture of this state finds again each time from the kept snapshot, model and
    /// view alone, found once (set when first needed): the boxes whose rectangles are read,
    /// and the accessibility nodes asked for. Finding the boxes reads one style of every box,
    /// a cache miss each: on a long page about a millisecond.
    pub found: KeptFindings,
    /// Its share of [`KEPT_BUDGET`], given back when it is freed.
    pub charge: Charge,
}

/// See [`KeptState::found`].
#[derive(Default)]
pub(crate) struct KeptFindings {
    pub boxes: OnceLock<Vec<RectBox>>,
    pub fetch_set: OnceLock<Vec<Vec<i64>>>,
}

/// A number no other kept state or tree was given: two captures whose parts carry the same
/// numbers were read from the same replies (see `Captured::inputs`). Numbers, not pointers: a
/// freed state's address may be given to the next one.
pub(crate) fn kept_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A capture's DOM state and accessibility trees, each one the page kept, by their
/// [`kept_id`]s: two captures with the same parts read the same replies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptParts {
    pub state: u64,
    /// Its renderer's trees: the main frame's first.
    pub trees: Vec<u64>,
}

/// How much memory all pages' kept states may take together, as estimated by [`Charge`].
pub(crate) const KEPT_BUDGET: usize = 512 << 20;

/// What a kept state is estimated to take per byte of its reply (measured: 4 to 6 over the
/// recorded pages, the most for the smallest; its reply's text, held by its key, is one more).
const KEPT_PER_REPLY_BYTE: usize = 7;

/// Memory held by kept states, against a limit.
pub(crate) struct Budget {
    used: AtomicUsize,
    limit: usize,
}

/// The budget every page's kept states share.
static KEPT: Budget = Budget::new(KEPT_BUDGET);

impl Budget {
    const fn new(limit: usize) -> Budget {
        Budget {
            used: AtomicUsize::new(0),
            limit,
        }
    }

    /// A share of `bytes`, if that much is left.
    fn take(&'static self, bytes: usize) -> Option<Charge> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .ok()
            .map(|_| Charge {
                budget: self,
                bytes,
            })
    }
}

/// A kept state's share of a [`Budget`], given back on drop.
pub(crate) struct Charge {
    budget: &'static Budget,
    bytes: usize,
}

impl Charge {
    /// The share a state built from `key`'s reply takes, if the budget has room for it.
    pub fn for_state(key: &StateKey) -> Option<Charge> {
        KEPT.take(key.text.len().saturating_mul(KEPT_PER_REPLY_BYTE))
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

impl KeptState {
    /// Whether `snapshot` (read from the same text) holds the same rectangles as the kept one.
    pub fn same_rects(&self, snapshot: &DomSnapshot) -> bool {
        // The capture of an unchanged page holds the kept snapshot itself.
        std::ptr::eq(&*self.snapshot, snapshot)
            || self.snapshot.documents.len() == snapshot.documents.len()
                && self
                    .snapshot
                    .documents
                    .iter()
                    .zip(&snapshot.documents)
                    .all(|(a, b)| {
                        a.layout.client_rects == b.layout.client_rects
                            && a.layout.scroll_rects == b.layout.scroll_rects
                    })
    }
}

/// What the last snapshot of a page found (see the module docs). One per page session; cheap to
/// clone (clones share it).
#[derive(Clone, Default)]
pub struct KeptModel {
    /// The last state of each view, the most recent last.
    last: Arc<Mutex<Vec<Last>>>,
    /// How many snapshots used a kept state: what shows, in tests and benches, that the work
    /// this saves is saved.
    reused: Arc<AtomicU64>,
    trees: KeptTrees,
    partial: KeptPartialTrees,
    /// The kept state and trees (their [`kept_id`]s) last found to be of one state of the page
    /// (see `live::mixes_states`).
    consistent: Arc<Mutex<Option<KeptParts>>>,
    frame_tree: KeptReply<GetFrameTreeReturns>,
    metrics: KeptReply<GetLayoutMetricsReturns>,
}

/// How many views' states a page keeps: an agent that alternates two (the default view and the
/// whole page) still finds each unchanged.
const VIEWS: usize = 2;

impl std::fmt::Debug for KeptModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (views, kept, bytes) = self
            .last
            .lock()
            .map(|last| {
                let states = || last.iter().filter_map(|l| l.state.as_ref());
                (
                    last.len(),
                    states().count(),
                    states().map(|s| s.charge.bytes).sum::<usize>(),
                )
            })
            .unwrap_or((0, 0, 0));
        f.debug_struct("KeptModel")
            .field("views", &views)
            .field("kept", &kept)
            .field("estimated_bytes", &bytes)
            .field("reused", &self.reused())
            .finish()
    }
}

struct Last {
    key: StateKey,
    /// Kept once the state was seen twice in a row.
    state: Option<Arc<KeptState>>,
}

impl Last {
    /// Whether what it keeps is worth freeing on a thread of its own.
    fn large(&self) -> bool {
        self.state
            .as_ref()
            .is_some_and(|s| s.model.nodes.len() >= crate::parallel::LARGE_PAGE_NODES)
    }
}

/// How a snapshot's state compares with the last one's.
pub(crate) enum Seen {
    /// Another state: read it.
    New,
    /// The last state, seen once before: read it, and keep what is built from it.
    Again,
    /// The last state, kept.
    Kept(Arc<KeptState>),
}

impl KeptModel {
    /// How `key` compares with the last state.
    pub(crate) fn look(&self, key: &StateKey) -> Seen {
        let Ok(last) = self.last.lock() else {
            return Seen::New;
        };
        match last.iter().find(|l| l.key.same(key)) {
            Some(last) => match &last.state {
                Some(state) => Seen::Kept(state.clone()),
                None => Seen::Again,
            },
            None => Seen::New,
        }
    }

    /// Records the state of a snapshot that was read (`Seen::New`: its key alone; `Seen::Again`:
    /// what was built from it too), in place of its view's last.
    pub(crate) fn record(&self, key: StateKey, state: Option<KeptState>) {
        let mut old = Vec::new();
        if let Ok(mut last) = self.last.lock() {
            let (gone, kept): (Vec<Last>, Vec<Last>) = std::mem::take(&mut *last)
                .into_iter()
                .partition(|l| l.key.same_view(&key));
            *last = kept;
            old = gone;
            if last.len() >= VIEWS {
                old.push(last.remove(0));
            }
            last.push(Last {
                key,
                state: state.map(Arc::new),
            });
        }
        // A long page's model is hundreds of thousands of allocations: freed off the
        // snapshot's path, and not under the lock. A small page's costs less than a thread.
        let large = old.iter().any(Last::large);
        crate::parallel::drop_aside(old, large);
    }

    /// The page's kept accessibility trees.
    pub(crate) fn trees(&self) -> &KeptTrees {
        &self.trees
    }

    /// The page's kept accessibility nodes of a view (`getPartialAXTree`).
    pub(crate) fn partial_trees(&self) -> &KeptPartialTrees {
        &self.partial
    }

    /// The page's last frame tree (`Page.getFrameTree`, asked twice per snapshot).
    pub(crate) fn frame_tree(&self) -> &KeptReply<GetFrameTreeReturns> {
        &self.frame_tree
    }

    /// The page's last layout metrics (`Page.getLayoutMetrics`).
    pub(crate) fn metrics(&self) -> &KeptReply<GetLayoutMetricsReturns> {
        &self.metrics
    }

    /// Whether the kept state and trees of `parts` were found to be of one state before.
    pub(crate) fn found_consistent(&self, parts: &KeptParts) -> bool {
        self.consistent
            .lock()
            .is_ok_and(|c| c.as_ref() == Some(parts))
    }

    /// Notes that the kept state and trees of `parts` are of one state.
    pub(crate) fn note_consistent(&self, parts: KeptParts) {
        if let Ok(mut c) = self.consistent.lock() {
            *c = Some(parts);
        }
    }

    /// Counts a snapshot that used a kept state.
    pub(crate) fn note_reused(&self) {
        self.reused.fetch_add(1, Ordering::Relaxed);
    }

    /// How many snapshots used a kept state so far.
    pub(crate) fn reused(&self) -> u64 {
        self.reused.load(Ordering::Relaxed)
    }

    /// Forgets every state (a snapshot that could not be kept: out-of-process frames, a
    /// snapshot taken again with every rectangle).
    pub(crate) fn forget(&self) {
        let old = match self.last.lock() {
            Ok(mut last) => std::mem::take(&mut *last),
            Err(_) => Vec::new(),
        };
        let large = old.iter().any(Last::large);
        crate::parallel::drop_aside(old, large);
    }
}

/// The last reply of one small call a snapshot makes every time (the frame tree, the layout
/// metrics) and what it was read as.
///
/// Why: an unchanged page answers these with the same bytes every time, and reading them (a
/// frame tree has a dozen strings) costs more than copying what they were read as; on a small
/// page that reading is a noticeable part of the engine's work per snapshot. Equal bytes are
/// equal values, so a copy is exactly what reading them again would give.
pub(crate) struct KeptReply<T> {
    last: Arc<Mutex<Option<(RawJson, T)>>>,
}

impl<T> Clone for KeptReply<T> {
    fn clone(&self) -> Self {
        KeptReply {
            last: Arc::clone(&self.last),
        }
    }
}

impl<T> Default for KeptReply<T> {
    fn default() -> Self {
        KeptReply {
            last: Arc::new(Mutex::new(None)),
        }
    }
}

impl<T: Clone + DeserializeOwned> KeptReply<T> {
    /// `reply` read as `T` (`what`: the call, for errors): a copy of the last one when its
    /// bytes are the same, else read, and kept.
    pub(crate) fn read(&self, reply: RawJson, what: &str) -> Result<T> {
        if let Ok(last) = self.last.lock() {
            if let Some((text, value)) = last.as_ref() {
                if text.as_bytes() == reply.as_bytes() {
                    return Ok(value.clone());
                }
            }
        }
        let value: T = reply.parse(what)?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some((reply, value.clone()));
        }
        Ok(value)
    }
}

/// The last full accessibility tree read for each of a page's frames (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct KeptTrees {
    last: Arc<Mutex<Vec<LastTree>>>,
    reused: Arc<AtomicU64>,
}

struct LastTree {
    /// The frame asked for (`None`: the page's main frame).
    frame: Option<String>,
    /// Its reply.
    text: RawJson,
    /// Its nodes, once the reply was seen twice in a row, and their [`kept_id`].
    nodes: Option<(AxNodes, Charge, u64)>,
}

/// How many frames' trees a page keeps (the main frame's and its same-process frames').
const TREES: usize = 8;

/// What a kept tree is estimated to take per byte of its reply (its nodes take a quarter to a
/// half of it; the reply itself, which the tree keeps alive, the rest).
const TREE_PER_REPLY_BYTE: usize = 2;

impl KeptTrees {
    /// The nodes of `text`, the reply for `frame`, when that tree is kept, and its [`kept_id`].
    pub(crate) fn look(&self, frame: Option<&str>, text: &RawJson) -> Option<(AxNodes, u64)> {
        let last = self.last.lock().ok()?;
        let nodes = last
            .iter()
            .find(|l| l.frame.as_deref() == frame && l.text.as_bytes() == text.as_bytes())?
            .nodes
            .as_ref()
            .map(|(nodes, _, id)| (nodes.clone(), *id))?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        Some(nodes)
    }

    /// Records the tree read from `text` for `frame`: kept when the frame's last reply was the
    /// same (and the budget has room), else remembered by its reply alone.
    pub(crate) fn record(&self, frame: Option<String>, text: RawJson, nodes: &AxNodes) {
        let mut old = Vec::new();
        if let Ok(mut last) = self.last.lock() {
            let at = last.iter().position(|l| l.frame == frame);
            let again = at.is_some_and(|k| last[k].text.as_bytes() == text.as_bytes());
            if let Some(k) = at {
                old.push(last.remove(k));
            } else if last.len() >= TREES {
                old.push(last.remove(0));
            }
            let charge = again
                .then(|| KEPT.take(text.len().saturating_mul(TREE_PER_REPLY_BYTE)))
                .flatten();
            last.push(LastTree {
                frame,
                nodes: charge.map(|charge| (nodes.clone(), charge, kept_id())),
                text,
            });
        }
        drop(old);
    }

    /// How many trees were copied out rather than read.
    pub(crate) fn reused(&self) -> u64 {
        self.reused.load(Ordering::Relaxed)
    }
}

/// The accessibility nodes last read, one `Accessibility.getPartialAXTree` per node, for the
/// view of a page's own renderer, and the trees assembled from them (see the module docs: the
/// same holds for the nodes of a view as for a full tree). Kept once the same nodes were asked
/// for twice in a row and answered with the same bytes each time, and only when no parent had
/// to be asked for afterwards (the same replies then ask for none again).
#[derive(Clone, Default)]
pub(crate) struct KeptPartialTrees {
    last: Arc<Mutex<Option<LastPartial>>>,
}

struct LastPartial {
    /// The nodes asked for, in order.
    ids: Vec<i64>,
    /// Their replies.
    replies: Vec<RawJson>,
    /// The trees assembled, once seen twice in a row, and their [`kept_id`].
    trees: Option<(Vec<AxTreeCapture>, Charge, u64)>,
}

impl LastPartial {
    fn same(&self, ids: &[i64], replies: &[RawJson]) -> bool {
        self.ids == ids
            && self.replies.len() == replies.len()
            && self
                .replies
                .iter()
                .zip(replies)
                .all(|(a, b)| a.as_bytes() == b.as_bytes())
    }
}

impl KeptPartialTrees {
    /// The trees of `replies`, the answers for `ids`, when they are kept, and their
    /// [`kept_id`].
    pub(crate) fn look(
        &self,
        ids: &[i64],
        replies: &[RawJson],
    ) -> Option<(Vec<AxTreeCapture>, u64)> {
        let last = self.last.lock().ok()?;
        let last = last.as_ref().filter(|l| l.same(ids, replies))?;
        last.trees
            .as_ref()
            .map(|(trees, _, id)| (trees.clone(), *id))
    }

    /// Records the trees assembled from `replies` for `ids`, with no parent asked for after
    /// them: kept when the last ones were the same (and the budget has room).
    pub(crate) fn record(&self, ids: Vec<i64>, replies: Vec<RawJson>, trees: &[AxTreeCapture]) {
        let mut old = None;
        if let Ok(mut last) = self.last.lock() {
            let again = last.as_ref().is_some_and(|l| l.same(&ids, &replies));
            let bytes: usize = replies.iter().map(RawJson::len).sum();
            let charge = again
                .then(|| KEPT.take(bytes.saturating_mul(TREE_PER_REPLY_BYTE)))
                .flatten();
            old = last.replace(LastPartial {
                ids,
                replies,
                trees: charge.map(|charge| (trees.to_vec(), charge, kept_id())),
            });
        }
        drop(old);
    }

    /// Forgets what was read (trees asked for their parents too, which are not kept).
    pub(crate) fn forget(&self) {
        let old = self.last.lock().ok().and_then(|mut last| last.take());
        drop(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::tests::fixture_json;
    use crate::capture::Capture;
    use tokio_tungstenite::tungstenite::Bytes;

    fn key(capture: &Capture, text: &str) -> StateKey {
        StateKey {
            text: RawJson::new(Bytes::from(text.to_string()), 0..text.len()),
            metrics: capture.layout_metrics.clone(),
            url: capture.url.clone(),
            view: Some(Expand::Viewport),
            rects_view: Some(0.0),
        }
    }

    fn state(capture: &Capture) -> KeptState {
        static UNBOUNDED: Budget = Budget::new(usize::MAX);
        let model = Model::from_dom_snapshots(capture).expect("a model");
        let facts = Some(ViewFacts::new(&model, Expand::Viewport));
        KeptState {
            id: kept_id(),
            snapshot: capture.dom_snapshot.clone(),
            model,
            facts,
            found: KeptFindings::default(),
            charge: UNBOUNDED.take(1).expect("room"),
        }
    }

    /// A kept reply gives what reading the reply gives, whatever came before: the same bytes
    /// copied, other bytes (even as long) read, and a reply that cannot be read refused without
    /// losing the one kept.
    #[test]
    fn a_kept_reply_reads_as_its_bytes_read() {
        let raw = |text: &str| RawJson::new(Bytes::from(text.to_string()), 0..text.len());
        let tree = |id: &str, loader: &str| {
            format!(
                r#"{{"frameTree":{{"frame":{{"id":"{id}","loaderId":"{loader}","url":"about:blank","domainAndRegistry":"","securityOrigin":"null","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]}}}}}}"#
            )
        };
        let kept = KeptReply::<GetFrameTreeReturns>::default();
        let what = "Page.getFrameTree";
        let loader = |text: &str| {
            kept.read(raw(text), what)
                .map(|t| t.frame_tree.frame.loader_id)
        };
        let (a, b) = (tree("F", "AAAA"), tree("F", "BBBB"));
        assert_eq!(a.len(), b.len());
        for (text, expected) in [(&a, "AAAA"), (&a, "AAAA"), (&b, "BBBB"), (&a, "AAAA")] {
            assert_eq!(loader(text).expect("read"), expected);
        }
        assert!(loader(r#"{"frameTree":7}"#).is_err());
        assert_eq!(loader(&a).expect("read"), "AAAA");
    }

    /// A frame's tree is kept once its reply was seen twice in a row, and only for that reply
    /// and that frame.
    #[test]
    fn a_tree_is_kept_once_its_reply_is_seen_twice() {
        let capture = Capture::from_json(&fixture_json("sign-in.json.gz")).expect("a capture");
        let nodes = &capture.ax_trees.first().expect("a tree").nodes;
        let raw = |text: &str| RawJson::new(Bytes::from(text.to_string()), 0..text.len());
        let (a, b) = (raw(r#"{"nodes":[1]}"#), raw(r#"{"nodes":[2]}"#));
        let kept = KeptTrees::default();
        assert!(kept.look(None, &a).is_none());
        kept.record(None, a.clone(), nodes);
        assert!(kept.look(None, &a).is_none(), "seen once");
        kept.record(None, a.clone(), nodes);
        let (copied, id) = kept.look(None, &a).expect("kept");
        assert_eq!(copied.len(), nodes.len());
        assert_eq!(kept.look(None, &a).map(|(_, again)| again), Some(id));
        assert_eq!(kept.reused(), 2);
        assert!(kept.look(None, &b).is_none(), "another reply");
        assert!(kept.look(Some("child"), &a).is_none(), "another frame");
        // Another reply for the frame replaces what was kept.
        kept.record(None, b.clone(), nodes);
        assert!(kept.look(None, &a).is_none());
        assert!(kept.look(None, &b).is_none());
    }

    /// A share is given only while the budget has room, and given back when dropped.
    #[test]
    fn the_budget_holds_what_fits_and_gets_back_what_is_freed() {
        static BUDGET: Budget = Budget::new(100);
        let a = BUDGET.take(60).expect("room for 60");
        assert!(BUDGET.take(41).is_none());
        let b = BUDGET.take(40).expect("room for 40 more");
        assert!(BUDGET.take(1).is_none());
        drop(a);
        let c = BUDGET.take(60).expect("room again");
        drop((b, c));
        assert_eq!(BUDGET.used.load(Ordering::Acquire), 0);
        assert!(BUDGET.take(usize::MAX).is_none());
    }

    /// A state is kept once seen twice in a row, and only for a key equal in every part.
    #[test]
    fn a_state_is_kept_once_seen_twice_and_only_for_the_same_key() {
        let capture = Capture::from_json(&fixture_json("sign-in.json.gz")).expect("a capture");
        let text = serde_json::to_string(&capture.dom_snapshot).expect("json");
        let kept = KeptModel::default();
        let a = key(&capture, &text);
        assert!(matches!(kept.look(&a), Seen::New));
        kept.record(a.clone(), None);
        assert!(matches!(kept.look(&a), Seen::Again));
        kept.record(a.clone(), Some(state(&capture)));
        assert!(matches!(kept.look(&a), Seen::Kept(_)));

        // One byte of the reply, the metrics, the URL, the view: each another state.
        let at = text.len() / 2
            + text[text.len() / 2..]
                .find(|c: char| c.is_ascii_digit())
                .expect("a digit");
        let digit = if &text[at..=at] == "1" { "2" } else { "1" };
        let mut other = text.clone();
        other.replace_range(at..=at, digit);
        let b = key(&capture, &other);
        assert_eq!(a.text.len(), b.text.len());
        assert!(matches!(kept.look(&b), Seen::New));
        let mut c = a.clone();
        c.metrics.css_layout_viewport.page_y += 1;
        assert!(matches!(kept.look(&c), Seen::New));
        let mut d = a.clone();
        d.url.push('#');
        assert!(matches!(kept.look(&d), Seen::New));
        let mut e = a.clone();
        e.view = Some(Expand::All);
        assert!(matches!(kept.look(&e), Seen::New));
        let mut f = a.clone();
        f.rects_view = None;
        assert!(matches!(kept.look(&f), Seen::New));

        // Another view's state is kept beside this one; a third view's pushes out the oldest.
        kept.record(e.clone(), None);
        assert!(matches!(kept.look(&a), Seen::Kept(_)));
        assert!(matches!(kept.look(&e), Seen::Again));
        kept.record(f.clone(), None);
        assert!(matches!(kept.look(&a), Seen::New));
        assert!(matches!(kept.look(&e), Seen::Again));
        assert!(matches!(kept.look(&f), Seen::Again));

        kept.forget();
        assert!(matches!(kept.look(&e), Seen::New));
    }

    /// The rectangles read after the snapshot are compared too.
    #[test]
    fn other_rectangles_are_another_state() {
        let capture = Capture::from_json(&fixture_json("sign-in.json.gz")).expect("a capture");
        let kept = state(&capture);
        assert!(kept.same_rects(&capture.dom_snapshot));
        // Read again from the same text: equal, not the same snapshot.
        assert!(kept.same_rects(&DomSnapshot::clone(&capture.dom_snapshot)));
        let mut scrolled = DomSnapshot::clone(&capture.dom_snapshot);
        let doc = scrolled.documents.first_mut().expect("a document");
        let rows = doc.layout.scroll_rects.as_ref().expect("scroll rectangles");
        let k = (0..rows.len())
            .find(|&k| rows.get(k).is_some_and(|r| r.len() == 4))
            .expect("a box with a scroll rectangle");
        let mut values: Vec<Vec<f64>> = (0..rows.len())
            .map(|i| rows.get(i).map(<[f64]>::to_vec).unwrap_or_default())
            .collect();
        values[k][1] += 10.0;
        doc.layout.scroll_rects = Some(values.into_iter().collect());
        assert!(!kept.same_rects(&scrolled));
    }
}
