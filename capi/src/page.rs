//! The page handle: one tab, driven by its own engine `Session` (uid table, previous snapshot)
//! on the browser's runtime.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::browser::Browser;
use engine::session::{normalize_url, open_in_new_tab, response_line, Session, SessionOptions};
use engine::transport::Connection;
use engine::Command;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use crate::browser::{pagesight_browser, BrowserShared, PageRoute};
use crate::ffi::{
    barrier, call_in_task, lock, optional_str, required_str, run_task, snapshot_options, write_out,
    write_string, ErrorSlot, Failure,
};
use crate::pagesight_result;

/// How long closing a page (on `pagesight_page_close` / `_free`) may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// One tab opened with `pagesight_page_open`, with its uid table and previous snapshot: the
/// same state a `pagesight run` session keeps. Each page is its own session; a launched
/// browser's pages share its pipe, a connected browser's each have a WebSocket of their own
/// (see `crate::browser`).
///
/// Released by `pagesight_page_free`. Usable from any thread; calls on one page from two
/// threads at once are serialised by a lock inside, while different pages run in parallel.
#[allow(non_camel_case_types)]
pub struct pagesight_page {
    shared: Arc<BrowserShared>,
    /// `None` once the page is closed, or while a call runs its session as a task.
    session: Mutex<Option<Session>>,
    /// Set while the session is away in a task, and left set if it never came back: later
    /// calls then say so rather than that the page was closed.
    lost: AtomicBool,
    last_error: ErrorSlot,
}

impl pagesight_page {
    /// Runs `call` on the page's session as a task of the runtime (see [`run_task`] for why),
    /// after checking the browser and the page are alive.
    ///
    /// The session moves into the task and back while the page's lock is held, so calls on one
    /// page stay serialised. A panic in `call` leaves the session in place, as one on this
    /// thread always did; only a task that never ends (cancelled) loses it, and the page with it.
    fn with_session<T: Send + 'static>(
        &self,
        call: impl for<'s> FnOnce(&'s mut Session) -> BoxFuture<'s, engine::Result<T>> + Send + 'static,
    ) -> Result<T, Failure> {
        let mut slot = lock(&self.session);
        self.shared.check_alive()?;
        let runtime = self.shared.runtime()?;
        let in_runtime = tokio::runtime::Handle::try_current().is_ok();
        match slot.as_mut() {
            // `run_task` would have `block_on` refuse only after the session moved into the task;
            // refused here, with the session still in its place, the page stays usable.
            Some(session) if in_runtime => return Ok(runtime.block_on(call(session))?),
            Some(_) => {}
            None => return Err(self.no_session()),
        }
        let Some(session) = slot.take() else {
            return Err(self.no_session());
        };
        self.lost.store(true, Ordering::SeqCst);
        match call_in_task(runtime, session, call) {
            Ok((session, outcome)) => {
                *slot = Some(session);
                self.lost.store(false, Ordering::SeqCst);
                Ok(outcome??)
            }
            Err(failure) => Err(Failure::new(
                failure.code,
                format!(
                    "{}; the page's session was lost with the call: free the page with \
                     pagesight_page_free and open a new one with pagesight_page_open",
                    failure.message
                ),
            )),
        }
    }

    /// Why the page has no session.
    fn no_session(&self) -> Failure {
        if self.lost.load(Ordering::SeqCst) {
            Failure::invalid_argument(
                "an earlier call on this page failed and lost its session; free the page with \
                 pagesight_page_free and open a new one with pagesight_page_open",
            )
        } else {
            Failure::invalid_argument(
                "this page was closed (pagesight_page_close); open a new one with \
                 pagesight_page_open",
            )
        }
    }
}

