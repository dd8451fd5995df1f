//! Leaving the interpreter without a crash. Each awaitable is completed from a thread of the
//! runtime's blocking pool: `pyo3-async-runtimes` hands the result to the event loop with
//! `loop.call_soon_threadsafe`, which lets go of the GIL while it wakes the loop, then takes it
//! back. A program that ends right after its last `await` can reach the interpreter's
//! finalization in between, and CPython (before 3.14) ends a thread that asks for the GIL then
//! with `pthread_exit`, whose unwinding through the runtime's Rust frames aborts the process.
//!
//! So the package counts its awaitables, and at exit (an `atexit` hook, which runs before the
//! interpreter starts finalizing) lets go of the GIL until every one has completed and the
//! last completed a moment ago: long enough for its hand-over to the loop to be done.

use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3_async_runtimes::tokio::future_into_py;

/// Awaitables whose engine future has not completed.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
/// When the last one completed, in microseconds since `epoch()` (0: none yet).
static LAST_DONE: AtomicU64 = AtomicU64::new(0);

/// How long after the last completion its hand-over to the event loop is taken to be done.
const HAND_OVER: Duration = Duration::from_millis(25);
/// The longest the exit waits for awaitables still running (one never awaited again, say).
const EXIT_LIMIT: Duration = Duration::from_millis(500);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn micros_since_epoch() -> u64 {
    u64::try_from(epoch().elapsed().as_micros())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// One awaitable counted from its creation to its engine future's end (or drop).
struct Counted;

impl Counted {
    fn new() -> Counted {
        epoch();
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        Counted
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LAST_DONE.store(micros_since_epoch(), Ordering::SeqCst);
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `future_into_py`, counted for the exit.
pub(crate) fn awaitable<F, T>(py: Python<'_>, future: F) -> PyResult<Bound<'_, PyAny>>
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: for<'py> IntoPyObject<'py> + Send + 'static,
{
    let counted = Counted::new();
    future_into_py(py, async move {
        let _counted = counted;
        future.await
    })
}

/// The `atexit` hook: waits, without the GIL, for the awaitables' hand-overs to be done.
#[pyfunction]
pub(crate) fn _settle(py: Python<'_>) {
    py.detach(|| {
        let start = Instant::now();
        loop {
            let last = LAST_DONE.load(Ordering::SeqCst);
            let settled = IN_FLIGHT.load(Ordering::SeqCst) == 0
                && (last == 0
                    || micros_since_epoch().saturating_sub(last)
                        >= u64::try_from(HAND_OVER.as_micros()).unwrap_or(u64::MAX));
            if settled || start.elapsed() >= EXIT_LIMIT {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}
