//! Peak heap memory of the offline pipeline on one capture, measured with a counting global
//! allocator, against the capture's JSON size; and the process's max RSS (`getrusage`).
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- peak-mem [CAPTURE]   # default: stdtypes
//! ```
//!
//! Two figures, both counted from before the capture is read:
//! - **live path**: a typed `Capture` (what `capture_everything` hands over) through `snapshot::process`
//!   (model, analysis, uids, a11y text). The capture's own size is part of it.
//! - **file path**: `Capture::from_bytes` on the gzip'd file (which holds the whole decompressed
//!   JSON for a moment) and then `process`.
//!
//! The counting allocator is this binary's global allocator, for every subcommand, but it
//! counts only once `peak-mem` has switched it on: the other subcommands pay one relaxed load
//! of a flag and a branch per allocation and per free, next to the system allocator's own work.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

use pagesight::capture::{AxNodes, Capture, DomSnapshot};
use pagesight::cdp::accessibility::AXNode;
use pagesight::cdp::dom_snapshot::CaptureSnapshotReturns;
use pagesight::identity::UidTable;
use pagesight::snapshot::{process, SnapshotOptions};
use pagesight_benches::{dom_node_count, fixture_capture_path, gunzip, mib, raw_parts, usage};

/// Counts the bytes currently allocated and the highest that count has been, once switched on
/// ([`COUNTING`]).
struct Counting;

