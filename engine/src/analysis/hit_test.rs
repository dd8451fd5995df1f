//! Hit-testing from the snapshot alone: which node receives a click at a viewport point.
//!
//! Built once per model ([`HitTester::new`]), then each query looks at one cell of a uniform grid
//! over the viewport whose items are sorted topmost first, so a query stops at the first item that
//! contains the point (items over many cells are filed in a second, coarser grid, and a query
//! walks both cells' lists as one). Only what can be hit is indexed: items outside the viewport are dropped at
//! build time, which keeps a 36k-node page down to a few hundred items.
//!
//! The rules, following docs/chromium-facts.md (hit-testing from the snapshot), which agreed with
//! `DOM.getNodeForLocation` on 99.99% of grid points:
//! 1. Coordinates: bounds are in the node's own document coordinates; see [`super::geometry`].
//! 2. The point `(x, y)` is the 1×1 square `[x, x+1) × [y, y+1)`: a box is hit when it overlaps the
//!    square. Text fragments and decorated inline boxes are pixel-snapped (edges rounded half up)
//!    and point-tested instead.
//! 3. Same-process iframes: a hit on the `<iframe>` inside its content box continues in the child
//!    document.
//! 4. `pointer-events:none` and `visibility:hidden|collapse` boxes are skipped; their descendants
//!    still count. `opacity:0` boxes *are* hit. `inert` subtrees are skipped whole. A modal
//!    `<dialog>`'s `::backdrop` (not in the snapshot) covers the viewport right under the dialog.
//! 5. Boxes are clipped by overflow ancestors on their containing-block chain, by `clip: rect()` and
//!    by `clip-path: inset()`; inside a clipping box with a paint layer of its own, at that box's
//!    border box, its scrollbars taking the clicks over them ([`Geometry::hit_clip`]).
//! 6. Text is hit through its fragments and answers as its parent element (a pseudo-element's
//!    generated text answers as the pseudo-element). Undecorated inline elements have no box of
//!    their own: they are hit through their children, and an inline holding a block is hit
//!    through it. Lines overflowing their block still answer the block. A block that multicol
//!    breaks across columns is hit per fragment, and the text the snapshot misplaces in its later
//!    columns is not hit (see `ColumnScan`).
//! 7. Order: `paintOrders` numbers paint layers; higher paints later (on top). A negative-z layer
//!    is numbered above its stacking context but paints below its content, so the content of a
//!    stacking context with negative-z children is ranked just above the last of them. Inside a
//!    layer, painting is simulated: per atomic context (the layer itself, inline-blocks, replaced
//!    elements, flex/grid items, floats) block backgrounds first, then floats, then inline content
//!    (text, inline boxes, atomic inlines, each atomic box painted whole at its place); later wins.
//! 8. Shapes ([`super::shape`]): rounded corners (`border-radius`) cut a box's own area, and its
//!    content's when it clips its overflow; `clip-path: circle() | ellipse() | polygon()` cuts
//!    the box and all it paints; a box turned by a rotation or a skew (its own transform or an
//!    ancestor's) is hit inside the turned box rebuilt from its bounding box, not over the
//!    bounding box.
//! 9. Unsure: the winning box (or its shape) has an edge inside the pixel, the point is inside an
//!    SVG shape's bounding box, a 3-D transformed box, a box cut by another `clip-path` shape,
//!    or a turned box whose size the bounding box does not tell (near 45°, taken as square).

use super::geometry::{is_modal_dialog, paints_own_layer, scrollbars, Geometry};
use super::shape::{turned_quad, Shape};
use super::visibility::union;
use crate::model::{
    ClipPath, Display, DocId, Float, Model, NodeId, PointerEvents, PseudoKind, Rect,
};

/// Grid cell size, CSS px.
const CELL: f64 = 32.0;
/// A coarse cell is this many grid cells wide and high.
const COARSE: f64 = 8.0;
/// An item over more grid cells than this is filed in the coarse grid instead: a page's
/// background and its containers cover thousands of small cells each, and filing them there
/// took more of a small page's analysis than all its queries.
const FINE_SPAN_MAX: usize = 64;
const NONE: u32 = u32::MAX;

/// What a hit test found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitResult {
    /// The node that receives the click (an element, or a pseudo-element).
    pub node: NodeId,
    /// The snapshot alone cannot be sure (near an edge, SVG, transforms): confirm with
    /// `DOM.getNodeForLocation` or pick another point.
    pub unsure: bool,
}

#[derive(Debug, Clone, Copy)]
struct Item {
    /// What can be hit, viewport coordinates, clipped.
    rect: Rect,
    /// Topmost first: (paint rank << 32) | paint sequence.
    key: u64,
    /// The node the hit answers with.
    node: NodeId,
    /// The same-process child document of an `<iframe>` item.
    child_doc: u32,
    /// Point-tested (pixel-snapped text and inline boxes) rather than square-tested.
    snapped: bool,
    /// SVG descendant, 3-D transformed, or turned with a size the snapshot does not tell.
    uncertain: bool,
    /// The shape cutting the rectangle (rounded corners, an ellipse, a turned box), an index
    /// into [`DocIndex::shapes`]; [`NONE`] for the rectangle itself.
    shape: u32,
}

impl Item {
    #[inline]
    fn hit(&self, x: f64, y: f64, shapes: &[Shape]) -> bool {
        let r = &self.rect;
        let in_rect = if self.snapped {
            x >= r.x && x < r.right() && y >= r.y && y < r.bottom()
        } else {
            r.x < x + 1.0 && r.right() > x && r.y < y + 1.0 && r.bottom() > y
        };
        in_rect
            && shapes
                .get(self.shape as usize)
                .is_none_or(|s| s.overlaps(x, y, x + 1.0, y + 1.0))
    }

    /// An edge of the hit area passes through the pixel: Chromium may decide either way.
    fn edge_in_pixel(&self, x: f64, y: f64, shapes: &[Shape]) -> bool {
        if shapes
            .get(self.shape as usize)
            .is_some_and(|s| s.hit_pixel(x, y).1)
        {
            return true;
        }
        if self.snapped {
            return false;
        }
        let r = &self.rect;
        let inside = |e: f64, p: f64| e > p + 0.02 && e < p + 0.98;
        inside(r.x, x) || inside(r.right(), x) || inside(r.y, y) || inside(r.bottom(), y)
    }
}

