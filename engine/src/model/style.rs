//! Computed styles, parsed once from the snapshot's string table into small enums and numbers.
//!
//! The snapshot gives, for every layout box, one string index per requested style name (in the
//! order of the capture's `computedStyles` list). A style the capture did not request parses as its
//! CSS initial value, and [`StylesPresent`] records that it was missing so a rule that depends on it
//! can be skipped rather than guessed.

use super::radius::Radius;

/// `display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Display {
    None,
    Contents,
    Block,
    #[default]
    Inline,
    InlineBlock,
    ListItem,
    Flex,
    InlineFlex,
    Grid,
    InlineGrid,
    Table,
    InlineTable,
    /// `table-row`, `table-cell`, `table-row-group`, `table-caption`, ...
    TablePart,
    /// `flow-root`.
    FlowRoot,
    /// Anything else (`ruby`, `math`, `-webkit-box`, ...).
    Other,
}

impl Display {
    pub fn parse(s: &str) -> Self {
        match s {
            "none" => Display::None,
            "contents" => Display::Contents,
            "block" | "block flow" => Display::Block,
            "inline" | "inline flow" => Display::Inline,
            "inline-block" | "inline flow-root" => Display::InlineBlock,
            "list-item" | "block flow list-item" => Display::ListItem,
            "flex" | "block flex" => Display::Flex,
            "inline-flex" | "inline flex" => Display::InlineFlex,
            "grid" | "block grid" => Display::Grid,
            "inline-grid" | "inline grid" => Display::InlineGrid,
            "table" | "block table" => Display::Table,
            "inline-table" | "inline table" => Display::InlineTable,
            "flow-root" | "block flow-root" => Display::FlowRoot,
            "-webkit-box" => Display::Flex,
            "-webkit-inline-box" => Display::InlineFlex,
            _ if s.starts_with("table-") => Display::TablePart,
            _ => Display::Other,
        }
    }

    /// An inline-level box that paints atomically (`inline-block`, `inline-flex`, ...).
    pub fn is_atomic_inline(self) -> bool {
        matches!(
            self,
            Display::InlineBlock | Display::InlineFlex | Display::InlineGrid | Display::InlineTable
        )
    }

    /// A plain (non-atomic) inline box.
    pub fn is_inline(self) -> bool {
        self == Display::Inline
    }

    /// The box lays its children out as flex or grid items.
    pub fn is_flex_or_grid(self) -> bool {
        matches!(
            self,
            Display::Flex | Display::InlineFlex | Display::Grid | Display::InlineGrid
        )
    }
}

/// `visibility`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Visibility {
    #[default]
    Visible,
    Hidden,
    Collapse,
}

impl Visibility {
    pub fn parse(s: &str) -> Self {
        match s {
            "hidden" => Visibility::Hidden,
            "collapse" => Visibility::Collapse,
            _ => Visibility::Visible,
        }
    }

    /// `hidden` or `collapse`.
    pub fn is_hidden(self) -> bool {
        self != Visibility::Visible
    }
}

/// `overflow-x` / `overflow-y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Overflow {
    #[default]
    Visible,
    Hidden,
    Clip,
    Scroll,
    Auto,
}

impl Overflow {
    pub fn parse(s: &str) -> Self {
        match s {
            "hidden" => Overflow::Hidden,
            "clip" => Overflow::Clip,
            "scroll" => Overflow::Scroll,
            "auto" | "overlay" => Overflow::Auto,
            _ => Overflow::Visible,
        }
    }

    /// Whether content is clipped on this axis.
    pub fn clips(self) -> bool {
        self != Overflow::Visible
    }

    /// Whether a person can scroll on this axis (`auto`, `scroll`).
    pub fn user_scrollable(self) -> bool {
        matches!(self, Overflow::Auto | Overflow::Scroll)
    }
}

/// `cursor` (only the values the analysis cares about).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cursor {
    #[default]
    Auto,
    Default,
    Pointer,
    Text,
    Other,
}

impl Cursor {
    pub fn parse(s: &str) -> Self {
        match s {
            "auto" => Cursor::Auto,
            "default" => Cursor::Default,
            "pointer" => Cursor::Pointer,
            "text" => Cursor::Text,
            _ => Cursor::Other,
        }
    }
}

