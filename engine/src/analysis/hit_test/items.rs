//! The items each node adds to its document's index: its box (or the fragments multicol breaks
//! it into, or the lines of an inline element), its scrollbars, its text fragments, the areas of
//! its image map, a modal dialog's backdrop, and the lines of a block that overflow it.

use super::grid::DocIndex;
use super::lines::{inline_line_rects, overflowing_lines, Columns};
use super::paint::{PaintSequence, Ranks, F_ATOMIC, F_BOX, F_INERT, F_IN_SVG, F_TEXT, F_UNCERTAIN};
use super::shapes::Shapes;
use super::{Item, NONE};
use crate::analysis::geometry::{is_modal_dialog, paints_own_layer, scrollbars, Geometry};
use crate::analysis::shape::{turned_quad, Shape};
use crate::model::{Model, NodeId, NodeKind, PointerEvents, Rect};

/// What the passes before the items found, which the items are made of.
pub(super) struct ItemInputs<'a> {
    pub(super) model: &'a Model,
    pub(super) geometry: &'a Geometry,
    pub(super) flags: &'a [u8],
    pub(super) shapes: &'a Shapes,
    pub(super) ranks: &'a Ranks,
    pub(super) order: &'a PaintSequence,
    pub(super) columns: &'a Columns,
}

/// Buffers kept from one node to the next.
#[derive(Default)]
pub(super) struct Scratch {
    lines: Vec<Rect>,
    /// An image's map areas: `(rect, key, area, exact)`.
    area_items: Vec<(Rect, u64, NodeId, bool)>,
    line_items: Vec<(Rect, u64, NodeId)>,
}

/// Where one node's items go, and what every item of the node shares.
struct NodeSink<'a> {
    doc: &'a mut DocIndex,
    shapes: &'a Shapes,
    /// The transforms turning the node, when they do.
    turn: Option<[f64; 4]>,
    clip: Rect,
    offset: (f64, f64),
    uncertain: bool,
}

impl NodeSink<'_> {
    /// Adds an item over `rect` (document coordinates) answering `answer`, cut by `shape` (an
    /// index into the shapes' definitions, [`NONE`] for none; `None` for the rectangle
    /// whatever turns the node); `snapped`: pixel-snapped and point-tested.
    fn add(
        &mut self,
        rect: Rect,
        snapped: bool,
        key: u64,
        answer: NodeId,
        child: u32,
        shape: Option<u32>,
    ) {
        let turn = self.turn;
        let r = if snapped && turn.is_none() {
            let sn = |v: f64| (v + 0.5).floor();
            Rect::from_edges(sn(rect.x), sn(rect.y), sn(rect.right()), sn(rect.bottom()))
        } else {
            rect
        };
        let Some(r) = placed(r, &self.clip, self.offset, self.doc.region) else {
            return;
        };
        let (dx, dy) = self.offset;
        let doc = &mut *self.doc;
        let mut unsure = self.uncertain;
        let shape = match (turn, shape) {
            (_, None) => None,
            (Some(m), Some(_)) => match turned_quad(rect, m) {
                Some((q, assumed)) => {
                    unsure |= assumed;
                    Some(Shape::Quad(q))
                }
                None => {
                    unsure = true;
                    None
                }
            },
            (None, Some(k)) => self.shapes.defs.get(k as usize).copied(),
        };
        let shape = match shape {
            Some(sh) => {
                doc.shapes.push(sh.translate(dx, dy));
                doc.shapes.len() as u32 - 1
            }
            None => NONE,
        };
        doc.items.push(Item {
            rect: r,
            key,
            node: answer,
            child_doc: child,
            snapped: snapped && turn.is_none(),
            uncertain: unsure,
            shape,
        });
    }

    /// Adds an item over `rect` as it is: no shape, no snapping.
    fn push_plain(&mut self, rect: Rect, key: u64, node: NodeId, uncertain: bool) {
        let Some(r) = placed(rect, &self.clip, self.offset, self.doc.region) else {
            return;
        };
        self.doc.items.push(Item {
            rect: r,
            key,
            node,
            child_doc: NONE,
            snapped: false,
            uncertain,
            shape: NONE,
        });
    }
}

