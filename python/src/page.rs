//! A page: one tab driven by its own engine `Session` (uid table, previous snapshot). Commands on
//! one page run one at a time, in the order they were called (a fair lock, queued for at the
//! call); different pages run at the same time.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use pyo3::prelude::*;
use tokio::sync::{Mutex, OwnedMutexGuard};

use pagesight::command::Command;
use pagesight::render::Format;
use pagesight::session::Session;
use pagesight::snapshot::render_snapshot;
use pagesight::{Error, ErrorCode};

use crate::browser::in_runtime;
use crate::convert::{from_python, Json};
use crate::settle::awaitable;
use crate::{engine_error, snapshot_options, tree_options};

/// How long closing a page may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// One tab of a browser. Made by `Browser.open`; `close()` closes the tab.
#[pyclass(module = "pagesight._native", name = "Page", frozen)]
pub struct NativePage {
    /// `None` once the page is closed. A command holds the lock while it runs; cancelling it
    /// drops its future and the lock with it, and leaves the session in place.
    session: Arc<Mutex<Option<Session>>>,
    target_id: String,
}

impl NativePage {
    pub(crate) fn new(session: Session) -> Self {
        NativePage {
            target_id: session.current_target().unwrap_or_default().to_owned(),
            session: Arc::new(Mutex::new(Some(session))),
        }
    }
}

/// A command's place in the queue for its page's session.
enum Queued {
    Held(OwnedMutexGuard<Option<Session>>),
    Waiting(Pin<Box<dyn Future<Output = OwnedMutexGuard<Option<Session>>> + Send>>),
}

impl Queued {
    /// Queues for the session now, on the calling thread: the lock is fair, so commands on one
    /// page run in the order they were called, whichever runtime thread starts them first.
    fn now(session: &Arc<Mutex<Option<Session>>>) -> Queued {
        let mut lock = Box::pin(Arc::clone(session).lock_owned());
        // The first poll puts the command in the lock's queue (or takes the lock); the waker
        // is replaced by the runtime's when the command is awaited there.
        match lock.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(guard) => Queued::Held(guard),
            Poll::Pending => Queued::Waiting(lock),
        }
    }

    /// The session, once the commands before this one are done; an error if the page was
    /// closed meanwhile.
    async fn session(self) -> PyResult<OwnedMutexGuard<Option<Session>>> {
        let guard = match self {
            Queued::Held(guard) => guard,
            Queued::Waiting(lock) => lock.await,
        };
        if guard.is_none() {
            return Err(closed_page());
        }
        Ok(guard)
    }
}

fn closed_page() -> PyErr {
    engine_error(Error::invalid_argument(
        "this page was closed; open a new one with browser.open(url)",
    ))
}

#[pymethods]
impl NativePage {
    /// Runs one command of the session protocol, given as a dict of its fields with `cmd`
    /// naming it (`{"cmd": "click", "uid": "1_4"}`), and answers with its result as plain
    /// Python objects (the result's JSON form). The command is read before anything is
    /// awaited, so a bad field raises at once.
    fn execute<'py>(
        &self,
        py: Python<'py>,
        command: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let command = Command::from_json(&from_python(command)?).map_err(engine_error)?;
        let queued = Queued::now(&self.session);
        awaitable(py, async move {
            let mut guard = queued.session().await?;
            let session = guard.as_mut().ok_or_else(closed_page)?;
            let response = session.execute(command).await.map_err(engine_error)?;
            Ok(Json(response.to_json()))
        })
    }

    /// Takes a snapshot with the `snapshot` command's `options` (a dict of its fields) and
    /// answers `(output, tree)`: the output as the command's result (the text, the budgeted
    /// object, or the JSON document), and with `tree` the JSON document of the same snapshot
    /// (same uids) as text, rendered again from the page's last snapshot without asking the
    /// browser.
    #[pyo3(signature = (options=None, tree=true))]
    fn snapshot<'py>(
        &self,
        py: Python<'py>,
        options: Option<&Bound<'py, PyAny>>,
        tree: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = snapshot_options(options)?;
        let queued = Queued::now(&self.session);
        awaitable(py, async move {
            let mut guard = queued.session().await?;
            let session = guard.as_mut().ok_or_else(closed_page)?;
            let output = session.snapshot(&options).await.map_err(engine_error)?;
            let tree = match tree && options.format != Format::Json {
                true => session
                    .last_snapshot()
                    .map(|last| render_snapshot(last, &tree_options(&options))),
                false => None,
            };
            let output = output.to_json().map_err(engine_error)?;
            Ok((Json(output), tree))
        })
    }

    /// Closes the tab and lets its session go. Closing twice does nothing; a tab whose browser
    /// is gone went with it.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let queued = Queued::now(&self.session);
        awaitable(py, async move {
            let Ok(mut guard) = queued.session().await else {
                return Ok(());
            };
            let Some(mut session) = guard.take() else {
                return Ok(());
            };
            let closed = tokio::time::timeout(CLOSE_TIMEOUT, async move {
                let closed = match session.current_page() {
                    Some(_) => session.close().await.map(drop),
                    None => Ok(()),
                };
                let _ = session.shutdown().await;
                closed
            })
            .await;
            match closed {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) if e.code() == ErrorCode::BrowserClosed => Ok(()),
                Ok(Err(e)) => Err(engine_error(e)),
                Err(_) => Err(engine_error(Error::timeout(
                    "the browser to close the tab (the page is let go anyway)",
                ))),
            }
        })
    }

    /// Chromium's id of the tab.
    #[getter]
    fn target_id(&self) -> String {
        self.target_id.clone()
    }
}

impl Drop for NativePage {
    fn drop(&mut self) {
        // Never closed by the caller: the session's connection handles are let go inside the
        // runtime; the tab stays until the browser closes.
        if let Ok(mut slot) = self.session.try_lock() {
            if let Some(session) = slot.take() {
                in_runtime(|| drop(session));
            }
        }
    }
}
