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
//!
//! Storage: Chromium numbers a renderer's nodes with small positive integers handed out in
//! creation order, so a document's nodes are looked up in a flat array indexed by
//! backendNodeId rather than a hash map: a snapshot visits them in document order, which walks
//! the array nearly front to back, where a map of a long page costs a cache miss per node. An
//! id far beyond what the page's size explains (a renderer that has churned through millions
//! of nodes, or a negative id) goes to a per-document map instead, so a sparse page never makes
//! the array huge.

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
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
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

/// One remembered node. `last_seen == 0` marks an empty slot of [`DocumentNodes::dense`]
/// (snapshots are numbered from 1).
#[derive(Debug, Clone, Copy)]
struct Entry {
    uid: Uid,
    last_seen: u32,
}

const EMPTY: Entry = Entry {
    uid: Uid { snapshot: 0, n: 0 },
    last_seen: 0,
};

/// Ids below this always go to the array, whatever the page's size: 4,096 entries, 64 KB.
///
/// Why not more: Chromium numbers nodes in the order it makes them and never reuses a number,
/// so a page that lives long and keeps making nodes (a feed, a ticker, a chat) pushes its ids
/// up however few it holds at once. An array over every id up to the highest would grow
/// with the page's age, not its size. Past the floor, and past four times the nodes of the largest
/// snapshot (see [`SnapshotUids::reserve`]), ids go to the map, which holds only the nodes
/// the snapshots saw.
const DENSE_FLOOR: usize = 1 << 12;

/// The remembered nodes of one document.
///
/// Invariant: an id below `dense.len()` lives in `dense` (or nowhere), any other id in `sparse`
/// (or nowhere); growing `dense` moves the ids it now covers out of `sparse`.
#[derive(Debug, Default)]
struct DocumentNodes {
    dense: Vec<Entry>,
    sparse: FxHashMap<i64, Entry>,
}

impl DocumentNodes {
    #[inline]
    fn get_mut(&mut self, backend: i64) -> Option<&mut Entry> {
        match usize::try_from(backend) {
            Ok(i) if i < self.dense.len() => {
                let e = &mut self.dense[i];
                (e.last_seen != 0).then_some(e)
            }
            _ => self.sparse.get_mut(&backend),
        }
    }

    /// Stores a node not present yet; `dense_limit` bounds how far the array may grow for it.
    #[inline]
    fn insert(&mut self, backend: i64, entry: Entry, dense_limit: usize) {
        match usize::try_from(backend) {
            Ok(i) if i < self.dense.len() => self.dense[i] = entry,
            Ok(i) if i < dense_limit => {
                self.grow(i + 1, dense_limit);
                self.dense[i] = entry;
            }
            _ => {
                self.sparse.insert(backend, entry);
            }
        }
    }

    /// Grows the array to cover at least `len` ids (doubling, up to `limit`).
    #[cold]
    fn grow(&mut self, len: usize, limit: usize) {
        let old = self.dense.len();
        let new = len.max(old.saturating_mul(2)).min(limit.max(len));
        self.dense.resize(new, EMPTY);
        if !self.sparse.is_empty() {
            let dense = &mut self.dense;
            self.sparse.retain(|&id, e| match usize::try_from(id) {
                Ok(i) if i < new => {
                    dense[i] = *e;
                    false
                }
                _ => true,
            });
        }
    }

    fn remove(&mut self, backend: i64) -> bool {
        match self.get_mut(backend) {
            Some(e) => {
                *e = EMPTY;
                // A sparse entry is dropped, not kept as an empty one.
                if !matches!(usize::try_from(backend), Ok(i) if i < self.dense.len()) {
                    self.sparse.remove(&backend);
                }
                true
            }
            None => false,
        }
    }

    /// Forgets every node not seen by snapshot `current`; returns how many are left.
    fn retain_seen(&mut self, current: u32) -> usize {
        let mut left = 0;
        for e in &mut self.dense {
            if e.last_seen == current {
                left += 1;
            } else {
                *e = EMPTY;
            }
        }
        self.sparse.retain(|_, e| e.last_seen == current);
        left + self.sparse.len()
    }

