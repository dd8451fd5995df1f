//! Which subtrees can put anything where the view can be hit: the passes that only add items
//! skip the others.

use crate::analysis::geometry::{is_modal_dialog, Geometry};
use crate::analysis::visibility::union;
use crate::model::{Model, NodeId, Rect};

/// Per node: whether anything of its subtree can be hit in `regions` (per document, viewport
/// coordinates).
///
/// Every item a node adds lies within the hull of its subtree's rectangles in its document:
/// boxes, text fragments and image map areas (the lines of a block, cut from its box and its
/// text, can span the gap between two of them, hence the hull rather than the rectangles
/// themselves). Only a modal dialog's backdrop covers the whole region wherever the dialog is.
/// A subtree whose hull stays away from the region adds nothing there, and the passes that
/// only add items skip it.
///
/// Why: on a long page the view is a small part of it. The flags and the paint simulation
/// still cover every node (the order of what is in view depends on what is not), but the
/// shapes, the column scans, the items and the overflowing lines are computed for the part
/// of the tree that reaches the view only.
pub(super) fn reaching(model: &Model, geometry: &Geometry, regions: &[Rect]) -> Vec<bool> {
    let n = model.nodes.len();
    // Each region in its document's coordinates, grown by more than what `placed` and the
    // snapping of text to whole pixels can add.
    let near: Vec<Rect> = regions
        .iter()
        .zip(&geometry.doc_offsets)
        .map(|(r, &(dx, dy))| r.translate(-dx, -dy).inflate(2.0))
        .collect();
    let meets = |r: &Rect, z: &Rect| {
        r.x <= z.right() && r.right() >= z.x && r.y <= z.bottom() && r.bottom() >= z.y
    };
    // A rectangle with no extent at all (or not a number) adds no item and widens no line.
    let hull = |h: Option<Rect>, r: &Rect| {
        let real = r.width >= 0.0 && r.height >= 0.0 && (r.width > 0.0 || r.height > 0.0);
        if real {
            union(h, Some(*r))
        } else {
            h
        }
    };
    let areas = &geometry.map_areas;
    let mut area_end = areas.len();
    let mut reach = vec![false; n];
    // The hulls of the subtrees below the node at hand wait on a stack, as in `visibility`:
    // in reverse pre-order each entry belongs to an ancestor of the node, deepest on top.
    let mut pending: Vec<(usize, Option<Rect>, bool)> = Vec::new();
    for i in (0..n).rev() {
        let node = &model.nodes[i];
        let (mut h, mut reached) = match pending.last() {
            Some(&(p, h, reached)) if p == i => {
                pending.pop();
                (h, reached)
            }
            _ => (None, false),
        };
        let mut b = node.layout;
        while let Some(lid) = b {
            let l = model.layout(lid);
            h = hull(h, &l.bounds);
            for t in model.text_boxes_of(lid) {
                h = hull(h, &t.bounds);
            }
            reached |= node.is_element()
                && is_modal_dialog(model, NodeId::new(i as u32), model.style(l).position);
            b = l.next_for_node;
        }
        // Areas are in the document order of their images: those of images after this node
        // are behind.
        while area_end > 0 && areas[area_end - 1].img.index() >= i {
            area_end -= 1;
            if areas[area_end].img.index() == i {
                h = hull(h, &areas[area_end].rect);
            }
        }
        let doc = node.doc.index();
        reached |= h.zip(near.get(doc)).is_some_and(|(h, z)| meets(&h, z));
        reach[i] = reached;
        let Some(p) = node.parent.map(|p| p.index()) else {
            continue;
        };
        // A child document's rectangles are in its own coordinates: only whether it reaches
        // its region goes up to its owner.
        let h = h.filter(|_| model.nodes[p].doc.index() == doc);
        match pending.last_mut() {
            Some((q, ph, pr)) if *q == p => {
                *ph = union(*ph, h);
                *pr |= reached;
            }
            _ => pending.push((p, h, reached)),
        }
    }
    reach
}
