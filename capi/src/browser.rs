//! The browser handle: a launched or connected Chromium plus the tokio runtime every call on it
//! and on its pages runs on.
//!
//! Each page is one engine `Session` (its own uid table and previous snapshot) attached to a tab
//! the browser handle created, so two threads can drive two pages at the same time.
//!
//! How pages reach the browser: a launched browser is driven over `--remote-debugging-pipe`, and
//! its pages share that one connection (`Browser::share`; each page is a flattened CDP session
//! on it, routed by `sessionId`). No TCP port is opened by default, because anyone on the
//! machine who can reach a DevTools port can drive the browser: its pages, cookies and files.
//! `"debuggingPort": true` asks for a WebSocket on a free localhost port as well, for
//! `pagesight_browser_endpoint` and other tools; the pages still use the pipe, which answers
//! faster (python's `stdtypes` snapshot was about 24 ms slower over the WebSocket). The pages of
//! a connected browser each connect to its WebSocket on their own, so that they outlive the
//! browser handle, which only disconnects.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::browser::{Browser, LaunchOptions, LaunchTransport, Viewport};
use engine::AllowedFolders;
use serde::Deserialize;
use tokio::runtime::Runtime;

use crate::ffi::{
    barrier, entry_with_out_error, lock, optional_str, required_str, write_out, write_string,
    ErrorSlot, Failure,
};
use crate::pagesight_result;

/// How long freeing a browser waits for Chromium to close before killing it outright.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the runtime's threads get to finish when the last handle goes.
const RUNTIME_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// A Chromium browser, launched by `pagesight_browser_launch` or connected to by
/// `pagesight_browser_connect`, with the threads that drive it.
///
/// Made by `pagesight_browser_launch` / `pagesight_browser_connect`; released by
/// `pagesight_browser_free`. Usable from any thread; calls on one browser handle from two
/// threads at once are serialised by a lock inside. Pages opened from it may outlive it.
#[allow(non_camel_case_types)]
pub struct pagesight_browser {
    pub(crate) shared: Arc<BrowserShared>,
    pub(crate) last_error: ErrorSlot,
}

/// What a browser handle and its pages share. Dropped (and the runtime stopped) when the
/// browser handle and every page are freed.
pub(crate) struct BrowserShared {
    runtime: Option<Runtime>,
    /// The browser; `None` once `pagesight_browser_free` closed it. Its lock also serialises
    /// calls on the browser handle.
    browser: Mutex<Option<Browser>>,
    freed: AtomicBool,
    /// The DevTools WebSocket: what the pages of a connected browser connect to, and what
    /// `pagesight_browser_endpoint` gives. `None` for a browser launched without
    /// `"debuggingPort": true`, which listens on no port.
    pub(crate) endpoint: Option<String>,
    pub(crate) viewport: Viewport,
    pub(crate) load_timeout: Option<Duration>,
    /// The folders the commands of its pages may read and write files in.
    pub(crate) files: AllowedFolders,
    pid: Option<u32>,
}

impl BrowserShared {
    pub(crate) fn runtime(&self) -> Result<&Runtime, Failure> {
        self.runtime.as_ref().ok_or_else(|| {
            Failure::new(
                pagesight_result::PAGESIGHT_BROWSER_CLOSED,
                "the browser's runtime is stopped; launch or connect again",
            )
        })
    }

    /// Whether `pagesight_browser_free` was called.
    pub(crate) fn is_freed(&self) -> bool {
        self.freed.load(Ordering::SeqCst)
    }

    /// Fails with `BROWSER_CLOSED` once the browser handle is freed.
    pub(crate) fn check_alive(&self) -> Result<(), Failure> {
        if self.is_freed() {
            return Err(Failure::new(
                pagesight_result::PAGESIGHT_BROWSER_CLOSED,
                "the browser of this page was freed (pagesight_browser_free); launch or connect \
                 to a browser again and open a new page",
            ));
        }
        Ok(())
    }

    /// How a new page's session reaches `browser`: over the launched browser's own pipe, or
    /// over a WebSocket of its own to the connected browser.
    pub(crate) fn page_route(&self, browser: &Browser) -> Result<PageRoute, Failure> {
        if self.pid.is_some() {
            return Ok(PageRoute::Shared(browser.share()));
        }
        match &self.endpoint {
            Some(endpoint) => Ok(PageRoute::Connect(endpoint.clone())),
            None => Err(Failure::new(
                pagesight_result::PAGESIGHT_PROTOCOL_ERROR,
                "the connected browser has no DevTools address to open a page over",
            )),
        }
    }

