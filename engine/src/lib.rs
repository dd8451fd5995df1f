//! pagesight: eyes and hands for LLM browser agents on a live Chromium page, over raw CDP.
//!
//! The modules follow the data flow of DESIGN.md, one job each:
//! `transport` (the only I/O) -> `capture` -> `model` -> `analysis` -> `identity` -> `render`,
//! with `browser` launching or connecting to Chromium and managing pages, and `live` choosing
//! what a live snapshot asks Chromium for.

pub mod act;
pub mod analysis;
pub mod browser;
pub mod capture;
mod command;
pub mod doctor;
pub mod error;
pub mod identity;
pub mod live;
mod memory;
pub mod model;
mod parallel;
pub mod render;
pub mod session;
pub mod snapshot;
mod task;
pub mod transport;

pub use error::{Error, ErrorCode, Result};
pub use memory::keep_freed_memory;
pub use pagesight_cdp as cdp;
pub use task::block_on_task;
