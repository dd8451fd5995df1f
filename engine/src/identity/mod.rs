//! Identity: short uids that stay the same for the same node across snapshots of a page.
//!
//! [`UidTable`] is the pure per-page table (see `uid_table.rs` for the rules); [`assign_uids`]
//! walks one snapshot's model through it and returns a [`UidAssignment`] — the uid of every DOM
//! and AX node of that snapshot — which the renderers read.

mod assign;
mod uid_table;

pub use assign::{assign_uids, UidAssignment};
pub use uid_table::{DocKey, DocumentKey, ResolvedUid, SnapshotUids, TableMark, Uid, UidTable};