    /// Runs `f` with the browser, holding the browser handle's lock.
    pub(crate) fn with_browser<T>(
        &self,
        f: impl FnOnce(&Browser) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let browser = lock(&self.browser);
        self.check_alive()?;
        match browser.as_ref() {
            Some(browser) => f(browser),
            None => Err(Failure::new(
                pagesight_result::PAGESIGHT_BROWSER_CLOSED,
                "the browser was freed; launch or connect again",
            )),
        }
    }
}

impl Drop for BrowserShared {
    fn drop(&mut self) {
        let browser = lock(&self.browser).take();
        if let Some(runtime) = self.runtime.take() {
            if let Some(browser) = browser {
                // Only reached if the browser handle was never freed properly: drop the browser
                // inside the runtime (killing a launched one), then stop.
                let _enter = runtime.enter();
                drop(browser);
            }
            runtime.shutdown_timeout(RUNTIME_SHUTDOWN_TIMEOUT);
        }
    }
}

/// The connection a new page's session drives its tab over.
pub(crate) enum PageRoute {
    /// A handle on the launched browser's pipe (`Browser::share`): closing the page's session
    /// leaves the pipe and the browser open.
    Shared(Browser),
    /// The connected browser's DevTools WebSocket, to connect to anew.
    Connect(String),
}

/// The options JSON of `pagesight_browser_launch`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LaunchJson {
    executable: Option<String>,
    viewport: Option<ViewportJson>,
    load_timeout_ms: Option<u64>,
    launch_timeout_ms: Option<u64>,
    /// Also listen for DevTools on a free localhost port (`pagesight_browser_endpoint`).
    #[serde(default)]
    debugging_port: bool,
    #[serde(default)]
    allow_dirs: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ViewportJson {
    width: u32,
    height: u32,
    #[serde(default = "one")]
    device_scale_factor: f64,
}

fn one() -> f64 {
    1.0
}

fn new_runtime() -> Result<Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("pagesight")
        .enable_all()
        .build()
        .map_err(|e| {
            Failure::new(
                pagesight_result::PAGESIGHT_BROWSER_CLOSED,
                format!("could not start the library's threads: {e}"),
            )
        })
}

fn into_handle(shared: BrowserShared) -> *mut pagesight_browser {
    Box::into_raw(Box::new(pagesight_browser {
        shared: Arc::new(shared),
        last_error: ErrorSlot::new(),
    }))
}

