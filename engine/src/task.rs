//! How a program that is not itself async should run pagesight's work on its runtime.
//!
//! Why not `runtime.block_on(work)`: the connection's replies are read by a task on one of the
//! runtime's worker threads. A future driven by `block_on` on the caller's own thread must have
//! that thread woken through a futex for every reply (about ten per snapshot of a small page, a
//! quarter of the engine's CPU time for it); run as a task, the future takes each reply up on
//! the thread that read it, and the caller is woken once, at the end.

use std::future::Future;

use tokio::runtime::Runtime;

use crate::error::{Error, ErrorCode, Result};

/// Runs `work` to its end as a task of `runtime`, this thread waiting for it. A panic in `work`
/// is passed on to this thread as it would be without the task; a task cancelled (the runtime
/// shut down under it) is an error.
pub fn block_on_task<F>(runtime: &Runtime, work: F) -> Result<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match runtime.block_on(runtime.spawn(work)) {
        Ok(output) => Ok(output),
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => Err(Error::new(
                ErrorCode::BrowserClosed,
                format!("the runtime stopped before the work was done ({e})"),
            )),
        },
    }
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
    fn the_output_comes_back_and_a_panic_is_passed_on() {
        let runtime = runtime();
        let out = block_on_task(&runtime, async { 2 + 2 }).expect("done");
        assert_eq!(out, 4);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            block_on_task(&runtime, async { panic!("boom") })
        }));
        assert!(caught.is_err());
    }
}
