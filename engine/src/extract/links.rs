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

/// The accessible name when the accessibility tree has the anchor, else its text, else its
/// `aria-label`, `alt` (an `<area>`) or `title`; whitespace collapsed, cut at [`TEXT_CHARS`].
fn text_of(model: &Model, id: NodeId) -> String {
    let named = model.ax_name(id).filter(|n| !n.trim().is_empty());
    let raw = match named {
        Some(name) => name.to_string(),
        None => {
            let text = model.text_content(id, TEXT_CHARS * 4);
            if text.trim().is_empty() {
                model
                    .attr(id, "aria-label")
                    .or_else(|| model.attr(id, "alt"))
                    .or_else(|| model.attr(id, "title"))
                    .unwrap_or_default()
                    .to_string()
            } else {
                text
            }
        }
    };
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(TEXT_CHARS)
        .collect()
}
