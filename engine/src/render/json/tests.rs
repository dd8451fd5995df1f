use super::*;
use crate::analysis::{Point, Rect};
use crate::identity::testutil::Builder;
use crate::model::{AxProp, AxValue, RareStrings};
use crate::render::Format;

const FOCUSABLE: (AxProp, AxValue) = (AxProp::Focusable, AxValue::Bool(true));

fn json(b: Builder, mode: Mode) -> serde_json::Value {
    let (m, a, u) = b.finish();
    let s = crate::render::render(
        &m,
        &a,
        &u,
        &RenderOptions {
            mode,
            format: Format::Json,
            consistent: false,
            ..RenderOptions::default()
        },
    );
    serde_json::from_str(&s).expect("valid JSON")
}

fn page() -> Builder {
    let (mut b, body, body_ax) = Builder::page("Pay \"now\"\n");
    let (btn, _) = b.control(
        body,
        body_ax,
        "button",
        &[("type", "submit")],
        "button",
        "Pay",
        &[FOCUSABLE],
        Some("Pay"),
    );
    let (cb, _) = b.control(
        body,
        body_ax,
        "input",
        &[("type", "checkbox")],
        "checkbox",
        "Keep",
        &[FOCUSABLE, (AxProp::Checked, AxValue::Mixed)],
        None,
    );
    let (pw, pw_ax) = b.control(
        body,
        body_ax,
        "input",
        &[("type", "password")],
        "textbox",
        "PW",
        &[FOCUSABLE],
        None,
    );
    b.set_value(pw_ax, "hunter2");
    let v = b.s("hunter2");
    b.m.rare.push((
        pw,
        RareStrings {
            input_value: Some(v),
            ..RareStrings::default()
        },
    ));
    for n in [btn, cb, pw] {
        b.fact(n).interactive = true;
    }
    b.fact(btn)
        .set_bounds(Some(Rect::new(10.0, 20.0, 80.0, 30.0)));
    let c = b.click(btn);
    c.click_point = Some(Point { x: 50.0, y: 35.0 });
    c.occluded = true;
    c.covered_by = Some(cb);
    b
}

fn check_node(v: &serde_json::Value) -> usize {
    let o = v.as_object().expect("object");
    for k in [
        "uid",
        "backendNodeId",
        "frameId",
        "role",
        "name",
        "tag",
        "interactive",
        "visible",
        "inViewport",
        "occluded",
        "coveredBy",
        "bounds",
        "clickPoint",
        "new",
        "attributes",
        "children",
    ] {
        assert!(o.contains_key(k), "missing {k} in {v}");
    }
    1 + o["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(check_node)
        .sum::<usize>()
}

#[test]
fn a11y_json_has_the_schema_and_the_printed_nodes() {
    let v = json(page(), Mode::A11y);
    assert_eq!(v["url"], "http://test/");
    assert_eq!(v["title"], "Pay \"now\"\n");
    assert_eq!(v["snapshot"], 1);
    assert_eq!(v["consistent"], false);
    for k in [
        "width",
        "height",
        "scrollX",
        "scrollY",
        "contentWidth",
        "contentHeight",
        "devicePixelRatio",
    ] {
        assert!(v["viewport"].get(k).is_some(), "viewport.{k}");
    }
    assert_eq!(check_node(&v["root"]), 4);
    let root = &v["root"];
    assert_eq!(root["uid"], "1_0");
    assert_eq!(root["role"], "RootWebArea");
    assert!(root["tag"].is_null());
    let btn = &root["children"][0];
    assert_eq!(btn["uid"], "1_3");
    assert_eq!(btn["tag"], "button");
    assert_eq!(btn["backendNodeId"], 4);
    assert_eq!(btn["frameId"], "FRAME1");
    assert_eq!(btn["bounds"]["width"], 80.0);
    assert_eq!(btn["clickPoint"]["x"], 50.0);
    assert_eq!(btn["occluded"], true);
    assert_eq!(btn["coveredBy"], "1_5");
    assert_eq!(btn["attributes"]["occluded-by"], "1_5");
    assert_eq!(btn["new"], false);
    let cb = &root["children"][1];
    assert_eq!(cb["checked"], "mixed");
    let pw = &root["children"][2];
    assert_eq!(pw["value"], "••••");
    assert!(!serde_json::to_string(&v)
        .unwrap_or_default()
        .contains("hunter2"));
}

#[test]
fn dom_json_holds_the_printed_elements_under_the_document() {
    let v = json(page(), Mode::Dom);
    assert_eq!(check_node(&v["root"]), 4);
    let root = &v["root"];
    assert_eq!(root["uid"], "1_0");
    let kids = root["children"].as_array().expect("children");
    assert_eq!(kids[0]["tag"], "button");
    assert_eq!(kids[0]["name"], "Pay");
    assert_eq!(kids[0]["attributes"]["type"], "submit");
    assert_eq!(kids[1]["checked"], "mixed");
    assert_eq!(kids[2]["value"], "••••");
}

#[test]
fn deep_trees_are_flattened_not_overflowed() {
    let (mut b, body, body_ax) = Builder::page("Deep");
    let (mut el, mut ax) = (body, body_ax);
    for _ in 0..(MAX_DEPTH + 50) {
        let (e, a) = b.control(el, ax, "div", &[], "group", "g", &[FOCUSABLE], None);
        el = e;
        ax = a;
    }
    let v = json(b, Mode::A11y);
    assert_eq!(check_node(&v["root"]), MAX_DEPTH + 51);
    let mut depth = 0;
    let mut n = &v["root"];
    while let Some(c) = n["children"].as_array().and_then(|c| c.first()) {
        depth += 1;
        n = c;
    }
    assert!(depth <= MAX_DEPTH, "{depth}");
}
