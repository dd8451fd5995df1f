//! What of the page can be read at all, and how much text each subtree holds.
//!
//! Why: hidden text must never reach the extraction, and "hidden" is what Chromium rendered,
//! not what the markup says — the analysis already knows which text fragments a person sees
//! (display, visibility, opacity, clipping, iframes). Here that is narrowed further to what a
//! reader would read: text inside the page's area (not moved off-screen), larger than a dot
//! (not squeezed into a 1 px box), not `aria-hidden`, not inside controls, scripts or SVG
//! icons. The counts made here (visible characters, characters inside links, per subtree) are
//! what the choice of the main content weighs.

use crate::analysis::{Analysis, Rect};
use crate::model::{Display, Model, NodeId, NodeKind, Position};

/// Tags whose content is never prose to read.
const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "button", "select",
    "option", "optgroup", "input", "textarea", "datalist", "canvas", "audio", "video", "object",
    "embed", "map", "svg", "math", "progress", "meter", "dialog", "label", "menu",
];

/// Tags that stand for a block of their own even without a box (`display: contents`).
const BLOCK_TAGS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
    "pre",
    "blockquote",
    "figure",
    "figcaption",
    "hr",
    "form",
    "fieldset",
    "details",
    "summary",
    "address",
    "body",
    "html",
    "iframe",
    "center",
];

/// Per-node facts of one page.
pub(crate) struct Prep {
    /// The node may appear: not inside anything hidden or skipped. For a text node: its text
    /// is seen.
    pub shown: Vec<bool>,
    /// Visible characters of text in the subtree (whitespace runs count as one).
    pub chars: Vec<u32>,
    /// Of those, the characters inside links.
    pub link_chars: Vec<u32>,
}

/// Whether the element is laid out as a block (or stands for one without a box).
pub(crate) fn is_block(model: &Model, id: NodeId) -> bool {
    let n = model.node(id);
    match n.kind {
        NodeKind::Document | NodeKind::DocumentFragment => return true,
        NodeKind::Element => {}
        _ => return false,
    }
    match model.style_of(id).map(|s| s.display) {
        Some(Display::Inline) => false,
        Some(d) if d.is_atomic_inline() => false,
        Some(Display::None) => false,
        Some(_) => true,
        None => model.tag(id).is_some_and(|t| BLOCK_TAGS.contains(&t)),
    }
}

/// The box is fixed or sticky: it stays on screen while the page scrolls.
pub(crate) fn is_pinned(model: &Model, id: NodeId) -> bool {
    model
        .style_of(id)
        .is_some_and(|s| matches!(s.position, Position::Fixed | Position::Sticky))
}

/// The collapsed length of a text: whitespace runs count as one character.
pub(crate) fn collapsed_len(text: &str) -> u32 {
    let mut n = 0u32;
    let mut space = true;
    for c in text.chars() {
        if c.is_whitespace() {
            if !space {
                n += 1;
            }
            space = true;
        } else {
            n += 1;
            space = false;
        }
    }
    n
}

/// The text of a text node: its DOM value (the rendered text only when it has none).
pub(crate) fn text_of(model: &Model, id: NodeId) -> &str {
    let n = model.node(id);
    n.value
        .map(|v| model.str(v))
        .or_else(|| {
            n.layout
                .and_then(|l| model.layout(l).text)
                .map(|t| model.str(t))
        })
        .unwrap_or("")
}

impl Prep {
    /// Decides what can be read and counts the text.
    pub fn new(model: &Model, analysis: &Analysis) -> Prep {
        let n = model.nodes.len();
        let v = analysis.viewport;
        let page = Rect::new(
            -v.scroll_x,
            -v.scroll_y,
            v.content_width.max(v.width),
            v.content_height.max(v.height),
        );
        let mut shown = vec![false; n];
        let mut in_link = vec![false; n];
        for i in 0..n {
            let id = NodeId::new(i as u32);
            let node = &model.nodes[i];
            let parent_shown = node.parent.is_none_or(|p| shown[p.index()]);
            let parent_link = node.parent.is_some_and(|p| in_link[p.index()]);
            if !parent_shown {
                continue;
            }
            in_link[i] = parent_link;
            shown[i] = match node.kind {
                NodeKind::Text => text_seen(model, analysis, id, page),
                NodeKind::Element => {
                    if model.tag(id) == Some("a") && model.has_attr(id, "href") {
                        in_link[i] = true;
                    }
                    element_readable(model, id)
                }
                NodeKind::Document => true,
                NodeKind::DocumentFragment => model
                    .rare_strings(id)
                    .shadow_root_type
                    .is_none_or(|t| model.str(t) != "user-agent"),
                _ => false,
            };
        }
        let mut chars = vec![0u32; n];
        let mut link_chars = vec![0u32; n];
        for i in (0..n).rev() {
            let node = &model.nodes[i];
            if shown[i] && node.kind == NodeKind::Text {
                let len = collapsed_len(text_of(model, NodeId::new(i as u32)));
                chars[i] += len;
                if in_link[i] {
                    link_chars[i] += len;
                }
            }
            if let Some(p) = node.parent {
                let (c, l) = (chars[i], link_chars[i]);
                chars[p.index()] += c;
                link_chars[p.index()] += l;
            }
        }
        Prep {
            shown,
            chars,
            link_chars,
        }
    }
}

/// A text node a person sees: a visible fragment larger than a dot, inside the page's area.
fn text_seen(model: &Model, analysis: &Analysis, id: NodeId, page: Rect) -> bool {
    if model.node(id).layout.is_none() {
        return false;
    }
    let Some(r) = analysis.facts(id).visible_rect() else {
        return false;
    };
    r.width >= 2.0 && r.height >= 2.0 && r.intersect(&page).is_some()
}

/// An element whose content may be read: not a skipped tag, not `aria-hidden`, not hidden.
fn element_readable(model: &Model, id: NodeId) -> bool {
    let node = model.node(id);
    if node.pseudo.is_some() {
        return false;
    }
    if model.tag(id).is_some_and(|t| SKIPPED_TAGS.contains(&t)) {
        return false;
    }
    if model
        .attr(id, "aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return false;
    }
    if model.has_attr(id, "hidden") && node.layout.is_none() {
        return false;
    }
    true
}
