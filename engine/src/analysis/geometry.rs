//! Geometry: from the snapshot's document coordinates to top-level viewport CSS px, and the clip
//! rectangle every box is painted (and hit) through.
//!
//! Why (docs/chromium-facts.md, items 1, 3 and 5):
//! - `layout.bounds` and `textBoxes` are CSS px in the coordinates of the node's *own* document:
//!   viewport position plus that document's integer `scrollOffsetX/Y`. They do not change with the
//!   device pixel ratio, so no division is needed; the ratio is only reported.
//! - A same-process child document's viewport starts at its owner `<iframe>`'s content box. So a
//!   document's offset is the owner's content-box origin (in viewport coordinates) minus the child's
//!   own scroll; offsets compose down nested iframes.
//! - Overflow other than `visible` clips descendants to the padding box (`clientRects` give
//!   `clientLeft/Top/Width/Height`) — but only descendants whose containing-block chain passes
//!   through the clipping box: an absolutely positioned box escapes non-positioned overflow
//!   ancestors, a fixed one escapes all (unless an ancestor is transformed, filtered or paint
//!   contained). The root element's
//!   overflow (and `<body>`'s, when it propagates) applies to the viewport, not to a box.
//! - The legacy `clip: rect()` applies to absolutely positioned boxes and clips the box itself and
//!   its descendants.
//! - `clip-path: inset()` clips any box and all it paints, positioned descendants included; so
//!   do `circle()`, `ellipse()` and `polygon()`, to their bounding rectangle (the hit tester cuts
//!   the shape out of it); other shapes are left to the hit tester's uncertainty.
//! - `content-visibility: hidden` skips painting the element's contents.
//! - Hit-testing clips differently from painting in one case, measured against
//!   `DOM.getNodeForLocation`: a clipping box with a paint layer of its own (positioned, opacity,
//!   transform, ...) clips the hit tests of the descendants that share its layer at its *border
//!   box*, not its padding box; its scrollbars still take the clicks over them. So content
//!   scrolled under such a box's border takes the click there, although it is not painted there.
//!   Descendants with layers of their own are clipped at the padding box, as painted.

use super::Viewport;
use crate::model::{DocId, LayoutBox, Model, NodeId, Position, Rect, Style};

/// Where each document sits in the viewport and what each box is clipped by.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// The top-level viewport.
    pub viewport: Viewport,
    /// Per document: add to document coordinates to get top-level viewport coordinates.
    pub doc_offsets: Vec<(f64, f64)>,
    /// Per document: the part of the page the document can paint into (the content boxes of all
    /// enclosing iframes, intersected with their clips), viewport coordinates.
    /// [`Rect::infinite`] for the top-level document; empty when the owner iframe is not rendered.
    pub doc_clips: Vec<Rect>,
    /// The distinct clip rectangles, document coordinates; entry 0 is [`Rect::infinite`].
    clip_rects: Vec<Rect>,
    /// Per node: the clip that applies to the node's own box, as an index into `clip_rects`
    /// (read with [`Geometry::clip`]). An index, not the rectangle, because most nodes share
    /// their parent's clip: four bytes a node rather than a rectangle's thirty-two.
    clips: Vec<u32>,
    /// Per node, the clip of its hit tests (an index into `clip_rects`) where it differs from
    /// `clips` anywhere on the page (see the module docs); empty when it is `clips` for every
    /// node, as on most pages.
    hit_clips: Vec<u32>,
    /// The areas of the image maps in use ([`image_map_areas`]), found once for visibility and
    /// the hit tester alike.
    pub map_areas: Vec<MapArea>,
}

/// The padding box of a box, document coordinates: border box inset by `clientLeft/Top`, sized
/// `clientWidth/Height` (scrollbars excluded). Without DOM rects, the border box.
pub fn padding_box(model: &Model, node: NodeId) -> Option<Rect> {
    let l = model.layout_of(node)?;
    let style = model.style(l);
    Some(match model.client_rect(l) {
        Some(c) if c.width > 0.0 || c.height > 0.0 => {
            let z = zoom_of(l.bounds, c, style);
            Rect::new(
                l.bounds.x + c.x * z,
                l.bounds.y + c.y * z,
                c.width * z,
                c.height * z,
            )
        }
        _ => l.bounds,
    })
}