/// Opens a new tab in `browser` and loads `url` in it, waiting for its `load` event (up to the
/// browser's load timeout; a page still loading then is returned as it is).
///
/// - `url`: a URL (`https://…`, `file://…`, `data:…`) or the path of a local file.
/// - `out`: on `PAGESIGHT_OK`, receives the page, released with `pagesight_page_free`.
///
/// On failure the message is in `pagesight_browser_last_error(browser)`.
///
/// # Safety
/// `browser` is NULL or a live handle; `url` is NULL or a NUL-terminated string; `out` is NULL
/// or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_open(
    browser: *mut pagesight_browser,
    url: *const c_char,
    out: *mut *mut pagesight_page,
) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(browser) = (unsafe { browser.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    browser.last_error.run(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: the caller guarantees NULL or a NUL-terminated string for the call.
        let url = unsafe { required_str(url, "url") }?;
        let shared = &browser.shared;
        let url = normalize_url(url)?;
        let start = SessionOptions {
            browser: None,
            target: None,
            viewport: shared.viewport,
            load_timeout: shared.load_timeout,
            files: shared.files.clone(),
            ..SessionOptions::default()
        };
        let session = shared.with_browser(|browser| {
            let runtime = shared.runtime()?;
            let route = shared.page_route(browser)?;
            run_task(
                runtime,
                open_tab(browser.connection().clone(), route, start, url),
            )?
        })?;
        let page = Box::new(pagesight_page {
            shared: Arc::clone(shared),
            session: Mutex::new(Some(session)),
            lost: AtomicBool::new(false),
            last_error: ErrorSlot::new(),
        });
        // SAFETY: `out` is not NULL and the caller guarantees it is writable.
        unsafe { write_out(out, Box::into_raw(page)) };
        Ok(())
    })
}

/// Opens `url` in a tab of its own with a session attached over the connection `route` names
/// (see `open_in_new_tab`).
async fn open_tab(
    connection: Connection,
    route: PageRoute,
    start: SessionOptions,
    url: String,
) -> Result<Session, Failure> {
    let attach = async move {
        match route {
            PageRoute::Shared(browser) => Ok(browser),
            PageRoute::Connect(endpoint) => Browser::connect(&endpoint).await,
        }
    };
    Ok(open_in_new_tab(&connection, start, &url, attach).await?)
}

/// Takes a snapshot of the page (the `snapshot` command).
///
/// - `mode`: `"a11y"` (default when NULL) or `"dom"`.
/// - `format`: `"text"` (default when NULL) or `"json"`.
/// - `expand`: NULL or `"0"` for the viewport, a number of CSS pixels to look beyond it, or
///   `"all"` for the whole page.
/// - `out`: on `PAGESIGHT_OK`, receives the snapshot (UTF-8), freed by the caller with
///   `pagesight_string_free`.
///
/// The uids in it stay valid for actions (`pagesight_page_call`) while their elements exist.
///
/// # Safety
/// `page` is NULL or a live handle; string arguments are NULL or NUL-terminated; `out` is NULL
/// or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_snapshot(
    page: *mut pagesight_page,
    mode: *const c_char,
    format: *const c_char,
    expand: *const c_char,
    out: *mut *mut c_char,
) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(page) = (unsafe { page.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    page.last_error.run(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY (three calls): the caller guarantees NULL or NUL-terminated strings.
        let mode = unsafe { optional_str(mode, "mode") }?;
        // SAFETY: as above.
        let format = unsafe { optional_str(format, "format") }?;
        // SAFETY: as above.
        let expand = unsafe { optional_str(expand, "expand") }?;
        let options = snapshot_options(mode, format, expand)?;
        let text = page.with_session(move |session| {
            async move { Ok(session.snapshot(&options).await?.text) }.boxed()
        })?;
        // SAFETY: `out` is not NULL and the caller guarantees it is writable.
        unsafe { write_string(out, text) };
        Ok(())
    })
}

