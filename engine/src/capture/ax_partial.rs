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

use super::ax::{AxNodeKey, AxNodeRecord};
use super::AxTreeCapture;

/// The parent ids that fetched nodes name but nobody fetched, as `backendNodeId`s to ask for
/// next (Chromium's accessibility node ids of DOM nodes are their `backendNodeId`s). A parent
/// that is not a DOM ancestor (`aria-owns`) is found this way.
pub fn missing_parents(nodes: &[AxNodeRecord]) -> Vec<i64> {
    let have: FxHashSet<&AxNodeKey> = nodes.iter().map(|n| &n.node_id).collect();
    let mut out: Vec<i64> = nodes
        .iter()
        .filter(|n| n.node_id != AxNodeKey::Int(0))
        .filter_map(|n| match &n.parent_id {
            Some(p @ AxNodeKey::Int(id)) if *id > 0 && !have.contains(p) => Some(*id),
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
pub fn assemble(nodes: Vec<AxNodeRecord>) -> Vec<AxTreeCapture> {
    // One record per id, the first seen.
    let mut index: FxHashMap<AxNodeKey, usize> = FxHashMap::default();
    let mut unique: Vec<AxNodeRecord> = Vec::with_capacity(nodes.len());
    for n in nodes {
        if !index.contains_key(&n.node_id) {
            index.insert(n.node_id.clone(), unique.len());
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
            match &n.parent_id {
                None if n.frame_id.is_some() && !n.ignored => break cur,
                None => break DROPPED,
                Some(p) => match index.get(p) {
                    Some(&pi) if unique[pi].child_ids.contains(&n.node_id) => cur = pi,
                    _ => break DROPPED,
                },
            }
        };
        for &c in &chain {
            tree_of[c] = verdict;
        }
    }
    // Ignored stand-ins for the children nobody fetched.
    let mut stand_ins: Vec<(usize, AxNodeRecord)> = Vec::new();
    let mut added: FxHashSet<AxNodeKey> = FxHashSet::default();
    for (i, n) in unique.iter().enumerate() {
        if tree_of[i] == DROPPED {
            continue;
        }
        for c in &n.child_ids {
            if !index.contains_key(c) && added.insert(c.clone()) {
                stand_ins.push((tree_of[i], stand_in(c.clone(), n.node_id.clone())));
            }
        }
    }
    let mut trees: Vec<AxTreeCapture> = Vec::new();
    let mut slot: FxHashMap<usize, usize> = FxHashMap::default();
    let roots: Vec<usize> = (0..unique.len()).filter(|&i| tree_of[i] == i).collect();
    for &r in &roots {
        slot.insert(r, trees.len());
        trees.push(AxTreeCapture {
            frame_id: unique[r]
                .frame_id
                .as_deref()
                .unwrap_or_default()
                .to_string(),
            nodes: Vec::new(),
        });
    }
    let mut rest: Vec<(usize, AxNodeRecord)> = Vec::new();
    for (i, n) in unique.into_iter().enumerate() {
        let t = tree_of[i];
        if t == DROPPED {
            continue;
        }
        if t == i {
            if let Some(&s) = slot.get(&t) {
                trees[s].nodes.push(n);
            }
        } else {
            rest.push((t, n));
        }
    }
    for (t, n) in rest.into_iter().chain(stand_ins) {
        if let Some(&s) = slot.get(&t) {
            trees[s].nodes.push(n);
        }
    }
    trees
}

fn stand_in(id: AxNodeKey, parent: AxNodeKey) -> AxNodeRecord {
    AxNodeRecord {
        node_id: id,
        ignored: true,
        role: None,
        name: None,
        description: None,
        value: None,
        properties: Vec::new(),
        parent_id: Some(parent),
        child_ids: Default::default(),
        backend_dom_node_id: None,
        frame_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(json: &str) -> AxNodeRecord {
        serde_json::from_str(json).unwrap()
    }

    fn replies() -> Vec<AxNodeRecord> {
        vec![
            node(
                r#"{"nodeId":"10","ignored":true,"childIds":["11"],"frameId":"A","backendDOMNodeId":10}"#,
            ),
            node(
                r#"{"nodeId":"7","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"childIds":["9"],"frameId":"F","backendDOMNodeId":7}"#,
            ),
            node(
                r#"{"nodeId":"21","ignored":false,"parentId":"9","childIds":["23","24"],"backendDOMNodeId":21}"#,
            ),
            node(
                r#"{"nodeId":"9","ignored":true,"parentId":"7","childIds":["21"],"backendDOMNodeId":9}"#,
            ),
            node(r#"{"nodeId":"0","ignored":true,"backendDOMNodeId":30}"#),
            node(r#"{"nodeId":"31","ignored":true,"parentId":"21","backendDOMNodeId":31}"#),
            node(
                r#"{"nodeId":"21","ignored":false,"parentId":"9","childIds":["23","24"],"backendDOMNodeId":21}"#,
            ),
            node(r#"{"nodeId":"23","ignored":false,"parentId":"21","backendDOMNodeId":23}"#),
            node(r#"{"nodeId":"40","ignored":false,"parentId":"39","backendDOMNodeId":40}"#),
            node(
                r#"{"nodeId":"50","ignored":false,"childIds":["51"],"frameId":"G","backendDOMNodeId":50}"#,
            ),
        ]
    }

    #[test]
    fn rebuilds_trees_keeping_child_counts() {
        let trees = assemble(replies());
        let frames: Vec<&str> = trees.iter().map(|t| t.frame_id.as_str()).collect();
        // An ignored parentless node is not a root; "0" placeholders and unlisted or orphaned
        // nodes are dropped.
        assert_eq!(frames, ["F", "G"]);
        let ids: Vec<String> = trees[0]
            .nodes
            .iter()
            .map(|n| n.node_id.to_string())
            .collect();
        assert_eq!(ids, ["7", "21", "9", "23", "24"]);
        let stand_in = &trees[0].nodes[4];
        assert!(stand_in.ignored && stand_in.role.is_none());
        assert_eq!(stand_in.parent_id, Some(AxNodeKey::Int(21)));
        let g: Vec<String> = trees[1]
            .nodes
            .iter()
            .map(|n| n.node_id.to_string())
            .collect();
        assert_eq!(g, ["50", "51"]);
    }

    #[test]
    fn names_parents_nobody_fetched() {
        assert_eq!(missing_parents(&replies()), vec![39]);
    }
}
