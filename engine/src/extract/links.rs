//! The links of a page: every `<a href>` and `<area href>` of every captured document,
//! resolved to an absolute URL, each once, with the uid of its first anchor.
//!
//! Why every anchor and not only the visible ones: a crawler follows what a page links to,
//! and menus that open on hover or links below a "show more" are the page's links too. The
//! uid lets an agent act on a link it chose from the list.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::url::{base_of, resolve};
use crate::identity::UidAssignment;
use crate::model::{Model, NodeId, NodeKind};

/// How much of a link's text is kept.
const TEXT_CHARS: usize = 200;

/// One link of the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Link {
    /// The absolute URL, without its `#fragment`.
    pub url: String,
    /// What the link says: its accessible name, else its text (at most 200 characters).
    pub text: String,
    /// The uid of the anchor (the first one, when several link to the same URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// The links of `model`, in document order. Links to the page itself (a `#fragment` of it),
/// `javascript:` and `data:` links are left out.
pub fn links(model: &Model, uids: &UidAssignment) -> Vec<Link> {
    let page = without_fragment(&model.url);
    let mut seen: FxHashSet<String> = FxHashSet::default();
    let mut out = Vec::new();
    for id in model.node_ids() {
        if model.node(id).kind != NodeKind::Element {
            continue;
        }
        if !matches!(model.tag(id), Some("a" | "area")) {
            continue;
        }
        let Some(href) = model.attr(id, "href") else {
            continue;
        };
        let Some(url) = resolve(base_of(model, id), href) else {
            continue;
        };
        let url = without_fragment(&url);
        if url.starts_with("data:") || url == page || !seen.insert(url.clone()) {
            continue;
        }
        out.push(Link {
            url,
            text: text_of(model, id),
            uid: uids.dom(id).map(|u| u.to_string()),
        });
    }
    out
}

fn without_fragment(url: &str) -> String {
    url.split('#').next().unwrap_or(url).to_string()
}

/// The accessible name when the accessibility tree has the anchor; else that name as its
/// markup gives it: its `aria-label`, the name of its content (text, an image's `alt`, an
/// SVG's `<title>`, an inner element's `aria-label`; `aria-hidden` parts left out), its own
/// `alt` (an `<area>`) or its `title`; whitespace collapsed, cut at [`TEXT_CHARS`].
fn text_of(model: &Model, id: NodeId) -> String {
    let filled = |s: &&str| !s.trim().is_empty();
    let raw = match model.ax_name(id).filter(filled) {
        Some(name) => name.to_string(),
        None => match model.attr(id, "aria-label").filter(filled) {
            Some(label) => label.to_string(),
            None => {
                let mut content = String::new();
                name_from_content(model, id, &mut content);
                if content.trim().is_empty() {
                    model
                        .attr(id, "alt")
                        .filter(filled)
                        .or_else(|| model.attr(id, "title"))
                        .unwrap_or_default()
                        .to_string()
                } else {
                    content
                }
            }
        },
    };
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(TEXT_CHARS)
        .collect()
}

/// Appends the name `id`'s content gives it, piece by piece, until about [`TEXT_CHARS`] x 4
/// bytes.
fn name_from_content(model: &Model, id: NodeId, out: &mut String) {
    let cap = TEXT_CHARS * 4;
    for child in model.children(id) {
        if out.len() >= cap {
            return;
        }
        let node = model.node(child);
        let piece = if node.is_text() || node.pseudo.is_some() {
            Some(model.text_content(child, cap))
        } else if !node.is_element() || model.attr(child, "aria-hidden") == Some("true") {
            None
        } else if let Some(label) = model
            .attr(child, "aria-label")
            .filter(|l| !l.trim().is_empty())
        {
            Some(label.to_string())
        } else {
            match model.tag(child) {
                Some("script" | "style" | "template" | "noscript") => None,
                Some("img" | "area") => model.attr(child, "alt").map(str::to_string),
                Some("svg") => model
                    .children(child)
                    .find(|&c| model.is_tag(c, "title"))
                    .map(|title| model.text_content(title, cap)),
                _ => {
                    name_from_content(model, child, out);
                    None
                }
            }
        };
        if let Some(piece) = piece {
            out.push(' ');
            out.push_str(&piece);
        }
    }
}
