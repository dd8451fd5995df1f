//! Identity: short uids that stay the same for the same node across snapshots of a page.
//!
//! [`UidTable`] is the pure per-page table (see `uid_table.rs` for the rules); [`assign_uids`]
//! walks one snapshot's model through it and returns a [`UidAssignment`] — the uid of every DOM
//! and AX node of that snapshot — which the renderers read.

mod assign;
#[cfg(test)]
pub(crate) mod testutil;
mod uid_table;

pub use assign::{assign_uids, UidAssignment};
pub use uid_table::{DocKey, DocumentKey, ResolvedUid, SnapshotUids, TableMark, Uid, UidTable};

use crate::model::{AxId, NodeId};

/// The uids of one snapshot, as the renderers need them. Implemented by the per-snapshot
/// assignment ([`UidAssignment`]); tests use small stand-ins.
pub trait UidSource {
    /// Uid of a DOM node (elements and documents).
    fn dom(&self, node: NodeId) -> Option<Uid>;
    /// Uid of an AX node (its DOM node's uid if it has one, else its own).
    fn ax(&self, ax: AxId) -> Option<Uid>;
    /// Minted in this snapshot, and not the first snapshot of this page.
    fn is_new(&self, uid: Uid) -> bool;
    /// The snapshot number.
    fn snapshot(&self) -> u32;
}