/// `pointer-events`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PointerEvents {
    #[default]
    Auto,
    None,
    /// The SVG values (`visiblePainted`, `all`, ...).
    Other,
}

impl PointerEvents {
    pub fn parse(s: &str) -> Self {
        match s {
            "auto" => PointerEvents::Auto,
            "none" => PointerEvents::None,
            _ => PointerEvents::Other,
        }
    }
}

/// `position`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Position {
    #[default]
    Static,
    Relative,
    Absolute,
    Fixed,
    Sticky,
}

impl Position {
    pub fn parse(s: &str) -> Self {
        match s {
            "relative" => Position::Relative,
            "absolute" => Position::Absolute,
            "fixed" => Position::Fixed,
            "sticky" | "-webkit-sticky" => Position::Sticky,
            _ => Position::Static,
        }
    }

    /// Anything but `static`: the box is a containing block for absolutely positioned ones.
    pub fn is_positioned(self) -> bool {
        self != Position::Static
    }

    /// `absolute` or `fixed`: taken out of flow.
    pub fn is_out_of_flow(self) -> bool {
        matches!(self, Position::Absolute | Position::Fixed)
    }
}

/// `content-visibility`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ContentVisibility {
    #[default]
    Visible,
    Auto,
    Hidden,
}

impl ContentVisibility {
    pub fn parse(s: &str) -> Self {
        match s {
            "auto" => ContentVisibility::Auto,
            "hidden" => ContentVisibility::Hidden,
            _ => ContentVisibility::Visible,
        }
    }
}

/// `float`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Float {
    #[default]
    None,
    Left,
    Right,
}

impl Float {
    pub fn parse(s: &str) -> Self {
        match s {
            "left" | "inline-start" => Float::Left,
            "right" | "inline-end" => Float::Right,
            _ => Float::None,
        }
    }
}

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
    fn set(&mut self, k: usize, value: &str) {
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
    fn set_all(&mut self, value: &str) {
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

fn parse_px(s: &str) -> Option<f64> {
    let num = s.strip_suffix("px").unwrap_or(s);
    num.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The computed styles of one layout box, parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub display: Display,
    pub visibility: Visibility,
    /// `opacity` in 0..=1.
    pub opacity: f32,
    pub overflow_x: Overflow,
    pub overflow_y: Overflow,
    pub cursor: Cursor,
    pub pointer_events: PointerEvents,
    pub position: Position,
    /// `z-index`; `None` = `auto`.
    pub z_index: Option<i32>,
    /// `clip` (applies to absolutely positioned boxes only); `None` = `auto`.
    pub clip: Option<ClipRect>,
    pub content_visibility: ContentVisibility,
    pub float: Float,
    /// `background-color` is not fully transparent.
    pub has_background: bool,
    /// `transform` is not `none`.
    pub transformed: bool,
    /// `transform` is a 3-D matrix (`matrix3d(...)`): bounds may not match what is painted.
    pub transform_3d: bool,
    /// `transform` rotates or skews (not axis-aligned): the bounds are a bounding box of what is
    /// painted.
    pub transform_rotated: bool,
    /// The linear part `[a, b, c, d]` of a 2-D `transform: matrix(a, b, c, d, e, f)` (a point
    /// `(x, y)` goes to `(a·x + c·y, b·x + d·y)` around the origin); the identity otherwise.
    pub transform_linear: [f32; 4],
    /// `transform`, `rotate`, `scale` and `translate` as parsed, kept apart because each is a
    /// computed style of its own and the fields above are their product.
    pub(crate) transform_parts: TransformParts,
    /// `filter` is not `none`: like a transform, it makes the box the containing block of its
    /// fixed and absolutely positioned descendants.
    pub filtered: bool,
    /// `filter` includes `opacity(0)` (or `0%`): nothing of the box is painted, as with
    /// `opacity: 0`, yet it still takes clicks.
    pub filter_transparent: bool,
    /// `border-*-radius`: the box's own area (and, when it clips its overflow, its content) is
    /// cut at rounded corners.
    pub border_radius: BorderRadii,
    /// `clip-path`: clips the box and everything it paints, positioned descendants included.
    pub clip_path: ClipPath,
    /// `contain` includes paint containment (`paint`, `content`, `strict`): descendants are
    /// clipped to the padding box, as by `overflow:clip`.
    pub paint_contained: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style::INITIAL
    }
}

impl Style {
    /// Every property at its CSS initial value.
    pub const INITIAL: Style = Style {
        display: Display::Inline,
        visibility: Visibility::Visible,
        opacity: 1.0,
        overflow_x: Overflow::Visible,
        overflow_y: Overflow::Visible,
        cursor: Cursor::Auto,
        pointer_events: PointerEvents::Auto,
        position: Position::Static,
        z_index: None,
        clip: None,
        content_visibility: ContentVisibility::Visible,
        float: Float::None,
        has_background: false,
        transformed: false,
        transform_3d: false,
        transform_rotated: false,
        transform_linear: [1.0, 0.0, 0.0, 1.0],
        transform_parts: TransformParts::NONE,
        filtered: false,
        filter_transparent: false,
        border_radius: BorderRadii::NONE,
        clip_path: ClipPath::None,
        paint_contained: false,
    };

    /// Content overflowing on either axis is clipped.
    pub fn clips_overflow(&self) -> bool {
        self.overflow_x.clips() || self.overflow_y.clips()
    }

    /// A person can scroll this box on either axis.
    pub fn user_scrollable(&self) -> bool {
        self.overflow_x.user_scrollable() || self.overflow_y.user_scrollable()
    }
}

/// A computed style property the model understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum StyleField {
    Display,
    Visibility,
    Opacity,
    OverflowX,
    OverflowY,
    Cursor,
    PointerEvents,
    Position,
    ZIndex,
    Clip,
    ContentVisibility,
    Float,
    BackgroundColor,
    Transform,
    /// The individual transform properties (CSS Transforms 2), which the computed `transform`
    /// does not include.
    Rotate,
    Scale,
    Translate,
    ClipPath,
    Contain,
    Filter,
    /// `border-top-left-radius`, `-top-right-`, `-bottom-right-`, `-bottom-left-` (0 to 3), as
    /// captures recorded with the longhands hold them.
    BorderRadius(u8),
    /// `border-radius`: the four corners in one style (what the engine asks for: each style
    /// costs Chromium time on every layout box).
    BorderRadii,
    /// A style requested by someone else; ignored here.
    Ignored,
}

