//! Two independent parts of one snapshot's offline work, run at once on a large page.
//!
//! Why: a snapshot of a long page spends tens of milliseconds in stages that share nothing
//! until a later stage joins them (the accessibility trees and the DOM part of the model; the
//! hit tester and the per-node facts; the uids and the analysis). On a small page a thread
//! costs more than it saves, so callers say when the page is large enough.

/// Runs `a` and `b`, on two threads when `parallel` (else one after the other, `a` first), and
/// returns both results. A panic in either is passed on as it would be without threads.
pub(crate) fn join<A, B, RA, RB>(parallel: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB,
    RA: Send,
{
    if !parallel {
        let ra = a();
        return (ra, b());
    }
    std::thread::scope(|scope| {
        let a = scope.spawn(a);
        let rb = b();
        let ra = a
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (ra, rb)
    })
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
    fn a_panic_is_passed_on() {
        let caught = std::panic::catch_unwind(|| {
            super::join(true, || panic!("boom"), || 1);
        });
        assert!(caught.is_err());
    }
}
