//! The C ABI of pagesight: `libpagesight.so` / `libpagesight.a` and `include/pagesight.h`.
//!
//! The conventions, the same for every entry point:
//! - Every function returns a [`pagesight_result`] (or, for the few that cannot fail, a plain
//!   value). `PAGESIGHT_OK` is 0; engine failures keep their stable codes (`STALE_UID`, ...).
//! - Out-params are written only when the call returns `PAGESIGHT_OK` (the optional
//!   `out_error` of calls that take no handle is the one exception: it is written only on
//!   failure).
//! - Handles are opaque: [`pagesight_browser`] and [`pagesight_page`], each made by one call and
//!   released by its `_free`. Strings the library returns are released with
//!   [`pagesight_string_free`]; strings the caller passes are only borrowed for the call.
//! - The message of the last failure is kept per handle (`pagesight_*_last_error`), not per
//!   thread, so it works for callers whose threads move between OS threads.
//! - Every entry point runs inside `catch_unwind`: a panic becomes `PAGESIGHT_PANIC`, never an
//!   abort or an unwind into C.

#![deny(unsafe_op_in_unsafe_fn)]

mod browser;
mod ffi;
mod page;

use std::ffi::c_char;

pub use browser::{
    pagesight_browser, pagesight_browser_connect, pagesight_browser_endpoint,
    pagesight_browser_free, pagesight_browser_last_error, pagesight_browser_launch,
    pagesight_browser_pid,
};
pub use page::{
    pagesight_page, pagesight_page_call, pagesight_page_close, pagesight_page_free,
    pagesight_page_last_error, pagesight_page_open, pagesight_page_snapshot,
};

use engine::snapshot::{render_capture, SnapshotOptions};
use engine::ErrorCode;
use ffi::{entry_with_out_error, optional_str, snapshot_options, write_string, Failure};

/// The outcome of a call. `PAGESIGHT_OK` (0) is success; the engine's error codes keep the
/// names of the JSON protocol (`PAGESIGHT_STALE_UID` is `"STALE_UID"`); the last three are
/// failures of the call itself. `pagesight_result_name` spells a code, and the handle's
/// `_last_error` says what went wrong and what to do next.
#[repr(u32)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum pagesight_result {
    /// Success.
    PAGESIGHT_OK = 0,
    /// An action needs a snapshot first: take one, then use its uids.
    PAGESIGHT_NO_SNAPSHOT = 1,
    /// The uid was never handed out on this page.
    PAGESIGHT_UNKNOWN_UID = 2,
    /// The uid's element is gone (or from an older document): take a new snapshot.
    PAGESIGHT_STALE_UID = 3,
    /// The page is navigating; try again (retryable).
    PAGESIGHT_PAGE_NAVIGATING = 4,
    /// The element cannot take this action (disabled, hidden, not an input, ...).
    PAGESIGHT_NOT_INTERACTABLE = 5,
    /// Another element covers the element's click point (retryable).
    PAGESIGHT_OCCLUDED = 6,
    /// The browser did not answer in time (retryable).
    PAGESIGHT_TIMEOUT = 7,
    /// The browser is gone (exited, killed, disconnected, or its handle freed).
    PAGESIGHT_BROWSER_CLOSED = 8,
    /// The page could not be loaded.
    PAGESIGHT_NAVIGATION_FAILED = 9,
    /// An argument or command is wrong (malformed JSON, unknown mode, closed page, ...).
    PAGESIGHT_INVALID_ARGUMENT = 10,
    /// The browser answered something unexpected.
    PAGESIGHT_PROTOCOL_ERROR = 11,
    /// A pointer that must not be NULL was NULL. Nothing was done.
    PAGESIGHT_NULL_POINTER = 12,
    /// A string argument was not valid UTF-8. Nothing was done.
    PAGESIGHT_INVALID_UTF8 = 13,
    /// A bug inside the library was caught at the boundary; the handle stays usable but the
    /// command may have been half done.
    PAGESIGHT_PANIC = 14,
}