impl StyleField {
    pub(crate) fn from_name(name: &str) -> Self {
        match name {
            "display" => StyleField::Display,
            "visibility" => StyleField::Visibility,
            "opacity" => StyleField::Opacity,
            "overflow-x" => StyleField::OverflowX,
            "overflow-y" => StyleField::OverflowY,
            "cursor" => StyleField::Cursor,
            "pointer-events" => StyleField::PointerEvents,
            "position" => StyleField::Position,
            "z-index" => StyleField::ZIndex,
            "clip" => StyleField::Clip,
            "content-visibility" => StyleField::ContentVisibility,
            "float" => StyleField::Float,
            "background-color" => StyleField::BackgroundColor,
            "transform" => StyleField::Transform,
            "rotate" => StyleField::Rotate,
            "scale" => StyleField::Scale,
            "translate" => StyleField::Translate,
            "clip-path" => StyleField::ClipPath,
            "contain" => StyleField::Contain,
            "filter" => StyleField::Filter,
            "border-radius" => StyleField::BorderRadii,
            "border-top-left-radius" => StyleField::BorderRadius(0),
            "border-top-right-radius" => StyleField::BorderRadius(1),
            "border-bottom-right-radius" => StyleField::BorderRadius(2),
            "border-bottom-left-radius" => StyleField::BorderRadius(3),
            _ => StyleField::Ignored,
        }
    }

