//! The least CPU any client spends on a snapshot: a bare, blocking client of Chromium's pipe.
//!
//! The live bench's `floor CPU` is the floor's own CPU through the engine's transport (tokio,
//! the connection task, the envelope of each reply read). This bin asks what is left without
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
//! It launches its own Chromium (the engine's flags, a temporary profile removed afterwards),
//! so that nothing else shares the pipe, and kills only that process.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin bare_floor -- [--snapshots 2000]
//!     [--page PATH_OR_URL]... [--chrome PATH]
//! ```

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pagesight::browser::{find_chromium, CHROMIUM_FLAGS};
use pagesight::capture::COMPUTED_STYLES;
use pagesight_benches::{fixtures_dir, ms_fine, page_url, process_tree_cpu, usage};

/// How long the browser may send nothing before the bin kills it (its reads then end).
const STALL_TIMEOUT: Duration = Duration::from_secs(120);

struct Args {
    snapshots: usize,
    pages: Vec<String>,
    chrome: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let usage = "usage: bare_floor [--snapshots N] [--page PATH_OR_URL]... [--chrome PATH]";
    let mut args = Args {
        snapshots: 2000,
        pages: Vec::new(),
        chrome: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{arg} needs a value\n{usage}"))
        };
        match arg.as_str() {
            "--snapshots" => {
                args.snapshots = value()?
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--snapshots takes a positive number\n{usage}"))?
            }
            "--page" => args.pages.push(value()?),
            "--chrome" => args.chrome = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Err(usage.to_string()),
            other => return Err(format!("unknown argument {other}\n{usage}")),
        }
    }
    if args.pages.is_empty() {
        for name in ["forms", "long-page"] {
            let path = fixtures_dir().join("pages").join(format!("{name}.html"));
            args.pages.push(path.to_string_lossy().into_owned());
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    pagesight_benches::bench_main_blocking("bare_floor", parse_args(), |args| run(&args))
}

fn run(args: &Args) -> Result<(), String> {
    let executable = find_chromium(args.chrome.as_deref()).map_err(|e| e.to_string())?;
    let urls = args
        .pages
        .iter()
        .map(|page| Ok((page.as_str(), page_url(page)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let mut browser = BareBrowser::launch(executable)?;
    println!(
        "| page | snapshots | ms per snapshot | client CPU ms | browser CPU ms | client CPU / browser CPU |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let result = urls
        .iter()
        .try_for_each(|(page, url)| measure(&mut browser, page, url, args.snapshots));
    browser.close();
    result
}

fn measure(
    browser: &mut BareBrowser,
    location: &str,
    url: &str,
    snapshots: usize,
) -> Result<(), String> {
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
    let (b0, u0, t0) = (process_tree_cpu(browser.pid), usage(), Instant::now());
    for _ in 0..snapshots {
        one(browser)?;
    }
    let elapsed = t0.elapsed();
    let client = usage().cpu.saturating_sub(u0.cpu);
    let chromium = process_tree_cpu(browser.pid).saturating_sub(b0);
    let per = |d: Duration| d.div_f64(snapshots as f64);
    let share = if chromium.is_zero() {
        "n/a".to_string()
    } else {
        format!(
            "{:.1}%",
            100.0 * client.as_secs_f64() / chromium.as_secs_f64()
        )
    };
    let name = location
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(location);
    println!(
        "| {} | {snapshots} | {} | {:.3} | {} | {share} |",
        name.trim_end_matches(".html"),
        ms_fine(per(elapsed)),
        per(client).as_secs_f64() * 1e3,
        ms_fine(per(chromium)),
    );
    browser.close_target(&session)
}

/// A Chromium launched with `--remote-debugging-pipe`, driven by blocking reads and writes.
struct BareBrowser {
    child: Child,
    pid: u32,
    /// The browser's fd 3: what it reads commands from.
    commands: File,
    /// The browser's fd 4: what it writes replies and events to.
    replies: File,
    /// Bytes read and not yet split into messages.
    pending: Vec<u8>,
    next_id: u64,
    watchdog: Watchdog,
    /// Kept until the browser has exited: dropping it removes the profile.
    _profile: tempfile::TempDir,
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "could not create a pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: pipe2 succeeded; both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `fd` duplicated to a number of at least 10 (close-on-exec), so that moving the child's ends
/// onto 3 and 4 cannot overwrite one with the other.
fn high(fd: &OwnedFd) -> Result<OwnedFd, String> {
    // SAFETY: F_DUPFD_CLOEXEC on an open descriptor returns a new one or -1.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(format!(
            "could not duplicate a pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: `new` was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

impl BareBrowser {
    fn launch(executable: PathBuf) -> Result<BareBrowser, String> {
        let profile = tempfile::Builder::new()
            .prefix("pagesight-bare-floor-")
            .tempdir()
            .map_err(|e| format!("could not create a temporary profile: {e}"))?;
        let (child_commands, commands) = pipe()?;
        let (replies, child_replies) = pipe()?;
        let (child_commands, child_replies) = (high(&child_commands)?, high(&child_replies)?);
        let mut args: Vec<OsString> = CHROMIUM_FLAGS.iter().map(OsString::from).collect();
        let mut user_data_dir = OsString::from("--user-data-dir=");
        user_data_dir.push(profile.path());
        args.push(user_data_dir);
        args.push("--remote-debugging-pipe".into());
        args.push("about:blank".into());
        let (read_fd, write_fd) = (child_commands.as_raw_fd(), child_replies.as_raw_fd());
        let mut command = Command::new(&executable);
        command
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: dup2 is async-signal-safe; the descriptors stay open until after the spawn.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(read_fd, 3) < 0 || libc::dup2(write_fd, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", executable.display()))?;
        drop((child_commands, child_replies));
        Ok(BareBrowser {
            pid: child.id(),
            watchdog: Watchdog::start(child.id()),
            child,
            commands: File::from(commands),
            replies: File::from(replies),
            pending: Vec::new(),
            next_id: 0,
            _profile: profile,
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
        self.commands
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
            match self.replies.read(&mut chunk) {
                Ok(0) if self.watchdog.fired.load(Ordering::Relaxed) => {
                    return Err(format!(
                        "the browser sent nothing for {} s and was killed",
                        STALL_TIMEOUT.as_secs()
                    ))
                }
                Ok(0) => return Err("the browser closed its pipe (it exited)".to_string()),
                Ok(n) => {
                    self.pending.extend_from_slice(&chunk[..n]);
                    self.watchdog.progress.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading from the browser: {e}")),
            }
        }
    }

    fn close(&mut self) {
        self.watchdog.stop();
        let _ = self.call("", &[("Browser.close", "{}")]);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BareBrowser {
    fn drop(&mut self) {
        self.watchdog.stop();
        // Only the process this bin started.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Kills the browser once it has sent nothing for [`STALL_TIMEOUT`], so that a blocking read
/// waiting for it ends (at the end of the stream) rather than hanging. A thread that wakes once
/// a second, instead of a timeout on every read: a `poll` before each read would add a system
/// call to what the bin measures.
struct Watchdog {
    /// Bumped by every read that brought bytes.
    progress: Arc<AtomicU64>,
    stopped: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
}

impl Watchdog {
    fn start(pid: u32) -> Watchdog {
        let watchdog = Watchdog {
            progress: Arc::new(AtomicU64::new(0)),
            stopped: Arc::new(AtomicBool::new(false)),
            fired: Arc::new(AtomicBool::new(false)),
        };
        let (progress, stopped, fired) = (
            watchdog.progress.clone(),
            watchdog.stopped.clone(),
            watchdog.fired.clone(),
        );
        let _ = std::thread::Builder::new()
            .name("bare-floor-watchdog".to_string())
            .spawn(move || {
                let (mut seen, mut since) = (progress.load(Ordering::Relaxed), Instant::now());
                while !stopped.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_secs(1));
                    let now = progress.load(Ordering::Relaxed);
                    if now != seen {
                        (seen, since) = (now, Instant::now());
                    } else if since.elapsed() >= STALL_TIMEOUT && !stopped.load(Ordering::Relaxed) {
                        fired.store(true, Ordering::Relaxed);
                        // The browser this bin started, not yet reaped (it is reaped only after
                        // `stop`), so the pid is still its own.
                        if let Ok(pid) = libc::pid_t::try_from(pid) {
                            // SAFETY: kill has no memory effects.
                            unsafe { libc::kill(pid, libc::SIGKILL) };
                        }
                        return;
                    }
                }
            });
        watchdog
    }

    /// Called before the browser is reaped.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
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
