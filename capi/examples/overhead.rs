//! What the C ABI costs on top of the engine: one `snapshot` of the same page through
//! `pagesight_page_snapshot` and through `Session::snapshot_text` in Rust, alternating, in the
//! same browser; and the offline render through `pagesight_render_capture` against
//! `render_capture`. Prints medians.
//!
//! `cargo run --release -p pagesight-capi --example overhead -- [PAGE] [CAPTURE] [RUNS]`

use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::ptr;
use std::time::{Duration, Instant};

use engine::session::{Session, SessionOptions};
use engine::snapshot::{render_capture, SnapshotOptions};
use pagesight::pagesight_result::PAGESIGHT_OK;
use pagesight::*;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn take(s: *mut c_char) -> String {
    // SAFETY: a string this library returned, not freed yet.
    let text = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    // SAFETY: as above; freed once.
    unsafe { pagesight_string_free(s) };
    text
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut args = std::env::args().skip(1);
    let page_path = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("fixtures/pages/forms.html"));
    let capture_path = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("fixtures/captures/checkout.json.gz"));
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(50);

    // Live: one browser through the C ABI; a Rust session connected to the same browser.
    let mut browser = ptr::null_mut();
    let mut error = ptr::null_mut();
    // SAFETY: valid out-params.
    let rc = unsafe { pagesight_browser_launch(ptr::null(), &mut browser, &mut error) };
    assert_eq!(rc, PAGESIGHT_OK, "launch: {}", take(error));
    let url = CString::new(page_path.to_string_lossy().as_bytes()).expect("a path without NUL");
    let mut page = ptr::null_mut();
    // SAFETY: live browser, valid string and out-param.
    let rc = unsafe { pagesight_page_open(browser, url.as_ptr(), &mut page) };
    assert_eq!(rc, PAGESIGHT_OK, "open failed");
    let mut endpoint = ptr::null_mut();
    // SAFETY: live browser, valid out-param.
    assert_eq!(
        unsafe { pagesight_browser_endpoint(browser, &mut endpoint) },
        PAGESIGHT_OK
    );
    let endpoint = take(endpoint);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut session = runtime
        .block_on(Session::start(SessionOptions {
            browser: Some(endpoint),
            ..SessionOptions::default()
        }))
        .expect("a Rust session on the same browser");
    runtime
        .block_on(session.open(&page_path.to_string_lossy()))
        .expect("the page opens");
    let options = SnapshotOptions::default();

    let (mut through_c, mut in_rust) = (Vec::new(), Vec::new());
    let (mut c_len, mut rust_len) = (0, 0);
    for i in 0..runs + 5 {
        let start = Instant::now();
        let mut out = ptr::null_mut();
        // SAFETY: live page, NULL options (defaults), valid out-param.
        let rc = unsafe {
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out)
        };
        assert_eq!(rc, PAGESIGHT_OK);
        c_len = take(out).len();
        let c_time = start.elapsed();

        let start = Instant::now();
        rust_len = runtime
            .block_on(session.snapshot_text(&options))
            .expect("a snapshot")
            .len();
        let rust_time = start.elapsed();
        if i >= 5 {
            through_c.push(c_time);
            in_rust.push(rust_time);
        }
    }
    let (c, rust) = (median(through_c), median(in_rust));
    println!(
        "live snapshot of {} ({c_len} / {rust_len} bytes), median of {runs}: C ABI {:.3} ms, Rust {:.3} ms, overhead {:+.3} ms",
        page_path.display(),
        ms(c),
        ms(rust),
        ms(c) - ms(rust)
    );
    let _ = runtime.block_on(session.shutdown());
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_browser_free(browser);
    }

    // Offline.
    let bytes = std::fs::read(&capture_path).expect("the capture file");
    let (mut through_c, mut in_rust) = (Vec::new(), Vec::new());
    for i in 0..runs + 5 {
        let start = Instant::now();
        let mut out = ptr::null_mut();
        // SAFETY: a valid buffer, NULL options, valid out-param.
        let rc = unsafe {
            pagesight_render_capture(
                bytes.as_ptr(),
                bytes.len(),
                ptr::null(),
                ptr::null(),
                &mut out,
                ptr::null_mut(),
            )
        };
        assert_eq!(rc, PAGESIGHT_OK);
        drop(take(out));
        let c_time = start.elapsed();
        let start = Instant::now();
        let text = render_capture(&bytes, &options).expect("the capture renders");
        drop(text);
        let rust_time = start.elapsed();
        if i >= 5 {
            through_c.push(c_time);
            in_rust.push(rust_time);
        }
    }
    let (c, rust) = (median(through_c), median(in_rust));
    println!(
        "offline render of {}, median of {runs}: C ABI {:.3} ms, Rust {:.3} ms, overhead {:+.3} ms",
        capture_path.display(),
        ms(c),
        ms(rust),
        ms(c) - ms(rust)
    );
}
