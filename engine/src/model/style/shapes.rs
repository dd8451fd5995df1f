//! The computed styles that cut a box to a shape: the legacy `clip: rect()`, `clip-path`
//! (`inset()`, `circle()`, `ellipse()`, `polygon()`) and `border-radius`, parsed.

use super::super::radius::Radius;

/// The legacy `clip: rect(top, right, bottom, left)`, offsets from the border box's top-left
/// corner; `None` stands for `auto` (that edge of the border box).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClipRect {
    pub top: Option<f64>,
    pub right: Option<f64>,
    pub bottom: Option<f64>,
    pub left: Option<f64>,
}

impl ClipRect {
    /// Parses `rect(1px, 2px, 3px, 4px)` (commas optional, `auto` allowed); `None` for `auto`.
    pub fn parse(s: &str) -> Option<Self> {
        let inner = s.trim().strip_prefix("rect(")?.strip_suffix(')')?;
        let mut parts = [None; 4];
        let mut n = 0;
        for tok in inner
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            if n == 4 {
                return None;
            }
            parts[n] = if tok == "auto" {
                None
            } else {
                Some(parse_px(tok)?)
            };
            n += 1;
        }
        (n == 4).then_some(ClipRect {
            top: parts[0],
            right: parts[1],
            bottom: parts[2],
            left: parts[3],
        })
    }
}

/// A `clip-path`, as far as the analysis can follow it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ClipPath {
    /// `none`.
    #[default]
    None,
    /// `inset(top right bottom left)` of the border box (rounded corners ignored).
    Inset(InsetLengths),
    /// `circle()` or `ellipse()` of the border box: what is painted and hit is the ellipse.
    Ellipse(EllipseShape),
    /// `polygon()` of the border box, of up to [`PolygonShape::MAX`] points.
    Polygon(PolygonShape),
    /// Any other shape (`circle()`, `polygon()`, `path()`, `url()`, ...) or reference box: what
    /// is painted and hit lies somewhere inside the border box, which the snapshot alone cannot
    /// tell.
    Shape,
}

/// One inset edge: CSS px, or a fraction of the border box's width (left, right) or height
/// (top, bottom).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InsetLength {
    Px(f64),
    Fraction(f64),
}

impl InsetLength {
    fn parse(tok: &str) -> Option<InsetLength> {
        if let Some(p) = tok.strip_suffix('%') {
            return p
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| InsetLength::Fraction(v / 100.0));
        }
        parse_px(tok).map(InsetLength::Px)
    }

    /// The length in CSS px, a fraction taken of `size`.
    pub fn of(self, size: f64) -> f64 {
        match self {
            InsetLength::Px(v) => v,
            InsetLength::Fraction(f) => f * size,
        }
    }
}

/// The four edges of an `inset()`, top, right, bottom, left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InsetLengths(pub [InsetLength; 4]);

impl InsetLengths {
    /// The clip rectangle inside `border_box` (empty when the insets meet).
    pub fn rect_in(&self, b: crate::model::Rect) -> crate::model::Rect {
        let [t, r, bo, l] = self.0;
        let left = b.x + l.of(b.width);
        let top = b.y + t.of(b.height);
        let right = (b.right() - r.of(b.width)).max(left);
        let bottom = (b.bottom() - bo.of(b.height)).max(top);
        crate::model::Rect::new(left, top, right - left, bottom - top)
    }
}

/// A radius of a `circle()` / `ellipse()`: a length, or a side keyword.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeRadius {
    Length(InsetLength),
    ClosestSide,
    FarthestSide,
}

/// `circle(r at x y)` (`rx == ry`, a percentage of the box's normalized diagonal) or
/// `ellipse(rx ry at x y)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EllipseShape {
    pub circle: bool,
    pub rx: ShapeRadius,
    pub ry: ShapeRadius,
    pub cx: InsetLength,
    pub cy: InsetLength,
}

