//! The layout part of a document: its boxes, their text fragments and their styles (each
//! distinct style row parsed once), then every box put in node order.

use super::{bad, local_to_model, Ctx, DocScratch};
use crate::capture::DocumentRecord;
use crate::model::style::StyleField;
use crate::model::{
    BoxRects, LayoutBox, LayoutId, Model, NodeId, Rect, Style, StyleId, TextBox, NO_BOX_RECTS,
};
use crate::Result;
use rustc_hash::FxHashMap;

fn rect_of(v: Option<&[f64]>) -> Option<Rect> {
    let v = v?;
    if v.len() < 4 || v.iter().take(4).any(|x| !x.is_finite()) {
        return None;
    }
    Some(Rect::new(v[0], v[1], v[2], v[3]))
}

/// The model's table of distinct styles while it is filled, with the style each snapshot style
/// row parsed to.
///
/// Boxes share a few hundred style rows (the snapshot's strings are deduplicated, so equal rows
/// are equal index lists): each distinct row is parsed once, and every box with it holds the
/// same [`StyleId`]. A row is keyed by its target too, as each target has its own string table
/// and list of requested styles; documents of one target share their rows.
///
/// The reader stores equal rows of a document once ([`crate::capture::Ragged`]), so a row is
/// first looked up by where its values are, which needs no hashing of the values.
struct StyleRows<'a> {
    styles: Vec<Style>,
    ids: FxHashMap<(u32, &'a [i64]), StyleId>,
    at: FxHashMap<(usize, usize), StyleId>,
}

impl<'a> StyleRows<'a> {
    /// The style of a box whose style row, of `target`, is `vals`.
    fn id(
        &mut self,
        target: u32,
        vals: &'a [i64],
        styles: &[StyleField],
        ctx: &Ctx,
        strings: &[String],
    ) -> Result<StyleId> {
        // Where the values are says which target they are of: the documents of two targets are
        // different lists, and an empty row is the same style in any. Only the first row of
        // each style is remembered by place, so rows that do not share (read by serde) cost
        // no more than their content's lookup.
        let at = (vals.as_ptr() as usize, vals.len());
        if let Some(&id) = self.at.get(&at) {
            return Ok(id);
        }
        if let Some(&id) = self.ids.get(&(target, vals)) {
            return Ok(id);
        }
        let mut style = Style::default();
        for (f, &v) in styles.iter().zip(vals.iter()) {
            if *f != StyleField::Ignored && v >= 0 {
                let sid = ctx.str(v)?;
                f.apply(&mut style, &strings[sid.index()]);
            }
        }
        let id = StyleId::new(self.styles.len() as u32);
        self.styles.push(style);
        self.ids.insert((target, vals), id);
        self.at.insert(at, id);
        Ok(id)
    }
}

/// The layout boxes and text fragments of every document as they are read, in snapshot order.
pub(super) struct LayoutTables<'a> {
    layouts: Vec<LayoutBox>,
    text_boxes: Vec<TextBox>,
    style_rows: StyleRows<'a>,
    /// Whether the boxes come in node order, as they do on most pages: noted while they are
    /// read rather than checked after, a pass over a long page's largest table.
    in_order: bool,
}

