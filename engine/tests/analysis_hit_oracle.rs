//! The hit tester against Chromium's own hit test, offline.
//!
//! `fixtures/hit/<page>.capture.json.gz` is a capture and `<page>.hit.json.gz` the answers of
//! `DOM.getNodeForLocation` for a grid of viewport points on the same page state:
//! `{"scrollX", "scrollY", "points": [[x, y, backendNodeId | null, frameId | null], ...]}`.
//! All points together must agree at least 99.5% of the time, and every page at least 95% (what
//! still disagrees is listed in `fixtures/hit/README.md`: mostly points on an edge, flagged
//! unsure); each disagreement is printed.
//! `PAGESIGHT_HIT_DIR` points the test at another directory of such pairs.

use pagesight::analysis::{analyze, AnalysisOptions};
use pagesight::capture::Capture;
use pagesight::model::Model;
use serde::Deserialize;
use std::io::Read;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Truth {
    points: Vec<(f64, f64, Option<i64>, Option<String>)>,
}

fn hit_dir() -> PathBuf {
    match std::env::var_os("PAGESIGHT_HIT_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/hit"),
    }
}

fn describe(m: &Model, backend: Option<i64>) -> String {
    let Some(b) = backend else {
        return "nothing".into();
    };
    match m.node_by_backend_id(b) {
        Some(id) => {
            let tag = m.tag(id).unwrap_or("?");
            let attr = m
                .attr(id, "id")
                .map(|v| format!("#{v}"))
                .or_else(|| m.attr(id, "class").map(|c| format!(".{c}")))
                .unwrap_or_default();
            format!("{tag}{attr} (node {id}, backend {b})")
        }
        None => format!("backend {b} (not in snapshot)"),
    }
}

#[test]
fn hit_tester_agrees_with_chromium() {
    let dir = hit_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("no hit-test data in {}", dir.display());
        return;
    };
    let mut pages: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".hit.json.gz"))
        .collect();
    pages.sort();
    let (mut total, mut agree, mut sure_total, mut sure_agree) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for hit_path in pages {
        let name = hit_path
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .trim_end_matches(".hit.json.gz")
                    .to_string()
            })
            .unwrap_or_default();
        let cap_path = hit_path.with_file_name(format!("{name}.capture.json.gz"));
        let bytes = std::fs::read(&cap_path).expect("capture next to hit data");
        let model = Model::from_capture(Capture::from_bytes(&bytes).expect("capture parses"))
            .expect("model builds");
        let mut json = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&hit_path).expect("hit data"))
            .read_to_string(&mut json)
            .expect("hit data is gzip");
        let truth: Truth = serde_json::from_str(&json).expect("hit data parses");
        let analysis = analyze(&model, &AnalysisOptions::default());
        let (mut n, mut ok, mut sn, mut sok) = (0usize, 0usize, 0usize, 0usize);
        for (x, y, expected, _) in &truth.points {
            let Some(expected) = expected else {
                continue;
            };
            let got = analysis.hit_test(*x, *y);
            let got_backend = got.map(|h| i64::from(model.node(h.node).backend_node_id));
            let unsure = got.is_some_and(|h| h.unsure);
            n += 1;
            let same = got_backend == Some(*expected);
            if same {
                ok += 1;
            }
            if !unsure {
                sn += 1;
                if same {
                    sok += 1;
                }
            }
            if !same {
                println!(
                    "{name} ({x}, {y}): chromium {} / pagesight {}{}",
                    describe(&model, Some(*expected)),
                    describe(&model, got_backend),
                    if unsure { " [unsure]" } else { "" }
                );
            }
        }
        let pct = 100.0 * ok as f64 / n.max(1) as f64;
        println!(
            "{name}: {ok}/{n} points agree ({pct:.2}%), sure points {sok}/{sn} ({:.2}%)",
            100.0 * sok as f64 / sn.max(1) as f64
        );
        if pct < 95.0 {
            failures.push(format!("{name}: {pct:.2}%"));
        }
        total += n;
        agree += ok;
        sure_total += sn;
        sure_agree += sok;
    }
    println!(
        "overall: {agree}/{total} ({:.3}%), sure points {sure_agree}/{sure_total} ({:.3}%)",
        100.0 * agree as f64 / total.max(1) as f64,
        100.0 * sure_agree as f64 / sure_total.max(1) as f64
    );
    assert!(failures.is_empty(), "pages below 95%: {failures:?}");
    assert!(
        agree as f64 >= 0.995 * total as f64,
        "overall agreement below 99.5%: {agree}/{total}"
    );
}