    /// Parses one value into `style`.
    pub(crate) fn apply(self, style: &mut Style, value: &str) {
        match self {
            StyleField::Display => style.display = Display::parse(value),
            StyleField::Visibility => style.visibility = Visibility::parse(value),
            StyleField::Opacity => {
                style.opacity = value
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map(|v| v.clamp(0.0, 1.0))
                    .unwrap_or(1.0)
            }
            StyleField::OverflowX => style.overflow_x = Overflow::parse(value),
            StyleField::OverflowY => style.overflow_y = Overflow::parse(value),
            StyleField::Cursor => style.cursor = Cursor::parse(value),
            StyleField::PointerEvents => style.pointer_events = PointerEvents::parse(value),
            StyleField::Position => style.position = Position::parse(value),
            StyleField::ZIndex => style.z_index = value.parse::<i32>().ok(),
            StyleField::Clip => style.clip = ClipRect::parse(value),
            StyleField::ContentVisibility => {
                style.content_visibility = ContentVisibility::parse(value)
            }
            StyleField::Float => style.float = Float::parse(value),
            StyleField::BackgroundColor => style.has_background = !is_transparent(value),
            StyleField::Transform => {
                let t = &mut style.transform_parts;
                t.set(TransformParts::OWN, value != "none" && !value.is_empty());
                t.set_3d(TransformParts::OWN, value.starts_with("matrix3d"));
                // A 2-D matrix that does not read counts as no turn (as before the parts).
                t.own = matrix_linear(value).unwrap_or(IDENTITY);
                t.apply_to(style);
            }
            StyleField::Rotate => {
                let t = &mut style.transform_parts;
                let (turn, three_d) = parse_rotate(value);
                t.set(TransformParts::ROTATE, value != "none" && !value.is_empty());
                t.set_3d(TransformParts::ROTATE, three_d);
                t.rotate = turn;
                t.apply_to(style);
            }
            StyleField::Scale => {
                let t = &mut style.transform_parts;
                t.set(TransformParts::SCALE, value != "none" && !value.is_empty());
                t.scale = parse_scale(value);
                t.apply_to(style);
            }
            StyleField::Translate => {
                let t = &mut style.transform_parts;
                t.set(
                    TransformParts::TRANSLATE,
                    value != "none" && !value.is_empty(),
                );
                // A depth moves the box towards a viewer only under a perspective, which the
                // snapshot does not show: unsure, like `translate3d()`.
                let depth = value
                    .split_whitespace()
                    .nth(2)
                    .is_some_and(|z| parse_px(z).is_none_or(|v| v != 0.0));
                t.set_3d(TransformParts::TRANSLATE, depth);
                t.apply_to(style);
            }
            StyleField::Filter => {
                style.filtered = value != "none" && !value.is_empty();
                style.filter_transparent = filter_transparent(value);
            }
            StyleField::BorderRadius(k) => style.border_radius.set(usize::from(k & 3), value),
            StyleField::BorderRadii => style.border_radius.set_all(value),
            StyleField::ClipPath => style.clip_path = ClipPath::parse(value),
            StyleField::Contain => {
                style.paint_contained = value
                    .split_whitespace()
                    .any(|k| matches!(k, "paint" | "content" | "strict"))
            }
            StyleField::Ignored => {}
        }
    }
}

/// A computed `filter` list holding `opacity(0)`.
fn filter_transparent(value: &str) -> bool {
    value.split("opacity(").skip(1).any(|rest| {
        let arg = rest.split(')').next().unwrap_or("").trim();
        let (num, pct) = match arg.strip_suffix('%') {
            Some(n) => (n, true),
            None => (arg, false),
        };
        num.parse::<f64>()
            .is_ok_and(|v| v.is_finite() && (if pct { v / 100.0 } else { v }) <= 0.0)
    })
}

/// `[a, b, c, d]` of a 2-D `matrix(a, b, c, d, e, f)`.
fn matrix_linear(value: &str) -> Option<[f32; 4]> {
    let inner = value.strip_prefix("matrix(")?.strip_suffix(')')?;
    let v: Vec<f32> = inner
        .split(',')
        .map(|t| t.trim().parse::<f32>().ok().filter(|v| v.is_finite()))
        .collect::<Option<_>>()?;
    (v.len() == 6).then(|| [v[0], v[1], v[2], v[3]])
}

const IDENTITY: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

/// The sources of a box's transform. CSS applies `translate`, then `rotate`, then `scale`, then
/// `transform`, all about `transform-origin`; the origin only moves the box, and the snapshot's
/// rectangle already holds where it went, so the linear parts are all the shape needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TransformParts {
    /// Which sources are not `none`, and which of them are 3-D (bits below).
    set: u8,
    three_d: u8,
    /// The linear part of `transform` (see [`Style::transform_linear`]).
    own: [f32; 4],
    /// The linear part of `rotate` (about the z axis).
    rotate: [f32; 4],
    /// `scale` along x and y (a z factor does not change a flat box's shape).
    scale: [f32; 2],
}

