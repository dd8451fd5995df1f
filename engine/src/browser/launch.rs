//! Starting Chromium: finding the executable, the flags, the pipe fds, the process group, and
//! making sure the process and its temporary profile never outlive us.
//!
//! Why it is done this way:
//! - The child gets its own process group, so one `kill(-pgid)` takes down the renderers, the
//!   zygote and the other helpers too, and a Ctrl-C in our terminal (sent to *our* group) does
//!   not hit the browser behind our back while we clean up.
//! - The child is spawned from a dedicated thread that then waits for it, with
//!   `PR_SET_PDEATHSIG = SIGKILL`: if this process dies in any way, even by SIGKILL, that thread
//!   dies and the kernel kills the browser. The same thread reaps it the moment it exits and
//!   closes the connection, so a killed browser fails every waiter at once.
//! - `--remote-debugging-pipe` expects to read commands on fd 3 and write replies on fd 4. The
//!   child-side pipe ends are first duplicated to fds >= 10 (close-on-exec), so `dup2` onto 3 and
//!   4 in the child never clobbers one with the other whatever numbers the pipes got.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};

use super::LaunchTransport;
use crate::error::{Error, ErrorCode, Result};
use crate::transport::Connection;

/// The flags every launched browser gets (plus `--user-data-dir` and the debugging transport).
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
];

/// Executable names looked up on `PATH`, in order, when `CHROME` is not set.
pub const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

fn launch_error(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::BrowserClosed, message)
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Finds Chromium: `explicit`, then the `CHROME` environment variable, then [`CHROMIUM_NAMES`]
/// on `PATH`.
pub fn find_chromium(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return if is_executable(path) {
            Ok(path.to_path_buf())
        } else {
            Err(launch_error(format!(
                "the browser executable {} does not exist or is not executable; pass the path \
                 of a Chromium binary",
                path.display()
            )))
        };
    }
    if let Some(chrome) = std::env::var_os("CHROME").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&chrome);
        let resolved = if path.components().count() == 1 {
            search_path(&chrome)
        } else {
            Some(path.clone()).filter(|p| is_executable(p))
        };
        return resolved.ok_or_else(|| {
            launch_error(format!(
                "CHROME is set to {}, which is not an executable file; point CHROME at a \
                 Chromium binary or unset it to search PATH",
                path.display()
            ))
        });
    }
    CHROMIUM_NAMES
        .iter()
        .find_map(|name| search_path(name.as_ref()))
        .ok_or_else(|| {
            launch_error(format!(
                "no Chromium found (looked for {} on PATH); install it, e.g. `apt-get install \
                 chromium`, or set CHROME to the browser executable",
                CHROMIUM_NAMES.join(", ")
            ))
        })
}