/// The scale a box is laid out at (CSS `zoom`, or a `scale()` transform), from its border box
/// and its client rectangle.
///
/// Why: `clientLeft/Top/Width/Height` are in the box's own unscaled px while the snapshot's
/// bounds are scaled, so under `zoom: 2` the client rectangle is half the padding box, and
/// content would be clipped away. The snapshot has no `zoom` style, so it is inferred: the border
/// box is the scale times the client size plus both borders (taken equal on each axis), plus a
/// scrollbar when the axis can scroll — one that `zoom` does not scale, one that a transform
/// does, or (right-to-left) one on the left, which `clientLeft` already counts. The scale is 1
/// unless both axes agree on another one under some choice of scrollbars, and none of those
/// choices fits 1.
fn zoom_of(b: Rect, c: Rect, style: &Style) -> f64 {
    let units_x = 2.0 * c.x + c.width;
    let units_y = 2.0 * c.y + c.height;
    if units_x < 8.0 || units_y < 8.0 || b.width <= 0.0 || b.height <= 0.0 {
        return 1.0;
    }
    // One unscaled px of rounding in the client size, on each axis.
    let tolerance = 1.5 / units_x.min(units_y) + 0.005;
    // (px of the border box, unscaled px of the client rectangle) a scrollbar adds.
    const NO_BAR: [(f64, f64); 1] = [(0.0, 0.0)];
    const BARS: [(f64, f64); 3] = [(0.0, 0.0), (SCROLLBAR, 0.0), (0.0, SCROLLBAR)];
    const BARS_X: [(f64, f64); 4] = [
        (0.0, 0.0),
        (SCROLLBAR, 0.0),
        (0.0, SCROLLBAR),
        (0.0, -SCROLLBAR),
    ];
    let bars_x: &[(f64, f64)] = if style.overflow_y.user_scrollable() {
        &BARS_X
    } else {
        &NO_BAR
    };
    let bars_y: &[(f64, f64)] = if style.overflow_x.user_scrollable() {
        &BARS
    } else {
        &NO_BAR
    };
    let mut found: Option<f64> = None;
    for (px_x, units_bar_x) in bars_x {
        for (px_y, units_bar_y) in bars_y {
            let zx = (b.width - px_x) / (units_x + units_bar_x);
            let zy = (b.height - px_y) / (units_y + units_bar_y);
            if (zx - 1.0).abs() <= tolerance && (zy - 1.0).abs() <= tolerance {
                return 1.0;
            }
            if zx > 0.0 && (zx - zy).abs() <= tolerance * zx.max(zy) {
                found.get_or_insert((zx + zy) / 2.0);
            }
        }
    }
    found.unwrap_or(1.0)
}

/// The content box of an `<iframe>` owner, document coordinates: the padding box without the
/// padding. The snapshot has no padding widths, so the padding is estimated from the child
/// document's viewport size (the owner's padding box minus the child's layout viewport, split
/// evenly); it is 0 for the usual iframe.
pub fn iframe_content_box(model: &Model, owner: NodeId, child: DocId) -> Option<Rect> {
    let pad = padding_box(model, owner)?;
    let mut pad_x = 0.0;
    let mut pad_y = 0.0;
    if let Some(root) = model.document_element(child) {
        if let Some(c) = model.layout_of(root).and_then(|l| model.client_rect(l)) {
            let scrollbar = |extra: f64| {
                if extra >= SCROLLBAR - 0.5 {
                    extra - SCROLLBAR
                } else {
                    extra
                }
            };
            // The child's root client size excludes its own scrollbars.
            let doc = model.doc(child);
            let dx = pad.width - c.width;
            let dy = pad.height - c.height;
            let dx = if doc.content_height > c.height + 0.5 {
                scrollbar(dx)
            } else {
                dx
            };
            let dy = if doc.content_width > c.width + 0.5 {
                scrollbar(dy)
            } else {
                dy
            };
            if dx > 0.5 {
                pad_x = (dx / 2.0).floor();
            }
            if dy > 0.5 {
                pad_y = (dy / 2.0).floor();
            }
        }
    }
    Some(Rect::new(
        pad.x + pad_x,
        pad.y + pad_y,
        (pad.width - 2.0 * pad_x).max(0.0),
        (pad.height - 2.0 * pad_y).max(0.0),
    ))
}

