//! Click points and occlusion.
//!
//! For every interactive element in the viewport, the analysis looks for a point inside its
//! visible (clipped) box, intersected with the viewport, where the hit test lands on the element
//! itself or a descendant: the centre first, then a small grid of sample points, nearest to the
//! centre first and away from the edges. A point the hit tester is unsure about is only taken when
//! no sure one exists (and is flagged). No point at all means something else is on top: the
//! element is `occluded` and `covered_by` names what the centre hits.
//!
//! Points are whole CSS px: the hit test models `DOM.getNodeForLocation`, which takes integers.

use super::geometry::Geometry;
use super::hit_test::HitTester;
use super::{ClickFacts, NodeFacts};
use crate::model::{Model, NodeId, Point, Rect};

/// Sample positions across the visible box, as fractions, centre first.
const FRACTIONS: [f64; 5] = [0.5, 0.3, 0.7, 0.12, 0.88];

/// Integer sample points inside `area`, ordered by distance from its centre (centre first).
pub fn sample_points(area: &Rect) -> impl Iterator<Item = Point> {
    let mut pts: Vec<(f64, Point)> = Vec::with_capacity(FRACTIONS.len() * FRACTIONS.len());
    let c = area.center();
    for fy in FRACTIONS {
        for fx in FRACTIONS {
            let p = sample_point(area, fx, fy);
            let Point { x, y } = p;
            if pts.iter().any(|(_, q)| *q == p) {
                continue;
            }
            let d = if fx == 0.5 && fy == 0.5 {
                -1.0
            } else {
                (x + 0.5 - c.x).powi(2) + (y + 0.5 - c.y).powi(2)
            };
            pts.push((d, p));
        }
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts.into_iter().map(|(_, p)| p)
}

/// The result of looking for a click point.
/// The pixel at fractions `(fx, fy)` of the area, kept inside the area's whole pixels.
fn sample_point(area: &Rect, fx: f64, fy: f64) -> Point {
    let lo_x = area.x.ceil();
    let hi_x = (area.right().ceil() - 1.0).max(lo_x);
    let lo_y = area.y.ceil();
    let hi_y = (area.bottom().ceil() - 1.0).max(lo_y);
    Point {
        x: (area.x + fx * area.width)
            .floor()
            .clamp(lo_x.min(hi_x), hi_x),
        y: (area.y + fy * area.height)
            .floor()
            .clamp(lo_y.min(hi_y), hi_y),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClickPoint {
    /// The point, if one lands on the element.
    pub point: Option<Point>,
    /// The point is one the hit tester is unsure about.
    pub unsure: bool,
    /// What the first sample (the centre) hit, when no point lands on the element.
    pub covered_by: Option<NodeId>,
}

/// What a hit on `node` is reported as when it covers something: a pseudo-element (the
/// `::after` of a "stretched link" laid over its card) has no uid of its own, and a click on it
/// is dispatched to its element.
pub fn cover_of(model: &Model, node: NodeId) -> NodeId {
    if model.node(node).pseudo.is_some() {
        if let Some(owner) = model.parent_element(node) {
            return owner;
        }
    }
    node
}

/// Looks for a click point of `node` inside `area` (viewport coordinates).
pub fn find_click_point(model: &Model, hit: &HitTester, node: NodeId, area: &Rect) -> ClickPoint {
    // The centre is always the first sample point, and most elements are hit there for sure:
    // then the other points are not laid out at all.
    let centre = sample_point(area, 0.5, 0.5);
    if let Some(h) = hit.hit_test(centre.x, centre.y) {
        if !h.unsure && model.contains(node, h.node) {
            return ClickPoint {
                point: Some(centre),
                unsure: false,
                covered_by: None,
            };
        }
    }
    let mut unsure_point = None;
    let mut first_other = None;
    for p in sample_points(area) {
        match hit.hit_test(p.x, p.y) {
            Some(h) if model.contains(node, h.node) => {
                if !h.unsure {
                    return ClickPoint {
                        point: Some(p),
                        unsure: false,
                        covered_by: None,
                    };
                }
                unsure_point.get_or_insert(p);
            }
            Some(h) => {
                first_other.get_or_insert(h.node);
            }
            None => {}
        }
    }
    match unsure_point {
        Some(p) => ClickPoint {
            point: Some(p),
            unsure: true,
            covered_by: None,
        },
        None => ClickPoint {
            point: None,
            unsure: false,
            covered_by: first_other.map(|c| cover_of(model, c)),
        },
    }
}

/// The click facts of the interactive nodes with some part in the viewport, ordered by node.
pub fn compute(
    model: &Model,
    geometry: &Geometry,
    hit: &HitTester,
    facts: &[NodeFacts],
) -> Vec<(NodeId, ClickFacts)> {
    let viewport = geometry.viewport.rect();
    let mut clicks = Vec::new();
    for (i, f) in facts.iter().enumerate() {
        if !f.interactive {
            continue;
        }
        let Some(vis) = f.visible_rect().or(f.hittable_rect()) else {
            continue;
        };
        let Some(area) = vis.intersect(&viewport) else {
            continue;
        };
        let id = NodeId::new(i as u32);
        let c = find_click_point(model, hit, id, &area);
        clicks.push((
            id,
            ClickFacts {
                occluded: c.point.is_none(),
                covered_by: c.covered_by,
                click_point: c.point,
                click_point_unsure: c.unsure,
            },
        ));
    }
    clicks
}
