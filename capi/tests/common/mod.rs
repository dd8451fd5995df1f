//! Shared by the C library's test files: strings and last-error messages across the boundary.

// Each test file is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::ffi::{c_char, CStr, CString};

use pagesight::*;

pub fn c(s: &str) -> CString {
    CString::new(s).expect("no NUL in test strings")
}

/// Takes and frees a string the library returned.
pub fn take(s: *mut c_char) -> String {
    assert!(!s.is_null());
    // SAFETY: a string this library returned, not freed yet.
    let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    // SAFETY: as above; freed exactly once.
    unsafe { pagesight_string_free(s) };
    text
}

pub fn page_error(page: *const pagesight_page) -> String {
    // SAFETY: a live page handle; the message is copied before the next call.
    unsafe { CStr::from_ptr(pagesight_page_last_error(page)) }
        .to_string_lossy()
        .into_owned()
}

pub fn browser_error(browser: *const pagesight_browser) -> String {
    // SAFETY: a live browser handle; the message is copied before the next call.
    unsafe { CStr::from_ptr(pagesight_browser_last_error(browser)) }
        .to_string_lossy()
        .into_owned()
}