/// Whether a box paints itself in a paint layer of its own: positioned boxes, stacking contexts
/// (opacity, filters, transforms, `isolation`, ...). A box that is only an overflow clip gets a
/// paint order number of its own too, but is painted as part of its ancestor's layer.
pub fn paints_own_layer(l: &LayoutBox, style: &Style) -> bool {
    style.position.is_positioned() || l.stacking_context || style.transformed
}

/// Width of a classic scrollbar, CSS px (what headless Chromium draws; overlay scrollbars take
/// no room and leave the padding box as wide as the border box allows).
const SCROLLBAR: f64 = 15.0;

/// The scrollbars of a scroll container, document coordinates: the vertical one right of the
/// padding box (left of it right to left), the horizontal one below it; the corner between them
/// is neither. The snapshot gives the padding box (`clientRects`) but no border widths, so the
/// borders are taken equal on opposite sides: a scrollbar is there when its axis scrolls
/// (`scroll`, or `auto` with more content than room) and is as wide as the difference of the
/// two insets, up to `SCROLLBAR` (scaled by a transform).
pub fn scrollbars(model: &Model, node: NodeId) -> [Option<Rect>; 2] {
    let none = [None, None];
    let Some(l) = model.layout_of(node) else {
        return none;
    };
    let style = model.style(l);
    if !clips_own_overflow(model, node, style) {
        return none;
    }
    let (Some(c), Some(pb)) = (model.client_rect(l), padding_box(model, node)) else {
        return none;
    };
    let scroll = model.scroll_rect(l);
    let b = l.bounds;
    let shows = |o: crate::model::Overflow, content: Option<f64>, room: f64| match o {
        crate::model::Overflow::Scroll => true,
        crate::model::Overflow::Auto => content.is_none_or(|c| c > room + 0.5),
        _ => false,
    };
    let right_inset = b.right() - pb.right();
    let left_inset = pb.x - b.x;
    // Right to left, the vertical scrollbar is on the left: that side's inset is the wider by
    // the scrollbar. With borders taken equal on both sides, the difference of the insets is
    // the scrollbar, up to its width (scaled by a transform, not by `zoom`).
    let widest = SCROLLBAR * zoom_of(b, c, style).max(1.0);
    let on_left = left_inset - right_inset >= SCROLLBAR - 1.0;
    let width = (right_inset - left_inset).abs().min(widest);
    let height = (b.bottom() - pb.bottom() - (pb.y - b.y)).min(widest);
    let bar_x = if on_left { pb.x - width } else { pb.right() };
    let vertical = (shows(style.overflow_y, scroll.map(|s| s.height), c.height) && width >= 1.0)
        .then(|| Rect::new(bar_x, pb.y, width, pb.height));
    let horizontal = (shows(style.overflow_x, scroll.map(|s| s.width), c.width) && height >= 1.0)
        .then(|| Rect::new(pb.x, pb.bottom(), pb.width, height));
    [vertical, horizontal]
}

/// Whether the element's overflow clips (root element and propagated `<body>` overflow do not:
/// they apply to the viewport).
fn clips_own_overflow(model: &Model, node: NodeId, style: &Style) -> bool {
    if !style.clips_overflow() {
        return false;
    }
    // Overflow does not apply to inline boxes: an `overflow:hidden` link clips nothing of the
    // taller image inside it. It does to replaced elements, which are inline too: an `<svg>`
    // clips its shapes to its viewport.
    if style.display.is_inline()
        && !matches!(
            model.tag(node),
            Some("svg" | "video" | "canvas" | "object" | "embed" | "iframe" | "img")
        )
    {
        return false;
    }
    let n = model.node(node);
    if !n.is_element() {
        return false;
    }
    let Some(parent) = n.parent else {
        return true;
    };
    let pn = model.node(parent);
    if !pn.is_element() && pn.doc == n.doc {
        // The document element: its overflow is the viewport's.
        return false;
    }
    if model.is_tag(node, "body") && model.is_tag(parent, "html") {
        // `<body>`'s overflow propagates to the viewport when `<html>`'s is `visible`.
        let html_clips = model.style_of(parent).is_some_and(|s| s.clips_overflow());
        return html_clips;
    }
    true
}

