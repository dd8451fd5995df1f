//! The offline pipeline, stage by stage, on every recorded capture of `fixtures/captures/`, and a
//! scale series over generated pages (about 1k to 300k DOM nodes) recorded by `record-scale`.
//!
//! ```text
//! cargo bench -p pagesight-benches --bench pipeline -- --warm-up-time 1 --measurement-time 3
//! cargo bench -p pagesight-benches --bench pipeline -- 'pipeline/stdtypes'   # one page
//! cargo bench -p pagesight-benches --bench pipeline -- 'scale/'              # the scale series
//! ```
//!
//! Stages (each timed alone; its inputs are made beforehand):
//! - `capture_from_gz`, `capture_from_json`: `Capture::from_bytes` on the gzip'd file and on the
//!   plain JSON (decompression + typed parse, or the typed parse alone);
//! - `model`: `Model::from_capture`;
//! - `analysis`: `analyze` (geometry, visibility, hit-testing, interactivity);
//! - `uids_cold`: `assign_uids` with an empty table (the page's first snapshot);
//!   `uids_warm`: the same with the table warm (every later snapshot of the page);
//! - `render_a11y`, `render_dom`, `render_json`: `render` in each mode / format;
//! - `process`: `snapshot::process` on a typed capture (what a live snapshot adds to the CDP calls);
//! - `whole_from_json`, `whole_from_gz`: `snapshot::render_capture` from the plain JSON / the
//!   gzip'd file's bytes to the text: parse + merge + analysis + uids + render, and what each
//!   leaves to free (the figure compared with the time Chromium takes to produce the capture);
//! - `copy` (scale series only): a plain copy of the capture's DOM snapshot and accessibility
//!   trees, the baseline that shows what the memory hierarchy alone adds per node as pages grow.
//!
//! Memory: like the `pagesight` command line, the bench keeps what one run frees for the next
//! ([`pagesight::keep_freed_memory`]); otherwise a long page's tables, above the allocator's
//! threshold, come back from the kernel on every run and the series measures the kernel zeroing
//! pages. `PAGESIGHT_BENCH_ALLOCATOR_DEFAULT=1` measures with the allocator's own policy (what a
//! library embedding pagesight gets unless its host chooses otherwise).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use pagesight::analysis::{analyze, Analysis, AnalysisOptions};
use pagesight::capture::Capture;
use pagesight::identity::{assign_uids, UidAssignment, UidTable};
use pagesight::model::Model;
use pagesight::render::{render, Format, Mode, RenderOptions};
use pagesight::snapshot::{process, render_capture, SnapshotOptions};
use pagesight_benches::{
    dom_node_count, fixture_capture_path, gunzip, scale, scale_capture_path, scale_dir,
    FIXTURE_CAPTURES,
};

/// One capture with every stage's input made ahead of time.
struct Prepared {
    gz: Vec<u8>,
    json: Vec<u8>,
    capture: Capture,
    model: Model,
    analysis: Analysis,
    uids: UidAssignment,
    target: String,
    dom_nodes: usize,
}

fn prepare(label: &str, path: &Path) -> Prepared {
    let gz = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); restore fixtures/captures from git, or re-record the scale \
             series with `cargo run --release -p pagesight-benches --bin pagesight-bench -- record-scale`",
            path.display()
        )
    });
    let json =
        gunzip(&gz).unwrap_or_else(|e| panic!("{label}: not valid gzip ({e}); re-create it"));
    let capture = Capture::from_bytes(&gz)
        .unwrap_or_else(|e| panic!("{label}: not a readable capture ({e}); re-create it"));
    let dom_nodes = dom_node_count(&capture);
    let target = capture.target_id.clone().unwrap_or_default();
    let model = Model::from_capture(capture.clone())
        .unwrap_or_else(|e| panic!("{label}: the model cannot be built ({e})"));
    let analysis = analyze(&model, &AnalysisOptions::default());
    let mut table = UidTable::new();
    let uids = assign_uids(&model, &mut table, &target);
    Prepared {
        gz,
        json,
        capture,
        model,
        analysis,
        uids,
        target,
        dom_nodes,
    }
}

fn render_options(mode: Mode, format: Format) -> RenderOptions {
    RenderOptions {
        mode,
        format,
        verbose: false,
        consistent: true,
    }
}

