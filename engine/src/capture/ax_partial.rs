//! Accessibility trees rebuilt from `Accessibility.getPartialAXTree` replies.
//!
//! What Chromium answers (fetchRelatives false, one DOM node per call), and what follows:
//! - one node, carrying its real `parentId` and full `childIds` (children that were not asked
//!   for included), and `frameId` on a frame's root web area only;
//! - a DOM node without an accessibility node (whitespace text, `<head>`, comments) answers with
//!   an ignored placeholder whose `nodeId` is `"0"` and which has no parent; an unrendered node
//!   (a `hidden` element) answers with an ignored node naming a parent that does not list it.
//!   Neither is in the full tree, so neither is kept: a node is kept when it is a root web area,
//!   or its parent is kept and lists it among its children;
//! - a removed DOM node answers with an error (the caller retries: the page changed).
//!
//! The renderers count a node's children (a node without children is a leaf and may be printed
//! on its own name), so every child id of a kept node that was not fetched becomes an *ignored
//! stand-in* (no role, no DOM node): it keeps the parent's child count exactly as in the full
//! tree, and being ignored it is never printed itself.
//!
//! A child document's root web area has no parent in its own frame's tree: each root starts a
//! tree of its own, named after its `frameId`, as `getFullAXTree` per frame gives them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::ax::{AxKeyRef, AxNodes};
use super::AxTreeCapture;

