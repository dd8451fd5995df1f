//! Visibility: can a person see the node (or something inside it), and is it in the viewport?
//!
//! This answers "visible to a person", which is *not* "receives the click" (see [`super::hit_test`]):
//! an `opacity:0` overlay is unseen yet takes clicks (docs/chromium-facts.md, item 4). The rules:
//! - no layout box (`display:none`, `<head>`, inside a skipped `content-visibility` subtree): the
//!   node's own box is not visible;
//! - `visibility: hidden | collapse`: the box is not visible, but the property is inherited and a
//!   descendant with `visibility: visible` is visible again — the computed style already says so;
//! - `opacity: 0` (or `filter: opacity(0)`) on the element or any ancestor hides the whole
//!   subtree;
//! - a box with no area is not visible itself, but its overflowing children may be (its bounds
//!   are then theirs); only a node without a box or with an inline one (whose rectangle is its
//!   line fragments) is visible *through* its descendants;
//! - clipping (overflow ancestors on the containing-block chain, `clip: rect()`,
//!   `content-visibility: hidden`, enclosing iframes; see [`super::geometry`]) can leave nothing;
//! - text is visible through its fragments (`textBoxes`), not its layout box.
//!
//! "In the viewport" is then a plain intersection with the viewport grown by [`Expand`].

use super::geometry::Geometry;
use super::{Expand, NodeFacts};
use crate::model::{Model, NodeId, PointerEvents, Rect};

/// The union of two rectangles either of which may be missing.
pub(super) fn union(a: Option<Rect>, b: Option<Rect>) -> Option<Rect> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The node's own visible area in viewport coordinates, ignoring descendants: `None` when the
/// node's own box cannot be seen.
pub fn own_visible_rect(
    model: &Model,
    geometry: &Geometry,
    node: NodeId,
    transparent: bool,
) -> Option<Rect> {
    if transparent {
        return None;
    }
    let n = model.node(node);
    let lid = n.layout?;
    let l = model.layout(lid);
    if model.style(l).visibility.is_hidden() {
        return None;
    }
    if n.is_text() {
        let mut acc = None;
        let mut b = Some(lid);
        while let Some(id) = b {
            for t in model.text_boxes_of(id) {
                acc = union(acc, geometry.clipped(model, node, t.bounds));
            }
            b = model.layout(id).next_for_node;
        }
        return acc;
    }
    if l.bounds.is_empty() {
        return None;
    }
    geometry.clipped(model, node, l.bounds)
}

/// The node's own bounds in viewport coordinates (unclipped): its border box, or for text the
/// union of its fragments.
pub fn own_bounds(model: &Model, geometry: &Geometry, node: NodeId) -> Option<Rect> {
    let n = model.node(node);
    let lid = n.layout?;
    let doc = n.doc;
    if n.is_text() {
        let mut acc = None;
        let mut b = Some(lid);
        while let Some(id) = b {
            for t in model.text_boxes_of(id) {
                acc = union(acc, Some(geometry.to_viewport(doc, t.bounds)));
            }
            b = model.layout(id).next_for_node;
        }
        return acc;
    }
    let r = model.layout(lid).bounds;
    (!r.is_empty()).then(|| geometry.to_viewport(doc, r))
}

/// The rectangle "in the viewport" tests against.
pub fn expanded_viewport(geometry: &Geometry, expand: Expand) -> Option<Rect> {
    let v = geometry.viewport.rect();
    match expand {
        Expand::Viewport => Some(v),
        Expand::Pixels(p) if p.is_finite() => Some(v.inflate(p.max(0.0))),
        Expand::Pixels(_) | Expand::All => None,
    }
}

