//! The article's title, byline, date and language.
//!
//! Why from these places: the title a reader sees is the page's main heading (`h1`), which
//! the document title often decorates with the site's name; the social-card and schema.org
//! metadata (`og:title`, `author`, `article:published_time`, `datePublished`) are what
//! publishers fill in for machines, so they come first for the byline and date, and the
//! visible `<time datetime>` of the article next.

use super::prep::Prep;
use crate::model::{DocId, Model, NodeId, NodeKind};

/// What the page says about itself.
#[derive(Debug, Default)]
pub(crate) struct Meta {
    pub title: Option<String>,
    /// The heading the title was read from, left out of the body.
    pub title_node: Option<NodeId>,
    pub byline: Option<String>,
    pub published: Option<String>,
    pub lang: Option<String>,
}

fn clean(s: &str) -> Option<String> {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

/// The `content` of the first `<meta>` of the top document whose `name`, `property` or
/// `itemprop` is one of `keys`.
fn meta_content(model: &Model, keys: &[&str]) -> Option<String> {
    let end = model.nodes.len();
    for i in 0..end {
        let id = NodeId::new(i as u32);
        let node = model.node(id);
        if node.doc != DocId::new(0) || node.kind != NodeKind::Element {
            continue;
        }
        if model.tag(id) != Some("meta") {
            continue;
        }
        let key = ["name", "property", "itemprop"]
            .iter()
            .find_map(|a| model.attr(id, a));
        if key.is_some_and(|k| keys.iter().any(|w| k.trim().eq_ignore_ascii_case(w))) {
            if let Some(c) = model.attr(id, "content").and_then(clean) {
                return Some(c);
            }
        }
    }
    None
}

/// Reads the metadata; `roots` are the main content's boxes (the title heading is looked for
/// in them first, then above them).
pub(crate) fn read(model: &Model, prep: &Prep, roots: &[NodeId], all: bool) -> Meta {
    let lang = model
        .document_element(DocId::new(0))
        .and_then(|html| model.attr(html, "lang"))
        .and_then(clean)
        .or_else(|| meta_content(model, &["content-language", "og:locale"]));
    let doc_title = clean(&model.title);
    let og_title = meta_content(model, &["og:title", "twitter:title", "headline"]);
    // The first visible h1: inside the content, else anywhere before its end.
    let h1s: Vec<NodeId> = (0..model.nodes.len())
        .map(|i| NodeId::new(i as u32))
        .filter(|&id| model.tag(id) == Some("h1") && prep.chars[id.index()] > 0)
        .filter(|&id| prep.shown[id.index()])
        .collect();
    let inside = h1s
        .iter()
        .find(|h| roots.iter().any(|r| model.contains(*r, **h)));
    let before = roots.first().and_then(|r| {
        h1s.iter().filter(|h| h.get() < r.get()).find(|h| {
            let t = model.text_content(**h, 400);
            let t = t.trim().to_lowercase();
            t.len() > 3
                && [&doc_title, &og_title].iter().any(|c| {
                    c.as_ref()
                        .is_some_and(|c| c.to_lowercase().contains(t.as_str()))
                })
        })
    });
    let heading = inside.or(before).copied();
    let (title, title_node) = match heading.and_then(|h| clean(&model.text_content(h, 1000))) {
        Some(t) => (Some(t), heading.filter(|_| !all)),
        None => (og_title.or(doc_title), None),
    };
    let byline = meta_content(model, &["author", "article:author", "dc.creator", "byl"])
        .filter(|a| !a.starts_with("http"))
        .or_else(|| {
            visible_with(model, prep, |id| {
                model.attr(id, "rel") == Some("author")
                    || model.attr(id, "itemprop") == Some("author")
                    || model
                        .attr(id, "class")
                        .is_some_and(|c| c.to_ascii_lowercase().contains("byline"))
            })
            .map(|t| {
                t.trim_start_matches("By ")
                    .trim_start_matches("by ")
                    .to_string()
            })
        });
    let published = meta_content(
        model,
        &[
            "article:published_time",
            "datePublished",
            "date",
            "pubdate",
            "publish-date",
            "parsely-pub-date",
            "dc.date",
            "dc.date.issued",
            "sailthru.date",
        ],
    )
    .or_else(|| {
        (0..model.nodes.len())
            .map(|i| NodeId::new(i as u32))
            .find(|&id| {
                model.tag(id) == Some("time")
                    && prep.shown[id.index()]
                    && model.has_attr(id, "datetime")
            })
            .and_then(|id| model.attr(id, "datetime").and_then(clean))
    });
    Meta {
        title,
        title_node,
        byline,
        published,
        lang,
    }
}

/// The short visible text of the first element matching `pred`.
fn visible_with(model: &Model, prep: &Prep, pred: impl Fn(NodeId) -> bool) -> Option<String> {
    (0..model.nodes.len())
        .map(|i| NodeId::new(i as u32))
        .filter(|&id| model.node(id).kind == NodeKind::Element && prep.chars[id.index()] > 0)
        .find(|&id| prep.shown[id.index()] && pred(id))
        .and_then(|id| clean(&model.text_content(id, 200)))
        .filter(|t| t.chars().count() <= 100)
}
