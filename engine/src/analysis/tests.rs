//! Unit tests of the analysis on tiny hand-written captures.

use super::*;
use crate::model::tests::{simple, Page, BLOCK};
use crate::model::NodeId;
use serde_json::json;

fn style(overrides: &[(usize, &'static str)]) -> [&'static str; 8] {
    let mut s = BLOCK;
    for (i, v) in overrides {
        s[*i] = v;
    }
    s
}

#[test]
fn later_sibling_wins_and_pointer_events_none_passes_through() {
    let m = simple().model();
    let a = analyze(&m, &AnalysisOptions::default());
    // (60, 60) is inside both divs: the later one (#b) paints on top.
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(4));
    assert_eq!(a.hit_test(20.0, 20.0).unwrap().node, NodeId::new(3));
    // Outside every div: the body.
    assert_eq!(a.hit_test(500.0, 500.0).unwrap().node, NodeId::new(2));

    let mut p = simple();
    p.docs[0]["layout"]["styles"][4][3] = json!(p.s("none"));
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(3));
}

#[test]
fn higher_paint_layer_wins_over_document_order() {
    let mut p = simple();
    // #a gets its own, later layer (e.g. position:relative; z-index:1).
    p.docs[0]["layout"]["paintOrders"][3] = json!(2);
    p.docs[0]["layout"]["styles"][3][4] = json!(p.s("relative"));
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(3));
    // #b is now covered at its centre.
    let f = a.facts(NodeId::new(4));
    assert!(f.bounds().is_some());
}

#[test]
fn the_hit_point_is_a_unit_square() {
    let mut p = simple();
    p.docs[0]["layout"]["bounds"][3] = json!([10.0, 334.06, 100.0, 10.0]);
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(20.0, 334.0).unwrap().node, NodeId::new(3));
    assert!(a.hit_test(20.0, 334.0).unwrap().unsure);
    assert_eq!(a.hit_test(20.0, 333.0).unwrap().node, NodeId::new(2));
}

#[test]
fn scroll_offsets_are_subtracted() {
    let mut p = simple();
    p.scroll_y = 40.0;
    p.docs[0]["scrollOffsetY"] = json!(40.0);
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let b = a.facts(NodeId::new(3)).bounds().unwrap();
    assert_eq!((b.x, b.y), (10.0, -30.0));
    assert_eq!(a.viewport.scroll_y, 40.0);
    assert_eq!(a.viewport.device_pixel_ratio, 1.0);
    // Document y 60 is viewport y 20.
    assert_eq!(a.hit_test(60.0, 20.0).unwrap().node, NodeId::new(4));
    let s = a.scroll(NodeId::new(0)).unwrap();
    assert_eq!((s.top, s.height, s.client_height), (40.0, 2000.0, 600.0));
}

#[test]
fn iframe_content_is_offset_by_the_owner_content_box() {
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "IFRAME", &[], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [100.0, 50.0, 304.0, 204.0], BLOCK, 1),
        ],
        json!({"nodes": {"contentDocumentIndex": {"index": [2], "value": [1]}},
               "layout": {"clientRects": [[0, 0, 800, 600], [2, 2, 300, 200]]}}),
    );
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BUTTON", &[], ""),
        ],
        &[
            (1, [0.0, 10.0, 300.0, 400.0], BLOCK, 1),
            (2, [5.0, 20.0, 50.0, 20.0], BLOCK, 1),
        ],
        json!({"scrollOffsetY": 10, "layout": {"clientRects": [[0, 0, 300, 200], [0, 0, 50, 20]]}}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let button = NodeId::new(5);
    assert_eq!(m.tag(button), Some("button"));
    let b = a.facts(button).bounds().unwrap();
    // content box (102, 52) + document (5, 20) - scroll (0, 10).
    assert_eq!((b.x, b.y), (107.0, 62.0));
    assert_eq!(a.hit_test(110.0, 65.0).unwrap().node, button);
    // Inside the iframe but not on the button: the child's <html>.
    assert_eq!(a.hit_test(300.0, 200.0).unwrap().node, NodeId::new(4));
    // The iframe's border: the iframe itself.
    assert_eq!(a.hit_test(100.0, 100.0).unwrap().node, NodeId::new(2));
    assert!(a.facts(button).interactive);
    assert_eq!(
        a.click(button).click_point.map(|p| (p.x, p.y)),
        Some((132.0, 72.0))
    );
}

