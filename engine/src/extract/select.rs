//! Choosing the main content of a rendered page.
//!
//! Why it works this way: the page's main content is what a reader reads after the chrome
//! around it is taken away. Chromium already says much of what that chrome is — landmarks in
//! the accessibility tree (`navigation`, `banner`, `contentinfo`, `complementary`, `search`,
//! dialogs), boxes pinned to the screen (fixed and sticky headers, cookie banners, overlays)
//! — so those go first, each only while it holds a small part of the page's text (a page
//! built inside one fixed box is still a page). Of what is left, the content is where the
//! paragraphs are: every block with a sentence or more of its own text votes for its
//! ancestors (its parent most, then less with each level up), votes are cut by the share of
//! text inside links, and a few names authors give such boxes (`article`, `content`, `post`,
//! or `comment`, `share`, `related`) weigh in. The best-voted box, widened to the ancestor
//! that holds it and its peers and joined by its siblings that read like content, is the
//! main content. Inside it, link lists and other link-heavy blocks are dropped.

use super::prep::{is_block, is_pinned, Prep};
use super::role::role;
use crate::model::{Model, NodeId, NodeKind};

/// Accessibility roles that mark the page's chrome, not its content.
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "menubar",
    "menu",
    "toolbar",
];

/// Tags that hold the page's chrome.
const CHROME_TAGS: &[&str] = &["nav", "aside", "footer", "header", "figcaption"];

/// Class or id fragments of boxes that are not the content (comments, sharing, related
/// stories, advertising, consent banners, bylines and tag lists).
const CHROME_NAMES: &[&str] = &[
    "comment",
    "share",
    "sharing",
    "social",
    "related",
    "recommend",
    "newsletter",
    "subscri",
    "signup",
    "sign-up",
    "promo",
    "advert",
    "sponsor",
    "cookie",
    "consent",
    "gdpr",
    "breadcrumb",
    "pagination",
    "outbrain",
    "taboola",
    "popup",
    "modal",
    "sidebar",
    "byline",
    "author",
    "toolbar",
    "masthead",
    "footer",
    "navbar",
    "skip-link",
    "read-more",
    "readmore",
    "more-stories",
    "most-popular",
    "trending",
    "caption",
    "credit",
];

/// Whole class or id words of such boxes.
const CHROME_WORDS: &[&str] = &["ad", "ads", "tags", "tag", "menu", "nav", "meta", "widget"];

/// Class or id fragments that suggest content.
const CONTENT_NAMES: &[&str] = &[
    "article", "body", "content", "entry", "main", "post", "text", "blog", "story",
];

/// Class or id fragments that suggest something else.
const OTHER_NAMES: &[&str] = &[
    "comment", "foot", "masthead", "media", "meta", "outbrain", "promo", "related", "share",
    "sidebar", "sponsor", "widget", "hidden", "banner", "contact", "tool", "shopping",
];

/// The main content: its roots in document order, and what to leave out below them.
pub(crate) struct Selection {
    /// The boxes whose content is the extraction, in document order.
    pub roots: Vec<NodeId>,
    /// Per node: left out (page chrome, or a link-heavy block inside the content).
    pub dropped: Vec<bool>,
}

/// The lower-cased class and id of an element, space separated.
fn names(model: &Model, id: NodeId) -> String {
    let mut s = String::new();
    for a in ["class", "id"] {
        if let Some(v) = model.attr(id, a) {
            s.push_str(&v.to_ascii_lowercase());
            s.push(' ');
        }
    }
    s
}

fn has_word(names: &str, words: &[&str]) -> bool {
    names
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| words.contains(&w))
}

/// What an element is as chrome: `Some(share)` when it is chrome while it holds at most that
/// share of the page's text.
fn chrome_share(model: &Model, id: NodeId) -> Option<(f64, bool)> {
    if model.node(id).kind != NodeKind::Element {
        return None;
    }
    if role(model, id).is_some_and(|r| CHROME_ROLES.contains(&r)) {
        return Some((0.5, false));
    }
    if let Some(r) = model.attr(id, "role") {
        if CHROME_ROLES.contains(&r.trim()) {
            return Some((0.5, false));
        }
    }
    if model.tag(id).is_some_and(|t| CHROME_TAGS.contains(&t)) {
        return Some((0.4, false));
    }
    if is_pinned(model, id) {
        return Some((0.5, false));
    }
    let n = names(model, id);
    // A box also named as content (`id="page-content" class="with-sidebar"`) is not dropped by
    // its name.
    let content_named = n.split_whitespace().any(|v| {
        ["content", "article", "body", "main", "story", "entry"]
            .iter()
            .any(|c| v.ends_with(c))
    });
    if !n.is_empty()
        && !content_named
        && (CHROME_NAMES.iter().any(|c| n.contains(c)) || has_word(&n, CHROME_WORDS))
    {
        return Some((0.25, true));
    }
    None
}

