//! The C ABI used wrongly, called directly from Rust as C would: NULL everywhere, invalid
//! UTF-8, malformed JSON, calls after close, a killed browser, frees in either order. Every
//! case must give a code and a message, never a crash.

use std::ffi::{c_char, CStr};
use std::ptr;
use std::time::{Duration, Instant};

mod common;
use common::{browser_error, c, page_error, take};
use pagesight::*;

use pagesight::pagesight_result::*;

const FORMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/pages/forms.html");
const CAPTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/captures/checkout.json.gz"
);

/// A pointer value no call may write over an out-param on failure.
fn sentinel<T>() -> *mut T {
    std::ptr::NonNull::dangling().as_ptr()
}

fn launch() -> *mut pagesight_browser {
    launch_with(None)
}

/// Launches with `options` as the options JSON (NULL for `None`).
fn launch_with(options: Option<&str>) -> *mut pagesight_browser {
    let options = options.map(c);
    let options = options.as_ref().map_or(ptr::null(), |o| o.as_ptr());
    let mut browser = ptr::null_mut();
    let mut error = ptr::null_mut();
    // SAFETY: NULL or a valid string, valid out-params.
    let rc = unsafe { pagesight_browser_launch(options, &mut browser, &mut error) };
    assert_eq!(
        rc,
        PAGESIGHT_OK,
        "launch: {}",
        if error.is_null() {
            String::new()
        } else {
            take(error)
        }
    );
    assert!(error.is_null());
    browser
}

fn open(browser: *mut pagesight_browser, url: &str) -> *mut pagesight_page {
    let url = c(url);
    let mut page = ptr::null_mut();
    // SAFETY: live browser, valid string and out-param.
    let rc = unsafe { pagesight_page_open(browser, url.as_ptr(), &mut page) };
    assert_eq!(rc, PAGESIGHT_OK, "open: {}", browser_error(browser));
    page
}

/// Runs a command; the code, and the response or the message.
fn call(page: *mut pagesight_page, command: &str) -> (pagesight_result, String) {
    let command = c(command);
    let mut out = ptr::null_mut();
    // SAFETY: live page, valid string and out-param.
    let rc = unsafe { pagesight_page_call(page, command.as_ptr(), &mut out) };
    if rc == PAGESIGHT_OK {
        (rc, take(out))
    } else {
        assert!(out.is_null(), "out-param written on failure");
        (rc, page_error(page))
    }
}

fn process_alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

fn browser_pid(browser: *const pagesight_browser) -> u32 {
    let mut pid = 0;
    // SAFETY: live browser, valid out-param.
    assert_eq!(
        unsafe { pagesight_browser_pid(browser, &mut pid) },
        PAGESIGHT_OK
    );
    assert!(pid > 1);
    pid
}

