//! `pagesight._native`: the native half of the Python package, an adapter over the engine's one
//! typed command API (`Session::execute`); the package's Python modules give it its typed,
//! documented surface.
//!
//! What every call promises:
//! - Calls that reach a browser return an asyncio awaitable: the engine runs on a tokio runtime
//!   this module owns (its own two threads, started on import), never on the event loop's
//!   thread, and without the GIL. The awaitable is completed from the runtime through
//!   `loop.call_soon_threadsafe`; cancelling it drops the engine's future, which lets go of the
//!   page (its session stays whole: a reply that comes later is discarded by the transport).
//! - An engine failure raises `EngineError(code, message, retryable)`, which the package turns
//!   into the exception class of its code (`pagesight.StaleUidError`, …). A panic becomes a
//!   Python exception too (PyO3's, or the runtime bridge's `RustPanic`), never an abort.
//! - `render_capture` needs no browser and no event loop; it releases the GIL while it works.
//! - `Crawl` drives the crawl crate (`pagesight crawl`'s engine): its records come out one by
//!   one as awaitables of the same kind.

mod browser;
mod convert;
mod crawl;
mod page;
mod settle;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use pagesight::command::Command;
use pagesight::identity::UidTable;
use pagesight::render::Format;
use pagesight::snapshot::{process, render_capture as render, render_snapshot, SnapshotOptions};
use pagesight::{Capture, ErrorCode};

use crate::convert::from_python;

create_exception!(
    _native,
    EngineError,
    PyException,
    "A failure of the engine: args are (code, message, retryable)."
);

/// The Python exception of an engine error, made without the GIL (its arguments are turned into
/// Python objects only when it is raised).
pub(crate) fn engine_error(e: pagesight::Error) -> PyErr {
    EngineError::new_err((e.code().as_str(), e.message().to_owned(), e.retryable()))
}

/// The options of the `snapshot` command read from a Python dict of its fields, by the engine's
/// parser (so a bad field is named as the protocol names it).
pub(crate) fn snapshot_options(options: Option<&Bound<'_, PyAny>>) -> PyResult<SnapshotOptions> {
    let mut fields = match options {
        Some(options) => from_python(options)?,
        None => serde_json::Value::Object(Default::default()),
    };
    let Some(map) = fields.as_object_mut() else {
        return Err(engine_error(pagesight::Error::invalid_argument(
            "the snapshot options are a dict of the snapshot command's fields",
        )));
    };
    map.insert("cmd".into(), "snapshot".into());
    match Command::from_json(&fields).map_err(engine_error)? {
        Command::Snapshot(options) => Ok(options),
        _ => Err(engine_error(pagesight::Error::protocol(
            "the snapshot options were read as another command",
        ))),
    }
}

/// The same options for the JSON document of the same view: a budget applies to text only.
pub(crate) fn tree_options(options: &SnapshotOptions) -> SnapshotOptions {
    SnapshotOptions {
        format: Format::Json,
        max_chars: None,
        ..options.clone()
    }
}

/// Renders a saved capture (the bytes of the file `pagesight capture` writes, gzip'd or plain
/// JSON) offline, with a fresh uid table, as the `snapshot` command's `options` ask. Returns
/// the output (text, or the JSON document as text) and, with `tree`, the JSON document of the
/// same snapshot as text. The GIL is released while it renders.
#[pyfunction]
#[pyo3(signature = (capture, options=None, tree=false))]
fn render_capture(
    py: Python<'_>,
    capture: &Bound<'_, PyBytes>,
    options: Option<&Bound<'_, PyAny>>,
    tree: bool,
) -> PyResult<(String, Option<String>)> {
    let options = snapshot_options(options)?;
    let bytes = capture.as_bytes();
    let rendered = py.detach(|| -> pagesight::Result<(String, Option<String>)> {
        if !tree || options.format == Format::Json {
            return Ok((render(bytes, &options)?, None));
        }
        // The text and the tree from one pass of the pipeline, so they name the same uids.
        let capture = Capture::from_bytes(bytes)?;
        let target = capture.target_id.clone().unwrap_or_default();
        let mut table = UidTable::new();
        let snapshot = process(capture, &mut table, &target, &options)?;
        snapshot
            .shown
            .check(options.uid.as_deref(), options.mode, options.max_chars)?;
        let tree = render_snapshot(&snapshot, &tree_options(&options));
        Ok((snapshot.into_output(), Some(tree)))
    });
    rendered.map_err(engine_error)
}

/// Every error code of the engine with whether it is retryable, for the package's exception
/// classes (a test checks each has its own).
#[pyfunction]
fn error_codes() -> Vec<(&'static str, bool)> {
    ErrorCode::ALL
        .iter()
        .map(|code| (code.as_str(), code.retryable()))
        .collect()
}

#[pymodule]
#[pyo3(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    browser::init_runtime();
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(render_capture, m)?)?;
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(browser::launch, m)?)?;
    m.add_function(wrap_pyfunction!(browser::connect, m)?)?;
    m.add_class::<browser::NativeBrowser>()?;
    m.add_class::<page::NativePage>()?;
    m.add_class::<crawl::NativeCrawl>()?;
    m.add_function(wrap_pyfunction!(settle::_settle, m)?)?;
    // Before the interpreter finalizes, the awaitables' hand-overs to the event loop are let
    // finish (settle.rs).
    let settle = m.getattr("_settle")?;
    m.py()
        .import("atexit")?
        .call_method1("register", (settle,))?;
    Ok(())
}