#[derive(Debug, Clone, Default)]
struct DocIndex {
    /// Where this document can be hit, viewport coordinates.
    region: Rect,
    items: Vec<Item>,
    /// The shapes items are cut by (few: most items are rectangles).
    shapes: Vec<Shape>,
    /// The items over a few cells, by small cell.
    fine: Grid,
    /// The items over many cells, by cells [`COARSE`] times larger.
    coarse: Grid,
    /// Answer where no item is hit: the document element.
    fallback: Option<NodeId>,
}

impl DocIndex {
    fn query(&self, x: f64, y: f64) -> Option<&Item> {
        let (dx, dy) = (x - self.region.x, y - self.region.y);
        let (mut fine, mut coarse) = (self.fine.at(dx, dy), self.coarse.at(dx, dy));
        // Both lists are topmost first (ascending item index); walk them as one.
        loop {
            let next = match (fine.first(), coarse.first()) {
                (Some(&f), Some(&c)) if f < c => {
                    fine = &fine[1..];
                    f
                }
                (_, Some(&c)) => {
                    coarse = &coarse[1..];
                    c
                }
                (Some(&f), None) => {
                    fine = &fine[1..];
                    f
                }
                (None, None) => return None,
            };
            let item = &self.items[next as usize];
            if item.hit(x, y, &self.shapes) {
                return Some(item);
            }
        }
    }
}

/// The cells an item may overlap: its first and last column, its first and last row.
type CellSpan = (u32, u32, u32, u32);

/// A uniform grid over a document's region: per cell, the items that may overlap it, in
/// ascending item index.
#[derive(Debug, Clone, Default)]
struct Grid {
    cell: f64,
    cols: u32,
    rows: u32,
    /// Where each cell's items start in `items` (one more entry than cells).
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    /// The cells `rect` may overlap (grown by a pixel up and left: a point is a 1×1 square),
    /// as inclusive column and row ranges, clamped to the grid.
    fn span(&self, rect: &Rect, region: &Rect) -> CellSpan {
        let c =
            |v: f64, max: u32| -> u32 { ((v / self.cell).floor().max(0.0) as u32).min(max - 1) };
        (
            c(rect.x - 1.0 - region.x, self.cols),
            c(rect.right() - region.x, self.cols),
            c(rect.y - 1.0 - region.y, self.rows),
            c(rect.bottom() - region.y, self.rows),
        )
    }

    fn new(cell: f64, region: &Rect) -> Grid {
        Grid {
            cell,
            cols: (region.width / cell).ceil().max(1.0) as u32,
            rows: (region.height / cell).ceil().max(1.0) as u32,
            ..Grid::default()
        }
    }

    /// Files `items` (indices in ascending order, each with its span).
    fn fill(&mut self, items: &[(u32, CellSpan)]) {
        let cols = self.cols;
        let ncells = cols as usize * self.rows as usize;
        let mut start = vec![0u32; ncells + 1];
        for &(_, (x0, x1, y0, y1)) in items {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    start[(y * cols + x) as usize + 1] += 1;
                }
            }
        }
        for i in 0..ncells {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut filed = vec![0u32; start[ncells] as usize];
        for &(k, (x0, x1, y0, y1)) in items {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let slot = &mut fill[(y * cols + x) as usize];
                    filed[*slot as usize] = k;
                    *slot += 1;
                }
            }
        }
        self.start = start;
        self.items = filed;
    }

    /// The items of the cell at `(dx, dy)` from the region's corner; none outside the grid.
    fn at(&self, dx: f64, dy: f64) -> &[u32] {
        if self.start.is_empty() {
            return &[];
        }
        let cx = (dx / self.cell).floor();
        let cy = (dy / self.cell).floor();
        if cx < 0.0 || cy < 0.0 || cx >= self.cols as f64 || cy >= self.rows as f64 {
            return &[];
        }
        let cell = cy as usize * self.cols as usize + cx as usize;
        &self.items[self.start[cell] as usize..self.start[cell + 1] as usize]
    }
}

/// Answers "which node is on top at (x, y)" for one model. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct HitTester {
    docs: Vec<DocIndex>,
    /// The top-level layout viewport.
    viewport: Rect,
}

