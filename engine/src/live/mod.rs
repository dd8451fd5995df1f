//! Live snapshots: what to ask Chromium for, given the model and the analysis of what came
//! before.
//!
//! Why a layer of its own, above the analysis: a live snapshot cannot ask for everything (the
//! full accessibility tree and every box's rectangles cost Chromium the most), so what it asks
//! for depends on the model of the DOM it just read and on the view's geometry and visibility
//! ([`scope`], [`box_rects`]); the page keeps the model of its last state for the next snapshot
//! ([`kept_model`]); and the analysis' unsure hit tests are settled by Chromium's own
//! ([`confirm`]). What it reads is the pure capture of `crate::capture`, which the model and the
//! analysis read in turn; so this layer sits on top of them, and nothing below it knows of it.

pub mod box_rects;
mod capture;
mod captured;
mod confirm;
pub(crate) mod kept_model;
mod scope;

pub use capture::{capture_page, capture_page_for, capture_page_with, mixes_states};
pub use captured::Captured;
pub(crate) use captured::Inputs;
pub use confirm::{confirm_hits, Confirmation};
pub(crate) use confirm::{hit_test_at, prepare_hit_test};
pub use scope::{ax_fetch_set, AxFetch};