fn search_path(name: &std::ffi::OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// The exit of the browser process, shared between the reaper thread and the owner.
pub(crate) struct ExitWatch {
    /// `Some(description)` once the main process has exited and been reaped.
    status: watch::Sender<Option<String>>,
    exited: AtomicBool,
    connection: OnceLock<Connection>,
}

impl ExitWatch {
    fn new() -> Arc<Self> {
        Arc::new(ExitWatch {
            status: watch::Sender::new(None),
            exited: AtomicBool::new(false),
            connection: OnceLock::new(),
        })
    }

    fn mark_exited(&self, status: io::Result<ExitStatus>) {
        let description = match status {
            Ok(status) => status.to_string(),
            Err(e) => format!("unknown status: {e}"),
        };
        self.exited.store(true, Ordering::SeqCst);
        if let Some(connection) = self.connection.get() {
            connection.close_with(exited_error(&description));
        }
        self.status.send_replace(Some(description));
    }

    /// Closes `connection` when the process exits (at once if it already has).
    pub(crate) fn close_on_exit(&self, connection: &Connection) {
        let _ = self.connection.set(connection.clone());
        if self.exited.load(Ordering::SeqCst) {
            let description = self.status.borrow().clone().unwrap_or_default();
            connection.close_with(exited_error(&description));
        }
    }

    pub(crate) fn has_exited(&self) -> bool {
        self.exited.load(Ordering::SeqCst)
    }

    /// Waits (asynchronously) up to `timeout` for the exit; true if it happened.
    pub(crate) async fn wait(&self, timeout: Duration) -> bool {
        let mut status = self.status.subscribe();
        let exited = tokio::time::timeout(timeout, status.wait_for(Option::is_some)).await;
        matches!(exited, Ok(Ok(_)))
    }

    /// Waits (blocking the thread) up to `timeout` for the exit; true if it happened.
    fn wait_blocking(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while !self.has_exited() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }
}

fn exited_error(description: &str) -> Error {
    Error::new(
        ErrorCode::BrowserClosed,
        format!("the browser process exited ({description}); launch it again"),
    )
}

/// The last lines Chromium wrote to stderr, for error messages.
#[derive(Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    const LINES: usize = 20;

    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == Self::LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub(crate) fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// What a launch may change of the browser's command line.
#[derive(Debug, Clone)]
pub(crate) struct LaunchFlags {
    pub(crate) headless: bool,
    /// A profile folder to use and keep; `None`: a fresh temporary one, removed afterwards.
    pub(crate) user_data_dir: Option<PathBuf>,
    /// More flags, after pagesight's own.
    pub(crate) args: Vec<String>,
}

impl Default for LaunchFlags {
    fn default() -> Self {
        LaunchFlags {
            headless: true,
            user_data_dir: None,
            args: Vec::new(),
        }
    }
}

/// Every browser this process launched and has not cleaned up yet: (process group, profile).
/// A profile given by the user (`None`) is left alone.
static LAUNCHED: Mutex<Vec<(u32, Option<PathBuf>)>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<(u32, Option<PathBuf>)>> {
    LAUNCHED.lock().unwrap_or_else(|p| p.into_inner())
}

fn kill_group(pgid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        if pgid > 1 {
            // SAFETY: plain syscall; the group is one this process created for its own child.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

fn remove_profile(path: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(path) {
            Ok(()) => return,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            // A dying helper may still have been writing: try again shortly.
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Kills every browser this process launched and still owns, and removes their temporary
/// profiles. Synchronous and safe to call from anywhere (a signal handler task, a panic hook,
/// `atexit`-style code). Browsers that were connected to, not launched, are never touched.
pub fn kill_launched_browsers() {
    let launched = std::mem::take(&mut *registry());
    for (pgid, _) in &launched {
        kill_group(*pgid);
    }
    if !launched.is_empty() {
        // Give the reaper threads a moment so the profiles are no longer being written.
        std::thread::sleep(Duration::from_millis(100));
    }
    for (_, profile) in launched
        .iter()
        .filter_map(|(pid, p)| Some((pid, p.as_ref()?)))
    {
        remove_profile(profile);
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill the launched browsers, remove their profiles and then
/// exit the process with the conventional status (130, 143, 129). For command-line programs:
/// call once, inside the tokio runtime, before launching. Without it a Ctrl-C still takes the
/// browser down (it dies with this process, see the module docs) but leaves its temporary
/// profile behind.
pub fn exit_on_signals_with_cleanup() -> Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(Error::invalid_argument(
            "exit_on_signals_with_cleanup must be called inside a tokio runtime",
        ));
    }
    let install = |kind: SignalKind| {
        signal(kind).map_err(|e| {
            Error::invalid_argument(format!("could not install a signal handler: {e}"))
        })
    };
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    let mut hangup = install(SignalKind::hangup())?;
    tokio::spawn(async move {
        let status = tokio::select! {
            _ = interrupt.recv() => 130,
            _ = terminate.recv() => 143,
            _ = hangup.recv() => 129,
        };
        kill_launched_browsers();
        std::process::exit(status);
    });
    Ok(())
}

/// How the launched browser is driven.
pub(crate) enum DebuggingTransport {
    /// The parent ends of the pipes: we write commands to `commands`, read `replies`; `url`
    /// as for `WebSocket` when a port was asked for too.
    Pipe {
        commands: OwnedFd,
        replies: OwnedFd,
        url: Option<oneshot::Receiver<String>>,
    },
    /// `DevTools listening on ws://…`, read from stderr.
    WebSocket { url: oneshot::Receiver<String> },
}

/// A launched browser process: its process group, its profile, its reaper.
pub(crate) struct BrowserProcess {
    pub(crate) pid: u32,
    pub(crate) executable: PathBuf,
    pub(crate) exit: Arc<ExitWatch>,
    pub(crate) stderr: StderrTail,
    profile: Option<tempfile::TempDir>,
}

impl BrowserProcess {
    pub(crate) fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(|p| p.path())
    }

    /// Kills the whole process group, waits (bounded) for the reaper, removes the profile.
    /// Idempotent.
    pub(crate) fn kill_and_clean(&mut self) {
        kill_group(self.pid);
        self.exit.wait_blocking(Duration::from_secs(2));
        registry().retain(|(pgid, _)| *pgid != self.pid);
        if let Some(profile) = self.profile.take() {
            let path = profile.path().to_path_buf();
            if profile.close().is_err() {
                remove_profile(&path);
            }
        }
    }

    /// The error for a launch that did not work out, with what Chromium said.
    pub(crate) fn failure(&self, what: &str) -> Error {
        let tail = self.stderr.text();
        let said = if tail.is_empty() {
            String::new()
        } else {
            format!("; Chromium said:\n{tail}")
        };
        launch_error(format!("{what} ({}){said}", self.executable.display()))
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        self.kill_and_clean();
    }
}

/// A Chromium launched as [`super::Browser::launch`] launches one (the same flags, a fresh
/// temporary profile, its own process group, killed should this process die), handed over as
/// the two ends of its `--remote-debugging-pipe`: for a client that speaks CDP itself, with
/// blocking reads and no async runtime (the benches measure with one what any client spends).
/// Dropping it kills the browser and removes its profile.
pub struct PipeBrowser {
    process: BrowserProcess,
    commands: std::fs::File,
    replies: std::fs::File,
}

impl PipeBrowser {
    /// Finds Chromium as [`find_chromium`] does (`executable` first) and starts it.
    pub fn launch(executable: Option<&Path>) -> Result<PipeBrowser> {
        let (process, transport) = spawn(
            find_chromium(executable)?,
            LaunchTransport::Pipe,
            &LaunchFlags::default(),
        )?;
        match transport {
            DebuggingTransport::Pipe {
                commands, replies, ..
            } => Ok(PipeBrowser {
                process,
                commands: commands.into(),
                replies: replies.into(),
            }),
            DebuggingTransport::WebSocket { .. } => {
                Err(launch_error("the browser was started without its pipe"))
            }
        }
    }

    /// The browser's process id (its process group's too).
    pub fn pid(&self) -> u32 {
        self.process.pid
    }

    /// Its temporary profile directory (removed when this is dropped).
    pub fn profile_dir(&self) -> Option<&Path> {
        self.process.profile_dir()
    }

    /// Where commands are written, each followed by a NUL byte (the browser's fd 3).
    pub fn commands(&self) -> &std::fs::File {
        &self.commands
    }

    /// Where the browser writes its replies and events, each followed by a NUL byte (its fd
    /// 4). Reads block; the stream ends when the browser exits.
    pub fn replies(&self) -> &std::fs::File {
        &self.replies
    }
}

fn cloexec_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [RawFd; 2] = [-1; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Duplicates `fd` to a number >= 10, close-on-exec.
fn dup_high(fd: &OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC on a valid descriptor returns a new descriptor or -1.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// Starts Chromium. `pipe` selects `--remote-debugging-pipe` over `--remote-debugging-port=0`.
pub(crate) fn spawn(
    executable: PathBuf,
    transport: LaunchTransport,
    flags: &LaunchFlags,
) -> Result<(BrowserProcess, DebuggingTransport)> {
    let pipe = transport != LaunchTransport::WebSocket;
    let port = transport != LaunchTransport::Pipe;
    let io_error = |what: &str, e: io::Error| launch_error(format!("{what}: {e}"));
    let profile = match &flags.user_data_dir {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("pagesight-profile-")
                .tempdir()
                .map_err(|e| io_error("could not create a temporary browser profile", e))?,
        ),
    };
    let profile_path = match (&flags.user_data_dir, &profile) {
        (Some(dir), _) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                io_error(
                    &format!("could not create the profile folder {}", dir.display()),
                    e,
                )
            })?;
            dir.clone()
        }
        (None, Some(temporary)) => temporary.path().to_path_buf(),
        (None, None) => return Err(launch_error("no browser profile folder")),
    };

    let mut args: Vec<OsString> = CHROMIUM_FLAGS
        .iter()
        .filter(|f| flags.headless || **f != "--headless")
        .map(OsString::from)
        .collect();
    let mut user_data_dir = OsString::from("--user-data-dir=");
    user_data_dir.push(&profile_path);
    args.push(user_data_dir);
    args.extend(flags.args.iter().map(OsString::from));
    // Chromium serves both at once when asked: each client it talks to has its own.
    if pipe {
        args.push("--remote-debugging-pipe".into());
    }
    if port {
        args.push("--remote-debugging-port=0".into());
    }
    args.push("about:blank".into());

    // Pipe ends: the child reads commands from `child_commands` (its fd 3) and writes replies to
    // `child_replies` (its fd 4).
    let pipes = if pipe {
        let (child_commands, commands) =
            cloexec_pipe().map_err(|e| io_error("could not create a pipe", e))?;
        let (replies, child_replies) =
            cloexec_pipe().map_err(|e| io_error("could not create a pipe", e))?;
        let child_commands =
            dup_high(&child_commands).map_err(|e| io_error("could not duplicate a pipe", e))?;
        let child_replies =
            dup_high(&child_replies).map_err(|e| io_error("could not duplicate a pipe", e))?;
        Some((commands, replies, child_commands, child_replies))
    } else {
        None
    };
    let child_fds = pipes
        .as_ref()
        .map(|(_, _, c, r)| (c.as_raw_fd(), r.as_raw_fd()));

    let exit = ExitWatch::new();
    let parent_pid = std::process::id();
    let (spawned_tx, spawned_rx) = std::sync::mpsc::channel();
    let reaper_exit = exit.clone();
    let reaper_executable = executable.clone();
    std::thread::Builder::new()
        .name("pagesight-browser".to_owned())
        .spawn(move || {
            let mut command = Command::new(&reaper_executable);
            command
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .process_group(0);
            // SAFETY: the closure only makes async-signal-safe syscalls (prctl, getppid, dup2).
            unsafe {
                command.pre_exec(move || child_setup(parent_pid, child_fds));
            }
            match command.spawn() {
                Err(e) => {
                    let _ = spawned_tx.send(Err(e));
                }
                Ok(mut child) => {
                    let stderr = child.stderr.take();
                    let _ = spawned_tx.send(Ok((child.id(), stderr)));
                    let status = child.wait();
                    reaper_exit.mark_exited(status);
                }
            }
        })
        .map_err(|e| io_error("could not start a thread for the browser", e))?;

    let (pid, stderr) = match spawned_rx.recv() {
        Ok(Ok(spawned)) => spawned,
        Ok(Err(e)) => {
            return Err(launch_error(format!(
                "could not start {}: {e}; set CHROME to a working Chromium binary",
                executable.display()
            )))
        }
        Err(_) => return Err(launch_error("the browser launcher thread died")),
    };
    registry().push((pid, profile.as_ref().map(|p| p.path().to_path_buf())));

    let tail = StderrTail::default();
    let (url_tx, url_rx) = oneshot::channel();
    if let Some(stderr) = stderr {
        let tail = tail.clone();
        let _ = std::thread::Builder::new()
            .name("pagesight-browser-stderr".to_owned())
            .spawn(move || drain_stderr(stderr, tail, url_tx));
    }

    let process = BrowserProcess {
        pid,
        executable,
        exit,
        stderr: tail,
        profile,
    };
    let transport = match pipes {
        // The child-side ends are dropped (closed) here, so the browser's death is seen as EOF.
        Some((commands, replies, _child_commands, _child_replies)) => DebuggingTransport::Pipe {
            commands,
            replies,
            url: port.then_some(url_rx),
        },
        None => DebuggingTransport::WebSocket { url: url_rx },
    };
    Ok((process, transport))
}

/// Runs in the child between fork and exec.
fn child_setup(parent_pid: u32, fds: Option<(RawFd, RawFd)>) -> io::Result<()> {
    // SAFETY: async-signal-safe syscalls on descriptors inherited from the parent.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(io::Error::last_os_error());
        }
        // The parent may have died before prctl took effect.
        if u32::try_from(libc::getppid()).ok() != Some(parent_pid) {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if let Some((commands, replies)) = fds {
            if libc::dup2(commands, 3) < 0 || libc::dup2(replies, 4) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

fn drain_stderr(
    stderr: std::process::ChildStderr,
    tail: StderrTail,
    url_tx: oneshot::Sender<String>,
) {
    const LISTENING: &str = "DevTools listening on ";
    let mut url_tx = Some(url_tx);
    for line in BufReader::new(stderr).split(b'\n') {
        let Ok(line) = line else { return };
        let line = String::from_utf8_lossy(&line).trim_end().to_owned();
        if let Some(at) = line.find(LISTENING) {
            if let Some(tx) = url_tx.take() {
                let _ = tx.send(line[at + LISTENING.len()..].trim().to_owned());
            }
            continue;
        }
        tail.push(line);
    }
}
