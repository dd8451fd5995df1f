//! Which accessibility nodes a snapshot needs: all of them, or only those of what it prints.
//!
//! Why: on a long page the full accessibility tree is the largest and slowest thing a snapshot
//! asks Chromium for, yet the default
//! snapshot prints only what intersects the (expanded) viewport. The renderers read AX data of
//! a node only to decide whether that node, or an ancestor holding it, is printed; a node
//! outside the view is never printed. So when the view is narrower than the page, the capture
//! takes the DOM snapshot first, decides from it which DOM nodes the render can print — the
//! nodes visible in the expanded viewport (text judged by its element, as the renderers do) and
//! their flat-tree ancestors, in every captured document — and asks for the accessibility nodes
//! of exactly those (`Accessibility.getPartialAXTree`, all sent at once; see
//! [`crate::capture::ax_partial`] for how they become trees again).
//!
//! "In the viewport" is decided by the analysis's own [`visibility`](crate::analysis::visibility) rules on the same
//! [`Geometry`](crate::analysis::Geometry), so the set cannot drift from what the renderers test.
//!
//! A snapshot with `uid` prints one element and what is under it, however long the page. Its
//! capture takes the DOM snapshot whole (`DOMSnapshot.captureSnapshot` has no subtree option,
//! and the uids, geometry and visibility of the element need the whole page), then asks for
//! the accessibility nodes of the element's flat-tree subtree, of the elements its
//! `aria-owns` (and theirs) name with their subtrees, and of the ancestors of all of these
//! ([`subtree_fetch_set`]). Those are every node the subtree's lines are made of: the renderers
//! print a node from its own accessibility node, its children's count (kept by stand-ins, see
//! [`crate::capture::ax_partial`]) and its ancestors', so the subtree's text is the one the
//! whole page's text holds for it. A node inside the subtree that `aria-owns` moves elsewhere is
//! not under the element in either text (its owner is fetched as a missing parent, and, not
//! being in the subtree, is not printed there).
//!
//! The capture records its [`AxScope`]: rendering a viewport-scoped capture with a wider view
//! (`--expand all`, a larger `--expand`, `verbose`) is refused rather than shown with less, and
//! a subtree-scoped one is rendered only as the subtree of its own element.

use crate::analysis::{Expand, ViewFacts};
use crate::capture::{AxScope, Capture};
use crate::cdp::page::GetLayoutMetricsReturns;
use crate::error::{Error, Result};
use crate::model::{DocId, Model, NodeId, NodeKind};

impl AxScope {
    /// The scope a snapshot with these options needs.
    pub fn for_view(expand: Expand, verbose: bool) -> AxScope {
        match expand {
            _ if verbose => AxScope::Full,
            Expand::All => AxScope::Full,
            Expand::Viewport => AxScope::Viewport { expand: 0.0 },
            Expand::Pixels(px) if px.is_finite() => AxScope::Viewport {
                expand: px.max(0.0),
            },
            Expand::Pixels(_) => AxScope::Full,
        }
    }

    /// The scope a snapshot with these options needs, `subtree` being the `backendNodeId` of
    /// the element whose subtree it shows (`None`: the whole view, or an element Chromium gave
    /// no `backendNodeId`, which cannot be asked for).
    pub fn for_snapshot(expand: Expand, verbose: bool, subtree: Option<i64>) -> AxScope {
        match subtree {
            Some(backend_node_id) => AxScope::Subtree { backend_node_id },
            None => AxScope::for_view(expand, verbose),
        }
    }

    /// The view a viewport scope serves; `None` for the full scope, which serves every view,
    /// for a subtree scope, which serves none but its element's subtree, and for no scope.
    pub(crate) fn view(self) -> Option<Expand> {
        match self {
            AxScope::Full | AxScope::Subtree { .. } | AxScope::None => None,
            AxScope::Viewport { expand } if expand > 0.0 => Some(Expand::Pixels(expand)),
            AxScope::Viewport { .. } => Some(Expand::Viewport),
        }
    }

    /// Whether a capture of this scope holds everything a snapshot of the whole view with
    /// these options reads (a subtree scope never does, nor a capture without the tree).
    pub fn covers(&self, expand: Expand, verbose: bool) -> bool {
        match (self, AxScope::for_view(expand, verbose)) {
            (AxScope::Full, _) => true,
            (AxScope::Subtree { .. } | AxScope::None, _) => false,
            (_, AxScope::Subtree { .. } | AxScope::None) => false,
            (AxScope::Viewport { .. }, AxScope::Full) => false,
            (AxScope::Viewport { expand: have }, AxScope::Viewport { expand: want }) => {
                want <= *have
            }
        }
    }