impl EllipseShape {
    /// The ellipse's bounding rectangle for the border box `b` (its radii are half its size).
    pub fn rect_in(&self, b: crate::model::Rect) -> crate::model::Rect {
        let cx = b.x + self.cx.of(b.width);
        let cy = b.y + self.cy.of(b.height);
        let (dl, dr) = (cx - b.x, b.right() - cx);
        let (dt, db) = (cy - b.y, b.bottom() - cy);
        let side = |r: ShapeRadius, near: f64, far: f64, pct_of: f64| match r {
            ShapeRadius::Length(l) => l.of(pct_of).max(0.0),
            ShapeRadius::ClosestSide => near.abs().min(far.abs()),
            ShapeRadius::FarthestSide => near.abs().max(far.abs()),
        };
        let (rx, ry) = if self.circle {
            // A circle's percentage is of the diagonal over the square root of two; its sides
            // are those of both axes.
            let diag = (b.width * b.width + b.height * b.height).sqrt() / std::f64::consts::SQRT_2;
            let r = match self.rx {
                ShapeRadius::Length(l) => l.of(diag).max(0.0),
                ShapeRadius::ClosestSide => dl.abs().min(dr.abs()).min(dt.abs()).min(db.abs()),
                ShapeRadius::FarthestSide => dl.abs().max(dr.abs()).max(dt.abs()).max(db.abs()),
            };
            (r, r)
        } else {
            (
                side(self.rx, dl, dr, b.width),
                side(self.ry, dt, db, b.height),
            )
        };
        crate::model::Rect::new(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry)
    }

    fn parse(name: &str, inner: &str) -> Option<EllipseShape> {
        let (radii, at) = match inner.split_once("at ") {
            Some((r, a)) => (r.trim(), a.trim()),
            None => (inner.trim(), "50% 50%"),
        };
        let radius = |t: &str| match t {
            "closest-side" => Some(ShapeRadius::ClosestSide),
            "farthest-side" => Some(ShapeRadius::FarthestSide),
            _ => InsetLength::parse(t).map(ShapeRadius::Length),
        };
        let radii: Vec<ShapeRadius> = radii
            .split_whitespace()
            .map(radius)
            .collect::<Option<_>>()?;
        let circle = name == "circle";
        let (rx, ry) = match (circle, radii.as_slice()) {
            (true, []) => (ShapeRadius::ClosestSide, ShapeRadius::ClosestSide),
            (true, [r]) => (*r, *r),
            (false, []) => (ShapeRadius::ClosestSide, ShapeRadius::ClosestSide),
            (false, [x, y]) => (*x, *y),
            _ => return None,
        };
        let pos: Vec<InsetLength> = at
            .split_whitespace()
            .map(InsetLength::parse)
            .collect::<Option<_>>()?;
        let [cx, cy] = pos.as_slice().try_into().ok()?;
        Some(EllipseShape {
            circle,
            rx,
            ry,
            cx,
            cy,
        })
    }
}

/// `polygon([fill-rule,] x y, ...)`: points in CSS px or fractions of the border box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolygonShape {
    /// `x, y` of each point: CSS px, or a fraction of the border box's width (height) where
    /// bit `2k` (`2k + 1`) of `fractions` is set. Kept small: a style holds it by value.
    coords: [f32; 2 * PolygonShape::MAX],
    fractions: u32,
    pub len: u8,
    /// `evenodd` rather than `nonzero`.
    pub even_odd: bool,
}

impl PolygonShape {
    /// Most points kept: arrows, chevrons, diagonal cuts and stars have fewer; a polygon with
    /// more is left to the hit tester's uncertainty.
    pub const MAX: usize = 12;

    /// A polygon of 3 to [`PolygonShape::MAX`] points.
    pub fn new(points: &[(InsetLength, InsetLength)], even_odd: bool) -> Option<PolygonShape> {
        if points.len() < 3 || points.len() > PolygonShape::MAX {
            return None;
        }
        let mut shape = PolygonShape {
            coords: [0.0; 2 * PolygonShape::MAX],
            fractions: 0,
            len: points.len() as u8,
            even_odd,
        };
        for (k, l) in points.iter().flat_map(|(x, y)| [x, y]).enumerate() {
            shape.coords[k] = match *l {
                InsetLength::Px(v) => v as f32,
                InsetLength::Fraction(f) => {
                    shape.fractions |= 1 << k;
                    f as f32
                }
            };
        }
        Some(shape)
    }

