//! Taking a capture from a live page: the CDP calls of one snapshot.
//!
//! Why these calls: `Page.getFrameTree` (frame ids and loader ids — document identity),
//! `Page.getLayoutMetrics` (viewport, scroll, device pixel ratio), `DOMSnapshot.captureSnapshot`
//! (DOM, layout, styles, paint order, form state; the only source of geometry) and the
//! accessibility tree (roles and names). Chromium answers calls to one renderer one after
//! another, so a snapshot costs the sum of what it asks for, and the accessibility tree is the
//! largest part of that on a long page. How much of it is asked for is the capture's
//! [`AxScope`]:
//! - **full** (`--expand all`, `verbose`, and recorded captures): `Accessibility.getFullAXTree`
//!   per frame, written right behind the snapshot so their round trips overlap. A recorded capture
//!   ([`capture_page`]) asks for every DOM rectangle (`includeDOMRects`); a live snapshot reads
//!   those of the boxes geometry needs on their own, which costs Chromium far less (see
//!   [`super::box_rects`]);
//! - **viewport** (the default view, `--expand PX`): the snapshot first, without DOM rects (the
//!   few boxes geometry needs are read on their own, see [`super::box_rects`]), then
//!   `Accessibility.getPartialAXTree` for only the DOM nodes the render can print (see
//!   [`super::scope`]), all sent at once, rebuilt into trees by [`crate::capture::ax_partial`]. Where
//!   that costs Chromium more than the whole page would ([`AxFetch`]: a page at most three views
//!   large, decided from `Page.getLayoutMetrics` read with the first frame tree; a view holding
//!   a large share of the nodes), the whole page or the full trees are taken instead;
//! - **subtree** (a snapshot with `uid`): as a viewport scope, the snapshot whole (it has no
//!   subtree option), then the accessibility nodes of the element's subtree and its ancestors
//!   only (see [`super::scope`]), with every box's rectangles a whole page needs, and the same
//!   two ways back to the full trees;
//! - **none** (an extraction): the whole page's snapshot as for a full scope, with no
//!   accessibility call at all.
//!
//! Round trips: Chromium answers the calls of one session in the order it receives them, so a
//! call that must be answered after another need not wait for that reply, only be written after
//! it ([`Connection::send_now`]); what waits a round trip is a call that needs an answer. So the
//! frame tree, the metrics, the isolated world the boxes' rectangles are read in (see
//! [`super::box_rects`]), the snapshot and the reading of the boxes the page's last capture
//! measured are written together; the full trees as soon as the frame tree and the metrics are
//! in (Chromium is still computing the snapshot then, so they follow it at once: the less time
//! between the two, the less a page changing every few milliseconds changes in between); boxes
//! new to this snapshot are resolved as soon as it is in and their values read once resolved;
//! and the frame trees read again are written behind each renderer's last data request. A page
//! taken whole costs one round trip of its own (the metrics, answered while the snapshot is
//! computed) where it took six, two more when boxes new to the page need rectangles (handles,
//! values), one more when a child frame in the same renderer has boxes to read (its world is
//! created then: a hidden frame would never need one); a viewport scope adds one, the view's
//! accessibility nodes, asked for once the rectangles are in, with the check riding along.
//!
//! The engine's own work between the snapshot's reply and the accessibility request (reading
//! the reply, the model of the DOM, the view's geometry and visibility) is skipped when the page
//! has not changed since its last snapshot: what was built from the same reply is kept with the
//! page (see [`super::kept_model`]).
//!
//! Out-of-process iframes (see [`crate::browser::FrameTarget`]) are other renderers: each is
//! captured over its own session at the same time as the page, and its owner `<iframe>` is found
//! with `DOM.getFrameOwner` on the session that holds it. A frame that cannot be captured (it
//! does not answer in time, it fails) is recorded with the reason instead of being left blank.
//!
//! A snapshot must never mix two states of a page. Page scripts run between any two CDP calls,
//! so every attempt checks, after the heavy calls:
//! - the frame tree is read again, written once every data request of the capture is written and
//!   so answered after each renderer's last one (a renderer asked for more afterwards — a
//!   snapshot taken again, more accessibility parents — is read again once that is answered): a
//!   frame whose loader id changed loaded a new document;
//! - `Page.frameNavigated` / `DOM.documentUpdated` arrived meanwhile (subscribed before; the
//!   page's DOM domain is enabled when it is attached, so a new document is always reported);
//! - the main frame has a document at all (mid-navigation or in a redirect chain it may not);
//! - the DOM snapshot and the accessibility tree describe the same DOM ([`mixes_states`]): the
//!   AX tree names no node the snapshot lacks, and its root is named by the snapshot's title;
//!   with a viewport scope, a node the snapshot listed that Chromium no longer knows when its
//!   accessibility node is asked for also means the DOM changed in between.
//!
//! A change is retried a bounded number of times (three attempts in all; only a navigation
//! waits a moment before the next). What the last attempt finds decides the answer:
//! - the page's own document changed (a navigation or redirect in flight): the capture fails
//!   with the retryable `PAGE_NAVIGATING`, saying what was seen;
//! - the page's DOM changed under the same document (a feed, a ticker, a chat: pages that never
//!   stop changing, where another attempt meets the same race): the capture keeps what the DOM
//!   snapshot and the accessibility tree agree on (see [`super::agreement`]), is marked
//!   `consistent: false` and counts the accessibility nodes it left out — never a navigation;
//! - only an iframe changed (ad frames reload on timers): it is returned with
//!   `consistent: false` rather than failing the whole page for one frame.

use std::cell::OnceCell;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::future::{join_all, BoxFuture, FutureExt};
use rustc_hash::{FxHashMap, FxHashSet};

use super::agreement::{agreeing_nodes, holds_user_agent_tree};
use super::box_rects::{read_with_kept, resolve_boxes, KeptBoxes, KeptValues, Worlds};
use super::captured::{Captured, DomModel, Inputs};
use super::kept_model::{
    kept_id, Charge, KeptFindings, KeptModel, KeptPartialTrees, KeptParts, KeptState, KeptTrees,
    Seen, StateKey,
};
use super::scope::{fetch_set, subtree_fetch_set, AxFetch};
use super::Kept;
use crate::analysis::{Expand, ViewFacts};
use crate::browser::{create_world, FrameTarget, Page};
use crate::capture::ax_partial;
use crate::capture::box_rects::{boxes_needing_rects, write_rects, RectBox, View};
use crate::capture::{
    AxKeyRef, AxNodeRef, AxNodes, AxScope, AxTreeCapture, Capture, CaptureDomSnapshot, DomSnapshot,
    FullAxTree, GetFullAxTree, GetPartialAxTree, OopifCapture, UncapturedFrame, COMPUTED_STYLES,
    FORMAT_VERSION,
};
use crate::cdp::dom::{DocumentUpdatedEvent, GetFrameOwnerParams};
use crate::cdp::dom_snapshot::CaptureSnapshotParams;
use crate::cdp::page::{
    FrameNavigatedEvent, FrameTree, GetFrameTreeParams, GetFrameTreeReturns,
    GetLayoutMetricsParams, GetLayoutMetricsReturns,
};
use crate::cdp::{Command, Event};
use crate::error::{Error, ErrorCode, Result};
use crate::model::Model;
use crate::transport::{Connection, RawJson, SessionId};

/// How many times a page is captured at most when it changes under the capture: the first
/// attempt and two more.
const MAX_ATTEMPTS: usize = 3;
/// How long an out-of-process iframe may take to answer one call before it is reported as not
/// captured (a hung frame must not hold the whole page's snapshot for the default timeout).
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);
/// How many more rounds of `getPartialAXTree` may look for parents the replies name but the
/// DOM ancestry did not give (`aria-owns` chains).
const PARENT_ROUNDS: usize = 3;
/// How many more rounds of `getPartialAXTree` may look for the children of a subtree's nodes
/// that its DOM did not give (what the DOM snapshot leaves out: a form control's inner editor,
/// a date field's parts, nested a level or two each).
const CHILD_ROUNDS: usize = 6;
/// How many rounds may ask for the relatives of a subtree's nodes whose children have no DOM
/// node (generated content: a pseudo-element and its text, two levels).
const RELATIVE_ROUNDS: usize = 3;