/// The rectangles and `in_viewport` of every node, the other facts left at their defaults.
pub fn compute(model: &Model, geometry: &Geometry, expand: Expand) -> Vec<NodeFacts> {
    let n = model.nodes.len();
    // Each node's facts are written once, as the top-down pass reaches it, rather than set to
    // their defaults first: on a long page that is megabytes written once instead of twice.
    let mut facts = Vec::with_capacity(n);
    let mut transparent = vec![false; n];
    // Top-down: opacity 0 anywhere above hides the subtree.
    for i in 0..n {
        let node = &model.nodes[i];
        let inherited = node.parent.is_some_and(|p| transparent[p.index()]);
        let own = node.layout.is_some_and(|l| {
            let s = model.style(model.layout(l));
            node.is_element() && (s.opacity <= 0.0 || s.filter_transparent)
        });
        transparent[i] = inherited || own;
        let id = NodeId::new(i as u32);
        // Opacity hides from a person but not from the mouse; pointer-events the reverse.
        let own = own_visible_rect(model, geometry, id, false);
        let mut f = NodeFacts::default();
        f.set_hittable_rect(own.filter(|_| {
            node.layout
                .is_some_and(|l| model.style(model.layout(l)).pointer_events != PointerEvents::None)
        }));
        f.set_visible_rect(if transparent[i] { None } else { own });
        f.set_bounds(own_bounds(model, geometry, id));
        facts.push(f);
    }
    // Image map areas have no box: each is the part of its image its shape covers (the first
    // image using the map), seen and hit as that image is.
    for a in &geometry.map_areas {
        let i = a.area.index();
        if facts[i].bounds().is_some() {
            continue;
        }
        let img = &facts[a.img.index()];
        let r = geometry.to_viewport(model.node(a.img).doc, a.rect);
        let (visible, hittable) = (img.visible_rect(), img.hittable_rect());
        let f = &mut facts[i];
        f.set_bounds(Some(r));
        f.set_visible_rect(visible.and_then(|v| v.intersect(&r)));
        f.set_hittable_rect(hittable.and_then(|h| h.intersect(&r)));
    }
    // Bottom-up: a node is visible through its descendants; a box-less node's bounds are theirs.
    // The descendants' rectangles wait on a stack rather than in three tables as long as the
    // page: in reverse pre-order every entry left on it belongs to an ancestor of the node at
    // hand, deepest on top, so a node finds its descendants' rectangles on top (and a long
    // page's analysis does not stream tens of megabytes more through memory).
    let mut pending: Vec<Pending> = Vec::new();
    // A node's rectangles are final once its descendants are done, so the flags are set in the
    // same pass rather than in another one over every node's facts.
    let vp = expanded_viewport(geometry, expand);
    for i in (0..n).rev() {
        let desc = match pending.last() {
            Some(top) if top.node == i => pending.pop().unwrap_or_default(),
            _ => Pending::default(),
        };
        let f = &mut facts[i];
        let own_vis = f.visible_rect();
        let own_bounds = f.bounds();
        let own_hit = f.hittable_rect();
        let hit = union(own_hit, desc.hittable);
        f.set_hittable_rect(hit);
        let vis = union(own_vis, desc.visible);
        let bounds = own_bounds.or(desc.bounds);
        if own_vis.is_none() {
            f.set_visible_rect(if shows_through(model, i) {
                desc.visible
            } else {
                None
            });
        }
        if own_bounds.is_none() {
            f.set_bounds(desc.bounds);
        }
        f.in_viewport = match (&f.visible_rect(), &vp) {
            (Some(r), Some(v)) => r.intersect(v).is_some(),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if let Some(p) = model.nodes[i].parent {
            let p = p.index();
            match pending.last_mut() {
                Some(top) if top.node == p => {
                    top.visible = union(top.visible, vis);
                    top.bounds = union(top.bounds, bounds);
                    top.hittable = union(top.hittable, hit);
                }
                _ => pending.push(Pending {
                    node: p,
                    visible: vis,
                    bounds,
                    hittable: hit,
                }),
            }
        }
    }
    facts
}

/// Whether a node whose own box cannot be seen counts as seen where its descendants are: only
/// when its own box does not stand for what it shows. That is a node without a box
/// (`display:contents`, a document) and an inline box, whose snapshot rectangle is its line
/// fragments and can be empty while it wraps blocks or images a person sees as its content.
/// A block or atomic box is seen through its own box alone: hidden by its own `visibility`
/// (a `visibility:visible` child is seen, not its hidden parent), with no area (its
/// overflowing content paints, and takes clicks, as that content), or clipped away (a child
/// escaping the clip is seen by itself). What it can be clicked through is
/// [`NodeFacts::hittable_rect`], which keeps its descendants.
fn shows_through(model: &Model, i: usize) -> bool {
    let Some(l) = model.nodes[i].layout else {
        return true;
    };
    let s = model.style(model.layout(l));
    !s.visibility.is_hidden() && s.display.is_inline()
}

/// The rectangles of a node's descendants, gathered while its subtree is walked bottom-up.
#[derive(Default)]
struct Pending {
    node: usize,
    visible: Option<Rect>,
    bounds: Option<Rect>,
    hittable: Option<Rect>,
}
