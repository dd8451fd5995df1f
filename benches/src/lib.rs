//! Shared helpers of pagesight's benchmarks: where the recorded captures live, how to split a
//! capture into the raw CDP replies it was made of, the generator of the scale-series pages
//! ([`scale`]), and small timing / resource-usage utilities for the plain (non-criterion)
//! benches of the `pagesight-bench` binary.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod docs_site;
pub mod floor;
pub mod scale;
pub mod soak;

/// The recorded real pages under `fixtures/captures/`, largest first.
pub const FIXTURE_CAPTURES: &[&str] = &[
    "stdtypes",
    "python-index",
    "cheatsheet",
    "dashboard",
    "checkout",
    "dropdowns",
    "modals",
    "python-tutorial",
    "sidebars",
    "headers",
    "album",
    "pricing",
    "offcanvas-navbar",
    "sign-in",
];

/// The workspace root (the parent of this crate).
pub fn workspace_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// `fixtures/` of the workspace.
pub fn fixtures_dir() -> PathBuf {
    workspace_dir().join("fixtures")
}

/// The path of a recorded capture by name (`stdtypes` -> `fixtures/captures/stdtypes.json.gz`).
pub fn fixture_capture_path(name: &str) -> PathBuf {
    fixtures_dir()
        .join("captures")
        .join(format!("{name}.json.gz"))
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_dir().join(dir)
            }
        }
        _ => workspace_dir().join("target"),
    }
}

/// Where `record-scale` writes and the scale benchmarks read the generated captures:
/// `PAGESIGHT_SCALE_DIR` if set, else `<target>/scale-captures`.
pub fn scale_dir() -> PathBuf {
    match std::env::var_os("PAGESIGHT_SCALE_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => target_dir().join("scale-captures"),
    }
}

/// The file a scale capture of (about) `nodes` DOM nodes is stored in.
pub fn scale_capture_path(dir: &Path, nodes: usize) -> PathBuf {
    dir.join(format!("scale-{nodes}.json.gz"))
}

/// Decompresses gzip bytes; plain (non-gzip) bytes are returned as they are.
pub fn gunzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut out = Vec::with_capacity(bytes.len() * 8);
    flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// The raw CDP replies a capture holds, each as its own JSON buffer, as Chromium's reply
/// would carry them: the `DOMSnapshot.captureSnapshot` result and the main frame's
/// `Accessibility.getFullAXTree().nodes`.
#[derive(Debug, Clone)]
pub struct RawParts {
    pub dom_snapshot: Vec<u8>,
    pub ax_nodes: Vec<u8>,
}

/// Splits a capture's (plain) JSON into its raw CDP parts, without parsing them typed.
pub fn raw_parts(capture_json: &[u8]) -> Result<RawParts, String> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Tree<'a> {
        #[serde(borrow)]
        nodes: &'a RawValue,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Parts<'a> {
        #[serde(borrow)]
        dom_snapshot: &'a RawValue,
        #[serde(borrow, default)]
        ax_trees: Vec<Tree<'a>>,
    }
    let parts: Parts<'_> = serde_json::from_slice(capture_json)
        .map_err(|e| format!("not a capture with domSnapshot and axTrees: {e}"))?;
    let ax_nodes = parts
        .ax_trees
        .first()
        .map(|t| t.nodes.get().as_bytes().to_vec())
        .unwrap_or_else(|| b"[]".to_vec());
    Ok(RawParts {
        dom_snapshot: parts.dom_snapshot.get().as_bytes().to_vec(),
        ax_nodes,
    })
}

/// Number of DOM nodes in a capture's snapshot, over all its documents.
pub fn dom_node_count(capture: &pagesight::capture::Capture) -> usize {
    capture
        .dom_snapshot
        .documents
        .iter()
        .map(|d| d.nodes.node_type.as_ref().map_or(0, |t| t.len()))
        .sum()
}

/// Number of AX nodes in a capture, over all its frames.
pub fn ax_node_count(capture: &pagesight::capture::Capture) -> usize {
    capture.ax_trees.iter().map(|t| t.nodes.len()).sum()
}

/// The median of some durations (the mean of the middle two for an even count); zero if empty.
pub fn median(samples: &[Duration]) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2
    }
}

/// Milliseconds with one decimal, for tables.
pub fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// [`ms`] to the hundredth: the CPU times of a small page's snapshot are tenths of a millisecond.
pub fn ms_fine(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// Resource usage of this process so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    /// User + system CPU time of all threads.
    pub cpu: Duration,
    /// Peak resident set size, bytes.
    pub max_rss: u64,
}

/// `getrusage(RUSAGE_SELF)`: CPU time of every thread of this process and its peak RSS.
pub fn usage() -> Usage {
    // SAFETY: getrusage only writes the struct it is given, which is zeroed and valid for it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return Usage::default();
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Usage {
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        // Linux reports kilobytes.
        max_rss: (ru.ru_maxrss.max(0) as u64) * 1024,
    }
}

/// Mebibytes with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}

