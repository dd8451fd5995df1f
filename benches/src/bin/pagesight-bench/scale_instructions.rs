//! Whether the offline pipeline's work grows linearly with the page: instructions per DOM node
//! of `snapshot::process` at each size of the scale series, counted by valgrind's cachegrind.
//!
//! ```text
//! cargo run --release -p pagesight-benches --bin pagesight-bench -- scale-instructions [--sizes 1000,300000]
//! ```
//!
//! Why instructions: the time per node that criterion measures (`--bench pipeline -- scale/`)
//! rises from 100k to 300k nodes, but so does the time per node of a plain copy of the same
//! snapshot (`scale/copy`), which is linear by construction: past the caches, every byte costs
//! more. An instruction count does not depend on the caches or on the machine's load, so a
//! count per node that stays level says the work is linear and what is left is the memory
//! hierarchy.
//!
//! How: for each capture of the scale series (recorded by `record-scale`), this binary runs
//! itself under `valgrind --tool=cachegrind --cache-sim=no` twice: once reading the capture and
//! processing [`RUNS`] copies of it, once doing the same without the processing. The difference
//! over [`RUNS`] is the instructions of one `process` (model, analysis, uids, the a11y text, and
//! freeing them). Each allocation and free also runs `peak-mem`'s allocator's check that it is
//! not counting (a load and a branch): a few instructions per allocation, not per node.

use std::path::Path;
use std::process::{Command, ExitCode};

use pagesight::capture::Capture;
use pagesight::identity::UidTable;
use pagesight::snapshot::{process, SnapshotOptions};
use pagesight_benches::{dom_node_count, scale_capture_path, scale_dir};

use crate::shared::Sizes;

/// How many copies of a capture the counted run processes.
const RUNS: usize = 3;

/// Options of `scale-instructions`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    sizes: Sizes,
    /// The counted run itself, under valgrind: read CAPTURE and process it (`process`) or not
    /// (`read`).
    #[arg(long, hide = true, num_args = 2, value_names = ["CAPTURE", "WHAT"])]
    count: Option<Vec<String>>,
}

pub fn main(args: Args) -> ExitCode {
    let result = match args.count.as_deref() {
        Some([path, what]) => count(Path::new(path), what == "process"),
        Some(_) => Err("--count takes a capture and `process` or `read`".to_string()),
        None => run(&args.sizes.or_default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("scale-instructions: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(sizes: &[usize]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = scale_dir();
    let mut rows: Vec<(usize, f64)> = Vec::new();
    println!("| DOM nodes | instructions per process | per node |");
    println!("|---:|---:|---:|");
    for &size in sizes {
        let path = scale_capture_path(&dir, size);
        if !path.exists() {
            return Err(format!(
                "no capture of {size} nodes at {}; record it with \
                 `cargo run --release -p pagesight-benches --bin pagesight-bench -- record-scale`",
                path.display()
            ));
        }
        let nodes = dom_node_count(&read(&path)?);
        let with = instructions(&exe, &path, "process")?;
        let without = instructions(&exe, &path, "read")?;
        let per_run = with.saturating_sub(without) as f64 / RUNS as f64;
        let per_node = per_run / nodes as f64;
        println!("| {nodes} | {:.1} M | {per_node:.0} |", per_run / 1e6);
        rows.push((nodes, per_node));
    }
    if let [first, .., last] = rows.as_slice() {
        let before = &rows[rows.len() - 2];
        println!(
            "\nper node, {} against {} nodes: {:.3}x; against {} nodes: {:.3}x",
            last.0,
            before.0,
            last.1 / before.1,
            first.0,
            last.1 / first.1
        );
    }
    Ok(())
}

fn read(path: &Path) -> Result<Capture, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Capture::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The instructions valgrind counted for this program's `--count` mode.
fn instructions(exe: &Path, path: &Path, what: &str) -> Result<u64, String> {
    let output = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .arg("scale-instructions")
        .arg("--count")
        .arg(path)
        .arg(what)
        .output()
        .map_err(|e| {
            format!("cannot run valgrind ({e}); install it (`apt-get install valgrind`)")
        })?;
    let report = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("valgrind failed on {}:\n{report}", path.display()));
    }
    // `==PID== I   refs:      2,676,216,197`
    report
        .lines()
        .find_map(|line| {
            let (_, count) = line.split_once("I   refs:")?;
            count.trim().replace(',', "").parse::<u64>().ok()
        })
        .ok_or_else(|| format!("valgrind reported no instruction count:\n{report}"))
}

/// Reads the capture, copies it [`RUNS`] times and processes each copy (or not).
fn count(path: &Path, processing: bool) -> Result<(), String> {
    pagesight::keep_freed_memory();
    let capture = read(path)?;
    let target = capture.target_id.clone().unwrap_or_default();
    for _ in 0..RUNS {
        let copy = capture.clone();
        if processing {
            let mut table = UidTable::new();
            let snapshot = process(copy, &mut table, &target, &SnapshotOptions::default())
                .map_err(|e| format!("processing {}: {e}", path.display()))?;
            std::hint::black_box(&snapshot);
        } else {
            std::hint::black_box(&copy);
        }
    }
    Ok(())
}
