//! Run-time behaviour of code generated from `tests/snippet/protocol.json`.
//!
//! The generated modules (kept current by `tests/snippet.rs`) are compiled right here, with
//! this file standing in for the bindings crate root, so the generator's output is checked by
//! the compiler and by serde, not just by reading its text.

#![allow(dead_code)]

pub use pagesight_cdp::{wire, Command, Event};

#[path = "snippet/gen/dom.rs"]
pub mod dom;
#[path = "snippet/gen/layer_tree.rs"]
pub mod layer_tree;
#[path = "snippet/gen/snippet.rs"]
pub mod snippet;

use serde_json::json;

#[test]
fn unknown_enum_values_are_kept() {
    let k: snippet::Kind = serde_json::from_value(json!("brandNew")).unwrap();
    assert_eq!(k, snippet::Kind::Unknown("brandNew".into()));
    assert_eq!(serde_json::to_value(&k).unwrap(), json!("brandNew"));
}

#[test]
fn known_enum_values_round_trip() {
    for (wire, kind) in [
        ("computedString", snippet::Kind::ComputedString),
        ("user-agent", snippet::Kind::UserAgent),
        ("unknown", snippet::Kind::Unknown_),
        ("self", snippet::Kind::Self_),
        ("2d", snippet::Kind::V2d),
        ("ctap2_0", snippet::Kind::Ctap2_0),
        ("", snippet::Kind::Empty),
    ] {
        let parsed: snippet::Kind = serde_json::from_value(json!(wire)).unwrap();
        assert_eq!(parsed, kind);
        assert_eq!(parsed.as_str(), wire);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json!(wire));
    }
}

#[test]
fn recursive_types_are_constructible_and_round_trip() {
    let a = layer_tree::A {
        b: Some(Box::new(layer_tree::B {
            a: Box::new(layer_tree::A { b: None, x: 1.0 }),
            c: layer_tree::C { n: 2 },
            cs: vec![],
        })),
        x: 0.5,
    };
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(
        v,
        json!({"b": {"a": {"x": 1.0}, "c": {"n": 2}, "cs": []}, "x": 0.5})
    );
    assert_eq!(serde_json::from_value::<layer_tree::A>(v).unwrap(), a);

    let node: dom::Node = serde_json::from_value(json!({
        "nodeId": 1, "contentDocument": {"nodeId": 2, "children": [{"nodeId": 3}]}, "future": true
    }))
    .unwrap();
    let inner = node.content_document.as_deref().unwrap();
    assert_eq!(inner.children.as_ref().unwrap()[0].node_id, 3);
}

#[test]
fn keywords_renames_and_optional_fields_on_the_wire() {
    let thing = snippet::Thing {
        kind: snippet::ThingKind2::X,
        type_: snippet::Kind::UserAgent,
        override_: Some(true),
        self_: None,
        node: None,
        backend_node_id: 4,
        scroll_offset_x: Some(2.5),
    };
    let v = serde_json::to_value(&thing).unwrap();
    assert_eq!(
        v,
        json!({"kind": "x", "type": "user-agent", "override": true, "backendNodeId": 4, "scrollOffsetX": 2.5})
    );
    assert_eq!(serde_json::from_value::<snippet::Thing>(v).unwrap(), thing);
    let node = dom::Node {
        node_id: 1,
        backend_dom_node_id: Some(9),
        ..serde_json::from_value(json!({"nodeId": 0})).unwrap()
    };
    assert_eq!(
        serde_json::to_value(&node).unwrap(),
        json!({"nodeId": 1, "backendDOMNodeId": 9})
    );
}

#[test]
fn commands_and_events() {
    let params = snippet::GetFullAXTreeParams {
        depth: Some(1),
        ..Default::default()
    };
    assert_eq!(serde_json::to_value(&params).unwrap(), json!({"depth": 1}));
    assert_eq!(
        <snippet::GetFullAXTreeParams as Command>::METHOD,
        "Snippet.getFullAXTree"
    );
    let reply: <snippet::GetFullAXTreeParams as Command>::Response =
        serde_json::from_value(json!({"mode": "warp", "nodes": [{"nodeId": 1}]})).unwrap();
    assert_eq!(
        reply.mode,
        snippet::GetFullAXTreeReturnsMode::Unknown("warp".into())
    );
    assert_eq!(
        <snippet::LoadEventFiredEvent as Event>::METHOD,
        "Snippet.loadEventFired"
    );
    let _: snippet::EnableReturns = serde_json::from_value(json!({})).unwrap();
    let _ = serde_json::to_value(snippet::EnableParams {}).unwrap();
}

#[test]
fn new_takes_the_required_fields_and_leaves_the_rest_none() {
    let node = dom::Node::new(7);
    assert_eq!(node.node_id, 7);
    assert!(node.backend_dom_node_id.is_none() && node.children.is_none());
    assert_eq!(serde_json::to_value(&node).unwrap(), json!({"nodeId": 7}));
}
