//! Typed parse of raw CDP replies: the `DOMSnapshot.captureSnapshot` result and the
//! `Accessibility.getFullAXTree` nodes of the stdtypes capture (36k DOM nodes), each taken out
//! of the capture as its own JSON buffer beforehand so that only the typed parse is timed. The
//! AX nodes are parsed three ways: as the generated `Vec<AXNode>` (`axNodes`), as the lean
//! records the engine captures them into by serde_json (`axNodes_lean`,
//! `pagesight::capture::AxNodes`), and by the engine's own reader (`axNodes_fast`). The
//! domSnapshot is parsed four ways: as the generated `CaptureSnapshotReturns` (`domSnapshot`),
//! as the engine's lean `DomSnapshot` by serde_json from bytes (`domSnapshot_lean`) and from
//! text (`domSnapshot_lean_str`), and by the engine's own reader from bytes (`domSnapshot_fast`).
//!
//! `cargo bench -p pagesight-benches --bench parse -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pagesight::capture::{AxNodes, DomSnapshot};
use pagesight::cdp::accessibility::AXNode;
use pagesight::cdp::dom_snapshot::CaptureSnapshotReturns;
use pagesight_benches::{fixture_capture_path, gunzip, raw_parts};

fn parse(c: &mut Criterion) {
    let path = fixture_capture_path("stdtypes");
    let gz = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); run the benches from a checkout that has fixtures/captures",
            path.display()
        )
    });
    let json = gunzip(&gz).expect("the stdtypes capture is not valid gzip; restore it from git");
    let parts = raw_parts(&json)
        .expect("the stdtypes capture has no domSnapshot/axTrees; restore it from git");

    let mut group = c.benchmark_group("parse/stdtypes");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(parts.dom_snapshot.len() as u64));
    group.bench_function("domSnapshot", |b| {
        b.iter(|| {
            serde_json::from_slice::<CaptureSnapshotReturns>(black_box(&parts.dom_snapshot))
                .expect("the domSnapshot of the stdtypes capture does not parse")
        })
    });
    group.bench_function("domSnapshot_lean", |b| {
        b.iter(|| {
            serde_json::from_slice::<DomSnapshot>(black_box(&parts.dom_snapshot))
                .expect("the domSnapshot of the stdtypes capture does not parse")
        })
    });
    // What the engine does with a reply: before its own reader, the bytes checked as UTF-8
    // once, then read as text by serde_json (still the fallback); now that reader
    // (`DomSnapshot::read_fast`), straight from the bytes, which checks only strings as UTF-8.
    group.bench_function("domSnapshot_lean_str", |b| {
        b.iter(|| {
            let text = std::str::from_utf8(black_box(&parts.dom_snapshot))
                .expect("the domSnapshot of the stdtypes capture is not UTF-8");
            serde_json::from_str::<DomSnapshot>(text)
                .expect("the domSnapshot of the stdtypes capture does not parse")
        })
    });
    group.bench_function("domSnapshot_fast", |b| {
        b.iter(|| {
            DomSnapshot::read_fast(black_box(&parts.dom_snapshot))
                .expect("the fast reader gave up on the domSnapshot of the stdtypes capture")
        })
    });
    group.throughput(Throughput::Bytes(parts.ax_nodes.len() as u64));
    group.bench_function("axNodes", |b| {
        b.iter(|| {
            serde_json::from_slice::<Vec<AXNode>>(black_box(&parts.ax_nodes))
                .expect("the AX nodes of the stdtypes capture do not parse")
        })
    });
    group.bench_function("axNodes_lean", |b| {
        b.iter(|| {
            serde_json::from_slice::<AxNodes>(black_box(&parts.ax_nodes))
                .expect("the AX nodes of the stdtypes capture do not parse")
        })
    });
    group.bench_function("axNodes_fast", |b| {
        let text = std::str::from_utf8(&parts.ax_nodes)
            .expect("the AX nodes of the stdtypes capture are not UTF-8");
        b.iter(|| {
            AxNodes::from_json(black_box(text))
                .expect("the AX nodes of the stdtypes capture do not parse")
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
