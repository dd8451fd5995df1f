//! Unit tests of the model on tiny hand-written captures.

use super::*;
use crate::capture::Capture;
use serde_json::{json, Value};

/// A one-document capture. `nodes`: (parent, nodeType, name, attrs, value); `layout`:
/// (node, [x, y, w, h], [display, visibility, opacity, pointer-events, position, z-index,
/// overflow-x, overflow-y], paint order).
pub(crate) struct Page {
    pub strings: Vec<String>,
    pub docs: Vec<Value>,
    pub ax: Vec<Value>,
    pub scroll_y: f64,
}

pub(crate) const STYLES: [&str; 8] = [
    "display",
    "visibility",
    "opacity",
    "pointer-events",
    "position",
    "z-index",
    "overflow-x",
    "overflow-y",
];

impl Page {
    pub fn new() -> Self {
        Page {
            strings: Vec::new(),
            docs: Vec::new(),
            ax: Vec::new(),
            scroll_y: 0.0,
        }
    }

    pub fn s(&mut self, v: &str) -> i64 {
        if let Some(i) = self.strings.iter().position(|x| x == v) {
            return i as i64;
        }
        self.strings.push(v.to_string());
        self.strings.len() as i64 - 1
    }

    #[allow(clippy::type_complexity)]
    pub fn doc(
        &mut self,
        nodes: &[(i64, i64, &str, &[(&str, &str)], &str)],
        layout: &[(i64, [f64; 4], [&str; 8], i64)],
        extra: Value,
    ) {
        let base = 1000 * (self.docs.len() as i64 + 1);
        let parent: Vec<i64> = nodes.iter().map(|n| n.0).collect();
        let ty: Vec<i64> = nodes.iter().map(|n| n.1).collect();
        let names: Vec<i64> = nodes.iter().map(|n| self.s(n.2)).collect();
        let values: Vec<i64> = nodes
            .iter()
            .map(|n| if n.4.is_empty() { -1 } else { self.s(n.4) })
            .collect();
        let attrs: Vec<Vec<i64>> = nodes
            .iter()
            .map(|n| {
                n.3.iter()
                    .flat_map(|(k, v)| [self.s(k), self.s(v)])
                    .collect()
            })
            .collect();
        let backend: Vec<i64> = (0..nodes.len() as i64).map(|i| base + i).collect();
        let styles: Vec<Vec<i64>> = layout
            .iter()
            .map(|l| l.2.iter().map(|v| self.s(v)).collect())
            .collect();
        let mut d = json!({
            "documentURL": self.s("about:blank"), "title": -1, "baseURL": -1,
            "contentLanguage": -1, "encodingName": -1, "publicId": -1, "systemId": -1,
            "frameId": self.s(&format!("frame{}", self.docs.len())),
            "nodes": {"parentIndex": parent, "nodeType": ty, "nodeName": names,
                      "nodeValue": values, "backendNodeId": backend, "attributes": attrs},
            "layout": {"nodeIndex": layout.iter().map(|l| l.0).collect::<Vec<_>>(),
                       "styles": styles,
                       "bounds": layout.iter().map(|l| l.1.to_vec()).collect::<Vec<_>>(),
                       "text": layout.iter().map(|_| -1).collect::<Vec<_>>(),
                       "stackingContexts": {"index": []},
                       "paintOrders": layout.iter().map(|l| l.3).collect::<Vec<_>>()},
            "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []},
            "scrollOffsetX": 0, "scrollOffsetY": if self.docs.is_empty() { self.scroll_y } else { 0.0 },
            "contentWidth": 800, "contentHeight": 2000
        });
        merge(&mut d, extra);
        self.docs.push(d);
    }

    pub fn capture(&self) -> Capture {
        Capture::from_bytes(self.capture_json().to_string().as_bytes()).unwrap()
    }