impl pagesight_result {
    /// Every code, in numeric order.
    const ALL: [pagesight_result; 15] = [
        pagesight_result::PAGESIGHT_OK,
        pagesight_result::PAGESIGHT_NO_SNAPSHOT,
        pagesight_result::PAGESIGHT_UNKNOWN_UID,
        pagesight_result::PAGESIGHT_STALE_UID,
        pagesight_result::PAGESIGHT_PAGE_NAVIGATING,
        pagesight_result::PAGESIGHT_NOT_INTERACTABLE,
        pagesight_result::PAGESIGHT_OCCLUDED,
        pagesight_result::PAGESIGHT_TIMEOUT,
        pagesight_result::PAGESIGHT_BROWSER_CLOSED,
        pagesight_result::PAGESIGHT_NAVIGATION_FAILED,
        pagesight_result::PAGESIGHT_INVALID_ARGUMENT,
        pagesight_result::PAGESIGHT_PROTOCOL_ERROR,
        pagesight_result::PAGESIGHT_NULL_POINTER,
        pagesight_result::PAGESIGHT_INVALID_UTF8,
        pagesight_result::PAGESIGHT_PANIC,
    ];

    /// The code for a number, if it is one.
    pub fn from_u32(code: u32) -> Option<pagesight_result> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The name without the `PAGESIGHT_` prefix, as the JSON protocol spells engine codes.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("UNKNOWN")
    }

    /// The engine's code this result stands for, if it is one (not `OK` nor a C-only code).
    fn engine_code(self) -> Option<ErrorCode> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|code| pagesight_result::from(*code) == self)
    }

    fn c_name(self) -> &'static std::ffi::CStr {
        use pagesight_result::*;
        if let Some(code) = self.engine_code() {
            return code.as_c_str();
        }
        match self {
            PAGESIGHT_OK => c"OK",
            PAGESIGHT_NULL_POINTER => c"NULL_POINTER",
            PAGESIGHT_INVALID_UTF8 => c"INVALID_UTF8",
            PAGESIGHT_PANIC => c"PANIC",
            _ => c"UNKNOWN",
        }
    }
}

impl From<ErrorCode> for pagesight_result {
    fn from(code: ErrorCode) -> Self {
        use pagesight_result::*;
        match code {
            ErrorCode::NoSnapshot => PAGESIGHT_NO_SNAPSHOT,
            ErrorCode::UnknownUid => PAGESIGHT_UNKNOWN_UID,
            ErrorCode::StaleUid => PAGESIGHT_STALE_UID,
            ErrorCode::PageNavigating => PAGESIGHT_PAGE_NAVIGATING,
            ErrorCode::NotInteractable => PAGESIGHT_NOT_INTERACTABLE,
            ErrorCode::Occluded => PAGESIGHT_OCCLUDED,
            ErrorCode::Timeout => PAGESIGHT_TIMEOUT,
            ErrorCode::BrowserClosed => PAGESIGHT_BROWSER_CLOSED,
            ErrorCode::NavigationFailed => PAGESIGHT_NAVIGATION_FAILED,
            ErrorCode::InvalidArgument => PAGESIGHT_INVALID_ARGUMENT,
            ErrorCode::ProtocolError => PAGESIGHT_PROTOCOL_ERROR,
            // A code newer than this list; the test `every_engine_code_has_its_own_result`
            // fails until it is given a number of its own.
            _ => PAGESIGHT_PROTOCOL_ERROR,
        }
    }
}

/// The library version, e.g. `"0.1.0"`. A static string: never free it.
#[no_mangle]
pub extern "C" fn pagesight_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of a result code without its prefix, e.g. `"STALE_UID"` for
/// `PAGESIGHT_STALE_UID` and `"OK"` for `PAGESIGHT_OK`; `"UNKNOWN"` for a number that is no
/// code. A static string: never free it.
#[no_mangle]
pub extern "C" fn pagesight_result_name(code: u32) -> *const c_char {
    match pagesight_result::from_u32(code) {
        Some(result) => result.c_name().as_ptr(),
        None => c"UNKNOWN".as_ptr(),
    }
}