/// Elements whose content is replaced (they paint atomically).
fn is_replaced(tag: &str) -> bool {
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

fn is_block_level(d: Display) -> bool {
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
fn is_block_element(model: &Model, j: usize) -> bool {
    model.nodes[j].is_element()
        && model
            .layout_of(NodeId::new(j as u32))
            .is_some_and(|l| is_block_level(model.style(l).display))
}

const F_BOX: u8 = 1;
const F_LAYER: u8 = 2;
const F_ATOMIC: u8 = 4;
const F_FLOAT: u8 = 8;
const F_TEXT: u8 = 16;
const F_UNCERTAIN: u8 = 32;
const F_IN_SVG: u8 = 64;
/// Inside an `inert` subtree: hit-testing passes through it as through `pointer-events:none`
/// (HTML's rule for inert nodes, which Chromium follows), though its style says `auto`.
const F_INERT: u8 = 128;

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

impl HitTester {
    /// Builds the hit tester of a model. Linear in the number of nodes, plus the items inside the
    /// viewport times the grid cells they cover.
    pub fn new(model: &Model, geometry: &Geometry) -> HitTester {
        HitTester::build(model, geometry, false)
    }

    /// [`HitTester::new`]; `whole`: every subtree is walked, whether it reaches the view or not
    /// (what skipping the others must not change).
    fn build(model: &Model, geometry: &Geometry, whole: bool) -> HitTester {
        let n = model.nodes.len();
        let viewport = geometry.viewport.rect();
        let mut flags = vec![0u8; n];
        let mut box_parent = vec![NONE; n];
        let mut layer_of = vec![NONE; n];
        // Each node's own paint order (`i64::MIN` without a box) once the top-down pass has read
        // it with the rest of the box, then the highest in its subtree: the bottom-up pass over
        // a long page then streams this table rather than every layout box once more.
        let mut subtree_max = vec![i64::MIN; n];
        let mut paint_nodes: Vec<PaintNode> = Vec::with_capacity(n);
        // The attribute names that are `inert` (none on the usual page).
        let inert_names = model.string_ids(|s| s.eq_ignore_ascii_case("inert"));

        // Top-down: boxes, layers, atomic contexts, uncertainty.
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
                subtree_max[i] = l.paint_order;
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

        // Where each document can be hit (viewport coordinates), and which subtrees can put
        // anything there: the passes below that only add items skip the rest of the page.
        let regions: Vec<Rect> = geometry
            .doc_clips
            .iter()
            .map(|c| c.clip_to(&viewport))
            .collect();
        let reach = if whole {
            vec![true; n]
        } else {
            reaching(model, geometry, &regions)
        };
        let shapes = Shapes::new(model, &flags, &reach);

        // Negative-z layers: the content of their stacking context is lifted above them.
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

        // Paint simulation.
        let areas = &geometry.map_areas;
        let mut area_counts: Vec<(u32, u32)> = Vec::new();
        for a in areas {
            match area_counts.last_mut() {
                Some((img, count)) if *img == a.img.get() => *count += 1,
                _ => area_counts.push((a.img.get(), 1)),
            }
        }
        let mut painter = Painter {
            nodes: paint_nodes,
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

        // Blocks whose inline content multicol breaks across columns, and the text fragments
        // the snapshot misplaces in them.
        let mut misplaced: Vec<bool> = Vec::new();
        let mut columns: Vec<(u32, ColumnScan)> = Vec::new();
        for i in (0..n).filter(|&i| reach[i]) {
            let node = &model.nodes[i];
            if flags[i] & F_BOX == 0 || !node.is_element() || node.subtree_end.index() == i + 1 {
                continue;
            }
            let Some(l) = node.layout else {
                continue;
            };
            let d = model.style(model.layout(l)).display;
            if (is_block_level(d) || flags[i] & F_ATOMIC != 0) && d != Display::Table {
                if let Some(scan) = scan_columns(model, &flags, i, &mut misplaced) {
                    columns.push((i as u32, scan));
                }
            }
        }

        // Items, per document, only where they can be hit.
        let mut docs: Vec<DocIndex> = model
            .docs
            .iter()
            .enumerate()
            .map(|(d, _)| {
                let region = regions[d];
                DocIndex {
                    region,
                    fallback: model.document_element(DocId::new(d as u32)),
                    ..DocIndex::default()
                }
            })
            .collect();
        let rank = |node: usize, po: i64, own_box: bool| -> u64 {
            let layer = layer_of[node];
            let base = (po.max(0) as u64).saturating_mul(4);
            if layer != NONE && !(own_box && layer as usize == node) {
                let e = neg_end[layer as usize];
                if e >= 0 {
                    return (e as u64).saturating_mul(4) + 3;
                }
            }
            base
        };
        let mut lines: Vec<Rect> = Vec::new();
        let mut area_items: Vec<(Rect, u64, NodeId, bool)> = Vec::new();
        for i in (0..n).filter(|&i| reach[i]) {
            let fl = flags[i];
            if fl & F_BOX == 0 {
                continue;
            }
            let node = &model.nodes[i];
            let d = node.doc.index();
            let region = docs[d].region;
            if region.is_empty() || node.kind == crate::model::NodeKind::Document {
                continue;
            }
            let id = NodeId::new(i as u32);
            let Some(lid) = node.layout else {
                continue;
            };
            let l = model.layout(lid);
            let s = model.style(l);
            if s.pointer_events == PointerEvents::None
                || s.visibility.is_hidden()
                || fl & F_INERT != 0
            {
                continue;
            }
            let clip = geometry.hit_clip(id);
            let (dx, dy) = geometry.doc_offsets[d];
            let uncertain = fl & F_UNCERTAIN != 0 || s.transform_3d;
            let turn = shapes.turn(i);
            // The shape of the node's own box; its text and inline lines take what cuts its
            // content.
            let own_shape = shapes.own(i);
            let content_shape = shapes.inherited(i);
            let mut add = |rect: Rect,
                           snapped: bool,
                           key: u64,
                           answer: NodeId,
                           child: u32,
                           shape: Option<u32>| {
                let r = if snapped && turn.is_none() {
                    let sn = |v: f64| (v + 0.5).floor();
                    Rect::from_edges(sn(rect.x), sn(rect.y), sn(rect.right()), sn(rect.bottom()))
                } else {
                    rect
                };
                let Some(r) = placed(r, &clip, (dx, dy), region) else {
                    return;
                };
                let doc = &mut docs[d];
                let mut unsure = uncertain;
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
                    (None, Some(k)) => shapes.defs.get(k as usize).copied(),
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
            };
            let mut backdrop = None;
            let img_areas = if areas.is_empty() {
                &[][..]
            } else {
                let start = areas.partition_point(|a| a.img.index() < i);
                let end = areas.partition_point(|a| a.img.index() <= i);
                &areas[start..end]
            };
            if node.is_element() {
                let inline = s.display.is_inline() && fl & (F_ATOMIC | F_IN_SVG) == 0;
                let key = (rank(i, l.paint_order, true) << 32) | u64::from(seq[i]);
                for (k, a) in img_areas.iter().enumerate() {
                    // The first area of the map that contains the point wins (the image reserved
                    // one number per area, after its own).
                    let above = (img_areas.len() - k) as u32;
                    let seq = seq[i].saturating_add(above);
                    let key = (rank(i, l.paint_order, true) << 32) | u64::from(seq);
                    area_items.push((a.rect, key, a.area, a.exact));
                }
                if is_modal_dialog(model, id, s.position) {
                    // Its `::backdrop` covers the viewport right under it; the snapshot has no
                    // node for it. A click there goes to the dialog (the event's target).
                    backdrop = Some(key - 1);
                }
                let child = node.content_document.map(|c| c.get()).unwrap_or(NONE);
                if !inline {
                    if !l.bounds.is_empty() {
                        let fragmented = columns
                            .binary_search_by_key(&(i as u32), |c| c.0)
                            .is_ok_and(|k| {
                                column_fragments(model, i, l.bounds, &columns[k].1, &mut lines)
                            });
                        if fragmented {
                            for r in lines.drain(..) {
                                add(r, false, key, id, child, Some(own_shape));
                            }
                        } else {
                            add(l.bounds, false, key, id, child, Some(own_shape));
                        }
                    }
                    if s.clips_overflow() && paints_own_layer(l, s) {
                        // The content of a scroller with a layer of its own is hit up to the
                        // border box (see `geometry`), but its scrollbars take the clicks over
                        // it: above everything else of its layer.
                        let top = rank(i, l.paint_order, true).max(rank(i, l.paint_order, false));
                        for bar in scrollbars(model, id).into_iter().flatten() {
                            add(
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
                    inline_line_rects(model, &flags, i, l.bounds, &mut lines);
                    for r in lines.drain(..) {
                        add(r, s.has_background, key, id, child, Some(content_shape));
                    }
                }
            }
            if fl & F_TEXT != 0 {
                let answer = if node.is_element() {
                    id
                } else {
                    node.parent.unwrap_or(id)
                };
                let key = (rank(i, l.paint_order, false) << 32) | u64::from(text_seq[i]);
                let mut b = Some(lid);
                while let Some(bid) = b {
                    let bl = model.layout(bid);
                    let style = model.style(bl);
                    let hidden =
                        style.pointer_events == PointerEvents::None || style.visibility.is_hidden();
                    if !hidden {
                        for k in bl.text_boxes_start..bl.text_boxes_end {
                            let t = &model.text_boxes[k as usize];
                            if misplaced.get(k as usize).is_some_and(|m| *m) {
                                continue;
                            }
                            if !t.bounds.is_empty() {
                                add(t.bounds, true, key, answer, NONE, Some(content_shape));
                            }
                        }
                    }
                    b = bl.next_for_node;
                }
            }
            for (rect, key, area, exact) in area_items.drain(..) {
                let Some(r) = placed(rect, &clip, (dx, dy), region) else {
                    continue;
                };
                docs[d].items.push(Item {
                    rect: r,
                    key,
                    node: area,
                    child_doc: NONE,
                    snapped: false,
                    uncertain: uncertain || !exact,
                    shape: NONE,
                });
            }
            if let Some(key) = backdrop {
                docs[d].items.push(Item {
                    rect: region,
                    key,
                    node: id,
                    child_doc: NONE,
                    snapped: false,
                    uncertain: false,
                    shape: NONE,
                });
            }
        }
        let mut line_items = Vec::new();
        for i in (0..n).filter(|&i| reach[i]) {
            overflowing_lines(
                model,
                &flags,
                &misplaced,
                &seq,
                &text_seq,
                &rank,
                i,
                &mut line_items,
            );
            for (rect, key, item_node) in line_items.drain(..) {
                let d = model.nodes[i].doc.index();
                let region = docs[d].region;
                let clip = geometry.hit_clip(item_node);
                let (dx, dy) = geometry.doc_offsets[d];
                let Some(r) = placed(rect, &clip, (dx, dy), region) else {
                    continue;
                };
                docs[d].items.push(Item {
                    rect: r,
                    key,
                    node: NodeId::new(i as u32),
                    child_doc: NONE,
                    snapped: false,
                    uncertain: flags[i] & F_UNCERTAIN != 0 || shapes.turn(i).is_some(),
                    shape: NONE,
                });
            }
        }
        for doc in &mut docs {
            doc.build_grid();
        }
        HitTester { docs, viewport }
    }

    /// Which node receives a click at viewport point `(x, y)` (CSS px): the 1×1 square
    /// `[x, x+1) × [y, y+1)`, so pass integer coordinates for the exact semantics of
    /// `DOM.getNodeForLocation`. `None` for points left of / above the viewport, or when the
    /// page has no document element. Points right of / below the layout viewport (the root
    /// scrollbars) answer the document element, unsure.
    pub fn hit_test(&self, x: f64, y: f64) -> Option<HitResult> {
        if !(x >= 0.0 && y >= 0.0 && x.is_finite() && y.is_finite()) {
            return None;
        }
        let top = self.docs.first()?;
        if x >= self.viewport.right() || y >= self.viewport.bottom() {
            return top.fallback.map(|node| HitResult { node, unsure: true });
        }
        let mut doc = 0usize;
        // Iframe nesting is bounded by the number of documents.
        for _ in 0..=self.docs.len() {
            let di = &self.docs[doc];
            match di.query(x, y) {
                Some(item) => {
                    if item.child_doc != NONE {
                        let c = item.child_doc as usize;
                        if let Some(cd) = self.docs.get(c) {
                            if cd.region.contains(crate::model::Point { x, y }) {
                                doc = c;
                                continue;
                            }
                        }
                    }
                    return Some(HitResult {
                        node: item.node,
                        unsure: item.uncertain || item.edge_in_pixel(x, y, &di.shapes),
                    });
                }
                None => {
                    return di.fallback.map(|node| HitResult {
                        node,
                        unsure: false,
                    })
                }
            }
        }
        None
    }

    /// Number of indexed items (boxes and text fragments inside the viewport).
    pub fn item_count(&self) -> usize {
        self.docs.iter().map(|d| d.items.len()).sum()
    }
}

/// Per node, what cuts its hit area (see [`super::shape`]): the linear map of the transforms
/// above it when they turn it, and the rounded shapes of its own box and of its content. Empty
/// tables on a page that neither turns nor rounds anything.
struct Shapes {
    /// Composed `[a, b, c, d]` per node; empty when nothing on the page is turned.
    turn: Vec<[f64; 4]>,
    /// Rounded shapes, document coordinates of their node.
    defs: Vec<Shape>,
    /// Per node: the shape of its own box, and the one its content is cut by (into `defs`).
    own: Vec<u32>,
    content: Vec<u32>,
}

impl Shapes {
    /// The shapes of the nodes `reach` marks (the others keep the defaults: no turn, no shape).
    fn new(model: &Model, flags: &[u8], reach: &[bool]) -> Shapes {
        let n = model.nodes.len();
        let any_turned = model
            .styles
            .iter()
            .any(|s| s.transform_rotated && !s.transform_3d);
        let any_rounded = model.styles.iter().any(|s| {
            !s.border_radius.is_none()
                || matches!(s.clip_path, ClipPath::Ellipse(_) | ClipPath::Polygon(_))
        });
        let mut out = Shapes {
            turn: Vec::new(),
            defs: Vec::new(),
            own: Vec::new(),
            content: Vec::new(),
        };
        if any_turned {
            const ID: [f64; 4] = [1.0, 0.0, 0.0, 1.0];
            out.turn = vec![ID; n];
            for i in (0..n).filter(|&i| reach[i]) {
                let node = &model.nodes[i];
                let p = node
                    .parent
                    .filter(|p| model.node(*p).doc == node.doc)
                    .map_or(ID, |p| out.turn[p.index()]);
                let own = model
                    .layout_of(NodeId::new(i as u32))
                    .map(|l| model.style(l))
                    .filter(|s| node.is_element() && s.transformed && !s.transform_3d)
                    .map(|s| s.transform_linear.map(f64::from));
                out.turn[i] = match own {
                    // The parent's map after the node's own.
                    Some(o) => [
                        p[0] * o[0] + p[2] * o[1],
                        p[1] * o[0] + p[3] * o[1],
                        p[0] * o[2] + p[2] * o[3],
                        p[1] * o[2] + p[3] * o[3],
                    ],
                    None => p,
                };
            }
        }
        if any_rounded {
            out.own = vec![NONE; n];
            out.content = vec![NONE; n];
            // Whether a node's content shape comes from its parent's overflow clip (which an
            // absolutely positioned or fixed child escapes) rather than a `clip-path`.
            let mut from_overflow = vec![false; n];
            for i in (0..n).filter(|&i| reach[i]) {
                let node = &model.nodes[i];
                let id = NodeId::new(i as u32);
                let parent = node.parent.filter(|p| model.node(*p).doc == node.doc);
                let layout = model.layout_of(id);
                let style = layout.map(|l| model.style(l));
                let escapes =
                    node.is_element() && style.is_some_and(|s| s.position.is_out_of_flow());
                let (mut inherited, mut overflow) = match parent {
                    Some(p) if !(escapes && from_overflow[p.index()]) => {
                        (out.content[p.index()], from_overflow[p.index()])
                    }
                    _ => (NONE, false),
                };
                let (Some(l), Some(s), true) = (layout, style, node.is_element()) else {
                    out.own[i] = inherited;
                    out.content[i] = inherited;
                    from_overflow[i] = overflow;
                    continue;
                };
                let clip = match s.clip_path {
                    ClipPath::Ellipse(e) => Some(Shape::ellipse(e.rect_in(l.bounds))),
                    ClipPath::Polygon(p) => Some(Shape::polygon(&p, l.bounds)),
                    _ => None,
                };
                if let Some(clip) = clip {
                    out.defs.push(clip);
                    inherited = out.defs.len() as u32 - 1;
                    overflow = false;
                }
                let mut own = inherited;
                // An inline box is cut per line, which is not followed; an atomic inline (an
                // image, an inline-block) is one box.
                let one_box = !s.display.is_inline() || flags[i] & F_ATOMIC != 0;
                if !s.border_radius.is_none() && one_box && !l.bounds.is_empty() {
                    out.defs.push(Shape::Rounded {
                        rect: l.bounds,
                        radii: s.border_radius.resolve(l.bounds),
                    });
                    own = out.defs.len() as u32 - 1;
                    if s.clips_overflow() && inherited == NONE {
                        inherited = own;
                        overflow = true;
                    }
                }
                out.own[i] = own;
                out.content[i] = inherited;
                from_overflow[i] = overflow;
            }
        }
        out
    }

    /// The linear map turning the node, when it is turned.
    fn turn(&self, i: usize) -> Option<[f64; 4]> {
        let m = *self.turn.get(i)?;
        (m[1].abs() > 1e-6 || m[2].abs() > 1e-6).then_some(m)
    }

    /// The shape of the node's own box ([`NONE`] for its rectangle).
    fn own(&self, i: usize) -> u32 {
        self.own.get(i).copied().unwrap_or(NONE)
    }

    /// The shape that cuts the node's content ([`NONE`] when nothing does).
    fn inherited(&self, i: usize) -> u32 {
        self.content.get(i).copied().unwrap_or(NONE)
    }
}

/// Per node: whether anything of its subtree can be hit in `regions` (per document, viewport
/// coordinates).
///
/// Every item a node adds lies within the hull of its subtree's rectangles in its document:
/// boxes, text fragments and image map areas (the lines of a block, cut from its box and its
/// text, can span the gap between two of them, hence the hull rather than the rectangles
/// themselves). Only a modal dialog's backdrop covers the whole region wherever the dialog is.
/// A subtree whose hull stays away from the region adds nothing there, and the passes that
/// only add items skip it.
///
/// Why: on a long page the view is a small part of it. The flags and the paint simulation
/// still cover every node (the order of what is in view depends on what is not), but the
/// shapes, the column scans, the items and the overflowing lines are computed for the part
/// of the tree that reaches the view only.
fn reaching(model: &Model, geometry: &Geometry, regions: &[Rect]) -> Vec<bool> {
    let n = model.nodes.len();
    // Each region in its document's coordinates, grown by more than what `placed` and the
    // snapping of text to whole pixels can add.
    let near: Vec<Rect> = regions
        .iter()
        .zip(&geometry.doc_offsets)
        .map(|(r, &(dx, dy))| r.translate(-dx, -dy).inflate(2.0))
        .collect();
    let meets = |r: &Rect, z: &Rect| {
        r.x <= z.right() && r.right() >= z.x && r.y <= z.bottom() && r.bottom() >= z.y
    };
    // A rectangle with no extent at all (or not a number) adds no item and widens no line.
    let hull = |h: Option<Rect>, r: &Rect| {
        let real = r.width >= 0.0 && r.height >= 0.0 && (r.width > 0.0 || r.height > 0.0);
        if real {
            union(h, Some(*r))
        } else {
            h
        }
    };
    let areas = &geometry.map_areas;
    let mut area_end = areas.len();
    let mut reach = vec![false; n];
    // The hulls of the subtrees below the node at hand wait on a stack, as in `visibility`:
    // in reverse pre-order each entry belongs to an ancestor of the node, deepest on top.
    let mut pending: Vec<(usize, Option<Rect>, bool)> = Vec::new();
    for i in (0..n).rev() {
        let node = &model.nodes[i];
        let (mut h, mut reached) = match pending.last() {
            Some(&(p, h, reached)) if p == i => {
                pending.pop();
                (h, reached)
            }
            _ => (None, false),
        };
        let mut b = node.layout;
        while let Some(lid) = b {
            let l = model.layout(lid);
            h = hull(h, &l.bounds);
            for t in model.text_boxes_of(lid) {
                h = hull(h, &t.bounds);
            }
            reached |= node.is_element()
                && is_modal_dialog(model, NodeId::new(i as u32), model.style(l).position);
            b = l.next_for_node;
        }
        // Areas are in the document order of their images: those of images after this node
        // are behind.
        while area_end > 0 && areas[area_end - 1].img.index() >= i {
            area_end -= 1;
            if areas[area_end].img.index() == i {
                h = hull(h, &areas[area_end].rect);
            }
        }
        let doc = node.doc.index();
        reached |= h.zip(near.get(doc)).is_some_and(|(h, z)| meets(&h, z));
        reach[i] = reached;
        let Some(p) = node.parent.map(|p| p.index()) else {
            continue;
        };
        // A child document's rectangles are in its own coordinates: only whether it reaches
        // its region goes up to its owner.
        let h = h.filter(|_| model.nodes[p].doc.index() == doc);
        match pending.last_mut() {
            Some((q, ph, pr)) if *q == p => {
                *ph = union(*ph, h);
                *pr |= reached;
            }
            _ => pending.push((p, h, reached)),
        }
    }
    reach
}

/// An item's rectangle in the viewport: `rect` (its document's coordinates) clipped by `clip`,
/// moved by the document's offset, kept within the document's `region` (grown by a pixel for
/// rounding). `None` when nothing of it is left.
fn placed(rect: Rect, clip: &Rect, (dx, dy): (f64, f64), region: Rect) -> Option<Rect> {
    rect.intersect(clip)?
        .translate(dx, dy)
        .intersect(&region.inflate(1.0))
}

/// The parts of a block's line boxes that overflow its border box, each with the key it is hit
/// at and a node whose clip applies to it (its first item): `(rect, key, item)`.
///
/// Why: Chromium hits a line box over its whole extent, from the start of the block's content to
/// its last item, answering the block. Inside the block's border box the block answers anyway;
/// outside it (a fixed-height block whose lines overflow it) nothing else of the block does. A
/// line is the union of the items on it (text fragments, atomic inline boxes, through culled
/// inline elements), starts where the block's leftmost line starts and reaches up to the line
/// before it (the first one to the block's top).
#[allow(clippy::too_many_arguments)]
fn overflowing_lines(
    model: &Model,
    flags: &[u8],
    misplaced: &[bool],
    seq: &[u32],
    text_seq: &[u32],
    rank: &dyn Fn(usize, i64, bool) -> u64,
    block: usize,
    out: &mut Vec<(Rect, u64, NodeId)>,
) {
    out.clear();
    let node = &model.nodes[block];
    if flags[block] & (F_BOX | F_INERT) != F_BOX || !node.is_element() {
        return;
    }
    let Some(l) = model.layout_of(NodeId::new(block as u32)) else {
        return;
    };
    let s = model.style(l);
    if !is_block_level(s.display)
        || s.pointer_events == PointerEvents::None
        || s.visibility.is_hidden()
        || l.bounds.is_empty()
    {
        return;
    }
    // (line rect, lowest key of its items, its first item)
    let mut lines: Vec<(Rect, u64, NodeId)> = Vec::new();
    let mut push = |r: Rect, key: u64, item: NodeId| {
        if r.is_empty() {
            return;
        }
        match lines.last_mut() {
            Some((line, k, _)) if r.y < line.bottom() && r.bottom() > line.y => {
                *line = line.union(&r);
                *k = (*k).min(key);
            }
            _ => lines.push((r, key, item)),
        }
    };
    let end = node.subtree_end.index();
    let mut j = block + 1;
    while j < end {
        let nj = &model.nodes[j];
        let fl = flags[j];
        let skip_subtree = nj.subtree_end.index();
        if nj.doc != node.doc {
            j = skip_subtree;
            continue;
        }
        let Some(lj) = model.layout_of(NodeId::new(j as u32)) else {
            j += 1;
            continue;
        };
        let sj = model.style(lj);
        if nj.is_element() {
            // A list item's marker sits outside its lines (`list-style-position: outside`, the
            // usual case) and is hit as itself.
            if fl & F_LAYER != 0
                || fl & F_FLOAT != 0
                || sj.position.is_out_of_flow()
                || nj.pseudo == Some(PseudoKind::Marker)
            {
                j = skip_subtree;
                continue;
            }
            if fl & F_ATOMIC != 0 {
                let key = (rank(j, lj.paint_order, true) << 32) | u64::from(seq[j]);
                push(lj.bounds, key.saturating_sub(1), NodeId::new(j as u32));
                j = skip_subtree;
                continue;
            }
            if is_block_level(sj.display) {
                // A block inside: its lines are its own (and an inline formatting context
                // mixed with blocks is split into anonymous blocks the snapshot does not show).
                return;
            }
        } else if fl & F_TEXT != 0 {
            let key = (rank(j, lj.paint_order, false) << 32) | u64::from(text_seq[j]);
            let mut b = nj.layout;
            while let Some(id) = b {
                let lb = model.layout(id);
                for k in lb.text_boxes_start..lb.text_boxes_end {
                    if misplaced.get(k as usize).is_some_and(|m| *m) {
                        continue;
                    }
                    let r = model.text_boxes[k as usize].bounds;
                    if r.height > 2.5 * r.width && r.width >= 8.0 {
                        // Most likely vertical writing, whose lines run top to bottom: the
                        // snapshot does not say, and horizontal lines would be wrong. (A space
                        // between inline blocks is as narrow, and as tall, but not this wide.)
                        out.clear();
                        return;
                    }
                    push(r, key.saturating_sub(1), NodeId::new(j as u32));
                }
                b = model.layout(id).next_for_node;
            }
        }
        j += 1;
    }
    let Some(left) = lines.iter().map(|(r, _, _)| r.x).reduce(f64::min) else {
        return;
    };
    let b = l.bounds;
    // Line boxes stack without gaps: what lies between the items of two lines (leading, the
    // vertical margins of inline blocks, which the snapshot does not give) belongs to a line.
    let mut top = b.y;
    for (r, key, item) in lines {
        let line = Rect::from_edges(left.min(r.x), top.min(r.y), r.right(), r.bottom());
        top = top.max(r.bottom());
        if line.y >= b.y
            && line.bottom() <= b.bottom()
            && line.x >= b.x
            && line.right() <= b.right()
        {
            continue;
        }
        out.push((line, key, item));
    }
}

/// A block whose inline content multicol breaks across columns, as its text fragments show.
///
/// Why: the snapshot reports the text fragments of every column after a block's first one at
/// the place they would take in the first column (offset by the first fragment's origin, not
/// their own), so in document order they go back up above the line before them. Those are
/// not hit where they are reported ([`HitTester::new`] drops them; the block's box, and an
/// inline element's own bounds, which are right, still answer there).
#[derive(Debug, Clone, Copy)]
struct ColumnScan {
    /// Columns the content runs over (at least 2).
    columns: u32,
    /// Top of the first line and bottom of the last, as reported (the last relative to the
    /// first fragment's origin), and the leading above a line.
    first_top: f64,
    last_bottom: f64,
    leading: f64,
}

/// Scans the inline content of block `i` (not the content of blocks inside it) for column
/// breaks; marks the text fragments after the first break in `misplaced` (by index into
/// [`Model::text_boxes`]).
fn scan_columns(
    model: &Model,
    flags: &[u8],
    i: usize,
    misplaced: &mut Vec<bool>,
) -> Option<ColumnScan> {
    let node = &model.nodes[i];
    let end = node.subtree_end.index();
    let mut j = i + 1;
    let mut prev: Option<Rect> = None;
    let mut columns = 1u32;
    let (mut first_top, mut last_bottom) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut line_pitch: Option<f64> = None;
    let mut text_height = 0.0f64;
    while j < end {
        let nj = &model.nodes[j];
        if nj.doc != node.doc || (flags[j] & (F_ATOMIC | F_LAYER | F_FLOAT) != 0) {
            j = nj.subtree_end.index();
            continue;
        }
        if is_block_element(model, j) {
            j = nj.subtree_end.index();
            continue;
        }
        if flags[j] & F_TEXT != 0 {
            let mut b = nj.layout;
            while let Some(id) = b {
                let l = model.layout(id);
                for k in l.text_boxes_start..l.text_boxes_end {
                    let r = model.text_boxes[k as usize].bounds;
                    if r.height > 2.5 * r.width && r.width >= 8.0 {
                        // Vertical writing: its lines start at the top again one after another.
                        return None;
                    }
                    if let Some(p) = prev {
                        if r.bottom() <= p.y - 0.5 {
                            if columns == 1 {
                                misplaced.resize(model.text_boxes.len(), false);
                            }
                            columns += 1;
                        } else if columns == 1 && r.y >= p.bottom() - 0.5 && line_pitch.is_none() {
                            line_pitch = Some(r.y - p.y);
                        }
                    }
                    if columns > 1 {
                        misplaced[k as usize] = true;
                    } else {
                        first_top = first_top.min(r.y);
                        text_height = text_height.max(r.height);
                    }
                    last_bottom = r.bottom();
                    prev = Some(r);
                }
                b = l.next_for_node;
            }
        }
        j += 1;
    }
    (columns > 1).then(|| ColumnScan {
        columns,
        first_top,
        last_bottom,
        leading: line_pitch.map_or(0.0, |p| ((p - text_height) / 2.0).max(0.0)),
    })
}

/// The fragments of block `i` (bounds `bounds`) broken across `scan.columns` columns, when the
/// snapshot shows it is: its bounds are then the union of its fragments, which covers the gap
/// between the columns and the other blocks' parts of them, while Chromium hits each fragment
/// alone. Evidence that the bounds are a union: an in-flow block sibling (another block of the same
/// multicol) narrower than them and within them across, whose width is the column width. The
/// columns are evenly spaced; the first fragment starts at its first line, the last ends at its
/// last line, the others span the union's height.
fn column_fragments(
    model: &Model,
    i: usize,
    bounds: Rect,
    scan: &ColumnScan,
    out: &mut Vec<Rect>,
) -> bool {
    out.clear();
    let node = NodeId::new(i as u32);
    let Some(parent) = model.parent_element(node) else {
        return false;
    };
    let width = model
        .children(parent)
        .filter(|&c| c != node && model.node(c).is_element())
        .filter_map(|c| model.layout_of(c))
        .filter(|l| {
            let s = model.style(l);
            is_block_level(s.display)
                && !s.position.is_out_of_flow()
                && s.float == Float::None
                && l.bounds.width < bounds.width - 1.0
                && l.bounds.x >= bounds.x - 0.5
                && l.bounds.right() <= bounds.right() + 0.5
        })
        .map(|l| l.bounds.width)
        .fold(0.0f64, f64::max);
    let k = scan.columns as f64;
    let pitch = (bounds.width - width) / (k - 1.0);
    if width <= 0.0 || pitch < width {
        return false;
    }
    let first_top = (scan.first_top - scan.leading).max(bounds.y);
    let last_bottom = (scan.last_bottom + scan.leading - first_top + bounds.y).min(bounds.bottom());
    for c in 0..scan.columns {
        let top = if c == 0 { first_top } else { bounds.y };
        let bottom = if c + 1 == scan.columns {
            last_bottom
        } else {
            bounds.bottom()
        };
        let x = bounds.x + f64::from(c) * pitch;
        out.push(Rect::from_edges(x, top, x + width, bottom));
    }
    true
}

/// The hit areas of an inline element: one rectangle per line it spans. Chromium hits an inline
/// box over its line's inline-box height (taller than the text fragments when the line height is),
/// not over its bounding box, which for an inline wrapping over several lines covers parts of other
/// lines. Single-line inlines use their bounds; multi-line ones one rectangle per line of their
/// text fragments, grown by the leading seen on the first line.
fn inline_line_rects(model: &Model, flags: &[u8], i: usize, bounds: Rect, out: &mut Vec<Rect>) {
    out.clear();
    let node = &model.nodes[i];
    let end = node.subtree_end.get() as usize;
    let mut j = i + 1;
    // A block inside the inline splits it around itself (block-in-inline): the block's area
    // and its lines are the block's, not the inline's.
    let mut holds_block = false;
    while j < end {
        let nj = &model.nodes[j];
        if nj.doc != node.doc || (flags[j] & (F_ATOMIC | F_LAYER) != 0) {
            j = nj.subtree_end.index();
            continue;
        }
        if is_block_element(model, j) {
            holds_block = true;
            j = nj.subtree_end.index();
            continue;
        }
        if flags[j] & F_TEXT != 0 {
            let mut b = nj.layout;
            while let Some(id) = b {
                for t in model.text_boxes_of(id) {
                    let r = t.bounds;
                    match out.last_mut() {
                        Some(line) if r.y < line.bottom() && r.bottom() > line.y => {
                            *line = line.union(&r);
                        }
                        _ => out.push(r),
                    }
                }
                b = model.layout(id).next_for_node;
            }
        }
        j += 1;
    }
    if holds_block {
        return;
    }
    if out.len() <= 1 {
        out.clear();
        out.push(bounds);
        return;
    }
    let lead_top = (out[0].y - bounds.y).max(0.0);
    let lead_bottom = out
        .last()
        .map(|l| (bounds.bottom() - l.bottom()).max(0.0))
        .unwrap_or(0.0);
    for r in out.iter_mut() {
        *r = Rect::new(
            r.x,
            r.y - lead_top,
            r.width,
            r.height + lead_top + lead_bottom,
        );
    }
}

impl DocIndex {
    fn build_grid(&mut self) {
        let r = self.region;
        if r.is_empty() {
            return;
        }
        self.items
            .sort_unstable_by_key(|it| std::cmp::Reverse(it.key));
        let mut fine = Grid::new(CELL, &r);
        let mut coarse = Grid::new(CELL * COARSE, &r);
        let (mut small, mut large) = (Vec::new(), Vec::new());
        for (k, it) in self.items.iter().enumerate() {
            let span = fine.span(&it.rect, &r);
            let (x0, x1, y0, y1) = span;
            if (x1.saturating_sub(x0) + 1) as usize * (y1.saturating_sub(y0) + 1) as usize
                > FINE_SPAN_MAX
            {
                large.push((k as u32, coarse.span(&it.rect, &r)));
            } else {
                small.push((k as u32, span));
            }
        }
        fine.fill(&small);
        coarse.fill(&large);
        self.fine = fine;
        self.coarse = coarse;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Capture;
    use crate::model::tests::{simple, Page, BLOCK};
    use serde_json::json;

    /// Every answer of the two hit testers over the view, a point every `step` px.
    fn same_answers(name: &str, model: &Model, step: usize) {
        let geometry = Geometry::new(model);
        let (view, whole) = (
            HitTester::new(model, &geometry),
            HitTester::build(model, &geometry, true),
        );
        assert_eq!(view.item_count(), whole.item_count(), "{name}: items");
        let v = geometry.viewport.rect();
        for y in (0..v.height as usize).step_by(step) {
            for x in (0..v.width as usize).step_by(step) {
                let (x, y) = (x as f64, y as f64);
                assert_eq!(
                    view.hit_test(x, y),
                    whole.hit_test(x, y),
                    "{name}: ({x}, {y})"
                );
                // The two grids answer what a walk over every item, topmost first, answers.
                for (d, doc) in whole.docs.iter().enumerate() {
                    let first = doc.items.iter().find(|it| it.hit(x, y, &doc.shapes));
                    assert!(
                        std::ptr::eq(
                            doc.query(x, y).map_or(std::ptr::null(), |i| i),
                            first.map_or(std::ptr::null(), |i| i)
                        ),
                        "{name}: document {d} at ({x}, {y})"
                    );
                }
            }
        }
    }

    #[test]
    fn skipping_what_cannot_reach_the_view_changes_no_answer() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut files: Vec<_> = ["captures", "hit"]
            .iter()
            .filter_map(|d| std::fs::read_dir(root.join(d)).ok())
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(".json.gz") && !name.ends_with(".hit.json.gz")
            })
            .collect();
        files.sort();
        assert!(files.len() >= 20, "recorded captures missing: {files:?}");
        let mut skipped_most = false;
        for path in &files {
            let bytes = std::fs::read(path).expect("a recorded capture");
            let capture = Capture::from_bytes(&bytes).expect("a readable capture");
            let model = Model::from_capture(capture).expect("a model");
            let name = path.display().to_string();
            same_answers(&name, &model, 5);
            let geometry = Geometry::new(&model);
            let v = geometry.viewport.rect();
            let regions: Vec<Rect> = geometry.doc_clips.iter().map(|c| c.clip_to(&v)).collect();
            let reached = reaching(&model, &geometry, &regions);
            skipped_most |= reached.iter().filter(|r| **r).count() * 4 < reached.len();
        }
        // The long reference page is mostly out of view: the test compares something.
        assert!(skipped_most, "no capture had most of its nodes skipped");
    }

    #[test]
    fn lines_that_span_the_view_from_outside_it_are_still_hit() {
        // `#b` is 20 px tall, above the view; its text has a line above the view and one below
        // it, so its second line box (from the first line down) covers the view, over `#a`.
        let mut p = simple();
        let d = &mut p.docs[0];
        d["layout"]["bounds"][3] = json!([10.0, 280.0, 100.0, 40.0]);
        d["layout"]["bounds"][4] = json!([0.0, -300.0, 400.0, 20.0]);
        d["layout"]["nodeIndex"]
            .as_array_mut()
            .expect("layout")
            .push(json!(5));
        d["layout"]["bounds"]
            .as_array_mut()
            .expect("bounds")
            .push(json!([0.0, -300.0, 60.0, 1018.0]));
        d["layout"]["paintOrders"]
            .as_array_mut()
            .expect("paint orders")
            .push(json!(1));
        d["layout"]["text"]
            .as_array_mut()
            .expect("text")
            .push(json!(-1));
        let row = d["layout"]["styles"][4].clone();
        d["layout"]["styles"]
            .as_array_mut()
            .expect("styles")
            .push(row);
        d["textBoxes"] = json!({
            "layoutIndex": [5, 5],
            "bounds": [[0.0, -300.0, 50.0, 18.0], [0.0, 700.0, 60.0, 18.0]],
            "start": [0, 8],
            "length": [5, 6]
        });
        let model = p.model();
        let geometry = Geometry::new(&model);
        let hit = HitTester::new(&model, &geometry).hit_test(20.0, 300.0);
        assert_eq!(hit.map(|h| h.node), Some(NodeId::new(4)));
        same_answers("lines", &model, 2);
    }

    #[test]
    fn a_modal_dialog_out_of_view_still_takes_the_clicks_in_it() {
        // Its backdrop covers the view wherever the dialog itself is.
        let mut fixed = BLOCK;
        fixed[4] = "fixed";
        let mut p = Page::new();
        p.doc(
            &[
                (-1, 9, "#document", &[], ""),
                (0, 1, "HTML", &[], ""),
                (1, 1, "BODY", &[], ""),
                (2, 1, "BUTTON", &[], ""),
                (2, 1, "DIALOG", &[("open", "")], ""),
            ],
            &[
                (0, [0.0, 0.0, 800.0, 600.0], BLOCK, 0),
                (1, [0.0, 0.0, 800.0, 2000.0], BLOCK, 1),
                (2, [0.0, 0.0, 800.0, 2000.0], BLOCK, 1),
                (3, [10.0, 10.0, 100.0, 40.0], BLOCK, 1),
                (4, [0.0, -2000.0, 300.0, 100.0], fixed, 2),
            ],
            json!({}),
        );
        let model = p.model();
        let geometry = Geometry::new(&model);
        let hit = HitTester::new(&model, &geometry).hit_test(20.0, 20.0);
        assert_eq!(hit.map(|h| h.node), Some(NodeId::new(4)));
        same_answers("dialog", &model, 4);
    }
}
