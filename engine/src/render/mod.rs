//! Render: what the model reads. Pure functions from `(Model, Analysis, uids, options)` to one
//! `String`; no I/O, no async.
//!
//! Three outputs, one node selection per mode:
//! - **a11y text** ([`a11y`], the default): the "interesting" accessibility tree in the line
//!   format agents already know from chrome-devtools-mcp's `take_snapshot`
//!   (`uid=1_3 link "Docs" url="…"`, two spaces of indent per level). Agents and their prompts
//!   are tuned to that format, so it is kept exactly — same node filter, roles, names and
//!   attribute spelling — and only *extended*: interactive elements the AX tree hides are spliced
//!   in (`clickable`), covered elements say what covers them (`occluded-by=…`), scroll containers
//!   say how much is hidden (`scroll="…"`), and only what is in the (expanded) viewport is printed.
//! - **dom text** ([`dom`]): the indexed interactive list of browser-use / Nanobrowser
//!   (`[3_12]<button type=submit>Pay />`, `*[…]` for new elements, free text on its own lines,
//!   a scroll line, `[Start of page]` / `[End of page]`), for agents built on that format.
//! - **JSON** ([`json`]): docs/protocol.md's schema, for programs; its tree holds exactly the nodes
//!   the chosen text mode prints.
//!
//! Every piece of page text goes through [`escape`], so no page can forge a line or break out of
//! its quotes. Output is written into one pre-sized `String`; per-node work allocates nothing.

pub mod a11y;
pub mod annotate;
pub mod budget;
pub mod diff;
pub mod dom;
pub mod escape;
pub mod json;

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use crate::analysis::{Analysis, Expand, ScrollInfo};
use crate::identity::UidSource;
use crate::model::{Model, NodeId};

/// Which node selection and line format to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The accessibility view (chrome-devtools-mcp's format).
    #[default]
    A11y,
    /// The indexed interactive list (browser-use's format).
    Dom,
}

/// Text or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// What to render. The viewport filter is not an option here: it follows the
/// [`Expand`] the analysis ran with (`Expand::All` prints the whole page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    pub mode: Mode,
    pub format: Format,
    /// a11y mode: every non-ignored AX node, not only the interesting ones.
    pub verbose: bool,
    /// Reported as `consistent` in JSON: the DOM snapshot and the AX tree were taken of the same
    /// page state (the capture layer knows; the renderer only passes it on).
    pub consistent: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            mode: Mode::A11y,
            format: Format::Text,
            verbose: false,
            consistent: true,
        }
    }
}

/// Whether a snapshot was taken of one state of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Consistency {
    /// Every part was taken of one state of its frame.
    #[default]
    Whole,
    /// The page changed while it was read: `left_out` accessibility nodes that did not agree
    /// with the DOM snapshot were left out, and a frame's part may mix two states (`0`: only
    /// the latter).
    Partial { left_out: usize },
}

/// The line a text snapshot ends with (before a budget's summary line) when the page changed
/// while it was read, in the spelling of `mode`'s other notes; `None` for a whole snapshot.
/// Why a line of text: a model reads the text, not the JSON's `consistent`, and should know
/// that a few elements may be missing and another snapshot may show them.
pub fn changed_note(mode: Mode, consistency: Consistency) -> Option<String> {
    let Consistency::Partial { left_out } = consistency else {
        return None;
    };
    let what = match left_out {
        0 => "a frame changed while it was read, so its part may mix two moments".to_string(),
        1 => "the page changed while it was read: 1 element that changed meanwhile is left out"
            .to_string(),
        n => format!(
            "the page changed while it was read: {n} elements that changed meanwhile are left out"
        ),
    };
    Some(match mode {
        Mode::A11y => format!("… {what}; snapshot again to see the page as it is now"),
        Mode::Dom => format!("... {what}; snapshot again to see the page as it is now ..."),
    })
}

/// Renders a snapshot in the mode and format `options` ask for.
pub fn render<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> String {
    match (options.format, options.mode) {
        (Format::Text, Mode::A11y) => a11y::render(model, analysis, uids, options),
        (Format::Text, Mode::Dom) => dom::render(model, analysis, uids, options),
        (Format::Json, _) => json::render(model, analysis, uids, options),
    }
}