impl Geometry {
    /// Computes document offsets and per-node clips. Linear in the number of nodes.
    pub fn new(model: &Model) -> Geometry {
        let m = &model.metrics;
        let top = model.docs.first();
        let viewport = Viewport {
            width: if m.viewport_width > 0.0 {
                m.viewport_width
            } else {
                top.map(|d| d.content_width).unwrap_or(0.0)
            },
            height: if m.viewport_height > 0.0 {
                m.viewport_height
            } else {
                top.map(|d| d.content_height).unwrap_or(0.0)
            },
            scroll_x: top.map(|d| d.scroll_x).unwrap_or(m.scroll_x),
            scroll_y: top.map(|d| d.scroll_y).unwrap_or(m.scroll_y),
            content_width: if m.content_width > 0.0 {
                m.content_width
            } else {
                top.map(|d| d.content_width).unwrap_or(0.0)
            },
            content_height: if m.content_height > 0.0 {
                m.content_height
            } else {
                top.map(|d| d.content_height).unwrap_or(0.0)
            },
            device_pixel_ratio: m.device_pixel_ratio,
        };

        let n = model.nodes.len();
        let mut clips = vec![0u32; n];
        // Clip for in-flow children, for absolutely positioned descendants, for fixed ones: as
        // indices into `rects`, because most nodes pass their parent's on unchanged, and an
        // index is an eighth of a rectangle's size.
        let mut rects: Vec<Rect> = vec![Rect::infinite()];
        let mut inner = vec![0u32; n];
        let mut abs_inner = vec![0u32; n];
        let mut fixed_inner = vec![0u32; n];
        // What descendants painted in the node's paint layer are hit through.
        let mut hit_inner = vec![0u32; n];
        let mut hit_clips = vec![0u32; n];
        let mut hit_differs = false;
        let empty = Rect::new(0.0, 0.0, 0.0, 0.0);
        let add = |rects: &mut Vec<Rect>, r: Rect| -> u32 {
            rects.push(r);
            rects.len() as u32 - 1
        };

        for i in 0..n {
            let id = NodeId::new(i as u32);
            let node = &model.nodes[i];
            let parent = node.parent.filter(|p| model.node(*p).doc == node.doc);
            let Some(p) = parent else {
                // A document root: nothing clips it in its own coordinates.
                continue;
            };
            let p = p.index();
            let Some(l) = node.layout.map(|l| model.layout(l)) else {
                // No box (display:contents, text without a box, ...): pass everything through.
                clips[i] = inner[p];
                hit_clips[i] = hit_inner[p];
                inner[i] = inner[p];
                abs_inner[i] = abs_inner[p];
                fixed_inner[i] = fixed_inner[p];
                hit_inner[i] = hit_inner[p];
                continue;
            };
            let style = model.style(l);
            // The top layer is painted over the whole document, outside every ancestor.
            let top_layer = node.is_element()
                && style.position.is_out_of_flow()
                && in_top_layer(model, id, style.position);
            let mut clip_at = match style.position {
                _ if top_layer => 0,
                Position::Absolute if node.is_element() => abs_inner[p],
                Position::Fixed if node.is_element() => fixed_inner[p],
                _ => inner[p],
            };
            if node.is_element() && style.position.is_out_of_flow() {
                if let Some(c) = style.clip {
                    let b = l.bounds;
                    let r = Rect::from_edges(
                        b.x + c.left.unwrap_or(0.0),
                        b.y + c.top.unwrap_or(0.0),
                        c.right.map(|r| b.x + r).unwrap_or(b.right()),
                        c.bottom.map(|v| b.y + v).unwrap_or(b.bottom()),
                    );
                    let clipped = rects[clip_at as usize].clip_to(&r);
                    clip_at = add(&mut rects, clipped);
                }
            }
            // `clip-path: inset()` clips the box and everything it paints, positioned
            // descendants included (the `clip-path: inset(50%)` "visually hidden" idiom).
            let mut clip_path_abs = abs_inner[p];
            let mut clip_path_fixed = fixed_inner[p];
            // A box that paints itself in a layer of its own is hit through the clip it is
            // painted through.
            let own_layer = node.is_element() && paints_own_layer(l, style);
            let mut hit_at = if own_layer || top_layer {
                clip_at
            } else {
                hit_inner[p]
            };
            // A `circle()`, `ellipse()` or `polygon()` clips to its bounding rectangle here; the
            // hit tester cuts the shape out of it.
            let clip_path_rect = match style.clip_path {
                crate::model::ClipPath::Inset(inset) => Some(inset.rect_in(l.bounds)),
                crate::model::ClipPath::Ellipse(e) => Some(e.rect_in(l.bounds)),
                crate::model::ClipPath::Polygon(poly) => Some(poly.rect_in(l.bounds)),
                _ => None,
            };
            if let (true, Some(r)) = (node.is_element(), clip_path_rect) {
                let same = hit_at == clip_at;
                let clipped = rects[clip_at as usize].clip_to(&r);
                clip_at = add(&mut rects, clipped);
                hit_at = if same {
                    clip_at
                } else {
                    let clipped = rects[hit_at as usize].clip_to(&r);
                    add(&mut rects, clipped)
                };
                let abs = rects[clip_path_abs as usize].clip_to(&r);
                clip_path_abs = add(&mut rects, abs);
                let fixed = rects[clip_path_fixed as usize].clip_to(&r);
                clip_path_fixed = add(&mut rects, fixed);
            }
            let clip = rects[clip_at as usize];
            clips[i] = clip_at;
            let hit_clip = rects[hit_at as usize];
            hit_clips[i] = hit_at;
            hit_differs |= hit_clip != clip;
            let mut own_inner = clip_at;
            let mut own_hit_inner = hit_at;
            // Paint containment (`contain: paint`, and `content-visibility: auto`, which implies
            // it) clips like `overflow: clip` on both axes; not on inline boxes nor on the root.
            let paint_contained = node.is_element()
                && (style.paint_contained
                    || style.content_visibility == crate::model::ContentVisibility::Auto)
                && !style.display.is_inline()
                && model.nodes[p].is_element();
            if paint_contained || clips_own_overflow(model, id, style) {
                if let Some(pb) = padding_box(model, id) {
                    let clip_x = paint_contained || style.overflow_x.clips();
                    let clip_y = paint_contained || style.overflow_y.clips();
                    let axes = |b: Rect| {
                        let mut r = Rect::infinite();
                        if clip_x {
                            r.x = b.x;
                            r.width = b.width;
                        }
                        if clip_y {
                            r.y = b.y;
                            r.height = b.height;
                        }
                        r
                    };
                    own_inner = add(&mut rects, clip.clip_to(&axes(pb)));
                    let hit_box = if own_layer { l.bounds } else { pb };
                    own_hit_inner = add(&mut rects, hit_clip.clip_to(&axes(hit_box)));
                }
            }
            if node.is_element()
                && style.content_visibility == crate::model::ContentVisibility::Hidden
            {
                own_inner = add(&mut rects, empty);
                own_hit_inner = own_inner;
            }
            inner[i] = own_inner;
            hit_inner[i] = own_hit_inner;
            // Paint containment and a filter, like a transform, make the box the containing
            // block of its absolutely positioned and fixed descendants.
            let contains_fixed = style.transformed || style.filtered || paint_contained;
            abs_inner[i] = if style.position.is_positioned() || contains_fixed {
                own_inner
            } else {
                clip_path_abs
            };
            fixed_inner[i] = if contains_fixed {
                own_inner
            } else if top_layer {
                0
            } else {
                clip_path_fixed
            };
        }

        // Documents, in pre-order of their roots (a parent document comes first).
        let mut doc_offsets = vec![(0.0, 0.0); model.docs.len()];
        let mut doc_clips = vec![Rect::infinite(); model.docs.len()];
        let mut docs: Vec<usize> = (0..model.docs.len()).collect();
        docs.sort_by_key(|&d| model.docs[d].root);
        for d in docs {
            let doc = &model.docs[d];
            let Some(owner) = doc.owner else {
                doc_offsets[d] = (-doc.scroll_x, -doc.scroll_y);
                continue;
            };
            let od = model.node(owner).doc.index();
            let (ox, oy) = doc_offsets[od];
            match iframe_content_box(model, owner, DocId::new(d as u32)) {
                Some(cb) => {
                    doc_offsets[d] = (cb.x + ox - doc.scroll_x, cb.y + oy - doc.scroll_y);
                    let owner_clip = rects[clips[owner.index()] as usize];
                    let visible = cb.clip_to(&owner_clip).translate(ox, oy);
                    doc_clips[d] = visible.clip_to(&doc_clips[od]);
                }
                None => {
                    doc_offsets[d] = (ox - doc.scroll_x, oy - doc.scroll_y);
                    doc_clips[d] = empty;
                }
            }
        }

        Geometry {
            viewport,
            doc_offsets,
            doc_clips,
            clip_rects: rects,
            clips,
            hit_clips: if hit_differs { hit_clips } else { Vec::new() },
            map_areas: image_map_areas(model),
        }
    }

