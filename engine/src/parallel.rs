//! Two independent parts of one snapshot's offline work, run at once on a large page.
//!
//! Why: a snapshot of a long page spends tens of milliseconds in stages that share nothing
//! until a later stage joins them (the accessibility trees and the DOM part of the model; the
//! hit tester and the per-node facts; the uids and the analysis). On a small page a thread
//! costs more than it saves, so callers say when the page is large enough.

/// Runs `a` and `b`, on two threads when `parallel` and the machine has two cores (else one
/// after the other, `a` first), and returns both results. A panic in either is passed on as it
/// would be without threads; a thread that cannot be started leaves `a` to this one.
pub(crate) fn join<A, B, RA, RB>(parallel: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB,
    RA: Send,
{
    if !parallel || !two_cores() {
        let ra = a();
        return (ra, b());
    }
    // Where `a` waits to be taken by whichever thread runs it.
    let slot = std::sync::Mutex::new(Some(a));
    let take = || slot.lock().ok().and_then(|mut a| a.take());
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, || take().map(|a| a()));
        let rb = b();
        let ra = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        };
        let ra = match ra {
            Some(ra) => ra,
            None => take().expect("the first part is run by exactly one thread")(),
        };
        (ra, rb)
    })
}

/// Whether two threads can run at once here (on one core a second thread only takes turns with
/// the first, and costs its start).
pub(crate) fn two_cores() -> bool {
    static TWO: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TWO.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// Drops `value` on a thread of its own when `large`, so that whoever waits for the result it
/// came with does not also wait for it to be freed.
///
/// Why: a snapshot of a long page holds hundreds of thousands of small allocations (names,
/// property and child lists of every accessibility node); freeing them takes milliseconds that
/// nobody needs to wait for.
pub(crate) fn drop_aside<T: Send + 'static>(value: T, large: bool) {
    if !large || !two_cores() {
        return drop(value);
    }
    // Were the thread not started, the closure, and the value with it, is dropped right here.
    let _ = std::thread::Builder::new()
        .name("pagesight-drop".into())
        .spawn(move || drop(value));
}

/// From how many DOM nodes a page is large enough for [`join`] to pay.
pub(crate) const LARGE_PAGE_NODES: usize = 4096;

#[cfg(test)]
mod tests {
    #[test]
    fn both_results_come_back_either_way() {
        for parallel in [false, true] {
            let mut seen = Vec::new();
            let (a, b) = super::join(
                parallel,
                || 2 + 2,
                || {
                    seen.push(1);
                    "b"
                },
            );
            assert_eq!((a, b, seen.len()), (4, "b", 1));
        }
    }

    #[test]
    fn a_value_dropped_aside_is_dropped() {
        struct Flag(std::sync::mpsc::Sender<()>);
        impl Drop for Flag {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        for large in [false, true] {
            let (tx, rx) = std::sync::mpsc::channel();
            super::drop_aside(Flag(tx), large);
            rx.recv_timeout(std::time::Duration::from_secs(10))
                .expect("dropped");
        }
    }

    #[test]
    fn a_panic_is_passed_on() {
        let caught = std::panic::catch_unwind(|| {
            super::join(true, || panic!("boom"), || 1);
        });
        assert!(caught.is_err());
    }
}