    /// An error saying why a capture of this scope cannot be rendered as the subtree of the
    /// element with `backendNodeId` `subtree` (`None`: the whole view) with these options.
    pub fn check_snapshot(
        &self,
        expand: Expand,
        verbose: bool,
        subtree: Option<i64>,
    ) -> Result<()> {
        match (self, subtree) {
            (AxScope::Subtree { backend_node_id }, Some(asked)) if *backend_node_id == asked => {
                Ok(())
            }
            (AxScope::Subtree { .. }, _) => Err(Error::invalid_argument(
                "this capture holds accessibility data only for the subtree of another element; \
                 capture the page again with these options (`pagesight capture` records the \
                 whole page)",
            )),
            _ => self.check(expand, verbose),
        }
    }

    /// An error saying why a capture of this scope cannot be rendered with these options.
    pub fn check(&self, expand: Expand, verbose: bool) -> Result<()> {
        if self.covers(expand, verbose) {
            return Ok(());
        }
        let have = match self {
            AxScope::Viewport { expand } => *expand,
            AxScope::Subtree { .. } => return self.check_snapshot(expand, verbose, None),
            AxScope::None => {
                return Err(Error::invalid_argument(
                    "this capture holds no accessibility data (it was taken to extract the \
                     page's content); capture the page again (`pagesight capture` records the \
                     whole page)",
                ))
            }
            AxScope::Full => 0.0,
        };
        let asked = if verbose {
            "verbose".to_string()
        } else {
            match expand {
                Expand::All => "--expand all".to_string(),
                Expand::Pixels(px) => format!("--expand {px}"),
                Expand::Viewport => "the viewport".to_string(),
            }
        };
        Err(Error::invalid_argument(format!(
            "this capture holds accessibility data only for the viewport expanded by {have} px, \
             not for {asked}; capture the page again with these options (`pagesight capture` \
             records the whole page)"
        )))
    }
}

/// How a viewport scope's accessibility nodes are fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AxFetch {
    /// Node by node when the view holds a small share of the page's nodes, else every frame's
    /// full tree: on a short page one `getFullAXTree` answers sooner than a hundred pipelined
    /// `getPartialAXTree` calls (bootstrap's checkout example, 386 nodes: 10 ms against 15 ms).
    #[default]
    Auto,
    /// Always node by node.
    Partial,
}

impl AxFetch {
    /// Whether a view grown by `expand` px shows so much of the page (`metrics`, taken before
    /// the snapshot) that capturing the whole page costs less: the full trees sent with the
    /// snapshot, every DOM rect in it, and none of the view's own calls and work after it.
    /// A page at most three views large is taken whole (bootstrap's checkout
    /// example, 2.4 views: 12 ms whole against 13–15 ms by view).
    pub fn whole_page(self, metrics: &GetLayoutMetricsReturns, expand: f64) -> bool {
        if self == AxFetch::Partial {
            return false;
        }
        let view = &metrics.css_layout_viewport;
        let grow = 2.0 * expand.max(0.0);
        let view_area = (view.client_width as f64 + grow) * (view.client_height as f64 + grow);
        let content = &metrics.css_content_size;
        let content_area = content.width.max(0.0) * content.height.max(0.0);
        view_area > 0.0 && content_area <= WHOLE_PAGE_VIEWS * view_area
    }

    /// Whether to fetch `wanted` nodes one by one on a page of `total` DOM nodes. A partial
    /// call costs Chromium several times what one node of the full tree does.
    pub fn node_by_node(self, wanted: usize, total: usize) -> bool {
        match self {
            AxFetch::Partial => true,
            AxFetch::Auto => wanted.saturating_mul(PARTIAL_COST) < total,
        }
    }
}

/// See [`AxFetch::whole_page`].
const WHOLE_PAGE_VIEWS: f64 = 3.0;

/// About how many nodes of the full tree cost Chromium what one partial call does (measured:
/// 386 nodes in 5 ms whole against 100 calls in 10 ms; stdtypes 36k nodes in 0.8 s whole
/// against 414 calls in 0.05 s once the tree exists).
const PARTIAL_COST: usize = 8;

