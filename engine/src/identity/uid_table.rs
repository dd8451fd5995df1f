//! The uid table of one page: `(document, backendNodeId) -> uid`, outliving every snapshot.
//!
//! Why a table and not a hash of the node: an agent reads `uid=3_12` in one snapshot and acts on
//! it after the next one, so the same node must keep the same uid for as long as it exists, and a
//! uid whose node is gone must never silently point at another node. Chromium's `backendNodeId`
//! is stable for the life of a node inside one renderer process, but two processes (out-of-process
//! iframes) number their nodes independently and a new document (new `loaderId`) is a new world,
//! so the key is the document (target/session + loaderId) plus the backendNodeId.
//!
//! The table holds only what the newest snapshot saw (pruning), so it never grows past the size of
//! the page however long a session runs. It forgets nodes, not the fact that a uid was issued:
//! each snapshot remembers how many uids it minted, so a pruned uid is reported as stale, never as
//! unknown, and is never minted again.

use std::fmt;
use std::str::FromStr;

use rustc_hash::FxHashMap;

use crate::error::{Error, ErrorCode, Result};

/// A uid as the agent sees it: `<snapshot>_<n>`, minted by snapshot `snapshot` as its `n`-th uid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uid {
    /// The snapshot (1-based, per page) that minted this uid.
    pub snapshot: u32,
    /// Its number within that snapshot (0-based).
    pub n: u32,
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.snapshot, self.n)
    }
}

impl FromStr for Uid {
    type Err = Error;

    fn from_str(s: &str) -> Result<Uid> {
        let bad = || {
            Error::new(
                ErrorCode::UnknownUid,
                format!(
                    "{s:?} is not a uid; uids look like \"3_12\" and come from the latest snapshot"
                ),
            )
        };
        let (a, b) = s.trim().split_once('_').ok_or_else(bad)?;
        let snapshot = a.parse::<u32>().map_err(|_| bad())?;
        let n = b.parse::<u32>().map_err(|_| bad())?;
        Ok(Uid { snapshot, n })
    }
}

/// Which document a node belongs to: the target (or session) that owns its renderer and the
/// document's `loaderId`. Interned by the table into a small [`DocKey`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DocumentKey {
    /// Target id (or session id) whose renderer holds the document.
    pub target: String,
    /// The frame the document is loaded in.
    pub frame_id: String,
    /// The document's loader id; a new document in the same frame has a new one.
    pub loader_id: String,
}

/// A document interned by one [`UidTable`]; cheap to copy and hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DocKey(u32);

/// What a uid resolves to: enough to find the node again over CDP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedUid<'a> {
    pub uid: Uid,
    pub document: &'a DocumentKey,
    /// `None` for nodes Chromium gave no backendNodeId (they cannot be acted upon).
    pub backend_node_id: Option<i64>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    uid: Uid,
    last_seen: u32,
}

/// The per-page uid table. See the module docs for the rules.
#[derive(Debug, Default)]
pub struct UidTable {
    /// Number of snapshots taken so far; the current snapshot's number once one has begun.
    snapshot: u32,
    /// `minted[s - 1]` = how many uids snapshot `s` minted.
    minted: Vec<u32>,
    documents: Vec<DocumentKey>,
    document_ids: FxHashMap<DocumentKey, DocKey>,
    /// Snapshot that last saw each document (indexed by `DocKey`).
    document_seen: Vec<u32>,
    /// Snapshot that first saw each document.
    document_first: Vec<u32>,
    nodes: FxHashMap<(DocKey, i64), Entry>,
    /// The newest snapshot's uids of nodes without a backendNodeId (few: they are not in
    /// `nodes`).
    unkeyed: Vec<(Uid, DocKey)>,
}