/// Captures everything any snapshot of `page` needs: every frame's full accessibility tree
/// and every box's DOM rectangles, JavaScript-free (what a recorded capture holds, renderable
/// with any options). It uses nothing the page kept from its snapshots, and keeps nothing.
pub async fn capture_everything(page: &Page) -> Result<Capture> {
    let kept = Kept::default();
    let captured = capture(page, &kept, AxScope::Full, AxFetch::Auto, Rects::Every).await?;
    Ok(captured.into_capture())
}

/// Captures what a snapshot viewed with `scope` needs (see [`AxScope::for_view`]), with the
/// model of its DOM when a viewport scope built one to choose what to ask for. `kept`: what
/// the page's last snapshots kept for this one (and what this one keeps for the next).
pub async fn capture_for_view(page: &Page, kept: &Kept, scope: AxScope) -> Result<Captured> {
    capture_for_view_fetching(page, kept, scope, AxFetch::Auto).await
}

/// [`capture_for_view`], choosing how a viewport scope's accessibility nodes are fetched.
pub async fn capture_for_view_fetching(
    page: &Page,
    kept: &Kept,
    scope: AxScope,
    fetch: AxFetch,
) -> Result<Captured> {
    capture(page, kept, scope, fetch, Rects::Needed).await
}

/// Which DOM rectangles a capture asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rects {
    /// Every box's (`includeDOMRects`).
    Every,
    /// Only those of the boxes geometry needs (see [`super::box_rects`]): for a viewport scope
    /// those in the view, for a full one all of them.
    Needed,
}

async fn capture(
    page: &Page,
    kept: &Kept,
    scope: AxScope,
    fetch: AxFetch,
    rects: Rects,
) -> Result<Captured> {
    let mut last_change = Change::Mixed(String::new());
    let mut navigations = 0;
    for attempt in 0..MAX_ATTEMPTS {
        // A navigation gets a moment to commit; a DOM that changes under the same document is
        // read again at once (waiting would only let it change more).
        if attempt > 0 && matches!(last_change, Change::Navigated(_)) {
            tokio::time::sleep(Duration::from_millis(25 * attempt as u64)).await;
        }
        let last = attempt + 1 == MAX_ATTEMPTS;
        // On the heap: an attempt keeps many requests in flight at once, and its state would
        // otherwise sit inside every caller's future (on the stack of a thread blocking on one).
        let once = Box::pin(capture_once(page, kept, last, scope, fetch, rects));
        last_change = match once.await {
            Ok(Attempt::Done(capture)) => return Ok(*capture),
            Ok(Attempt::Changed(change)) => change,
            Err(e) if is_missing_document(&e) => Change::Navigated(format!(
                "the page had no document for a moment: {}",
                e.message()
            )),
            Err(e) => return Err(e),
        };
        navigations += usize::from(matches!(last_change, Change::Navigated(_)));
    }
    Err(match last_change {
        Change::Navigated(what) => Error::new(
            ErrorCode::PageNavigating,
            format!(
                "the page navigated while it was read ({what}; {navigations} of \
                 {MAX_ATTEMPTS} attempts saw a navigation); retry once it has loaded"
            ),
        ),
        // The last attempt answers a DOM that changed with what agrees; this is a capture that
        // ended otherwise, never a navigation.
        Change::Mixed(what) => Error::protocol(format!(
            "the page kept changing while it was read ({what}); take the snapshot again"
        )),
    })
}

enum Attempt {
    Done(Box<Captured>),
    Changed(Change),
}

/// Why an attempt was not kept.
enum Change {
    /// The page's own document changed: a navigation, a redirect, no document yet.
    Navigated(String),
    /// The DOM changed under the same document, or a frame changed: what the two replies
    /// agree on is still one state.
    Mixed(String),
}

/// Waits for a snapshot and for the isolated world asked for with it, if one was: a world that
/// could not be created is `None`, and the reading of the boxes then asks for it again.
async fn with_world<S, W, T>(snapshot: S, world: Option<W>) -> (S::Output, Option<T>)
where
    S: std::future::Future,
    W: std::future::Future<Output = Result<T>>,
{
    let world = async {
        match world {
            Some(world) => world.await.ok(),
            None => None,
        }
    };
    tokio::join!(snapshot, world)
}

/// Chromium answers these when a frame has no document yet (mid-navigation, redirects).
fn is_missing_document(e: &Error) -> bool {
    e.code() == ErrorCode::ProtocolError && {
        let m = e.message();
        m.contains("No frame")
            || m.contains("not found")
            || m.contains("Document is not available")
            || m.contains("No document")
            || m.contains("Frame is detached")
    }
}

/// `DOMSnapshot.captureSnapshot` with the engine's styles; `dom_rects`: with every box's
/// client, offset and scroll rectangles (else the few that geometry needs are read afterwards,
/// see [`super::box_rects`]).
fn snapshot_params(dom_rects: bool) -> CaptureDomSnapshot {
    CaptureDomSnapshot(CaptureSnapshotParams {
        computed_styles: COMPUTED_STYLES.iter().map(|s| s.to_string()).collect(),
        include_paint_order: Some(true),
        include_dom_rects: Some(dom_rects),
        include_blended_background_colors: None,
        include_text_color_opacities: None,
    })
}

/// [`snapshot_params`] written now; the reply is read with [`DomSnapshot::from_reply`], the
/// engine's own reader of it (about 1.5 times as fast as the derived one), so it is sent raw.
fn snapshot_now<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    dom_rects: bool,
    timeout: Duration,
) -> impl Future<Output = Result<DomSnapshot>> + Send + use<'a> {
    let reply = snapshot_text_now(conn, session, dom_rects, timeout);
    async move { DomSnapshot::from_reply(&reply.await?) }
}

/// [`snapshot_now`], its reply left unread.
fn snapshot_text_now<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    dom_rects: bool,
    timeout: Duration,
) -> impl Future<Output = Result<RawJson>> + Send + use<'a> {
    // The same two requests every time: built once.
    static PARAMS: OnceLock<[CaptureDomSnapshot; 2]> = OnceLock::new();
    let params = PARAMS.get_or_init(|| [snapshot_params(false), snapshot_params(true)]);
    conn.send_now_unparsed(session, &params[usize::from(dom_rects)], timeout)
}