    pub fn capture_json(&self) -> Value {
        let sy = self.scroll_y as i64;
        json!({
            "format": 1, "url": "about:blank", "title": "t",
            "computedStyles": STYLES,
            "layoutMetrics": {
                "layoutViewport": {"pageX": 0, "pageY": sy, "clientWidth": 800, "clientHeight": 600},
                "visualViewport": {"offsetX": 0, "offsetY": 0, "pageX": 0, "pageY": self.scroll_y, "clientWidth": 800, "clientHeight": 600, "scale": 1},
                "contentSize": {"x": 0, "y": 0, "width": 800, "height": 2000},
                "cssLayoutViewport": {"pageX": 0, "pageY": sy, "clientWidth": 800, "clientHeight": 600},
                "cssVisualViewport": {"offsetX": 0, "offsetY": 0, "pageX": 0, "pageY": self.scroll_y, "clientWidth": 800, "clientHeight": 600, "scale": 1},
                "cssContentSize": {"x": 0, "y": 0, "width": 800, "height": 2000}},
            "domSnapshot": {"documents": self.docs, "strings": self.strings},
            "axTrees": [{"frameId": "frame0", "nodes": self.ax}]
        })
    }

    pub fn model(&self) -> Model {
        Model::from_capture(self.capture()).unwrap()
    }
}

fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (a, b) => *a = b,
    }
}

pub(crate) const BLOCK: [&str; 8] = [
    "block", "visible", "1", "auto", "static", "auto", "visible", "visible",
];

/// `#document > html > body > [div#a, div#b > "text"]`.
pub(crate) fn simple() -> Page {
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "DIV", &[("id", "a"), ("class", "x")], ""),
            (2, 1, "DIV", &[("id", "b")], ""),
            (4, 3, "#text", &[], "  hello   world "),
        ],
        &[
            (0, [0.0, 0.0, 800.0, 600.0], BLOCK, 0),
            (1, [0.0, 0.0, 800.0, 2000.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 2000.0], BLOCK, 1),
            (3, [10.0, 10.0, 100.0, 100.0], BLOCK, 1),
            (4, [50.0, 50.0, 100.0, 100.0], BLOCK, 1),
        ],
        json!({}),
    );
    p
}

#[test]
fn builds_a_pre_order_arena() {
    let m = simple().model();
    assert_eq!(m.nodes.len(), 6);
    assert_eq!(m.node(NodeId::new(0)).subtree_end, NodeId::new(6));
    assert_eq!(m.node(NodeId::new(4)).subtree_end, NodeId::new(6));
    assert_eq!(m.tag(NodeId::new(3)), Some("div"));
    assert_eq!(m.tag(NodeId::new(5)), None);
    assert_eq!(m.attr(NodeId::new(3), "ID"), Some("a"));
    assert!(m.attr(NodeId::new(3), "title").is_none());
    let kids: Vec<_> = m.children(NodeId::new(2)).collect();
    assert_eq!(kids, vec![NodeId::new(3), NodeId::new(4)]);
    assert_eq!(m.text_content(NodeId::new(0), 100), "hello world");
    assert_eq!(m.node_by_backend_id(1004), Some(NodeId::new(4)));
    assert_eq!(m.ancestors(NodeId::new(5)).count(), 4);
    assert_eq!(m.layout_of(NodeId::new(4)).unwrap().bounds.x, 50.0);
}