impl TransformParts {
    const OWN: u8 = 1;
    const ROTATE: u8 = 2;
    const SCALE: u8 = 4;
    const TRANSLATE: u8 = 8;
    const NONE: TransformParts = TransformParts {
        set: 0,
        three_d: 0,
        own: IDENTITY,
        rotate: IDENTITY,
        scale: [1.0, 1.0],
    };

    fn set(&mut self, bit: u8, on: bool) {
        self.set = if on { self.set | bit } else { self.set & !bit };
    }

    fn set_3d(&mut self, bit: u8, on: bool) {
        self.three_d = if on {
            self.three_d | bit
        } else {
            self.three_d & !bit
        };
    }

    /// Sets the style's transform fields to the product of the parts.
    fn apply_to(self, style: &mut Style) {
        let mul = |p: [f64; 4], o: [f64; 4]| {
            [
                p[0] * o[0] + p[2] * o[1],
                p[1] * o[0] + p[3] * o[1],
                p[0] * o[2] + p[2] * o[3],
                p[1] * o[2] + p[3] * o[3],
            ]
        };
        let [sx, sy] = self.scale.map(f64::from);
        let m = mul(
            self.rotate.map(f64::from),
            mul([sx, 0.0, 0.0, sy], self.own.map(f64::from)),
        )
        // A turn by a multiple of 90° leaves rounding dust off the diagonal: it does not turn
        // the box's rectangle.
        .map(|v| if v.abs() < 1e-6 { 0.0 } else { v });
        style.transformed = self.set != 0;
        style.transform_3d = self.three_d != 0;
        style.transform_rotated = style.transform_3d || m[1] != 0.0 || m[2] != 0.0;
        style.transform_linear = m.map(|v| v as f32);
        style.transform_parts = self;
    }
}

/// The computed `rotate` (`30deg`, `x 30deg`, `1 1 0 45deg`; Chromium gives degrees and drops
/// a `z` axis): its linear part about the z axis, and whether it turns about another axis.
fn parse_rotate(value: &str) -> ([f32; 4], bool) {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let angle = |s: &str| -> Option<f64> {
        let (num, per_turn) = if let Some(n) = s.strip_suffix("deg") {
            (n, 360.0)
        } else if let Some(n) = s.strip_suffix("grad") {
            (n, 400.0)
        } else if let Some(n) = s.strip_suffix("rad") {
            (n, std::f64::consts::TAU)
        } else if let Some(n) = s.strip_suffix("turn") {
            (n, 1.0)
        } else {
            (s, 360.0)
        };
        let v: f64 = num.parse().ok().filter(|v: &f64| v.is_finite())?;
        Some(v / per_turn * std::f64::consts::TAU)
    };
    let (rad, three_d) = match parts.as_slice() {
        [a] => (angle(a), false),
        ["z", a] => (angle(a), false),
        [_, _] => (None, true),
        [x, y, z, a] => {
            let n = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
            match (n(x), n(y), n(z)) {
                (Some(x), Some(y), Some(z)) if x == 0.0 && y == 0.0 && z != 0.0 => {
                    (angle(a).map(|r| r * z.signum()), false)
                }
                _ => (None, true),
            }
        }
        _ => (None, false),
    };
    let Some(r) = rad else {
        return (IDENTITY, three_d);
    };
    let (sin, cos) = r.sin_cos();
    ([cos, sin, -sin, cos].map(|v| v as f32), false)
}

/// The computed `scale` (`1.5`, `1.5 2`, `1 1 2`): the factors along x and y.
fn parse_scale(value: &str) -> [f32; 2] {
    let n = |s: &str| s.parse::<f32>().ok().filter(|v| v.is_finite());
    let mut it = value.split_whitespace().map(n);
    match (it.next(), it.next()) {
        (Some(Some(x)), None) => [x, x],
        (Some(Some(x)), Some(Some(y))) => [x, y],
        _ => [1.0, 1.0],
    }
}