async fn capture_once(
    page: &Page,
    page_kept: &Kept,
    last: bool,
    scope: AxScope,
    fetch: AxFetch,
    rects: Rects,
) -> Result<Attempt> {
    // Listen before looking, so a navigation during the capture cannot go unseen.
    let mut changes = page.connection().subscribe_methods(
        Some(page.session_id()),
        &[FrameNavigatedEvent::METHOD, DocumentUpdatedEvent::METHOD],
    );
    let conn = page.connection();
    let session = Some(page.session_id());
    let dom_rects = rects == Rects::Every;
    // Written together, in this order, and answered in it: the frame tree and the metrics (how
    // much of the page the view shows decides what else to ask for), the isolated world the
    // boxes' rectangles are read in (its reply is in when the snapshot's is, so the boxes can
    // be resolved at once), the snapshot (it asks the same whatever the metrics say), and the
    // boxes the last capture measured (see `super::box_rects`: ahead of the trees, so their
    // rectangles need not wait for them). The full trees are written as soon as the frame tree
    // is in (a whole scope, or a view the metrics say is best taken whole): Chromium is still
    // computing the snapshot then, so they follow it at once, and the less time between the
    // two, the less the page's scripts can change in between. A viewport scope asks for
    // accessibility nodes once the snapshot says what is in view.
    // What the page kept from its last snapshots; a capture taken to be saved neither uses nor
    // changes its model (its replies' readings are the same whatever the capture).
    let kept_model = page_kept.model.clone();
    let before = frame_tree_now(conn, session, conn.command_timeout(), Some(&kept_model));
    let metrics =
        conn.send_now_unparsed(session, &GetLayoutMetricsParams {}, conn.command_timeout());
    // A page target's main frame has the target's id; the world is asked for again, in the
    // right frame, should the frame tree say otherwise.
    let world_frame = page.target_id().to_string();
    // Not while the page keeps handles in that world (see `super::box_rects`).
    let kept = page_kept.boxes.clone();
    let world = (!dom_rects && !kept.holds(&world_frame))
        .then(|| create_world(conn, session, &world_frame, FRAME_TIMEOUT));
    let snapshot = snapshot_text_now(conn, session, dom_rects, conn.command_timeout());
    let early = (!dom_rects).then(|| kept.read_now(conn, session, FRAME_TIMEOUT));
    let (before, metrics) = tokio::join!(before, metrics);
    let metrics = kept_model
        .metrics()
        .read(metrics?, GetLayoutMetricsParams::METHOD)?;
    let before = before?;
    // The view asked for, kept when a viewport scope is taken whole: its geometry and
    // visibility are then computed while the full trees are.
    let view = scope.view();
    let scope = match scope {
        AxScope::Viewport { expand } if fetch.whole_page(&metrics, expand) => AxScope::Full,
        AxScope::Subtree { .. } if fetch.whole_page(&metrics, 0.0) => AxScope::Full,
        scope => scope,
    };
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let main_frame = before.frame.id.clone();
    let full = scope.is_full();
    // The part of the page whose boxes' rectangles are read: the view grown by this, or all.
    let rects_view = match scope {
        AxScope::Viewport { expand } => Some(expand),
        AxScope::Full | AxScope::Subtree { .. } | AxScope::None => None,
    };
    let kept_trees = (!dom_rects).then(|| kept_model.trees());
    let ax_full = full.then(|| full_trees(conn, session, &frames, None, kept_trees));
    let world = world.filter(|_| world_frame == main_frame);
    let targets = page.frame_targets();
    let parts = join_all(targets.iter().map(|t| frame_part(page, t, full, dom_rects)));
    // The view whose geometry and visibility are computed with the model of the DOM.
    let facts_view = match scope {
        AxScope::Viewport { .. } => Some(view.unwrap_or_default()),
        AxScope::Full | AxScope::Subtree { .. } | AxScope::None => view,
    };
    // The page's own renderer: its snapshot, then the reading of its boxes' rectangles.
    let main = async {
        let (text, world) = with_world(snapshot, world).await;
        let early = match early {
            Some(early) => early.await,
            None => None,
        };
        let text = text?;
        // Only a page with no out-of-process frame, captured with the rectangles it needs, is
        // kept from one snapshot to the next (see `super::kept_model`).
        let key = (!dom_rects && targets.is_empty()).then(|| StateKey {
            text: text.clone(),
            metrics: metrics.clone(),
            url: before.frame.url.clone(),
            view: facts_view,
            rects_view,
        });
        let seen = key.as_ref().map_or(Seen::New, |key| kept_model.look(key));
        let snapshot = match &seen {
            Seen::Kept(state) => Arc::clone(&state.snapshot),
            Seen::New | Seen::Again => Arc::new(DomSnapshot::from_reply(&text)?),
        };
        drop(text);
        if let Some(why) = not_the_page(&snapshot, &main_frame) {
            return Ok(Err(why));
        }
        let reading = if dom_rects {
            Reading::Nothing
        } else {
            let find = || page_boxes(&snapshot, &metrics, rects_view);
            let boxes = match &seen {
                // The same snapshot, metrics and view: the same boxes.
                Seen::Kept(state) => state.found.boxes.get_or_init(find).clone(),
                Seen::New | Seen::Again => find(),
            };
            let worlds: Worlds = world
                .map(|id| (main_frame.clone(), id))
                .into_iter()
                .collect();
            let kept = KeptReading {
                boxes: kept,
                early,
                snapshot: &snapshot,
            };
            let again = conn.command_timeout();
            start_reading(conn, session, boxes, &worlds, again, Some(kept)).await
        };
        Ok(Ok((snapshot, reading, key.zip(Some(seen)))))
    };
    let (main, parts) = tokio::join!(main, parts);
    let (snapshot, main_reading, state) = match main? {
        Ok(main) => main,
        Err(why) => return Ok(Attempt::Changed(Change::Navigated(why))),
    };
    // A snapshot taken again with every rectangle is not the one the key describes.
    let state = state.filter(|_| !matches!(main_reading, Reading::Again(_)));

    let FramesKept {
        kept,
        readings,
        uncaptured,
        mut consistent,
    } = match frames_kept(page, &targets, parts, last) {
        Ok(frames) => frames,
        Err(why) => return Ok(Attempt::Changed(Change::Mixed(why))),
    };

    let mut capture = Capture {
        format: FORMAT_VERSION,
        url: before.frame.url.clone(),
        title: document_title(&snapshot),
        target_id: Some(page.target_id().to_string()),
        computed_styles: computed_styles(),
        frame_tree: None,
        layout_metrics: metrics,
        dom_snapshot: snapshot,
        ax_trees: Vec::new(),
        oopifs: Vec::new(),
        uncaptured_frames: uncaptured,
        consistent: true,
        ax_scope: scope,
    };
    let sessions: Vec<SessionId> = kept.iter().map(|(s, _)| s.clone()).collect();
    capture.oopifs = kept.into_iter().map(|(_, c)| c).collect();

    // The frame trees read again (see the module docs) are written behind the last data request
    // of each renderer: Chromium answers them after it, so they see any navigation that happened
    // while the data was taken. A renderer asked for more after its check (its snapshot taken
    // again, more accessibility parents) is checked again once that is answered.
    let dom_model: Option<DomModel>;
    // The kept numbers of the page's full trees, when each is one the page kept.
    let kept_trees_read: Option<Vec<u64>>;
    let kept_state = match &state {
        Some((_, Seen::Kept(kept))) => Some(kept.clone()),
        _ => None,
    };
    // Whether the model was the kept one, and whether the page's snapshot was taken again
    // with every rectangle once its own could not be read (then not the one the key describes).
    let (reused, retaken);
    // How many of the page's nodes the snapshot listed were gone when their accessibility
    // nodes were asked for.
    let mut main_gone = 0;
    let (checks, late) = match scope {
        // No trees at all are the full scope's path with none asked for.
        AxScope::Full | AxScope::None => {
            // The full trees were asked for with the snapshots; the rectangles come last.
            let checks = write_checks(page, &kept_model, &sessions);
            let ax = async {
                match ax_full {
                    Some(trees) => trees.await,
                    None => Ok(ReadTrees {
                        trees: Vec::new(),
                        kept: None,
                        gone: 0,
                    }),
                }
            };
            // Computing the full trees is the longest wait of a whole-page capture: the model
            // of the DOM (and the view's geometry and visibility, when the view is known) is
            // built meanwhile, so that only the trees' linking is left once they are in. A
            // capture taken to be saved has no use for it.
            let reads = async {
                let late =
                    finish_readings(page, &sessions, &mut capture, main_reading, readings).await?;
                let retaken = late.first().copied().unwrap_or(false);
                let kept = kept_state.as_ref().filter(|_| !retaken);
                let model = match rects {
                    Rects::Every => None,
                    Rects::Needed => Some(dom_model_of(&capture, facts_view, kept)?),
                };
                Ok::<_, Error>((late, model, retaken))
            };
            let (ax, reads, checks) = tokio::join!(ax, reads, checks);
            let ax = ax?;
            capture.ax_trees = ax.trees;
            kept_trees_read = ax.kept;
            let (late, model, taken_again) = reads?;
            retaken = taken_again;
            reused = model.as_ref().is_some_and(DomModel::is_kept);
            dom_model = model;
            (checks, late)
        }
        AxScope::Viewport { .. } | AxScope::Subtree { .. } => {
            let late =
                finish_readings(page, &sessions, &mut capture, main_reading, readings).await?;
            retaken = late.first().copied().unwrap_or(false);
            // The model of the DOM decides what to ask for, and is kept: the snapshot's
            // pipeline adds the answers to it rather than building it again.
            // So are its geometry and visibility, which the analysis would compute again.
            let kept = kept_state.as_ref().filter(|_| !retaken);
            let model = dom_model_of(&capture, facts_view, kept)?;
            let targets = 1 + capture.oopifs.len();
            // The nodes whose children are all asked for, as far as they go: the subtree's.
            let (model, sets, inside, found) = match scope {
                AxScope::Subtree { backend_node_id } => {
                    let set = subtree_fetch_set(model.model(), backend_node_id, targets);
                    (model, set.ids, set.inside, set.found)
                }
                _ => {
                    let model = model.with_facts(view.unwrap_or_default());
                    let find = |m: &DomModel| {
                        m.facts()
                            .map_or_else(Vec::new, |facts| fetch_set(m.model(), facts, targets))
                    };
                    let sets = match &model {
                        DomModel::Kept(state) => {
                            state.found.fetch_set.get_or_init(|| find(&model)).clone()
                        }
                        DomModel::Built(..) => find(&model),
                    };
                    (model, sets, Vec::new(), true)
                }
            };
            reused = model.is_kept();
            dom_model = Some(model);
            let wanted: usize = sets.iter().map(Vec::len).sum();
            if !found || !fetch.node_by_node(wanted, dom_nodes(&capture)) {
                // The view holds much of the page: the full trees cost Chromium less. The
                // capture keeps its viewport scope (its box rectangles cover the view only).
                let main = full_trees(conn, session, &frames, None, kept_trees);
                let others: Vec<_> = sessions
                    .iter()
                    .zip(&capture.oopifs)
                    .map(|(s, o)| {
                        let mut frames = Vec::new();
                        if let Some(tree) = &o.frame_tree {
                            collect_frames(tree, &mut frames, 0);
                        }
                        full_trees(conn, Some(s), &frames, Some(FRAME_TIMEOUT), None)
                    })
                    .collect();
                let checks = write_checks(page, &kept_model, &sessions);
                let (main, others, checks) = tokio::join!(main, join_all(others), checks);
                let main = main?;
                capture.ax_trees = main.trees;
                kept_trees_read = main.kept;
                for (o, trees) in capture.oopifs.iter_mut().zip(others) {
                    match trees {
                        Ok(trees) => o.ax_trees = trees.trees,
                        Err(_) => consistent = false,
                    }
                }
                (checks, Vec::new())
            } else {
                let none = Vec::new();
                let ids = |k: usize| sets.get(k).unwrap_or(&none);
                let within = |k: usize| inside.get(k).unwrap_or(&none);
                let kept_partial = (!dom_rects).then(|| kept_model.partial_trees());
                let main = partial_trees(
                    conn,
                    session,
                    (ids(0).as_slice(), within(0).as_slice()),
                    None,
                    kept_partial,
                );
                let others: Vec<_> = sessions
                    .iter()
                    .enumerate()
                    .map(|(k, s)| {
                        let ask = (ids(k + 1).as_slice(), within(k + 1).as_slice());
                        partial_trees(conn, Some(s), ask, Some(FRAME_TIMEOUT), None)
                    })
                    .collect();
                let checks = write_checks(page, &kept_model, &sessions);
                let ((main, main_late), others, checks) =
                    tokio::join!(main, join_all(others), checks);
                let mut late = vec![main_late];
                let main = main?;
                capture.ax_trees = main.trees;
                kept_trees_read = main.kept;
                main_gone = main.gone;
                for (o, (trees, more)) in capture.oopifs.iter_mut().zip(others) {
                    late.push(more);
                    match trees {
                        Ok(trees) if trees.gone > 0 && !last => {
                            return Ok(Attempt::Changed(Change::Mixed(format!(
                                "frame {}: {} node(s) were removed before they were read",
                                o.frame_id, trees.gone
                            ))))
                        }
                        Ok(trees) => {
                            consistent &= trees.gone == 0;
                            o.ax_trees = trees.trees;
                        }
                        // The frame answered its snapshot but not its tree: shown without
                        // roles, flagged as not taken of one state.
                        Err(_) => consistent = false,
                    }
                }
                (checks, late)
            }
        }
    };

    let (after, frames_after) = check_again(page, &kept_model, &sessions, checks, &late).await;
    let after = after?;
    // A change of the page's own document is retried (and finally fails); a change inside a
    // child frame only is tolerated on the last attempt, marked inconsistent.
    let mut child_change = None;
    if let Some((frame, change)) = document_change(&before, &after) {
        if frame == main_frame {
            return Ok(Attempt::Changed(Change::Navigated(change)));
        }
        child_change = Some(change);
    }
    while let Some(event) = changes.try_next() {
        let child_frame = event
            .parse::<FrameNavigatedEvent>()
            .ok()
            .is_some_and(|e| e.frame.parent_id.is_some());
        if !child_frame {
            let what = format!("its document was replaced: {} arrived", event.method);
            return Ok(Attempt::Changed(Change::Navigated(what)));
        }
        child_change = Some(format!("a frame loaded again: {} arrived", event.method));
    }
    for (o, reply) in capture.oopifs.iter_mut().zip(frames_after) {
        let change = match (reply, &o.frame_tree) {
            (Ok(tree), Some(before)) => {
                let change = document_change(before, &tree).map(|(_, c)| c);
                o.frame_id = tree.frame.id.clone();
                o.frame_tree = Some(tree);
                change
            }
            (Ok(_), None) => None,
            (Err(e), _) => Some(format!("frame {}: {}", o.frame_id, e.message())),
        };
        let change = change.or_else(|| {
            let empty = AxNodes::default();
            let tree = o.ax_trees.first().map_or(&empty, |t| &t.nodes);
            mixes_states(&o.dom_snapshot, tree).map(|why| format!("frame {}: {why}", o.frame_id))
        });
        if let Some(change) = change {
            child_change = Some(change);
        }
    }
    if let Some(change) = child_change {
        if !last {
            return Ok(Attempt::Changed(Change::Mixed(change)));
        }
        consistent = false;
    }
    let empty = AxNodes::default();
    let main_at = capture
        .ax_trees
        .iter()
        .position(|t| t.frame_id == main_frame);
    let main_tree = main_at
        .and_then(|k| capture.ax_trees.get(k))
        .map_or(&empty, |t| &t.nodes);
    // A kept snapshot and kept trees found of one state before still are: the check is a
    // function of the two alone.
    let kept_parts = match (&dom_model, kept_trees_read) {
        (Some(DomModel::Kept(state)), Some(trees)) if !retaken => Some(KeptParts {
            state: state.id,
            trees,
        }),
        _ => None,
    };
    let mut left_out = 0;
    if !kept_parts
        .as_ref()
        .is_some_and(|p| kept_model.found_consistent(p))
    {
        let mixed = mixes_states(&capture.dom_snapshot, main_tree).or_else(|| {
            (main_gone > 0).then(|| {
                format!(
                    "{main_gone} node(s) were removed before their accessibility nodes were read"
                )
            })
        });
        match mixed {
            Some(why) if !last => return Ok(Attempt::Changed(Change::Mixed(why))),
            // The page keeps changing under the same document: what the two replies agree on.
            Some(_) => {
                let agreed =
                    agreeing_nodes(&capture.dom_snapshot, main_tree).map_err(Error::protocol)?;
                if let Some(tree) = main_at.and_then(|k| capture.ax_trees.get_mut(k)) {
                    tree.nodes = agreed.nodes;
                }
                left_out = agreed.left_out + main_gone;
                consistent = false;
            }
            None => {
                if let Some(parts) = &kept_parts {
                    kept_model.note_consistent(parts.clone());
                }
            }
        }
    }
    capture.url = after.frame.url.clone();
    capture.frame_tree = Some(after);
    capture.consistent = consistent;
    // Every part read from what the page kept: the pipeline may find its whole snapshot so.
    let inputs = match kept_parts {
        Some(kept) if consistent && capture.oopifs.is_empty() => capture
            .frame_tree
            .clone()
            .map(|frame_tree| Inputs { kept, frame_tree }),
        _ => None,
    };
    keep(
        &kept_model,
        state.filter(|_| !retaken),
        dom_model.as_ref(),
        &capture.dom_snapshot,
        reused,
        dom_rects,
    );
    let captured = Captured::new(capture, dom_model, inputs).with_left_out(left_out);
    Ok(Attempt::Done(Box::new(captured)))
}