    /// The points in CSS px for the border box `b`.
    pub fn points_in(&self, b: crate::model::Rect) -> impl Iterator<Item = (f64, f64)> + '_ {
        let coord = move |k: usize, origin: f64, size: f64| {
            let v = f64::from(self.coords[k]);
            origin
                + if self.fractions & (1 << k) != 0 {
                    v * size
                } else {
                    v
                }
        };
        (0..usize::from(self.len))
            .map(move |i| (coord(2 * i, b.x, b.width), coord(2 * i + 1, b.y, b.height)))
    }

    /// The bounding rectangle of the points for the border box `b`.
    pub fn rect_in(&self, b: crate::model::Rect) -> crate::model::Rect {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for (x, y) in self.points_in(b) {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        if x0 > x1 {
            return crate::model::Rect::new(b.x, b.y, 0.0, 0.0);
        }
        crate::model::Rect::from_edges(x0, y0, x1, y1)
    }

    fn parse(inner: &str) -> Option<PolygonShape> {
        let mut even_odd = false;
        let mut points = Vec::with_capacity(PolygonShape::MAX);
        for (k, part) in inner.split(',').map(str::trim).enumerate() {
            if k == 0 && (part == "evenodd" || part == "nonzero") {
                even_odd = part == "evenodd";
                continue;
            }
            let mut it = part.split_whitespace();
            let (Some(x), Some(y), None) = (it.next(), it.next(), it.next()) else {
                return None;
            };
            points.push((InsetLength::parse(x)?, InsetLength::parse(y)?));
        }
        PolygonShape::new(&points, even_odd)
    }
}

/// The radii of a box's four corners (`border-*-radius`): horizontal and vertical, each
/// resolved against the border box's width and height; top-left, top-right, bottom-right,
/// bottom-left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BorderRadii([[Radius; 2]; 4]);

impl BorderRadii {
    /// Square corners.
    pub const NONE: BorderRadii = BorderRadii([[Radius::ZERO; 2]; 4]);

    /// Every corner is square, whatever the box's size.
    pub fn is_none(&self) -> bool {
        self.0.iter().flatten().all(|r| r.is_square())
    }

    /// The radii in CSS px for the border box `b`, `[(rx, ry); 4]`, scaled down together where
    /// two corners on one side would overlap (as CSS does).
    pub fn resolve(&self, b: crate::model::Rect) -> [(f64, f64); 4] {
        let mut r = [(0.0, 0.0); 4];
        for (k, [h, v]) in self.0.iter().enumerate() {
            r[k] = (h.of(b.width).max(0.0), v.of(b.height).max(0.0));
            // A corner with one radius at zero is square (CSS).
            if r[k].0 == 0.0 || r[k].1 == 0.0 {
                r[k] = (0.0, 0.0);
            }
        }
        let ratio = |len: f64, sum: f64| {
            if sum > len && sum > 0.0 {
                len / sum
            } else {
                1.0
            }
        };
        let f = ratio(b.width, r[0].0 + r[1].0)
            .min(ratio(b.width, r[3].0 + r[2].0))
            .min(ratio(b.height, r[0].1 + r[3].1))
            .min(ratio(b.height, r[1].1 + r[2].1));
        if f < 1.0 {
            for c in &mut r {
                c.0 *= f;
                c.1 *= f;
            }
        }
        r
    }

    /// Parses one corner's computed value (`8px`, `50%`, `10px 20%`,
    /// `calc(10% + 4px) 8px`) into corner `k`.
    pub(super) fn set(&mut self, k: usize, value: &str) {
        let parts: Vec<Radius> = top_level_tokens(value)
            .map(|t| Radius::parse(t).unwrap_or(UNRESOLVED))
            .collect();
        self.0[k] = match parts.as_slice() {
            [a] => [*a, *a],
            [a, b] => [*a, *b],
            _ => [UNRESOLVED; 2],
        };
    }

