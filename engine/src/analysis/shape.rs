//! Hit areas that are not rectangles: rounded corners, `clip-path` circles and ellipses, and
//! boxes turned by a rotation or a skew.
//!
//! Why: Chromium's hit test follows the shape a box is painted with. The corners of a round
//! button (`border-radius: 50%`) or of a `clip-path: circle()` avatar belong to whatever lies
//! under them, and the snapshot's bounds of a rotated card are the bounding box of the turned
//! card, whose corners are not the card. The snapshot gives the radii and the clip path as
//! computed styles and the transform as a matrix, so the shape can be rebuilt:
//! - a rounded rectangle from the border box and its resolved radii (an ellipse is one whose
//!   radii are half its size);
//! - a `clip-path: polygon()` from its points over the border box, with its fill rule;
//! - a turned box from its bounding box and the linear part of every transform above it: a
//!   parallelogram is symmetric about its centre, so the centre of the bounding box is the
//!   centre of the box, and its untransformed size solves `W = |a|·w + |c|·h`,
//!   `H = |b|·w + |d|·h` (see [`turned_quad`]).
//!
//! `DOM.getNodeForLocation` tests the pixel square `[x, x+1) × [y, y+1)` (see the hit tester):
//! a shape is hit when it overlaps the square.

use crate::model::{PolygonShape, Rect};

/// The outline of a hit area, viewport coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A rectangle with elliptical corners `(rx, ry)`: top-left, top-right, bottom-right,
    /// bottom-left.
    Rounded { rect: Rect, radii: [(f64, f64); 4] },
    /// A convex quadrilateral, corners in order around it.
    Quad([(f64, f64); 4]),
    /// A polygon of `len` points (possibly concave or crossing itself) and its fill rule.
    Polygon {
        points: [(f64, f64); PolygonShape::MAX],
        len: u8,
        even_odd: bool,
    },
}

impl Shape {
    /// The ellipse inside `rect`.
    pub fn ellipse(rect: Rect) -> Shape {
        let r = (rect.width / 2.0, rect.height / 2.0);
        Shape::Rounded {
            rect,
            radii: [r; 4],
        }
    }

    /// The shape moved by `(dx, dy)`.
    pub fn translate(&self, dx: f64, dy: f64) -> Shape {
        match *self {
            Shape::Rounded { rect, radii } => Shape::Rounded {
                rect: rect.translate(dx, dy),
                radii,
            },
            Shape::Quad(q) => Shape::Quad(q.map(|(x, y)| (x + dx, y + dy))),
            Shape::Polygon {
                points,
                len,
                even_odd,
            } => Shape::Polygon {
                points: points.map(|(x, y)| (x + dx, y + dy)),
                len,
                even_odd,
            },
        }
    }

    /// A `clip-path: polygon()` over the border box `b`.
    pub fn polygon(p: &PolygonShape, b: Rect) -> Shape {
        let mut points = [(0.0, 0.0); PolygonShape::MAX];
        for (slot, pt) in points.iter_mut().zip(p.points_in(b)) {
            *slot = pt;
        }
        Shape::Polygon {
            points,
            len: p.len,
            even_odd: p.even_odd,
        }
    }

    /// The shape overlaps the square `[x0, x1] × [y0, y1]`.
    pub fn overlaps(&self, x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
        match self {
            Shape::Rounded { rect, radii } => rounded_overlaps(rect, radii, x0, y0, x1, y1),
            Shape::Quad(q) => quad_overlaps(q, x0, y0, x1, y1),
            Shape::Polygon {
                points,
                len,
                even_odd,
            } => polygon_overlaps(&points[..usize::from(*len)], *even_odd, x0, y0, x1, y1),
        }
    }

    /// Whether the pixel `(x, y)` is hit, and whether the shape's edge passes so close to it
    /// that Chromium may decide otherwise: `(hit, unsure)`.
    pub fn hit_pixel(&self, x: f64, y: f64) -> (bool, bool) {
        const MARGIN: f64 = 0.35;
        let hit = self.overlaps(x, y, x + 1.0, y + 1.0);
        let wide = self.overlaps(x - MARGIN, y - MARGIN, x + 1.0 + MARGIN, y + 1.0 + MARGIN);
        let narrow = self.overlaps(x + MARGIN, y + MARGIN, x + 1.0 - MARGIN, y + 1.0 - MARGIN);
        (hit, wide != narrow)
    }
}

/// Whether a point lies inside a rounded rectangle.
fn rounded_contains(r: &Rect, radii: &[(f64, f64); 4], px: f64, py: f64) -> bool {
    if px < r.x || px > r.right() || py < r.y || py > r.bottom() {
        return false;
    }
    // (corner centre, radii, whether the point is in that corner's box)
    let corners = [
        (r.x + radii[0].0, r.y + radii[0].1, radii[0]),
        (r.right() - radii[1].0, r.y + radii[1].1, radii[1]),
        (r.right() - radii[2].0, r.bottom() - radii[2].1, radii[2]),
        (r.x + radii[3].0, r.bottom() - radii[3].1, radii[3]),
    ];
    for (k, (cx, cy, (rx, ry))) in corners.into_iter().enumerate() {
        if rx <= 0.0 || ry <= 0.0 {
            continue;
        }
        let in_x = if k == 0 || k == 3 { px < cx } else { px > cx };
        let in_y = if k < 2 { py < cy } else { py > cy };
        if in_x && in_y {
            let (u, v) = ((px - cx) / rx, (py - cy) / ry);
            return u * u + v * v <= 1.0;
        }
    }
    true
}

