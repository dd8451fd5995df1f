//! An element's role as the extraction weighs it: Chromium's, when the capture holds the
//! accessibility tree; else the one its markup gives.
//!
//! Why both: a live extraction captures no accessibility tree (computing it is most of what a
//! whole-page capture costs Chromium, and the content needs only the few roles below), while a
//! recorded capture holds it. Without the tree, the role is the element's explicit `role`
//! (its first token) or the implicit role HTML gives its tag, for the landmarks and tables the
//! extraction looks for; any other element has none.

use crate::model::{Model, NodeId};

/// The role of `id` (see the module docs).
pub(super) fn role(model: &Model, id: NodeId) -> Option<&str> {
    if !model.ax_nodes.is_empty() {
        return model.role(id);
    }
    if let Some(explicit) = model
        .attr(id, "role")
        .and_then(|r| r.split_ascii_whitespace().next())
    {
        return Some(explicit);
    }
    implicit(model, id)
}

/// The implicit role of an element's tag, for the roles the extraction weighs.
fn implicit(model: &Model, id: NodeId) -> Option<&'static str> {
    Some(match model.tag(id)? {
        "nav" => "navigation",
        "main" => "main",
        "article" => "article",
        "aside" => "complementary",
        "search" => "search",
        "dialog" => "dialog",
        // A page's header and footer, not those of an article or a section in it.
        "header" if !in_sectioning(model, id) => "banner",
        "footer" if !in_sectioning(model, id) => "contentinfo",
        "table" if !holds_data_markers(model, id) => "LayoutTable",
        "table" => "table",
        _ => return None,
    })
}

/// Whether an ancestor of `id` scopes a header or footer to itself.
fn in_sectioning(model: &Model, id: NodeId) -> bool {
    model.ancestors(id).any(|a| {
        matches!(
            model.tag(a),
            Some("article" | "aside" | "main" | "nav" | "section")
        )
    })
}

/// Whether a table says it holds data: a caption, header cells, a head or foot, column
/// groups or a summary (Chromium's first signs of a data table; one without any of them is
/// taken for layout).
fn holds_data_markers(model: &Model, id: NodeId) -> bool {
    if model.has_attr(id, "summary") {
        return true;
    }
    let end = model.node(id).subtree_end.get();
    (id.get() + 1..end).any(|i| {
        matches!(
            model.tag(NodeId::new(i)),
            Some("caption" | "th" | "thead" | "tfoot" | "colgroup" | "col")
        )
    })
}