#[test]
fn links_ax_nodes_and_keeps_orphans() {
    let mut p = simple();
    p.ax = vec![
        json!({"nodeId": "1", "ignored": false, "role": {"type": "internalRole", "value": "RootWebArea"},
               "childIds": ["2", "3"], "backendDOMNodeId": 1000}),
        json!({"nodeId": "2", "ignored": false, "role": {"type": "role", "value": "button"},
               "name": {"type": "computedString", "value": "Go"}, "parentId": "1",
               "properties": [{"name": "checked", "value": {"type": "tristate", "value": "mixed"}},
                              {"name": "disabled", "value": {"type": "boolean", "value": true}},
                              {"name": "someFutureThing", "value": {"type": "boolean", "value": true}}],
               "backendDOMNodeId": 1003}),
        json!({"nodeId": "3", "ignored": false, "role": {"type": "role", "value": "generic"},
               "parentId": "1", "backendDOMNodeId": 99999}),
    ];
    let m = p.model();
    assert_eq!(m.ax_nodes.len(), 3);
    assert_eq!(m.role(NodeId::new(3)), Some("button"));
    assert_eq!(m.ax_name(NodeId::new(3)), Some("Go"));
    assert_eq!(m.checked(NodeId::new(3)), Some(Checked::Mixed));
    let a = m.node(NodeId::new(3)).ax.unwrap();
    assert!(m.ax_flag(a, AxProp::Disabled));
    assert_eq!(m.ax_children(AxId::new(0)).len(), 2);
    assert_eq!(m.ax(AxId::new(2)).node, None);
    assert_eq!(m.ax_roots, vec![AxId::new(0)]);
}

/// `#document > html > [iframe > (#document > html > button), p]`: the iframe's document is
/// the snapshot's second.
fn framed() -> Page {
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "IFRAME", &[], ""),
            (1, 1, "P", &[], ""),
        ],
        &[(2, [100.0, 50.0, 300.0, 200.0], BLOCK, 1)],
        json!({"nodes": {"contentDocumentIndex": {"index": [2], "value": [1]}}}),
    );
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BUTTON", &[], ""),
        ],
        &[(2, [0.0, 0.0, 10.0, 10.0], BLOCK, 1)],
        json!({}),
    );
    p
}

#[test]
fn stitches_child_documents_under_their_owner() {
    let m = framed().model();
    let names: Vec<_> = m.node_ids().map(|i| m.str(m.node(i).tag)).collect();
    assert_eq!(
        names,
        vec![
            "#document",
            "html",
            "iframe",
            "#document",
            "html",
            "button",
            "p"
        ]
    );
    assert_eq!(m.node(NodeId::new(2)).content_document, Some(DocId::new(1)));
    assert_eq!(m.doc(DocId::new(1)).owner, Some(NodeId::new(2)));
    assert_eq!(m.node(NodeId::new(2)).subtree_end, NodeId::new(6));
    assert_eq!(m.node(NodeId::new(5)).doc, DocId::new(1));
}

