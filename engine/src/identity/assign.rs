//! One snapshot's uids: walks a [`Model`] once and asks the page's [`UidTable`] for the uid of
//! every DOM element, text node and document, and of every accessibility node.

use rustc_hash::FxHashMap;

use super::uid_table::{DocKey, DocumentKey, Uid, UidTable};
use crate::model::{AxId, DocId, Model, NodeId, NodeKind};

/// The uid of every node of one snapshot's model, and which of them are new.
#[derive(Debug, Clone, Default)]
pub struct UidAssignment {
    snapshot: u32,
    dom: Vec<Option<Uid>>,
    ax: Vec<Option<Uid>>,
    /// Indexed by `Uid::n` of the uids minted in this snapshot.
    new: Vec<bool>,
}

impl UidAssignment {
    /// The uid of a DOM node (elements, text nodes, documents).
    #[inline]
    pub fn dom(&self, node: NodeId) -> Option<Uid> {
        self.dom.get(node.index()).copied().flatten()
    }

    /// The uid of an AX node: its DOM node's uid if it has one, else its own.
    #[inline]
    pub fn ax(&self, ax: AxId) -> Option<Uid> {
        self.ax.get(ax.index()).copied().flatten()
    }

    /// Whether the uid was minted in this snapshot for a node of a document that an earlier
    /// snapshot already showed (the `*[uid]` / `"new": true` mark).
    #[inline]
    pub fn is_new(&self, uid: Uid) -> bool {
        uid.snapshot == self.snapshot && self.new.get(uid.n as usize).copied().unwrap_or(false)
    }

    /// This snapshot's number on its page (1 for the first).
    pub fn snapshot(&self) -> u32 {
        self.snapshot
    }
}

/// The document key the table uses for a model document: the target that holds it, its frame
/// and its loader id.
///
/// A document of an out-of-process frame is keyed under the page's target marked as a frame's,
/// not by the frame's position among the captured frames: frames attach in whatever order
/// their renderers answer, and a position would hand the same document new uids whenever that
/// order changed. Its frame id and loader id tell documents apart already.
fn document_key(model: &Model, doc: DocId, page_target: &str) -> DocumentKey {
    let d = model.doc(doc);
    let target = if d.target == 0 {
        page_target.to_string()
    } else {
        format!("{page_target}#frame")
    };
    DocumentKey {
        target,
        frame_id: model.opt_str(d.frame_id).unwrap_or_default().to_string(),
        loader_id: model.opt_str(d.loader_id).unwrap_or_default().to_string(),
    }
}

/// Assigns the uids of one snapshot. `page_target` names the page's own target (its target id
/// or session id); it keeps two pages' tables apart when captures are compared.
pub fn assign_uids(model: &Model, table: &mut UidTable, page_target: &str) -> UidAssignment {
    let mut pass = table.begin();
    pass.reserve(model.nodes.len());
    let snapshot = pass.snapshot();
    let doc_keys: Vec<DocKey> = (0..model.docs.len() as u32)
        .map(|d| pass.document(&document_key(model, DocId::new(d), page_target)))
        .collect();
    let mut out = UidAssignment {
        snapshot,
        dom: vec![None; model.nodes.len()],
        ax: vec![None; model.ax_nodes.len()],
        new: Vec::new(),
    };
    let note = |out: &mut UidAssignment, (uid, is_new): (Uid, bool)| {
        if uid.snapshot == snapshot {
            let n = uid.n as usize;
            if out.new.len() <= n {
                out.new.resize(n + 1, false);
            }
            out.new[n] = is_new;
        }
        uid
    };
    for (i, node) in model.nodes.iter().enumerate() {
        if !matches!(
            node.kind,
            NodeKind::Element | NodeKind::Text | NodeKind::CData | NodeKind::Document
        ) {
            continue;
        }
        let Some(&doc) = doc_keys.get(node.doc.index()) else {
            continue;
        };
        let got = pass.node(doc, Some(i64::from(node.backend_node_id)));
        out.dom[i] = Some(note(&mut out, got));
    }
    // AX nodes: reuse the DOM node's uid; key the rest on their backendDOMNodeId in the
    // document of their frame, so they stay stable too; nodes with neither get fresh uids.
    let mut frame_docs: FxHashMap<&str, DocKey> = FxHashMap::default();
    for (d, key) in doc_keys.iter().enumerate() {
        if let Some(f) = model.opt_str(model.docs[d].frame_id) {
            frame_docs.entry(f).or_insert(*key);
        }
    }
    let top = doc_keys.first().copied();
    for (i, ax) in model.ax_nodes.iter().enumerate() {
        if let Some(uid) = ax.node.and_then(|n| out.dom[n.index()]) {
            out.ax[i] = Some(uid);
            continue;
        }
        let doc = model
            .opt_str(ax.frame_id)
            .and_then(|f| frame_docs.get(f).copied())
            .or(top);
        let Some(doc) = doc else { continue };
        let got = pass.node(doc, ax.backend_dom_node_id);
        out.ax[i] = Some(note(&mut out, got));
    }
    pass.finish();
    out
}

impl super::UidSource for UidAssignment {
    fn dom(&self, node: NodeId) -> Option<Uid> {
        UidAssignment::dom(self, node)
    }

    fn ax(&self, ax: AxId) -> Option<Uid> {
        UidAssignment::ax(self, ax)
    }

    fn is_new(&self, uid: Uid) -> bool {
        UidAssignment::is_new(self, uid)
    }

    fn snapshot(&self) -> u32 {
        UidAssignment::snapshot(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::testutil::Builder;

    #[test]
    fn a_frame_document_is_keyed_the_same_whatever_its_attach_position() {
        let (mut b, _, _) = Builder::page("Page");
        let frame = b.s("FRAME-A");
        let loader = b.s("LOADER-A");
        let (mut model, _, _) = b.finish();
        let mut doc = model.docs[0].clone();
        doc.frame_id = Some(frame);
        doc.loader_id = Some(loader);
        doc.target = 1;
        model.docs.push(doc.clone());
        doc.target = 2;
        model.docs.push(doc);
        let first = document_key(&model, DocId::new(1), "PAGE");
        let later = document_key(&model, DocId::new(2), "PAGE");
        assert_eq!(first, later);
        assert_ne!(
            first.target, "PAGE",
            "a frame's document is not the page's own"
        );
        assert_eq!(document_key(&model, DocId::new(0), "PAGE").target, "PAGE");
    }
}