/// The parent ids that fetched nodes name but nobody fetched, as `backendNodeId`s to ask for
/// next (Chromium's accessibility node ids of DOM nodes are their `backendNodeId`s). A parent
/// that is not a DOM ancestor (`aria-owns`) is found this way.
pub fn missing_parents(nodes: &AxNodes) -> Vec<i64> {
    let have: FxHashSet<AxKeyRef<'_>> = nodes.iter().map(|n| n.node_id()).collect();
    let mut out: Vec<i64> = nodes
        .iter()
        .filter(|n| n.node_id() != AxKeyRef::Int(0))
        .filter_map(|n| match n.parent_id() {
            Some(p @ AxKeyRef::Int(id)) if id > 0 && !have.contains(&p) => Some(id),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The children that fetched nodes of `inside` (`backendNodeId`s) name but nobody fetched, as
/// `backendNodeId`s to ask for next; every child of a node of `inside` joins it, so that asking
/// again reaches their children in turn. What a subtree needs of the nodes its DOM snapshot
/// does not hold (a form control's inner editor lives in a shadow tree the snapshot leaves out).
pub fn missing_children(nodes: &AxNodes, inside: &mut FxHashSet<i64>) -> Vec<i64> {
    let have: FxHashSet<AxKeyRef<'_>> = nodes.iter().map(|n| n.node_id()).collect();
    let mut out = Vec::new();
    for n in nodes.iter() {
        let AxKeyRef::Int(id) = n.node_id() else {
            continue;
        };
        if id <= 0 || !inside.contains(&id) {
            continue;
        }
        for c in n.child_ids() {
            if let AxKeyRef::Int(child) = c {
                if child > 0 && inside.insert(child) && !have.contains(&c) {
                    out.push(child);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The fetched nodes of `inside` that name a child nobody fetched: what is left once
/// [`missing_children`] found nothing more to ask for by id. Such a child has no DOM node (the
/// text of a `::before` or `::after`), and is had only with its parent's relatives.
pub fn parents_of_missing_children(nodes: &AxNodes, inside: &FxHashSet<i64>) -> Vec<i64> {
    let have: FxHashSet<AxKeyRef<'_>> = nodes.iter().map(|n| n.node_id()).collect();
    let mut out: Vec<i64> = nodes
        .iter()
        .filter_map(|n| match n.node_id() {
            AxKeyRef::Int(id) if id > 0 && inside.contains(&id) => {
                n.child_ids().any(|c| !have.contains(&c)).then_some(id)
            }
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Rebuilds per-frame trees from the nodes of any number of partial replies (in any order,
/// repeats allowed). Roots come first in each tree; trees come in the order their roots were
/// first seen.
pub fn assemble(nodes: &AxNodes) -> Vec<AxTreeCapture> {
    // One node per id, the first seen.
    let mut index: FxHashMap<AxKeyRef<'_>, usize> = FxHashMap::default();
    let mut unique = Vec::with_capacity(nodes.len());
    for n in nodes.iter() {
        if let std::collections::hash_map::Entry::Vacant(e) = index.entry(n.node_id()) {
            e.insert(unique.len());
            unique.push(n);
        }
    }
    // Which tree (root index) each node belongs to; `None` = not kept.
    const UNKNOWN: usize = usize::MAX - 1;
    const DROPPED: usize = usize::MAX;
    let mut tree_of = vec![UNKNOWN; unique.len()];
    let mut chain: Vec<usize> = Vec::new();
    for start in 0..unique.len() {
        chain.clear();
        let mut cur = start;
        let verdict = loop {
            if tree_of[cur] != UNKNOWN {
                break tree_of[cur];
            }
            if chain.len() > unique.len() {
                break DROPPED; // a cycle
            }
            chain.push(cur);
            let n = &unique[cur];
            match n.parent_id() {
                None if n.frame_id().is_some() && !n.ignored() => break cur,
                None => break DROPPED,
                Some(p) => match index.get(&p) {
                    Some(&pi) if unique[pi].child_ids().any(|c| c == n.node_id()) => cur = pi,
                    _ => break DROPPED,
                },
            }
        };
        for &c in &chain {
            tree_of[c] = verdict;
        }
    }
    // Ignored stand-ins for the children nobody fetched.
    let mut stand_ins: Vec<(usize, AxKeyRef<'_>, AxKeyRef<'_>)> = Vec::new();
    let mut added: FxHashSet<AxKeyRef<'_>> = FxHashSet::default();
    for (i, n) in unique.iter().enumerate() {
        if tree_of[i] == DROPPED {
            continue;
        }
        for c in n.child_ids() {
            if !index.contains_key(&c) && added.insert(c) {
                stand_ins.push((tree_of[i], c, n.node_id()));
            }
        }
    }
    let mut trees: Vec<AxTreeCapture> = Vec::new();
    let mut slot: FxHashMap<usize, usize> = FxHashMap::default();
    let roots: Vec<usize> = (0..unique.len()).filter(|&i| tree_of[i] == i).collect();
    for &r in &roots {
        slot.insert(r, trees.len());
        trees.push(AxTreeCapture {
            frame_id: unique[r].frame_id().unwrap_or_default().to_string(),
            nodes: AxNodes::default(),
        });
    }
    // Replies are small (one node each): a tree too large to hold cannot come of them, and a
    // node that could not be copied is left out like any node that does not fit.
    let mut rest = Vec::new();
    for (i, n) in unique.iter().enumerate() {
        let t = tree_of[i];
        if t == DROPPED {
            continue;
        }
        if t == i {
            if let Some(&s) = slot.get(&t) {
                let _ = trees[s].nodes.push_node(*n);
            }
        } else {
            rest.push((t, *n));
        }
    }
    for (t, n) in rest {
        if let Some(&s) = slot.get(&t) {
            let _ = trees[s].nodes.push_node(n);
        }
    }
    for (t, id, parent) in stand_ins {
        if let Some(&s) = slot.get(&t) {
            let _ = trees[s].nodes.push_stand_in(id, parent);
        }
    }
    trees
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replies() -> AxNodes {
        let nodes = [
            r#"{"nodeId":"10","ignored":true,"childIds":["11"],"frameId":"A","backendDOMNodeId":10}"#,
            r#"{"nodeId":"7","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"childIds":["9"],"frameId":"F","backendDOMNodeId":7}"#,
            r#"{"nodeId":"21","ignored":false,"parentId":"9","childIds":["23","24"],"backendDOMNodeId":21}"#,
            r#"{"nodeId":"9","ignored":true,"parentId":"7","childIds":["21"],"backendDOMNodeId":9}"#,
            r#"{"nodeId":"0","ignored":true,"backendDOMNodeId":30}"#,
            r#"{"nodeId":"31","ignored":true,"parentId":"21","backendDOMNodeId":31}"#,
            r#"{"nodeId":"21","ignored":false,"parentId":"9","childIds":["23","24"],"backendDOMNodeId":21}"#,
            r#"{"nodeId":"23","ignored":false,"parentId":"21","backendDOMNodeId":23}"#,
            r#"{"nodeId":"40","ignored":false,"parentId":"39","backendDOMNodeId":40}"#,
            r#"{"nodeId":"50","ignored":false,"childIds":["51"],"frameId":"G","backendDOMNodeId":50}"#,
        ];
        serde_json::from_str(&format!("[{}]", nodes.join(","))).unwrap()
    }

    #[test]
    fn rebuilds_trees_keeping_child_counts() {
        let trees = assemble(&replies());
        let frames: Vec<&str> = trees.iter().map(|t| t.frame_id.as_str()).collect();
        // An ignored parentless node is not a root; "0" placeholders and unlisted or orphaned
        // nodes are dropped.
        assert_eq!(frames, ["F", "G"]);
        let ids: Vec<String> = trees[0]
            .nodes
            .iter()
            .map(|n| n.node_id().to_string())
            .collect();
        assert_eq!(ids, ["7", "21", "9", "23", "24"]);
        let stand_in = trees[0].nodes.get(4).unwrap();
        assert!(stand_in.ignored() && stand_in.role().is_none());
        assert_eq!(stand_in.parent_id(), Some(AxKeyRef::Int(21)));
        assert_eq!(stand_in.backend_dom_node_id(), None);
        // A copied node keeps what it was read with.
        let read = replies();
        let twenty_one = read
            .iter()
            .find(|n| n.node_id() == AxKeyRef::Int(21))
            .unwrap();
        assert_eq!(trees[0].nodes.get(1).unwrap(), twenty_one);
        let g: Vec<String> = trees[1]
            .nodes
            .iter()
            .map(|n| n.node_id().to_string())
            .collect();
        assert_eq!(g, ["50", "51"]);
    }

    #[test]
    fn names_parents_nobody_fetched() {
        assert_eq!(missing_parents(&replies()), vec![39]);
    }

    #[test]
    fn names_children_nobody_fetched_inside_a_subtree() {
        let mut inside: FxHashSet<i64> = [21].into_iter().collect();
        assert_eq!(missing_children(&replies(), &mut inside), vec![24]);
        // Children join the subtree; a child already fetched (23) is not asked for again.
        assert!(inside.contains(&23) && inside.contains(&24));
        assert_eq!(missing_children(&replies(), &mut inside), Vec::<i64>::new());
        let mut outside = FxHashSet::default();
        assert!(missing_children(&replies(), &mut outside).is_empty());
        assert_eq!(parents_of_missing_children(&replies(), &inside), vec![21]);
    }
}
