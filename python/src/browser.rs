//! The browser: launched (driven over a pipe, no TCP port unless asked for) or connected to, and
//! the pages opened in it, each an engine `Session` of its own attached to a new tab, sharing
//! the browser's connection — so that two pages run their commands at the same time, as the C
//! library's pages do (`capi/src/page.rs`).

use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tokio::sync::Mutex;

use pagesight::browser::{Browser, LaunchOptions, LaunchTransport, Viewport};
use pagesight::session::{normalize_url, open_in_new_tab, Session, SessionOptions};
use pagesight::transport::Connection;
use pagesight::{AllowedFolders, Error};

use crate::engine_error;
use crate::page::NativePage;
use crate::settle::awaitable;

/// How long closing the browser waits for Chromium before its process group is killed.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// Makes the runtime the awaitables run on: two threads named `pagesight`, started on first use.
pub(crate) fn init_runtime() {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .worker_threads(2)
        .thread_name("pagesight")
        .enable_all();
    pyo3_async_runtimes::tokio::init(builder);
}

/// Runs `f` inside the runtime, for drops that end a browser's process or connection (they
/// need a runtime's context), e.g. when Python collects a browser that was never closed.
pub(crate) fn in_runtime<T>(f: impl FnOnce() -> T) -> T {
    let _entered = pyo3_async_runtimes::tokio::get_runtime().enter();
    f()
}

/// What a browser and the pages opened from it share.
struct BrowserState {
    /// `None` once closed.
    browser: Mutex<Option<Browser>>,
    /// The DevTools WebSocket: a connected browser's, or a launched one's with `debugging_port`.
    endpoint: Option<String>,
    pid: Option<u32>,
    /// What each page's session starts with (viewport, load timeout, folders, evaluate…).
    start: SessionOptions,
}

impl Drop for BrowserState {
    fn drop(&mut self) {
        if let Some(browser) = self.browser.get_mut().take() {
            // Never closed by the caller: dropping it kills a launched browser's process group
            // and removes its profile, or disconnects.
            in_runtime(|| drop(browser));
        }
    }
}

/// A launched or connected Chromium. Made by `launch` and `connect`; `close()` ends it.
#[pyclass(module = "pagesight._native", name = "Browser", frozen)]
pub struct NativeBrowser {
    state: Arc<BrowserState>,
}

/// Launches a headless Chromium (found through `executable`, the `CHROME` variable or `PATH`)
/// with a fresh temporary profile, removed when it closes. Times are in seconds.
#[pyfunction]
#[pyo3(signature = (
    *,
    executable=None,
    width=1280,
    height=800,
    device_scale_factor=1.0,
    load_timeout=None,
    launch_timeout=None,
    debugging_port=false,
    allow_dirs=Vec::new(),
    allow_evaluate=false,
    collect_devtools=false,
    args=Vec::new(),
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch(
    py: Python<'_>,
    executable: Option<String>,
    width: u32,
    height: u32,
    device_scale_factor: f64,
    load_timeout: Option<f64>,
    launch_timeout: Option<f64>,
    debugging_port: bool,
    allow_dirs: Vec<String>,
    allow_evaluate: bool,
    collect_devtools: bool,
    args: Vec<String>,
) -> PyResult<Bound<'_, PyAny>> {
    if width == 0 || height == 0 || !device_scale_factor.is_finite() || device_scale_factor <= 0.0 {
        return Err(PyValueError::new_err(
            "the viewport needs a positive width, height and device_scale_factor",
        ));
    }
    let viewport = Viewport {
        width,
        height,
        device_scale_factor,
    };
    let mut options = LaunchOptions {
        executable: executable.map(Into::into),
        transport: match debugging_port {
            true => LaunchTransport::PipeAndWebSocket,
            false => LaunchTransport::Pipe,
        },
        viewport,
        args,
        ..LaunchOptions::default()
    };
    if let Some(seconds) = launch_timeout {
        options.launch_timeout = seconds_to_duration(seconds, "launch_timeout")?;
    }
    let start = SessionOptions {
        viewport,
        load_timeout: load_timeout
            .map(|s| seconds_to_duration(s, "load_timeout"))
            .transpose()?,
        collect_devtools,
        allow_evaluate,
        files: AllowedFolders::with_defaults(&allow_dirs).map_err(engine_error)?,
        ..SessionOptions::default()
    };
    awaitable(py, async move {
        let browser = Browser::launch(options).await.map_err(engine_error)?;
        let endpoint = browser.websocket_url().map(str::to_owned);
        if debugging_port && endpoint.is_none() {
            in_runtime(|| drop(browser));
            return Err(engine_error(Error::protocol(
                "the browser was asked for a DevTools port but gave no WebSocket address",
            )));
        }
        Ok(NativeBrowser::new(browser, endpoint, start))
    })
}