    /// Parses the `border-radius` shorthand's computed value: one to four horizontal radii,
    /// then optionally `/` and one to four vertical ones (`50%`, `4px 8px`,
    /// `10px 20px 30px 40px / 5px`, `calc(10% + 4px) 8px / min(10px, 6.66667%)`), spread over
    /// the corners as CSS does. Spaces and `/` inside a function belong to it.
    pub(super) fn set_all(&mut self, value: &str) {
        let side = |s: &str| -> Option<[Radius; 4]> {
            let parts: Vec<Radius> = top_level_tokens(s)
                .map(|t| Radius::parse(t).unwrap_or(UNRESOLVED))
                .collect();
            match parts.as_slice() {
                [a] => Some([*a; 4]),
                [a, b] => Some([*a, *b, *a, *b]),
                [a, b, c] => Some([*a, *b, *c, *b]),
                [a, b, c, d] => Some([*a, *b, *c, *d]),
                _ => None,
            }
        };
        let (across, down) = match split_top_level(value, b'/') {
            Some((h, v)) => (side(h), side(v)),
            None => (side(value), side(value)),
        };
        *self = match (across, down) {
            (Some(h), Some(v)) => BorderRadii(std::array::from_fn(|k| [h[k], v[k]])),
            _ => BorderRadii::NONE,
        };
    }
}

/// What a radius that does not resolve (an unknown unit or function, math too involved to
/// hold) counts as: square. Of the two ways to be wrong, this is the one that never calls a
/// point open that is covered: a square corner claims the corner's few pixels for the box, so
/// what lies beneath is not offered a click there that the box would take (a wrong click);
/// the cost is that the box itself may be judged to take a click in a corner it lets through,
/// which its click point (inward from the edges) does not rely on.
const UNRESOLVED: Radius = Radius::ZERO;

/// The whitespace-separated tokens of `s`, a parenthesized group (`calc(10% + 4px)`) kept
/// whole.
fn top_level_tokens(s: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0usize;
    s.split(move |c: char| {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        depth == 0 && c.is_whitespace()
    })
    .filter(|t| !t.is_empty())
}

/// `s` split at its first `sep` outside parentheses.
fn split_top_level(s: &str, sep: u8) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => return Some((&s[..i], &s[i + 1..])),
            _ => {}
        }
    }
    None
}

impl ClipPath {
    /// Parses the computed value: `none`, `inset(50%)`, `inset(0px 50% 0px 0px round 4px)`,
    /// optionally followed by `border-box` (the default reference box).
    pub fn parse(s: &str) -> ClipPath {
        let v = s.trim();
        if v.is_empty() || v == "none" {
            return ClipPath::None;
        }
        let v = v.strip_suffix("border-box").unwrap_or(v).trim_end();
        for name in ["circle", "ellipse"] {
            if let Some(inner) = v
                .strip_prefix(name)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.strip_suffix(')'))
            {
                return EllipseShape::parse(name, inner).map_or(ClipPath::Shape, ClipPath::Ellipse);
            }
        }
        if let Some(inner) = v.strip_prefix("polygon(").and_then(|r| r.strip_suffix(')')) {
            return PolygonShape::parse(inner).map_or(ClipPath::Shape, ClipPath::Polygon);
        }
        let Some(inner) = v.strip_prefix("inset(").and_then(|r| r.strip_suffix(')')) else {
            return ClipPath::Shape;
        };
        // Rounded corners only cut the corners: the rectangle is what the snapshot can follow.
        let edges = inner.split(" round ").next().unwrap_or(inner);
        let mut parts: Vec<InsetLength> = Vec::with_capacity(4);
        for tok in edges.split_whitespace() {
            match InsetLength::parse(tok) {
                Some(l) if parts.len() < 4 => parts.push(l),
                _ => return ClipPath::Shape,
            }
        }
        let edges = match parts.as_slice() {
            [a] => [*a, *a, *a, *a],
            [a, b] => [*a, *b, *a, *b],
            [a, b, c] => [*a, *b, *c, *b],
            [a, b, c, d] => [*a, *b, *c, *d],
            _ => return ClipPath::Shape,
        };
        ClipPath::Inset(InsetLengths(edges))
    }
}

pub(super) fn parse_px(s: &str) -> Option<f64> {
    let num = s.strip_suffix("px").unwrap_or(s);
    num.parse::<f64>().ok().filter(|v| v.is_finite())
}