/// The main content of the page (`all`: the whole page).
pub(crate) fn select(model: &Model, prep: &Prep, all: bool) -> Selection {
    let n = model.nodes.len();
    let root = model.nodes.first().map(|_| NodeId::new(0));
    let mut dropped = vec![false; n];
    let Some(root) = root else {
        return Selection {
            roots: Vec::new(),
            dropped,
        };
    };
    if all {
        return Selection {
            roots: vec![root],
            dropped,
        };
    }
    // Landmarks and pinned boxes first, then boxes named as chrome, each judged against the
    // text left by the step before (a page whose menus hold most of its text still has its
    // article).
    let mut left = prep.chars[root.index()];
    for by_name in [false, true] {
        let total = f64::from(left).max(1.0);
        let mut removed = 0u32;
        for i in 0..n {
            let node = &model.nodes[i];
            if dropped[i] {
                continue;
            }
            if node.parent.is_some_and(|p| dropped[p.index()]) {
                dropped[i] = true;
                continue;
            }
            if !prep.shown[i] {
                continue;
            }
            let id = NodeId::new(i as u32);
            if let Some((share, named)) = chrome_share(model, id) {
                if named == by_name && f64::from(prep.chars[i]) <= share * total {
                    dropped[i] = true;
                    removed += prep.chars[i];
                }
            }
        }
        left = left.saturating_sub(removed);
    }
    // The text that is left, per subtree, and per block its own (not in a nested block).
    let mut chars = vec![0u32; n];
    let mut links = vec![0u32; n];
    let mut own = vec![0u32; n];
    let mut own_links = vec![0u32; n];
    let mut commas = vec![0u32; n];
    let mut block_of: Vec<Option<NodeId>> = vec![None; n];
    for i in 0..n {
        let id = NodeId::new(i as u32);
        let node = &model.nodes[i];
        let inherited = node.parent.and_then(|p| block_of[p.index()]);
        block_of[i] = if node.kind == NodeKind::Element && is_block(model, id) {
            Some(id)
        } else {
            inherited
        };
        if node.kind == NodeKind::Text && prep.shown[i] && !dropped[i] {
            let c = prep.chars[i];
            chars[i] = c;
            links[i] = prep.link_chars[i];
            if let Some(b) = inherited {
                own[b.index()] += c;
                own_links[b.index()] += prep.link_chars[i];
                let text = super::prep::text_of(model, id);
                commas[b.index()] += text.matches([',', '，', '、']).count() as u32;
            }
        }
    }
    for i in (1..n).rev() {
        if let Some(p) = model.nodes[i].parent {
            let (c, l) = (chars[i], links[i]);
            chars[p.index()] += c;
            links[p.index()] += l;
        }
    }
    let density = |i: usize| {
        if chars[i] == 0 {
            0.0
        } else {
            f64::from(links[i]) / f64::from(chars[i])
        }
    };
    // Votes.
    let mut score = vec![f64::NAN; n];
    let mut candidates = Vec::new();
    for i in 0..n {
        let len = own[i];
        if len < 25 || dropped[i] || !prep.shown[i] {
            continue;
        }
        let id = NodeId::new(i as u32);
        if matches!(
            model.tag(id),
            Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "li" | "dt" | "th" | "figcaption")
        ) {
            continue;
        }
        if f64::from(own_links[i]) > 0.5 * f64::from(len) {
            continue;
        }
        let vote = 1.0 + f64::from(commas[i]) + (f64::from(len) / 100.0).floor().min(3.0);
        let mut level = 0usize;
        let mut cursor = up(model, id);
        while let Some(a) = cursor {
            if level >= 5 {
                break;
            }
            let ai = a.index();
            if model.node(a).layout.is_some() || model.node(a).kind == NodeKind::Element {
                if score[ai].is_nan() {
                    score[ai] = initial_score(model, a);
                    candidates.push(a);
                }
                let divider = match level {
                    0 => 1.0,
                    1 => 2.0,
                    l => l as f64 * 3.0,
                };
                score[ai] += vote / divider;
                level += 1;
            }
            cursor = up(model, a);
        }
    }
    let body = model
        .document_element(crate::model::DocId::new(0))
        .and_then(|html| model.children(html).find(|c| model.tag(*c) == Some("body")));
    let final_score = |i: usize| score[i] * (1.0 - density(i));
    let mut best: Option<(NodeId, f64)> = None;
    for &c in &candidates {
        if Some(c) == body || model.tag(c) == Some("html") {
            continue;
        }
        let s = final_score(c.index());
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((c, s));
        }
    }
    let Some((mut top, top_score)) = best else {
        return Selection {
            roots: vec![body.unwrap_or(root)],
            dropped,
        };
    };
    // Several strong candidates under one ancestor: the content is that ancestor.
    let mut others: Vec<(NodeId, f64)> = candidates
        .iter()
        .filter(|&&c| c != top)
        .map(|&c| (c, final_score(c.index())))
        .filter(|(c, s)| {
            // Parts of one text split up (by advertising, say), not teasers of other pages.
            *s >= 0.75 * top_score && chars[c.index()] as f64 >= 0.3 * chars[top.index()] as f64
        })
        .collect();
    others.sort_by(|a, b| b.1.total_cmp(&a.1));
    others.truncate(5);
    if others.len() >= 3 {
        let mut cursor = up(model, top);
        while let Some(a) = cursor {
            if Some(a) == body {
                break;
            }
            let inside = others.iter().filter(|(o, _)| model.contains(a, *o)).count();
            if inside >= 3 {
                top = a;
                break;
            }
            cursor = up(model, a);
        }
    }
    // A parent that scores better than the box holds more of the same content.
    {
        let mut last = final_score(top.index());
        let threshold = last / 3.0;
        let mut cursor = up(model, top);
        while let Some(a) = cursor {
            if Some(a) == body || model.tag(a) == Some("html") {
                break;
            }
            let s = score[a.index()];
            if s.is_nan() {
                cursor = up(model, a);
                continue;
            }
            let s = final_score(a.index());
            if s < threshold {
                break;
            }
            if s > last {
                top = a;
                break;
            }
            last = s;
            cursor = up(model, a);
        }
    }
    // A box that is its parent's only content stands for the parent.
    while let Some(p) = up(model, top) {
        if Some(p) == body || model.tag(p) == Some("html") {
            break;
        }
        let with_text = model
            .children(p)
            .filter(|c| chars[c.index()] > 0 && !dropped[c.index()])
            .count();
        if with_text != 1 {
            break;
        }
        top = p;
    }
    // Siblings that read like content join it.
    let top_final = final_score(top.index()).max(0.0);
    let mut roots = Vec::new();
    match up(model, top) {
        Some(parent) => {
            let threshold = (top_final * 0.2).max(10.0);
            let top_class = model.attr(top, "class").unwrap_or("");
            for s in model.children(parent) {
                let si = s.index();
                if s == top {
                    roots.push(s);
                    continue;
                }
                if dropped[si] || !prep.shown[si] || chars[si] == 0 {
                    continue;
                }
                if model.node(s).kind != NodeKind::Element {
                    continue;
                }
                let mut bonus = 0.0;
                if !top_class.is_empty() && model.attr(s, "class") == Some(top_class) {
                    bonus = top_final * 0.2;
                }
                let s_score = if score[si].is_nan() {
                    f64::NEG_INFINITY
                } else {
                    final_score(si)
                };
                let ld = density(si);
                let len = chars[si];
                let text_like = own[si] == len;
                if (s_score + bonus >= threshold && ld < 0.3)
                    || (text_like && len > 80 && ld < 0.25)
                    || (text_like && len > 0 && len <= 80 && ld == 0.0 && ends_sentence(model, s))
                {
                    roots.push(s);
                }
            }
        }
        None => roots.push(top),
    }
    // Inside the content: blocks mostly made of links are lists of other pages.
    for &r in &roots {
        let end = model.node(r).subtree_end.get();
        for i in r.get() + 1..end {
            let i = i as usize;
            if dropped[i] || chars[i] == 0 {
                continue;
            }
            let id = NodeId::new(i as u32);
            if model.node(id).kind != NodeKind::Element || !is_block(model, id) {
                continue;
            }
            if density(i) > 0.5 {
                let sub_end = model.node(id).subtree_end.get() as usize;
                dropped[i..sub_end].iter_mut().for_each(|d| *d = true);
            }
        }
    }
    Selection { roots, dropped }
}

