//! Hit-testing from the snapshot alone: which node receives a click at a viewport point.
//!
//! Built once per model ([`HitTester::new`]), then each query looks at one cell of a uniform grid
//! over the viewport whose items are sorted topmost first, so a query stops at the first item that
//! contains the point (items over many cells are filed in a second, coarser grid, and a query
//! walks both cells' lists as one: `grid.rs`). Only what can be hit is indexed: items outside
//! the viewport are dropped at build time, so a long page's index holds what is in view, not the
//! whole page.
//!
//! The build, step by step: classify every node and number its boxes in paint order
//! (`paint.rs`); find the subtrees that can reach the view (`reach.rs`), the shapes that cut
//! their boxes (`shapes.rs`) and the blocks multicol breaks across columns (`lines.rs`); add each
//! node's items (`items.rs`); file them in the grids.
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

mod grid;
mod items;
mod lines;
mod paint;
mod reach;
mod shapes;

use self::grid::DocIndex;
use self::items::{ItemInputs, Scratch};
use self::lines::Columns;
use self::paint::{paint_sequence, NodeClasses, Ranks};
use self::reach::reaching;
use self::shapes::Shapes;
use super::geometry::Geometry;
use super::shape::Shape;
use crate::model::{DocId, Model, NodeId, Rect};

/// No index (no child document, no shape, no box parent or layer).
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

/// Answers "which node is on top at (x, y)" for one model. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct HitTester {
    docs: Vec<DocIndex>,
    /// The top-level layout viewport.
    viewport: Rect,
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
        let mut classes = NodeClasses::new(model);
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
        let shapes = Shapes::new(model, &classes.flags, &reach);
        let ranks = Ranks::new(model, &mut classes);
        let order = paint_sequence(&mut classes, &geometry.map_areas);
        let columns = Columns::scan(model, &classes.flags, &reach);

        // Items, per document, only where they can be hit.
        let mut docs: Vec<DocIndex> = (0..model.docs.len())
            .map(|d| DocIndex::new(regions[d], model.document_element(DocId::new(d as u32))))
            .collect();
        let inputs = ItemInputs {
            model,
            geometry,
            flags: &classes.flags,
            shapes: &shapes,
            ranks: &ranks,
            order: &order,
            columns: &columns,
        };
        let mut scratch = Scratch::default();
        for i in (0..n).filter(|&i| reach[i]) {
            inputs.node_items(i, &mut docs, &mut scratch);
        }
        for i in (0..n).filter(|&i| reach[i]) {
            inputs.overflowing_line_items(i, &mut docs, &mut scratch);
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