    /// The clip rectangle that applies to the node's own box, in its document's coordinates
    /// ([`Rect::infinite`] when nothing clips it; zero-sized when clipped away).
    #[inline]
    pub fn clip(&self, node: NodeId) -> Rect {
        self.clip_rects[self.clips[node.index()] as usize]
    }

    /// The clip rectangle the node's own box is hit through, in its document's coordinates: its
    /// [`Geometry::clip`], except inside a clipping box with a paint layer of its own (see the
    /// module docs).
    #[inline]
    pub fn hit_clip(&self, node: NodeId) -> Rect {
        let at = self
            .hit_clips
            .get(node.index())
            .unwrap_or(&self.clips[node.index()]);
        self.clip_rects[*at as usize]
    }

    /// A rectangle in `doc`'s coordinates, in top-level viewport coordinates.
    #[inline]
    pub fn to_viewport(&self, doc: DocId, r: Rect) -> Rect {
        let (dx, dy) = self.doc_offsets[doc.index()];
        r.translate(dx, dy)
    }

    /// A viewport point in `doc`'s coordinates.
    #[inline]
    pub fn from_viewport(&self, doc: DocId, x: f64, y: f64) -> (f64, f64) {
        let (dx, dy) = self.doc_offsets[doc.index()];
        (x - dx, y - dy)
    }

