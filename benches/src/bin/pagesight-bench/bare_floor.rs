//! The least CPU any client spends on a snapshot: a bare, blocking client of Chromium's pipe.
//!
//! The live bench's `floor CPU` is the floor's own CPU through the engine's transport (tokio,
//! the connection task, the envelope of each reply read). This bench asks what is left without
//! any of that: one thread, blocking reads and writes on `--remote-debugging-pipe`, no runtime,
//! no JSON read beyond the `"id"` that starts each reply. What it spends is the kernel's pipe
//! reads and writes and the wake-ups between them, which every client pays; it is read against
//! the browser's CPU over the same snapshots.
//!
//! Each snapshot sends what the engine's capture sends for the default view of a page at most
//! three views tall (taken whole): `Page.getFrameTree`, `Page.getLayoutMetrics`,
//! `Page.createIsolatedWorld` and `DOMSnapshot.captureSnapshot` (the engine's styles, paint
//! order, no DOM rects) written together, then `Accessibility.getFullAXTree` and
//! `Page.getFrameTree` again. The boxes' rectangles the engine then reads are left out, so the
//! figure is a lower bound. A taller page's default view asks for part of its accessibility
//! tree instead; measure such a page with the live bench.
//!
//! It launches its own Chromium as the engine does (`PipeBrowser`: the engine's flags, a
//! temporary profile removed afterwards), so that nothing else shares the pipe, and kills only
//! that process. Its reads never block: one that finds nothing waits in `poll`, which gives up
//! after two minutes without a byte.
//!
//! `--pause MS` waits that long before each timed snapshot, as an agent does between two
//! (the client's and the browser's CPU during the pauses is left out): how much more a snapshot
//! costs both sides once they were idle.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- bare-floor [--snapshots 2000]
//!     [--pause MS] [--page PATH_OR_URL]... [--chrome PATH]
//! ```

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use pagesight::browser::PipeBrowser;
use pagesight::capture::COMPUTED_STYLES;
use pagesight_benches::{ms_fine, page_name, page_url, process_tree_cpu, usage};

use crate::shared::{Chrome, Pages, Snapshots};

/// How long the browser may send nothing before the bench gives up.
const STALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Options of `bare-floor`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    snapshots: Snapshots,
    /// Wait this long before each timed snapshot, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pause: u64,
    #[command(flatten)]
    pages: Pages,
    #[command(flatten)]
    chrome: Chrome,
}