/// Renders a text mode with what the [`budget`] needs to know of each line; `None` for JSON.
pub fn render_lines<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> Option<budget::Rendered> {
    match (options.format, options.mode) {
        (Format::Text, Mode::A11y) => Some(a11y::render_lines(model, analysis, uids, options)),
        (Format::Text, Mode::Dom) => Some(dom::render_lines(model, analysis, uids, options)),
        (Format::Json, _) => None,
    }
}

/// How far a box (viewport coordinates) lies outside the viewport, in viewport sizes: 0 when
/// it touches the viewport, 1 when it is one viewport height (or width) away.
pub(crate) fn view_distance(analysis: &Analysis, b: &crate::model::Rect) -> f64 {
    let v = &analysis.viewport;
    let away = |start: f64, len: f64, size: f64| {
        let size = size.max(1.0);
        let gap = if start + len < 0.0 {
            -(start + len)
        } else if start > size {
            start - size
        } else {
            0.0
        };
        gap / size
    };
    let d = away(b.y, b.height, v.height).max(away(b.x, b.width, v.width));
    if d.is_finite() {
        d
    } else {
        f64::INFINITY
    }
}

/// Caps (in characters) for page strings in the text formats. Generous enough to carry a label
/// or a sentence, small enough that one huge text node cannot flood the model's context.
pub(crate) mod caps {
    /// Accessible names and free-text lines of the a11y view.
    pub const NAME: usize = 160;
    /// Values of form fields, descriptions.
    pub const VALUE: usize = 120;
    /// URLs.
    pub const URL: usize = 200;
    /// Text of an element in the dom view.
    pub const ELEMENT_TEXT: usize = 100;
    /// Attribute values in the dom view.
    pub const ATTR: usize = 80;
    /// One free-text line of the dom view.
    pub const FREE_TEXT: usize = 240;
    /// Strings in JSON (which has no line format to protect, only a context budget).
    pub const JSON: usize = 2000;
}

/// What a password field shows instead of its value.
pub(crate) const MASKED: &str = "••••";

/// Whether the viewport filter is off (the analysis ran with `Expand::All`).
pub(crate) fn expand_all(analysis: &Analysis) -> bool {
    analysis.options.expand == Expand::All
}

/// Whether a DOM node is an `<input type=password>` (whose value is never shown).
pub(crate) fn is_password(model: &Model, node: NodeId) -> bool {
    model.is_tag(node, "input")
        && model
            .attr(node, "type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"))
}

/// Facts of a node, tolerant of an analysis built for another model (default facts).
pub(crate) fn facts(analysis: &Analysis, node: NodeId) -> &crate::analysis::NodeFacts {
    static NONE: std::sync::OnceLock<crate::analysis::NodeFacts> = std::sync::OnceLock::new();
    analysis
        .nodes
        .get(node.index())
        .unwrap_or_else(|| NONE.get_or_init(Default::default))
}

/// Appends a pixel count with no fraction.
pub(crate) fn push_px(out: &mut String, px: f64) {
    let px = if px.is_finite() {
        px.max(0.0).round()
    } else {
        0.0
    };
    let _ = write!(out, "{}", px as i64);
}

/// Appends a page count with one decimal.
pub(crate) fn push_pages(out: &mut String, px: f64, page: f64) {
    let pages = if page > 0.0 && px.is_finite() {
        (px.max(0.0) / page).min(1.0e6)
    } else {
        0.0
    };
    let _ = write!(out, "{pages:.1}");
}

/// The hidden content of a scroll container, e.g. `0px above, 1234px below (1.5 pages)` —
/// the vertical part when it scrolls vertically, the horizontal part when it scrolls
/// horizontally. Empty when it does not scroll at all.
pub(crate) fn push_scroll_summary(out: &mut String, s: &ScrollInfo) {
    let start = out.len();
    if s.scrolls_vertically() {
        push_dir(out, s.above(), "above", s.client_height);
        out.push_str(", ");
        push_dir(out, s.below(), "below", s.client_height);
    }
    if s.scrolls_horizontally() {
        if out.len() > start {
            out.push_str(", ");
        }
        push_dir(out, s.left_of(), "left", s.client_width);
        out.push_str(", ");
        push_dir(out, s.right_of(), "right", s.client_width);
    }
}