impl<'a> LayoutTables<'a> {
    /// Empty tables with room for this many boxes and text fragments.
    pub(super) fn with_capacity(nlayouts: usize, ntext_boxes: usize) -> LayoutTables<'a> {
        LayoutTables {
            layouts: Vec::with_capacity(nlayouts),
            text_boxes: Vec::with_capacity(ntext_boxes),
            style_rows: StyleRows {
                styles: vec![Style::INITIAL],
                ids: FxHashMap::default(),
                at: FxHashMap::default(),
            },
            in_order: true,
        }
    }

    /// Reads the boxes and text fragments of one document (`s`, `d`, of renderer `target`, whose
    /// requested styles are `styles`); the boxes' client and scroll rectangles go to
    /// `box_rects`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_document(
        &mut self,
        box_rects: &mut Vec<BoxRects>,
        s: &DocScratch,
        d: &'a DocumentRecord,
        target: u32,
        styles: &[StyleField],
        ctx: &Ctx,
        strings: &[String],
    ) -> Result<()> {
        let LayoutTables {
            layouts,
            text_boxes,
            style_rows,
            in_order,
        } = self;
        let l = &d.layout;
        let base = layouts.len();
        let mut stacking = vec![false; l.node_index.len()];
        for &i in &l.stacking_contexts.index {
            if i >= 0 && (i as usize) < stacking.len() {
                stacking[i as usize] = true;
            }
        }
        // At most one entry per box that has either list; reserved at once because growing a long
        // page's table step by step makes the allocator sort through every small block freed
        // meanwhile (the accessibility records are being freed on the other thread) at each step.
        let with_rects = l
            .client_rects
            .as_ref()
            .map_or(0, |r| r.len())
            .max(l.scroll_rects.as_ref().map_or(0, |r| r.len()))
            .min(l.node_index.len());
        box_rects.reserve(with_rects);
        for (k, &ni) in l.node_index.iter().enumerate() {
            let node = local_to_model(s, ni, ctx.doc, "layout.nodeIndex")?;
            let style = match l.styles.get(k) {
                Some(vals) => style_rows.id(target, vals, styles, ctx, strings)?,
                None => StyleId::INITIAL,
            };
            let bounds = rect_of(l.bounds.get(k)).unwrap_or_default();
            let text = match l.text.get(k) {
                Some(&t) => ctx.opt_str(t)?,
                None => None,
            };
            let found = BoxRects {
                client: rect_of(l.client_rects.as_ref().and_then(|r| r.get(k))),
                scroll: rect_of(l.scroll_rects.as_ref().and_then(|r| r.get(k))),
            };
            let rects = if found == BoxRects::default() {
                NO_BOX_RECTS
            } else {
                box_rects.push(found);
                box_rects.len() as u32 - 1
            };
            if layouts.last().is_some_and(|b| b.node.index() > node) {
                *in_order = false;
            }
            layouts.push(LayoutBox {
                node: NodeId::new(node as u32),
                bounds,
                paint_order: l
                    .paint_orders
                    .as_ref()
                    .and_then(|p| p.get(k).copied())
                    .unwrap_or(0),
                stacking_context: stacking[k],
                style,
                text,
                rects,
                text_boxes_start: 0,
                text_boxes_end: 0,
                next_for_node: None,
            });
        }
        let tb = &d.text_boxes;
        for (k, &li) in tb.layout_index.iter().enumerate() {
            if li < 0 || li as usize >= l.node_index.len() {
                return Err(bad(ctx.doc, "textBoxes.layoutIndex", li));
            }
            let Some(bounds) = rect_of(tb.bounds.get(k)) else {
                continue;
            };
            text_boxes.push(TextBox {
                layout: LayoutId::new((base + li as usize) as u32),
                bounds,
                start: tb
                    .start
                    .get(k)
                    .copied()
                    .unwrap_or(0)
                    .clamp(0, u32::MAX as i64) as u32,
                length: tb
                    .length
                    .get(k)
                    .copied()
                    .unwrap_or(0)
                    .clamp(0, u32::MAX as i64) as u32,
            });
        }
        Ok(())
    }

    /// Hands the styles, the boxes (in node order) and the text fragments to `model`.
    pub(super) fn finish(self, model: &mut Model) {
        model.styles = self.style_rows.styles;
        sort_layouts(model, self.layouts, self.in_order, self.text_boxes);
    }
}

/// Orders layout boxes by node (pre-order), so walking nodes walks boxes sequentially, and groups
/// text boxes by layout box.
///
/// The snapshot lists boxes in layout-tree order, which for most pages already is the model's
/// pre-order (`in_order`): then nothing moves. Otherwise each box is copied once into its place.
fn sort_layouts(
    model: &mut Model,
    layouts: Vec<LayoutBox>,
    in_order: bool,
    mut text_boxes: Vec<TextBox>,
) {
    let mut sorted = if in_order {
        layouts
    } else {
        let mut order: Vec<u32> = (0..layouts.len() as u32).collect();
        // Stable: boxes of one node keep their snapshot order.
        order.sort_by_key(|&i| layouts[i as usize].node);
        let mut remap = vec![0u32; layouts.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
        }
        for t in &mut text_boxes {
            t.layout = LayoutId::new(remap[t.layout.index()]);
        }
        order
            .iter()
            .map(|&old| layouts[old as usize].clone())
            .collect()
    };
    if !text_boxes.windows(2).all(|w| w[0].layout <= w[1].layout) {
        text_boxes.sort_by_key(|t| t.layout);
    }
    // One pass over the boxes (on a long page they run to tens of megabytes).
    let mut k = 0usize;
    for i in 0..sorted.len() {
        let node = sorted[i].node;
        let next_of_node = sorted.get(i + 1).is_some_and(|b| b.node == node);
        let b = &mut sorted[i];
        b.text_boxes_start = k as u32;
        while k < text_boxes.len() && text_boxes[k].layout.index() == i {
            k += 1;
        }
        b.text_boxes_end = k as u32;
        if next_of_node {
            b.next_for_node = Some(LayoutId::new(i as u32 + 1));
        }
        let n = &mut model.nodes[node.index()];
        if n.layout.is_none() {
            n.layout = Some(LayoutId::new(i as u32));
        }
    }
    model.layouts = sorted;
    model.text_boxes = text_boxes;
}