/// Connects to a running browser (`ws://host:port/devtools/browser/<id>`, or `http://host:port`,
/// whose `/json/version` names the WebSocket). Closing it only disconnects.
#[pyfunction]
#[pyo3(signature = (endpoint, *, load_timeout=None, allow_evaluate=false, collect_devtools=false))]
pub(crate) fn connect(
    py: Python<'_>,
    endpoint: String,
    load_timeout: Option<f64>,
    allow_evaluate: bool,
    collect_devtools: bool,
) -> PyResult<Bound<'_, PyAny>> {
    let start = SessionOptions {
        load_timeout: load_timeout
            .map(|s| seconds_to_duration(s, "load_timeout"))
            .transpose()?,
        collect_devtools,
        allow_evaluate,
        ..SessionOptions::default()
    };
    awaitable(py, async move {
        let browser = Browser::connect(&endpoint).await.map_err(engine_error)?;
        let endpoint = browser
            .websocket_url()
            .map(str::to_owned)
            .unwrap_or(endpoint);
        Ok(NativeBrowser::new(browser, Some(endpoint), start))
    })
}

fn seconds_to_duration(seconds: f64, name: &str) -> PyResult<Duration> {
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} is a number of seconds, at least 0, not {seconds}"
        ))
    })
}

impl NativeBrowser {
    fn new(browser: Browser, endpoint: Option<String>, start: SessionOptions) -> Self {
        NativeBrowser {
            state: Arc::new(BrowserState {
                pid: browser.pid(),
                browser: Mutex::new(Some(browser)),
                endpoint,
                start,
            }),
        }
    }
}

#[pymethods]
impl NativeBrowser {
    /// Opens a new tab, loads `url` in it (a URL or the path of a local file) and waits for its
    /// `load`; the tab is closed again if that fails.
    fn open<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        let state = Arc::clone(&self.state);
        awaitable(py, async move {
            let url = normalize_url(&url).map_err(engine_error)?;
            let (connection, shared) = {
                let browser = state.browser.lock().await;
                let browser = browser
                    .as_ref()
                    .ok_or_else(|| engine_error(Error::browser_closed()))?;
                (browser.connection().clone(), browser.share())
            };
            let session = open_tab(connection, shared, state.start.clone(), url)
                .await
                .map_err(engine_error)?;
            Ok(NativePage::new(session))
        })
    }

    /// Closes a launched browser (asked, then killed after 10 s; its profile removed) or
    /// disconnects from a connected one. Pages opened from it answer `BROWSER_CLOSED` after.
    /// Closing twice does nothing.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = Arc::clone(&self.state);
        awaitable(py, async move {
            let browser = state.browser.lock().await.take();
            if let Some(browser) = browser {
                // On time-out the future, and the browser with it, is dropped: that kills a
                // launched browser's process group and removes its profile.
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, browser.close()).await;
            }
            Ok(())
        })
    }

    /// The process id of a launched browser; `None` for a connected one.
    #[getter]
    fn pid(&self) -> Option<u32> {
        self.state.pid
    }

    /// The DevTools WebSocket address: a connected browser's, or a launched one's when launched
    /// with `debugging_port=True`; `None` otherwise (it listens on no port).
    #[getter]
    fn endpoint(&self) -> Option<String> {
        self.state.endpoint.clone()
    }
}

/// Opens `url` in a tab of its own with a session on `browser` (see `open_in_new_tab`).
async fn open_tab(
    connection: Connection,
    browser: Browser,
    start: SessionOptions,
    url: String,
) -> pagesight::Result<Session> {
    open_in_new_tab(&connection, start, &url, async { Ok(browser) }).await
}