impl UidTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of snapshots taken on this page (0 before the first).
    pub fn snapshots(&self) -> u32 {
        self.snapshot
    }

    /// Number of nodes the table currently remembers (those seen in the newest snapshot).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Starts a new snapshot. Every node the snapshot contains must then be passed to
    /// [`SnapshotUids::node`]; [`SnapshotUids::finish`] prunes what it did not see.
    pub fn begin(&mut self) -> SnapshotUids<'_> {
        self.snapshot += 1;
        self.minted.push(0);
        self.unkeyed.clear();
        SnapshotUids { table: self }
    }

    /// Resolves a uid the agent sent back, with errors that say what to do next.
    pub fn resolve(&self, uid: &str) -> Result<ResolvedUid<'_>> {
        if self.snapshot == 0 {
            return Err(Error::new(
                ErrorCode::NoSnapshot,
                "no snapshot of this page yet; take a snapshot first, then use a uid from it",
            ));
        }
        let parsed: Uid = uid.parse()?;
        let issued = parsed.snapshot >= 1
            && parsed.snapshot <= self.snapshot
            && parsed.n < self.minted[(parsed.snapshot - 1) as usize];
        if !issued {
            return Err(Error::new(
                ErrorCode::UnknownUid,
                format!(
                    "uid {uid} was never issued on this page; use a uid from the latest snapshot"
                ),
            ));
        }
        match self.find(parsed) {
            Some((doc, backend)) => Ok(ResolvedUid {
                uid: parsed,
                document: &self.documents[doc.0 as usize],
                backend_node_id: backend,
            }),
            None => Err(Error::new(
                ErrorCode::StaleUid,
                format!(
                    "the element {uid} no longer exists (removed, or the page changed); take a new snapshot"
                ),
            )),
        }
    }

    /// Marks the uid's node as gone (e.g. `DOM.resolveNode` failed for it), so later calls fail
    /// fast with `STALE_UID`.
    pub fn forget(&mut self, uid: Uid) {
        match self.find(uid) {
            Some((doc, Some(backend))) => {
                self.nodes.remove(&(doc, backend));
            }
            Some((_, None)) => self.unkeyed.retain(|&(u, _)| u != uid),
            None => {}
        }
    }

    /// The node a uid of the newest snapshot stands for. A scan, not a second map: a snapshot
    /// gives every node its uid, while an agent resolves one uid per action, so keeping a
    /// reverse map up to date would cost every snapshot a random write per node (at 300k nodes,
    /// more than the lookups themselves) to save each action well under a millisecond.
    fn find(&self, uid: Uid) -> Option<(DocKey, Option<i64>)> {
        if let Some(&(_, doc)) = self.unkeyed.iter().find(|(u, _)| *u == uid) {
            return Some((doc, None));
        }
        self.nodes
            .iter()
            .find(|(_, e)| e.uid == uid)
            .map(|(&(doc, backend), _)| (doc, Some(backend)))
    }

    fn mint(&mut self) -> Uid {
        let slot = &mut self.minted[(self.snapshot - 1) as usize];
        let uid = Uid {
            snapshot: self.snapshot,
            n: *slot,
        };
        *slot += 1;
        uid
    }
}

/// One snapshot's pass over the table (see [`UidTable::begin`]).
#[derive(Debug)]
pub struct SnapshotUids<'t> {
    table: &'t mut UidTable,
}

