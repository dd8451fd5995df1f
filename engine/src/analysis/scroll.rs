//! Scroll containers: boxes a person can scroll (`overflow: auto | scroll` on either axis) whose
//! content is larger than their visible part (`scrollRects` against `clientRects`), and every
//! document (from its scroll offsets and content size), so the renderer can say how much lies
//! above, below, left and right.

use super::geometry::Geometry;
use super::{NodeFacts, ScrollInfo};
use crate::model::{Model, NodeId};

/// Fills `scroll` for scroll containers and `#document` nodes.
pub fn compute(model: &Model, geometry: &Geometry, facts: &mut [NodeFacts]) {
    for (i, node) in model.nodes.iter().enumerate() {
        let Some(l) = node.layout.map(|l| model.layout(l)) else {
            continue;
        };
        if !node.is_element() || !l.style.user_scrollable() {
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
        let x = l.style.overflow_x.user_scrollable() && info.scrolls_horizontally();
        let y = l.style.overflow_y.user_scrollable() && info.scrolls_vertically();
        if x || y {
            facts[i].scroll = Some(info);
        }
    }
    for (d, doc) in model.docs.iter().enumerate() {
        let (cw, ch) = if d == 0 {
            (geometry.viewport.width, geometry.viewport.height)
        } else {
            match model
                .document_element(crate::model::DocId(d as u32))
                .and_then(|e| model.layout_of(e))
                .and_then(|l| model.client_rect(l))
            {
                Some(c) => (c.width, c.height),
                None => continue,
            }
        };
        let root: NodeId = doc.root;
        facts[root.index()].scroll = Some(ScrollInfo {
            left: doc.scroll_x,
            top: doc.scroll_y,
            width: doc.content_width.max(cw),
            height: doc.content_height.max(ch),
            client_width: cw,
            client_height: ch,
        });
    }
}
