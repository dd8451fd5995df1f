use super::*;

#[test]
fn parses_clip_rect() {
    let c = ClipRect::parse("rect(0px, 0px, 0px, 0px)").unwrap();
    assert_eq!(c.top, Some(0.0));
    let c = ClipRect::parse("rect(1px 2px auto 4px)").unwrap();
    assert_eq!(c.right, Some(2.0));
    assert_eq!(c.bottom, None);
    assert!(ClipRect::parse("auto").is_none());
    assert!(ClipRect::parse("rect(1px)").is_none());
}

#[test]
fn parses_clip_path() {
    let b = crate::model::Rect::new(10.0, 20.0, 100.0, 40.0);
    let ClipPath::Inset(i) = ClipPath::parse("inset(50%)") else {
        panic!("inset(50%) is an inset");
    };
    assert!(i.rect_in(b).is_empty());
    let ClipPath::Inset(i) = ClipPath::parse("inset(0px 50% 0px 0px round 4px)") else {
        panic!("inset with round is an inset");
    };
    assert_eq!(
        i.rect_in(b),
        crate::model::Rect::new(10.0, 20.0, 50.0, 40.0)
    );
    assert_eq!(ClipPath::parse("none"), ClipPath::None);
    let ClipPath::Ellipse(e) = ClipPath::parse("circle(50% at 50% 50%)") else {
        panic!("a circle is an ellipse");
    };
    // 50% of the normalized diagonal of a 100x40 box: about 38 px.
    let r = e.rect_in(b);
    assert!((r.width - 76.16).abs() < 0.1 && (r.center().x - 60.0).abs() < 1e-9);
    let ClipPath::Ellipse(e) = ClipPath::parse("circle(at 0px 50%)") else {
        panic!("a circle without radius is closest-side");
    };
    assert_eq!(e.rect_in(b).width, 0.0);
    let ClipPath::Ellipse(e) = ClipPath::parse("ellipse(20px 10% at 25% 50%)") else {
        panic!("an ellipse");
    };
    assert_eq!(e.rect_in(b), crate::model::Rect::new(15.0, 36.0, 40.0, 8.0));
    let ClipPath::Polygon(p) = ClipPath::parse("polygon(evenodd, 0px 0px, 100% 0%, 50% 100%)")
    else {
        panic!("a polygon");
    };
    assert!(p.even_odd);
    assert_eq!(
        p.points_in(b).collect::<Vec<_>>(),
        vec![(10.0, 20.0), (110.0, 20.0), (60.0, 60.0)]
    );
    assert_eq!(p.rect_in(b), b);
    assert_eq!(
        ClipPath::parse("polygon(0px 0px, 10px 0px)"),
        ClipPath::Shape
    );
    assert_eq!(
        ClipPath::parse("polygon(0px 0px, calc(10% + 2px) 0px, 5px 5px)"),
        ClipPath::Shape
    );
    assert_eq!(ClipPath::parse("circle(50px at left top)"), ClipPath::Shape);
    assert_eq!(ClipPath::parse("inset(calc(10% + 2px))"), ClipPath::Shape);
    assert_eq!(
        ClipPath::parse("inset(1px 2px 3px 4px 5px)"),
        ClipPath::Shape
    );
}

#[test]
fn parses_paint_containment() {
    let mut style = Style::default();
    for (value, contained) in [
        ("paint", true),
        ("layout paint", true),
        ("content", true),
        ("strict", true),
        ("layout style", false),
        ("none", false),
    ] {
        StyleField::Contain.apply(&mut style, value);
        assert_eq!(style.paint_contained, contained, "{value}");
    }
}

