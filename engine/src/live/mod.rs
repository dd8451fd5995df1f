//! Live snapshots: what to ask Chromium for, given the model and the analysis of what came
//! before.
//!
//! Why a layer of its own, above the analysis: a live snapshot cannot ask for everything (the
//! full accessibility tree and every box's rectangles cost Chromium the most), so what it asks
//! for depends on the model of the DOM it just read and on the view's geometry and visibility
//! (`scope.rs`, [`box_rects`]); the page keeps the model of its last state for the next snapshot
//! (`kept_model.rs`); and the analysis' unsure hit tests are settled by Chromium's own
//! (`confirm.rs`). What it reads is the pure capture of `crate::capture`, which the model and the
//! analysis read in turn; so this layer sits on top of them, and nothing below it knows of it.

mod agreement;
pub mod box_rects;
mod capture;
mod captured;
mod confirm;
pub(crate) mod kept_model;
mod scope;

pub use agreement::{agreeing_nodes, Agreement};
pub use capture::{capture_everything, capture_for_view, capture_for_view_fetching, mixes_states};
pub use captured::Captured;
pub(crate) use captured::Inputs;
pub use confirm::{confirm_hits, Confirmation};
pub(crate) use confirm::{hit_test_at, prepare_hit_test};
pub use scope::{ax_fetch_set, ax_subtree_fetch_set, AxFetch};

/// What a page's snapshots keep for the next one: handles to the boxes they measure
/// ([`box_rects::KeptBoxes`]) and the model of the page's last state (`kept_model.rs`). One per
/// page, kept with it by whoever takes its snapshots; cheap to clone (clones share what is kept).
#[derive(Debug, Clone, Default)]
pub struct Kept {
    pub(crate) boxes: box_rects::KeptBoxes,
    pub(crate) model: kept_model::KeptModel,
}

impl Kept {
    /// How many of the page's snapshots found the page unchanged since the one before and used
    /// the model of the DOM built then instead of reading Chromium's reply again (see
    /// `kept_model.rs`). A figure for tests and benchmarks.
    pub fn reused_snapshots(&self) -> u64 {
        self.model.reused()
    }

    /// How many of the full accessibility trees asked for the page's snapshots came back the
    /// same as the last one read for their frame and were copied from it instead of read again
    /// (see `kept_model.rs`). A figure for tests and benchmarks.
    pub fn reused_trees(&self) -> u64 {
        self.model.trees().reused()
    }
}