#[test]
fn opacity_zero_is_hit_but_not_visible_and_visibility_hidden_is_neither() {
    let mut p = simple();
    p.docs[0]["layout"]["styles"][4][2] = json!(p.s("0"));
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let f = a.facts(NodeId::new(4));
    assert!(!f.visible() && f.hittable());
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(4));

    let mut p = simple();
    p.docs[0]["layout"]["styles"][4][1] = json!(p.s("hidden"));
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let f = a.facts(NodeId::new(4));
    assert!(!f.visible() && !f.hittable());
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(3));
}

#[test]
fn overflow_clips_descendants_but_absolute_boxes_escape() {
    // body > div.clip(overflow hidden, 0..100) > [div.in (in flow, 150..200), div.abs (absolute)]
    let mut p = Page::new();
    let hidden = style(&[(6, "hidden"), (7, "hidden")]);
    let abs = style(&[(4, "absolute")]);
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "DIV", &[], ""),
            (3, 1, "DIV", &[], ""),
            (3, 1, "DIV", &[], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (3, [0.0, 0.0, 100.0, 100.0], hidden, 1),
            (4, [0.0, 150.0, 100.0, 50.0], BLOCK, 1),
            (5, [0.0, 250.0, 100.0, 50.0], abs, 2),
        ],
        json!({"layout": {"clientRects": [[0,0,800,600],[0,0,800,600],[0,0,100,100],[0,0,100,50],[0,0,100,50]]}}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert!(!a.facts(NodeId::new(4)).visible());
    assert!(a.facts(NodeId::new(5)).visible());
    assert_eq!(a.hit_test(10.0, 160.0).unwrap().node, NodeId::new(2));
    assert_eq!(a.hit_test(10.0, 260.0).unwrap().node, NodeId::new(5));
}

#[test]
fn covered_controls_are_occluded() {
    // A button under a later full-size overlay.
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "BUTTON", &[], ""),
            (2, 1, "DIV", &[("id", "overlay")], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (
                3,
                [10.0, 10.0, 80.0, 30.0],
                style(&[(0, "inline-block")]),
                1,
            ),
            (4, [0.0, 0.0, 800.0, 600.0], style(&[(4, "fixed")]), 2),
        ],
        json!({}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let f = a.facts(NodeId::new(3));
    assert!(f.interactive && f.visible() && f.in_viewport);
    let c = a.click(NodeId::new(3));
    assert!(c.occluded);
    assert_eq!(c.covered_by, Some(NodeId::new(4)));
    assert_eq!(c.click_point, None);

    // Partly covered: the click point moves to the uncovered part.
    let mut p2 = p;
    p2.docs[0]["layout"]["bounds"][3] = json!([0.0, 0.0, 800.0, 30.0]);
    let m = p2.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let f = a.click(NodeId::new(3));
    assert!(!f.occluded);
    let c = f.click_point.unwrap();
    assert!(c.y >= 30.0 && c.y < 40.0);
}

#[test]
fn expand_controls_in_viewport() {
    let mut p = simple();
    p.docs[0]["layout"]["bounds"][3] = json!([10.0, 900.0, 100.0, 100.0]);
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert!(a.facts(NodeId::new(3)).visible() && !a.facts(NodeId::new(3)).in_viewport);
    let a = analyze(
        &m,
        &AnalysisOptions {
            expand: Expand::Pixels(400.0),
        },
    );
    assert!(a.facts(NodeId::new(3)).in_viewport);
    let a = analyze(
        &m,
        &AnalysisOptions {
            expand: Expand::All,
        },
    );
    assert!(a.facts(NodeId::new(3)).in_viewport);
}

