//! Inert content: what Chromium neither focuses nor clicks, so no agent can act on it.
//!
//! A node is inert (HTML's "inert" concept) when:
//! - it or an ancestor has the `inert` attribute (Chromium's user agent style gives that
//!   subtree `interactivity: inert`);
//! - a modal `<dialog>` (opened with `showModal()`) is open in its document and the node is not
//!   inside it: everything else in the document is blocked until the dialog closes. Of several
//!   modal dialogs the topmost (the last opened, painted last) is the one that blocks;
//! - it is inside the document of an `<iframe>` that is inert.
//!
//! What Chromium reports for such nodes (checked in headless Chromium 156): their computed
//! `pointer-events` stays `auto` and the snapshot still marks inert links `isClickable`;
//! `DOM.getNodeForLocation` passes through them (to what is behind, or to the modal dialog,
//! which its `::backdrop` stands for); `focus()` leaves them unfocused; their accessibility
//! nodes are ignored (reason `activeModalDialog` outside a modal dialog) and left out of the
//! full tree. The attribute and the dialog are what the snapshot holds on every page, with or
//! without accessibility nodes, so the rule reads them; a modal dialog is recognised as the hit
//! tester recognises it ([`is_modal_dialog`]).

use super::geometry::is_modal_dialog;
use crate::model::{DocId, Model, NodeId};

/// Per node, whether it is inert; empty when nothing on the page is (the usual page: no `inert`
/// attribute and no open modal dialog), so that the caller can skip the question.
pub fn compute(model: &Model) -> Vec<bool> {
    let inert_names = model.string_ids(|s| s.eq_ignore_ascii_case("inert"));
    let blocking = blocking_dialogs(model);
    if inert_names.is_empty() && blocking.is_empty() {
        return Vec::new();
    }
    let n = model.nodes.len();
    let mut inert = vec![false; n];
    // What a node passes on to its descendants: the attribute on it or an ancestor, or, for a
    // child document, its `<iframe>` being inert (the parent link crosses from the document's
    // root to the frame). A modal dialog's blocking is not passed on: the dialog itself is
    // inside what it blocks.
    let mut passed_on = vec![false; n];
    for i in 0..n {
        let node = &model.nodes[i];
        let id = NodeId::new(i as u32);
        let mut passes = node.parent.is_some_and(|p| {
            if model.node(p).doc == node.doc {
                passed_on[p.index()]
            } else {
                inert[p.index()]
            }
        });
        if !passes && !inert_names.is_empty() && node.is_element() {
            passes = model
                .attrs(id)
                .iter()
                .any(|a| inert_names.contains(&a.name));
        }
        passed_on[i] = passes;
        inert[i] = passes
            || blocking
                .iter()
                .find(|(doc, _)| *doc == node.doc)
                .is_some_and(|&(_, dialog)| !model.contains(dialog, id));
    }
    inert
}

/// The modal dialog that blocks each document with one open: its topmost, by paint order.
fn blocking_dialogs(model: &Model) -> Vec<(DocId, NodeId)> {
    let dialog_tags = model.string_ids(|s| s == "dialog");
    if dialog_tags.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(DocId, NodeId, i64)> = Vec::new();
    for (i, node) in model.nodes.iter().enumerate() {
        if !node.is_element() || !dialog_tags.contains(&node.tag) {
            continue;
        }
        let id = NodeId::new(i as u32);
        let Some(l) = model.layout_of(id) else {
            continue;
        };
        if !is_modal_dialog(model, id, model.style(l).position) {
            continue;
        }
        match out.iter_mut().find(|(doc, _, _)| *doc == node.doc) {
            Some(top) if top.2 <= l.paint_order => *top = (node.doc, id, l.paint_order),
            Some(_) => {}
            None => out.push((node.doc, id, l.paint_order)),
        }
    }
    out.into_iter().map(|(doc, id, _)| (doc, id)).collect()
}
