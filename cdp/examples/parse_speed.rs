//! Measures typed parsing throughput of a recorded capture (release build recommended):
//!
//! ```text
//! cargo run --release -p pagesight-cdp --example parse_speed -- [--typed | --ax] fixtures/captures/stdtypes.json.gz
//! ```
//!
//! Parses the `domSnapshot` reply and the first AX tree's nodes with `serde_json::from_slice`
//! into the generated types, repeatedly, and prints MB/s for each (and for `serde_json::Value`,
//! as a reference point).

use std::io::Read;
use std::time::{Duration, Instant};

use pagesight_cdp::{accessibility, dom_snapshot};

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), so that a machine busy with
/// other work does not make the figure meaningless; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn measure<T: serde::de::DeserializeOwned>(what: &str, bytes: &[u8]) {
    // Warm up, then run for about two seconds.
    let _: T = serde_json::from_slice(bytes).expect("parses");
    let start = Instant::now();
    let cpu_start = thread_cpu_ns();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(2) {
        let parsed: T = serde_json::from_slice(bytes).expect("parses");
        std::hint::black_box(parsed);
        runs += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = bytes.len() as f64 * f64::from(runs) / 1e6;
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => format!("{:>7.1} MB/s on-CPU", mb / ((b - a) as f64 / 1e9)),
        _ => String::new(),
    };
    println!(
        "{what:<40} {:>6.2} MB  {:>7.1} MB/s wall  {cpu}  ({runs} runs, parse + drop)",
        bytes.len() as f64 / 1e6,
        mb / secs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let typed_only = args.iter().any(|a| a == "--typed");
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "fixtures/captures/stdtypes.json.gz".into());
    let mut json = Vec::new();
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("cannot open {path}: {e}"));
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut json)
        .expect("gunzip");
    let capture: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
    let snapshot = serde_json::to_vec(&capture["domSnapshot"]).expect("serialise");
    let nodes = serde_json::to_vec(&capture["axTrees"][0]["nodes"]).expect("serialise");
    let only_ax = args.iter().any(|a| a == "--ax");
    if !only_ax {
        measure::<dom_snapshot::CaptureSnapshotReturns>(
            "domSnapshot -> CaptureSnapshotReturns",
            &snapshot,
        );
    }
    measure::<Vec<accessibility::AXNode>>("AX nodes -> Vec<AXNode>", &nodes);
    if !typed_only && !only_ax {
        measure::<serde_json::Value>("domSnapshot -> serde_json::Value", &snapshot);
        measure::<serde_json::Value>("AX nodes -> serde_json::Value", &nodes);
    }
}
