//! Analysis: what a person sees, what receives a click, and what can be interacted with, decided
//! from the [`Model`] alone (no browser, no JavaScript).
//!
//! The stages, each in its own module:
//! - [`geometry`]: every box in top-level viewport CSS px (document coordinates minus the
//!   document's scroll, plus the content-box offset of every enclosing iframe), and the clip
//!   rectangle overflow ancestors and `clip: rect()` impose on it.
//! - [`visibility`]: "can a person see it" — display, visibility, opacity, size, clipping,
//!   `content-visibility`, and whether it is in the (expanded) viewport.
//! - [`hit_test`]: "what receives a click at (x, y)" — the [`HitTester`], built once per model.
//!   Opacity 0 *is* hit; `visibility:hidden` and `pointer-events:none` are not.
//! - [`interactivity`]: which elements are worth offering to an agent, and which are disabled;
//!   [`inert`] content is not offered.
//! - here: click points and occlusion (hit-testing sample points inside each interactive
//!   element's visible box), scroll containers, and [`analyze`] tying it all together.
//!
//! Every number the analysis reports is a CSS px coordinate in the top-level viewport: what
//! `Input.dispatchMouseEvent` takes.

pub mod geometry;
pub mod hit_test;
pub mod inert;
pub mod interactivity;
pub mod shape;
pub mod visibility;

pub mod click;
mod scroll;

pub use geometry::Geometry;
pub use hit_test::{HitResult, HitTester};
pub use interactivity::Interaction;

use std::sync::{Arc, OnceLock};

use crate::model::{Model, NodeId};
pub use crate::model::{Point, Rect};

/// How far beyond the viewport an element still counts as "in the viewport".
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Expand {
    /// Only the viewport itself.
    #[default]
    Viewport,
    /// The viewport grown by this many CSS px on every side.
    Pixels(f64),
    /// The whole page.
    All,
}

/// Options of [`analyze`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnalysisOptions {
    /// What counts as "in the viewport".
    pub expand: Expand,
}

/// The top-level viewport, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Viewport {
    /// Layout viewport size, without scrollbars.
    pub width: f64,
    pub height: f64,
    /// How far the top-level document is scrolled.
    pub scroll_x: f64,
    pub scroll_y: f64,
    /// Size of the top-level document.
    pub content_width: f64,
    pub content_height: f64,
    /// Device px per CSS px.
    pub device_pixel_ratio: f64,
}

impl Viewport {
    /// The viewport as a rectangle in its own coordinates (`0, 0, width, height`).
    pub fn rect(&self) -> Rect {
        Rect::new(0.0, 0.0, self.width, self.height)
    }
}

/// How a box scrolls: its scroll position, scrollable size and visible size, CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScrollInfo {
    /// Scrolled by this much from the left / top.
    pub left: f64,
    pub top: f64,
    /// Size of the scrollable content.
    pub width: f64,
    pub height: f64,
    /// Size of the visible part (the padding box without scrollbars).
    pub client_width: f64,
    pub client_height: f64,
}

impl ScrollInfo {
    /// Pixels of content above the visible part.
    pub fn above(&self) -> f64 {
        self.top.max(0.0)
    }
    /// Pixels of content below the visible part.
    pub fn below(&self) -> f64 {
        (self.height - self.top - self.client_height).max(0.0)
    }
    /// Pixels of content left of the visible part.
    pub fn left_of(&self) -> f64 {
        self.left.max(0.0)
    }
    /// Pixels of content right of the visible part.
    pub fn right_of(&self) -> f64 {
        (self.width - self.left - self.client_width).max(0.0)
    }
    /// Whether there is anything to scroll vertically.
    pub fn scrolls_vertically(&self) -> bool {
        self.height > self.client_height + 0.5
    }
    /// Whether there is anything to scroll horizontally.
    pub fn scrolls_horizontally(&self) -> bool {
        self.width > self.client_width + 0.5
    }
}

/// What the analysis decided about one node.
///
/// Why the rectangles sit behind methods, and the click facts in [`Analysis::clicks`]: the facts
/// of every node of a page are one table that every stage and renderer streams through, so its
/// size is paid per node many times over; and a table beyond what the allocator keeps for reuse
/// (32 MiB for glibc) is mapped afresh and faulted in page by page on every analysis of a long
/// page. Three rectangles share one byte saying which are present, and what only interactive
/// elements in the viewport have is kept with them alone.
#[derive(Clone, Copy, PartialEq, Default)]
pub struct NodeFacts {
    bounds: Rect,
    visible_rect: Rect,
    hittable_rect: Rect,
    /// Which of the rectangles are present (`HAS_*`); an absent one is all zeros.
    has: u8,
    /// Visible and intersecting the viewport grown by [`AnalysisOptions::expand`].
    pub in_viewport: bool,
    /// Offered to an agent as something to act on.
    pub interactive: bool,
    /// Interactive but disabled (`disabled` attribute, inside a disabled `<fieldset>`, or AX
    /// disabled).
    pub disabled: bool,
    /// Why it is interactive (empty when it is not).
    pub interaction: Interaction,
}

