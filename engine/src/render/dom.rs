//! The dom text view: browser-use / Nanobrowser's indexed interactive list.
//!
//! Why this shape: agents built on browser-use read a flat list where every element they can act
//! on is one line `[<index>]<tag attr=value …>text />`, nested one tab per interactive ancestor,
//! with the page's other text on lines of its own so the elements keep their context (a form
//! field's label is the free-text line just before it). The index is the uid here, so the same
//! agent loop works with uids that stay stable across snapshots. `*[uid]` marks an element that
//! is new since the previous snapshot, which tells the agent what its last action changed.
//!
//! The rules, following browser-use's serializer:
//! - an element is printed when the analysis found it interactive (or it is a scroll container
//!   with hidden content) and it is in the (expanded) viewport;
//! - its text is the visible text of its subtree up to the next printed element; one without
//!   text or a naming attribute (a logo link, an icon button) shows its accessible name;
//! - text that belongs to no printed element is free text; runs of it inside one block are
//!   joined into one line;
//! - a short attribute whitelist, values capped; redundant attributes are dropped (`role=button`
//!   on a `<button>`, an `aria-label` equal to the text, a value repeated by a later attribute);
//! - form state comes from the snapshot (`value`, `checked`, `selected`), never from attributes,
//!   and a password's value is masked;
//! - a line `... N pixels above (P pages) - M pixels below (Q pages) - scroll to see more ...`
//!   precedes `[Start of page]`; `[End of page]` closes the list.
//!
//! Free text can never start with `[`, `*` or `.` (see [`escape::push_line_text`]), so every line
//! that looks like an element is one.

use std::fmt::Write as _;

use smallvec::SmallVec;

use super::budget::{Line, LineKind, Rendered};
use super::escape::{self, Style};
use super::{caps, expand_all, facts, is_password, push_covered_by, push_pages, push_px};
use super::{push_scroll_summary, scrolls, Labels, RenderOptions, UidSource, MASKED};
use crate::analysis::Analysis;
use crate::identity::Uid;
use crate::model::{Checked, Display, Model, NodeId};

/// One printed element, in pre-order.
#[derive(Debug, Clone, Copy)]
pub struct Element {
    /// Number of printed ancestors.
    pub depth: u32,
    pub node: NodeId,
}

/// Which elements the dom view prints: a flag per model node.
pub fn printed_flags<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
) -> Vec<bool> {
    let all = expand_all(analysis);
    let mut labels = Labels::default();
    let mut printed = vec![false; model.nodes.len()];
    for (i, p) in printed.iter_mut().enumerate() {
        let id = NodeId::new(i as u32);
        let node = model.node(id);
        if !node.is_element() || node.pseudo.is_some() {
            continue;
        }
        let f = facts(analysis, id);
        let scroller = analysis.scroll(id).is_some_and(|s| scrolls(&s));
        // A transparent control a click reaches (an `opacity:0` input over its drawn box) is
        // offered like the box a person sees.
        *p = ((f.interactive && !labels.is_redundant(model, analysis, id)) || scroller)
            && (all || f.in_viewport || analysis.click(id).click_point.is_some())
            && uids.dom(id).is_some();
    }
    printed
}

/// The printed elements with their depth, in document order.
pub fn elements<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
) -> Vec<Element> {
    let printed = printed_flags(model, analysis, uids);
    let mut open: Vec<NodeId> = Vec::new();
    let mut out = Vec::new();
    for (i, &p) in printed.iter().enumerate() {
        if !p {
            continue;
        }
        let id = NodeId::new(i as u32);
        while open.last().is_some_and(|&o| !model.contains(o, id)) {
            open.pop();
        }
        out.push(Element {
            depth: open.len() as u32,
            node: id,
        });
        open.push(id);
    }
    out
}

/// Renders the dom text view.
pub fn render<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> String {
    render_lines(model, analysis, uids, options).text
}