/// The small fixture pages the CPU benches measure when given none: a form, and a page a few
/// views long.
pub fn small_fixture_pages() -> Vec<String> {
    ["forms", "long-page"]
        .iter()
        .map(|name| {
            let path = fixtures_dir().join("pages").join(format!("{name}.html"));
            path.to_string_lossy().into_owned()
        })
        .collect()
}

/// A page's name in a bench's table: the last part of its path or URL, without `.html`; for an
/// `index.html`, the folder's name (a site's pages are often each a folder's index).
pub fn page_name(path_or_url: &str) -> String {
    let mut parts = path_or_url.trim_end_matches('/').rsplit('/');
    let last = parts.next().unwrap_or(path_or_url);
    match (last, parts.next()) {
        ("index.html", Some(folder)) if !folder.is_empty() => folder.to_string(),
        _ => last.trim_end_matches(".html").to_string(),
    }
}

/// Turns a local path into a `file://` URL; URLs (anything with `://`) pass through.
pub fn page_url(path_or_url: &str) -> Result<String, String> {
    if path_or_url.contains("://") {
        return Ok(path_or_url.to_string());
    }
    let path = Path::new(path_or_url);
    let abs = path
        .canonicalize()
        .map_err(|e| format!("cannot open {path_or_url}: {e}"))?;
    Ok(format!("file://{}", abs.display()))
}

/// CPU time (user + system) spent so far by process `root` and all its living descendants —
/// for a browser: its GPU, network and renderer processes. Read from `/proc`; zero where that
/// is not available.
///
/// Why descendants: Chromium does a snapshot's work in the page's renderer, a child of the
/// browser process, so the browser's own figure alone would say almost nothing.
pub fn process_tree_cpu(root: u32) -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    // (pid, parent) of every process.
    let mut procs: Vec<(u32, u32)> = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces: fields start after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        // After the name: state(0) ppid(1).
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|f| f.parse().ok()) {
            procs.push((pid, ppid));
        }
    }
    let mut inside = vec![root];
    let mut k = 0;
    while let Some(&pid) = inside.get(k) {
        inside.extend(procs.iter().filter(|&&(_, p)| p == pid).map(|&(c, _)| c));
        k += 1;
    }
    // Each thread's time on a CPU, in nanoseconds (`stat` counts clock ticks of 10 ms, coarser
    // than a small page's whole snapshot). Threads that ended meanwhile are not counted.
    let mut total = 0u64;
    for pid in inside {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let ns = std::fs::read_to_string(task.path().join("schedstat"))
                .ok()
                .and_then(|s| {
                    s.split_whitespace()
                        .next()
                        .and_then(|v| v.parse::<u64>().ok())
                });
            total += ns.unwrap_or(0);
        }
    }
    Duration::from_nanos(total)
}

/// Runs `future` to completion on a multi-threaded runtime with two workers, as the live
/// benches do (two cores is what they are measured on).
pub fn block_on<F>(future: F) -> Result<F::Output, String>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    // As the command line does (see `pagesight::block_on_task`).
    pagesight::block_on_task(&runtime, future).map_err(|e| e.to_string())
}

/// The `main` of a bench named `name`: `run` runs on [`block_on`]'s runtime, and a failure
/// prints `name: message` and exits with 1.
pub fn bench_main<A, Fut>(name: &str, args: A, run: impl FnOnce(A) -> Fut) -> std::process::ExitCode
where
    Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
{
    bench_main_blocking(name, args, |args| {
        // As the command line does: the bench measures what a user's process does.
        pagesight::keep_freed_memory();
        block_on(run(args)).and_then(|r| r)
    })
}

/// [`bench_main`] for a bench that runs no async runtime: `run` runs on this thread.
pub fn bench_main_blocking<A>(
    name: &str,
    args: A,
    run: impl FnOnce(A) -> Result<(), String>,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{name}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Launches a headless Chromium for a bench, runs `work` with it and closes it whatever
/// `work` gave. The signal handlers come first, so Ctrl-C or SIGTERM during a long run still
/// kills the browser and removes its temporary profile.
pub async fn with_browser<T>(
    options: pagesight::browser::LaunchOptions,
    work: impl AsyncFnOnce(&pagesight::browser::Browser) -> Result<T, String>,
) -> Result<T, String> {
    pagesight::browser::exit_on_signals_with_cleanup()
        .map_err(|e| format!("cannot install the signal handlers: {e}"))?;
    let browser = pagesight::browser::Browser::launch(options)
        .await
        .map_err(|e| format!("cannot launch Chromium: {e}"))?;
    let result = work(&browser).await;
    let closed = browser.close().await;
    let value = result?;
    closed.map_err(|e| format!("closing Chromium: {e}"))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::page_name;

    #[test]
    fn a_page_is_named_by_its_file_or_its_folder() {
        assert_eq!(page_name("fixtures/pages/forms.html"), "forms");
        assert_eq!(
            page_name("file:///srv/site/examples/sign-in/index.html"),
            "sign-in"
        );
        assert_eq!(
            page_name("http://localhost:8000/library/stdtypes.html"),
            "stdtypes"
        );
        assert_eq!(page_name("http://localhost:8000/docs/"), "docs");
        assert_eq!(page_name("index.html"), "index");
    }
}
