//! `wait_for`: waiting until one of some texts shows on the page, and reading a value of the
//! page in the isolated world (`resize` reads the viewport back with it).
//!
//! Why polling the text and not snapshots: a snapshot of a large page costs tens to hundreds
//! of milliseconds of the browser's time, and a wait polls every [`POLL`]. What is asked is
//! only "is this text shown yet", which `innerText` answers — the text as rendered, without
//! what `display:none` or `visibility:hidden` hide — plus the text in open shadow roots. It is
//! read in the isolated world of every frame of the page and of its out-of-process frames
//! (the frames a snapshot covers), so a page cannot fake it or be disturbed by it, and compared
//! with runs of white space made one space.
//!
//! Why a dialog ends the wait: a page blocked by a dialog shows nothing new until it is
//! answered, so the wait ends at once with the dialog in its result, as an action's does.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::dialog::{self, Raced};
use super::remote::Frames;
use super::scope::Worlds;
use super::ActState;
use crate::browser::Page;
use crate::cdp::runtime::EvaluateParams;
use crate::error::{Error, ErrorCode, Result};
use crate::response::Waited;

/// How often the page's text is read.
const POLL: Duration = Duration::from_millis(100);

/// The index of the first of `want` the document shows, or -1. `%WANT%` is the JSON list.
const FIND_JS: &str = "(()=>{const want=%WANT%;const b=document.body||document.documentElement;\
    if(!b)return -1;const parts=[b.innerText||''];\
    const walk=(root,depth)=>{if(depth>16)return;for(const e of root.querySelectorAll('*')){\
      const s=e.shadowRoot;if(!s)continue;\
      for(const c of s.children)parts.push(c.innerText||c.textContent||'');walk(s,depth+1);}};\
    walk(document,0);\
    const hay=parts.join('\\n').replace(/\\s+/g,' ');\
    for(let i=0;i<want.length;i++){if(hay.includes(want[i]))return i;}return -1})()";

/// Waits until one of `texts` shows in a frame of the page, at most `timeout`.
pub(crate) async fn wait_for_text(
    page: &Page,
    state: &mut ActState,
    texts: &[String],
    timeout: Duration,
) -> Result<Waited> {
    if let Some(d) = state.dialogs.current() {
        return Err(dialog::blocked(d));
    }
    let wanted: Vec<String> = texts
        .iter()
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let js = FIND_JS.replace(
        "%WANT%",
        &serde_json::to_string(&wanted).unwrap_or_else(|_| "[]".into()),
    );
    let start = Instant::now();
    let deadline = start + timeout;
    let worlds = &state.worlds;
    let polls = async {
        loop {
            if let Ok(Some(i)) = tokio::time::timeout_at(deadline, find(page, worlds, &js)).await {
                return Some(i);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            tokio::time::sleep_until((now + POLL).min(deadline)).await;
        }
    };
    let waited = |start: Instant| u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    match state.dialogs.race(polls).await {
        Raced::Done(Some(i)) => Ok(Waited {
            found: texts.get(i).cloned(),
            waited: waited(start),
            dialog: None,
        }),
        Raced::Done(None) => {
            let list = texts
                .iter()
                .map(|t| serde_json::to_string(t).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(", ");
            let which = if texts.len() > 1 { "none of " } else { "" };
            Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "{which}{list} did not appear on the page within {} ms; take a snapshot to \
                     see what it shows, or wait again (timeout up to 60000 ms)",
                    timeout.as_millis()
                ),
            ))
        }
        Raced::Dialog(d) => Ok(Waited {
            found: None,
            waited: waited(start),
            dialog: Some(d.to_dialog()),
        }),
    }
}

/// One look at every frame: the lowest index of a wanted text any of them shows.
async fn find(page: &Page, worlds: &Worlds, js: &str) -> Option<usize> {
    let mut sessions = vec![page.clone()];
    sessions.extend(page.frame_targets().iter().map(|t| page.frame_session(t)));
    let mut best: Option<usize> = None;
    for session in &sessions {
        let Ok(frames) = Frames::read(session).await else {
            continue;
        };
        for (frame, loader) in frames.documents() {
            let Some(world) = worlds.context(session, frame, loader).await else {
                continue;
            };
            let Some(i) = evaluate(session, world, js)
                .await
                .and_then(|v| v.as_i64())
                .and_then(|i| usize::try_from(i).ok())
            else {
                continue;
            };
            if i == 0 {
                return Some(0);
            }
            best = Some(best.map_or(i, |b| b.min(i)));
        }
    }
    best
}

/// Evaluates `js` in an isolated world; `None` when the world is gone or the script failed.
pub(crate) async fn evaluate(session: &Page, world: i64, js: &str) -> Option<Value> {
    let reply = session
        .send(&EvaluateParams {
            context_id: Some(world),
            return_by_value: Some(true),
            silent: Some(true),
            ..EvaluateParams::new(js.to_string())
        })
        .await
        .ok()?;
    if reply.exception_details.is_some() {
        return None;
    }
    reply.result.value
}

/// Evaluates `js` in the isolated world of the page's main frame.
pub(crate) async fn page_value(page: &Page, worlds: &Worlds, js: &str) -> Result<Value> {
    let frames = Frames::read(page).await?;
    let world = worlds
        .context(page, &frames.main_frame, frames.main_loader())
        .await
        .ok_or_else(|| {
            Error::protocol("Chromium did not create an isolated world in the page; try again")
        })?;
    evaluate(page, world, js)
        .await
        .ok_or_else(|| Error::protocol("the page did not answer a read of its state; try again"))
}
