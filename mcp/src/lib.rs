//! pagesight as an MCP server: the tools of chrome-devtools-mcp 1.11, same names and
//! arguments, over the pagesight engine, so an agent host can swap one for the other.
//!
//! Every tool is a thin adapter over a typed command of [`pagesight::Session`]: it reads its
//! arguments, calls the engine, and answers with a short text for the model and the engine's
//! typed result as structured content. Errors are tool errors carrying the engine's message.
//!
//! ```no_run
//! # async fn run() -> Result<(), pagesight::Error> {
//! let options = pagesight_mcp::BrowserOptions::default();
//! pagesight_mcp::serve_stdio(&options).await
//! # }
//! ```

mod answer;
mod args;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod options;
mod schema;
mod server;
mod transport;

pub use options::{parse_viewport, BrowserOptions};
pub use server::PagesightServer;
pub use transport::{serve_http, serve_stdio};
