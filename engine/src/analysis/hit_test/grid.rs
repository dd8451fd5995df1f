//! The hit tester's index of each document: its items filed by the grid cells they may
//! overlap, so that a query looks at one cell's items only.
//!
//! Two uniform grids over the document's region: a fine one for the items over a few cells, and
//! a coarse one for those over many (a page's background and its containers cover thousands of
//! small cells each). A query walks both cells' lists as one, topmost first.

use super::Item;
use crate::analysis::shape::Shape;
use crate::model::{NodeId, Rect};

/// Grid cell size, CSS px.
const CELL: f64 = 32.0;
/// A coarse cell is this many grid cells wide and high.
const COARSE: f64 = 8.0;
/// An item over more grid cells than this is filed in the coarse grid instead: a page's
/// background and its containers cover thousands of small cells each, and filing them in every
/// one of them is work that few queries ever read.
const FINE_SPAN_MAX: usize = 64;

/// The most cells a grid has. A viewport of 1280×800 px is 1,000 cells of [`CELL`] px, a whole
/// page 100,000 px long 125,000; a region past this (a document that says it is millions of
/// pixels wide) gets larger cells instead, so what the grid takes stays bounded whatever the
/// page says of its size.
const MAX_CELLS: f64 = (1 << 18) as f64;

/// One document's items and the grids they are filed in.
#[derive(Debug, Clone, Default)]
pub(super) struct DocIndex {
    /// Where this document can be hit, viewport coordinates.
    pub(super) region: Rect,
    pub(super) items: Vec<Item>,
    /// The shapes items are cut by (few: most items are rectangles).
    pub(super) shapes: Vec<Shape>,
    /// The items over a few cells, by small cell.
    fine: Grid,
    /// The items over many cells, by cells [`COARSE`] times larger.
    coarse: Grid,
    /// Answer where no item is hit: the document element.
    pub(super) fallback: Option<NodeId>,
}

impl DocIndex {
    /// An index of no items yet, over `region`, answering `fallback` where nothing is hit.
    pub(super) fn new(region: Rect, fallback: Option<NodeId>) -> DocIndex {
        DocIndex {
            region,
            fallback,
            ..DocIndex::default()
        }
    }

    /// The topmost item hit at `(x, y)` (viewport coordinates).
    pub(super) fn query(&self, x: f64, y: f64) -> Option<&Item> {
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

    /// A grid of `cell`-px cells over `region`, or of larger cells when that would make more
    /// than [`MAX_CELLS`].
    fn new(cell: f64, region: &Rect) -> Grid {
        let side = |len: f64| if len.is_finite() { len.max(0.0) } else { 0.0 };
        let (width, height) = (side(region.width), side(region.height));
        let count = |cell: f64| {
            let cols = (width / cell).ceil().max(1.0);
            let rows = (height / cell).ceil().max(1.0);
            (cols, rows)
        };
        let mut cell = cell;
        let (mut cols, mut rows) = count(cell);
        // Finite sides: each doubling halves a side of more than one cell, so this ends.
        while cols * rows > MAX_CELLS {
            cell *= 2.0;
            (cols, rows) = count(cell);
        }
        Grid {
            cell,
            cols: cols as u32,
            rows: rows as u32,
            ..Grid::default()
        }
    }

    /// Files `items` (indices in ascending order, each with its span) in every cell of their
    /// span: counts each cell's items, lays the cells' lists out one after another, then writes
    /// each item into the lists of its cells.
    fn file_items(&mut self, items: &[(u32, CellSpan)]) {
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
        // Where the next item of each cell goes.
        let mut next = start.clone();
        let mut filed = vec![0u32; start[ncells] as usize];
        for &(k, (x0, x1, y0, y1)) in items {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let slot = &mut next[(y * cols + x) as usize];
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

impl DocIndex {
    /// Sorts the items topmost first and files them in the two grids.
    pub(super) fn build_grid(&mut self) {
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
        fine.file_items(&small);
        coarse.file_items(&large);
        self.fine = fine;
        self.coarse = coarse;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(width: f64, height: f64) -> Rect {
        Rect {
            x: 0.0,
            y: 0.0,
            width,
            height,
        }
    }

    /// A document that says it is billions of pixels large (a hostile capture: the fuzz target
    /// `adversarial_capture` found one asking for 6.7 GB of cells) gets larger cells, not more.
    #[test]
    fn a_huge_region_gets_larger_cells_not_more_of_them() {
        for (w, h) in [
            (f64::from(i32::MAX), 800.0),
            (1280.0, f64::from(i32::MAX)),
            (1e308, 1e308),
            (f64::INFINITY, 800.0),
            (f64::NAN, -5.0),
        ] {
            for cell in [CELL, CELL * COARSE] {
                let grid = Grid::new(cell, &region(w, h));
                let cells = f64::from(grid.cols) * f64::from(grid.rows);
                assert!(cells <= MAX_CELLS, "{w}×{h}: {} × {}", grid.cols, grid.rows);
                assert!(grid.cols >= 1 && grid.rows >= 1);
                // The grid still covers the region: its far corner falls in the last cell.
                if w.is_finite() && h.is_finite() {
                    assert!(f64::from(grid.cols) * grid.cell >= w, "{w}: {}", grid.cell);
                    assert!(f64::from(grid.rows) * grid.cell >= h, "{h}: {}", grid.cell);
                }
            }
        }
        // A viewport keeps its cells of CELL px.
        let grid = Grid::new(CELL, &region(1280.0, 800.0));
        assert_eq!((grid.cell, grid.cols, grid.rows), (CELL, 40, 25));
    }
}
