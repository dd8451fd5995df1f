//! The paint order of a model's boxes and text, as far as hit-testing needs it (rule 7 of the
//! hit tester's docs): which paint layer each box paints in, the ranks of the layers (lifted
//! above their stacking context's negative-z layers), and, inside a layer, the order the paint
//! simulation numbers its boxes and text in.

use super::NONE;
use crate::analysis::geometry::MapArea;
use crate::model::{ClipPath, Display, DocId, Float, Model, NodeId};

/// Elements whose content is replaced (they paint atomically).
pub(super) fn is_replaced(tag: &str) -> bool {
    matches!(
        tag,
        "img"
            | "video"
            | "canvas"
            | "iframe"
            | "frame"
            | "embed"
            | "object"
            | "input"
            | "select"
            | "textarea"
            | "audio"
            | "meter"
            | "progress"
    )
}

pub(super) fn is_block_level(d: Display) -> bool {
    matches!(
        d,
        Display::Block
            | Display::ListItem
            | Display::Flex
            | Display::Grid
            | Display::Table
            | Display::TablePart
            | Display::FlowRoot
            | Display::Other
    )
}

/// Whether node `j` is an element whose (first) layout box is block-level.
pub(super) fn is_block_element(model: &Model, j: usize) -> bool {
    model.nodes[j].is_element()
        && model
            .layout_of(NodeId::new(j as u32))
            .is_some_and(|l| is_block_level(model.style(l).display))
}

pub(super) const F_BOX: u8 = 1;
pub(super) const F_LAYER: u8 = 2;
pub(super) const F_ATOMIC: u8 = 4;
pub(super) const F_FLOAT: u8 = 8;
pub(super) const F_TEXT: u8 = 16;
pub(super) const F_UNCERTAIN: u8 = 32;
pub(super) const F_IN_SVG: u8 = 64;
/// Inside an `inert` subtree: hit-testing passes through it as through `pointer-events:none`
/// (HTML's rule for inert nodes, which Chromium follows), though its style says `auto`.
pub(super) const F_INERT: u8 = 128;

/// What the top-down pass finds of each node, indexed by node.
pub(super) struct NodeClasses {
    /// The `F_*` flags.
    pub(super) flags: Vec<u8>,
    /// The nearest ancestor with a box in the node's document ([`NONE`] for none).
    box_parent: Vec<u32>,
    /// The paint layer the node paints in: itself when it is one, else its box parent's.
    layer_of: Vec<u32>,
    /// Each node's own paint order (`i64::MIN` without a box), read with the rest of its box:
    /// the bottom-up pass of [`Ranks::new`] over a long page then streams this table rather
    /// than every layout box once more.
    paint_order: Vec<i64>,
    /// What the paint simulation reads.
    paint_nodes: Vec<PaintNode>,
}

