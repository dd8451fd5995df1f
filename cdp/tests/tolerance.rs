//! The tolerance and naming guarantees of the generated bindings, on the real generated types.

#![cfg(all(
    feature = "accessibility",
    feature = "dom",
    feature = "dom_snapshot",
    feature = "page",
    feature = "target"
))]

use pagesight_cdp::{accessibility, dom, dom_snapshot, page, runtime, target, Command, Event};
use serde_json::json;

#[test]
fn unknown_enum_value_parses_into_unknown_and_round_trips() {
    let v: accessibility::AXValueType = serde_json::from_str("\"someFutureType\"").unwrap();
    assert_eq!(
        v,
        accessibility::AXValueType::Unknown("someFutureType".into())
    );
    assert_eq!(v.as_str(), "someFutureType");
    assert_eq!(serde_json::to_string(&v).unwrap(), "\"someFutureType\"");
}

#[test]
fn known_enum_values_round_trip() {
    let v: accessibility::AXValueType = serde_json::from_str("\"computedString\"").unwrap();
    assert_eq!(v, accessibility::AXValueType::ComputedString);
    assert_eq!(serde_json::to_string(&v).unwrap(), "\"computedString\"");
    // Escaped strings reach the owned-string path of the visitor.
    let v: accessibility::AXValueType = serde_json::from_str("\"computed\\u0053tring\"").unwrap();
    assert_eq!(v, accessibility::AXValueType::ComputedString);
    // A dashed wire value keeps its exact spelling.
    let v: dom::PseudoType = serde_json::from_str("\"first-line\"").unwrap();
    assert_eq!(v, dom::PseudoType::FirstLine);
    assert_eq!(serde_json::to_value(&v).unwrap(), json!("first-line"));
}

#[test]
fn wire_value_unknown_does_not_clash_with_the_fallback() {
    // `Network.CertificateTransparencyCompliance` has a real `unknown` value: it is `Unknown_`.
    let v: pagesight_cdp::network::CertificateTransparencyCompliance =
        serde_json::from_str("\"unknown\"").unwrap();
    assert_eq!(
        v,
        pagesight_cdp::network::CertificateTransparencyCompliance::Unknown_
    );
    assert_eq!(serde_json::to_string(&v).unwrap(), "\"unknown\"");
}

#[test]
fn unknown_fields_are_ignored() {
    let node: accessibility::AXNode = serde_json::from_value(json!({
        "nodeId": "1", "ignored": false, "someNewField": {"deep": [1, 2, 3]}, "backendDOMNodeId": 7
    }))
    .unwrap();
    assert_eq!(node.node_id, "1");
    assert_eq!(node.backend_dom_node_id, Some(7));
}

#[test]
fn optional_fields_are_skipped_when_none_and_params_default() {
    let params = dom_snapshot::CaptureSnapshotParams {
        computed_styles: vec!["display".into()],
        include_dom_rects: Some(true),
        include_paint_order: None,
        include_blended_background_colors: None,
        include_text_color_opacities: None,
    };
    assert_eq!(
        serde_json::to_value(&params).unwrap(),
        json!({"computedStyles": ["display"], "includeDOMRects": true})
    );
    let all_optional = accessibility::GetFullAXTreeParams {
        depth: Some(2),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&all_optional).unwrap(),
        json!({"depth": 2})
    );
    assert_eq!(
        serde_json::to_value(page::EnableParams::default()).unwrap(),
        json!({})
    );
}

#[test]
fn acronym_fields_are_renamed_to_the_exact_wire_name() {
    let node = accessibility::AXNode {
        node_id: "5".into(),
        ignored: false,
        backend_dom_node_id: Some(3),
        ..serde_json::from_value(json!({"nodeId": "0", "ignored": true})).unwrap()
    };
    let v = serde_json::to_value(&node).unwrap();
    assert_eq!(
        v,
        json!({"nodeId": "5", "ignored": false, "backendDOMNodeId": 3})
    );
    let doc: dom_snapshot::DocumentSnapshot = serde_json::from_value(json!({
        "documentURL": 0, "title": 1, "baseURL": 2, "contentLanguage": -1, "encodingName": 3,
        "publicId": -1, "systemId": -1, "frameId": 4, "nodes": {}, "layout": {
            "nodeIndex": [], "styles": [], "bounds": [], "text": [], "stackingContexts": {"index": []}
        },
        "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []},
        "scrollOffsetX": 1.5
    }))
    .unwrap();
    assert_eq!(doc.document_url, 0);
    assert_eq!(doc.scroll_offset_x, Some(1.5));
}

#[test]
fn keyword_fields_get_a_trailing_underscore() {
    let v = accessibility::AXValue {
        type_: accessibility::AXValueType::Boolean,
        value: Some(json!(true)),
        related_nodes: None,
        sources: None,
    };
    assert_eq!(
        serde_json::to_value(&v).unwrap(),
        json!({"type": "boolean", "value": true})
    );
}

#[test]
fn recursive_fields_are_boxed() {
    let node: dom::Node = serde_json::from_value(json!({
        "nodeId": 1, "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "localName": "",
        "nodeValue": "", "children": [],
        "contentDocument": {"nodeId": 2, "backendNodeId": 2, "nodeType": 9, "nodeName": "#document",
            "localName": "", "nodeValue": ""}
    }))
    .unwrap();
    let inner: Box<dom::Node> = node.content_document.expect("contentDocument");
    assert_eq!(inner.node_id, 2);
    let trace = runtime::StackTrace {
        description: None,
        call_frames: vec![],
        parent: Some(Box::new(runtime::StackTrace {
            description: Some("async".into()),
            call_frames: vec![],
            parent: None,
            parent_id: None,
        })),
        parent_id: None,
    };
    assert!(trace.parent.is_some());
}

#[test]
fn commands_and_events_carry_their_wire_methods() {
    fn method<C: Command>(_: &C) -> &'static str {
        C::METHOD
    }
    assert_eq!(
        method(&dom_snapshot::CaptureSnapshotParams {
            computed_styles: vec![],
            ..serde_json::from_value(json!({"computedStyles": []})).unwrap()
        }),
        "DOMSnapshot.captureSnapshot"
    );
    assert_eq!(
        <accessibility::GetFullAXTreeParams as Command>::METHOD,
        "Accessibility.getFullAXTree"
    );
    assert_eq!(
        <page::GetLayoutMetricsParams as Command>::METHOD,
        "Page.getLayoutMetrics"
    );
    assert_eq!(
        <page::LoadEventFiredEvent as Event>::METHOD,
        "Page.loadEventFired"
    );
    assert_eq!(
        <target::AttachedToTargetEvent as Event>::METHOD,
        "Target.attachedToTarget"
    );
    // Empty replies are still structs.
    let _: <page::EnableParams as Command>::Response = serde_json::from_str("{}").unwrap();
    let _: page::EnableReturns = serde_json::from_str("{\"unexpected\": 1}").unwrap();
}

#[test]
fn inline_enums_are_named_after_struct_and_field() {
    let v = pagesight_cdp::debugger::ContinueToLocationTargetCallFrames::Any;
    assert_eq!(serde_json::to_value(&v).unwrap(), json!("any"));
}
