//! What every entry point shares: the failure type, the per-handle error slot, the panic
//! barrier, and conversions of C strings and out-params.

use std::any::Any;
use std::ffi::{c_char, CStr, CString};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

use engine::snapshot::SnapshotOptions;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use tokio::runtime::Runtime;
use tokio::task::JoinError;

use crate::pagesight_result;

/// A failed call: its code and the message for the caller.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) code: pagesight_result,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(code: pagesight_result, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn null(what: &str) -> Self {
        Failure::new(
            pagesight_result::PAGESIGHT_NULL_POINTER,
            format!("{what} is NULL; pass a valid pointer"),
        )
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        Failure::new(pagesight_result::PAGESIGHT_INVALID_ARGUMENT, message)
    }

    pub(crate) fn panic(payload: &(dyn Any + Send)) -> Self {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Failure::new(
            pagesight_result::PAGESIGHT_PANIC,
            format!(
                "internal error (a panic was caught at the C boundary: {detail}); please report it"
            ),
        )
    }
}

impl From<engine::Error> for Failure {
    fn from(e: engine::Error) -> Self {
        Failure::new(e.code().into(), e.message())
    }
}

/// Runs `future` to its end as a task of `runtime`, this thread waiting for it.
///
/// Why a task rather than `runtime.block_on(future)`: the engine's replies are read by a task on
/// one of the runtime's threads; a future driven on the caller's thread must have that thread
/// woken for each of them (a futex wake-up and a sleep per DevTools message: a snapshot of a
/// small form put this process's threads to sleep 23 times, 10 as a task), while a task takes
/// them up on the thread that read them and wakes the caller once, at the end.
///
/// A caller already inside an async runtime cannot wait on ours: there `block_on` refuses with
/// a panic, caught at the boundary. The future is then handed to `block_on` itself, so that it
/// refuses before anything was started, as it always has.
pub(crate) fn run_task<F>(runtime: &Runtime, future: F) -> Result<F::Output, Failure>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        return Ok(runtime.block_on(future));
    }
    runtime
        .block_on(runtime.spawn(future))
        .map_err(join_failure)
}

/// Runs `call` on `state` as a task of `runtime` (see [`run_task`]) and gives `state` back with
/// the call's outcome. A panic in the call is caught inside the task, so the state comes back
/// as it would from a panic on the caller's thread: usable, the call perhaps half done. `Err`
/// means the state did not come back (the task was cancelled; nothing of ours cancels it, but
/// that is no reason to hang or to lie about it).
pub(crate) fn call_in_task<S, T>(
    runtime: &Runtime,
    mut state: S,
    call: impl for<'s> FnOnce(&'s mut S) -> BoxFuture<'s, T> + Send + 'static,
) -> Result<(S, Result<T, Failure>), Failure>
where
    S: Send + 'static,
    T: Send + 'static,
{
    run_task(runtime, async move {
        let outcome = AssertUnwindSafe(call(&mut state)).catch_unwind().await;
        (
            state,
            outcome.map_err(|panic| Failure::panic(panic.as_ref())),
        )
    })
}

/// A task that did not finish: its panic, or its cancellation (the runtime stopping).
fn join_failure(e: JoinError) -> Failure {
    match e.try_into_panic() {
        Ok(panic) => Failure::panic(panic.as_ref()),
        Err(e) => Failure::new(
            pagesight_result::PAGESIGHT_BROWSER_CLOSED,
            format!("the library's threads stopped during the call ({e}); launch or connect again"),
        ),
    }
}

/// Locks a mutex, taking it over if a caught panic poisoned it: the state behind our mutexes
/// stays consistent enough to be used (at worst a command was half done), and refusing every
/// later call on the handle would help nobody.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The message of a handle's last failed call ("" after a successful call).
#[derive(Debug)]
pub(crate) struct ErrorSlot(Mutex<CString>);

impl ErrorSlot {
    pub(crate) fn new() -> Self {
        ErrorSlot(Mutex::new(CString::default()))
    }

    fn set(&self, message: &str) {
        *lock(&self.0) = c_string(message.to_string());
    }

    fn clear(&self) {
        let mut slot = lock(&self.0);
        if !slot.as_bytes().is_empty() {
            *slot = CString::default();
        }
    }

    /// The message; the pointer stays valid until the slot is next written (the next call on
    /// the handle).
    pub(crate) fn as_ptr(&self) -> *const c_char {
        lock(&self.0).as_ptr()
    }

    /// Runs the body of an entry point behind the panic barrier and records its outcome.
    pub(crate) fn run(&self, body: impl FnOnce() -> Result<(), Failure>) -> pagesight_result {
        barrier(|| match run_caught(body) {
            Ok(()) => {
                self.clear();
                pagesight_result::PAGESIGHT_OK
            }
            Err(failure) => {
                self.set(&failure.message);
                failure.code
            }
        })
    }
}

/// Runs `body`, turning a panic into a [`Failure`].
fn run_caught(body: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(payload) => Err(Failure::panic(payload.as_ref())),
    }
}