/// Every stage of one capture, in its own group `pipeline/<name>`.
fn stages(c: &mut Criterion, name: &str, p: &Prepared) {
    let mut group = c.benchmark_group(format!("pipeline/{name}"));
    if p.dom_nodes > 5_000 {
        group.sample_size(10);
    }
    group.bench_function("capture_from_gz", |b| {
        b.iter(|| Capture::from_bytes(black_box(&p.gz)).expect("capture parses"))
    });
    group.bench_function("capture_from_json", |b| {
        b.iter(|| Capture::from_bytes(black_box(&p.json)).expect("capture parses"))
    });
    group.bench_function("model", |b| {
        b.iter_batched(
            || p.capture.clone(),
            |capture| Model::from_capture(capture).expect("model builds"),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("analysis", |b| {
        b.iter(|| analyze(black_box(&p.model), &AnalysisOptions::default()))
    });
    group.bench_function("uids_cold", |b| {
        b.iter_batched(
            UidTable::new,
            |mut table| {
                let uids = assign_uids(&p.model, &mut table, &p.target);
                (table, uids)
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("uids_warm", |b| {
        let mut table = UidTable::new();
        assign_uids(&p.model, &mut table, &p.target);
        b.iter(|| assign_uids(black_box(&p.model), &mut table, &p.target))
    });
    for (id, mode, format) in [
        ("render_a11y", Mode::A11y, Format::Text),
        ("render_dom", Mode::Dom, Format::Text),
        ("render_json", Mode::A11y, Format::Json),
    ] {
        let options = render_options(mode, format);
        group.bench_function(id, |b| {
            b.iter(|| render(black_box(&p.model), &p.analysis, &p.uids, &options))
        });
    }
    group.bench_function("process", |b| {
        b.iter_batched(
            || (p.capture.clone(), UidTable::new()),
            |(capture, mut table)| {
                let snapshot = process(capture, &mut table, &p.target, &SnapshotOptions::default())
                    .expect("the pipeline runs");
                (snapshot, table)
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("whole_from_json", |b| {
        b.iter(|| render_capture(black_box(&p.json), &SnapshotOptions::default()).expect("renders"))
    });
    group.bench_function("whole_from_gz", |b| {
        b.iter(|| render_capture(black_box(&p.gz), &SnapshotOptions::default()).expect("renders"))
    });
    group.finish();
}

fn fixtures(c: &mut Criterion) {
    for name in FIXTURE_CAPTURES {
        let prepared = prepare(name, &fixture_capture_path(name));
        stages(c, name, &prepared);
    }
}

/// The scale series: the main stages against the number of DOM nodes, with throughput in
/// nodes so criterion prints nodes/s (flat = linear).
fn scale_series(c: &mut Criterion) {
    let dir = scale_dir();
    let present: Vec<(usize, std::path::PathBuf)> = scale::DEFAULT_SIZES
        .iter()
        .map(|&n| (n, scale_capture_path(&dir, n)))
        .filter(|(_, path)| path.is_file())
        .collect();
    if present.is_empty() {
        eprintln!(
            "\nscale series skipped: no captures in {}.\n\
             Create them (needs Chromium; takes a minute or two) with:\n    \
             cargo run --release -p pagesight-benches --bin pagesight-bench -- record-scale\n\
             (set PAGESIGHT_SCALE_DIR to read them from elsewhere)\n",
            dir.display()
        );
        return;
    }
    if present.len() < scale::DEFAULT_SIZES.len() {
        eprintln!(
            "scale series: only {} of {} sizes recorded in {}; record the rest with \
             `cargo run --release -p pagesight-benches --bin pagesight-bench -- record-scale`",
            present.len(),
            scale::DEFAULT_SIZES.len(),
            dir.display()
        );
    }
    let mut group = c.benchmark_group("scale");
    group.sample_size(10);
    for (n, path) in present {
        let p = prepare(&format!("scale-{n}"), &path);
        group.throughput(Throughput::Elements(p.dom_nodes as u64));
        // Name by the real node count, so the curve's x axis is exact.
        let nodes = p.dom_nodes;
        // The baseline: a plain copy of the capture's DOM snapshot and accessibility trees,
        // linear in the page by construction. Its time per node shows what the memory
        // hierarchy alone adds as the page outgrows the caches (`pagesight-bench
        // scale-instructions` counts the pipeline's instructions per node, which the caches do
        // not change).
        group.bench_with_input(BenchmarkId::new("copy", nodes), &p, |b, p| {
            b.iter(|| {
                (
                    (*black_box(&p.capture).dom_snapshot).clone(),
                    p.capture.ax_trees.clone(),
                )
            })
        });
        group.bench_with_input(BenchmarkId::new("capture_from_json", nodes), &p, |b, p| {
            b.iter(|| Capture::from_bytes(black_box(&p.json)).expect("capture parses"))
        });
        group.bench_with_input(BenchmarkId::new("model", nodes), &p, |b, p| {
            b.iter_batched(
                || p.capture.clone(),
                |capture| Model::from_capture(capture).expect("model builds"),
                BatchSize::LargeInput,
            )
        });
        group.bench_with_input(BenchmarkId::new("analysis", nodes), &p, |b, p| {
            b.iter(|| analyze(black_box(&p.model), &AnalysisOptions::default()))
        });
        group.bench_with_input(BenchmarkId::new("uids_warm", nodes), &p, |b, p| {
            let mut table = UidTable::new();
            assign_uids(&p.model, &mut table, &p.target);
            b.iter(|| assign_uids(black_box(&p.model), &mut table, &p.target))
        });
        group.bench_with_input(BenchmarkId::new("render_a11y", nodes), &p, |b, p| {
            let options = render_options(Mode::A11y, Format::Text);
            b.iter(|| render(black_box(&p.model), &p.analysis, &p.uids, &options))
        });
        group.bench_with_input(BenchmarkId::new("render_dom", nodes), &p, |b, p| {
            let options = render_options(Mode::Dom, Format::Text);
            b.iter(|| render(black_box(&p.model), &p.analysis, &p.uids, &options))
        });
        group.bench_with_input(BenchmarkId::new("process", nodes), &p, |b, p| {
            b.iter_batched(
                || (p.capture.clone(), UidTable::new()),
                |(capture, mut table)| {
                    let snapshot =
                        process(capture, &mut table, &p.target, &SnapshotOptions::default())
                            .expect("the pipeline runs");
                    (snapshot, table)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = fixtures, scale_series
}

/// The groups, with the command line's memory policy unless asked otherwise (module docs).
fn main() {
    if std::env::var_os("PAGESIGHT_BENCH_ALLOCATOR_DEFAULT").is_none() {
        pagesight::keep_freed_memory();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