impl NodeClasses {
    /// Top-down: boxes, layers, atomic contexts, uncertainty, inertness.
    pub(super) fn new(model: &Model) -> NodeClasses {
        let n = model.nodes.len();
        let mut flags = vec![0u8; n];
        let mut box_parent = vec![NONE; n];
        let mut layer_of = vec![NONE; n];
        let mut paint_order = vec![i64::MIN; n];
        let mut paint_nodes: Vec<PaintNode> = Vec::with_capacity(n);
        // The attribute names that are `inert` (none on the usual page).
        let inert_names = model.string_ids(|s| s.eq_ignore_ascii_case("inert"));
        for i in 0..n {
            let node = &model.nodes[i];
            let same_doc_parent = node
                .parent
                .filter(|p| model.node(*p).doc == node.doc)
                .map(|p| p.index());
            let bp = same_doc_parent.map(|p| {
                if flags[p] & F_BOX != 0 {
                    p as u32
                } else {
                    box_parent[p]
                }
            });
            box_parent[i] = bp.unwrap_or(NONE);
            let mut fl = 0u8;
            let mut kind = if node.is_element() { P_ELEMENT } else { 0 };
            if let Some(p) = same_doc_parent {
                fl |= flags[p] & (F_UNCERTAIN | F_IN_SVG | F_INERT);
                if model.is_tag(NodeId::new(p as u32), "svg") {
                    fl |= F_IN_SVG | F_UNCERTAIN;
                }
            }
            if !inert_names.is_empty()
                && node.is_element()
                && model
                    .attrs(NodeId::new(i as u32))
                    .iter()
                    .any(|a| inert_names.contains(&a.name))
            {
                fl |= F_INERT;
            }
            if let Some(lid) = node.layout {
                fl |= F_BOX;
                let l = model.layout(lid);
                paint_order[i] = l.paint_order;
                let mut b = Some(lid);
                while let Some(id) = b {
                    if model.layout(id).text_boxes_end > model.layout(id).text_boxes_start {
                        fl |= F_TEXT;
                    }
                    b = model.layout(id).next_for_node;
                }
                let s = model.style(l);
                if node.is_element() && is_block_level(s.display) {
                    kind |= P_BLOCK;
                }
                // A `clip-path` shape other than an inset, an ellipse or a polygon cuts the box to
                // something the snapshot does not describe; a 3-D transform turns it out of the
                // plane.
                if s.transform_3d || s.clip_path == ClipPath::Shape {
                    fl |= F_UNCERTAIN;
                }
                if node.is_element() {
                    let parent_po = (box_parent[i] != NONE)
                        .then(|| {
                            model
                                .layout_of(NodeId::new(box_parent[i]))
                                .map(|b| b.paint_order)
                        })
                        .flatten();
                    let layer = match parent_po {
                        None => true,
                        Some(po) => po != l.paint_order,
                    };
                    if layer || node.parent.is_none() {
                        fl |= F_LAYER;
                    }
                    let parent_flex = (box_parent[i] != NONE)
                        && model
                            .layout_of(NodeId::new(box_parent[i]))
                            .is_some_and(|b| model.style(b).display.is_flex_or_grid());
                    let replaced = node.pseudo.is_none() && is_replaced(model.str(node.tag));
                    let float = s.float != Float::None && !s.position.is_out_of_flow();
                    if float {
                        fl |= F_FLOAT;
                    }
                    if s.display.is_atomic_inline()
                        || replaced
                        || float
                        || (parent_flex && !s.position.is_out_of_flow())
                        || (model.is_tag(NodeId::new(i as u32), "svg") && fl & F_IN_SVG == 0)
                    {
                        fl |= F_ATOMIC;
                    }
                } else if node.parent.is_none() || same_doc_parent.is_none() {
                    // The `#document` box (the layout view).
                    fl |= F_LAYER;
                }
            }
            flags[i] = fl;
            paint_nodes.push(PaintNode {
                end: node.subtree_end.get(),
                doc: node.doc,
                flags: fl,
                kind,
                painted: false,
            });
            layer_of[i] = if fl & F_LAYER != 0 {
                i as u32
            } else if box_parent[i] != NONE {
                layer_of[box_parent[i] as usize]
            } else {
                NONE
            };
        }
        NodeClasses {
            flags,
            box_parent,
            layer_of,
            paint_order,
            paint_nodes,
        }
    }
}

/// The rank of each item: its paint layer's order, and the content of a stacking context with
/// negative-z children lifted just above the last of them.
pub(super) struct Ranks {
    layer_of: Vec<u32>,
    /// Per paint layer owning a stacking context, the highest paint order inside its
    /// negative-z children; -1 for none.
    neg_end: Vec<i64>,
}