#[test]
fn interactivity_rules() {
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "A", &[("href", "/x")], ""),
            (3, 1, "SPAN", &[], ""),
            (2, 1, "INPUT", &[("type", "hidden")], ""),
            (2, 1, "FIELDSET", &[("disabled", "")], ""),
            (6, 1, "INPUT", &[], ""),
            (2, 1, "DIV", &[("tabindex", "-1")], ""),
            (2, 1, "DIV", &[("role", "button")], ""),
            (2, 1, "A", &[], ""),
        ],
        &[],
        json!({"nodes": {"isClickable": {"index": [3, 4]}}}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    let i = |n: u32| a.facts(NodeId::new(n)).interactive;
    assert!(i(3));
    assert!(!i(4), "the span inside a link adds nothing");
    assert!(!i(5));
    assert!(i(7) && a.facts(NodeId::new(7)).disabled);
    assert!(!i(8));
    assert!(i(9));
    assert!(!i(10));
}

/// `html > body > div.scroller > div.content`, the scroller `overflow: auto` with the given
/// style, bounds and client rectangle, the content at `content`.
fn scroller_page(
    scroller: [&'static str; 8],
    paint: i64,
    bounds: [f64; 4],
    client: [f64; 4],
    content: [f64; 4],
) -> Model {
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "DIV", &[], ""),
            (3, 1, "DIV", &[], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (3, bounds, scroller, paint),
            (4, content, BLOCK, paint),
        ],
        json!({"layout": {"clientRects": [[0, 0, 800, 600], [0, 0, 800, 600], client,
                                          [0, 0, content[2], content[3]]]}}),
    );
    p.model()
}

#[test]
fn a_zoomed_scroller_clips_at_its_zoomed_padding_box() {
    // `zoom: 2`: a 200x100 (unzoomed) scroller is 400x200 in the snapshot, its client rectangle
    // is not. The content 120 px down is inside it.
    let auto = style(&[(6, "auto"), (7, "auto")]);
    let m = scroller_page(
        auto,
        2,
        [0.0, 0.0, 400.0, 200.0],
        [0.0, 0.0, 200.0, 100.0],
        [0.0, 120.0, 100.0, 50.0],
    );
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(10.0, 130.0).unwrap().node, NodeId::new(4));
    assert!(a.facts(NodeId::new(4)).visible());
    // Unzoomed with a vertical scrollbar (15 px) and equal borders: no zoom is inferred.
    let m = scroller_page(
        auto,
        2,
        [0.0, 0.0, 235.0, 120.0],
        [10.0, 10.0, 200.0, 100.0],
        [10.0, 10.0, 100.0, 300.0],
    );
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(50.0, 112.0).unwrap().node, NodeId::new(3));
    // `transform: scale(1.5)` on a 208x108 scroller with a vertical scrollbar, which the
    // transform scales too: the content 130 px down is inside it, the scrollbar is not.
    let scaled = style(&[(6, "auto"), (7, "auto")]);
    let m = scroller_page(
        scaled,
        2,
        [0.0, 0.0, 312.0, 162.0],
        [4.0, 4.0, 185.0, 100.0],
        [6.0, 6.0, 277.5, 450.0],
    );
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(100.0, 140.0).unwrap().node, NodeId::new(4));
    assert_eq!(a.hit_test(290.0, 80.0).unwrap().node, NodeId::new(3));
}

#[test]
fn a_right_to_left_scroller_has_its_scrollbar_on_the_left() {
    // Border 5, the vertical scrollbar left of the padding box (`clientLeft` counts it).
    let rtl = style(&[(4, "absolute"), (6, "auto"), (7, "auto")]);
    let m = scroller_page(
        rtl,
        2,
        [0.0, 0.0, 310.0, 70.0],
        [20.0, 5.0, 285.0, 60.0],
        [-300.0, 5.0, 600.0, 150.0],
    );
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(10.0, 30.0).unwrap().node, NodeId::new(3));
    assert_eq!(a.hit_test(100.0, 30.0).unwrap().node, NodeId::new(4));
}

