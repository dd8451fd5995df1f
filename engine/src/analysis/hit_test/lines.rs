//! Hit areas that a box's own bounds do not give: the lines of a block that overflow it, the
//! fragments of a block multicol breaks across columns, and the lines of an inline element.

use super::paint::{
    is_block_element, is_block_level, PaintSequence, Ranks, F_ATOMIC, F_BOX, F_FLOAT, F_INERT,
    F_LAYER, F_TEXT,
};
use crate::model::{Display, Float, Model, NodeId, PointerEvents, PseudoKind, Rect};

/// The blocks whose inline content multicol breaks across columns (by node, ascending), and the
/// text fragments the snapshot misplaces in them (by index into [`Model::text_boxes`]; empty
/// when there are none).
pub(super) struct Columns {
    misplaced: Vec<bool>,
    scans: Vec<(u32, ColumnScan)>,
}

impl Columns {
    /// Scans the blocks `reach` marks.
    pub(super) fn scan(model: &Model, flags: &[u8], reach: &[bool]) -> Columns {
        let n = model.nodes.len();
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
                if let Some(scan) = scan_columns(model, flags, i, &mut misplaced) {
                    columns.push((i as u32, scan));
                }
            }
        }
        Columns {
            misplaced,
            scans: columns,
        }
    }

    /// The fragments of block `i` (bounds `bounds`) into `out`, when multicol breaks it across
    /// columns (see [`column_fragments`]); `false` when it is hit as one box.
    pub(super) fn fragments(
        &self,
        model: &Model,
        i: usize,
        bounds: Rect,
        out: &mut Vec<Rect>,
    ) -> bool {
        self.scans
            .binary_search_by_key(&(i as u32), |c| c.0)
            .is_ok_and(|k| column_fragments(model, i, bounds, &self.scans[k].1, out))
    }

    /// Whether text fragment `k` is one the snapshot misplaces.
    #[inline]
    pub(super) fn is_misplaced(&self, k: u32) -> bool {
        self.misplaced.get(k as usize).is_some_and(|m| *m)
    }
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
pub(super) fn overflowing_lines(
    model: &Model,
    flags: &[u8],
    columns: &Columns,
    order: &PaintSequence,
    ranks: &Ranks,
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
                let key = (ranks.rank(j, lj.paint_order, true) << 32) | u64::from(order.seq[j]);
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
            let key = (ranks.rank(j, lj.paint_order, false) << 32) | u64::from(order.text_seq[j]);
            let mut b = nj.layout;
            while let Some(id) = b {
                let lb = model.layout(id);
                for k in lb.text_boxes_start..lb.text_boxes_end {
                    if columns.is_misplaced(k) {
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
pub(super) fn inline_line_rects(
    model: &Model,
    flags: &[u8],
    i: usize,
    bounds: Rect,
    out: &mut Vec<Rect>,
) {
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