impl Ranks {
    /// Negative-z layers: the content of their stacking context is lifted above them.
    pub(super) fn new(model: &Model, classes: &mut NodeClasses) -> Ranks {
        let n = model.nodes.len();
        let NodeClasses {
            flags,
            box_parent,
            layer_of,
            paint_order,
            ..
        } = classes;
        // The highest paint order in each subtree, from the nodes' own.
        let mut subtree_max = std::mem::take(paint_order);
        let mut neg_end: Vec<i64> = vec![-1; n];
        {
            for i in (0..n).rev() {
                let m = subtree_max[i];
                if let Some(p) = model.nodes[i].parent {
                    if model.node(p).doc == model.nodes[i].doc {
                        let pm = &mut subtree_max[p.index()];
                        *pm = (*pm).max(m);
                    }
                }
            }
            for i in 0..n {
                if flags[i] & F_LAYER == 0 {
                    continue;
                }
                let Some(l) = model.layout_of(NodeId::new(i as u32)) else {
                    continue;
                };
                if model.style(l).z_index.is_none_or(|z| z >= 0) {
                    continue;
                }
                // The stacking context this layer belongs to.
                let mut a = box_parent[i];
                while a != NONE {
                    if model
                        .layout_of(NodeId::new(a))
                        .is_some_and(|b| b.stacking_context)
                    {
                        break;
                    }
                    a = box_parent[a as usize];
                }
                if a != NONE {
                    let owner = layer_of[a as usize];
                    let owner = if owner == NONE { a } else { owner };
                    let e = &mut neg_end[owner as usize];
                    *e = (*e).max(subtree_max[i]);
                }
            }
        }

        Ranks {
            layer_of: std::mem::take(layer_of),
            neg_end,
        }
    }

    /// The rank of an item of `node` painted at paint order `po`; `own_box`: the item is the
    /// node's own box (a layer's own box stays below its lifted content).
    #[inline]
    pub(super) fn rank(&self, node: usize, po: i64, own_box: bool) -> u64 {
        let layer = self.layer_of[node];
        let base = (po.max(0) as u64).saturating_mul(4);
        if layer != NONE && !(own_box && layer as usize == node) {
            let e = self.neg_end[layer as usize];
            if e >= 0 {
                return (e as u64).saturating_mul(4) + 3;
            }
        }
        base
    }
}

/// What the paint simulation reads of a node, packed apart from the model.
///
/// Why: the simulation walks each atomic context's subtree three times (once per phase), and on
/// a long page the document's context is the whole page; three walks over the model's nodes,
/// their layout boxes and styles stream far more memory than fits in cache, while this table
/// (twelve bytes a node) mostly stays there.
#[derive(Debug, Clone, Copy, Default)]
struct PaintNode {
    /// End of the node's subtree (pre-order index).
    end: u32,
    doc: DocId,
    /// The hit tester's `F_*` flags.
    flags: u8,
    /// `P_*` bits.
    kind: u8,
    /// Already painted, as the root of an atomic context.
    painted: bool,
}

/// An element (not text, a comment or a document).
const P_ELEMENT: u8 = 1;
/// An element whose (first) layout box is block-level: painted in the block phase.
const P_BLOCK: u8 = 2;

struct Painter {
    nodes: Vec<PaintNode>,
    /// Paint sequence of the node's own box item.
    seq: Vec<u32>,
    /// Paint sequence of the node's text fragments.
    text_seq: Vec<u32>,
    next: u32,
    /// Images with an image map, by node, and how many areas: each area is hit above its image
    /// and below whatever paints after it, so the image reserves one number per area.
    area_counts: Vec<(u32, u32)>,
}

struct Frame {
    root: u32,
    phase: u8,
    cursor: u32,
    end: u32,
}

impl Painter {
    fn bump(&mut self) -> u32 {
        self.next = self.next.saturating_add(1);
        self.next
    }