/// The `backendNodeId`s whose accessibility nodes a snapshot of `capture` viewed with `expand`
/// can print, per renderer target: `[0]` for the page's own, `[k]` for `capture.oopifs[k-1]`.
/// The top-level `#document` is always included (its node names the page).
///
/// Pure. `capture` needs no accessibility trees (any it has are ignored).
pub fn ax_fetch_set(capture: &Capture, expand: Expand) -> Result<Vec<Vec<i64>>> {
    let model = Model::from_dom_snapshots(capture)?;
    let view = ViewFacts::new(&model, expand);
    Ok(fetch_set(&model, &view, 1 + capture.oopifs.len()))
}

/// [`ax_fetch_set`] on the model of a capture's DOM snapshots ([`Model::from_dom_snapshots`])
/// seen as `view` says, with `targets` renderer targets.
pub(crate) fn fetch_set(model: &Model, view: &ViewFacts, targets: usize) -> Vec<Vec<i64>> {
    let n = model.nodes.len();
    let facts = &view.nodes;
    let viewport = view.geometry.viewport.rect();
    let mut wanted = vec![false; n];
    for (i, node) in model.nodes.iter().enumerate() {
        let shown = match node.kind {
            // A transparent control a click reaches in the viewport is printed too: take every
            // element that can be hit there (the click points are not known yet).
            NodeKind::Element | NodeKind::Document => {
                facts[i].in_viewport
                    || facts[i]
                        .hittable_rect()
                        .is_some_and(|r| r.intersect(&viewport).is_some())
            }
            // Text without facts of its own is judged by its element (as the renderers do);
            // text with no layout box has no accessibility node.
            NodeKind::Text | NodeKind::CData => {
                node.layout.is_some()
                    && (facts[i].in_viewport
                        || (facts[i].bounds().is_none()
                            && model
                                .parent_element(crate::model::NodeId::new(i as u32))
                                .is_some_and(|p| facts[p.index()].in_viewport)))
            }
            _ => false,
        };
        if shown {
            wanted[i] = true;
        }
    }
    if let Some(top) = model.docs.first() {
        if let Some(w) = wanted.get_mut(top.root.index()) {
            *w = true;
        }
    }
    with_ancestors(model, &mut wanted);
    by_target(model, &wanted, targets)
}

/// Marks the ancestors of every wanted node, each chain walked once: stop at the first
/// ancestor already wanted.
fn with_ancestors(model: &Model, wanted: &mut [bool]) {
    let n = wanted.len().min(model.nodes.len());
    for i in 0..n {
        if !wanted[i] {
            continue;
        }
        let mut cur = model.nodes[i].parent;
        while let Some(p) = cur {
            let p = p.index();
            if p >= n || wanted[p] {
                break;
            }
            wanted[p] = true;
            cur = model.nodes[p].parent;
        }
    }
}

/// The `backendNodeId`s of the wanted nodes, per renderer target.
fn by_target(model: &Model, wanted: &[bool], targets: usize) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new(); targets];
    for (i, node) in model.nodes.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let target = model.doc(node.doc).target as usize;
        if let Some(list) = out.get_mut(target) {
            list.push(i64::from(node.backend_node_id));
        }
    }
    out
}

/// `subtree_fetch_set` of a capture's DOM snapshots: the `backendNodeId`s a snapshot of the
/// subtree of the element with `backend_node_id` asks the accessibility nodes of, per renderer
/// target as [`ax_fetch_set`] gives them.
///
/// Pure. `capture` needs no accessibility trees (any it has are ignored).
pub fn ax_subtree_fetch_set(capture: &Capture, backend_node_id: i64) -> Result<Vec<Vec<i64>>> {
    let model = Model::from_dom_snapshots(capture)?;
    Ok(subtree_fetch_set(&model, backend_node_id, 1 + capture.oopifs.len()).ids)
}

/// What a subtree scope asks for, per renderer target as [`fetch_set`] gives them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SubtreeSet {
    /// The `backendNodeId`s to ask the accessibility nodes of.
    pub ids: Vec<Vec<i64>>,
    /// Those of them inside the subtree (not its ancestors): the nodes whose accessibility
    /// children are all asked for, found or not in the DOM snapshot.
    pub inside: Vec<Vec<i64>>,
    /// Whether the DOM snapshot holds the element. One it does not (gone, or a node of a
    /// user-agent shadow tree, which the accessibility tree names and the snapshot leaves out)
    /// is looked for in the full trees.
    pub found: bool,
}