#[test]
fn parses_border_radius_and_matrix() {
    let mut style = Style::default();
    assert!(style.border_radius.is_none());
    StyleField::BorderRadius(0).apply(&mut style, "50%");
    StyleField::BorderRadius(2).apply(&mut style, "10px 20px");
    assert!(!style.border_radius.is_none());
    let b = crate::model::Rect::new(0.0, 0.0, 40.0, 20.0);
    let r = style.border_radius.resolve(b);
    assert_eq!(r[0], (20.0, 10.0));
    assert_eq!(r[1], (0.0, 0.0));
    // The top-left corner's 10 px and the bottom-left's 15 px share a 20 px tall side:
    // every radius shrinks by 20 / 25.
    StyleField::BorderRadius(3).apply(&mut style, "15px");
    let r = style
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 400.0, 20.0));
    assert!(
        (r[2].0 - 8.0).abs() < 1e-9 && (r[2].1 - 16.0).abs() < 1e-9,
        "{r:?}"
    );
    // The shorthand, as the engine asks for it: spread over the corners as CSS does.
    let mut all = Style::default();
    StyleField::from_name("border-radius").apply(&mut all, "10px 20px 30px / 5px 50%");
    let r = all
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 400.0, 400.0));
    assert_eq!(r, [(10.0, 5.0), (20.0, 200.0), (30.0, 5.0), (20.0, 200.0)]);
    StyleField::BorderRadii.apply(&mut all, "50%");
    let r = all
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 40.0, 20.0));
    assert_eq!(r, [(20.0, 10.0); 4]);
    // A function's inner spaces and `/` do not split the corners.
    let corners_of = |value: &str, want: [(f64, f64); 4]| {
        let mut style = Style::default();
        StyleField::BorderRadii.apply(&mut style, value);
        let r = style
            .border_radius
            .resolve(crate::model::Rect::new(0.0, 0.0, 200.0, 100.0));
        let close = r
            .iter()
            .zip(want)
            .all(|(got, want)| (got.0 - want.0).abs() < 1e-4 && (got.1 - want.1).abs() < 1e-4);
        assert!(close, "{value}: {r:?}");
    };
    corners_of(
        "calc(10% + 4px) 8px / 50%",
        [(24.0, 50.0), (8.0, 50.0), (24.0, 50.0), (8.0, 50.0)],
    );
    corners_of(
        "10px calc(5% - 2px) 3px / 4px calc(2% + 16px)",
        [(10.0, 4.0), (8.0, 18.0), (3.0, 4.0), (8.0, 18.0)],
    );
    StyleField::BorderRadii.apply(&mut all, "min(10px, 6.66667%) / 8px");
    let r = all
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 60.0, 100.0));
    assert!((r[0].0 - 4.0).abs() < 1e-4 && r[0].1 == 8.0, "{r:?}");
    // An unresolved radius squares its corners only (see `UNRESOLVED`).
    StyleField::BorderRadii.apply(&mut all, "var(--x) 8px");
    let r = all
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 60.0, 100.0));
    assert_eq!(r, [(0.0, 0.0), (8.0, 8.0), (0.0, 0.0), (8.0, 8.0)]);
    // One corner given by its longhand, with a function.
    let mut one = Style::default();
    StyleField::BorderRadius(1).apply(&mut one, "calc(10% + 4px) 25%");
    let r = one
        .border_radius
        .resolve(crate::model::Rect::new(0.0, 0.0, 200.0, 100.0));
    assert!((r[1].0 - 24.0).abs() < 1e-4 && r[1].1 == 25.0, "{r:?}");
    StyleField::BorderRadii.apply(&mut all, "1px 2px 3px 4px 5px");
    assert!(all.border_radius.is_none());
    StyleField::Transform.apply(&mut style, "matrix(0.5, 0.866, -0.866, 0.5, 3, 4)");
    assert!(style.transform_rotated);
    assert_eq!(style.transform_linear, [0.5, 0.866, -0.866, 0.5]);
    StyleField::Transform.apply(&mut style, "none");
    assert_eq!(style.transform_linear, [1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn individual_transform_properties_join_the_transform() {
    let field = |s: &mut Style, name: &str, v: &str| StyleField::from_name(name).apply(s, v);
    let near = |a: [f32; 4], b: [f32; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
    // `rotate` alone: the computed `transform` is `none`.
    let mut s = Style::default();
    field(&mut s, "transform", "none");
    field(&mut s, "rotate", "30deg");
    field(&mut s, "scale", "none");
    field(&mut s, "translate", "none");
    assert!(s.transformed && s.transform_rotated && !s.transform_3d);
    let (c, n) = (0.866_025_4, 0.5);
    assert!(near(s.transform_linear, [c, n, -n, c]), "{s:?}");
    // The order does not matter: rotate, then scale, then the transform.
    let mut t = Style::default();
    field(&mut t, "scale", "2 3");
    field(&mut t, "transform", "matrix(1, 0, 0, 1, 5, 5)");
    field(&mut t, "rotate", "0 0 -1 30deg");
    assert!(
        near(t.transform_linear, [2.0 * c, -2.0 * n, 3.0 * n, 3.0 * c]),
        "{t:?}"
    );
    // Half a turn, a scale and a move keep the rectangle axis-aligned, yet transform.
    for (name, v) in [
        ("rotate", "180deg"),
        ("scale", "1.5"),
        ("translate", "10px 20%"),
    ] {
        let mut u = Style::default();
        field(&mut u, name, v);
        assert!(u.transformed && !u.transform_rotated, "{name}: {v}");
    }
    // Turning about another axis, or a depth, is 3-D.
    for (name, v) in [
        ("rotate", "x 30deg"),
        ("rotate", "1 1 0 45deg"),
        ("translate", "1px 2px 3px"),
    ] {
        let mut u = Style::default();
        field(&mut u, name, v);
        assert!(u.transform_3d && u.transform_rotated, "{name}: {v}");
    }
    field(&mut s, "rotate", "none");
    assert!(!s.transformed && s == Style::default(), "{s:?}");
}

#[test]
fn parses_filter() {
    let mut style = Style::default();
    for (value, filtered, transparent) in [
        ("none", false, false),
        ("opacity(0)", true, true),
        ("blur(2px) opacity(0%)", true, true),
        ("opacity(0.5)", true, false),
        ("grayscale(1)", true, false),
    ] {
        StyleField::Filter.apply(&mut style, value);
        assert_eq!(
            (style.filtered, style.filter_transparent),
            (filtered, transparent),
            "{value}"
        );
    }
}

#[test]
fn parses_background() {
    assert!(is_transparent("rgba(0, 0, 0, 0)"));
    assert!(!is_transparent("rgb(255, 255, 255)"));
    assert!(!is_transparent("rgba(0, 0, 0, 0.5)"));
}

#[test]
fn parses_display() {
    assert_eq!(Display::parse("inline-block"), Display::InlineBlock);
    assert_eq!(Display::parse("table-cell"), Display::TablePart);
    assert!(Display::parse("inline-flex").is_atomic_inline());
}