    /// Simulates painting one atomic context (and, nested, the atomic contexts inside it),
    /// numbering boxes and text in paint order.
    fn paint(&mut self, root: u32) {
        let mut stack: Vec<Frame> = Vec::new();
        self.start(root, &mut stack);
        while let Some(f) = stack.last_mut() {
            let doc = self.nodes[f.root as usize].doc;
            let mut push: Option<u32> = None;
            while f.cursor < f.end {
                let j = f.cursor;
                let node = self.nodes[j as usize];
                let fl = node.flags;
                if node.doc != doc {
                    f.cursor = node.end;
                    continue;
                }
                if j != f.root && fl & (F_LAYER | F_ATOMIC) != 0 {
                    f.cursor = node.end;
                    if fl & F_LAYER != 0 {
                        continue;
                    }
                    let float = fl & F_FLOAT != 0;
                    if (f.phase == 1 && float) || (f.phase == 2 && !float) {
                        push = Some(j);
                        break;
                    }
                    continue;
                }
                f.cursor += 1;
                if fl & F_BOX == 0 {
                    continue;
                }
                let block = node.kind & P_BLOCK != 0;
                match f.phase {
                    0 if block => {
                        self.next = self.next.saturating_add(1);
                        self.seq[j as usize] = self.next;
                    }
                    2 => {
                        if node.kind & P_ELEMENT != 0 && !block {
                            self.next = self.next.saturating_add(1);
                            self.seq[j as usize] = self.next;
                        }
                        if fl & F_TEXT != 0 {
                            self.next = self.next.saturating_add(1);
                            self.text_seq[j as usize] = self.next;
                        }
                    }
                    _ => {}
                }
            }
            if let Some(j) = push {
                self.start(j, &mut stack);
                continue;
            }
            let Some(f) = stack.last_mut() else {
                break;
            };
            if f.phase < 2 {
                f.phase += 1;
                f.cursor = f.root + 1;
                if f.phase == 2 && self.nodes[f.root as usize].flags & F_TEXT != 0 {
                    let r = f.root as usize;
                    let s = self.bump();
                    self.text_seq[r] = s;
                }
            } else {
                stack.pop();
            }
        }
    }

    fn start(&mut self, root: u32, stack: &mut Vec<Frame>) {
        self.nodes[root as usize].painted = true;
        let s = self.bump();
        self.seq[root as usize] = s;
        if !self.area_counts.is_empty() {
            if let Ok(k) = self.area_counts.binary_search_by_key(&root, |a| a.0) {
                self.next = self.next.saturating_add(self.area_counts[k].1);
            }
        }
        stack.push(Frame {
            root,
            phase: 0,
            cursor: root + 1,
            end: self.nodes[root as usize].end,
        });
    }
}

/// Where each node's box and its text come in the paint simulation, by node: later paints
/// above.
pub(super) struct PaintSequence {
    pub(super) seq: Vec<u32>,
    pub(super) text_seq: Vec<u32>,
}

/// The paint sequence of every node, by the paint simulation of every layer, then of every
/// atomic context no layer painted.
pub(super) fn paint_sequence(classes: &mut NodeClasses, areas: &[MapArea]) -> PaintSequence {
    let n = classes.paint_nodes.len();
    let mut area_counts: Vec<(u32, u32)> = Vec::new();
    for a in areas {
        match area_counts.last_mut() {
            Some((img, count)) if *img == a.img.get() => *count += 1,
            _ => area_counts.push((a.img.get(), 1)),
        }
    }
    let mut painter = Painter {
        nodes: std::mem::take(&mut classes.paint_nodes),
        seq: vec![0; n],
        text_seq: vec![0; n],
        next: 0,
        area_counts,
    };
    for i in 0..n {
        let p = painter.nodes[i];
        if p.flags & F_LAYER != 0 && !p.painted {
            painter.paint(i as u32);
        }
    }
    for i in 0..n {
        let p = painter.nodes[i];
        if p.flags & F_ATOMIC != 0 && !p.painted {
            painter.paint(i as u32);
        }
    }
    let Painter { seq, text_seq, .. } = painter;
    PaintSequence { seq, text_seq }
}