/// The parent element, across a frame's document to the frame's owner element.
fn up(model: &Model, id: NodeId) -> Option<NodeId> {
    let mut p = model.node(id).parent?;
    loop {
        let n = model.node(p);
        match n.kind {
            NodeKind::Element => return Some(p),
            NodeKind::Document | NodeKind::DocumentFragment => p = n.parent?,
            _ => return None,
        }
    }
}

/// Whether the element's text ends like a sentence.
fn ends_sentence(model: &Model, id: NodeId) -> bool {
    let t = model.text_content(id, 2000);
    let t = t.trim_end();
    t.ends_with(['.', '!', '?', '。', '”', '"']) || t.contains(". ")
}

/// The score a box starts with: by what kind of box it is, and by its names.
fn initial_score(model: &Model, id: NodeId) -> f64 {
    let mut s = match model.tag(id) {
        Some("div") => 5.0,
        Some("article") => 10.0,
        Some("main") => 5.0,
        Some("pre" | "td" | "blockquote") => 3.0,
        Some("address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form") => -3.0,
        Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th") => -5.0,
        _ => 0.0,
    };
    if matches!(role(model, id), Some("article" | "main")) {
        s += 10.0;
    }
    for a in ["class", "id"] {
        if let Some(v) = model.attr(id, a) {
            let v = v.to_ascii_lowercase();
            if OTHER_NAMES.iter().any(|o| v.contains(o)) {
                s -= 25.0;
            }
            if CONTENT_NAMES.iter().any(|c| v.contains(c)) {
                s += 25.0;
            }
        }
    }
    s
}