/// The out-of-process frames of a capture, numbered in the order they are kept so owners come
/// first, with the readings of their boxes' rectangles, the frames that could not be captured,
/// and whether every frame kept was taken of one state.
struct FramesKept<'a> {
    kept: Vec<(SessionId, OopifCapture)>,
    readings: Vec<Reading<'a>>,
    uncaptured: Vec<UncapturedFrame>,
    consistent: bool,
}

/// Sorts the outcomes of the page's out-of-process frames (`targets`, in order): a frame whose
/// document changed while it was captured ends the attempt (its change is the error), unless
/// this is the `last` attempt, when it is marked as not taken of one state.
fn frames_kept<'a>(
    page: &Page,
    targets: &[FrameTarget],
    parts: Vec<FrameOutcome<'a>>,
    last: bool,
) -> std::result::Result<FramesKept<'a>, String> {
    let mut consistent = true;
    let mut kept: Vec<(SessionId, OopifCapture)> = Vec::new();
    let mut readings = Vec::new();
    let mut uncaptured = Vec::new();
    for (target, outcome) in targets.iter().zip(parts) {
        let owner_target = if target.parent_session == *page.session_id() {
            Some(0)
        } else {
            kept.iter()
                .position(|(s, _)| *s == target.parent_session)
                .map(|k| k as u32 + 1)
        };
        // Its owner is inside a frame that was not captured: nothing to attach it to.
        let Some(owner_target) = owner_target else {
            continue;
        };
        match outcome {
            FrameOutcome::Gone => {}
            FrameOutcome::Changed(why) if !last => return Err(why),
            FrameOutcome::Changed(_) => consistent = false,
            FrameOutcome::Failed { owner, reason } => {
                if let Some(owner) = owner {
                    uncaptured.push(UncapturedFrame {
                        owner_target,
                        owner_backend_node_id: owner,
                        reason,
                    });
                }
            }
            FrameOutcome::Captured(mut capture, reading) => {
                capture.owner_target = owner_target;
                kept.push((target.session_id.clone(), *capture));
                readings.push(reading);
            }
        }
    }
    Ok(FramesKept {
        kept,
        readings,
        uncaptured,
        consistent,
    })
}