const HAS_BOUNDS: u8 = 1;
const HAS_VISIBLE: u8 = 2;
const HAS_HITTABLE: u8 = 4;

impl NodeFacts {
    #[inline]
    fn get(&self, bit: u8, r: &Rect) -> Option<Rect> {
        (self.has & bit != 0).then_some(*r)
    }

    #[inline]
    fn set(has: &mut u8, bit: u8, slot: &mut Rect, r: Option<Rect>) {
        match r {
            Some(r) => {
                *has |= bit;
                *slot = r;
            }
            None => {
                *has &= !bit;
                *slot = Rect::default();
            }
        }
    }

    /// Border box in top-level viewport CSS px, unclipped. For a node without a box of its own
    /// (`display:contents`, text without fragments, a zero-size wrapper) the union of its
    /// descendants' boxes. `None` when nothing of it is rendered.
    #[inline]
    pub fn bounds(&self) -> Option<Rect> {
        self.get(HAS_BOUNDS, &self.bounds)
    }

    /// The part of [`NodeFacts::bounds`] not clipped away by overflow ancestors, `clip: rect()`
    /// or iframes (not limited to the viewport). `None` when nothing of it can be seen.
    #[inline]
    pub fn visible_rect(&self) -> Option<Rect> {
        self.get(HAS_VISIBLE, &self.visible_rect)
    }

    /// The part that can receive clicks (rendered, not `visibility:hidden`, not
    /// `pointer-events:none`, not clipped away — but possibly transparent), viewport CSS px,
    /// including descendants. `None` when no part of it can be hit.
    #[inline]
    pub fn hittable_rect(&self) -> Option<Rect> {
        self.get(HAS_HITTABLE, &self.hittable_rect)
    }

    /// A person can see it: rendered, not `visibility:hidden`, not fully transparent, with some
    /// area left after clipping ([`NodeFacts::visible_rect`] is not `None`). A node without a
    /// box or with an inline one is seen where something inside it is.
    #[inline]
    pub fn visible(&self) -> bool {
        self.has & HAS_VISIBLE != 0
    }

    /// [`NodeFacts::hittable_rect`] is not `None`: it (or something inside it) can receive
    /// clicks, even if a person cannot see it (`opacity: 0`).
    #[inline]
    pub fn hittable(&self) -> bool {
        self.has & HAS_HITTABLE != 0
    }

    /// Sets [`NodeFacts::bounds`].
    #[inline]
    pub fn set_bounds(&mut self, r: Option<Rect>) {
        Self::set(&mut self.has, HAS_BOUNDS, &mut self.bounds, r);
    }

    /// Sets [`NodeFacts::visible_rect`] (and with it [`NodeFacts::visible`]).
    #[inline]
    pub fn set_visible_rect(&mut self, r: Option<Rect>) {
        Self::set(&mut self.has, HAS_VISIBLE, &mut self.visible_rect, r);
    }

    /// Sets [`NodeFacts::hittable_rect`] (and with it [`NodeFacts::hittable`]).
    #[inline]
    pub fn set_hittable_rect(&mut self, r: Option<Rect>) {
        Self::set(&mut self.has, HAS_HITTABLE, &mut self.hittable_rect, r);
    }
}

impl std::fmt::Debug for NodeFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeFacts")
            .field("bounds", &self.bounds())
            .field("visible_rect", &self.visible_rect())
            .field("hittable_rect", &self.hittable_rect())
            .field("in_viewport", &self.in_viewport)
            .field("interactive", &self.interactive)
            .field("disabled", &self.disabled)
            .field("interaction", &self.interaction)
            .finish()
    }
}

/// Where a click on one interactive element lands, as found by hit-testing sample points inside
/// its visible box ([`click`]). Only interactive elements with some part in the viewport have
/// them; see [`Analysis::click`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClickFacts {
    /// No sample point inside it hits the element: something else is on top.
    pub occluded: bool,
    /// What is on top of an occluded element (the node hit at its centre).
    pub covered_by: Option<NodeId>,
    /// Where a click lands on the element itself (viewport CSS px); `None` when it is
    /// occluded.
    pub click_point: Option<Point>,
    /// The click point lies where the snapshot alone cannot be sure (near an edge, SVG, 3-D
    /// transform): confirm with one `DOM.getNodeForLocation` before relying on it.
    pub click_point_unsure: bool,
}

/// The result of [`analyze`].
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The top-level viewport.
    pub viewport: Viewport,
    /// Per-node facts, indexed by [`NodeId`].
    pub nodes: Vec<NodeFacts>,
    /// Where clicks land on interactive elements in the viewport, ordered by node; read with
    /// [`Analysis::click`].
    pub clicks: Vec<(NodeId, ClickFacts)>,
    /// How each scroll container (and each document's `#document` node) is scrolled, ordered
    /// by node; read with [`Analysis::scroll`]. Kept out of [`NodeFacts`]: few nodes scroll,
    /// and every stage streams the facts of a long page through memory.
    pub scrolls: Vec<(NodeId, ScrollInfo)>,
    /// Geometry of every node (viewport offsets of documents, clip rectangles).
    pub geometry: Geometry,
    /// The hit tester, for callers that need more points (actions, live oracle tests).
    pub hit_tester: Arc<HitTester>,
    /// The options the analysis ran with.
    pub options: AnalysisOptions,
}

