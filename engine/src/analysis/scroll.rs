//! Scroll containers: boxes a person can scroll (`overflow: auto | scroll` on either axis) whose
//! content is larger than their visible part (`scrollRects` against `clientRects`), and every
//! document (from its scroll offsets and content size), so the renderer can say how much lies
//! above, below, left and right.

use super::geometry::Geometry;
use super::ScrollInfo;
use crate::model::{LayoutId, Model, NodeId};

/// How scroll containers and `#document` nodes scroll, ordered by node.
pub fn compute(model: &Model, geometry: &Geometry) -> Vec<(NodeId, ScrollInfo)> {
    let mut out = Vec::new();
    // Boxes are in node order and far fewer than nodes; only the rare scrollable ones need
    // their node, so the nodes are not streamed through memory.
    for (k, l) in model.layouts.iter().enumerate() {
        if !model.style(l).user_scrollable() {
            continue;
        }
        let Some(node) = model.nodes.get(l.node.index()) else {
            continue;
        };
        // A node's first box is the one that counts.
        if node.layout != Some(LayoutId::new(k as u32)) || !node.is_element() {
            continue;
        }
        // The document element's overflow is the viewport's: reported on `#document`.
        if node
            .parent
            .is_some_and(|p| !model.node(p).is_element() && model.node(p).doc == node.doc)
        {
            continue;
        }
        let (Some(s), Some(c)) = (model.scroll_rect(l), model.client_rect(l)) else {
            continue;
        };
        let info = ScrollInfo {
            left: s.x,
            top: s.y,
            width: s.width,
            height: s.height,
            client_width: c.width,
            client_height: c.height,
        };
        let x = model.style(l).overflow_x.user_scrollable() && info.scrolls_horizontally();
        let y = model.style(l).overflow_y.user_scrollable() && info.scrolls_vertically();
        if x || y {
            out.push((l.node, info));
        }
    }
    for (d, doc) in model.docs.iter().enumerate() {
        let (cw, ch) = if d == 0 {
            (geometry.viewport.width, geometry.viewport.height)
        } else {
            match model
                .document_element(crate::model::DocId::new(d as u32))
                .and_then(|e| model.layout_of(e))
                .and_then(|l| model.client_rect(l))
            {
                Some(c) => (c.width, c.height),
                None => continue,
            }
        };
        let root: NodeId = doc.root;
        out.push((
            root,
            ScrollInfo {
                left: doc.scroll_x,
                top: doc.scroll_y,
                width: doc.content_width.max(cw),
                height: doc.content_height.max(ch),
                client_width: cw,
                client_height: ch,
            },
        ));
    }
    // Documents come after the boxes: put in node order here. A `#document` is never an
    // element, so only two documents naming one root could put a node in twice, and then the
    // later one counts.
    out.sort_by_key(|(n, _)| *n);
    let mut ordered: Vec<(NodeId, ScrollInfo)> = Vec::with_capacity(out.len());
    for entry in out {
        match ordered.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => ordered.push(entry),
        }
    }
    ordered
}