    fn find(&self, uid: Uid) -> Option<i64> {
        if let Some(i) = self
            .dense
            .iter()
            .position(|e| e.last_seen != 0 && e.uid == uid)
        {
            return Some(i as i64);
        }
        self.sparse
            .iter()
            .find(|(_, e)| e.uid == uid)
            .map(|(&id, _)| id)
    }
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
    /// Snapshot that last saw each document (indexed by `DocKey`); 0 for a slot in `free`.
    document_seen: Vec<u32>,
    /// Snapshot that first saw each document.
    document_first: Vec<u32>,
    /// The remembered nodes of each document (indexed by `DocKey`).
    nodes: Vec<DocumentNodes>,
    /// How many nodes `nodes` holds.
    node_count: usize,
    /// Slots of documents that have gone, for the next new document: a page that navigates or
    /// loads frames for hours sees thousands of documents, and the table must hold only those
    /// of its newest snapshot.
    free: Vec<DocKey>,
    /// How far a document's array may grow: ids up to a few times the size of the largest
    /// snapshot are dense enough to be worth it.
    dense_limit: usize,
    /// The newest snapshot's uids of nodes without a backendNodeId (few: they are not in
    /// `nodes`).
    unkeyed: Vec<(Uid, DocKey)>,
    /// Counts every change made to the table: each snapshot's pass, each uid forgotten.
    edits: u64,
}