/// What the page keeps of a capture for its next snapshot (see [`super::kept_model`]): `state`,
/// the page's DOM state as the capture found it (`None` when it is not one to keep), `model`
/// the model built from `snapshot`, `reused` whether that model was the kept one.
fn keep(
    kept_model: &KeptModel,
    state: Option<(StateKey, Seen)>,
    model: Option<&DomModel>,
    snapshot: &Arc<DomSnapshot>,
    reused: bool,
    dom_rects: bool,
) {
    match (state, model) {
        (Some((key, Seen::New)), _) => kept_model.record(key, None),
        // Seen twice in a row: kept from now on, if all pages' kept states leave room for it.
        (Some((key, Seen::Again)), Some(model)) => {
            let state = Charge::for_state(&key).map(|charge| KeptState {
                id: kept_id(),
                snapshot: Arc::clone(snapshot),
                model: model.model().clone(),
                facts: model.facts().cloned(),
                found: KeptFindings::default(),
                charge,
            });
            kept_model.record(key, state)
        }
        (Some((_, Seen::Kept(_))), _) if reused => kept_model.note_reused(),
        // The same text, but other rectangles (a panel scrolled): kept again if seen again.
        (Some((key, Seen::Kept(_))), _) => kept_model.record(key, None),
        // A capture taken to be saved leaves what was kept alone.
        _ if dom_rects => {}
        _ => kept_model.forget(),
    }
}

/// The model of the capture's DOM snapshots and its view's geometry and visibility (`view`:
/// the view they are computed for, if any): `kept` when it holds the same rectangles (see
/// [`super::kept_model`]; the rest of its state is the capture's).
fn dom_model_of(
    capture: &Capture,
    view: Option<Expand>,
    kept: Option<&Arc<KeptState>>,
) -> Result<DomModel> {
    if let Some(kept) = kept.filter(|k| k.same_rects(&capture.dom_snapshot)) {
        return Ok(DomModel::Kept(Arc::clone(kept)));
    }
    let model = Model::from_dom_snapshots(capture)?;
    let facts = view.map(|expand| ViewFacts::new(&model, expand));
    Ok(DomModel::Built(model, facts))
}

/// The engine's computed styles, as a capture records them.
fn computed_styles() -> Vec<String> {
    COMPUTED_STYLES.iter().map(|s| s.to_string()).collect()
}

/// Why the page's snapshot cannot be of the page's current document, if it cannot.
fn not_the_page(snapshot: &DomSnapshot, main_frame: &str) -> Option<String> {
    let Some(doc) = snapshot.documents.first() else {
        return Some("the page has no document yet".into());
    };
    let frame = usize::try_from(doc.frame_id)
        .ok()
        .and_then(|i| snapshot.strings.get(i));
    frame
        .is_some_and(|f| f != main_frame)
        .then(|| "the page's document belongs to another frame".into())
}

/// How many DOM nodes a capture's snapshots hold.
fn dom_nodes(capture: &Capture) -> usize {
    capture.dom_snapshot.node_count()
        + capture
            .oopifs
            .iter()
            .map(|o| o.dom_snapshot.node_count())
            .sum::<usize>()
}

/// The boxes of the page's own snapshot whose client and scroll rectangles geometry needs
/// (see [`super::box_rects`]): those in the view grown by `expand`, all of them for `None`.
fn page_boxes(
    snapshot: &DomSnapshot,
    metrics: &GetLayoutMetricsReturns,
    expand: Option<f64>,
) -> Vec<RectBox> {
    let top = snapshot.documents.first();
    let viewport = &metrics.css_layout_viewport;
    let view = expand.map(|expand| View {
        x: top.and_then(|d| d.scroll_offset_x).unwrap_or(0.0),
        y: top.and_then(|d| d.scroll_offset_y).unwrap_or(0.0),
        width: viewport.client_width as f64,
        height: viewport.client_height as f64,
        expand,
    });
    boxes_needing_rects(snapshot, &computed_styles(), view)
}

/// The reading of one renderer's box rectangles (see [`super::box_rects`]), its last requests
/// written.
enum Reading<'a> {
    /// Nothing to read: the snapshot has every rectangle, or no box needs one.
    Nothing,
    /// The values of these boxes, asked for.
    Sent(Vec<RectBox>, BoxFuture<'a, Result<Vec<[f64; 8]>>>),
    /// A box could not be resolved: the snapshot taken again with every rectangle, asked for.
    Again(BoxFuture<'a, Result<DomSnapshot>>),
}

/// The page's kept box handles (see [`super::box_rects`]), what was read through them right
/// behind its snapshot, and that snapshot.
struct KeptReading<'s> {
    boxes: KeptBoxes,
    early: Option<KeptValues>,
    snapshot: &'s DomSnapshot,
}