    /// The node's border box (first layout box) in viewport coordinates.
    pub fn border_box(&self, model: &Model, node: NodeId) -> Option<Rect> {
        let l = model.layout_of(node)?;
        Some(self.to_viewport(model.node(node).doc, l.bounds))
    }

    /// The part of a document-coordinate rectangle of `node` that survives the node's clip and
    /// its document's clip, in viewport coordinates (not limited to the top-level viewport unless
    /// the document is a child document).
    pub fn clipped(&self, model: &Model, node: NodeId, r: Rect) -> Option<Rect> {
        let doc = model.node(node).doc;
        let local = r.intersect(&self.clip(node))?;
        self.to_viewport(doc, local)
            .intersect(&self.doc_clips[doc.index()])
    }
}

/// Whether an element is in its document's top layer: a `<dialog>` opened with `showModal()`, or
/// a shown popover (a popover that is not shown is `display:none`). The top layer paints above
/// everything else and escapes the clips and containing blocks of all its ancestors. Both are
/// out of flow (the user agent makes them `position:fixed`; an author may say `absolute`).
pub fn in_top_layer(model: &Model, node: NodeId, position: Position) -> bool {
    if !position.is_out_of_flow() {
        return false;
    }
    if model.is_tag(node, "dialog") {
        return is_modal_dialog(model, node, position);
    }
    model.has_attr(node, "popover")
}

/// Whether `node` is a `<dialog>` opened with `showModal()`: it is in the top layer with a
/// `::backdrop` over the whole viewport, and everything else in its document is inert. The user
/// agent style makes a modal dialog `position:fixed` (an open non-modal one is `absolute`); the
/// accessibility tree, where it has the node, says whether it is modal.
pub fn is_modal_dialog(model: &Model, node: NodeId, position: Position) -> bool {
    position == Position::Fixed
        && model.is_tag(node, "dialog")
        && model.has_attr(node, "open")
        && model
            .node(node)
            .ax
            .is_none_or(|a| model.ax_flag(a, crate::model::AxProp::Modal))
}

