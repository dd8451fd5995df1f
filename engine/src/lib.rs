//! pagesight: eyes and hands for LLM browser agents on a live Chromium page, over raw CDP.
//!
//! The modules follow the data flow of DESIGN.md, one job each:
//! `transport` (the only I/O) -> `capture` -> `model` -> `analysis` -> `identity` -> `render`,
//! with `browser` launching or connecting to Chromium and managing pages.

pub mod error;

pub use error::{Error, ErrorCode, Result};
pub use pagesight_cdp as cdp;