pub fn run(args: &Args) -> Result<(), String> {
    let pages = args.pages.or_small_fixtures();
    let urls = pages
        .iter()
        .map(|page| Ok((page.as_str(), page_url(page)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let mut browser = BareBrowser::launch(args.chrome.path.as_deref())?;
    println!(
        "| page | snapshots | ms per snapshot | client CPU ms | browser CPU ms | client CPU / browser CPU |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let result = urls
        .iter()
        .try_for_each(|(page, url)| measure(&mut browser, page, url, args));
    // Dropping the browser kills it and removes its profile.
    result
}

fn measure(
    browser: &mut BareBrowser,
    location: &str,
    url: &str,
    args: &Args,
) -> Result<(), String> {
    let snapshots = args.snapshots.snapshots;
    let pause = Duration::from_millis(args.pause);
    let session = browser.open(url)?;
    let styles = serde_json::to_string(COMPUTED_STYLES).map_err(|e| e.to_string())?;
    let snapshot = format!(
        r#"{{"computedStyles":{styles},"includePaintOrder":true,"includeDOMRects":false}}"#
    );
    let world = r#"{"frameId":"FRAME","worldName":"pagesight-bare-floor"}"#
        .replace("FRAME", &browser.main_frame(&session)?);
    let first: [(&str, &str); 4] = [
        ("Page.getFrameTree", "{}"),
        ("Page.getLayoutMetrics", "{}"),
        ("Page.createIsolatedWorld", &world),
        ("DOMSnapshot.captureSnapshot", &snapshot),
    ];
    let second: [(&str, &str); 2] = [
        ("Accessibility.getFullAXTree", "{}"),
        ("Page.getFrameTree", "{}"),
    ];
    let one = |browser: &mut BareBrowser| -> Result<(), String> {
        browser.call(&session, &first)?;
        browser.call(&session, &second).map(drop)
    };
    // Untimed: Chromium builds its accessibility tree and warms its caches.
    for _ in 0..3 {
        one(browser)?;
    }
    let (b0, u0, t0) = (
        process_tree_cpu(browser.browser.pid()),
        usage(),
        Instant::now(),
    );
    // What both sides spent while paused, and how long that was.
    let (mut paused_client, mut paused_chromium, mut paused) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..snapshots {
        if !pause.is_zero() {
            let pid = browser.browser.pid();
            let (b, u, t) = (process_tree_cpu(pid), usage(), Instant::now());
            std::thread::sleep(pause);
            paused_client += usage().cpu.saturating_sub(u.cpu);
            paused_chromium += process_tree_cpu(pid).saturating_sub(b);
            paused += t.elapsed();
        }
        one(browser)?;
    }
    let elapsed = t0.elapsed().saturating_sub(paused);
    let client = usage()
        .cpu
        .saturating_sub(u0.cpu)
        .saturating_sub(paused_client);
    let chromium = process_tree_cpu(browser.browser.pid())
        .saturating_sub(b0)
        .saturating_sub(paused_chromium);
    let per = |d: Duration| d.div_f64(snapshots as f64);
    let share = if chromium.is_zero() {
        "n/a".to_string()
    } else {
        format!(
            "{:.1}%",
            100.0 * client.as_secs_f64() / chromium.as_secs_f64()
        )
    };
    let name = page_name(location);
    println!(
        "| {} | {snapshots} | {} | {:.3} | {} | {share} |",
        name,
        ms_fine(per(elapsed)),
        per(client).as_secs_f64() * 1e3,
        ms_fine(per(chromium)),
    );
    browser.close_target(&session)
}

/// A Chromium launched with `--remote-debugging-pipe` ([`PipeBrowser`]), driven by plain reads
/// and writes on this thread.
struct BareBrowser {
    browser: PipeBrowser,
    /// Bytes read and not yet split into messages.
    pending: Vec<u8>,
    next_id: u64,
}

impl BareBrowser {
    fn launch(chrome: Option<&Path>) -> Result<BareBrowser, String> {
        let browser = PipeBrowser::launch(chrome).map_err(|e| e.to_string())?;
        // Reads that find nothing return at once and wait in `poll`, which can give up: a
        // stuck browser ends the run with an error rather than hanging it.
        let fd = browser.replies().as_raw_fd();
        // SAFETY: F_GETFL / F_SETFL on a descriptor the browser handle keeps open.
        let set = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
        };
        if !set {
            return Err(format!(
                "could not make the pipe non-blocking: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(BareBrowser {
            browser,
            pending: Vec::new(),
            next_id: 0,
        })
    }

    /// A new page at `url`, loaded, in a 1280x800 view as the engine's pages: its session id.
    fn open(&mut self, url: &str) -> Result<String, String> {
        let created = self.call("", &[("Target.createTarget", r#"{"url":"about:blank"}"#)])?;
        let target = string_at(&created[0], "/result/targetId")?;
        let attach = format!(r#"{{"targetId":"{target}","flatten":true}}"#);
        let attached = self.call("", &[("Target.attachToTarget", &attach)])?;
        let session = string_at(&attached[0], "/result/sessionId")?;
        let view = r#"{"width":1280,"height":800,"deviceScaleFactor":1,"mobile":false}"#;
        self.call(
            &session,
            &[
                ("Page.enable", "{}"),
                ("Emulation.setDeviceMetricsOverride", view),
            ],
        )?;
        self.navigate(&session, url)?;
        Ok(session)
    }

    fn main_frame(&mut self, session: &str) -> Result<String, String> {
        let tree = self.call(session, &[("Page.getFrameTree", "{}")])?;
        string_at(&tree[0], "/result/frameTree/frame/id")
    }

    fn close_target(&mut self, session: &str) -> Result<(), String> {
        self.call(session, &[("Page.close", "{}")]).map(drop)
    }

    /// Writes `commands` at once, then reads until each has its reply; the replies in order.
    fn call(&mut self, session: &str, commands: &[(&str, &str)]) -> Result<Vec<Vec<u8>>, String> {
        let first = self.write(session, commands)?;
        let mut replies: Vec<Option<Vec<u8>>> = vec![None; commands.len()];
        while replies.iter().any(Option::is_none) {
            let message = self.next_message()?;
            self.take_reply(message, first, commands, &mut replies)?;
        }
        Ok(replies.into_iter().flatten().collect())
    }

    /// Writes `commands` at once; the id of the first (the others follow it).
    fn write(&mut self, session: &str, commands: &[(&str, &str)]) -> Result<u64, String> {
        let mut out = Vec::new();
        let first = self.next_id + 1;
        for (method, params) in commands {
            self.next_id += 1;
            let session = if session.is_empty() {
                String::new()
            } else {
                format!(r#","sessionId":"{session}""#)
            };
            write!(
                out,
                r#"{{"id":{},"method":"{method}"{session},"params":{params}}}"#,
                self.next_id
            )
            .map_err(|e| e.to_string())?;
            out.push(0);
        }
        self.browser
            .commands()
            .write_all(&out)
            .map_err(|e| format!("writing to the browser: {e}"))?;
        Ok(first)
    }

    /// Puts `message` in its slot of `replies` if it answers one of `commands` (written from
    /// id `first` on); an error reply fails.
    fn take_reply(
        &self,
        message: Vec<u8>,
        first: u64,
        commands: &[(&str, &str)],
        replies: &mut [Option<Vec<u8>>],
    ) -> Result<(), String> {
        let Some(id) = reply_id(&message) else {
            return Ok(());
        };
        let Some(k) = id
            .checked_sub(first)
            .and_then(|k| usize::try_from(k).ok())
            .filter(|k| *k < replies.len())
        else {
            return Ok(());
        };
        if message.starts_with(format!(r#"{{"id":{id},"error""#).as_bytes()) {
            return Err(format!(
                "{} failed: {}",
                commands[k].0,
                String::from_utf8_lossy(&message[..message.len().min(300)])
            ));
        }
        replies[k] = Some(message);
        Ok(())
    }

    /// Navigates the page of `session` to `url` and waits for both the reply and the page's
    /// `load`, whichever comes first.
    fn navigate(&mut self, session: &str, url: &str) -> Result<(), String> {
        let url = serde_json::to_string(url).map_err(|e| e.to_string())?;
        let params = format!(r#"{{"url":{url}}}"#);
        let commands = [("Page.navigate", params.as_str())];
        let first = self.write(session, &commands)?;
        let mut reply = [None];
        let mut loaded = false;
        while reply[0].is_none() || !loaded {
            let message = self.next_message()?;
            loaded |=
                memchr::memmem::find(&message, br#""method":"Page.loadEventFired""#).is_some();
            self.take_reply(message, first, &commands, &mut reply)?;
        }
        Ok(())
    }

    /// The next NUL-terminated message, read with blocking reads.
    fn next_message(&mut self) -> Result<Vec<u8>, String> {
        let mut scanned = 0;
        loop {
            if let Some(end) = memchr::memchr(0, &self.pending[scanned..]) {
                let end = scanned + end;
                let rest = self.pending.split_off(end + 1);
                let mut message = std::mem::replace(&mut self.pending, rest);
                message.pop();
                return Ok(message);
            }
            scanned = self.pending.len();
            let mut chunk = [0u8; 64 * 1024];
            match self.browser.replies().read(&mut chunk) {
                Ok(0) => return Err("the browser closed its pipe (it exited)".to_string()),
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => self.wait_readable()?,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading from the browser: {e}")),
            }
        }
    }

    /// Waits until the browser has written something, at most [`STALL_TIMEOUT`].
    fn wait_readable(&self) -> Result<(), String> {
        let mut ready = libc::pollfd {
            fd: self.browser.replies().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = i32::try_from(STALL_TIMEOUT.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd for the duration of the call.
        match unsafe { libc::poll(&mut ready, 1, timeout) } {
            0 => Err(format!(
                "the browser sent nothing for {} s",
                STALL_TIMEOUT.as_secs()
            )),
            n if n < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted =>
            {
                Err(format!(
                    "waiting for the browser: {}",
                    std::io::Error::last_os_error()
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The id a reply starts with (`{"id":N,`); events have none.
fn reply_id(message: &[u8]) -> Option<u64> {
    let digits = message.strip_prefix(br#"{"id":"#)?;
    let end = digits.iter().position(|b| !b.is_ascii_digit())?;
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// The string at `pointer` in a small reply.
fn string_at(message: &[u8], pointer: &str) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_slice(message).map_err(|e| format!("a reply does not parse: {e}"))?;
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("no {pointer} in a reply"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_replies_have_an_id() {
        assert_eq!(reply_id(br#"{"id":42,"result":{}}"#), Some(42));
        assert_eq!(reply_id(br#"{"id":7,"error":{"code":-32000}}"#), Some(7));
        assert_eq!(
            reply_id(br#"{"method":"Page.loadEventFired","params":{}}"#),
            None
        );
        assert_eq!(reply_id(br#"{"id":"#), None);
        assert_eq!(reply_id(b""), None);
    }

    #[test]
    fn a_missing_string_is_an_error_not_a_panic() {
        let reply = br#"{"id":1,"result":{"targetId":"T1"}}"#;
        assert_eq!(string_at(reply, "/result/targetId"), Ok("T1".to_string()));
        assert!(string_at(reply, "/result/sessionId").is_err());
        assert!(string_at(br#"{"id":1,"result":{"targetId":5}}"#, "/result/targetId").is_err());
        assert!(string_at(b"not json", "/result/targetId").is_err());
    }
}