/// One `<area>` of an image map, placed over an `<img usemap>` that uses its `<map>`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapArea {
    pub area: NodeId,
    pub img: NodeId,
    /// Document coordinates: the shape's bounding box over the image, clipped to the image.
    pub rect: Rect,
    /// The shape is the rectangle itself (`rect`, `default`), not a circle or polygon in it.
    pub exact: bool,
}

/// The areas of every image map in use, per image in document order and, per image, in the
/// map's document order (the first area containing a point takes the click). Empty (and cheap) on the usual page, which has no `<area>`.
///
/// Why: an `<area>` has no layout box, yet Chromium's hit test answers the area (not the image)
/// inside its shape, and a click there follows the area's link. Its coordinates are CSS px from
/// the image's top-left corner (borders and padding of an image are rare and ignored).
pub fn image_map_areas(model: &Model) -> Vec<MapArea> {
    let area_tags = model.string_ids(|s| s == "area");
    if area_tags.is_empty() {
        return Vec::new();
    }
    // (map name, areas in document order)
    let mut maps: Vec<(&str, Vec<NodeId>)> = Vec::new();
    for (i, node) in model.nodes.iter().enumerate() {
        if !node.is_element() || !area_tags.contains(&node.tag) {
            continue;
        }
        let id = NodeId::new(i as u32);
        let Some(map) = model.ancestors(id).find(|a| model.is_tag(*a, "map")) else {
            continue;
        };
        for name in [model.attr(map, "name"), model.attr(map, "id")]
            .into_iter()
            .flatten()
        {
            match maps.iter_mut().find(|(n, _)| *n == name) {
                Some((_, areas)) => {
                    if !areas.contains(&id) {
                        areas.push(id)
                    }
                }
                None => maps.push((name, vec![id])),
            }
        }
    }
    if maps.is_empty() {
        return Vec::new();
    }
    let img_tags = model.string_ids(|s| s == "img");
    let mut out = Vec::new();
    for (i, node) in model.nodes.iter().enumerate() {
        let img = NodeId::new(i as u32);
        if !node.is_element() || !img_tags.contains(&node.tag) {
            continue;
        }
        let Some(name) = model.attr(img, "usemap").and_then(|u| u.strip_prefix('#')) else {
            continue;
        };
        let Some((_, areas)) = maps.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let Some(b) = model.layout_of(img).map(|l| l.bounds) else {
            continue;
        };
        for &area in areas {
            if let Some((shape, exact)) = area_shape(model, area) {
                let r = shape.translate(b.x, b.y);
                if let Some(rect) = r.intersect(&b) {
                    out.push(MapArea {
                        area,
                        img,
                        rect,
                        exact,
                    });
                }
            }
        }
    }
    out
}

/// The bounding box of an area's shape relative to its image, and whether it is that box
/// exactly. `None` for an area that takes no clicks (missing or malformed coordinates).
fn area_shape(model: &Model, area: NodeId) -> Option<(Rect, bool)> {
    let shape = model
        .attr(area, "shape")
        .unwrap_or("rect")
        .trim()
        .to_ascii_lowercase();
    let coords: Vec<f64> = model
        .attr(area, "coords")
        .unwrap_or("")
        .split([',', ' ', '\t', '\n', ';'])
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .unwrap_or(0.0)
        })
        .collect();
    match shape.as_str() {
        "default" => Some((Rect::infinite(), true)),
        "circle" | "circ" => {
            let [x, y, r] = coords.get(..3)?.try_into().ok()?;
            (r > 0.0).then(|| (Rect::new(x - r, y - r, 2.0 * r, 2.0 * r), false))
        }
        "poly" | "polygon" => {
            if coords.len() < 6 {
                return None;
            }
            let xs = coords.iter().step_by(2);
            let ys = coords.iter().skip(1).step_by(2);
            let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            Some((Rect::from_edges(x0, y0, x1, y1), false))
        }
        "rect" | "rectangle" => {
            let [a, b, c, d] = coords.get(..4)?.try_into().ok()?;
            let r = Rect::from_edges(a.min(c), b.min(d), a.max(c), b.max(d));
            (!r.is_empty()).then_some((r, true))
        }
        _ => None,
    }
}
