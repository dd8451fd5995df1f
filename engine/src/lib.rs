//! pagesight: eyes and hands for LLM browser agents on a live Chromium page, over the raw
//! Chrome DevTools Protocol.
//!
//! A [`Session`] owns a browser and its pages. A snapshot is a compact text (or JSON) of what a
//! person sees on the page, every element named by a short uid (`uid=1_24 textbox "Full name"`)
//! that stays the same across snapshots; actions take those uids and act with trusted input,
//! the way a person would — or say precisely why not (`OCCLUDED` naming what covers the
//! element, `STALE_UID` when it is gone).
//!
//! # Quickstart
//!
//! ```no_run
//! use pagesight::command::Click;
//! use pagesight::{Session, SessionOptions, SnapshotOptions};
//!
//! # async fn run() -> pagesight::Result<()> {
//! let mut session = Session::start(SessionOptions::default()).await?; // a headless Chromium
//! session.open("https://example.com").await?;
//! let snapshot = session.snapshot(&SnapshotOptions::default()).await?;
//! println!("{}", snapshot.text); // uid=1_1 RootWebArea "Example Domain" …
//! let clicked = session
//!     .click(&Click { uid: "1_5".into(), button: Default::default(), count: 1, then: Default::default() })
//!     .await?;
//! println!("clicked at {:?}", clicked.at);
//! session.shutdown().await?; // closes the browser and removes its profile
//! # Ok(())
//! # }
//! ```
//!
//! Every front end (the `pagesight run` JSON lines, the C library, MCP) speaks the same
//! [`Command`]s and gets the same [`Response`]s: [`Session::execute`] takes a typed command,
//! [`Session::execute_json`] and [`Command::from_json`] the wire form. The protocol is
//! `docs/protocol.md` (and `docs/protocol.schema.json`); how the engine is built,
//! `docs/architecture.md`. [`render_capture`] renders a saved capture without a browser.
//!
//! The stages follow the data flow, one job each: the transport (the only I/O) → the browser
//! and its pages → capture → model → analysis → identity (uids) → render, with `live` (what a
//! live snapshot asks Chromium for, given what came before) above them and the session and
//! the actions on top. Those modules are public for the benchmarks and tools of this project
//! but hidden from these docs: they are not a stable API.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod act;
#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod browser;
#[doc(hidden)]
pub mod capture;
pub mod command;
pub mod devtools;
pub mod doctor;
mod error;
pub mod extract;
pub mod files;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
#[doc(hidden)]
pub mod identity;
pub mod line_reader;
pub mod live;
mod memory;
#[doc(hidden)]
pub mod model;
mod parallel;
#[doc(hidden)]
pub mod render;
pub mod response;
#[doc(hidden)]
pub mod screenshot;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod snapshot;
mod summary;
mod task;
#[doc(hidden)]
pub mod transport;

pub use browser::{Browser, LaunchOptions, Page, Viewport, WaitUntil};
pub use capture::Capture;
pub use command::Command;
pub use error::{Error, ErrorCode, Result};
pub use files::AllowedFolders;
pub use render::{Format, Mode};
pub use response::Response;
pub use session::{Session, SessionOptions};
pub use snapshot::{render_capture, Snapshot, SnapshotOptions};

#[doc(hidden)]
pub use memory::keep_freed_memory;
#[doc(hidden)]
pub use pagesight_cdp as cdp;
#[doc(hidden)]
pub use task::block_on_task;