/// Renders the dom text view with what the budget needs to know of each line (see
/// [`super::budget`]).
pub fn render_lines<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    _options: &RenderOptions,
) -> Rendered {
    let printed = printed_flags(model, analysis, uids);
    let all = expand_all(analysis);
    let mut out = String::with_capacity(4096);
    let mut noted = Noted::default();
    push_page_scroll_line(&mut out, analysis);
    out.push_str("[Start of page]\n");
    noted.note(&out, LineKind::Frame, 0.0, None);

    let mut scratch = String::new();
    let mut free = FreeText::default();
    let mut open: Vec<NodeId> = Vec::new();
    let n = model.nodes.len();
    let mut i = 0usize;
    while i < n {
        let id = NodeId::new(i as u32);
        let node = model.node(id);
        while open.last().is_some_and(|&o| !model.contains(o, id)) {
            open.pop();
        }
        if node.is_element() {
            if is_skipped_tag(model, id) {
                i = node.subtree_end.index().max(i + 1);
                continue;
            }
            if printed[i] {
                free.flush(&mut out, &mut noted, analysis);
                write_element(
                    &mut out,
                    &mut scratch,
                    model,
                    analysis,
                    uids,
                    &printed,
                    id,
                    open.len(),
                );
                noted.note(
                    &out,
                    LineKind::Landmark,
                    distance_of(analysis, id),
                    uids.dom(id),
                );
                open.push(id);
            }
        } else if node.is_text() && open.is_empty() {
            let visible = text_fact(model, analysis, id, |f| f.visible());
            let in_view = all || text_fact(model, analysis, id, |f| f.in_viewport);
            if visible && in_view {
                if let Some(text) = node.value.map(|v| model.str(v)) {
                    if !escape::is_blank(text) {
                        free.add(&mut out, &mut noted, analysis, text, block_of(model, id));
                    }
                }
            }
        }
        i += 1;
    }
    free.flush(&mut out, &mut noted, analysis);
    out.push_str("[End of page]\n");
    noted.note(&out, LineKind::Frame, 0.0, None);
    Rendered {
        text: out,
        lines: noted.lines,
    }
}

/// The lines of a text being written, noted as they are completed.
#[derive(Default)]
struct Noted {
    lines: Vec<Line>,
    /// Where the lines not yet noted start.
    done: usize,
}

impl Noted {
    /// Notes the lines written since the last call, all with these facts.
    fn note(&mut self, out: &str, kind: LineKind, distance: f64, uid: Option<Uid>) {
        while let Some(len) = out.get(self.done..).and_then(|rest| rest.find('\n')) {
            let start = self.done;
            let end = start + len;
            let depth = out[start..end].bytes().take_while(|&b| b == b'\t').count() as u32;
            self.lines.push(Line {
                start,
                end,
                depth,
                uid,
                kind,
                distance,
            });
            self.done = end + 1;
        }
    }
}

/// How far a node is from the viewport, in viewport heights.
fn distance_of(analysis: &Analysis, id: NodeId) -> f64 {
    facts(analysis, id)
        .bounds()
        .map_or(f64::INFINITY, |b| super::view_distance(analysis, &b))
}

/// `... 0 pixels above (0.0 pages) - 1234 pixels below (1.5 pages) - scroll to see more ...`
fn push_page_scroll_line(out: &mut String, analysis: &Analysis) {
    let s = analysis.page_scroll();
    let page = s.client_height;
    out.push_str("... ");
    push_px(out, s.above());
    out.push_str(" pixels above (");
    push_pages(out, s.above(), page);
    out.push_str(" pages) - ");
    push_px(out, s.below());
    out.push_str(" pixels below (");
    push_pages(out, s.below(), page);
    out.push_str(" pages)");
    if s.scrolls_horizontally() {
        out.push_str(" - ");
        push_px(out, s.left_of());
        out.push_str(" pixels left - ");
        push_px(out, s.right_of());
        out.push_str(" pixels right");
    }
    out.push_str(" - scroll to see more ...\n");
}

/// Elements whose content is never page text.
fn is_skipped_tag(model: &Model, id: NodeId) -> bool {
    let node = model.node(id);
    node.pseudo.is_none()
        && matches!(
            model.str(node.tag),
            "script" | "style" | "head" | "template" | "noscript" | "title" | "meta" | "link"
        )
}

/// A fact of a text node, falling back to its element when the text has no box of its own.
fn text_fact(
    model: &Model,
    analysis: &Analysis,
    id: NodeId,
    get: impl Fn(&crate::analysis::NodeFacts) -> bool,
) -> bool {
    let f = facts(analysis, id);
    if get(f) {
        return true;
    }
    if f.bounds().is_none() {
        if let Some(p) = model.parent_element(id) {
            return get(facts(analysis, p));
        }
    }
    false
}

/// The nearest ancestor box that is not inline: free text inside one block is one line.
/// Elements without a box (`display:contents`) are transparent.
fn block_of(model: &Model, id: NodeId) -> Option<NodeId> {
    model.ancestors(id).find(|&a| {
        !model.node(a).is_element()
            || model
                .style_of(a)
                .is_some_and(|s| !matches!(s.display, Display::Inline | Display::Contents))
    })
}

/// Free text waiting to be written: joined while it stays in one block.
#[derive(Default)]
struct FreeText {
    buf: String,
    block: Option<NodeId>,
}