/// Runs one command of the JSON-lines `run` protocol on the page, e.g.
/// `{"cmd":"click","uid":"1_4"}`, `{"cmd":"fill","uid":"1_7","text":"hi"}`,
/// `{"cmd":"snapshot","format":"json"}`, `{"cmd":"open","url":"…"}`, `{"cmd":"pages"}`.
///
/// Commands act on this page's session as in `run`: `select_page` makes the handle drive
/// another tab of the browser, `close` closes the tab it drives (`open` then opens a new one).
///
/// - `out_response_json`: on `PAGESIGHT_OK`, receives the response line
///   `{"ok":true,"result":…}`, freed by the caller with `pagesight_string_free`.
///
/// When the command fails, the call returns its code (e.g. `PAGESIGHT_STALE_UID`, or
/// `PAGESIGHT_INVALID_ARGUMENT` for malformed JSON), writes nothing, and the message is in
/// `pagesight_page_last_error(page)`; the protocol's error response is
/// `{"ok":false,"error":{"code":pagesight_result_name(code),"message":…,
/// "retryable":pagesight_result_is_retryable(code)}}`.
///
/// # Safety
/// `page` is NULL or a live handle; `command_json` is NULL or NUL-terminated;
/// `out_response_json` is NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_call(
    page: *mut pagesight_page,
    command_json: *const c_char,
    out_response_json: *mut *mut c_char,
) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(page) = (unsafe { page.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    page.last_error.run(|| {
        if out_response_json.is_null() {
            return Err(Failure::null("out_response_json"));
        }
        // SAFETY: the caller guarantees NULL or a NUL-terminated string for the call.
        let command = unsafe { required_str(command_json, "command_json") }?;
        let command = Command::from_line(command)?;
        let result = page
            .with_session(move |session| async move { session.execute(command).await }.boxed())?;
        // SAFETY: `out_response_json` is not NULL and the caller guarantees it is writable.
        unsafe { write_string(out_response_json, response_line(Ok(result))) };
        Ok(())
    })
}

/// Closes the page's tab (the one commands act on) and disconnects. The handle stays valid
/// until `pagesight_page_free`; later calls on it fail with `PAGESIGHT_INVALID_ARGUMENT`.
/// Closing an already closed page does nothing and returns `PAGESIGHT_OK`.
///
/// # Safety
/// `page` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_close(page: *mut pagesight_page) -> pagesight_result {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    let Some(page) = (unsafe { page.as_ref() }) else {
        return pagesight_result::PAGESIGHT_NULL_POINTER;
    };
    page.last_error.run(|| close_session(page))
}

/// Takes the session out and closes it: the tab, then the connection.
fn close_session(page: &pagesight_page) -> Result<(), Failure> {
    let Some(mut session) = lock(&page.session).take() else {
        return Ok(());
    };
    let runtime = page.shared.runtime()?;
    // Even once the browser handle is freed the tab is closed if it can be: a connected browser
    // lives on (and the page's own connection with it); a closed one fails at once.
    let closed = run_task(runtime, async move {
        tokio::time::timeout(CLOSE_TIMEOUT, async move {
            let closed = match session.current_page() {
                Some(_) => session.close().await.map(drop),
                None => Ok(()),
            };
            let _ = session.shutdown().await;
            closed
        })
        .await
    })?;
    match closed {
        Ok(Ok(())) => Ok(()),
        // A browser that is gone took the tab with it.
        Ok(Err(e)) if e.code() == engine::ErrorCode::BrowserClosed => Ok(()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(Failure::new(
            pagesight_result::PAGESIGHT_TIMEOUT,
            "the browser did not close the tab in time; the page is released anyway",
        )),
    }
}

/// The message of the last failed call on this page, or `""` if the last call succeeded.
///
/// The string belongs to the handle: do not free it; it stays valid until the next call on the
/// same handle (or its free). Returns a static message for a NULL handle; never NULL.
///
/// # Safety
/// `page` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_last_error(page: *const pagesight_page) -> *const c_char {
    // SAFETY: the caller guarantees NULL or a live handle from this library.
    match unsafe { page.as_ref() } {
        Some(page) => page.last_error.as_ptr(),
        None => c"the page handle is NULL".as_ptr(),
    }
}

/// Closes the page if it is still open (as `pagesight_page_close`) and releases the handle.
/// Safe before or after `pagesight_browser_free`. NULL is ignored.
///
/// # Safety
/// `page` is NULL or a handle from `pagesight_page_open` not freed yet, and no other thread is
/// using it. The pointer is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn pagesight_page_free(page: *mut pagesight_page) {
    if page.is_null() {
        return;
    }
    barrier(|| {
        // SAFETY: not NULL; the caller guarantees it came from `pagesight_page_open`
        // (Box::into_raw) and is freed only once, by this call.
        let page = unsafe { Box::from_raw(page) };
        let _ = close_session(&page);
        // Dropping the page drops its reference to the browser's shared state; if it is the
        // last one, the runtime stops here.
        drop(page);
        pagesight_result::PAGESIGHT_OK
    });
}