/// The state a [`UidTable`] was in (see [`UidTable::settled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableMark(u64);

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
        self.node_count
    }

    pub fn is_empty(&self) -> bool {
        self.node_count == 0
    }

    /// Number of document slots the table holds: at most the most documents (a page's load
    /// and its frames' loads) one snapshot showed, however many the page went through.
    pub fn documents(&self) -> usize {
        self.documents.len()
    }

    /// Starts a new snapshot. Every node the snapshot contains must then be passed to
    /// [`SnapshotUids::node`]; [`SnapshotUids::finish`] prunes what it did not see.
    pub fn begin(&mut self) -> SnapshotUids<'_> {
        self.snapshot += 1;
        self.edits += 1;
        self.minted.push(0);
        self.unkeyed.clear();
        SnapshotUids { table: self }
    }

    /// The table as the newest snapshot left it, when that snapshot minted no uid for a node
    /// it can key: another pass over the same nodes would then give each of those the uid it
    /// has now, mark none of them new and forget nothing, so while the table is
    /// [`UidTable::still`] at this mark, the newest snapshot's uids hold for a snapshot of the
    /// same model with no pass at all. (Its nodes with nothing to key on, which a pass would
    /// give fresh uids, keep theirs: they still resolve, as the newest snapshot's.)
    pub fn settled(&self) -> Option<TableMark> {
        let minted = self.minted.last().copied()?;
        (minted as usize == self.unkeyed.len()).then_some(TableMark(self.edits))
    }

    /// Whether nothing changed the table since `mark` was taken.
    pub fn still(&self, mark: TableMark) -> bool {
        self.edits == mark.0
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
        self.edits += 1;
        match self.find(uid) {
            Some((doc, Some(backend))) => {
                let removed = self.nodes[doc.0 as usize].remove(backend);
                self.node_count -= usize::from(removed);
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
        self.nodes.iter().enumerate().find_map(|(d, nodes)| {
            nodes
                .find(uid)
                .map(|backend| (DocKey(d as u32), Some(backend)))
        })
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

    /// Tells the table a snapshot of about `nodes` nodes is coming: it bounds how sparse a
    /// document's ids may be and still be kept in an array.
    pub fn reserve(&mut self, nodes: usize) {
        let t = &mut *self.table;
        t.dense_limit = t.dense_limit.max(DENSE_FLOOR).max(nodes.saturating_mul(4));
    }

    /// Interns a document for this snapshot. Call once per document of the snapshot.
    pub fn document(&mut self, key: &DocumentKey) -> DocKey {
        let t = &mut *self.table;
        let id = match t.document_ids.get(key) {
            Some(&id) => id,
            None => {
                let id = match t.free.pop() {
                    // A slot of a gone document: nothing refers to it any more (its nodes were
                    // pruned, its key unmatched, and `unkeyed` holds this snapshot's only).
                    Some(id) => {
                        let i = id.0 as usize;
                        t.documents[i] = key.clone();
                        t.document_first[i] = t.snapshot;
                        t.nodes[i] = DocumentNodes::default();
                        id
                    }
                    None => {
                        let id = DocKey(t.documents.len() as u32);
                        t.documents.push(key.clone());
                        t.document_seen.push(0);
                        t.document_first.push(t.snapshot);
                        t.nodes.push(DocumentNodes::default());
                        id
                    }
                };
                t.document_ids.insert(key.clone(), id);
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
        let t = &mut *self.table;
        let dense_limit = t.dense_limit.max(DENSE_FLOOR);
        let Some(nodes) = t.nodes.get_mut(doc.0 as usize) else {
            // A key from another table: nothing to remember it by.
            return (t.mint(), false);
        };
        let (uid, minted) = match nodes.get_mut(backend) {
            Some(entry) => {
                entry.last_seen = current;
                (entry.uid, false)
            }
            None => {
                let slot = &mut t.minted[(t.snapshot - 1) as usize];
                let uid = Uid {
                    snapshot: current,
                    n: *slot,
                };
                *slot += 1;
                nodes.insert(
                    backend,
                    Entry {
                        uid,
                        last_seen: current,
                    },
                    dense_limit,
                );
                t.node_count += 1;
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
        let mut count = 0;
        for nodes in &mut t.nodes {
            let left = nodes.retain_seen(current);
            if left == 0 {
                // Nothing left (typically a document this snapshot did not show): free it.
                *nodes = DocumentNodes::default();
            }
            count += left;
        }
        t.node_count = count;
        // Stop matching a document that has gone, so that it gets new uids should it ever come
        // back, and give its slot to the next new document.
        let seen = &t.document_seen;
        t.document_ids
            .retain(|_, id| seen[id.0 as usize] == current);
        for (i, seen) in t.document_seen.iter_mut().enumerate() {
            if *seen != 0 && *seen != current {
                *seen = 0;
                t.documents[i] = DocumentKey::default();
                t.free.push(DocKey(i as u32));
            }
        }
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

    /// What resolving `uid` in `t` gives, reduced to its error code.
    fn resolved(t: &UidTable, uid: &str) -> Result<(), ErrorCode> {
        t.resolve(uid).map(|_| ()).map_err(|e| e.code())
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
    fn a_page_that_loads_a_thousand_documents_keeps_the_table_bounded() {
        let mut t = UidTable::new();
        let mut previous: Option<String> = None;
        for n in 0..1000 {
            // The page's document, and a frame that comes and goes with a new document each time.
            let mut s = t.begin();
            let page = s.document(&doc(&format!("L{n}")));
            let (uid, _) = s.node(page, Some(5));
            if n % 2 == 0 {
                let frame = s.document(&DocumentKey {
                    target: "T".into(),
                    frame_id: "child".into(),
                    loader_id: format!("C{n}"),
                });
                s.node(frame, Some(5));
            }
            s.finish();
            if let Some(old) = &previous {
                // The node of the document before is stale, and never taken for the new one.
                assert_eq!(resolved(&t, old), Err(ErrorCode::StaleUid), "{n}");
            }
            let resolved_now = t
                .resolve(&uid.to_string())
                .expect("the newest uid resolves");
            assert_eq!(resolved_now.document.loader_id, format!("L{n}"));
            previous = Some(uid.to_string());
        }
        assert!(t.documents() <= 3, "{} document slots", t.documents());
        assert!(t.len() <= 2, "{} nodes", t.len());
    }

    /// A page that lives long and keeps making nodes (a feed: rows added and the oldest removed
    /// at every snapshot, Chromium numbering each new node past the last) takes memory for the
    /// nodes it holds, not for every number it ever used; and its nodes keep their uids.
    #[test]
    fn a_feed_that_keeps_making_nodes_keeps_the_table_small() {
        let mut t = UidTable::new();
        // Forty nodes that stay (the page's frame), then the rows.
        let mut ids: Vec<i64> = (1..=200).collect();
        let mut first_uid = None;
        for _ in 0..5000 {
            let mut s = t.begin();
            s.reserve(ids.len());
            let page = s.document(&doc("L1"));
            let mut uids = ids.iter().map(|&id| s.node(page, Some(id)).0);
            let kept = uids.next();
            uids.for_each(drop);
            s.finish();
            assert_eq!(
                *first_uid.get_or_insert(kept),
                kept,
                "a node that stays keeps its uid"
            );
            let next = ids.last().copied().unwrap_or(0) + 1;
            ids.drain(40..80);
            ids.extend(next..next + 40);
        }
        assert!(
            ids.last().copied().unwrap_or(0) > 150_000,
            "the ids climbed"
        );
        assert_eq!(t.len(), 200);
        let slots: usize = t.nodes.iter().map(|d| d.dense.len() + d.sparse.len()).sum();
        assert!(slots <= DENSE_FLOOR + 200, "{slots} slots for 200 nodes");
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
        let err = resolved(&t, &first[0].0.to_string());
        assert_eq!(err, Err(ErrorCode::StaleUid));
        let ok = t.resolve(&after_reload[1].0.to_string());
        assert_eq!(ok.map(|r| r.backend_node_id).ok(), Some(Some(11)));
    }

    #[test]
    fn resolve_distinguishes_no_snapshot_unknown_and_stale() {
        let mut t = UidTable::new();
        assert_eq!(resolved(&t, "1_0"), Err(ErrorCode::NoSnapshot));
        let first = snap(&mut t, "L1", &[1, 2, 3]);
        snap(&mut t, "L1", &[1, 3]);
        assert_eq!(
            resolved(&t, &first[1].0.to_string()),
            Err(ErrorCode::StaleUid)
        );
        assert_eq!(
            resolved(&t, "1_3"),
            Err(ErrorCode::UnknownUid),
            "snapshot 1 minted 3 uids"
        );
        assert_eq!(resolved(&t, "7_0"), Err(ErrorCode::UnknownUid));
        assert_eq!(resolved(&t, "nonsense"), Err(ErrorCode::UnknownUid));
        assert_eq!(resolved(&t, &first[2].0.to_string()), Ok(()));
    }

    #[test]
    fn a_returning_node_never_gets_its_old_uid_back() {
        let mut t = UidTable::new();
        let first = snap(&mut t, "L1", &[1, 2]);
        snap(&mut t, "L1", &[1]);
        let third = snap(&mut t, "L1", &[1, 2]);
        assert_ne!(third[1].0, first[1].0);
        assert_eq!(
            resolved(&t, &first[1].0.to_string()),
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
    fn sparse_and_negative_ids_keep_their_uids() {
        let mut t = UidTable::new();
        let ids = [3, i64::MAX, -7, 1 << 40, 100_000, 0];
        let first = snap(&mut t, "L1", &ids);
        assert_eq!(t.len(), ids.len());
        let second = snap(&mut t, "L1", &ids);
        assert_eq!(
            first,
            second.iter().map(|&(u, _)| (u, false)).collect::<Vec<_>>()
        );
        for (&(uid, _), &id) in first.iter().zip(&ids) {
            assert_eq!(
                t.resolve(&uid.to_string()).map(|r| r.backend_node_id).ok(),
                Some(Some(id))
            );
        }
        snap(&mut t, "L1", &[3, -7]);
        assert_eq!(t.len(), 2);
        assert_eq!(
            resolved(&t, &first[1].0.to_string()),
            Err(ErrorCode::StaleUid)
        );
    }

    #[test]
    fn an_id_keeps_its_uid_when_a_larger_page_widens_the_array() {
        let mut t = UidTable::new();
        // Beyond the array of a small page: kept aside.
        let first = snap(&mut t, "L1", &[5, 100_000]);
        let mut s = t.begin();
        s.reserve(1_000_000);
        let d = s.document(&doc("L1"));
        let wide = s.node(d, Some(200_000));
        let kept = s.node(d, Some(100_000));
        let small = s.node(d, Some(5));
        s.finish();
        assert!(wide.1, "a node seen for the first time is new");
        assert_eq!(kept, (first[1].0, false));
        assert_eq!(small, (first[0].0, false));
        assert_eq!(t.len(), 3);
        let again = snap(&mut t, "L1", &[100_000, 200_000]);
        assert_eq!(again[0].0, first[1].0);
        assert_eq!(again[1].0, wide.0);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn forgotten_nodes_are_stale_dense_or_sparse() {
        let mut t = UidTable::new();
        let first = snap(&mut t, "L1", &[4, 1 << 50]);
        t.forget(first[0].0);
        t.forget(first[1].0);
        assert!(t.is_empty());
        for (uid, _) in &first {
            assert_eq!(resolved(&t, &uid.to_string()), Err(ErrorCode::StaleUid));
        }
        let second = snap(&mut t, "L1", &[4, 1 << 50]);
        assert_ne!(second[0].0, first[0].0);
        assert!(
            second[0].1 && second[1].1,
            "forgotten nodes come back as new"
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

    /// A table is settled once a snapshot minted no uid for a node it can key (nodes with no
    /// key get fresh ones every time and do not count), and stays so until anything changes it.
    #[test]
    fn a_table_is_settled_once_a_snapshot_mints_nothing_and_until_it_changes() {
        let mut t = UidTable::new();
        assert_eq!(t.settled(), None, "no snapshot yet");
        let keyed_and_not = |t: &mut UidTable, ids: &[i64]| {
            let mut s = t.begin();
            let d = s.document(&doc("L1"));
            for &b in ids {
                s.node(d, Some(b));
            }
            s.node(d, None);
            s.finish();
        };
        keyed_and_not(&mut t, &[1, 2, 3]);
        assert_eq!(t.settled(), None, "the first snapshot minted every uid");
        keyed_and_not(&mut t, &[1, 2, 3]);
        let mark = t.settled().expect("nothing keyed was minted");
        assert!(t.still(mark));
        let uid = t.resolve("1_0").expect("issued").uid;
        t.forget(uid);
        assert!(!t.still(mark), "a uid forgotten changes the table");
        keyed_and_not(&mut t, &[1, 2, 3]);
        assert_eq!(
            t.settled(),
            None,
            "the forgotten node came back with a new uid"
        );
        keyed_and_not(&mut t, &[1, 2, 3]);
        let mark = t.settled().expect("settled again");
        snap(&mut t, "L1", &[1, 2, 3, 4]);
        assert!(!t.still(mark), "a snapshot's pass changes the table");
        assert_eq!(t.settled(), None, "node 4 is new");
    }
}