impl FreeText {
    fn add(
        &mut self,
        out: &mut String,
        noted: &mut Noted,
        analysis: &Analysis,
        text: &str,
        block: Option<NodeId>,
    ) {
        if !self.buf.is_empty() && self.block != block {
            self.flush(out, noted, analysis);
        }
        self.block = block;
        if self.buf.len() < caps::FREE_TEXT * 4 {
            if !self.buf.is_empty() {
                self.buf.push(' ');
            }
            self.buf.push_str(text);
        }
    }

    fn flush(&mut self, out: &mut String, noted: &mut Noted, analysis: &Analysis) {
        if !self.buf.is_empty() {
            if escape::push_line_text(out, &self.buf, caps::FREE_TEXT) {
                out.push('\n');
            }
            let distance = self
                .block
                .map_or(f64::INFINITY, |b| distance_of(analysis, b));
            noted.note(out, LineKind::Plain, distance, None);
            self.buf.clear();
        }
        self.block = None;
    }
}

/// The visible text of an element up to the next printed element, whitespace not yet collapsed.
fn element_text(
    scratch: &mut String,
    model: &Model,
    analysis: &Analysis,
    printed: &[bool],
    el: NodeId,
) {
    scratch.clear();
    // The options of a closed `<select>` have no boxes, yet their text is what one selects.
    let any_visibility = matches!(model.tag(el), Some("option" | "optgroup" | "select"));
    let doc = model.node(el).doc;
    let end = model.node(el).subtree_end.index().min(model.nodes.len());
    let mut j = el.index() + 1;
    while j < end && scratch.len() < caps::ELEMENT_TEXT * 4 {
        let id = NodeId::new(j as u32);
        let n = model.node(id);
        let skip = n.doc != doc || (n.is_element() && (printed[j] || is_skipped_tag(model, id)));
        if skip {
            j = n.subtree_end.index().max(j + 1);
            continue;
        }
        if n.is_text() && (any_visibility || text_fact(model, analysis, id, |f| f.visible())) {
            if let Some(v) = n.value {
                if !scratch.is_empty() {
                    scratch.push(' ');
                }
                scratch.push_str(model.str(v));
            }
        }
        j += 1;
    }
}

/// An attribute value of the dom view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val<'a> {
    /// Page text (an attribute or form state).
    Str(&'a str),
    /// A state (`checked=true`, `disabled=true`).
    Bool(bool),
}

#[allow(clippy::too_many_arguments)]
fn write_element<U: UidSource + ?Sized>(
    out: &mut String,
    scratch: &mut String,
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    printed: &[bool],
    id: NodeId,
    depth: usize,
) {
    let Some(uid) = uids.dom(id) else { return };
    element_text(scratch, model, analysis, printed, id);
    let text = scratch.trim();
    for _ in 0..depth {
        out.push('\t');
    }
    if uids.is_new(uid) {
        out.push('*');
    }
    let _ = write!(out, "[{uid}]<");
    let tag = model.tag(id).unwrap_or("");
    escape::push(out, tag, Style::Text, caps::ATTR);

    let attrs = dom_attributes(model, analysis, id, text);
    for (key, val) in &attrs {
        out.push(' ');
        out.push_str(key);
        out.push('=');
        match val {
            Val::Str(s) => escape::push_attr_value(out, s, caps::ATTR),
            Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        }
    }
    let click = analysis.click(id);
    if click.occluded {
        out.push_str(" occluded-by=");
        push_covered_by(out, model, uids, click.covered_by);
    }
    if let Some(s) = analysis.scroll(id).filter(scrolls) {
        out.push_str(" scroll=\"");
        push_scroll_summary(out, &s);
        out.push('"');
    }
    // An element without text of its own (a link around a logo, an icon button) and without a
    // naming attribute is shown by its accessible name, which Chromium computes from what
    // names it (an image's `alt`, an SVG's `<title>`, `aria-labelledby`): otherwise the agent
    // sees `<a href=/ />` and cannot tell one such link from another.
    let named = |k: &str| matches!(k, "aria-label" | "title" | "alt" | "placeholder" | "value");
    // Form fields are left alone: their labels are text lines of their own next to them.
    let field = matches!(tag, "input" | "textarea" | "select");
    let text = if text.is_empty() && !field && !attrs.iter().any(|(k, _)| named(k)) {
        accessible_name(model, id).unwrap_or("")
    } else {
        text
    };
    if !text.is_empty() {
        out.push('>');
        escape::push(out, text, Style::Text, caps::ELEMENT_TEXT);
    }
    out.push_str(" />\n");
}

/// The element's accessible name as Chromium computed it, if it has one worth printing.
fn accessible_name(model: &Model, id: NodeId) -> Option<&str> {
    let ax = model
        .node(id)
        .ax
        .filter(|a| a.index() < model.ax_nodes.len())?;
    model
        .opt_str(model.ax(ax).name)
        .map(str::trim)
        .filter(|n| !escape::is_blank(n))
}