#[test]
fn a_scroller_with_its_own_layer_is_hit_through_its_border_but_not_its_scrollbar() {
    // Border 10, a 15 px vertical scrollbar; the content is scrolled up under the top border.
    let bounds = [0.0, 0.0, 220.0, 120.0];
    let client = [10.0, 10.0, 185.0, 100.0];
    let content = [10.0, -40.0, 400.0, 400.0];
    let relative = style(&[(4, "relative"), (6, "auto"), (7, "auto")]);
    let m = scroller_page(relative, 2, bounds, client, content);
    let a = analyze(&m, &AnalysisOptions::default());
    // The top border: the content takes the hit, though it is not painted there.
    assert_eq!(a.hit_test(50.0, 3.0).unwrap().node, NodeId::new(4));
    // The scrollbar: the scroller.
    assert_eq!(a.hit_test(200.0, 60.0).unwrap().node, NodeId::new(3));
    // Painting still clips at the padding box.
    assert_eq!(
        a.facts(NodeId::new(4)).visible_rect().map(|r| r.y),
        Some(10.0)
    );
    // A static scroller (its own paint order number only for the clip) clips hits at the
    // padding box.
    let stat = style(&[(6, "auto"), (7, "auto")]);
    let m = scroller_page(stat, 2, bounds, client, content);
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(50.0, 3.0).unwrap().node, NodeId::new(3));
}

#[test]
fn lines_overflowing_their_block_answer_the_block() {
    // A 40 px tall block whose second line (an inline-block button) hangs below it.
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "DIV", &[], ""),
            (3, 1, "BUTTON", &[], ""),
            (3, 1, "BUTTON", &[], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (3, [0.0, 0.0, 300.0, 40.0], BLOCK, 1),
            (4, [0.0, 5.0, 100.0, 30.0], style(&[(0, "inline-block")]), 1),
            (
                5,
                [40.0, 50.0, 100.0, 30.0],
                style(&[(0, "inline-block")]),
                1,
            ),
        ],
        json!({}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    // Left of the second button, below the block: its line box.
    assert_eq!(a.hit_test(10.0, 60.0).unwrap().node, NodeId::new(3));
    // Between the lines, below the block.
    assert_eq!(a.hit_test(50.0, 44.0).unwrap().node, NodeId::new(3));
    assert_eq!(a.hit_test(60.0, 60.0).unwrap().node, NodeId::new(5));
    // Right of the line's last item: nothing of the block.
    assert_eq!(a.hit_test(200.0, 60.0).unwrap().node, NodeId::new(2));
}

#[test]
fn an_inline_holding_a_block_is_hit_through_the_block() {
    // `<a><span style="display:block; background">…</span></a>`: the block splits the inline,
    // which has no area of its own.
    let mut p = Page::new();
    p.doc(
        &[
            (-1, 9, "#document", &[], ""),
            (0, 1, "HTML", &[], ""),
            (1, 1, "BODY", &[], ""),
            (2, 1, "A", &[("href", "#")], ""),
            (3, 1, "SPAN", &[], ""),
        ],
        &[
            (1, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (2, [0.0, 0.0, 800.0, 600.0], BLOCK, 1),
            (3, [0.0, 0.0, 300.0, 60.0], style(&[(0, "inline")]), 1),
            (4, [0.0, 0.0, 300.0, 60.0], BLOCK, 1),
        ],
        json!({}),
    );
    let m = p.model();
    let a = analyze(&m, &AnalysisOptions::default());
    assert_eq!(a.hit_test(20.0, 20.0).unwrap().node, NodeId::new(4));
    assert!(a.click(NodeId::new(3)).click_point.is_some());
}

#[test]
fn copies_of_view_facts_share_the_hit_tester_once_built() {
    let m = simple().model();
    let options = AnalysisOptions::default();
    let facts = ViewFacts::new(&m, options.expand);
    let kept = facts.clone();
    let first = analyze_view(&m, &options, Some(facts));
    // A copy made before the first analysis sees what it built; the hit tester answers alike.
    let again = analyze_view(&m, &options, Some(kept.clone()));
    assert!(Arc::ptr_eq(&first.hit_tester, &again.hit_tester));
    assert_eq!(again.hit_test(60.0, 60.0).unwrap().node, NodeId::new(4));
    // Facts of another view are not used, nor is their hit tester.
    let other = AnalysisOptions {
        expand: Expand::All,
    };
    let all = analyze_view(&m, &other, Some(kept));
    assert!(!Arc::ptr_eq(&first.hit_tester, &all.hit_tester));
    // Fresh facts build their own.
    let fresh = analyze_view(&m, &options, Some(ViewFacts::new(&m, options.expand)));
    assert!(!Arc::ptr_eq(&first.hit_tester, &fresh.hit_tester));
}