/// Whether [`Counting`] counts. Switched on before the first figure and never off.
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Bytes allocated since counting began, less those freed since; it goes below zero when
/// memory allocated before is freed. Only differences of it are reported.
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grew(by: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let by = by as isize;
        let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(by: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        CURRENT.fetch_sub(by as isize, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's pointer, layout and size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn current() -> isize {
    CURRENT.load(Ordering::Relaxed)
}

/// Starts a new peak window at the current allocation level.
fn reset_peak() {
    PEAK.store(current(), Ordering::Relaxed);
}

fn peak() -> isize {
    PEAK.load(Ordering::Relaxed)
}

/// Bytes from `base` to `now` (both [`current`] or [`peak`] readings).
fn since(base: isize, now: isize) -> usize {
    usize::try_from(now - base).unwrap_or(0)
}

/// Options of `peak-mem`.
#[derive(clap::Args)]
pub struct Args {
    /// The capture (`.json.gz`); default: fixtures/captures/stdtypes.json.gz.
    #[arg(value_name = "CAPTURE")]
    capture: Option<PathBuf>,
}

pub fn main(args: Args) -> ExitCode {
    COUNTING.store(true, Ordering::Relaxed);
    let path = args
        .capture
        .unwrap_or_else(|| fixture_capture_path("stdtypes"));
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("peak-mem: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &std::path::Path) -> Result<(), String> {
    let gz = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let json_len = gunzip(&gz)
        .map_err(|e| format!("{} is not valid gzip: {e}", path.display()))?
        .len();
    let options = SnapshotOptions::default();

    // Live path: a typed capture through the pipeline.
    let capture = Capture::from_bytes(&gz).map_err(|e| format!("{}: {e}", path.display()))?;
    let dom_nodes = dom_node_count(&capture);
    let target = capture.target_id.clone().unwrap_or_default();
    // Re-create the capture inside the counted window so its own size counts.
    let typed_json = serde_json::to_vec(&capture).map_err(|e| format!("re-encoding: {e}"))?;
    drop(capture);
    // Read as a live reply is: the DOM snapshot by the engine's own reader.
    let capture = Capture::from_bytes(&typed_json).map_err(|e| format!("re-parsing: {e}"))?;
    drop(capture);
    let base = current();
    reset_peak();
    let capture = Capture::from_bytes(&typed_json).map_err(|e| format!("re-parsing: {e}"))?;
    let capture_size = since(base, current());
    let mut table = UidTable::new();
    let snapshot =
        process(capture, &mut table, &target, &options).map_err(|e| format!("processing: {e}"))?;
    let live_peak = since(base, peak());
    let output_len = snapshot.output.len();
    drop(snapshot);
    drop(table);
    drop(typed_json);

    // File path: gzip'd bytes to text.
    let base = current();
    reset_peak();
    let capture = Capture::from_bytes(&gz).map_err(|e| format!("{}: {e}", path.display()))?;
    let after_parse_peak = since(base, peak());
    let mut table = UidTable::new();
    let snapshot =
        process(capture, &mut table, &target, &options).map_err(|e| format!("processing: {e}"))?;
    let file_peak = since(base, peak());
    drop(snapshot);

    // What the two big parts weigh once typed (each parsed alone from its raw JSON).
    let json = gunzip(&gz).map_err(|e| format!("{}: {e}", path.display()))?;
    let parts = raw_parts(&json)?;
    drop(json);
    let base = current();
    let dom: CaptureSnapshotReturns =
        serde_json::from_slice(&parts.dom_snapshot).map_err(|e| format!("domSnapshot: {e}"))?;
    let dom_typed = since(base, current());
    drop(dom);
    let base = current();
    let dom: DomSnapshot =
        serde_json::from_slice(&parts.dom_snapshot).map_err(|e| format!("domSnapshot: {e}"))?;
    let dom_lean = since(base, current());
    drop(dom);
    let base = current();
    let ax: Vec<AXNode> =
        serde_json::from_slice(&parts.ax_nodes).map_err(|e| format!("AX nodes: {e}"))?;
    let ax_typed = since(base, current());
    let ax_count = ax.len();
    drop(ax);
    let base = current();
    let ax: AxNodes =
        serde_json::from_slice(&parts.ax_nodes).map_err(|e| format!("AX nodes: {e}"))?;
    let ax_lean = since(base, current());
    drop(ax);

    let rss = usage().max_rss;
    let x = |bytes: usize| format!("{:.2}x", bytes as f64 / json_len.max(1) as f64);
    println!("capture: {}", path.display());
    println!(
        "  DOM nodes {dom_nodes}; file {} MiB gzip'd, {} MiB JSON; a11y text {} KiB",
        mib(gz.len() as u64),
        mib(json_len as u64),
        output_len / 1024
    );
    println!("| what | MiB | x JSON |");
    println!("|---|---:|---:|");
    println!(
        "| typed Capture held in memory | {} | {} |",
        mib(capture_size as u64),
        x(capture_size)
    );
    println!(
        "| peak, live path (typed Capture -> process, a11y) | {} | {} |",
        mib(live_peak as u64),
        x(live_peak)
    );
    println!(
        "| peak, Capture::from_bytes alone (gz -> typed) | {} | {} |",
        mib(after_parse_peak as u64),
        x(after_parse_peak)
    );
    println!(
        "| peak, file path (gz -> Capture -> process) | {} | {} |",
        mib(file_peak as u64),
        x(file_peak)
    );
    let xp = |bytes: usize, of: usize| format!("{:.2}x", bytes as f64 / of.max(1) as f64);
    println!(
        "| typed domSnapshot alone, generated `CaptureSnapshotReturns` ({} MiB of JSON) | {} | {} of its JSON |",
        mib(parts.dom_snapshot.len() as u64),
        mib(dom_typed as u64),
        xp(dom_typed, parts.dom_snapshot.len())
    );
    println!(
        "| typed domSnapshot alone, engine's `DomSnapshot` | {} | {} of its JSON |",
        mib(dom_lean as u64),
        xp(dom_lean, parts.dom_snapshot.len())
    );
    println!(
        "| typed AX nodes alone, generated `AXNode` ({ax_count} nodes, {} MiB of JSON) | {} | {} of its JSON |",
        mib(parts.ax_nodes.len() as u64),
        mib(ax_typed as u64),
        xp(ax_typed, parts.ax_nodes.len())
    );
    println!(
        "| the same AX nodes as the engine keeps them (`AxNodes`) | {} | {} of their JSON |",
        mib(ax_lean as u64),
        xp(ax_lean, parts.ax_nodes.len())
    );
    println!(
        "| max RSS of this process (everything above, plus the program) | {} | {} |",
        mib(rss),
        x(rss as usize)
    );
    Ok(())
}