/// The whitelisted attributes of an element, in print order, with redundant ones removed.
/// Shared with the JSON writer so both show the same attributes.
pub fn dom_attributes<'m>(
    model: &'m Model,
    analysis: &Analysis,
    id: NodeId,
    text: &str,
) -> SmallVec<[(&'static str, Val<'m>); 12]> {
    let mut attrs: SmallVec<[(&'static str, Val<'m>); 12]> = SmallVec::new();
    let tag = model.tag(id).unwrap_or("");
    let attr = |name: &str| model.attr(id, name).filter(|v| !escape::is_blank(v));
    for key in ["type", "name", "role"] {
        if let Some(v) = attr(key) {
            attrs.push((key, Val::Str(v)));
        }
    }
    let form_control = matches!(tag, "input" | "textarea" | "select");
    // A checkbox's or radio's value is what the form submits, not what a person sees; the
    // default "on" says nothing at all.
    let checkable = model.checked(id).is_some();
    if form_control {
        if let Some(v) = model
            .form_value(id)
            .filter(|v| !v.is_empty() && (!checkable || *v != "on"))
        {
            let v = if is_password(model, id) { MASKED } else { v };
            attrs.push(("value", Val::Str(v)));
        }
    } else if tag == "option" || tag == "button" || tag == "li" {
        if let Some(v) = attr("value") {
            attrs.push(("value", Val::Str(v)));
        }
    }
    for key in ["placeholder", "aria-label", "href", "title", "alt"] {
        if let Some(v) = attr(key) {
            attrs.push((key, Val::Str(v)));
        }
    }
    match model.checked(id) {
        Some(Checked::True) => attrs.push(("checked", Val::Bool(true))),
        Some(Checked::False) => attrs.push(("checked", Val::Bool(false))),
        Some(Checked::Mixed) => attrs.push(("checked", Val::Str("mixed"))),
        None => {}
    }
    if tag == "option" {
        attrs.push(("selected", Val::Bool(model.node(id).option_selected())));
    } else if let Some(v) = attr("aria-selected") {
        attrs.push(("selected", Val::Str(v)));
    }
    if let Some(v) = attr("aria-expanded") {
        attrs.push(("expanded", Val::Str(v)));
    }
    if facts(analysis, id).disabled {
        attrs.push(("disabled", Val::Bool(true)));
    }

    // Redundant role: the tag already says it.
    let role = attrs.iter().find(|(k, _)| *k == "role").map(|(_, v)| *v);
    if let Some(Val::Str(r)) = role {
        if is_implicit_role(tag, model.attr(id, "type").unwrap_or(""), r.trim()) {
            attrs.retain(|(k, _)| *k != "role");
        }
    }
    // Labels that only repeat the text.
    if !text.is_empty() {
        attrs.retain(|(k, v)| {
            !(matches!(*k, "aria-label" | "title" | "placeholder" | "alt")
                && matches!(v, Val::Str(s) if s.trim() == text))
        });
    }
    // Values repeated by a later attribute (browser-use drops those longer than 5 characters).
    let mut i = 1;
    while i < attrs.len() {
        let dup = match attrs[i].1 {
            Val::Str(s) if s.trim().chars().count() > 5 => attrs[..i]
                .iter()
                .any(|(_, v)| matches!(v, Val::Str(t) if t.trim() == s.trim())),
            _ => false,
        };
        if dup {
            attrs.remove(i);
        } else {
            i += 1;
        }
    }
    attrs
}

/// Whether `role` is what the element is anyway.
fn is_implicit_role(tag: &str, ty: &str, role: &str) -> bool {
    let role = role.to_ascii_lowercase();
    if role == tag {
        return true;
    }
    let ty = ty.trim().to_ascii_lowercase();
    match (tag, role.as_str()) {
        ("a", "link") | ("area", "link") => true,
        ("select", "combobox" | "listbox") => true,
        ("textarea", "textbox") => true,
        ("img", "img" | "image") => true,
        ("ul" | "ol", "list") => true,
        ("li", "listitem") => true,
        ("nav", "navigation") => true,
        ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", "heading") => true,
        ("table", "table") | ("tr", "row") | ("td", "cell") => true,
        ("th", "columnheader" | "rowheader") => true,
        ("input", "checkbox") => ty == "checkbox",
        ("input", "radio") => ty == "radio",
        ("input", "button") => matches!(ty.as_str(), "button" | "submit" | "reset" | "image"),
        ("input", "textbox") => matches!(ty.as_str(), "" | "text" | "email" | "tel" | "url"),
        ("input", "searchbox") => ty == "search",
        ("input", "slider") => ty == "range",
        ("input", "spinbutton") => ty == "number",
        ("summary", "button") => true,
        ("option", "option") => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