#[test]
fn null_pointers_give_a_code_not_a_crash() {
    let mut out: *mut c_char = sentinel();
    let mut browser: *mut pagesight_browser = sentinel();
    let mut page: *mut pagesight_page = sentinel();
    let mut error: *mut c_char = ptr::null_mut();
    let a11y = c("a11y");
    let bytes = [0u8; 4];
    // SAFETY (whole block): every pointer is NULL or valid; the calls must reject the NULLs.
    unsafe {
        assert_eq!(
            pagesight_browser_launch(ptr::null(), ptr::null_mut(), ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_browser_launch(ptr::null(), ptr::null_mut(), &mut error),
            PAGESIGHT_NULL_POINTER
        );
        assert!(take(error).contains("out is NULL"));
        assert_eq!(
            pagesight_browser_connect(ptr::null(), &mut browser, ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(browser, sentinel());
        assert_eq!(
            pagesight_browser_pid(ptr::null(), ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_page_open(ptr::null_mut(), a11y.as_ptr(), &mut page),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(page, sentinel());
        assert_eq!(
            pagesight_page_snapshot(
                ptr::null_mut(),
                ptr::null(),
                ptr::null(),
                ptr::null(),
                &mut out
            ),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_page_call(ptr::null_mut(), a11y.as_ptr(), &mut out),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_page_close(ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(out, sentinel());
        assert_eq!(
            pagesight_render_capture(
                ptr::null(),
                0,
                ptr::null(),
                ptr::null(),
                &mut out,
                ptr::null_mut()
            ),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_render_capture(
                bytes.as_ptr(),
                bytes.len(),
                ptr::null(),
                ptr::null(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(out, sentinel());
        assert!(!pagesight_browser_last_error(ptr::null()).is_null());
        assert!(!pagesight_page_last_error(ptr::null()).is_null());
        pagesight_browser_free(ptr::null_mut());
        pagesight_page_free(ptr::null_mut());
        pagesight_string_free(ptr::null_mut());
    }
}

#[test]
fn names_version_and_retryable() {
    let name = |code: u32| {
        // SAFETY: static strings.
        unsafe { CStr::from_ptr(pagesight_result_name(code)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(name(PAGESIGHT_OK as u32), "OK");
    assert_eq!(name(PAGESIGHT_STALE_UID as u32), "STALE_UID");
    assert_eq!(name(PAGESIGHT_PANIC as u32), "PANIC");
    assert_eq!(name(9999), "UNKNOWN");
    // The engine's codes keep their protocol spelling.
    assert_eq!(name(PAGESIGHT_NO_SNAPSHOT as u32), "NO_SNAPSHOT");
    assert_eq!(name(PAGESIGHT_PROTOCOL_ERROR as u32), "PROTOCOL_ERROR");
    assert!(pagesight_result_is_retryable(PAGESIGHT_TIMEOUT as u32));
    assert!(!pagesight_result_is_retryable(PAGESIGHT_STALE_UID as u32));
    assert!(!pagesight_result_is_retryable(12345));
    // SAFETY: a static string.
    let version = unsafe { CStr::from_ptr(pagesight_version()) }
        .to_str()
        .unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}

#[test]
fn offline_render_rejects_bad_input() {
    let capture = std::fs::read(CAPTURE).expect("fixture capture");
    let bad_utf8 = [0xffu8, 0xfe, 0];
    let mut out: *mut c_char = sentinel();
    let mut error: *mut c_char = ptr::null_mut();
    let bogus = c("braille");
    // SAFETY (whole block): valid buffers, strings and out-params.
    unsafe {
        assert_eq!(
            pagesight_render_capture(
                capture.as_ptr(),
                capture.len(),
                bad_utf8.as_ptr().cast(),
                ptr::null(),
                &mut out,
                &mut error
            ),
            PAGESIGHT_INVALID_UTF8
        );
        assert!(take(error).contains("mode is not valid UTF-8"));
        error = ptr::null_mut();
        assert_eq!(
            pagesight_render_capture(
                capture.as_ptr(),
                capture.len(),
                bogus.as_ptr(),
                ptr::null(),
                &mut out,
                &mut error
            ),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert!(take(error).contains("mode must be"));
        error = ptr::null_mut();
        let garbage = b"{\"not\": \"a capture\"}";
        assert_eq!(
            pagesight_render_capture(
                garbage.as_ptr(),
                garbage.len(),
                ptr::null(),
                ptr::null(),
                &mut out,
                &mut error
            ),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert!(!take(error).is_empty());
        // Truncated gzip, and no bytes at all.
        error = ptr::null_mut();
        let rc = pagesight_render_capture(
            capture.as_ptr(),
            capture.len() / 2,
            ptr::null(),
            ptr::null(),
            &mut out,
            &mut error,
        );
        assert_ne!(rc, PAGESIGHT_OK);
        assert!(!take(error).is_empty());
        let rc = pagesight_render_capture(
            capture.as_ptr(),
            0,
            ptr::null(),
            ptr::null(),
            &mut out,
            ptr::null_mut(),
        );
        assert_ne!(rc, PAGESIGHT_OK);
        assert_eq!(out, sentinel(), "out written on failure");

        // And the good path, in both modes and formats.
        let mut text = ptr::null_mut();
        let dom = c("dom");
        let json = c("json");
        assert_eq!(
            pagesight_render_capture(
                capture.as_ptr(),
                capture.len(),
                ptr::null(),
                ptr::null(),
                &mut text,
                ptr::null_mut()
            ),
            PAGESIGHT_OK
        );
        assert!(take(text).contains("RootWebArea"));
        assert_eq!(
            pagesight_render_capture(
                capture.as_ptr(),
                capture.len(),
                dom.as_ptr(),
                ptr::null(),
                &mut text,
                ptr::null_mut()
            ),
            PAGESIGHT_OK
        );
        assert!(take(text).contains("[End of page]"));
        assert_eq!(
            pagesight_render_capture(
                capture.as_ptr(),
                capture.len(),
                ptr::null(),
                json.as_ptr(),
                &mut text,
                ptr::null_mut()
            ),
            PAGESIGHT_OK
        );
        let parsed: serde_json::Value = serde_json::from_str(&take(text)).expect("JSON output");
        assert!(parsed.get("root").is_some());
    }
}

#[test]
fn malformed_launch_options_and_endpoints() {
    let mut browser: *mut pagesight_browser = sentinel();
    let mut error = ptr::null_mut();
    for options in [
        "{",
        "{\"viewprot\":{}}",
        "[1]",
        "{\"viewport\":{\"width\":0,\"height\":10}}",
        "{\"debuggingPort\":\"yes\"}",
    ] {
        let options = c(options);
        // SAFETY: valid string and out-params.
        let rc = unsafe { pagesight_browser_launch(options.as_ptr(), &mut browser, &mut error) };
        assert_eq!(rc, PAGESIGHT_INVALID_ARGUMENT);
        assert!(!take(error).is_empty());
        error = ptr::null_mut();
    }
    let missing = c("{\"executable\":\"/nonexistent/chromium\"}");
    // SAFETY: valid string and out-params.
    let rc = unsafe { pagesight_browser_launch(missing.as_ptr(), &mut browser, &mut error) };
    assert_eq!(rc, PAGESIGHT_BROWSER_CLOSED);
    assert!(take(error).contains("/nonexistent/chromium"));
    // Nothing listens on port 1.
    let endpoint = c("http://127.0.0.1:1");
    error = ptr::null_mut();
    // SAFETY: valid string and out-params.
    let rc = unsafe { pagesight_browser_connect(endpoint.as_ptr(), &mut browser, &mut error) };
    assert_ne!(rc, PAGESIGHT_OK);
    assert!(!take(error).is_empty());
    assert_eq!(browser, sentinel(), "out written on failure");
}

#[test]
fn bad_input_on_live_handles() {
    let browser = launch();
    let bad_utf8 = [b'a', 0xc3, 0x28, 0];
    let mut page: *mut pagesight_page = sentinel();
    // SAFETY (block): live browser, valid pointers.
    unsafe {
        assert_eq!(
            pagesight_page_open(browser, ptr::null(), &mut page),
            PAGESIGHT_NULL_POINTER
        );
        assert!(browser_error(browser).contains("url is NULL"));
        assert_eq!(
            pagesight_page_open(browser, bad_utf8.as_ptr().cast(), &mut page),
            PAGESIGHT_INVALID_UTF8
        );
        assert!(browser_error(browser).contains("UTF-8"));
        let missing = c("/nonexistent/page.html");
        assert_eq!(
            pagesight_page_open(browser, missing.as_ptr(), &mut page),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert_eq!(page, sentinel());
        let url = c(FORMS);
        assert_eq!(
            pagesight_page_open(browser, url.as_ptr(), ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
    }
    let page = open(browser, FORMS);
    assert_eq!(
        browser_error(browser),
        "",
        "a successful call clears the message"
    );

    for (command, code, says) in [
        ("{\"cmd\":", PAGESIGHT_INVALID_ARGUMENT, "JSON"),
        ("[]", PAGESIGHT_INVALID_ARGUMENT, "JSON object"),
        (
            "{\"cmd\":\"fly\"}",
            PAGESIGHT_INVALID_ARGUMENT,
            "unknown command",
        ),
        (
            "{\"cmd\":\"click\",\"uid\":\"9_999\"}",
            PAGESIGHT_NO_SNAPSHOT,
            "",
        ),
        (
            "{\"cmd\":\"select_page\",\"index\":99}",
            PAGESIGHT_INVALID_ARGUMENT,
            "no page 99",
        ),
    ] {
        let (rc, message) = call(page, command);
        assert_eq!(rc, code, "{command}: {message}");
        assert!(message.contains(says), "{command}: {message}");
    }
    let (rc, response) = call(page, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK, "{response}");
    let response: serde_json::Value = serde_json::from_str(&response).unwrap();
    assert_eq!(response["ok"], true);
    assert!(response["result"].as_array().is_some_and(|p| !p.is_empty()));
    assert_eq!(page_error(page), "");

    let mut out: *mut c_char = sentinel();
    let bogus = c("xml");
    let command = c("{\"cmd\":\"pages\"}");
    // SAFETY (block): live page, valid pointers.
    unsafe {
        assert_eq!(
            pagesight_page_snapshot(page, bogus.as_ptr(), ptr::null(), ptr::null(), &mut out),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert!(page_error(page).contains("mode must be"));
        assert_eq!(
            pagesight_page_snapshot(page, ptr::null(), bogus.as_ptr(), ptr::null(), &mut out),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert_eq!(
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), bogus.as_ptr(), &mut out),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert_eq!(
            pagesight_page_snapshot(
                page,
                ptr::null(),
                ptr::null(),
                bad_utf8.as_ptr().cast(),
                &mut out
            ),
            PAGESIGHT_INVALID_UTF8
        );
        assert_eq!(
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_page_call(page, ptr::null(), &mut out),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(
            pagesight_page_call(page, bad_utf8.as_ptr().cast(), &mut out),
            PAGESIGHT_INVALID_UTF8
        );
        assert_eq!(
            pagesight_page_call(page, command.as_ptr(), ptr::null_mut()),
            PAGESIGHT_NULL_POINTER
        );
        assert_eq!(out, sentinel(), "out written on failure");

        // Close, then every call says the page is closed; closing again is fine.
        assert_eq!(pagesight_page_close(page), PAGESIGHT_OK);
        assert_eq!(pagesight_page_close(page), PAGESIGHT_OK);
        assert_eq!(
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out),
            PAGESIGHT_INVALID_ARGUMENT
        );
        assert!(page_error(page).contains("closed"), "{}", page_error(page));
    }
    let (rc, message) = call(page, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_INVALID_ARGUMENT);
    assert!(message.contains("closed"));
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_browser_free(browser);
    }
}

#[test]
fn pages_freed_after_their_browser_answer_browser_closed() {
    let browser = launch();
    let pid = browser_pid(browser);
    let first = open(browser, FORMS);
    let second = open(browser, FORMS);
    let (rc, pages) = call(second, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK, "{pages}");
    // SAFETY: a live handle, freed once; the pages stay valid.
    unsafe { pagesight_browser_free(browser) };
    assert!(!process_alive(pid), "freeing the browser kills Chromium");
    let (rc, message) = call(first, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_BROWSER_CLOSED, "{message}");
    let mut out: *mut c_char = sentinel();
    // SAFETY (block): live page handles, each freed once.
    unsafe {
        assert_eq!(
            pagesight_page_snapshot(second, ptr::null(), ptr::null(), ptr::null(), &mut out),
            PAGESIGHT_BROWSER_CLOSED
        );
        assert_eq!(pagesight_page_close(second), PAGESIGHT_OK);
        pagesight_page_free(first);
        pagesight_page_free(second);
    }
}

#[test]
fn pages_freed_before_their_browser() {
    let browser = launch();
    let page = open(browser, FORMS);
    let other = open(browser, FORMS);
    // SAFETY (block): live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_page_free(other);
    }
    // The tabs are closed: a new page sees only itself and Chromium's first tab.
    let third = open(browser, FORMS);
    let (rc, pages) = call(third, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK);
    let pages: serde_json::Value = serde_json::from_str(&pages).unwrap();
    let count = pages["result"].as_array().map_or(0, Vec::len);
    assert!(count <= 2, "freed pages left their tabs open: {pages}");
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(third);
        pagesight_browser_free(browser);
    }
}

#[test]
fn a_killed_browser_answers_browser_closed_promptly() {
    let browser = launch();
    let page = open(browser, FORMS);
    let pid = browser_pid(browser);
    // SAFETY: kills the browser's own process group (pid == pgid), which this test launched.
    assert_eq!(
        unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) },
        0
    );
    let start = Instant::now();
    let mut rc = PAGESIGHT_OK;
    let mut message = String::new();
    // The first call may race the kill; within a second the page must know.
    while start.elapsed() < Duration::from_secs(5) {
        (rc, message) = call(page, "{\"cmd\":\"pages\"}");
        if rc != PAGESIGHT_OK {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(rc, PAGESIGHT_BROWSER_CLOSED, "{message}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "took {:?}",
        start.elapsed()
    );
    let mut out: *mut c_char = sentinel();
    let url = c(FORMS);
    let mut other: *mut pagesight_page = sentinel();
    // SAFETY (block): live handles, each freed once.
    unsafe {
        assert_eq!(
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out),
            PAGESIGHT_BROWSER_CLOSED
        );
        assert_eq!(
            pagesight_page_open(browser, url.as_ptr(), &mut other),
            PAGESIGHT_BROWSER_CLOSED
        );
        assert!(!browser_error(browser).is_empty());
        assert_eq!(other, sentinel());
        let start = Instant::now();
        pagesight_page_free(page);
        pagesight_browser_free(browser);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "freeing took {:?}",
            start.elapsed()
        );
    }
}

/// Raw handles cross threads the way a C program passes them.
#[derive(Clone, Copy)]
struct Shared(*mut pagesight_page);
// SAFETY: the library documents handles as usable from any thread (calls are serialised).
unsafe impl Send for Shared {}

#[test]
fn one_page_from_many_threads() {
    let browser = launch();
    let page = Shared(open(browser, FORMS));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let page = page;
                for _ in 0..5 {
                    let (rc, response) = call(page.0, "{\"cmd\":\"pages\"}");
                    assert_eq!(rc, PAGESIGHT_OK, "{response}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("no thread panicked");
    }
    // SAFETY: live handles, each freed once, no thread uses them any more.
    unsafe {
        pagesight_page_free(page.0);
        pagesight_browser_free(browser);
    }
}

/// The pages of a launched browser share its connection: two threads driving one page each
/// at the same time get each their own page's snapshots, and freeing one page leaves the
/// other working.
#[test]
fn two_pages_driven_at_once_over_one_connection() {
    let browser = launch();
    let pages = [
        Shared(open(
            browser,
            "data:text/html,<title>one</title><button>first page</button>",
        )),
        Shared(open(
            browser,
            "data:text/html,<title>two</title><button>second page</button>",
        )),
    ];
    let threads: Vec<_> = pages
        .iter()
        .map(|p| Shared(p.0))
        .zip(["first page", "second page"])
        .map(|(page, label)| {
            std::thread::spawn(move || {
                let page = page;
                for _ in 0..10 {
                    let mut out = ptr::null_mut();
                    // SAFETY: live page, NULL options (defaults), valid out-param.
                    let rc = unsafe {
                        pagesight_page_snapshot(
                            page.0,
                            ptr::null(),
                            ptr::null(),
                            ptr::null(),
                            &mut out,
                        )
                    };
                    assert_eq!(rc, PAGESIGHT_OK, "{}", page_error(page.0));
                    let text = take(out);
                    assert!(text.contains(label), "{label} not in {text}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("no thread panicked");
    }
    let [first, second] = pages;
    // SAFETY: live handle, freed once, no thread uses it any more.
    unsafe { pagesight_page_free(first.0) };
    let (rc, response) = call(second.0, "{\"cmd\":\"snapshot\"}");
    assert_eq!(rc, PAGESIGHT_OK, "{response}");
    assert!(response.contains("second page"), "{response}");
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(second.0);
        pagesight_browser_free(browser);
    }
}

#[test]
fn a_connected_browser_is_only_disconnected_from() {
    let launched = launch_with(Some("{\"debuggingPort\":true}"));
    let pid = browser_pid(launched);
    let mut endpoint = ptr::null_mut();
    // SAFETY: live browser, valid out-param.
    assert_eq!(
        unsafe { pagesight_browser_endpoint(launched, &mut endpoint) },
        PAGESIGHT_OK
    );
    let endpoint = take(endpoint);
    assert!(endpoint.starts_with("ws://127.0.0.1:"), "{endpoint}");

    let endpoint = c(&endpoint);
    let mut connected = ptr::null_mut();
    // SAFETY: valid string and out-params.
    let rc =
        unsafe { pagesight_browser_connect(endpoint.as_ptr(), &mut connected, ptr::null_mut()) };
    assert_eq!(rc, PAGESIGHT_OK);
    let mut other_pid = 0;
    // SAFETY: live browser, valid out-param.
    let rc = unsafe { pagesight_browser_pid(connected, &mut other_pid) };
    assert_eq!(
        rc, PAGESIGHT_INVALID_ARGUMENT,
        "a connected browser has no pid of ours"
    );
    assert_eq!(other_pid, 0);
    let page = open(connected, FORMS);
    let (rc, response) = call(page, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK, "{response}");
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_browser_free(connected);
        pagesight_page_free(page);
    }
    assert!(process_alive(pid), "a connected browser is not closed");
    let page = open(launched, FORMS);
    let (rc, pages) = call(page, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK);
    let pages: serde_json::Value = serde_json::from_str(&pages).unwrap();
    let count = pages["result"].as_array().map_or(0, Vec::len);
    assert!(
        count <= 2,
        "the page freed after its connected browser left its tab open: {pages}"
    );
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_browser_free(launched);
    }
    assert!(!process_alive(pid));
}

#[test]
fn a_panic_inside_becomes_a_result_code() {
    let browser = launch();
    let page = open(browser, FORMS);
    // Calling from inside another tokio runtime makes the library's `block_on` panic: the panic
    // must come back as PAGESIGHT_PANIC with a message, and the handle must stay usable.
    let outer = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let (rc, message) = outer.block_on(async { call(page, "{\"cmd\":\"pages\"}") });
    assert_eq!(rc, PAGESIGHT_PANIC, "{message}");
    assert!(message.contains("panic"), "{message}");
    let (rc, response) = call(page, "{\"cmd\":\"pages\"}");
    assert_eq!(rc, PAGESIGHT_OK, "{response}");
    // The same for a snapshot, which runs as a task of the library's runtime: it must refuse
    // before its session leaves the page, so the page keeps it.
    let mut out: *mut c_char = sentinel();
    let rc = outer.block_on(async {
        // SAFETY: live page, NULL options, valid out-param.
        unsafe { pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out) }
    });
    assert_eq!(rc, PAGESIGHT_PANIC, "{}", page_error(page));
    assert_eq!(out, sentinel(), "nothing is written on failure");
    // SAFETY: live page, NULL options, valid out-param.
    let rc =
        unsafe { pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out) };
    assert_eq!(rc, PAGESIGHT_OK, "{}", page_error(page));
    assert!(take(out).contains("Email"), "the page still has its tab");
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_browser_free(browser);
    }
}