/// Launches a headless Chromium (found through the `CHROME` environment variable or on `PATH`)
/// with a fresh temporary profile, and waits until it answers.
///
/// - `options_json`: NULL for the defaults, or a JSON object with any of
///   `"executable"` (path of the Chromium binary), `"viewport"`
///   (`{"width":1280,"height":800,"deviceScaleFactor":1}`, the size of pages opened from this
///   browser), `"loadTimeoutMs"` (how long opening a URL waits for `load`, default 30000),
///   `"launchTimeoutMs"` (default 30000), `"debuggingPort"` (default false; see below) and
///   `"allowDirs"` (a list of folders whose files the pages' commands may read and write,
///   besides the current directory and the temporary folder; `upload` and a screenshot's
///   `path` outside them are refused). Unknown fields are an error.
/// - `out`: on `PAGESIGHT_OK`, receives the browser, which the caller releases with
///   `pagesight_browser_free` (that closes Chromium and removes its profile).
/// - `out_error`: NULL, or where the message goes when the launch fails (e.g. no Chromium
///   found); the caller frees it with `pagesight_string_free`. Left untouched on success.
///
/// Chromium is driven over a pipe, which its pages share, and is killed if this process dies.
/// It opens no TCP port: nothing else on the machine can drive it. With `"debuggingPort": true`
/// it also listens for DevTools on a free port of 127.0.0.1, whose address
/// `pagesight_browser_endpoint` gives; any local user who finds that port can then drive the
/// browser, so ask for it only when another tool must attach.
///
/// # Safety
/// `options_json` is NULL or a NUL-terminated string; `out` and `out_error` are NULL or valid
/// for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_launch(
    options_json: *const c_char,
    out: *mut *mut pagesight_browser,
    out_error: *mut *mut c_char,
) -> pagesight_result {
    entry_with_out_error(out_error, || {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: the caller guarantees NULL or a NUL-terminated string for the call.
        let options = unsafe { optional_str(options_json, "options_json") }?;
        let options: LaunchJson = match options {
            None => LaunchJson::default(),
            Some(text) if text.trim().is_empty() => LaunchJson::default(),
            Some(text) => serde_json::from_str(text).map_err(|e| {
                Failure::invalid_argument(format!(
                    "options_json is not valid launch options ({e}); expected e.g. \
                     {{\"viewport\":{{\"width\":1280,\"height\":800}},\"loadTimeoutMs\":30000}}"
                ))
            })?,
        };
        let transport = if options.debugging_port {
            LaunchTransport::PipeAndWebSocket
        } else {
            LaunchTransport::Pipe
        };
        let files = AllowedFolders::with_defaults(&options.allow_dirs)?;
        let mut launch = LaunchOptions {
            transport,
            executable: options.executable.map(Into::into),
            ..LaunchOptions::default()
        };
        if let Some(v) = options.viewport {
            if v.width == 0
                || v.height == 0
                || !v.device_scale_factor.is_finite()
                || v.device_scale_factor <= 0.0
            {
                return Err(Failure::invalid_argument(
                    "the viewport needs a positive width, height and deviceScaleFactor",
                ));
            }
            launch.viewport = Viewport {
                width: v.width,
                height: v.height,
                device_scale_factor: v.device_scale_factor,
            };
        }
        if let Some(ms) = options.launch_timeout_ms {
            launch.launch_timeout = Duration::from_millis(ms);
        }
        let viewport = launch.viewport;
        let runtime = new_runtime()?;
        let browser = runtime.block_on(Browser::launch(launch));
        let browser = match browser {
            Ok(browser) => browser,
            Err(e) => {
                runtime.shutdown_timeout(RUNTIME_SHUTDOWN_TIMEOUT);
                return Err(e.into());
            }
        };
        let endpoint = browser.websocket_url().map(str::to_owned);
        if options.debugging_port && endpoint.is_none() {
            let _enter = runtime.enter();
            drop(browser);
            return Err(Failure::new(
                pagesight_result::PAGESIGHT_PROTOCOL_ERROR,
                "the browser was asked for a DevTools port but gave no WebSocket address",
            ));
        }
        let pid = browser.pid();
        let handle = into_handle(BrowserShared {
            runtime: Some(runtime),
            browser: Mutex::new(Some(browser)),
            freed: AtomicBool::new(false),
            endpoint,
            viewport,
            load_timeout: options.load_timeout_ms.map(Duration::from_millis),
            files,
            pid,
        });
        // SAFETY: `out` is not NULL and the caller guarantees it is writable.
        unsafe { write_out(out, handle) };
        Ok(())
    })
}

/// Connects to a running browser: `ws://host:port/devtools/browser/<id>`, or
/// `http://host:port` (its `/json/version` names the WebSocket). Such a browser is never
/// closed by this library; pages opened from it are closed when freed. Their commands may read
/// and write files in the current directory and the temporary folder only.
///
/// - `out`: on `PAGESIGHT_OK`, receives the browser, released with `pagesight_browser_free`
///   (which only disconnects).
/// - `out_error`: NULL, or where the message goes when the call fails; freed with
///   `pagesight_string_free`. Left untouched on success.
///
/// # Safety
/// `endpoint` is NULL or a NUL-terminated string; `out` and `out_error` are NULL or valid for
/// one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_connect(
    endpoint: *const c_char,
    out: *mut *mut pagesight_browser,
    out_error: *mut *mut c_char,
) -> pagesight_result {
    entry_with_out_error(out_error, || {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: the caller guarantees NULL or a NUL-terminated string for the call.
        let endpoint = unsafe { required_str(endpoint, "endpoint") }?;
        let runtime = new_runtime()?;
        let browser = match runtime.block_on(Browser::connect(endpoint)) {
            Ok(browser) => browser,
            Err(e) => {
                runtime.shutdown_timeout(RUNTIME_SHUTDOWN_TIMEOUT);
                return Err(e.into());
            }
        };
        let endpoint = browser
            .websocket_url()
            .map(str::to_owned)
            .unwrap_or_else(|| endpoint.to_owned());
        let handle = into_handle(BrowserShared {
            runtime: Some(runtime),
            browser: Mutex::new(Some(browser)),
            freed: AtomicBool::new(false),
            endpoint: Some(endpoint),
            viewport: Viewport::default(),
            load_timeout: None,
            files: AllowedFolders::default(),
            pid: None,
        });
        // SAFETY: `out` is not NULL and the caller guarantees it is writable.
        unsafe { write_out(out, handle) };
        Ok(())
    })
}