impl SnapshotUids<'_> {
    /// The current snapshot's number.
    pub fn snapshot(&self) -> u32 {
        self.table.snapshot
    }

    /// Makes room for a snapshot of about `nodes` nodes at once, so a page's first snapshot does
    /// not grow the maps step by step (a warm table already has the room).
    pub fn reserve(&mut self, nodes: usize) {
        let t = &mut *self.table;
        t.nodes.reserve(nodes.saturating_sub(t.nodes.len()));
    }

    /// Interns a document for this snapshot. Call once per document of the snapshot.
    pub fn document(&mut self, key: &DocumentKey) -> DocKey {
        let t = &mut *self.table;
        let id = match t.document_ids.get(key) {
            Some(&id) => id,
            None => {
                let id = DocKey(t.documents.len() as u32);
                t.documents.push(key.clone());
                t.document_ids.insert(key.clone(), id);
                t.document_seen.push(0);
                t.document_first.push(t.snapshot);
                id
            }
        };
        t.document_seen[id.0 as usize] = t.snapshot;
        id
    }

    /// The uid of a node, minting one if the node was not seen before, and whether it is *new*:
    /// minted now in a document that an earlier snapshot already showed.
    pub fn node(&mut self, doc: DocKey, backend_node_id: Option<i64>) -> (Uid, bool) {
        let current = self.table.snapshot;
        let Some(backend) = backend_node_id else {
            // No identity to key on: unique in this snapshot, never reused.
            let uid = self.table.mint();
            self.table.unkeyed.push((uid, doc));
            return (uid, false);
        };
        let (uid, minted) = match self.table.nodes.get_mut(&(doc, backend)) {
            Some(entry) => {
                entry.last_seen = current;
                (entry.uid, false)
            }
            None => {
                let uid = self.table.mint();
                self.table.nodes.insert(
                    (doc, backend),
                    Entry {
                        uid,
                        last_seen: current,
                    },
                );
                (uid, true)
            }
        };
        let is_new = minted && self.table.document_first[doc.0 as usize] < current;
        (uid, is_new)
    }

    /// Ends the snapshot: forgets every node and document it did not see.
    pub fn finish(self) {
        let t = self.table;
        let current = t.snapshot;
        t.nodes.retain(|_, e| e.last_seen == current);
        // Documents are few; keep their keys (DocKey indices must stay valid) but stop matching
        // a document that has gone, so that it gets new uids should it ever come back.
        let seen = &t.document_seen;
        t.document_ids
            .retain(|_, id| seen[id.0 as usize] == current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(loader: &str) -> DocumentKey {
        DocumentKey {
            target: "T".into(),
            frame_id: "F".into(),
            loader_id: loader.into(),
        }
    }

    fn snap(table: &mut UidTable, loader: &str, ids: &[i64]) -> Vec<(Uid, bool)> {
        let mut s = table.begin();
        let d = s.document(&doc(loader));
        let out = ids.iter().map(|&b| s.node(d, Some(b))).collect();
        s.finish();
        out
    }

    #[test]
    fn uid_round_trips_through_text() {
        let uid = Uid { snapshot: 3, n: 12 };
        assert_eq!(uid.to_string(), "3_12");
        assert_eq!("3_12".parse::<Uid>().ok(), Some(uid));
        for bad in ["", "3", "3_", "_1", "a_b", "3_12_1", "-1_2"] {
            assert_eq!(
                bad.parse::<Uid>().map_err(|e| e.code()),
                Err(ErrorCode::UnknownUid),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn same_node_keeps_its_uid_and_new_nodes_are_marked() {
        let mut t = UidTable::new();
        let first = snap(&mut t, "L1", &[10, 11, 12]);
        assert!(
            first.iter().all(|&(_, new)| !new),
            "nothing is new on the first snapshot"
        );
        let second = snap(&mut t, "L1", &[9, 10, 11, 12]);
        assert_eq!(second[1].0, first[0].0);
        assert_eq!(second[3].0, first[2].0);
        assert!(second[0].1, "a node inserted later is new");
        assert_eq!(second[0].0, Uid { snapshot: 2, n: 0 });
        assert!(!second[1].1);
    }

    #[test]
    fn new_document_gets_new_uids_and_old_ones_go_stale() {
        let mut t = UidTable::new();
        let first = snap(&mut t, "L1", &[10, 11]);
        let after_reload = snap(&mut t, "L2", &[10, 11]);
        assert_ne!(first[0].0, after_reload[0].0);
        assert!(
            !after_reload[0].1,
            "a document's first snapshot marks nothing new"
        );
        let err = t
            .resolve(&first[0].0.to_string())
            .map(|_| ())
            .map_err(|e| e.code());
        assert_eq!(err, Err(ErrorCode::StaleUid));
        let ok = t.resolve(&after_reload[1].0.to_string());
        assert_eq!(ok.map(|r| r.backend_node_id).ok(), Some(Some(11)));
    }

    #[test]
    fn resolve_distinguishes_no_snapshot_unknown_and_stale() {
        let mut t = UidTable::new();
        assert_eq!(
            t.resolve("1_0").map(|_| ()).map_err(|e| e.code()),
            Err(ErrorCode::NoSnapshot)
        );
        let first = snap(&mut t, "L1", &[1, 2, 3]);
        snap(&mut t, "L1", &[1, 3]);
        let code = |t: &UidTable, s: &str| t.resolve(s).map(|_| ()).map_err(|e| e.code());
        assert_eq!(code(&t, &first[1].0.to_string()), Err(ErrorCode::StaleUid));
        assert_eq!(
            code(&t, "1_3"),
            Err(ErrorCode::UnknownUid),
            "snapshot 1 minted 3 uids"
        );
        assert_eq!(code(&t, "7_0"), Err(ErrorCode::UnknownUid));
        assert_eq!(code(&t, "nonsense"), Err(ErrorCode::UnknownUid));
        assert_eq!(code(&t, &first[2].0.to_string()), Ok(()));
    }

    #[test]
    fn a_returning_node_never_gets_its_old_uid_back() {
        let mut t = UidTable::new();
        let first = snap(&mut t, "L1", &[1, 2]);
        snap(&mut t, "L1", &[1]);
        let third = snap(&mut t, "L1", &[1, 2]);
        assert_ne!(third[1].0, first[1].0);
        assert_eq!(
            t.resolve(&first[1].0.to_string())
                .map(|_| ())
                .map_err(|e| e.code()),
            Err(ErrorCode::StaleUid)
        );
    }

    #[test]
    fn table_never_outgrows_the_page() {
        let mut t = UidTable::new();
        let mut next = 0i64;
        for i in 0..1000 {
            // A page that keeps 50 nodes and churns 20 of them every snapshot.
            let ids: Vec<i64> = (0..30)
                .chain((0..20).map(|_| {
                    next += 1;
                    1000 + next
                }))
                .collect();
            snap(&mut t, "L1", &ids);
            assert!(t.len() <= ids.len(), "snapshot {i}: {} entries", t.len());
        }
        assert_eq!(t.len(), 50);
    }

    #[test]
    fn equal_backend_ids_in_two_processes_do_not_collide() {
        let mut t = UidTable::new();
        let mut s = t.begin();
        let a = s.document(&doc("L1"));
        let b = s.document(&DocumentKey {
            target: "OOPIF".into(),
            frame_id: "F2".into(),
            loader_id: "L9".into(),
        });
        let (ua, _) = s.node(a, Some(5));
        let (ub, _) = s.node(b, Some(5));
        s.finish();
        assert_ne!(ua, ub);
        assert_eq!(
            t.resolve(&ub.to_string())
                .map(|r| r.document.target.clone())
                .ok(),
            Some("OOPIF".to_string())
        );
    }

    #[test]
    fn nodes_without_backend_id_get_fresh_uids() {
        let mut t = UidTable::new();
        let mut s = t.begin();
        let d = s.document(&doc("L1"));
        let (u1, _) = s.node(d, None);
        let (u2, _) = s.node(d, None);
        s.finish();
        assert_ne!(u1, u2);
        assert_eq!(
            t.resolve(&u1.to_string()).map(|r| r.backend_node_id).ok(),
            Some(None)
        );
        assert!(t.is_empty());
    }
}
