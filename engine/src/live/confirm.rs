//! Asking Chromium the few hit-test questions the snapshot alone cannot answer.
//!
//! The analysis decides click points and occlusion from the snapshot alone, and flags what it
//! cannot be sure of: points near an edge, rotated or 3-D transformed boxes, SVG shapes, rounded
//! corners and `clip-path` shapes it only knows as rectangles. Measured on real pages, that is a
//! few percent of elements; one `DOM.getNodeForLocation` each (pipelined, thousands per second)
//! settles them with Chromium's own hit test. So, for every interactive element in the viewport
//! whose click point is unsure or that the analysis found occluded, the live snapshot asks
//! Chromium at the analysis' sample points until one lands on the element, and records the
//! answer in the element's facts. Offline captures keep the analysis' own answer. Elements inside
//! out-of-process iframes are left alone: the page's hit test only sees their `<iframe>`.

use futures_util::future::join_all;

use crate::analysis::click::sample_points;
use crate::analysis::{Analysis, Point};
use crate::browser::Page;
use crate::cdp::dom::{GetDocumentParams, GetNodeForLocationParams};
use crate::error::{ErrorCode, Result};
use crate::model::{Model, NodeId};

/// At most this many elements are confirmed per snapshot (hostile pages can have thousands of
/// covered buttons; the analysis' own answer stands for the rest).
const MAX_CONFIRMED: usize = 400;
/// Sample points tried per element.
const MAX_POINTS: usize = 9;

/// What the confirmation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confirmation {
    /// Elements asked about.
    pub elements: usize,
    /// Hit tests sent.
    pub queries: usize,
    /// Elements whose occlusion or click point changed.
    pub changed: usize,
}

/// Confirms unsure click points and occlusion with Chromium's hit test (see the module docs).
pub async fn confirm_hits(
    page: &Page,
    model: &Model,
    analysis: &mut Analysis,
) -> Result<Confirmation> {
    let viewport = analysis.viewport.rect();
    let candidates: Vec<(NodeId, Vec<Point>)> = analysis
        .clicks
        .iter()
        .filter(|(_, c)| c.occluded || c.click_point_unsure)
        .filter_map(|(id, c)| Some((*id, c, analysis.nodes.get(id.index())?)))
        .filter(|(_, _, f)| f.interactive && f.in_viewport)
        // The page session's hit test stops at an out-of-process `<iframe>`: it cannot speak
        // for nodes in other targets, whose analysis answer stands.
        .filter(|(id, _, _)| {
            model
                .nodes
                .get(id.index())
                .and_then(|n| model.docs.get(n.doc.index()))
                .is_some_and(|d| d.target == 0)
        })
        .filter_map(|(id, c, f)| {
            let area = f
                .visible_rect()
                .or(f.hittable_rect())?
                .intersect(&viewport)?;
            let mut points: Vec<Point> = c.click_point.into_iter().collect();
            points.extend(sample_points(&area).filter(|p| Some(*p) != c.click_point));
            points.truncate(MAX_POINTS);
            Some((id, points))
        })
        .take(MAX_CONFIRMED)
        .collect();
    let mut done = Confirmation::default();
    if candidates.is_empty() {
        return Ok(done);
    }
    prepare_hit_test(page).await?;
    let (sx, sy) = (analysis.viewport.scroll_x, analysis.viewport.scroll_y);
    let answers = join_all(candidates.iter().map(|(node, points)| async move {
        let mut first_hit: Option<NodeId> = None;
        let mut queries = 0;
        for p in points {
            queries += 1;
            let at = hit_test_at(page, (p.x + sx).floor() as i64, (p.y + sy).floor() as i64);
            let Ok(Some(backend)) = at.await else {
                continue;
            };
            let hit_node = model.node_by_backend_id(backend);
            if hit_node.is_some_and(|h| model.contains(*node, h)) {
                return (*node, Some(*p), first_hit, queries);
            }
            first_hit = first_hit.or(hit_node);
        }
        (*node, None, first_hit, queries)
    }))
    .await;
    done.elements = answers.len();
    for (node, point, covered_by, queries) in answers {
        done.queries += queries;
        let Some(f) = analysis.click_mut(node) else {
            continue;
        };
        let before = (f.occluded, f.click_point);
        match point {
            Some(p) => {
                f.click_point = Some(p);
                f.click_point_unsure = false;
                f.occluded = false;
                f.covered_by = None;
            }
            None => {
                f.click_point = None;
                f.click_point_unsure = false;
                f.occluded = true;
                f.covered_by = covered_by
                    .map(|c| crate::analysis::click::cover_of(model, c))
                    .or(f.covered_by);
            }
        }
        if before != (f.occluded, f.click_point) {
            done.changed += 1;
        }
    }
    Ok(done)
}

/// Makes `DOM.getNodeForLocation` answer on this session: it needs the document requested once.
pub(crate) async fn prepare_hit_test(page: &Page) -> Result<()> {
    page.send(&GetDocumentParams {
        depth: Some(0),
        ..Default::default()
    })
    .await
    .map(|_| ())
}

/// Chromium's own hit test (click semantics) at a point of the page's main-frame *document*
/// (viewport point plus scroll): the `backendNodeId` it answers, or `None` where it answers
/// nothing (outside the visible viewport). Needs [`prepare_hit_test`] first.
pub(crate) async fn hit_test_at(page: &Page, doc_x: i64, doc_y: i64) -> Result<Option<i64>> {
    let params = GetNodeForLocationParams {
        include_user_agent_shadow_dom: Some(false),
        ..GetNodeForLocationParams::new(doc_x, doc_y)
    };
    match page.send(&params).await {
        Ok(hit) => Ok(Some(hit.backend_node_id)),
        Err(e) if e.code() == ErrorCode::ProtocolError => Ok(None),
        Err(e) => Err(e),
    }
}
