//! Typed round-trips of real Chromium replies recorded in `fixtures/captures/*.json.gz`.
//!
//! Each reply is parsed into its generated type, serialised again and compared with the
//! original as JSON values: anything the bindings drop (a field missing from the protocol, a
//! wrongly typed field, an enum value that does not come back verbatim) fails the test with the
//! JSON path of the first difference. Numbers compare by value, since `1` and `1.0` are the
//! same number to Chromium.

#![cfg(all(feature = "accessibility", feature = "dom_snapshot", feature = "page"))]

use std::io::Read;
use std::path::PathBuf;

use pagesight_cdp::{accessibility, dom_snapshot, page};
use serde_json::Value;

fn captures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/captures");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no captures in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let mut json = Vec::new();
            let file = std::fs::File::open(&p).expect("open capture");
            flate2::read::GzDecoder::new(file)
                .read_to_end(&mut json)
                .expect("gunzip capture");
            let value: Value = serde_json::from_slice(&json).expect("capture is JSON");
            (p.file_name().unwrap().to_string_lossy().into_owned(), value)
        })
        .collect()
}

/// First difference between `original` and `round_tripped`, as a JSON path and description.
fn diff(original: &Value, round_tripped: &Value, path: &mut String) -> Option<String> {
    match (original, round_tripped) {
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            (!same).then(|| format!("{path}: {a} became {b}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!(
                    "{path}: array length {} became {}",
                    a.len(),
                    b.len()
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(d) = diff(x, y, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            None
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, x) in a {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                match b.get(k) {
                    None => return Some(format!("{path}: lost")),
                    Some(y) => {
                        if let Some(d) = diff(x, y, path) {
                            return Some(d);
                        }
                    }
                }
                path.truncate(len);
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}.{k}: appeared"))
        }
        (a, b) => (a != b).then(|| format!("{path}: {a} became {b}")),
    }
}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(
    capture: &str,
    what: &str,
    original: &Value,
) -> T {
    let bytes = serde_json::to_vec(original).expect("serialise original");
    let typed: T = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "{capture}: {what} does not parse as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    let again = serde_json::to_value(&typed).expect("serialise typed");
    if let Some(d) = diff(original, &again, &mut what.to_string()) {
        panic!(
            "{capture}: round-trip through {} changed {d}",
            std::any::type_name::<T>()
        );
    }
    typed
}

#[test]
fn captures_round_trip_through_typed_bindings() {
    for (name, capture) in captures() {
        let tree: page::FrameTree = round_trip(&name, "frameTree", &capture["frameTree"]);
        assert!(!tree.frame.id.is_empty());
        let metrics: page::GetLayoutMetricsReturns =
            round_trip(&name, "layoutMetrics", &capture["layoutMetrics"]);
        assert!(metrics.css_layout_viewport.client_width > 0);
        let snapshot: dom_snapshot::CaptureSnapshotReturns =
            round_trip(&name, "domSnapshot", &capture["domSnapshot"]);
        assert!(!snapshot.documents.is_empty());
        assert!(!snapshot.strings.is_empty());
        let trees = capture["axTrees"].as_array().expect("axTrees is an array");
        assert!(!trees.is_empty(), "{name}: no AX trees");
        for (i, tree) in trees.iter().enumerate() {
            let nodes: Vec<accessibility::AXNode> =
                round_trip(&name, &format!("axTrees[{i}].nodes"), &tree["nodes"]);
            assert!(!nodes.is_empty());
            assert!(nodes.iter().any(|n| n.backend_dom_node_id.is_some()));
        }
    }
}

#[test]
fn known_enum_values_in_captures_are_not_unknown() {
    for (name, capture) in captures() {
        let nodes: Vec<accessibility::AXNode> =
            serde_json::from_value(capture["axTrees"][0]["nodes"].clone()).expect("AX nodes");
        for node in &nodes {
            for value in [&node.role, &node.name].into_iter().flatten() {
                assert!(
                    !matches!(value.type_, accessibility::AXValueType::Unknown(_)),
                    "{name}: AXValueType {:?} not recognised",
                    value.type_
                );
            }
            for p in node.properties.iter().flatten() {
                assert!(
                    !matches!(p.name, accessibility::AXPropertyName::Unknown(_)),
                    "{name}: AXPropertyName {:?} not recognised",
                    p.name
                );
            }
        }
    }
}