/// Starts reading the rectangles of one renderer's `boxes`: resolves them (in the worlds of
/// `worlds`, or new ones) and writes the reads, or, when that fails, asks for the snapshot
/// again with every rectangle (`again`: that call's timeout). `kept`: for the page's own
/// renderer, its kept handles; only the boxes those do not cover are resolved.
async fn start_reading<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    boxes: Vec<RectBox>,
    worlds: &Worlds,
    again: Duration,
    kept: Option<KeptReading<'_>>,
) -> Reading<'a> {
    if boxes.is_empty() {
        return Reading::Nothing;
    }
    let values = match kept {
        Some(k) => {
            let could_use = || boxes_needing_rects(k.snapshot, &computed_styles(), None).len();
            let (early, timeout) = (k.early, FRAME_TIMEOUT);
            read_with_kept(
                &k.boxes, early, conn, session, &boxes, could_use, worlds, timeout,
            )
            .await
        }
        None => resolve_boxes(conn, session, &boxes, worlds, FRAME_TIMEOUT)
            .await
            .map(|resolved| resolved.read(conn, session, FRAME_TIMEOUT).boxed()),
    };
    match values {
        Ok(values) => Reading::Sent(boxes, values),
        Err(_) => Reading::Again(snapshot_now(conn, session, true, again).boxed()),
    }
}

/// Waits for one renderer's reading and writes the values into its `snapshot`; when they could
/// not be read, the snapshot is taken again with every rectangle (`again`: that call's
/// timeout). Returns whether a request was written after the reads (that snapshot), and the
/// error of a snapshot taken again.
async fn finish_reading(
    reading: Reading<'_>,
    snapshot: &mut Arc<DomSnapshot>,
    conn: &Connection,
    session: Option<&SessionId>,
    again: Duration,
) -> (bool, Result<()>) {
    let taken = match reading {
        Reading::Nothing => return (false, Ok(())),
        Reading::Sent(boxes, values) => match values.await {
            Ok(values) => {
                write_rects(snapshot, &boxes, &values);
                return (false, Ok(()));
            }
            Err(_) => {
                let taken = snapshot_now(conn, session, true, again).await;
                return (true, taken.map(|s| *snapshot = Arc::new(s)));
            }
        },
        Reading::Again(taken) => taken.await,
    };
    (false, taken.map(|s| *snapshot = Arc::new(s)))
}

/// Finishes the readings of the page (`main`) and of every out-of-process frame kept (in the
/// order of `sessions`). A frame whose snapshot cannot be taken again keeps the one without
/// rectangles; the page's failing fails the capture. Returns, per renderer (the page first),
/// whether a request was written after its reads.
async fn finish_readings(
    page: &Page,
    sessions: &[SessionId],
    capture: &mut Capture,
    main: Reading<'_>,
    frames: Vec<Reading<'_>>,
) -> Result<Vec<bool>> {
    let conn = page.connection();
    let main = finish_reading(
        main,
        &mut capture.dom_snapshot,
        conn,
        Some(page.session_id()),
        conn.command_timeout(),
    );
    let frames = join_all(
        capture
            .oopifs
            .iter_mut()
            .zip(sessions)
            .zip(frames)
            .map(|((o, s), r)| {
                finish_reading(r, &mut o.dom_snapshot, conn, Some(s), FRAME_TIMEOUT)
            }),
    );
    let ((main_late, main), frames) = tokio::join!(main, frames);
    main?;
    let mut late = vec![main_late];
    late.extend(frames.into_iter().map(|(late, _)| late));
    Ok(late)
}

/// The frame trees read again: the page's, then each out-of-process frame's (in the order of
/// the sessions).
type Checks = (Result<FrameTree>, Vec<Result<FrameTree>>);

/// Writes the frame-tree checks of the page and of every out-of-process frame kept now, behind
/// whatever was written before on each session.
fn write_checks<'a>(
    page: &'a Page,
    kept: &KeptModel,
    sessions: &[SessionId],
) -> impl Future<Output = Checks> + Send + use<'a> {
    let conn = page.connection();
    let main = frame_tree_now(
        conn,
        Some(page.session_id()),
        conn.command_timeout(),
        Some(kept),
    );
    let frames: Vec<_> = sessions
        .iter()
        .map(|s| frame_tree_now(conn, Some(s), FRAME_TIMEOUT, None))
        .collect();
    async move { tokio::join!(main, join_all(frames)) }
}

/// Writes one renderer's `Page.getFrameTree` now, behind whatever was written before on its
/// session; `kept`: the page's, when the session is the page's own (its frame tree is asked for
/// twice per snapshot, and is the same as last time on an unchanged page).
fn frame_tree_now<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    timeout: Duration,
    kept: Option<&KeptModel>,
) -> impl Future<Output = Result<FrameTree>> + Send + use<'a> {
    let reply = conn.send_now_unparsed(session, &GetFrameTreeParams {}, timeout);
    let kept = kept.map(|k| k.frame_tree().clone());
    async move {
        let (reply, method) = (reply.await?, GetFrameTreeParams::METHOD);
        let tree: GetFrameTreeReturns = match kept {
            Some(kept) => kept.read(reply, method)?,
            None => reply.parse(method)?,
        };
        Ok(tree.frame_tree)
    }
}

/// `checks`, with those of the renderers asked for more after them (`late`: the page first)
/// read again.
async fn check_again(
    page: &Page,
    kept: &KeptModel,
    sessions: &[SessionId],
    checks: Checks,
    late: &[bool],
) -> Checks {
    let (mut main, mut frames) = checks;
    let is_late = |k: usize| late.get(k).copied().unwrap_or(false);
    if !late.iter().any(|&l| l) {
        return (main, frames);
    }
    let conn = page.connection();
    let main_again = async {
        if is_late(0) {
            let timeout = conn.command_timeout();
            Some(frame_tree_now(conn, Some(page.session_id()), timeout, Some(kept)).await)
        } else {
            None
        }
    };
    let frames_again = join_all(sessions.iter().enumerate().map(|(k, s)| async move {
        if is_late(k + 1) {
            Some(frame_tree_now(conn, Some(s), FRAME_TIMEOUT, None).await)
        } else {
            None
        }
    }));
    let (main_again, frames_again) = tokio::join!(main_again, frames_again);
    if let Some(again) = main_again {
        main = again;
    }
    for (check, again) in frames.iter_mut().zip(frames_again) {
        if let Some(again) = again {
            *check = again;
        }
    }
    (main, frames)
}

/// `Accessibility.getFullAXTree` of every frame of one renderer: the root frame's tree, then
/// each child frame's (frames in other processes answer with an error and are left out: they
/// are captured over their own sessions). Written now.
fn full_trees<'a>(
    conn: &'a Connection,
    session: Option<&SessionId>,
    frames: &[String],
    timeout: Option<Duration>,
    kept: Option<&KeptTrees>,
) -> impl Future<Output = Result<ReadTrees>> + Send + use<'a> {
    let timeout = timeout.unwrap_or(conn.command_timeout());
    // Sent raw and read with `FullAxTree::from_reply`, which reads a large tree on two threads,
    // unless the page kept the tree of that very reply (see `super::kept_model`).
    let send = |frame_id: Option<String>| {
        let params = serde_json::to_value(GetFullAxTree {
            depth: None,
            frame_id: frame_id.clone(),
        })
        .map_err(|e| Error::invalid_argument(format!("cannot encode the AX tree request: {e}")));
        let method = <GetFullAxTree as crate::cdp::Command>::METHOD;
        let reply = params.map(|p| conn.send_raw_now(method, session, &p, timeout));
        let kept = kept.cloned();
        async move {
            let reply = reply?.await?;
            let Some(kept) = kept else {
                return Ok((FullAxTree::from_reply(&reply)?, None));
            };
            if let Some((nodes, id)) = kept.look(frame_id.as_deref(), &reply) {
                return Ok((FullAxTree { nodes }, Some(id)));
            }
            let tree = FullAxTree::from_reply(&reply)?;
            kept.record(frame_id, reply, &tree.nodes);
            Ok((tree, None))
        }
    };
    let main = send(None);
    let children: Vec<_> = frames
        .iter()
        .skip(1)
        .map(|f| (f.clone(), send(Some(f.clone()))))
        .collect();
    let main_frame = frames.first().cloned().unwrap_or_default();
    async move {
        let (ids, replies): (Vec<String>, Vec<_>) = children.into_iter().unzip();
        let (main, children) = tokio::join!(main, join_all(replies));
        let (main, main_id) = main?;
        let mut kept = main_id.map(|id| vec![id]);
        let mut trees = vec![AxTreeCapture {
            frame_id: main_frame,
            nodes: main.nodes,
        }];
        for (frame_id, reply) in ids.into_iter().zip(children) {
            let id = match reply {
                Ok((reply, id)) => {
                    trees.push(AxTreeCapture {
                        frame_id,
                        nodes: reply.nodes,
                    });
                    id
                }
                Err(_) => None,
            };
            kept = kept.zip(id).map(|(mut kept, id)| {
                kept.push(id);
                kept
            });
        }
        Ok(ReadTrees {
            trees,
            kept,
            gone: 0,
        })
    }
}