fn rounded_overlaps(r: &Rect, radii: &[(f64, f64); 4], x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    // The part of the square inside the rectangle; the shape is convex, so the square overlaps
    // it when one of its corners, its centre, or its point nearest a corner's centre is inside.
    let (ax, ay) = (x0.max(r.x), y0.max(r.y));
    let (bx, by) = (x1.min(r.right()), y1.min(r.bottom()));
    if ax > bx || ay > by {
        return false;
    }
    let mut candidates = [
        (ax, ay),
        (bx, ay),
        (bx, by),
        (ax, by),
        ((ax + bx) / 2.0, (ay + by) / 2.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
    ];
    let centres = [
        (r.x + radii[0].0, r.y + radii[0].1),
        (r.right() - radii[1].0, r.y + radii[1].1),
        (r.right() - radii[2].0, r.bottom() - radii[2].1),
        (r.x + radii[3].0, r.bottom() - radii[3].1),
    ];
    for (k, (cx, cy)) in centres.into_iter().enumerate() {
        candidates[5 + k] = (cx.clamp(ax, bx), cy.clamp(ay, by));
    }
    candidates
        .iter()
        .any(|&(px, py)| rounded_contains(r, radii, px, py))
}

/// Separating axes: the square's two and the quad's four edge normals.
fn quad_overlaps(q: &[(f64, f64); 4], x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    let (qx0, qx1) = q
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (qy0, qy1) = q
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if qx1 < x0 || qx0 > x1 || qy1 < y0 || qy0 > y1 {
        return false;
    }
    let square = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
    for k in 0..4 {
        let (p, n) = (q[k], q[(k + 1) % 4]);
        let axis = (n.1 - p.1, p.0 - n.0);
        let proj = |pt: &(f64, f64)| pt.0 * axis.0 + pt.1 * axis.1;
        let (a0, a1) = q
            .iter()
            .map(proj)
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        let (b0, b1) = square
            .iter()
            .map(proj)
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        if a1 < b0 || b1 < a0 {
            return false;
        }
    }
    true
}

/// A polygon overlaps the square when one of its edges crosses the square, or the square lies
/// inside it (its centre is filled, by the fill rule).
fn polygon_overlaps(
    pts: &[(f64, f64)],
    even_odd: bool,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
) -> bool {
    let n = pts.len();
    for k in 0..n {
        if segment_meets_rect(pts[k], pts[(k + 1) % n], x0, y0, x1, y1) {
            return true;
        }
    }
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let mut winding = 0i32;
    for k in 0..n {
        let ((ax, ay), (bx, by)) = (pts[k], pts[(k + 1) % n]);
        if (ay <= cy) != (by <= cy) {
            let x = ax + (cy - ay) / (by - ay) * (bx - ax);
            if x > cx {
                winding += if by > ay { 1 } else { -1 };
            }
        }
    }
    if even_odd {
        winding % 2 != 0
    } else {
        winding != 0
    }
}

/// Whether the segment `a`–`b` meets the rectangle `[x0, x1] × [y0, y1]` (clipping the segment
/// to it, one edge at a time).
fn segment_meets_rect(a: (f64, f64), b: (f64, f64), x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - x0),
        (dx, x1 - a.0),
        (-dy, a.1 - y0),
        (dy, y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// The box whose transformed bounding box is `bounds`, under the linear map `m = [a, b, c, d]`
/// (`(x, y)` goes to `(a·x + c·y, b·x + d·y)`): its four corners, and whether its size is only
/// assumed.
///
/// The size solves `W = |a|·w + |c|·h`, `H = |b|·w + |d|·h`. Near 45° the two equations say the
/// same thing (a square and a long thin box turned by 45° have the same bounding box); the box is
/// then taken as square (the usual turned close button), flagged as assumed. `None` when no size
/// fits at all.
pub fn turned_quad(bounds: Rect, m: [f64; 4]) -> Option<([(f64, f64); 4], bool)> {
    let [a, b, c, d] = m;
    let (aa, bb, cc, dd) = (a.abs(), b.abs(), c.abs(), d.abs());
    let det = aa * dd - cc * bb;
    let scale = (aa + cc) * (bb + dd);
    if scale <= 1e-9 {
        return None;
    }
    let (w, h, assumed) = if det.abs() > 0.05 * scale {
        let w = (bounds.width * dd - bounds.height * cc) / det;
        let h = (aa * bounds.height - bb * bounds.width) / det;
        // A little below zero is rounding of a very thin box.
        if w < -1.0 || h < -1.0 {
            return None;
        }
        (w.max(0.0), h.max(0.0), false)
    } else {
        let w = bounds.width / (aa + cc);
        if ((bb + dd) * w - bounds.height).abs() > 1.0 {
            return None;
        }
        (w, w, true)
    };
    let centre = bounds.center();
    let (ux, uy) = (a * w / 2.0, b * w / 2.0);
    let (vx, vy) = (c * h / 2.0, d * h / 2.0);
    let (cx, cy) = (centre.x, centre.y);
    Some((
        [
            (cx - ux - vx, cy - uy - vy),
            (cx + ux - vx, cy + uy - vy),
            (cx + ux + vx, cy + uy + vy),
            (cx - ux + vx, cy - uy + vy),
        ],
        assumed,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::InsetLength;

    #[test]
    fn circle_leaves_its_corners() {
        let s = Shape::ellipse(Rect::new(0.0, 0.0, 80.0, 80.0));
        assert!(s.overlaps(39.0, 39.0, 40.0, 40.0));
        assert!(!s.overlaps(5.0, 5.0, 6.0, 6.0));
        assert!(!s.overlaps(74.0, 74.0, 75.0, 75.0));
        // On the edge at the top: inside, but unsure.
        assert!(s.overlaps(39.5, 0.0, 40.5, 1.0));
        let (hit, unsure) = s.hit_pixel(11.0, 11.0);
        assert!(hit && unsure, "the circle passes through (11.7, 11.7)");
        assert_eq!(s.hit_pixel(20.0, 20.0), (true, false));
    }

    #[test]
    fn pill_is_cut_only_at_its_ends() {
        let s = Shape::Rounded {
            rect: Rect::new(0.0, 0.0, 100.0, 20.0),
            radii: [(10.0, 10.0); 4],
        };
        assert!(s.overlaps(50.0, 0.0, 51.0, 1.0));
        assert!(!s.overlaps(0.0, 0.0, 1.0, 1.0));
        assert!(s.overlaps(0.0, 9.5, 1.0, 10.5));
    }

    #[test]
    fn polygon_follows_its_edges_and_fill_rule() {
        // A right triangle over a 100x40 box (above its diagonal), and a concave chevron.
        let tri = PolygonShape::new(&chevron()[..3], false).expect("three points");
        let s = Shape::polygon(&tri, Rect::new(0.0, 0.0, 100.0, 40.0));
        assert!(s.overlaps(70.0, 10.0, 71.0, 11.0));
        assert!(!s.overlaps(2.0, 30.0, 3.0, 31.0), "bounding box corner");
        assert!(s.overlaps(2.0, 0.0, 3.0, 1.0), "top edge");
        let chevron = PolygonShape::new(&chevron(), false).expect("five points");
        let s = Shape::polygon(&chevron, Rect::new(0.0, 0.0, 100.0, 40.0));
        assert!(!s.overlaps(49.0, 35.0, 50.0, 36.0), "the notch");
        assert!(s.overlaps(10.0, 30.0, 11.0, 31.0));
    }

    /// `polygon(0 0, 100% 0, 100% 100%, 50% 50%, 0 100%)`: the first three points make a right
    /// triangle; all five a chevron notched at the bottom middle.
    fn chevron() -> [(InsetLength, InsetLength); 5] {
        use crate::model::InsetLength::Fraction as F;
        [
            (F(0.0), F(0.0)),
            (F(1.0), F(0.0)),
            (F(1.0), F(1.0)),
            (F(0.5), F(0.5)),
            (F(0.0), F(1.0)),
        ]
    }

    #[test]
    fn turned_box_is_found_from_its_bounding_box() {
        let (s, c) = (0.5f64, 3f64.sqrt() / 2.0);
        // 160x100 turned by 30 degrees.
        let bounds = Rect::new(0.0, 0.0, 160.0 * c + 100.0 * s, 160.0 * s + 100.0 * c);
        let (q, assumed) = turned_quad(bounds, [c, s, -s, c]).expect("a size fits");
        assert!(!assumed);
        let shape = Shape::Quad(q);
        let centre = bounds.center();
        assert!(shape.overlaps(centre.x, centre.y, centre.x + 1.0, centre.y + 1.0));
        assert!(!shape.overlaps(1.0, 1.0, 2.0, 2.0), "bounding box corner");
        // The top corner of the card is at x = 100·sin 30° from the left.
        assert!(shape.overlaps(49.5, 0.0, 50.5, 1.0));
        // A square turned by 45 degrees is assumed square.
        let (q, assumed) = turned_quad(Rect::new(0.0, 0.0, 2.0 * 22.63, 2.0 * 22.63), {
            let k = 0.5f64.sqrt();
            [k, k, -k, k]
        })
        .expect("square");
        assert!(assumed);
        assert!(!Shape::Quad(q).overlaps(0.0, 0.0, 3.0, 3.0));
        // A skew keeps the height.
        let (q, _) = turned_quad(
            Rect::new(0.0, 0.0, 200.0 + 60.0 * 0.364, 60.0),
            [1.0, 0.0, -0.364, 1.0],
        )
        .expect("skew");
        assert!((q[2].1 - q[0].1 - 60.0).abs() < 1e-9);
    }
}
