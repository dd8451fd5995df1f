//! What the C ABI costs on top of the engine: one `snapshot` of the same page through
//! `pagesight_page_snapshot` and through `Session::snapshot` in Rust (run as a task of its
//! runtime, as the command line runs it), alternating, each in a browser of its own; and the offline
//! render through `pagesight_render_capture` against `render_capture`. Prints medians of wall
//! time, and per live snapshot the means of this process's CPU time (all its threads: the
//! caller's and the runtimes'; the browser's is left out) and of its threads' sleeps.
//!
//! `cargo run --release -p pagesight-capi --example overhead -- [PAGE] [CAPTURE] [RUNS]
//! [LAUNCH_JSON]`: `LAUNCH_JSON` is the options JSON of the C ABI's browser, e.g.
//! `{"debuggingPort":true}` to have it listen on a DevTools port too, as it always did before
//! that became opt-in.
//!
//! Why two browsers: with both pages in one, the page opened last was the faster to snapshot
//! by 40 to 50 ms on python's `stdtypes` (Chromium favours its newest tab), whichever way it was
//! driven.

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

/// CPU time used so far by every thread of this process, and how many times its threads went
/// to sleep waiting (each one a wake-up to pay).
fn process_cpu() -> (Duration, i64) {
    // SAFETY: an all-zero `rusage` is a valid value, filled in by `getrusage`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a `rusage`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    let cpu = Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime));
    (cpu, usage.ru_nvcsw)
}

/// What `process_cpu` counted since `before`.
fn used_since(before: (Duration, i64)) -> (Duration, i64) {
    let now = process_cpu();
    (now.0 - before.0, now.1 - before.1)
}

/// Mean CPU milliseconds and sleeps of `samples`.
fn means(samples: &[(Duration, i64)]) -> (f64, f64) {
    let n = samples.len().max(1) as f64;
    let cpu: Duration = samples.iter().map(|s| s.0).sum();
    let sleeps: i64 = samples.iter().map(|s| s.1).sum();
    (ms(cpu) / n, sleeps as f64 / n)
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
    let launch_options = args
        .next()
        .map(|json| CString::new(json).expect("launch options without NUL"));

    // Live: one browser through the C ABI, another for a Rust session.
    let mut browser = ptr::null_mut();
    let mut error = ptr::null_mut();
    let options = launch_options.as_ref().map_or(ptr::null(), |o| o.as_ptr());
    // SAFETY: NULL or a valid string, valid out-params.
    let rc = unsafe { pagesight_browser_launch(options, &mut browser, &mut error) };
    assert_eq!(rc, PAGESIGHT_OK, "launch: {}", take(error));
    let url = CString::new(page_path.to_string_lossy().as_bytes()).expect("a path without NUL");
    let mut page = ptr::null_mut();
    // SAFETY: live browser, valid string and out-param.
    let rc = unsafe { pagesight_page_open(browser, url.as_ptr(), &mut page) };
    assert_eq!(rc, PAGESIGHT_OK, "open failed");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut session = runtime
        .block_on(Session::start(SessionOptions::default()))
        .expect("a Rust session in a browser of its own");
    runtime
        .block_on(session.open(&page_path.to_string_lossy()))
        .expect("the page opens");
    let options = SnapshotOptions::default();

    let (mut through_c, mut in_rust) = (Vec::new(), Vec::new());
    let (mut c_cpu, mut rust_cpu) = (Vec::new(), Vec::new());
    let (mut c_len, mut rust_len) = (0, 0);
    for i in 0..runs + 5 {
        let cpu = process_cpu();
        let start = Instant::now();
        let mut out = ptr::null_mut();
        // SAFETY: live page, NULL options (defaults), valid out-param.
        let rc = unsafe {
            pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out)
        };
        assert_eq!(rc, PAGESIGHT_OK);
        c_len = take(out).len();
        let c_time = start.elapsed();
        let c_used = used_since(cpu);

        // As the command line runs the engine: a task of the runtime.
        let cpu = process_cpu();
        let start = Instant::now();
        let snapshot = runtime.spawn(async move {
            let text = session
                .snapshot(&SnapshotOptions::default())
                .await
                .map(|s| s.text);
            (session, text)
        });
        let text;
        (session, text) = runtime.block_on(snapshot).expect("the task ends");
        rust_len = text.expect("a snapshot").len();
        let rust_time = start.elapsed();
        let rust_used = used_since(cpu);
        if i >= 5 {
            through_c.push(c_time);
            in_rust.push(rust_time);
            c_cpu.push(c_used);
            rust_cpu.push(rust_used);
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
    let ((c_ms, c_sleeps), (rust_ms, rust_sleeps)) = (means(&c_cpu), means(&rust_cpu));
    println!(
        "this process per live snapshot, mean of {runs}: CPU C ABI {c_ms:.3} ms, Rust \
         {rust_ms:.3} ms; sleeps of its threads C ABI {c_sleeps:.1}, Rust {rust_sleeps:.1}"
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