/// The `backendNodeId`s whose accessibility nodes a snapshot of the subtree of the element
/// with `backend_node_id` prints, per renderer target as [`fetch_set`] gives them: the
/// element's flat-tree subtree (child documents included), the subtrees of the elements its
/// `aria-owns` attributes name (in the same document, followed on from there), and the
/// ancestors of all of these; the top-level `#document` always. A `backendNodeId` found in
/// several renderers is taken in each (no harm: more nodes than needed). No node has it when
/// the element is gone (or not in the DOM snapshot): the set is then only the top-level
/// `#document`, and [`SubtreeSet::found`] false.
///
/// Text without a layout box has no accessibility node, and neither have comments or doctypes:
/// they are not asked for. What the DOM snapshot does not hold (user-agent shadow trees: a form
/// control's inner editor) is asked for as the replies name it ([`SubtreeSet::inside`]).
pub(crate) fn subtree_fetch_set(model: &Model, backend_node_id: i64, targets: usize) -> SubtreeSet {
    let n = model.nodes.len();
    let mut wanted = vec![false; n];
    let mut roots: Vec<NodeId> = (0..targets)
        .filter_map(|t| u32::try_from(t).ok())
        .filter_map(|t| model.node_by_target_backend_id(t, backend_node_id))
        .collect();
    // Elements by `id`, per document, built only if an `aria-owns` needs it.
    let mut by_id: Option<rustc_hash::FxHashMap<(DocId, &str), NodeId>> = None;
    let found = !roots.is_empty();
    while let Some(root) = roots.pop() {
        if wanted.get(root.index()).copied().unwrap_or(true) {
            continue;
        }
        let end = model.node(root).subtree_end.index().min(n);
        let start = root.index();
        for (i, (node, w)) in model.nodes[start..end]
            .iter()
            .zip(&mut wanted[start..end])
            .enumerate()
        {
            if *w {
                continue;
            }
            let id = NodeId::new((start + i) as u32);
            *w = match node.kind {
                NodeKind::Element | NodeKind::Document => true,
                NodeKind::Text | NodeKind::CData => node.layout.is_some(),
                _ => false,
            };
            let Some(owns) = model.attr(id, "aria-owns") else {
                continue;
            };
            let index = by_id.get_or_insert_with(|| ids_by_document(model));
            for name in owns.split_ascii_whitespace() {
                if let Some(&owned) = index.get(&(node.doc, name)) {
                    roots.push(owned);
                }
            }
        }
    }
    let inside = by_target(model, &wanted, targets);
    if let Some(top) = model.docs.first() {
        if let Some(w) = wanted.get_mut(top.root.index()) {
            *w = true;
        }
    }
    with_ancestors(model, &mut wanted);
    SubtreeSet {
        ids: by_target(model, &wanted, targets),
        inside,
        found,
    }
}

/// Every element with an `id`, by its document and id (the first of a repeated id, as
/// `getElementById` finds it).
fn ids_by_document(model: &Model) -> rustc_hash::FxHashMap<(DocId, &str), NodeId> {
    let mut out = rustc_hash::FxHashMap::default();
    for (i, node) in model.nodes.iter().enumerate() {
        if node.kind != NodeKind::Element {
            continue;
        }
        let id = NodeId::new(i as u32);
        if let Some(name) = model.attr(id, "id") {
            out.entry((node.doc, name)).or_insert(id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_follows_the_view() {
        let vp = AxScope::for_view(Expand::Viewport, false);
        assert_eq!(vp, AxScope::Viewport { expand: 0.0 });
        assert!(AxScope::for_view(Expand::All, false).is_full());
        assert!(AxScope::for_view(Expand::Viewport, true).is_full());
        let e500 = AxScope::for_view(Expand::Pixels(500.0), false);
        assert!(e500.covers(Expand::Pixels(200.0), false));
        assert!(e500.covers(Expand::Viewport, false));
        assert!(!vp.covers(Expand::Pixels(500.0), false));
        assert!(!vp.covers(Expand::All, false));
        assert!(!vp.covers(Expand::Viewport, true));
        assert!(AxScope::Full.covers(Expand::All, true));
        let e = vp.check(Expand::All, false).unwrap_err();
        assert!(e.message().contains("--expand all"), "{}", e.message());
    }
}