/// The accessibility trees read for one renderer: its frames' full trees, or its view's nodes.
struct ReadTrees {
    trees: Vec<AxTreeCapture>,
    /// When what was read is what the page kept, its [`super::kept_model::kept_id`]s (full
    /// trees: one per frame, the main frame's first).
    kept: Option<Vec<u64>>,
    /// How many of the DOM nodes asked for Chromium no longer knew (removed since the DOM
    /// snapshot listed them): their accessibility nodes are missing.
    gone: usize,
}

/// The accessibility trees of one renderer holding the nodes of `ids` and their ancestors:
/// `Accessibility.getPartialAXTree` for each, all written now, then once more for parents the
/// replies name that were not asked for (`aria-owns`), a bounded number of rounds, and for the
/// children the nodes of `inside` (and so their children in turn) name that were not asked for
/// (a form control's inner text, which the DOM snapshot does not hold). Also says whether there
/// were more rounds (requests written after this call).
fn partial_trees<'a>(
    conn: &'a Connection,
    session: Option<&'a SessionId>,
    (ids, inside): (&[i64], &[i64]),
    timeout: Option<Duration>,
    kept: Option<&KeptPartialTrees>,
) -> impl Future<Output = (Result<ReadTrees>, bool)> + Send + use<'a> {
    let timeout = timeout.unwrap_or(conn.command_timeout());
    let send = move |id: i64| conn.send_now_unparsed(session, &GetPartialAxTree::of(id), timeout);
    let first: Vec<_> = ids.iter().map(|&id| send(id)).collect();
    let mut asked: FxHashSet<i64> = ids.iter().copied().collect();
    let mut inside: FxHashSet<i64> = inside.iter().copied().collect();
    let ids = ids.to_vec();
    let kept = kept.cloned();
    let read = |reply: &RawJson| FullAxTree::read_reply(reply, GetPartialAxTree::METHOD);
    async move {
        // A node the snapshot had and Chromium no longer knows, or one in a frame that loaded
        // again: the DOM changed in between. It is counted, and left out; the caller decides
        // what that means once it has seen whether the page itself navigated.
        let mut replies = Vec::with_capacity(ids.len());
        let mut gone = 0;
        for reply in join_all(first).await {
            match reply {
                Ok(reply) => replies.push(reply),
                Err(e) if is_missing_node(&e) || is_missing_document(&e) => gone += 1,
                Err(e) => return (Err(e), false),
            }
        }
        let look = kept.as_ref().filter(|_| gone == 0);
        if let Some((trees, id)) = look.and_then(|k| k.look(&ids, &replies)) {
            return (
                Ok(ReadTrees {
                    trees,
                    kept: Some(vec![id]),
                    gone: 0,
                }),
                false,
            );
        }
        let mut nodes = AxNodes::default();
        for reply in &replies {
            let added = read(reply).and_then(|r| nodes.append(r.nodes).map_err(Error::protocol));
            if let Err(e) = added {
                return (Err(e), false);
            }
        }
        let mut more = false;
        for round in 0..PARENT_ROUNDS.max(CHILD_ROUNDS) {
            let mut ask = Vec::new();
            if round < PARENT_ROUNDS {
                ask = ax_partial::missing_parents(&nodes);
            }
            if round < CHILD_ROUNDS && !inside.is_empty() {
                ask.extend(ax_partial::missing_children(&nodes, &mut inside));
            }
            ask.retain(|id| asked.insert(*id));
            if ask.is_empty() {
                break;
            }
            more = true;
            // A parent that is no DOM node cannot be asked for: its children are left out; a
            // child that is none stays a stand-in.
            for reply in join_all(ask.iter().map(|&id| send(id)))
                .await
                .into_iter()
                .flatten()
            {
                if let Err(e) =
                    read(&reply).and_then(|r| nodes.append(r.nodes).map_err(Error::protocol))
                {
                    return (Err(e), more);
                }
            }
        }
        // Children no DOM node stands for: asked for with their parents' relatives (the nodes
        // already read come first, so they are kept as read).
        let mut with_relatives_asked: FxHashSet<i64> = FxHashSet::default();
        for _ in 0..RELATIVE_ROUNDS {
            // Children of the nodes read last join the subtree (nothing left to ask by id).
            let _ = ax_partial::missing_children(&nodes, &mut inside);
            let holders: Vec<i64> = ax_partial::parents_of_missing_children(&nodes, &inside)
                .into_iter()
                .filter(|id| with_relatives_asked.insert(*id))
                .collect();
            if holders.is_empty() {
                break;
            }
            more = true;
            let with_relatives = |id: i64| GetPartialAxTree {
                fetch_relatives: true,
                ..GetPartialAxTree::of(id)
            };
            let sent = holders
                .iter()
                .map(|&id| conn.send_now_unparsed(session, &with_relatives(id), timeout));
            for reply in join_all(sent).await.into_iter().flatten() {
                if let Err(e) =
                    read(&reply).and_then(|r| nodes.append(r.nodes).map_err(Error::protocol))
                {
                    return (Err(e), more);
                }
            }
        }
        let trees = ax_partial::assemble(&nodes);
        match &kept {
            Some(kept) if !more && gone == 0 => kept.record(ids, replies, &trees),
            Some(kept) => kept.forget(),
            None => {}
        }
        let read = ReadTrees {
            trees,
            kept: None,
            gone,
        };
        (Ok(read), more)
    }
}

/// Chromium answers this when a node the snapshot listed is gone.
fn is_missing_node(e: &Error) -> bool {
    e.code() == ErrorCode::ProtocolError && e.message().contains("No node")
}

/// What capturing one out-of-process iframe gave.
enum FrameOutcome<'a> {
    /// Its snapshot (and, for a full scope, its trees), the reading of its boxes' rectangles
    /// started; `frame_tree` holds the tree read before, replaced by the one read after once
    /// the page checks it.
    Captured(Box<OopifCapture>, Reading<'a>),
    /// The frame changed documents during the capture.
    Changed(String),
    /// The frame could not be captured; `owner` is its `<iframe>` when that is known.
    Failed { owner: Option<i64>, reason: String },
    /// The frame's target went away (it navigated, or its `<iframe>` was removed).
    Gone,
}

