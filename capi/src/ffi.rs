//! What every entry point shares: the failure type, the per-handle error slot, the panic
//! barrier, and conversions of C strings and out-params.

use std::any::Any;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

use engine::snapshot::SnapshotOptions;

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

    fn panic(payload: &(dyn Any + Send)) -> Self {
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
