//! `(target, backendNodeId) -> node`: the lookup that links the accessibility tree, out-of-process
//! iframes and hit-test answers to the model's nodes.
//!
//! Why not a hash map: a renderer numbers its nodes with small increasing integers, so within one
//! target the ids of a capture are dense. A table indexed by the id answers with one read of
//! memory that is laid out in id order, while a hash map scatters 36k (or 300k) entries over a
//! large table and every lookup misses the cache. Ids that do not fit the table (negative, or far
//! above the number of nodes, as a hostile capture may send) go to a small hash map instead, so
//! the table never grows past a few times the page's size.

use super::NodeId;
use rustc_hash::FxHashMap;

const NONE: u32 = u32::MAX;

/// The nodes of one target, by `backendNodeId`.
#[derive(Debug, Clone, Default)]
struct TargetIndex {
    dense: Vec<u32>,
    sparse: FxHashMap<i64, NodeId>,
}

/// `(target, backendNodeId) -> NodeId` for a whole model.
#[derive(Debug, Clone, Default)]
pub(crate) struct BackendIndex {
    targets: Vec<TargetIndex>,
}

impl BackendIndex {
    /// Indexes `(target, backendNodeId)` pairs given in node order; when two nodes share a pair,
    /// the first one is kept.
    pub(crate) fn build(pairs: impl Iterator<Item = (u32, i64)>) -> BackendIndex {
        // Read once: the pairs come from the model's nodes, each a large record, and the three
        // passes below would otherwise stream all of them through memory three times.
        let pairs: Vec<(u32, i64)> = pairs.collect();
        // Per target: how many nodes, then the largest id that fits a table a few times that
        // size (ids past it go to the hash map).
        let mut counts: Vec<usize> = Vec::new();
        for &(target, _) in &pairs {
            let t = target as usize;
            if counts.len() <= t {
                counts.resize(t + 1, 0);
            }
            counts[t] += 1;
        }
        let limits: Vec<i64> = counts
            .iter()
            .map(|&c| c.saturating_mul(4).saturating_add(64) as i64)
            .collect();
        let mut lens = vec![0usize; counts.len()];
        for &(target, id) in &pairs {
            let t = target as usize;
            if (0..limits[t]).contains(&id) {
                lens[t] = lens[t].max(id as usize + 1);
            }
        }
        let mut targets: Vec<TargetIndex> = lens
            .iter()
            .map(|&len| TargetIndex {
                dense: vec![NONE; len],
                sparse: FxHashMap::default(),
            })
            .collect();
        for (i, (target, id)) in pairs.into_iter().enumerate() {
            let t = &mut targets[target as usize];
            match slot(&t.dense, id) {
                Some(s) => {
                    if t.dense[s] == NONE {
                        t.dense[s] = i as u32;
                    }
                }
                None => {
                    t.sparse.entry(id).or_insert(NodeId::new(i as u32));
                }
            }
        }
        BackendIndex { targets }
    }

    /// The node with this `backendNodeId` in `target`.
    #[inline]
    pub(crate) fn get(&self, target: u32, backend_node_id: i64) -> Option<NodeId> {
        let t = self.targets.get(target as usize)?;
        match slot(&t.dense, backend_node_id) {
            Some(s) => (t.dense[s] != NONE).then(|| NodeId::new(t.dense[s])),
            None => t.sparse.get(&backend_node_id).copied(),
        }
    }
}

#[inline]
fn slot(dense: &[u32], id: i64) -> Option<usize> {
    (id >= 0 && (id as u64) < dense.len() as u64).then_some(id as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_dense_sparse_and_missing_ids_first_node_winning() {
        let pairs = [
            (0, 5),
            (0, 1),
            (1, 5),
            (0, 5),
            (0, -3),
            (0, 1 << 40),
            (1, 2),
        ];
        let index = BackendIndex::build(pairs.iter().copied());
        assert_eq!(
            index.get(0, 5),
            Some(NodeId::new(0)),
            "the first of two equal pairs"
        );
        assert_eq!(index.get(0, 1), Some(NodeId::new(1)));
        assert_eq!(index.get(1, 5), Some(NodeId::new(2)), "targets are apart");
        assert_eq!(index.get(0, -3), Some(NodeId::new(4)));
        assert_eq!(index.get(0, 1 << 40), Some(NodeId::new(5)));
        assert_eq!(index.get(1, 2), Some(NodeId::new(6)));
        assert_eq!(index.get(0, 2), None);
        assert_eq!(index.get(1, 1), None);
        assert_eq!(index.get(2, 5), None, "an unknown target");
        assert_eq!(BackendIndex::default().get(0, 1), None);
    }
}