impl ItemInputs<'_> {
    /// The items of node `i`: its box and its text where they can be hit.
    pub(super) fn node_items(&self, i: usize, docs: &mut [DocIndex], scratch: &mut Scratch) {
        let model = self.model;
        let fl = self.flags[i];
        if fl & F_BOX == 0 {
            return;
        }
        let node = &model.nodes[i];
        let d = node.doc.index();
        if docs[d].region.is_empty() || node.kind == NodeKind::Document {
            return;
        }
        let id = NodeId::new(i as u32);
        let Some(lid) = node.layout else {
            return;
        };
        let l = model.layout(lid);
        let s = model.style(l);
        if s.pointer_events == PointerEvents::None || s.visibility.is_hidden() || fl & F_INERT != 0
        {
            return;
        }
        let uncertain = fl & F_UNCERTAIN != 0 || s.transform_3d;
        let mut sink = NodeSink {
            doc: &mut docs[d],
            shapes: self.shapes,
            turn: self.shapes.turn(i),
            clip: self.geometry.hit_clip(id),
            offset: self.geometry.doc_offsets[d],
            uncertain,
        };
        let backdrop = if node.is_element() {
            self.element_items(i, &mut sink, scratch)
        } else {
            None
        };
        if fl & F_TEXT != 0 {
            self.text_items(i, &mut sink);
        }
        for (rect, key, area, exact) in scratch.area_items.drain(..) {
            sink.push_plain(rect, key, area, uncertain || !exact);
        }
        if let Some(key) = backdrop {
            let doc = &mut *sink.doc;
            doc.items.push(Item {
                rect: doc.region,
                key,
                node: id,
                child_doc: NONE,
                snapped: false,
                uncertain: false,
                shape: NONE,
            });
        }
    }

    /// The items of element `i`'s own box: its box (or its column fragments, or its lines when
    /// it is inline), its scrollbars; its image map's areas are left in `scratch.area_items`.
    /// Returns the key of a modal dialog's backdrop.
    fn element_items(
        &self,
        i: usize,
        sink: &mut NodeSink<'_>,
        scratch: &mut Scratch,
    ) -> Option<u64> {
        let model = self.model;
        let (fl, seq) = (self.flags[i], &self.order.seq);
        let node = &model.nodes[i];
        let id = NodeId::new(i as u32);
        let l = model.layout_of(id)?;
        let s = model.style(l);
        // The shape of the node's own box; its inline lines take what cuts its content.
        let own_shape = self.shapes.own(i);
        let content_shape = self.shapes.inherited(i);
        let areas = &self.geometry.map_areas;
        let img_areas = if areas.is_empty() {
            &[][..]
        } else {
            let start = areas.partition_point(|a| a.img.index() < i);
            let end = areas.partition_point(|a| a.img.index() <= i);
            &areas[start..end]
        };
        let rank = |own_box: bool| self.ranks.rank(i, l.paint_order, own_box);
        let inline = s.display.is_inline() && fl & (F_ATOMIC | F_IN_SVG) == 0;
        let key = (rank(true) << 32) | u64::from(seq[i]);
        for (k, a) in img_areas.iter().enumerate() {
            // The first area of the map that contains the point wins (the image reserved
            // one number per area, after its own).
            let above = (img_areas.len() - k) as u32;
            let seq = seq[i].saturating_add(above);
            let key = (rank(true) << 32) | u64::from(seq);
            scratch.area_items.push((a.rect, key, a.area, a.exact));
        }
        let mut backdrop = None;
        if is_modal_dialog(model, id, s.position) {
            // Its `::backdrop` covers the viewport right under it; the snapshot has no
            // node for it. A click there goes to the dialog (the event's target).
            backdrop = Some(key - 1);
        }
        let child = node.content_document.map(|c| c.get()).unwrap_or(NONE);
        let lines = &mut scratch.lines;
        if !inline {
            if !l.bounds.is_empty() {
                if self.columns.fragments(model, i, l.bounds, lines) {
                    for r in lines.drain(..) {
                        sink.add(r, false, key, id, child, Some(own_shape));
                    }
                } else {
                    sink.add(l.bounds, false, key, id, child, Some(own_shape));
                }
            }
            if s.clips_overflow() && paints_own_layer(l, s) {
                // The content of a scroller with a layer of its own is hit up to the
                // border box (see `geometry`), but its scrollbars take the clicks over
                // it: above everything else of its layer.
                let top = rank(true).max(rank(false));
                for bar in scrollbars(model, id).into_iter().flatten() {
                    sink.add(
                        bar,
                        false,
                        (top << 32) | u64::from(u32::MAX),
                        id,
                        NONE,
                        None,
                    );
                }
            }
        } else if !l.bounds.is_empty() {
            inline_line_rects(model, self.flags, i, l.bounds, lines);
            for r in lines.drain(..) {
                sink.add(r, s.has_background, key, id, child, Some(content_shape));
            }
        }
        backdrop
    }

    /// The items of node `i`'s text fragments, answering the node when it is an element (a
    /// pseudo-element's generated text), else its parent.
    fn text_items(&self, i: usize, sink: &mut NodeSink<'_>) {
        let model = self.model;
        let node = &model.nodes[i];
        let id = NodeId::new(i as u32);
        let Some(lid) = node.layout else {
            return;
        };
        let l = model.layout(lid);
        let content_shape = self.shapes.inherited(i);
        let answer = if node.is_element() {
            id
        } else {
            node.parent.unwrap_or(id)
        };
        let key =
            (self.ranks.rank(i, l.paint_order, false) << 32) | u64::from(self.order.text_seq[i]);
        let mut b = Some(lid);
        while let Some(bid) = b {
            let bl = model.layout(bid);
            let style = model.style(bl);
            let hidden =
                style.pointer_events == PointerEvents::None || style.visibility.is_hidden();
            if !hidden {
                for k in bl.text_boxes_start..bl.text_boxes_end {
                    let t = &model.text_boxes[k as usize];
                    if self.columns.is_misplaced(k) {
                        continue;
                    }
                    if !t.bounds.is_empty() {
                        sink.add(t.bounds, true, key, answer, NONE, Some(content_shape));
                    }
                }
            }
            b = bl.next_for_node;
        }
    }

    /// The items of the lines of block `i` that overflow its border box.
    pub(super) fn overflowing_line_items(
        &self,
        i: usize,
        docs: &mut [DocIndex],
        scratch: &mut Scratch,
    ) {
        let model = self.model;
        overflowing_lines(
            model,
            self.flags,
            self.columns,
            self.order,
            self.ranks,
            i,
            &mut scratch.line_items,
        );
        for (rect, key, item_node) in scratch.line_items.drain(..) {
            let d = model.nodes[i].doc.index();
            let region = docs[d].region;
            let clip = self.geometry.hit_clip(item_node);
            let (dx, dy) = self.geometry.doc_offsets[d];
            let Some(r) = placed(rect, &clip, (dx, dy), region) else {
                continue;
            };
            docs[d].items.push(Item {
                rect: r,
                key,
                node: NodeId::new(i as u32),
                child_doc: NONE,
                snapped: false,
                uncertain: self.flags[i] & F_UNCERTAIN != 0 || self.shapes.turn(i).is_some(),
                shape: NONE,
            });
        }
    }
}

/// An item's rectangle in the viewport: `rect` (its document's coordinates) clipped by `clip`,
/// moved by the document's offset, kept within the document's `region` (grown by a pixel for
/// rounding). `None` when nothing of it is left.
fn placed(rect: Rect, clip: &Rect, (dx, dy): (f64, f64), region: Rect) -> Option<Rect> {
    rect.intersect(clip)?
        .translate(dx, dy)
        .intersect(&region.inflate(1.0))
}