/// The process id of a launched browser (also its process group), e.g. to watch or limit it.
///
/// - `out_pid`: on `PAGESIGHT_OK`, receives the pid.
///
/// Fails with `PAGESIGHT_INVALID_ARGUMENT` for a connected browser (it is not ours).
///
/// # Safety
/// `browser` is NULL or a live handle; `out_pid` is NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_pid(
    browser: *const pagesight_browser,
    out_pid: *mut u32,
) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(browser) = (unsafe { browser.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    browser.last_error.run(|| {
        if out_pid.is_null() {
            return Err(Failure::null("out_pid"));
        }
        let pid = browser.shared.pid.ok_or_else(|| {
            Failure::invalid_argument(
                "this browser was connected to, not launched: it has no pid of ours",
            )
        })?;
        // SAFETY: `out_pid` is not NULL and the caller guarantees it is writable.
        unsafe { out_pid.write(pid) };
        Ok(())
    })
}

/// The DevTools WebSocket address of the browser (`ws://127.0.0.1:PORT/devtools/browser/…`),
/// e.g. to let another CDP client drive the same browser, or to connect a second
/// `pagesight_browser` to it.
///
/// - `out`: on `PAGESIGHT_OK`, receives the address, freed with `pagesight_string_free`.
///
/// A launched browser has one only when launched with `"debuggingPort": true`; without it the
/// call fails with `PAGESIGHT_INVALID_ARGUMENT` (the browser listens on no port). A connected
/// browser's is the one it was connected to.
///
/// # Safety
/// `browser` is NULL or a live handle; `out` is NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_endpoint(
    browser: *const pagesight_browser,
    out: *mut *mut c_char,
) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(browser) = (unsafe { browser.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    browser.last_error.run(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        let endpoint = browser.shared.endpoint.clone().ok_or_else(|| {
            Failure::invalid_argument(
                "this browser was launched without a DevTools port, so it has no WebSocket \
                 address: it is driven over a pipe only. Launch it with \
                 {\"debuggingPort\":true} in the options JSON of pagesight_browser_launch to \
                 have it listen on a free port of 127.0.0.1 (which any local user can then \
                 connect to)",
            )
        })?;
        // SAFETY: `out` is not NULL and the caller guarantees it is writable.
        unsafe { write_string(out, endpoint) };
        Ok(())
    })
}

/// The message of the last failed call on this browser handle (`pagesight_page_open`,
/// `pagesight_browser_pid`, `pagesight_browser_endpoint`), or `""` if the last call succeeded.
///
/// The string belongs to the handle: do not free it; it stays valid until the next call on the
/// same handle (or its free). Returns a static message for a NULL handle; never NULL.
///
/// # Safety
/// `browser` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_last_error(
    browser: *const pagesight_browser,
) -> *const c_char {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    match unsafe { browser.as_ref() } {
        Some(browser) => browser.last_error.as_ptr(),
        None => c"the browser handle is NULL".as_ptr(),
    }
}

/// Closes and releases the browser. A launched Chromium is asked to close, killed if it does
/// not within 10 s, and its temporary profile removed; a connected browser is disconnected from.
/// NULL is ignored.
///
/// Pages may be freed before or after: a page whose browser is freed answers
/// `PAGESIGHT_BROWSER_CLOSED`, and the library's threads stop when the last of the browser and
/// its pages is freed.
///
/// # Safety
/// `browser` is NULL or a handle from `pagesight_browser_launch`/`_connect` not freed yet, and
/// no other thread is using it. The pointer is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn pagesight_browser_free(browser: *mut pagesight_browser) {
    if browser.is_null() {
        return;
    }
    barrier(|| {
        // SAFETY: not NULL; the caller guarantees it came from `into_handle` (Box::into_raw) and
        // is freed only once, by this call.
        let handle = unsafe { Box::from_raw(browser) };
        let shared = &handle.shared;
        let taken = {
            let mut guard = lock(&shared.browser);
            shared.freed.store(true, Ordering::SeqCst);
            guard.take()
        };
        if let (Some(browser), Some(runtime)) = (taken, shared.runtime.as_ref()) {
            runtime.block_on(async {
                // On time-out the future (and with it the browser) is dropped, which kills a
                // launched browser's process group and removes its profile synchronously.
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, browser.close()).await;
            });
        }
        // Dropping the handle drops our reference to the shared state; the last one stops the
        // runtime.
        drop(handle);
        pagesight_result::PAGESIGHT_OK
    });
}