/// Whether the same call may succeed if simply made again a little later (`PAGE_NAVIGATING`,
/// `OCCLUDED`, `TIMEOUT`).
#[no_mangle]
pub extern "C" fn pagesight_result_is_retryable(code: u32) -> bool {
    pagesight_result::from_u32(code)
        .and_then(pagesight_result::engine_code)
        .is_some_and(ErrorCode::retryable)
}

/// Frees a string this library returned (snapshots, responses, `out_error` messages).
/// NULL is ignored.
///
/// # Safety
/// `s` is NULL or a string returned by this library and not freed yet. Never pass strings
/// from `pagesight_version`, `pagesight_result_name` or `pagesight_*_last_error`: those are
/// not the caller's to free.
#[no_mangle]
pub unsafe extern "C" fn pagesight_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the caller guarantees `s` came from `CString::into_raw` in this library
        // (every string we hand out does) and was not freed before.
        drop(unsafe { std::ffi::CString::from_raw(s) });
    });
}

/// Renders a saved capture (the gzip'd or plain JSON file `pagesight capture` writes) offline,
/// without a browser, with a fresh uid table.
///
/// - `bytes`, `len`: the file's contents; only borrowed for the call. `bytes` must not be NULL.
/// - `mode`: `"a11y"` or `"dom"`; NULL means `"a11y"`.
/// - `format`: `"text"` or `"json"`; NULL means `"text"`.
/// - `out`: on `PAGESIGHT_OK`, receives the rendered snapshot (NUL-terminated UTF-8), which the
///   caller frees with `pagesight_string_free`.
/// - `out_error`: NULL, or where a message is put when the call fails (there is no handle to
///   keep it); the caller frees it with `pagesight_string_free`. Left untouched on success.
///
/// # Safety
/// `bytes` points to `len` readable bytes; string arguments are NULL or NUL-terminated;
/// `out` and `out_error` are NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn pagesight_render_capture(
    bytes: *const u8,
    len: usize,
    mode: *const c_char,
    format: *const c_char,
    out: *mut *mut c_char,
    out_error: *mut *mut c_char,
) -> pagesight_result {
    entry_with_out_error(out_error, || {
        if bytes.is_null() {
            return Err(Failure::null("bytes"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: the caller guarantees NULL or a NUL-terminated string for the call.
        let mode = unsafe { optional_str(mode, "mode") }?;
        // SAFETY: as above.
        let format = unsafe { optional_str(format, "format") }?;
        let options: SnapshotOptions = snapshot_options(mode, format, None)?;
        // SAFETY: `bytes` is not NULL and the caller guarantees `len` readable bytes that stay
        // unchanged during the call.
        let data = unsafe { std::slice::from_raw_parts(bytes, len) };
        let rendered = render_capture(data, &options)?;
        // SAFETY: `out` is not NULL and valid for a write (caller's guarantee).
        unsafe { write_string(out, rendered) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_code_has_its_own_result() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let result = pagesight_result::from(*code);
            assert_eq!(result.name(), code.as_str(), "{code:?}");
            assert_eq!(result.engine_code(), Some(*code));
            assert_eq!(
                pagesight_result_is_retryable(result as u32),
                code.retryable(),
                "{code:?}"
            );
            assert!(seen.insert(result as u32), "{code:?} shares its number");
        }
        for c_only in [
            pagesight_result::PAGESIGHT_OK,
            pagesight_result::PAGESIGHT_NULL_POINTER,
            pagesight_result::PAGESIGHT_INVALID_UTF8,
            pagesight_result::PAGESIGHT_PANIC,
        ] {
            assert_eq!(c_only.engine_code(), None);
            assert!(!pagesight_result_is_retryable(c_only as u32));
        }
        assert_eq!(pagesight_result::PAGESIGHT_PANIC.name(), "PANIC");
    }
}