impl Analysis {
    /// The facts of one node.
    #[inline]
    pub fn facts(&self, id: NodeId) -> &NodeFacts {
        &self.nodes[id.index()]
    }

    /// Where a click on the node lands: empty facts (no click point, not occluded) for a node
    /// that is not interactive or has no part in the viewport.
    pub fn click(&self, id: NodeId) -> ClickFacts {
        self.clicks
            .binary_search_by_key(&id, |(n, _)| *n)
            .map_or_else(|_| ClickFacts::default(), |k| self.clicks[k].1)
    }

    /// The click facts of the node, to correct them (after a live hit test).
    pub fn click_mut(&mut self, id: NodeId) -> Option<&mut ClickFacts> {
        let k = self.clicks.binary_search_by_key(&id, |(n, _)| *n).ok()?;
        Some(&mut self.clicks[k].1)
    }

    /// How the node scrolls, when it is a scroll container or a `#document`.
    pub fn scroll(&self, id: NodeId) -> Option<ScrollInfo> {
        self.scrolls
            .binary_search_by_key(&id, |(n, _)| *n)
            .ok()
            .map(|k| self.scrolls[k].1)
    }

    /// Which node receives a click at viewport point `(x, y)`.
    pub fn hit_test(&self, x: f64, y: f64) -> Option<HitResult> {
        self.hit_tester.hit_test(x, y)
    }

    /// Scroll state of the top-level document.
    pub fn page_scroll(&self) -> ScrollInfo {
        ScrollInfo {
            left: self.viewport.scroll_x,
            top: self.viewport.scroll_y,
            width: self.viewport.content_width,
            height: self.viewport.content_height,
            client_width: self.viewport.width,
            client_height: self.viewport.height,
        }
    }

    /// Ids of the interactive nodes, in document order.
    pub fn interactive_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, f)| f.interactive)
            .map(|(i, _)| NodeId::new(i as u32))
    }
}

/// The first two steps of an analysis, geometry and visibility, for one view. They read only
/// the DOM part of a model, so a live snapshot that computes them to decide which
/// accessibility nodes to ask for hands them on to [`analyze_view`] instead of computing them
/// again once the answers are in.
#[derive(Debug, Clone)]
pub struct ViewFacts {
    /// The view they were computed for.
    pub expand: Expand,
    pub geometry: Geometry,
    /// Per node, with only the visibility facts filled in.
    pub nodes: Vec<NodeFacts>,
    /// The hit tester of the model these facts are of, once an analysis built it. Every copy
    /// of these facts shares it: a page whose model is kept from one snapshot to the next (see
    /// `live::kept_model`) builds it once rather than once per snapshot. It reads only the
    /// DOM part of the model, as the facts do.
    hit_tester: Arc<OnceLock<Arc<HitTester>>>,
}

impl ViewFacts {
    /// Geometry and visibility of `model` seen with `expand`.
    pub fn new(model: &Model, expand: Expand) -> ViewFacts {
        let geometry = Geometry::new(model);
        let nodes = visibility::compute(model, &geometry, expand);
        ViewFacts {
            expand,
            geometry,
            nodes,
            hit_tester: Arc::default(),
        }
    }
}

/// Analyses a model: geometry, visibility, hit-testing, interactivity, click points, scrolling.
pub fn analyze(model: &Model, options: &AnalysisOptions) -> Analysis {
    analyze_view(model, options, None)
}

/// [`analyze`], taking geometry and visibility from `view` when it was computed for this view
/// of this model's DOM (anything else is computed afresh).
pub fn analyze_view(model: &Model, options: &AnalysisOptions, view: Option<ViewFacts>) -> Analysis {
    let view = view.filter(|v| v.expand == options.expand && v.nodes.len() == model.nodes.len());
    let (geometry, kept, shared) = match view {
        Some(v) => (v.geometry, Some(v.nodes), Some(v.hit_tester)),
        None => (Geometry::new(model), None, None),
    };
    let viewport = geometry.viewport;
    let built = shared.as_ref().and_then(|s| s.get().cloned());
    // The hit tester reads only the model and its geometry, not the facts.
    let (hit_tester, (nodes, scrolls)) = crate::parallel::join(
        built.is_none() && model.nodes.len() >= crate::parallel::LARGE_PAGE_NODES,
        || built.unwrap_or_else(|| Arc::new(HitTester::new(model, &geometry))),
        || {
            let mut nodes =
                kept.unwrap_or_else(|| visibility::compute(model, &geometry, options.expand));
            interactivity::compute(model, &mut nodes);
            (nodes, scroll::compute(model, &geometry))
        },
    );
    if let Some(shared) = shared {
        let _ = shared.set(hit_tester.clone());
    }
    let clicks = click::compute(model, &geometry, &hit_tester, &nodes);
    Analysis {
        viewport,
        nodes,
        clicks,
        scrolls,
        geometry,
        hit_tester,
        options: *options,
    }
}

#[cfg(test)]
mod tests;
