//! Rectangles and points in CSS px.

/// An axis-aligned rectangle in CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A point in CSS px.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Rect {
    pub const fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// A rectangle from its edges.
    pub fn from_edges(left: f64, top: f64, right: f64, bottom: f64) -> Self {
        Rect::new(left, top, right - left, bottom - top)
    }

    /// The rectangle that clips nothing (a huge finite one, so edges stay finite).
    pub const fn infinite() -> Self {
        Rect::new(-1e12, -1e12, 2e12, 2e12)
    }

    #[inline]
    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    #[inline]
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    /// No area (zero or negative width or height, or NaN).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(self.width > 0.0 && self.height > 0.0)
    }

    /// The common part, or `None` when the rectangles do not overlap with a positive area.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let left = self.x.max(other.x);
        let top = self.y.max(other.y);
        let right = self.right().min(other.right());
        let bottom = self.bottom().min(other.bottom());
        if right > left && bottom > top {
            Some(Rect::from_edges(left, top, right, bottom))
        } else {
            None
        }
    }

    /// The common part; an empty rectangle (zero size) when they do not overlap.
    pub fn clip_to(&self, other: &Rect) -> Rect {
        self.intersect(other)
            .unwrap_or(Rect::new(self.x, self.y, 0.0, 0.0))
    }

    /// The smallest rectangle holding both.
    pub fn union(&self, other: &Rect) -> Rect {
        Rect::from_edges(
            self.x.min(other.x),
            self.y.min(other.y),
            self.right().max(other.right()),
            self.bottom().max(other.bottom()),
        )
    }

    /// Moved by `(dx, dy)`.
    #[inline]
    pub fn translate(&self, dx: f64, dy: f64) -> Rect {
        Rect::new(self.x + dx, self.y + dy, self.width, self.height)
    }

    /// Whether the point lies inside (left/top edges inclusive, right/bottom exclusive).
    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.x && p.x < self.right() && p.y >= self.y && p.y < self.bottom()
    }

    /// The centre point.
    pub fn center(&self) -> Point {
        Point {
            x: self.x + self.width / 2.0,
            y: self.y + self.height / 2.0,
        }
    }

    /// Grown by `d` on every side (shrunk for negative `d`).
    pub fn inflate(&self, d: f64) -> Rect {
        Rect::new(
            self.x - d,
            self.y - d,
            self.width + 2.0 * d,
            self.height + 2.0 * d,
        )
    }
}
