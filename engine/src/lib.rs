//! pagesight: eyes and hands for LLM browser agents on a live Chromium page, over raw CDP.
//!
//! The modules follow the data flow of DESIGN.md, one job each:
//! `transport` (the only I/O) -> `capture` -> `model` -> `analysis` -> `identity` -> `render`,
//! with `browser` launching or connecting to Chromium and managing pages.

pub mod error;
pub mod transport;
pub mod browser;
pub mod doctor;
pub mod identity;
pub mod capture;
pub mod model;
pub mod analysis;
pub mod render;
pub mod snapshot;
pub mod session;

pub use error::{Error, ErrorCode, Result};
pub use pagesight_cdp as cdp;