fn push_dir(out: &mut String, px: f64, dir: &str, page: f64) {
    push_px(out, px);
    out.push_str("px ");
    out.push_str(dir);
    if px >= 0.5 {
        out.push_str(" (");
        push_pages(out, px, page);
        out.push_str(" pages)");
    }
}

/// Appends ` (content not captured: <reason>)` after an `<iframe>` whose content is not in the
/// model, so an agent knows the frame is unread rather than empty.
pub(crate) fn push_uncaptured(out: &mut String, model: &Model, node: NodeId) {
    if let Some(reason) = model.uncaptured_reason(node) {
        out.push_str(" (content not captured: ");
        escape::push(out, reason, escape::Style::Text, caps::VALUE);
        out.push(')');
    }
}

/// Whether a scroll container has anything hidden to report.
pub(crate) fn scrolls(s: &ScrollInfo) -> bool {
    s.scrolls_vertically() || s.scrolls_horizontally()
}

/// Finds the control a `<label>` labels, to leave out labels that only repeat their control.
///
/// Why: the analysis rightly finds labels clickable (a click focuses or toggles the control, and
/// a styled label over a visually hidden checkbox is the *only* thing to click), but when the
/// control itself is offered, unobstructed and in view, the label is a second handle on the same
/// thing; its text still shows as text (the control's name in the a11y view, a free-text line
/// before the field in the dom view).
#[derive(Default)]
pub(crate) struct Labels<'m> {
    ids: Option<FxHashMap<(u32, &'m str), NodeId>>,
}

impl<'m> Labels<'m> {
    /// The labelled control: the element named by `for`, else the first labelable descendant.
    fn control(&mut self, model: &'m Model, label: NodeId) -> Option<NodeId> {
        let node = model.node(label);
        if let Some(target) = model.attr(label, "for").filter(|t| !t.is_empty()) {
            let ids = self.ids.get_or_insert_with(|| {
                let mut map = FxHashMap::default();
                for (i, n) in model.nodes.iter().enumerate() {
                    if n.is_element() {
                        if let Some(id) = model.attr(NodeId::new(i as u32), "id") {
                            map.entry((n.doc.get(), id))
                                .or_insert(NodeId::new(i as u32));
                        }
                    }
                }
                map
            });
            return ids.get(&(node.doc.get(), target)).copied();
        }
        let end = node.subtree_end.index().min(model.nodes.len());
        (label.index() + 1..end)
            .map(|i| NodeId::new(i as u32))
            .find(|&c| {
                matches!(
                    model.tag(c),
                    Some(
                        "input"
                            | "select"
                            | "textarea"
                            | "button"
                            | "meter"
                            | "output"
                            | "progress"
                    )
                ) && !model
                    .attr(c, "type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
            })
    }

    /// Whether `node` is a `<label>` whose control is offered, unobstructed, in the viewport.
    pub(crate) fn is_redundant(
        &mut self,
        model: &'m Model,
        analysis: &Analysis,
        node: NodeId,
    ) -> bool {
        if !model.is_tag(node, "label") {
            return false;
        }
        let all = expand_all(analysis);
        self.control(model, node).is_some_and(|c| {
            let f = facts(analysis, c);
            f.interactive && !analysis.click(c).occluded && (all || f.in_viewport)
        })
    }
}

/// Appends what covers an occluded node: its uid when it has one, else its tag.
pub(crate) fn push_covered_by<U: UidSource + ?Sized>(
    out: &mut String,
    model: &Model,
    uids: &U,
    cover: Option<NodeId>,
) {
    let Some(cover) = cover.filter(|c| c.index() < model.nodes.len()) else {
        out.push_str("unknown");
        return;
    };
    // A text node is covered-by as its parent element.
    let el = if model.node(cover).is_element() {
        cover
    } else {
        model.parent_element(cover).unwrap_or(cover)
    };
    if let Some(uid) = uids.dom(el) {
        let _ = write!(out, "{uid}");
    } else {
        match model.tag(el) {
            Some(t) => {
                escape::push_attr_value(out, t, caps::ATTR);
            }
            None => out.push_str("unknown"),
        }
    }
}
