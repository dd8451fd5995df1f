//! Computed styles, parsed once from the snapshot's string table into small enums and numbers.
//!
//! The snapshot gives, for every layout box, one string index per requested style name (in the
//! order of the capture's `computedStyles` list). A style the capture did not request parses as its
//! CSS initial value, and [`StylesPresent`] records that it was missing so a rule that depends on it
//! can be skipped rather than guessed.

mod shapes;

use self::shapes::parse_px;
pub use self::shapes::{
    BorderRadii, ClipPath, ClipRect, EllipseShape, InsetLength, InsetLengths, PolygonShape,
    ShapeRadius,
};

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
mod tests;