#[test]
fn reads_every_frames_tree_in_order() {
    let mut p = framed();
    p.ax = vec![
        json!({"nodeId": "1", "role": {"type": "internalRole", "value": "RootWebArea"},
               "childIds": ["7"], "backendDOMNodeId": 1000}),
        json!({"nodeId": "7", "role": {"type": "role", "value": "Iframe"}, "parentId": "1",
               "backendDOMNodeId": 1002}),
    ];
    let mut capture = p.capture();
    // The child frame's tree numbers its nodes from 1 again, as Chromium does.
    let inner = json!([
        {"nodeId": "1", "role": {"type": "internalRole", "value": "RootWebArea"},
         "childIds": ["2"], "backendDOMNodeId": 2000, "frameId": "frame1"},
        {"nodeId": "2", "role": {"type": "role", "value": "button"},
         "name": {"type": "computedString", "value": "Inner"}, "parentId": "1",
         "properties": [{"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}}],
         "backendDOMNodeId": 2002},
    ]);
    capture.ax_trees.push(crate::capture::AxTreeCapture {
        frame_id: "frame1".to_string(),
        nodes: serde_json::from_value(inner).unwrap(),
    });
    let m = Model::from_capture(capture).unwrap();
    assert_eq!(m.ax_nodes.len(), 4);
    assert_eq!(m.ax_roots, vec![AxId::new(0), AxId::new(2)]);
    assert_eq!(m.ax_children(AxId::new(0)), &[AxId::new(1)]);
    assert_eq!(m.ax_children(AxId::new(2)), &[AxId::new(3)]);
    assert_eq!(m.ax(AxId::new(1)).parent, Some(AxId::new(0)));
    assert_eq!(m.ax(AxId::new(3)).parent, Some(AxId::new(2)));
    assert_eq!(m.role(NodeId::new(2)), Some("Iframe"));
    assert_eq!(m.role(NodeId::new(5)), Some("button"));
    assert_eq!(m.ax_name(NodeId::new(5)), Some("Inner"));
    assert!(m.ax_flag(AxId::new(3), AxProp::Focusable));
    assert!(!m.ax_flag(AxId::new(1), AxProp::Focusable));
    let frame = |a: u32| m.ax(AxId::new(a)).frame_id.map(|s| m.str(s));
    assert_eq!(frame(1), Some("frame0"));
    assert_eq!(frame(3), Some("frame1"));
}

#[test]
fn corrupt_snapshots_are_errors_not_panics() {
    let mut p = Page::new();
    p.doc(
        &[(-1, 9, "#document", &[], ""), (5, 1, "HTML", &[], "")],
        &[],
        json!({}),
    );
    let e = Model::from_capture(p.capture()).unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::InvalidArgument);
    let mut p = Page::new();
    p.doc(
        &[(1, 1, "A", &[], ""), (0, 1, "B", &[], "")],
        &[],
        json!({}),
    );
    let e = Model::from_capture(p.capture()).unwrap_err();
    assert!(e.message().contains("cycle"), "{}", e.message());
    let mut p = simple();
    p.docs[0]["layout"]["nodeIndex"][0] = json!(77);
    assert!(Model::from_capture(p.capture()).is_err());
    let mut p = simple();
    p.docs[0]["nodes"]["nodeName"][1] = json!(4242);
    assert!(Model::from_capture(p.capture()).is_err());
}

#[test]
fn boxes_of_one_style_share_it() {
    let mut p = simple();
    // An iframe document of the same target under `div#a`: its rows are the same index lists
    // as the top document's.
    let mut hidden = BLOCK;
    hidden[1] = "hidden";
    p.doc(
        &[(-1, 9, "#document", &[], ""), (0, 1, "HTML", &[], "")],
        &[
            (0, [0.0, 0.0, 10.0, 10.0], BLOCK, 0),
            (1, [0.0, 0.0, 10.0, 10.0], hidden, 0),
        ],
        json!({}),
    );
    p.docs[0]["nodes"]["contentDocumentIndex"] = json!({"index": [3], "value": [1]});
    // `div#b` (the top document's last box) without a style row.
    p.docs[0]["layout"]["styles"]
        .as_array_mut()
        .unwrap()
        .truncate(4);
    let m = p.model();
    let tags: Vec<_> = m.node_ids().map(|i| m.str(m.node(i).tag)).collect();
    assert_eq!(
        tags,
        [
            "#document",
            "html",
            "body",
            "div",
            "#document",
            "html",
            "div",
            "#text"
        ]
    );
    assert_eq!(m.styles.len(), 3, "initial, block, hidden block");
    assert_eq!(m.styles[StyleId::INITIAL.index()], Style::default());
    let block = m.layout_of(NodeId::new(0)).unwrap().style;
    for n in [1, 2, 3, 4] {
        assert_eq!(
            m.layout_of(NodeId::new(n)).unwrap().style,
            block,
            "node {n}"
        );
    }
    assert_eq!(m.style_of(NodeId::new(4)).unwrap().display, Display::Block);
    let hidden = m.style_of(NodeId::new(5)).unwrap();
    assert!(hidden.visibility.is_hidden());
    assert_eq!(hidden.display, Display::Block);
    let unstyled = m.layout_of(NodeId::new(6)).unwrap();
    assert_eq!(unstyled.style, StyleId::INITIAL);
    assert_eq!(*m.style(unstyled), Style::default());
}

#[test]
fn layout_boxes_stay_small() {
    // Every stage streams all boxes through memory, and a long page has hundreds of thousands:
    // a style is shared by id rather than held by each box.
    assert!(std::mem::size_of::<LayoutBox>() <= 72);
}

#[test]
fn nodes_stay_small() {
    // Every stage streams all nodes through memory: an optional id takes the niche of its id,
    // and the node's flags share one byte.
    assert_eq!(std::mem::size_of::<Option<NodeId>>(), 4);
    assert_eq!(std::mem::size_of::<Option<StrId>>(), 4);
    assert_eq!(std::mem::size_of::<Node>(), 56);
}

#[test]
fn ids_keep_their_index_and_order() {
    for i in [0, 1, 7, u32::MAX - 1] {
        assert_eq!(NodeId::new(i).get(), i);
        assert_eq!(NodeId::new(i).index(), i as usize);
    }
    assert!(NodeId::new(1) < NodeId::new(2));
    assert_eq!(NodeId::default(), NodeId::new(0));
    assert_eq!(
        format!("{:?} {}", NodeId::new(3), NodeId::new(3)),
        "NodeId(3) 3"
    );
}

#[test]
fn backend_node_ids_outside_the_protocols_32_bits_are_refused() {
    let page = |backend: i64| {
        let mut p = Page::new();
        p.doc(
            &[(-1, 9, "#document", &[], "")],
            &[],
            json!({"nodes": {"backendNodeId": [backend]}}),
        );
        p
    };
    let m = page(i64::from(i32::MAX)).model();
    assert_eq!(m.node(NodeId::new(0)).backend_node_id, i32::MAX);
    assert_eq!(
        m.node_by_backend_id(i64::from(i32::MAX)),
        Some(NodeId::new(0))
    );
    let err = Model::from_capture(page(i64::from(i32::MAX) + 1).capture()).unwrap_err();
    assert!(err.to_string().contains("nodes.backendNodeId"), "{err}");
}

#[test]
fn a_style_row_of_one_target_is_not_taken_for_another_targets() {
    // An out-of-process iframe whose style rows are the very index lists of the page's, in a
    // string table where the index the page reads as `block` reads as `none`.
    let page = simple();
    let mut frame = simple();
    let block = frame.strings.iter().position(|s| s == "block").unwrap();
    frame.strings[block] = "none".into();
    let mut capture = page.capture();
    let frame_capture = frame.capture();
    assert_eq!(
        frame_capture.dom_snapshot.documents[0].layout.styles,
        capture.dom_snapshot.documents[0].layout.styles
    );
    let owner = capture.dom_snapshot.documents[0]
        .nodes
        .backend_node_id
        .as_ref()
        .unwrap()[3];
    capture.oopifs.push(crate::capture::OopifCapture {
        target_id: Some("child".into()),
        frame_id: "frame1".into(),
        owner_target: 0,
        owner_backend_node_id: owner,
        computed_styles: capture.computed_styles.clone(),
        dom_snapshot: frame_capture.dom_snapshot.clone(),
        ax_trees: Vec::new(),
        frame_tree: None,
    });
    let m = Model::from_capture(capture).unwrap();
    // (whether the box is the frame's, its display), in document order: the frame's document
    // is stitched under `div#a`.
    let page_doc = m.node(NodeId::new(0)).doc;
    let displays: Vec<(bool, Display)> = m
        .node_ids()
        .filter_map(|i| {
            let l = m.layout_of(i)?;
            Some((m.node(i).doc != page_doc, m.style(l).display))
        })
        .collect();
    let frame = displays.iter().filter(|(f, _)| *f).count();
    assert_eq!((displays.len(), frame), (10, 5), "{displays:?}");
    for (in_frame, display) in displays {
        let expected = if in_frame {
            Display::None
        } else {
            Display::Block
        };
        assert_eq!(display, expected);
    }
}