/// Snapshots one out-of-process iframe over its own session (with its full trees when `full`,
/// every DOM rectangle when `dom_rects`, else the reading of the rectangles its boxes need
/// started as soon as the snapshot is in).
async fn frame_part<'a>(
    page: &'a Page,
    target: &'a FrameTarget,
    full: bool,
    dom_rects: bool,
) -> FrameOutcome<'a> {
    let conn = page.connection();
    let session = Some(&target.session_id);
    let before = match conn
        .send_with_timeout(session, &GetFrameTreeParams {}, FRAME_TIMEOUT)
        .await
    {
        Ok(r) => r.frame_tree,
        Err(e) => return failed(None, &e),
    };
    let owner_params = GetFrameOwnerParams {
        frame_id: before.frame.id.clone(),
    };
    let owner = conn.send_now(Some(&target.parent_session), &owner_params, FRAME_TIMEOUT);
    // Written together, in this order, as for the page (see `capture_once`): the world its boxes
    // are read in, the snapshot, the trees.
    let world = (!dom_rects).then(|| create_world(conn, session, &before.frame.id, FRAME_TIMEOUT));
    let snapshot = snapshot_now(conn, session, dom_rects, FRAME_TIMEOUT);
    let mut frames = Vec::new();
    collect_frames(&before, &mut frames, 0);
    let trees = full.then(|| full_trees(conn, session, &frames, Some(FRAME_TIMEOUT), None));
    let trees = async {
        match trees {
            Some(trees) => trees.await.map(|t| t.trees),
            None => Ok(Vec::new()),
        }
    };
    let snapshot = async {
        let (snapshot, world) = with_world(snapshot, world).await;
        let snapshot = snapshot?;
        let boxes = if dom_rects {
            Vec::new()
        } else {
            boxes_needing_rects(&snapshot, &computed_styles(), None)
        };
        let worlds: Worlds = world
            .map(|id| (before.frame.id.clone(), id))
            .into_iter()
            .collect();
        let reading = start_reading(conn, session, boxes, &worlds, FRAME_TIMEOUT, None).await;
        Ok::<_, Error>((snapshot, reading))
    };
    let (owner, snapshot, trees) = tokio::join!(owner, snapshot, trees);
    let owner = match owner {
        Ok(o) => o.backend_node_id,
        // The parent does not know the frame (any more): it was removed or navigated away.
        Err(_) => return FrameOutcome::Gone,
    };
    let ((snapshot, reading), ax_trees) = match (snapshot, trees) {
        (Ok(s), Ok(a)) => (s, a),
        (Err(e), _) | (_, Err(e)) => return failed(Some(owner), &e),
    };
    if snapshot.documents.is_empty() {
        return FrameOutcome::Changed(format!("frame {} has no document yet", before.frame.id));
    }
    FrameOutcome::Captured(
        Box::new(OopifCapture {
            target_id: Some(target.target_id.clone()),
            frame_id: before.frame.id.clone(),
            owner_target: 0,
            owner_backend_node_id: owner,
            computed_styles: computed_styles(),
            dom_snapshot: Arc::new(snapshot),
            ax_trees,
            frame_tree: Some(before),
        }),
        reading,
    )
}

fn failed<'a>(owner: Option<i64>, e: &Error) -> FrameOutcome<'a> {
    match e.code() {
        // The frame's session ended: the frame is gone, not broken.
        ErrorCode::BrowserClosed => FrameOutcome::Gone,
        ErrorCode::Timeout => FrameOutcome::Failed {
            owner,
            reason: "the frame did not answer in time".into(),
        },
        _ if is_missing_document(e) => FrameOutcome::Changed(e.message().to_string()),
        _ => FrameOutcome::Failed {
            owner,
            reason: format!("the frame could not be read: {}", e.message()),
        },
    }
}

fn document_title(snapshot: &DomSnapshot) -> String {
    snapshot
        .documents
        .first()
        .and_then(|d| usize::try_from(d.title).ok())
        .and_then(|i| snapshot.strings.get(i))
        .cloned()
        .unwrap_or_default()
}

/// Whether a DOM snapshot and an accessibility tree of the same renderer were taken of two
/// different states of its DOM (the page's scripts ran between the two calls), and how.
///
/// Both are checked against facts that hold for any single state: the accessibility nodes tied
/// to DOM nodes name nodes of the snapshot (a DOM rebuilt in between has new nodes; a quarter
/// unknown is taken as a rebuild; the insides of form controls and media are legitimately
/// unknown and not counted),
/// and the root web area is named after the document title the snapshot recorded. Pure:
/// callers can check recorded captures too.
pub fn mixes_states(snapshot: &DomSnapshot, ax: &AxNodes) -> Option<String> {
    // backendNodeId -> tag name (upper case, as the snapshot spells it) of the snapshot's
    // nodes the tree names: the tree is usually the smaller of the two (the nodes of the view),
    // so the map is of its nodes and the snapshot is only scanned.
    let mut known: FxHashMap<i64, Option<&str>> = FxHashMap::default();
    known.reserve(ax.len());
    for n in ax.iter() {
        if let Some(b) = n.backend_dom_node_id() {
            known.insert(b, None);
        }
    }
    let mut snapshot_nodes = 0;
    for d in &snapshot.documents {
        let (Some(ids), Some(names)) = (&d.nodes.backend_node_id, &d.nodes.node_name) else {
            continue;
        };
        snapshot_nodes += ids.len();
        for (id, name) in ids.iter().zip(names) {
            if let Some(tag) = known.get_mut(id) {
                *tag = Some(
                    usize::try_from(*name)
                        .ok()
                        .and_then(|i| snapshot.strings.get(i))
                        .map_or("", String::as_str),
                );
            }
        }
    }
    if snapshot_nodes == 0 {
        return None;
    }
    let tag_of = |b: i64| known.get(&b).copied().flatten();
    // Built only once a node is not found, which a page of one state rarely has.
    let parents: OnceCell<FxHashMap<AxKeyRef<'_>, AxNodeRef<'_>>> = OnceCell::new();
    // The AX tree also describes the insides of form controls and media (user-agent shadow
    // trees), which the snapshot leaves out: an unknown node under such a host is expected.
    let under_control = |n: &AxNodeRef<'_>| {
        let parents = parents.get_or_init(|| ax.iter().map(|n| (n.node_id(), n)).collect());
        let mut cur = n.parent_id().and_then(|p| parents.get(&p));
        for _ in 0..64 {
            let Some(p) = cur else { return false };
            if let Some(tag) = p.backend_dom_node_id().and_then(tag_of) {
                return holds_user_agent_tree(tag);
            }
            cur = p.parent_id().and_then(|q| parents.get(&q));
        }
        false
    };
    let (mut tied, mut missing) = (0usize, 0usize);
    for n in ax.iter().filter(|n| !n.ignored()) {
        let Some(b) = n.backend_dom_node_id() else {
            continue;
        };
        tied += 1;
        if tag_of(b).is_none() && !under_control(&n) {
            missing += 1;
        }
    }
    // A DOM rebuilt between the two calls leaves much of the tree unknown.
    if missing >= 4 && missing * 4 > tied {
        return Some(format!(
            "the accessibility tree names {missing} node(s) the DOM snapshot does not have"
        ));
    }
    let root = ax.iter().find(|n| {
        n.parent_id().is_none() && n.role().and_then(|r| r.as_str()) == Some("RootWebArea")
    });
    if let Some(name) = root.and_then(|r| r.name()).and_then(|n| n.as_str()) {
        let title = document_title(snapshot);
        if !title.is_empty() && !same_words(name, &title) {
            return Some(
                "the document title changed between the DOM and the accessibility tree".into(),
            );
        }
    }
    None
}

fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// Frame ids in pre-order (main frame first). Depth-limited against hostile nesting.
fn collect_frames(tree: &FrameTree, out: &mut Vec<String>, depth: usize) {
    out.push(tree.frame.id.clone());
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            collect_frames(child, out, depth + 1);
        }
    }
}

/// A frame whose loader id differs between the two trees, if any, and what happened (added or
/// removed frames do not count: they do not mix documents within a frame).
fn document_change(before: &FrameTree, after: &FrameTree) -> Option<(String, String)> {
    let mut a = Vec::new();
    loaders(before, &mut a, 0);
    let mut b = Vec::new();
    loaders(after, &mut b, 0);
    for (frame, loader) in &a {
        if let Some((_, other)) = b.iter().find(|(f, _)| f == frame) {
            if other != loader {
                return Some((
                    frame.to_string(),
                    format!("frame {frame} loaded a new document"),
                ));
            }
        }
    }
    None
}

fn loaders<'a>(tree: &'a FrameTree, out: &mut Vec<(&'a str, &'a str)>, depth: usize) {
    out.push((&tree.frame.id, &tree.frame.loader_id));
    if depth < 64 {
        for child in tree.child_frames.iter().flatten() {
            loaders(child, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_gone_mid_capture_is_taken_again_not_reported() {
        for gone in [
            "Accessibility.getPartialAXTree failed: Frame is detached",
            "No frame with given id found",
            "Document is not available",
        ] {
            assert!(is_missing_document(&Error::protocol(gone)), "{gone}");
        }
        assert!(!is_missing_document(&Error::protocol("Invalid parameters")));
    }
}