/// `transparent`, `rgba(..., 0)` and friends.
fn is_transparent(value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() || v == "transparent" {
        return true;
    }
    if let Some(inner) = v.strip_prefix("rgba(").and_then(|r| r.strip_suffix(')')) {
        if let Some(alpha) = inner.rsplit([',', '/']).next() {
            return alpha.trim().parse::<f64>().is_ok_and(|a| a == 0.0);
        }
    }
    false
}

/// Which computed styles the capture holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StylesPresent {
    pub display: bool,
    pub visibility: bool,
    pub opacity: bool,
    pub overflow: bool,
    pub cursor: bool,
    pub pointer_events: bool,
    pub position: bool,
    pub z_index: bool,
    pub clip: bool,
    pub content_visibility: bool,
    pub float: bool,
    pub background_color: bool,
    pub transform: bool,
    /// `rotate`, `scale`, `translate`.
    pub individual_transforms: bool,
    pub clip_path: bool,
    pub contain: bool,
    pub border_radius: bool,
    pub filter: bool,
}

impl StylesPresent {
    pub(crate) fn mark(&mut self, f: StyleField) {
        match f {
            StyleField::Display => self.display = true,
            StyleField::Visibility => self.visibility = true,
            StyleField::Opacity => self.opacity = true,
            StyleField::OverflowX | StyleField::OverflowY => self.overflow = true,
            StyleField::Cursor => self.cursor = true,
            StyleField::PointerEvents => self.pointer_events = true,
            StyleField::Position => self.position = true,
            StyleField::ZIndex => self.z_index = true,
            StyleField::Clip => self.clip = true,
            StyleField::ContentVisibility => self.content_visibility = true,
            StyleField::Float => self.float = true,
            StyleField::BackgroundColor => self.background_color = true,
            StyleField::Transform => self.transform = true,
            StyleField::Rotate | StyleField::Scale | StyleField::Translate => {
                self.individual_transforms = true
            }
            StyleField::ClipPath => self.clip_path = true,
            StyleField::Contain => self.contain = true,
            StyleField::BorderRadius(_) | StyleField::BorderRadii => self.border_radius = true,
            StyleField::Filter => self.filter = true,
            StyleField::Ignored => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_clip_rect() {
        let c = ClipRect::parse("rect(0px, 0px, 0px, 0px)").unwrap();
        assert_eq!(c.top, Some(0.0));
        let c = ClipRect::parse("rect(1px 2px auto 4px)").unwrap();
        assert_eq!(c.right, Some(2.0));
        assert_eq!(c.bottom, None);
        assert!(ClipRect::parse("auto").is_none());
        assert!(ClipRect::parse("rect(1px)").is_none());
    }

    #[test]
    fn parses_clip_path() {
        let b = crate::model::Rect::new(10.0, 20.0, 100.0, 40.0);
        let ClipPath::Inset(i) = ClipPath::parse("inset(50%)") else {
            panic!("inset(50%) is an inset");
        };
        assert!(i.rect_in(b).is_empty());
        let ClipPath::Inset(i) = ClipPath::parse("inset(0px 50% 0px 0px round 4px)") else {
            panic!("inset with round is an inset");
        };
        assert_eq!(
            i.rect_in(b),
            crate::model::Rect::new(10.0, 20.0, 50.0, 40.0)
        );
        assert_eq!(ClipPath::parse("none"), ClipPath::None);
        let ClipPath::Ellipse(e) = ClipPath::parse("circle(50% at 50% 50%)") else {
            panic!("a circle is an ellipse");
        };
        // 50% of the normalized diagonal of a 100x40 box: about 38 px.
        let r = e.rect_in(b);
        assert!((r.width - 76.16).abs() < 0.1 && (r.center().x - 60.0).abs() < 1e-9);
        let ClipPath::Ellipse(e) = ClipPath::parse("circle(at 0px 50%)") else {
            panic!("a circle without radius is closest-side");
        };
        assert_eq!(e.rect_in(b).width, 0.0);
        let ClipPath::Ellipse(e) = ClipPath::parse("ellipse(20px 10% at 25% 50%)") else {
            panic!("an ellipse");
        };
        assert_eq!(e.rect_in(b), crate::model::Rect::new(15.0, 36.0, 40.0, 8.0));
        let ClipPath::Polygon(p) = ClipPath::parse("polygon(evenodd, 0px 0px, 100% 0%, 50% 100%)")
        else {
            panic!("a polygon");
        };
        assert!(p.even_odd);
        assert_eq!(
            p.points_in(b).collect::<Vec<_>>(),
            vec![(10.0, 20.0), (110.0, 20.0), (60.0, 60.0)]
        );
        assert_eq!(p.rect_in(b), b);
        assert_eq!(
            ClipPath::parse("polygon(0px 0px, 10px 0px)"),
            ClipPath::Shape
        );
        assert_eq!(
            ClipPath::parse("polygon(0px 0px, calc(10% + 2px) 0px, 5px 5px)"),
            ClipPath::Shape
        );
        assert_eq!(ClipPath::parse("circle(50px at left top)"), ClipPath::Shape);
        assert_eq!(ClipPath::parse("inset(calc(10% + 2px))"), ClipPath::Shape);
        assert_eq!(
            ClipPath::parse("inset(1px 2px 3px 4px 5px)"),
            ClipPath::Shape
        );
    }

    #[test]
    fn parses_paint_containment() {
        let mut style = Style::default();
        for (value, contained) in [
            ("paint", true),
            ("layout paint", true),
            ("content", true),
            ("strict", true),
            ("layout style", false),
            ("none", false),
        ] {
            StyleField::Contain.apply(&mut style, value);
            assert_eq!(style.paint_contained, contained, "{value}");
        }
    }

    #[test]
    fn parses_border_radius_and_matrix() {
        let mut style = Style::default();
        assert!(style.border_radius.is_none());
        StyleField::BorderRadius(0).apply(&mut style, "50%");
        StyleField::BorderRadius(2).apply(&mut style, "10px 20px");
        assert!(!style.border_radius.is_none());
        let b = crate::model::Rect::new(0.0, 0.0, 40.0, 20.0);
        let r = style.border_radius.resolve(b);
        assert_eq!(r[0], (20.0, 10.0));
        assert_eq!(r[1], (0.0, 0.0));
        // The top-left corner's 10 px and the bottom-left's 15 px share a 20 px tall side:
        // every radius shrinks by 20 / 25.
        StyleField::BorderRadius(3).apply(&mut style, "15px");
        let r = style
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 400.0, 20.0));
        assert!(
            (r[2].0 - 8.0).abs() < 1e-9 && (r[2].1 - 16.0).abs() < 1e-9,
            "{r:?}"
        );
        // The shorthand, as the engine asks for it: spread over the corners as CSS does.
        let mut all = Style::default();
        StyleField::from_name("border-radius").apply(&mut all, "10px 20px 30px / 5px 50%");
        let r = all
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 400.0, 400.0));
        assert_eq!(r, [(10.0, 5.0), (20.0, 200.0), (30.0, 5.0), (20.0, 200.0)]);
        StyleField::BorderRadii.apply(&mut all, "50%");
        let r = all
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 40.0, 20.0));
        assert_eq!(r, [(20.0, 10.0); 4]);
        // A function's inner spaces and `/` do not split the corners.
        let corners_of = |value: &str, want: [(f64, f64); 4]| {
            let mut style = Style::default();
            StyleField::BorderRadii.apply(&mut style, value);
            let r = style
                .border_radius
                .resolve(crate::model::Rect::new(0.0, 0.0, 200.0, 100.0));
            let close = r
                .iter()
                .zip(want)
                .all(|(got, want)| (got.0 - want.0).abs() < 1e-4 && (got.1 - want.1).abs() < 1e-4);
            assert!(close, "{value}: {r:?}");
        };
        corners_of(
            "calc(10% + 4px) 8px / 50%",
            [(24.0, 50.0), (8.0, 50.0), (24.0, 50.0), (8.0, 50.0)],
        );
        corners_of(
            "10px calc(5% - 2px) 3px / 4px calc(2% + 16px)",
            [(10.0, 4.0), (8.0, 18.0), (3.0, 4.0), (8.0, 18.0)],
        );
        StyleField::BorderRadii.apply(&mut all, "min(10px, 6.66667%) / 8px");
        let r = all
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 60.0, 100.0));
        assert!((r[0].0 - 4.0).abs() < 1e-4 && r[0].1 == 8.0, "{r:?}");
        // An unresolved radius squares its corners only (see `UNRESOLVED`).
        StyleField::BorderRadii.apply(&mut all, "var(--x) 8px");
        let r = all
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 60.0, 100.0));
        assert_eq!(r, [(0.0, 0.0), (8.0, 8.0), (0.0, 0.0), (8.0, 8.0)]);
        // One corner given by its longhand, with a function.
        let mut one = Style::default();
        StyleField::BorderRadius(1).apply(&mut one, "calc(10% + 4px) 25%");
        let r = one
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 200.0, 100.0));
        assert!((r[1].0 - 24.0).abs() < 1e-4 && r[1].1 == 25.0, "{r:?}");
        StyleField::BorderRadii.apply(&mut all, "1px 2px 3px 4px 5px");
        assert!(all.border_radius.is_none());
        StyleField::Transform.apply(&mut style, "matrix(0.5, 0.866, -0.866, 0.5, 3, 4)");
        assert!(style.transform_rotated);
        assert_eq!(style.transform_linear, [0.5, 0.866, -0.866, 0.5]);
        StyleField::Transform.apply(&mut style, "none");
        assert_eq!(style.transform_linear, [1.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn individual_transform_properties_join_the_transform() {
        let field = |s: &mut Style, name: &str, v: &str| StyleField::from_name(name).apply(s, v);
        let near = |a: [f32; 4], b: [f32; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        // `rotate` alone: the computed `transform` is `none`.
        let mut s = Style::default();
        field(&mut s, "transform", "none");
        field(&mut s, "rotate", "30deg");
        field(&mut s, "scale", "none");
        field(&mut s, "translate", "none");
        assert!(s.transformed && s.transform_rotated && !s.transform_3d);
        let (c, n) = (0.866_025_4, 0.5);
        assert!(near(s.transform_linear, [c, n, -n, c]), "{s:?}");
        // The order does not matter: rotate, then scale, then the transform.
        let mut t = Style::default();
        field(&mut t, "scale", "2 3");
        field(&mut t, "transform", "matrix(1, 0, 0, 1, 5, 5)");
        field(&mut t, "rotate", "0 0 -1 30deg");
        assert!(
            near(t.transform_linear, [2.0 * c, -2.0 * n, 3.0 * n, 3.0 * c]),
            "{t:?}"
        );
        // Half a turn, a scale and a move keep the rectangle axis-aligned, yet transform.
        for (name, v) in [
            ("rotate", "180deg"),
            ("scale", "1.5"),
            ("translate", "10px 20%"),
        ] {
            let mut u = Style::default();
            field(&mut u, name, v);
            assert!(u.transformed && !u.transform_rotated, "{name}: {v}");
        }
        // Turning about another axis, or a depth, is 3-D.
        for (name, v) in [
            ("rotate", "x 30deg"),
            ("rotate", "1 1 0 45deg"),
            ("translate", "1px 2px 3px"),
        ] {
            let mut u = Style::default();
            field(&mut u, name, v);
            assert!(u.transform_3d && u.transform_rotated, "{name}: {v}");
        }
        field(&mut s, "rotate", "none");
        assert!(!s.transformed && s == Style::default(), "{s:?}");
    }

    #[test]
    fn parses_filter() {
        let mut style = Style::default();
        for (value, filtered, transparent) in [
            ("none", false, false),
            ("opacity(0)", true, true),
            ("blur(2px) opacity(0%)", true, true),
            ("opacity(0.5)", true, false),
            ("grayscale(1)", true, false),
        ] {
            StyleField::Filter.apply(&mut style, value);
            assert_eq!(
                (style.filtered, style.filter_transparent),
                (filtered, transparent),
                "{value}"
            );
        }
    }

    #[test]
    fn parses_background() {
        assert!(is_transparent("rgba(0, 0, 0, 0)"));
        assert!(!is_transparent("rgb(255, 255, 255)"));
        assert!(!is_transparent("rgba(0, 0, 0, 0.5)"));
    }

    #[test]
    fn parses_display() {
        assert_eq!(Display::parse("inline-block"), Display::InlineBlock);
        assert_eq!(Display::parse("table-cell"), Display::TablePart);
        assert!(Display::parse("inline-flex").is_atomic_inline());
    }
}