/// The outermost guard of an entry point: whatever happens inside, a code comes out.
pub(crate) fn barrier(body: impl FnOnce() -> pagesight_result) -> pagesight_result {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(pagesight_result::PAGESIGHT_PANIC)
}

/// For calls without a handle: runs `body` and, on failure, hands the message to the caller
/// through `out_error` (when it is not NULL).
pub(crate) fn entry_with_out_error(
    out_error: *mut *mut c_char,
    body: impl FnOnce() -> Result<(), Failure>,
) -> pagesight_result {
    barrier(|| match run_caught(body) {
        Ok(()) => pagesight_result::PAGESIGHT_OK,
        Err(failure) => {
            if !out_error.is_null() {
                // SAFETY: `out_error` is not NULL, and the caller guarantees it is valid for one
                // pointer write (see each function's `# Safety`).
                unsafe { write_string(out_error, failure.message) };
            }
            failure.code
        }
    })
}

/// A C string owned by us, with any NUL inside the text replaced (C strings cannot hold one).
pub(crate) fn c_string(text: String) -> CString {
    match CString::new(text) {
        Ok(s) => s,
        Err(e) => {
            let text = String::from_utf8_lossy(&e.into_vec()).replace('\0', "\u{FFFD}");
            CString::new(text).unwrap_or_default()
        }
    }
}

/// Hands `text` to the caller through `out`, to be freed with `pagesight_string_free`.
///
/// # Safety
/// `out` is not NULL and valid for one pointer write.
pub(crate) unsafe fn write_string(out: *mut *mut c_char, text: String) {
    let raw = c_string(text).into_raw();
    // SAFETY: the caller of this function guarantees `out` is writable.
    unsafe { out.write(raw) };
}

/// Writes a handle to the caller's out-param.
///
/// # Safety
/// `out` is not NULL and valid for one pointer write.
pub(crate) unsafe fn write_out<T>(out: *mut *mut T, value: *mut T) {
    // SAFETY: the caller of this function guarantees `out` is writable.
    unsafe { out.write(value) };
}

/// A required string argument, borrowed for the call.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string that stays unchanged while the result is
/// used.
pub(crate) unsafe fn required_str<'a>(s: *const c_char, what: &str) -> Result<&'a str, Failure> {
    // SAFETY: forwarded from the caller.
    unsafe { optional_str(s, what) }?.ok_or_else(|| Failure::null(what))
}

/// An optional string argument (NULL means "the default"), borrowed for the call.
///
/// # Safety
/// As for [`required_str`].
pub(crate) unsafe fn optional_str<'a>(
    s: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: not NULL, and the caller guarantees a NUL-terminated string that outlives 'a.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str().map(Some).map_err(|e| {
        Failure::new(
            pagesight_result::PAGESIGHT_INVALID_UTF8,
            format!(
                "{what} is not valid UTF-8 (bad byte at offset {}); pass UTF-8 text",
                e.valid_up_to()
            ),
        )
    })
}

/// Snapshot options from the C arguments (each NULL for its default).
pub(crate) fn snapshot_options(
    mode: Option<&str>,
    format: Option<&str>,
    expand: Option<&str>,
) -> Result<SnapshotOptions, Failure> {
    let mut options = SnapshotOptions::default();
    if let Some(mode) = mode {
        options.mode = SnapshotOptions::parse_mode(mode)?;
    }
    if let Some(format) = format {
        options.format = SnapshotOptions::parse_format(format)?;
    }
    if let Some(expand) = expand {
        options.expand = SnapshotOptions::parse_expand(expand)?;
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .expect("a runtime")
    }

    #[test]
    fn a_call_in_a_task_gives_its_state_back() {
        let runtime = runtime();
        let (state, outcome) = call_in_task(&runtime, vec![1], |state| {
            async move {
                tokio::task::yield_now().await;
                state.push(2);
                state.len()
            }
            .boxed()
        })
        .expect("the task ends");
        assert_eq!(state, [1, 2]);
        assert!(matches!(outcome, Ok(2)));
    }

    #[test]
    fn a_panic_in_the_task_keeps_the_state_and_becomes_a_failure() {
        let runtime = runtime();
        let (state, outcome) = call_in_task(&runtime, vec![1], |state| {
            async move {
                state.push(2);
                tokio::task::yield_now().await;
                if state.len() == 2 {
                    panic!("on purpose");
                }
            }
            .boxed()
        })
        .expect("the state comes back");
        assert_eq!(state, [1, 2], "the state comes back as the panic left it");
        let failure = outcome.expect_err("the panic is a failure");
        assert_eq!(failure.code, pagesight_result::PAGESIGHT_PANIC);
        assert!(
            failure.message.contains("on purpose"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn a_panicking_task_is_a_failure() {
        let runtime = runtime();
        let failure = run_task(&runtime, async {
            tokio::task::yield_now().await;
            panic!("on purpose")
        })
        .expect_err("the panic is a failure");
        assert_eq!(failure.code, pagesight_result::PAGESIGHT_PANIC);
        assert!(
            failure.message.contains("on purpose"),
            "{}",
            failure.message
        );
    }
}
