//! Every recorded capture loads into a model and analyses, and the model and analysis keep their
//! invariants.

use pagesight::analysis::{analyze, AnalysisOptions, Expand};
use pagesight::capture::Capture;
use pagesight::model::{Model, NodeId};
use std::path::PathBuf;

fn captures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/captures")
}

fn captures() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(captures_dir())
        .expect("fixtures/captures exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().trim_end_matches(".json.gz").to_string())
                .unwrap_or_default();
            (name, p)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no captures found");
    out
}

fn load(path: &PathBuf) -> Model {
    let bytes = std::fs::read(path).expect("capture readable");
    let capture = Capture::from_bytes(&bytes).expect("capture parses");
    Model::from_capture(capture).expect("model builds")
}

fn check_model(name: &str, m: &Model) {
    assert!(!m.nodes.is_empty(), "{name}: no nodes");
    // Subtree ranges are well formed and nested.
    for (i, n) in m.nodes.iter().enumerate() {
        let id = NodeId::new(i as u32);
        assert!(n.subtree_end.index() > i, "{name}: node {i} empty range");
        assert!(n.subtree_end.index() <= m.nodes.len());
        if let Some(p) = n.parent {
            assert!(p < id, "{name}: parent after child");
            assert!(
                m.contains(p, id),
                "{name}: node {i} outside its parent's range"
            );
            assert!(n.subtree_end <= m.node(p).subtree_end);
            assert_eq!(n.depth, m.node(p).depth + 1);
        }
        for c in m.children(id) {
            assert_eq!(m.node(c).parent, Some(id), "{name}: children iterator");
        }
        if n.is_element() {
            let tag = m.tag(id).unwrap_or("");
            assert_eq!(tag, tag.to_ascii_lowercase(), "{name}: tag not lower-cased");
        }
        if let Some(l) = n.layout {
            assert_eq!(m.layout(l).node, id);
        }
    }
    // Every AX node with a backend id that exists in the DOM is linked.
    let mut linked = 0;
    for a in &m.ax_nodes {
        if let Some(b) = a.backend_dom_node_id {
            if let Some(node) = m.node_by_backend_id(b) {
                assert_eq!(
                    a.node,
                    Some(node),
                    "{name}: AX node not linked to its DOM node"
                );
                linked += 1;
            }
        }
        if let Some(p) = a.parent {
            let _ = m.ax(p);
        }
    }
    assert!(
        linked > 0 || m.ax_nodes.is_empty(),
        "{name}: no AX node linked"
    );
    for (i, n) in m.nodes.iter().enumerate() {
        if let Some(a) = n.ax {
            assert_eq!(m.ax(a).node, Some(NodeId::new(i as u32)));
        }
    }
    // Text boxes belong to the layout box that lists them.
    for (i, l) in m.layouts.iter().enumerate() {
        for t in &m.text_boxes[l.text_boxes_start as usize..l.text_boxes_end as usize] {
            assert_eq!(t.layout.index(), i);
        }
    }
}

#[test]
fn every_capture_loads_and_analyses() {
    for (name, path) in captures() {
        let m = load(&path);
        check_model(&name, &m);
        let t = std::time::Instant::now();
        let a = analyze(&m, &AnalysisOptions::default());
        let took = t.elapsed();
        assert_eq!(a.nodes.len(), m.nodes.len());
        let mut interactive = 0;
        let mut in_view = 0;
        let mut occluded = 0;
        let mut with_point = 0;
        for (i, f) in a.nodes.iter().enumerate() {
            let id = NodeId::new(i as u32);
            if f.interactive {
                interactive += 1;
            }
            let c = a.click(id);
            // Nothing is both hidden from the mouse and clickable.
            if c.click_point.is_some() {
                assert!(
                    f.hittable(),
                    "{name}: node {i} has a click point but cannot be hit"
                );
            }
            if f.in_viewport {
                in_view += 1;
                assert!(f.visible());
            }
            if c.occluded {
                occluded += 1;
                assert!(c.click_point.is_none());
            }
            if let Some(p) = c.click_point {
                with_point += 1;
                assert!(f.interactive);
                let h = a.hit_test(p.x, p.y).expect("click point hits");
                assert!(
                    m.contains(id, h.node),
                    "{name}: click point of {i} hits elsewhere"
                );
                let v = a.viewport.rect();
                assert!(p.x >= v.x && p.x < v.right() && p.y >= v.y && p.y < v.bottom());
            }
            if f.visible() {
                assert!(
                    f.bounds().is_some(),
                    "{name}: visible node {i} without bounds"
                );
            }
        }
        println!(
            "{name}: {} nodes, {} boxes, {} AX nodes; {interactive} interactive, {in_view} in viewport, \
             {with_point} with click point, {occluded} occluded; {} hit items; analysis {:?}",
            m.nodes.len(),
            m.layouts.len(),
            m.ax_nodes.len(),
            a.hit_tester.item_count(),
            took
        );
        assert!(interactive > 0, "{name}: nothing interactive");
        assert!(with_point > 0, "{name}: no click point");
        // The whole page: everything visible is "in the viewport".
        let all = analyze(
            &m,
            &AnalysisOptions {
                expand: Expand::All,
            },
        );
        for f in &all.nodes {
            assert_eq!(f.visible(), f.in_viewport);
        }
    }
}
