//! Building a [`Model`] from a [`Capture`]: stitching documents into one flat pre-order arena,
//! parsing layout and styles, and linking the accessibility tree.
//!
//! Everything the page controls is checked: an index out of range, a cycle in `parentIndex` or in
//! `contentDocumentIndex` is an `INVALID_ARGUMENT` error naming the document and the field, never
//! a panic. Arrays shorter than `parentIndex` are tolerated (missing entries read as "absent").

use super::style::{StyleField, StylesPresent};
use super::{
    Attr, AxId, AxNode, AxProp, AxProperty, AxValue, BoxRects, DocId, Document, LayoutBox,
    LayoutId, Model, Node, NodeFlags, NodeId, NodeKind, PageMetrics, PseudoKind, RareStrings, Rect,
    StrId, Style, StyleId, TextBox, NO_BOX_RECTS,
};
use crate::capture::{
    AxKeyRef, AxNodeRef, AxNodes, AxScalar, AxTreeCapture, AxValueRef, Capture, DocumentRecord,
    DomSnapshot,
};
use crate::cdp::accessibility::{AXPropertyName, AXValueType};
use crate::cdp::dom_snapshot::{RareBooleanData, RareStringData};
use crate::cdp::page::FrameTree;
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Limits that keep a hostile capture from making the model unreasonably large.
#[derive(Debug, Clone, Copy)]
pub struct ModelLimits {
    /// Most nodes over all documents.
    pub max_nodes: usize,
}

impl Default for ModelLimits {
    fn default() -> Self {
        ModelLimits {
            max_nodes: u32::MAX as usize / 2,
        }
    }
}

const NONE: u32 = u32::MAX;

/// One renderer target's share of the capture (the page itself, or an out-of-process iframe).
struct TargetInput<'a> {
    snapshot: &'a DomSnapshot,
    styles: Vec<StyleField>,
    /// For out-of-process iframes: (owner target, owner backendNodeId).
    owner: Option<(u32, i64)>,
    frame_id: Option<&'a str>,
    /// Offset of this target's strings in the model's string table.
    str_base: u32,
}

/// Per-document scratch data while building.
struct DocScratch {
    target: u32,
    index: usize,
    /// Local node index -> model node id (NONE until reached).
    map: Vec<u32>,
    /// CSR children lists.
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Local node -> child document (index into the scratch list), same-process or out-of-process.
    content_docs: FxHashMap<u32, u32>,
    /// Nodes without a parent (normally just `#document`).
    roots: Vec<u32>,
    global: Option<DocId>,
}

/// A snapshot's string table: moved out when the capture alone holds the snapshot (as it does
/// unless a page keeps it too), copied otherwise.
fn take_strings(snapshot: &mut Arc<DomSnapshot>) -> Vec<String> {
    match Arc::get_mut(snapshot) {
        Some(snapshot) => std::mem::take(&mut snapshot.strings),
        None => snapshot.strings.clone(),
    }
}

impl Model {
    /// Builds the model of a capture, moving its data rather than copying it.
    pub fn from_capture(capture: Capture) -> Result<Model> {
        Model::from_capture_with_limits(capture, ModelLimits::default())
    }

    /// [`Model::from_capture`] with explicit limits.
    pub fn from_capture_with_limits(mut capture: Capture, limits: ModelLimits) -> Result<Model> {
        // The snapshots' string tables become the model's: moved, not copied.
        let mut strings = Vec::with_capacity(1 + capture.oopifs.len());
        strings.push(take_strings(&mut capture.dom_snapshot));
        for o in &mut capture.oopifs {
            strings.push(take_strings(&mut o.dom_snapshot));
        }
        let trees = take_ax_trees(&mut capture);
        let ax_nodes: usize = trees.iter().map(|(_, t)| t.nodes.len()).sum();
        // The two parts share nothing until they are linked.
        let (ax, model) = crate::parallel::join(
            ax_nodes >= crate::parallel::LARGE_PAGE_NODES,
            move || AxPart::read(trees),
            || Model::build_dom(&capture, strings, limits),
        );
        let mut model = model?;
        // The snapshots are fully read: freed while the trees are linked.
        let large = model.nodes.len() >= crate::parallel::LARGE_PAGE_NODES;
        crate::parallel::drop_aside(capture, large);
        ax.link(&mut model);
        Ok(model)
    }

    /// The model of a capture's DOM snapshots alone, without accessibility data, leaving the
    /// capture as it is (its strings are copied). A live snapshot that asks for accessibility
    /// nodes only once it knows what is in view builds this once, decides from it what to ask
    /// for, and adds the answers with [`Model::add_ax_trees`].
    pub fn from_dom_snapshots(capture: &Capture) -> Result<Model> {
        let mut strings = Vec::with_capacity(1 + capture.oopifs.len());
        strings.push(capture.dom_snapshot.strings.clone());
        for o in &capture.oopifs {
            strings.push(o.dom_snapshot.strings.clone());
        }
        Model::build_dom(capture, strings, ModelLimits::default())
    }

    /// Links the accessibility trees of `capture` (moved out of it) into a model built from its
    /// DOM snapshots by [`Model::from_dom_snapshots`].
    pub fn add_ax_trees(&mut self, capture: &mut Capture) {
        AxPart::read(take_ax_trees(capture)).link(self);
    }

    /// Everything but the accessibility trees. `strings[k]` is the string table of target `k`
    /// (0: the page, `k`: `capture.oopifs[k-1]`); the snapshots' own tables are not read.
    fn build_dom(
        capture: &Capture,
        strings: Vec<Vec<String>>,
        limits: ModelLimits,
    ) -> Result<Model> {
        let mut model = Model {
            url: capture.url.clone(),
            title: capture.title.clone(),
            ..Model::default()
        };
        model.metrics = page_metrics(&capture.layout_metrics);

        // Frame tree: frame id -> loader id.
        let mut loaders: FxHashMap<String, String> = FxHashMap::default();
        if let Some(tree) = &capture.frame_tree {
            collect_loaders(tree, &mut loaders, 0);
        }

        // Targets and their string tables.
        let mut targets = Vec::with_capacity(1 + capture.oopifs.len());
        let styles_of = |names: &[String], present: &mut StylesPresent| -> Vec<StyleField> {
            names
                .iter()
                .map(|n| {
                    let f = StyleField::from_name(n);
                    present.mark(f);
                    f
                })
                .collect()
        };
        let mut present = StylesPresent::default();
        targets.push(TargetInput {
            styles: styles_of(&capture.computed_styles, &mut present),
            snapshot: &capture.dom_snapshot,
            owner: None,
            frame_id: None,
            str_base: 0,
        });
        for o in &capture.oopifs {
            // An out-of-process frame's loader ids come from its own session's frame tree.
            if let Some(tree) = &o.frame_tree {
                collect_loaders(tree, &mut loaders, 0);
            }
            targets.push(TargetInput {
                styles: styles_of(&o.computed_styles, &mut present),
                snapshot: &o.dom_snapshot,
                owner: Some((o.owner_target, o.owner_backend_node_id)),
                frame_id: Some(&o.frame_id),
                str_base: 0,
            });
        }
        model.styles_present = present;
        let total_strings: usize = strings.iter().map(Vec::len).sum();
        if total_strings >= NONE as usize {
            return Err(Error::invalid_argument("the capture has too many strings"));
        }
        model.strings.reserve(total_strings + 64);
        for (t, strings) in targets.iter_mut().zip(strings) {
            t.str_base = model.strings.len() as u32;
            if model.strings.is_empty() {
                model.strings = strings;
            } else {
                model.strings.extend(strings);
            }
        }

        if targets[0].snapshot.documents.is_empty() {
            return Err(Error::invalid_argument(
                "the capture holds no document (domSnapshot.documents is empty)",
            ));
        }

        // Scratch per document, in (target, index) order.
        let mut scratch: Vec<DocScratch> = Vec::new();
        let mut first_doc_of_target = Vec::with_capacity(targets.len());
        let mut total_nodes = 0usize;
        for (ti, t) in targets.iter().enumerate() {
            first_doc_of_target.push(scratch.len() as u32);
            for (di, d) in t.snapshot.documents.iter().enumerate() {
                let s = doc_scratch(ti as u32, di, d)?;
                total_nodes += s.map.len();
                scratch.push(s);
            }
        }
        if total_nodes > limits.max_nodes {
            return Err(Error::invalid_argument(format!(
                "the capture has {total_nodes} nodes, more than the limit of {}",
                limits.max_nodes
            )));
        }
        // Same-process child documents.
        for sc in scratch.iter_mut() {
            let (ti, di) = (sc.target as usize, sc.index);
            let d = &targets[ti].snapshot.documents[di];
            let ndocs = targets[ti].snapshot.documents.len();
            if let Some(cdi) = &d.nodes.content_document_index {
                for (k, &node) in cdi.index.iter().enumerate() {
                    let Some(&child) = cdi.value.get(k) else {
                        break;
                    };
                    if node < 0 || node as usize >= sc.map.len() {
                        return Err(bad(di, "nodes.contentDocumentIndex.index", node));
                    }
                    if child < 0 || child as usize >= ndocs || child as usize == di {
                        return Err(bad(di, "nodes.contentDocumentIndex.value", child));
                    }
                    let child_scratch = first_doc_of_target[ti] + child as u32;
                    sc.content_docs.insert(node as u32, child_scratch);
                }
            }
        }
        // Out-of-process iframes: their first document goes under the owner element.
        for (ti, t) in targets.iter().enumerate().skip(1) {
            let Some((owner_target, owner_backend)) = t.owner else {
                continue;
            };
            if t.snapshot.documents.is_empty()
                || owner_target as usize >= targets.len()
                || owner_target as usize == ti
            {
                continue;
            }
            let ot = &targets[owner_target as usize];
            'docs: for (di, d) in ot.snapshot.documents.iter().enumerate() {
                if let Some(ids) = &d.nodes.backend_node_id {
                    if let Some(pos) = ids.iter().position(|&b| b == owner_backend) {
                        let si = (first_doc_of_target[owner_target as usize] as usize) + di;
                        scratch[si]
                            .content_docs
                            .insert(pos as u32, first_doc_of_target[ti]);
                        break 'docs;
                    }
                }
            }
        }

        // Pre-order walk over the stitched tree.
        model.nodes.reserve(total_nodes);
        let mut order: Vec<u32> = Vec::with_capacity(scratch.len()); // scratch docs in visit order
        let mut stack: Vec<(u32, u32, u32, u32)> = Vec::new(); // (scratch doc, local node, parent, depth)
        let mut doc_visited = vec![false; scratch.len()];
        for start in 0..scratch.len() as u32 {
            if doc_visited[start as usize] {
                continue;
            }
            // Roots of a document: nodes without a parent, normally just `#document`.
            push_doc_roots(&scratch[start as usize], start, NONE, 0, &mut stack);
            doc_visited[start as usize] = true;
            order.push(start);
            scratch[start as usize].global = Some(DocId::new(order.len() as u32 - 1));
            while let Some((sd, local, parent, depth)) = stack.pop() {
                let id = model.nodes.len() as u32;
                let s = &mut scratch[sd as usize];
                if s.map[local as usize] != NONE {
                    return Err(Error::invalid_argument(format!(
                        "document {} of the capture: node {local} is reached twice (cycle in nodes.parentIndex)",
                        s.index
                    )));
                }
                s.map[local as usize] = id;
                let doc = s.global.unwrap_or_default();
                model.nodes.push(Node {
                    kind: NodeKind::Other,
                    doc,
                    parent: (parent != NONE).then(|| NodeId::new(parent)),
                    subtree_end: NodeId::new(id + 1),
                    depth,
                    backend_node_id: 0,
                    name: StrId::new(0),
                    tag: StrId::new(0),
                    value: None,
                    attrs_start: 0,
                    attrs_end: 0,
                    layout: None,
                    pseudo: None,
                    flags: NodeFlags::default(),
                    content_document: None,
                    ax: None,
                });
                // Children are pushed in reverse so they pop in order; a child document comes
                // after the owner's own children.
                if let Some(&child_doc) = s.content_docs.get(&local) {
                    if !doc_visited[child_doc as usize] {
                        doc_visited[child_doc as usize] = true;
                        order.push(child_doc);
                        let g = DocId::new(order.len() as u32 - 1);
                        scratch[child_doc as usize].global = Some(g);
                        model.nodes[id as usize].content_document = Some(g);
                        push_doc_roots(
                            &scratch[child_doc as usize],
                            child_doc,
                            id,
                            depth + 1,
                            &mut stack,
                        );
                    }
                }
                let s = &scratch[sd as usize];
                let (a, b) = (
                    s.child_start[local as usize] as usize,
                    s.child_start[local as usize + 1] as usize,
                );
                for &c in s.children[a..b].iter().rev() {
                    stack.push((sd, c, id, depth + 1));
                }
            }
        }
        for s in &scratch {
            if let Some(local) = s.map.iter().position(|&m| m == NONE) {
                return Err(Error::invalid_argument(format!(
                    "document {} of the capture: node {local} is not reachable from a root (cycle in nodes.parentIndex)",
                    s.index
                )));
            }
        }
        // Subtree ends.
        for i in (0..model.nodes.len()).rev() {
            if let Some(p) = model.nodes[i].parent {
                let end = model.nodes[i].subtree_end;
                let pe = &mut model.nodes[p.index()].subtree_end;
                if end > *pe {
                    *pe = end;
                }
            }
        }

        let empty = push_string(&mut model, String::new());
        // Node data, documents, layout.
        let mut lower_tags: FxHashMap<u32, StrId> = FxHashMap::default();
        let (mut nlayouts, mut ntext_boxes, mut nattrs) = (0usize, 0usize, 0usize);
        for &sd in &order {
            let s = &scratch[sd as usize];
            let d = &targets[s.target as usize].snapshot.documents[s.index];
            nlayouts += d.layout.node_index.len();
            ntext_boxes += d.text_boxes.layout_index.len();
            if let Some(a) = &d.nodes.attributes {
                nattrs += a.rows().map(|row| row.len() / 2).sum::<usize>();
            }
        }
        model.attrs.reserve(nattrs);
        let mut raw_layouts: Vec<LayoutBox> = Vec::with_capacity(nlayouts);
        // layout = index into raw_layouts
        let mut raw_text_boxes: Vec<TextBox> = Vec::with_capacity(ntext_boxes);
        // Whether the boxes come in node order, as they do on most pages: noted while they are
        // read rather than checked after, a pass over a long page's largest table.
        let mut layouts_in_order = true;
        let mut style_rows = StyleRows {
            styles: vec![Style::INITIAL],
            ids: FxHashMap::default(),
            at: FxHashMap::default(),
        };
        model.docs = Vec::with_capacity(order.len());
        for &sd in &order {
            let s = &scratch[sd as usize];
            let t = &targets[s.target as usize];
            let d = &t.snapshot.documents[s.index];
            let doc_id = DocId::new(model.docs.len() as u32);
            let ctx = Ctx {
                strings: t.str_base,
                nstrings: model.strings.len() as u32,
                doc: s.index,
            };
            fill_nodes(&mut model, s, d, &ctx, &mut lower_tags, empty)?;
            let root = NodeId::new(s.map.first().copied().unwrap_or(0));
            let owner = model.nodes[root.index()].parent;
            let frame_id = ctx.opt_str(d.frame_id)?.or_else(|| {
                // An out-of-process frame's snapshot may not name its frame.
                t.frame_id.map(|f| intern(&mut model, f))
            });
            let loader_id = frame_id
                .and_then(|f| loaders.get(model.str(f)).cloned())
                .map(|l| push_string(&mut model, l));
            model.docs.push(Document {
                root,
                owner,
                frame_id,
                url: ctx.opt_str(d.document_url)?,
                base_url: ctx.opt_str(d.base_url)?,
                title: ctx.opt_str(d.title)?,
                loader_id,
                target: s.target,
                scroll_x: finite(d.scroll_offset_x.unwrap_or(0.0)),
                scroll_y: finite(d.scroll_offset_y.unwrap_or(0.0)),
                content_width: finite(d.content_width.unwrap_or(0.0)),
                content_height: finite(d.content_height.unwrap_or(0.0)),
            });
            let _ = doc_id;
            fill_layout(
                &mut raw_layouts,
                &mut raw_text_boxes,
                &mut model.box_rects,
                &mut style_rows,
                &mut layouts_in_order,
                s,
                d,
                s.target,
                &t.styles,
                &ctx,
                &model.strings,
            )?;
        }
        model.styles = style_rows.styles;
        sort_layouts(&mut model, raw_layouts, layouts_in_order, raw_text_boxes);
        merge_rare_strings(&mut model.rare);

        // Backend ids.
        let by_backend = super::backend_index::BackendIndex::build(model.nodes.iter().map(|n| {
            (
                model.docs[n.doc.index()].target,
                i64::from(n.backend_node_id),
            )
        }));
        *model.by_backend_mut() = by_backend;
        for u in &capture.uncaptured_frames {
            if let Some(node) =
                model.node_by_target_backend_id(u.owner_target, u.owner_backend_node_id)
            {
                model.uncaptured_frames.push((node, u.reason.clone()));
            }
        }

        Ok(model)
    }
}

/// The accessibility trees of every target of `capture`, moved out of it, with their target.
fn take_ax_trees(capture: &mut Capture) -> Vec<(u32, AxTreeCapture)> {
    let mut out: Vec<(u32, AxTreeCapture)> = std::mem::take(&mut capture.ax_trees)
        .into_iter()
        .map(|t| (0, t))
        .collect();
    for (k, o) in capture.oopifs.iter_mut().enumerate() {
        out.extend(
            std::mem::take(&mut o.ax_trees)
                .into_iter()
                .map(|t| (k as u32 + 1, t)),
        );
    }
    out
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

fn bad(doc: usize, field: &str, value: i64) -> Error {
    Error::invalid_argument(format!(
        "document {doc} of the capture: {field} holds {value}, which is out of range"
    ))
}

fn collect_loaders(tree: &FrameTree, out: &mut FxHashMap<String, String>, depth: usize) {
    if depth > 1000 {
        return;
    }
    out.insert(tree.frame.id.clone(), tree.frame.loader_id.clone());
    if let Some(children) = &tree.child_frames {
        for c in children {
            collect_loaders(c, out, depth + 1);
        }
    }
}

fn page_metrics(m: &crate::cdp::page::GetLayoutMetricsReturns) -> PageMetrics {
    let css_vv = &m.css_visual_viewport;
    let css_lv = &m.css_layout_viewport;
    let ratio = |device: f64, css: f64| (device > 0.0 && css > 0.0).then(|| device / css);
    let dpr = ratio(m.visual_viewport.client_width, css_vv.client_width)
        .or_else(|| ratio(m.content_size.width, m.css_content_size.width))
        .or(css_vv.zoom)
        .filter(|d| d.is_finite() && *d > 0.0)
        .map(|d| (d * 1000.0).round() / 1000.0)
        .unwrap_or(1.0);
    PageMetrics {
        viewport_width: css_lv.client_width as f64,
        viewport_height: css_lv.client_height as f64,
        scroll_x: css_lv.page_x as f64,
        scroll_y: css_lv.page_y as f64,
        visual_offset_x: finite(css_vv.offset_x),
        visual_offset_y: finite(css_vv.offset_y),
        visual_scale: if css_vv.scale.is_finite() && css_vv.scale > 0.0 {
            css_vv.scale
        } else {
            1.0
        },
        content_width: finite(m.css_content_size.width),
        content_height: finite(m.css_content_size.height),
        device_pixel_ratio: dpr,
    }
}

fn doc_scratch(target: u32, index: usize, d: &DocumentRecord) -> Result<DocScratch> {
    let parents: &[i64] = d.nodes.parent_index.as_deref().unwrap_or(&[]);
    let n = parents.len();
    if n >= NONE as usize / 2 {
        return Err(Error::invalid_argument("a document has too many nodes"));
    }
    let mut child_start = vec![0u32; n + 1];
    for (i, &p) in parents.iter().enumerate() {
        if p >= 0 {
            if p as usize >= n || p as usize == i {
                return Err(bad(index, "nodes.parentIndex", p));
            }
            child_start[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        child_start[i + 1] += child_start[i];
    }
    let roots = (0..n as u32).filter(|&i| parents[i as usize] < 0).collect();
    let mut fill = child_start.clone();
    let mut children = vec![0u32; child_start[n] as usize];
    for (i, &p) in parents.iter().enumerate() {
        if p >= 0 {
            let slot = &mut fill[p as usize];
            children[*slot as usize] = i as u32;
            *slot += 1;
        }
    }
    Ok(DocScratch {
        target,
        index,
        map: vec![NONE; n],
        child_start,
        children,
        content_docs: FxHashMap::default(),
        roots,
        global: None,
    })
}

fn push_doc_roots(
    s: &DocScratch,
    sd: u32,
    parent: u32,
    depth: u32,
    stack: &mut Vec<(u32, u32, u32, u32)>,
) {
    // Pushed in reverse so the first root pops first.
    for &r in s.roots.iter().rev() {
        stack.push((sd, r, parent, depth));
    }
}

/// String-index helpers for one document.
struct Ctx {
    strings: u32,
    nstrings: u32,
    doc: usize,
}

impl Ctx {
    fn str(&self, i: i64) -> Result<StrId> {
        let v = i64::from(self.strings) + i;
        if i < 0 || v >= i64::from(self.nstrings) {
            return Err(Error::invalid_argument(format!(
                "document {} of the capture: string index {i} is out of range",
                self.doc
            )));
        }
        Ok(StrId::new(v as u32))
    }

    fn opt_str(&self, i: i64) -> Result<Option<StrId>> {
        if i < 0 {
            Ok(None)
        } else {
            self.str(i).map(Some)
        }
    }
}

fn push_string(model: &mut Model, s: String) -> StrId {
    model.strings.push(s);
    StrId::new(model.strings.len() as u32 - 1)
}

fn intern(model: &mut Model, s: &str) -> StrId {
    push_string(model, s.to_string())
}

fn rare_strings(
    r: &Option<RareStringData>,
    s: &DocScratch,
    ctx: &Ctx,
    field: &str,
    mut f: impl FnMut(usize, StrId),
) -> Result<()> {
    if let Some(r) = r {
        for (&i, &v) in r.index.iter().zip(r.value.iter()) {
            let m = local_to_model(s, i, ctx.doc, field)?;
            if let Some(v) = ctx.opt_str(v)? {
                f(m, v);
            }
        }
    }
    Ok(())
}

fn rare_bools(
    r: &Option<RareBooleanData>,
    s: &DocScratch,
    ctx: &Ctx,
    field: &str,
    mut f: impl FnMut(usize),
) -> Result<()> {
    if let Some(r) = r {
        for &i in &r.index {
            f(local_to_model(s, i, ctx.doc, field)?);
        }
    }
    Ok(())
}

fn local_to_model(s: &DocScratch, i: i64, doc: usize, field: &str) -> Result<usize> {
    if i < 0 || i as usize >= s.map.len() {
        return Err(bad(doc, field, i));
    }
    Ok(s.map[i as usize] as usize)
}

fn fill_nodes(
    model: &mut Model,
    s: &DocScratch,
    d: &DocumentRecord,
    ctx: &Ctx,
    lower_tags: &mut FxHashMap<u32, StrId>,
    empty: StrId,
) -> Result<()> {
    let nd = &d.nodes;
    let types = nd.node_type.as_deref().unwrap_or(&[]);
    let names = nd.node_name.as_deref().unwrap_or(&[]);
    let values = nd.node_value.as_deref().unwrap_or(&[]);
    let backend = nd.backend_node_id.as_deref().unwrap_or(&[]);
    let attrs = nd.attributes.as_ref();
    for (local, &m) in s.map.iter().enumerate() {
        let m = m as usize;
        let kind = NodeKind::from_node_type(types.get(local).copied().unwrap_or(0));
        let name = match names.get(local) {
            Some(&i) if i >= 0 => ctx.str(i)?,
            _ => StrId::new(0),
        };
        let tag = if kind == NodeKind::Element {
            match lower_tags.get(&name.get()) {
                Some(&t) => t,
                None => {
                    let orig = model.str(name);
                    let t = if orig.bytes().any(|b| b.is_ascii_uppercase()) {
                        let lower = orig.to_ascii_lowercase();
                        push_string(model, lower)
                    } else {
                        name
                    };
                    lower_tags.insert(name.get(), t);
                    t
                }
            }
        } else {
            name
        };
        let value = match values.get(local) {
            Some(&i) => ctx.opt_str(i)?,
            None => None,
        };
        let backend_id = match backend.get(local) {
            Some(&id) => i32::try_from(id).map_err(|_| bad(ctx.doc, "nodes.backendNodeId", id))?,
            None => 0,
        };
        let attrs_start = model.attrs.len() as u32;
        if let Some(list) = attrs.and_then(|a| a.get(local)) {
            for pair in list.chunks_exact(2) {
                model.attrs.push(Attr {
                    name: ctx.str(pair[0])?,
                    // A value-less attribute may come as -1.
                    value: ctx.opt_str(pair[1])?.unwrap_or(empty),
                });
            }
        }
        let attrs_end = model.attrs.len() as u32;
        let n = &mut model.nodes[m];
        n.kind = kind;
        n.backend_node_id = backend_id;
        n.name = name;
        n.tag = tag;
        n.value = value;
        n.attrs_start = attrs_start;
        n.attrs_end = attrs_end;
    }
    let nodes = &mut model.nodes;
    let rare = &mut model.rare;
    let mut put = |m: usize, set: fn(&mut RareStrings, StrId), v: StrId| {
        let mut r = RareStrings::default();
        set(&mut r, v);
        rare.push((NodeId::new(m as u32), r));
    };
    rare_strings(&nd.input_value, s, ctx, "nodes.inputValue", |m, v| {
        put(m, |r, v| r.input_value = Some(v), v)
    })?;
    rare_strings(&nd.text_value, s, ctx, "nodes.textValue", |m, v| {
        put(m, |r, v| r.text_value = Some(v), v)
    })?;
    rare_strings(
        &nd.current_source_url,
        s,
        ctx,
        "nodes.currentSourceURL",
        |m, v| put(m, |r, v| r.current_source_url = Some(v), v),
    )?;
    rare_strings(
        &nd.shadow_root_type,
        s,
        ctx,
        "nodes.shadowRootType",
        |m, v| put(m, |r, v| r.shadow_root_type = Some(v), v),
    )?;
    let mut pseudo: Vec<(usize, StrId)> =
        Vec::with_capacity(nd.pseudo_type.as_ref().map_or(0, |r| r.index.len()));
    rare_strings(&nd.pseudo_type, s, ctx, "nodes.pseudoType", |m, v| {
        pseudo.push((m, v))
    })?;
    for (m, v) in pseudo {
        nodes[m].pseudo = Some(PseudoKind::from_name(&model.strings[v.index()]));
    }
    rare_bools(&nd.input_checked, s, ctx, "nodes.inputChecked", |m| {
        nodes[m].flags.insert(NodeFlags::INPUT_CHECKED)
    })?;
    rare_bools(&nd.option_selected, s, ctx, "nodes.optionSelected", |m| {
        nodes[m].flags.insert(NodeFlags::OPTION_SELECTED)
    })?;
    rare_bools(&nd.is_clickable, s, ctx, "nodes.isClickable", |m| {
        nodes[m].flags.insert(NodeFlags::IS_CLICKABLE)
    })?;
    Ok(())
}

/// Sorts the rare strings by node and makes one entry of each node's, a later string of a field
/// replacing an earlier one.
fn merge_rare_strings(rare: &mut Vec<(NodeId, RareStrings)>) {
    // Stable: one node's strings keep the order they were read in.
    rare.sort_by_key(|&(n, _)| n);
    rare.dedup_by(|later, kept| {
        if later.0 != kept.0 {
            return false;
        }
        let (l, k) = (&later.1, &mut kept.1);
        k.shadow_root_type = l.shadow_root_type.or(k.shadow_root_type);
        k.input_value = l.input_value.or(k.input_value);
        k.text_value = l.text_value.or(k.text_value);
        k.current_source_url = l.current_source_url.or(k.current_source_url);
        true
    });
}

fn rect_of(v: Option<&[f64]>) -> Option<Rect> {
    let v = v?;
    if v.len() < 4 || v.iter().take(4).any(|x| !x.is_finite()) {
        return None;
    }
    Some(Rect::new(v[0], v[1], v[2], v[3]))
}

/// The model's table of distinct styles while it is filled, with the style each snapshot style
/// row parsed to.
///
/// Boxes share a few hundred style rows (the snapshot's strings are deduplicated, so equal rows
/// are equal index lists): each distinct row is parsed once, and every box with it holds the
/// same [`StyleId`]. A row is keyed by its target too, as each target has its own string table
/// and list of requested styles; documents of one target share their rows.
///
/// The reader stores equal rows of a document once ([`crate::capture::Ragged`]), so a row is
/// first looked up by where its values are, which needs no hashing of the values.
struct StyleRows<'a> {
    styles: Vec<Style>,
    ids: FxHashMap<(u32, &'a [i64]), StyleId>,
    at: FxHashMap<(usize, usize), StyleId>,
}

impl<'a> StyleRows<'a> {
    /// The style of a box whose style row, of `target`, is `vals`.
    fn id(
        &mut self,
        target: u32,
        vals: &'a [i64],
        styles: &[StyleField],
        ctx: &Ctx,
        strings: &[String],
    ) -> Result<StyleId> {
        // Where the values are says which target they are of: the documents of two targets are
        // different lists, and an empty row is the same style in any. Only the first row of
        // each style is remembered by place, so rows that do not share (read by serde) cost
        // no more than their content's lookup.
        let at = (vals.as_ptr() as usize, vals.len());
        if let Some(&id) = self.at.get(&at) {
            return Ok(id);
        }
        if let Some(&id) = self.ids.get(&(target, vals)) {
            return Ok(id);
        }
        let mut style = Style::default();
        for (f, &v) in styles.iter().zip(vals.iter()) {
            if *f != StyleField::Ignored && v >= 0 {
                let sid = ctx.str(v)?;
                f.apply(&mut style, &strings[sid.index()]);
            }
        }
        let id = StyleId::new(self.styles.len() as u32);
        self.styles.push(style);
        self.ids.insert((target, vals), id);
        self.at.insert(at, id);
        Ok(id)
    }
}

#[allow(clippy::too_many_arguments)]
fn fill_layout<'a>(
    layouts: &mut Vec<LayoutBox>,
    text_boxes: &mut Vec<TextBox>,
    box_rects: &mut Vec<BoxRects>,
    style_rows: &mut StyleRows<'a>,
    in_order: &mut bool,
    s: &DocScratch,
    d: &'a DocumentRecord,
    target: u32,
    styles: &[StyleField],
    ctx: &Ctx,
    strings: &[String],
) -> Result<()> {
    let l = &d.layout;
    let base = layouts.len();
    let mut stacking = vec![false; l.node_index.len()];
    for &i in &l.stacking_contexts.index {
        if i >= 0 && (i as usize) < stacking.len() {
            stacking[i as usize] = true;
        }
    }
    // At most one entry per box that has either list; reserved at once because growing a long
    // page's table step by step makes the allocator sort through every small block freed
    // meanwhile (the accessibility records are being freed on the other thread) at each step.
    let with_rects = l
        .client_rects
        .as_ref()
        .map_or(0, |r| r.len())
        .max(l.scroll_rects.as_ref().map_or(0, |r| r.len()))
        .min(l.node_index.len());
    box_rects.reserve(with_rects);
    for (k, &ni) in l.node_index.iter().enumerate() {
        let node = local_to_model(s, ni, ctx.doc, "layout.nodeIndex")?;
        let style = match l.styles.get(k) {
            Some(vals) => style_rows.id(target, vals, styles, ctx, strings)?,
            None => StyleId::INITIAL,
        };
        let bounds = rect_of(l.bounds.get(k)).unwrap_or_default();
        let text = match l.text.get(k) {
            Some(&t) => ctx.opt_str(t)?,
            None => None,
        };
        let found = BoxRects {
            client: rect_of(l.client_rects.as_ref().and_then(|r| r.get(k))),
            scroll: rect_of(l.scroll_rects.as_ref().and_then(|r| r.get(k))),
        };
        let rects = if found == BoxRects::default() {
            NO_BOX_RECTS
        } else {
            box_rects.push(found);
            box_rects.len() as u32 - 1
        };
        if layouts.last().is_some_and(|b| b.node.index() > node) {
            *in_order = false;
        }
        layouts.push(LayoutBox {
            node: NodeId::new(node as u32),
            bounds,
            paint_order: l
                .paint_orders
                .as_ref()
                .and_then(|p| p.get(k).copied())
                .unwrap_or(0),
            stacking_context: stacking[k],
            style,
            text,
            rects,
            text_boxes_start: 0,
            text_boxes_end: 0,
            next_for_node: None,
        });
    }
    let tb = &d.text_boxes;
    for (k, &li) in tb.layout_index.iter().enumerate() {
        if li < 0 || li as usize >= l.node_index.len() {
            return Err(bad(ctx.doc, "textBoxes.layoutIndex", li));
        }
        let Some(bounds) = rect_of(tb.bounds.get(k)) else {
            continue;
        };
        text_boxes.push(TextBox {
            layout: LayoutId::new((base + li as usize) as u32),
            bounds,
            start: tb
                .start
                .get(k)
                .copied()
                .unwrap_or(0)
                .clamp(0, u32::MAX as i64) as u32,
            length: tb
                .length
                .get(k)
                .copied()
                .unwrap_or(0)
                .clamp(0, u32::MAX as i64) as u32,
        });
    }
    Ok(())
}

/// Orders layout boxes by node (pre-order), so walking nodes walks boxes sequentially, and groups
/// text boxes by layout box.
///
/// The snapshot lists boxes in layout-tree order, which for most pages already is the model's
/// pre-order (`in_order`): then nothing moves. Otherwise each box is copied once into its place.
fn sort_layouts(
    model: &mut Model,
    layouts: Vec<LayoutBox>,
    in_order: bool,
    mut text_boxes: Vec<TextBox>,
) {
    let mut sorted = if in_order {
        layouts
    } else {
        let mut order: Vec<u32> = (0..layouts.len() as u32).collect();
        // Stable: boxes of one node keep their snapshot order.
        order.sort_by_key(|&i| layouts[i as usize].node);
        let mut remap = vec![0u32; layouts.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
        }
        for t in &mut text_boxes {
            t.layout = LayoutId::new(remap[t.layout.index()]);
        }
        order
            .iter()
            .map(|&old| layouts[old as usize].clone())
            .collect()
    };
    if !text_boxes.windows(2).all(|w| w[0].layout <= w[1].layout) {
        text_boxes.sort_by_key(|t| t.layout);
    }
    // One pass over the boxes (on a long page they run to tens of megabytes).
    let mut k = 0usize;
    for i in 0..sorted.len() {
        let node = sorted[i].node;
        let next_of_node = sorted.get(i + 1).is_some_and(|b| b.node == node);
        let b = &mut sorted[i];
        b.text_boxes_start = k as u32;
        while k < text_boxes.len() && text_boxes[k].layout.index() == i {
            k += 1;
        }
        b.text_boxes_end = k as u32;
        if next_of_node {
            b.next_for_node = Some(LayoutId::new(i as u32 + 1));
        }
        let n = &mut model.nodes[node.index()];
        if n.layout.is_none() {
            n.layout = Some(LayoutId::new(i as u32));
        }
    }
    model.layouts = sorted;
    model.text_boxes = text_boxes;
}

fn ax_prop_name(name: &AXPropertyName) -> Option<AxProp> {
    Some(match name {
        AXPropertyName::Busy => AxProp::Busy,
        AXPropertyName::Disabled => AxProp::Disabled,
        AXPropertyName::Editable => AxProp::Editable,
        AXPropertyName::Focusable => AxProp::Focusable,
        AXPropertyName::Focused => AxProp::Focused,
        AXPropertyName::Hidden => AxProp::Hidden,
        AXPropertyName::HiddenRoot => AxProp::HiddenRoot,
        AXPropertyName::Invalid => AxProp::Invalid,
        AXPropertyName::Keyshortcuts => AxProp::Keyshortcuts,
        AXPropertyName::Settable => AxProp::Settable,
        AXPropertyName::Roledescription => AxProp::Roledescription,
        AXPropertyName::Live => AxProp::Live,
        AXPropertyName::Atomic => AxProp::Atomic,
        AXPropertyName::Relevant => AxProp::Relevant,
        AXPropertyName::Root => AxProp::Root,
        AXPropertyName::Autocomplete => AxProp::Autocomplete,
        AXPropertyName::HasPopup => AxProp::HasPopup,
        AXPropertyName::Level => AxProp::Level,
        AXPropertyName::Multiselectable => AxProp::Multiselectable,
        AXPropertyName::Orientation => AxProp::Orientation,
        AXPropertyName::Multiline => AxProp::Multiline,
        AXPropertyName::Readonly => AxProp::Readonly,
        AXPropertyName::Required => AxProp::Required,
        AXPropertyName::Valuemin => AxProp::Valuemin,
        AXPropertyName::Valuemax => AxProp::Valuemax,
        AXPropertyName::Valuetext => AxProp::Valuetext,
        AXPropertyName::Checked => AxProp::Checked,
        AXPropertyName::Expanded => AxProp::Expanded,
        AXPropertyName::Modal => AxProp::Modal,
        AXPropertyName::Pressed => AxProp::Pressed,
        AXPropertyName::Selected => AxProp::Selected,
        AXPropertyName::Activedescendant => AxProp::Activedescendant,
        AXPropertyName::Controls => AxProp::Controls,
        AXPropertyName::Describedby => AxProp::Describedby,
        AXPropertyName::Details => AxProp::Details,
        AXPropertyName::Errormessage => AxProp::Errormessage,
        AXPropertyName::Flowto => AxProp::Flowto,
        AXPropertyName::Labelledby => AxProp::Labelledby,
        AXPropertyName::Owns => AxProp::Owns,
        AXPropertyName::Url => AxProp::Url,
        _ => return None,
    })
}

/// The accessibility trees of a capture in the model's own shapes, read without the DOM part
/// (string, node, property and child ids count from 0 here), so that on a large page this runs
/// while the DOM part is built; [`AxPart::link`] then appends it to the model and ties each
/// node to its DOM node.
#[derive(Default)]
struct AxPart {
    strings: Vec<String>,
    nodes: Vec<AxNode>,
    props: Vec<AxProperty>,
    children: Vec<AxId>,
    roots: Vec<AxId>,
    /// Per tree, its renderer target and the range of `nodes` it filled.
    trees: Vec<(u32, std::ops::Range<usize>)>,
}

/// Interns short, repetitive strings (roles, tokens, property names) added by the AX tree.
#[derive(Default)]
struct Interner {
    map: FxHashMap<String, StrId>,
    /// Strings of the protocol's static tables (every node's role), by address: one
    /// multiplication to find, where hashing and comparing the text cost a tenth of a long
    /// page's reading.
    statics: FxHashMap<(usize, usize), StrId>,
}

impl Interner {
    fn get(&mut self, strings: &mut Vec<String>, s: &str) -> StrId {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = push_to(strings, s.to_string());
        self.map.insert(s.to_string(), id);
        id
    }

    /// [`Interner::get`] for a value, which may be one of the protocol's static strings.
    fn get_value(&mut self, strings: &mut Vec<String>, v: &AxValueRef<'_>, s: &str) -> StrId {
        let Some(text) = v.known_role() else {
            return self.get(strings, s);
        };
        // Address and length: one static string may be the start of another.
        let key = (text.as_ptr() as usize, text.len());
        match self.statics.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.get(strings, text);
                self.statics.insert(key, id);
                id
            }
        }
    }
}

fn push_to(strings: &mut Vec<String>, s: String) -> StrId {
    strings.push(s);
    StrId::new(strings.len() as u32 - 1)
}

fn ax_value(
    strings: &mut Vec<String>,
    interner: &mut Interner,
    v: AxValueRef<'_>,
    intern_it: bool,
) -> AxValue {
    match (v.type_(), v.scalar()) {
        (AXValueType::Tristate, AxScalar::Str(s)) => match s {
            "true" => AxValue::Bool(true),
            "false" => AxValue::Bool(false),
            "mixed" => AxValue::Mixed,
            _ => AxValue::Other,
        },
        (_, AxScalar::Bool(b)) => AxValue::Bool(b),
        (_, AxScalar::Number(n)) => n.as_f64().map(AxValue::Number).unwrap_or(AxValue::Other),
        (
            AXValueType::Idref
            | AXValueType::IdrefList
            | AXValueType::Node
            | AXValueType::NodeList
            | AXValueType::DomRelation,
            _,
        ) => AxValue::Other,
        (_, AxScalar::Str(s)) => {
            if intern_it {
                AxValue::Str(interner.get_value(strings, &v, s))
            } else {
                AxValue::Str(push_to(strings, s.to_owned()))
            }
        }
        _ => AxValue::Other,
    }
}

fn ax_string(
    strings: &mut Vec<String>,
    interner: &mut Interner,
    v: Option<AxValueRef<'_>>,
    intern_it: bool,
) -> Option<StrId> {
    let v = v?;
    match v.scalar() {
        AxScalar::Str(s) => Some(if intern_it {
            interner.get_value(strings, &v, s)
        } else {
            push_to(strings, s.to_owned())
        }),
        AxScalar::Number(n) => Some(push_to(strings, n.to_string())),
        _ => None,
    }
}

/// Reads the nodes of one accessibility tree into [`AxPart`], one node at a time.
struct TreeReader<'a, 't> {
    /// The [`AxId`] of the tree's first node.
    base: usize,
    /// The frame the tree was asked for (a node may name its own).
    frame: Option<StrId>,
    ids: AxKeyIndex<'t>,
    interner: Interner,
    part: &'a mut AxPart,
}

impl TreeReader<'_, '_> {
    /// The model's node of `n`.
    fn node(&mut self, n: AxNodeRef<'_>) -> AxNode {
        let part = &mut *self.part;
        let strings = &mut part.strings;
        let interner = &mut self.interner;
        let id = AxId::new((self.base + n.index()) as u32);
        let role = ax_string(strings, interner, n.role(), true);
        // An empty name or description is no name: nothing is kept for it.
        let name = ax_string(strings, interner, n.name().filter(|v| !is_empty(v)), false);
        let description = ax_string(
            strings,
            interner,
            n.description().filter(|v| !is_empty(v)),
            false,
        );
        let value = n.value().map(|v| ax_value(strings, interner, v, false));
        let props_start = part.props.len() as u32;
        for p in n.properties() {
            let name = match ax_prop_name(p.name) {
                Some(name) => name,
                None => AxProp::Other(interner.get(strings, p.name.as_str())),
            };
            let value = ax_value(strings, interner, p.value, true);
            part.props.push(AxProperty { name, value });
        }
        let props_end = part.props.len() as u32;
        let frame_id = n
            .frame_id()
            .map(|f| interner.get(strings, f))
            .or(self.frame);
        let parent = n.parent_id().and_then(|p| self.ids.get(p));
        let children_start = part.children.len() as u32;
        for c in n.child_ids() {
            if let Some(cid) = self.ids.get(c) {
                if cid != id {
                    part.children.push(cid);
                }
            }
        }
        let children_end = part.children.len() as u32;
        if parent.is_none() {
            part.roots.push(id);
        }
        AxNode {
            ignored: n.ignored(),
            role,
            name,
            description,
            value,
            props_start,
            props_end,
            parent,
            children_start,
            children_end,
            // Tied to the DOM in `link`.
            node: None,
            backend_dom_node_id: n.backend_dom_node_id(),
            frame_id,
        }
    }
}

/// Whether a value is the empty string.
fn is_empty(v: &AxValueRef<'_>) -> bool {
    matches!(v.scalar(), AxScalar::Str(""))
}

/// AX node id -> [`AxId`] for one tree. Chromium numbers the nodes of a tree with small
/// non-negative integers, and the nodes it makes up (inline text boxes and the like) with
/// negative ones counting down from a large negative number: each run is looked up in a dense
/// table, any other id (far from the rest, or not a number) in a hash map.
struct AxKeyIndex<'t> {
    /// Ids `0..up.len()`.
    up: Vec<u32>,
    /// Ids `down_top - k` for `k` in `0..down.len()`.
    down: Vec<u32>,
    down_top: i64,
    sparse: FxHashMap<i64, AxId>,
    texts: FxHashMap<&'t str, AxId>,
}

impl<'t> AxKeyIndex<'t> {
    /// The index of one tree's nodes, numbered from `base`, and how many properties and child
    /// ids the nodes hold.
    fn build(nodes: &'t AxNodes, base: usize) -> (AxKeyIndex<'t>, usize, usize) {
        // Each table holds at most a few times the tree's size, so a hostile id cannot make it
        // large.
        let limit = nodes.len().saturating_mul(4).max(64) as i64;
        let (mut up_len, mut down_top, mut down_bottom) = (0i64, i64::MIN, 0i64);
        let (mut nprops, mut nchildren) = (0usize, 0usize);
        let mut index = AxKeyIndex {
            up: Vec::new(),
            down: Vec::new(),
            down_top: i64::MIN,
            sparse: FxHashMap::default(),
            texts: FxHashMap::default(),
        };
        for (k, n) in nodes.iter().enumerate() {
            nprops += n.properties().len();
            nchildren += n.child_count();
            match n.node_id() {
                AxKeyRef::Int(i) => {
                    if (0..limit).contains(&i) {
                        up_len = up_len.max(i + 1);
                    } else if i < 0 {
                        down_top = down_top.max(i);
                        down_bottom = down_bottom.min(i);
                    }
                }
                AxKeyRef::Text(t) => {
                    index.texts.insert(t, AxId::new((base + k) as u32));
                }
            }
        }
        let down_len = if down_top == i64::MIN {
            0
        } else {
            down_top
                .saturating_sub(down_bottom)
                .saturating_add(1)
                .min(limit)
        };
        index.up = vec![NONE; up_len as usize];
        index.down = vec![NONE; down_len as usize];
        index.down_top = down_top;
        // The ids read again from the tree's compact rows, cheaper than keeping a list of them.
        for (k, n) in nodes.iter().enumerate() {
            if let AxKeyRef::Int(i) = n.node_id() {
                index.insert(AxKeyRef::Int(i), AxId::new((base + k) as u32));
            }
        }
        (index, nprops, nchildren)
    }

    fn slot(&mut self, i: i64) -> Option<&mut u32> {
        if i >= 0 {
            return self.up.get_mut(usize::try_from(i).ok()?);
        }
        let k = self.down_top.checked_sub(i)?;
        self.down.get_mut(usize::try_from(k).ok()?)
    }

    /// Records `key -> id` (when two nodes share an id, the later one wins).
    fn insert(&mut self, key: AxKeyRef<'t>, id: AxId) {
        match key {
            AxKeyRef::Int(i) => match self.slot(i) {
                Some(slot) => *slot = id.get(),
                None => {
                    self.sparse.insert(i, id);
                }
            },
            AxKeyRef::Text(t) => {
                self.texts.insert(t, id);
            }
        }
    }

    fn get(&mut self, key: AxKeyRef<'_>) -> Option<AxId> {
        match key {
            AxKeyRef::Int(i) => match self.slot(i) {
                Some(slot) => (*slot != NONE).then(|| AxId::new(*slot)),
                None => self.sparse.get(&i).copied(),
            },
            AxKeyRef::Text(t) => self.texts.get(t).copied(),
        }
    }
}

impl AxPart {
    /// Reads `trees` (each with its renderer target), in order.
    fn read(trees: Vec<(u32, AxTreeCapture)>) -> AxPart {
        let mut part = AxPart::default();
        for (target, tree) in trees {
            part.read_tree(target, tree);
        }
        part
    }

    fn read_tree(&mut self, target: u32, tree: AxTreeCapture) {
        let AxTreeCapture { frame_id, nodes } = tree;
        let mut interner = Interner::default();
        let frame = Some(interner.get(&mut self.strings, &frame_id));
        let base = self.nodes.len();
        let (ids, nprops, nchildren) = AxKeyIndex::build(&nodes, base);
        let large = nodes.len() >= crate::parallel::LARGE_PAGE_NODES;
        self.props.reserve(nprops);
        self.children.reserve(nchildren);
        self.strings.reserve(nodes.len());
        self.nodes.reserve(nodes.len());
        let mut reader = TreeReader {
            base,
            frame,
            ids,
            interner,
            part: self,
        };
        for n in nodes.iter() {
            let node = reader.node(n);
            reader.part.nodes.push(node);
        }
        self.trees.push((target, base..self.nodes.len()));
        // A long page's tree is a few large tables: given back to the system on another
        // thread while the model is linked.
        crate::parallel::drop_aside(nodes, large);
    }

    /// Appends the trees to `model` (whose DOM part is built), moving every id past what the
    /// model holds, and ties each accessibility node to its DOM node.
    fn link(self, model: &mut Model) {
        let AxPart {
            strings,
            mut nodes,
            mut props,
            mut children,
            roots,
            trees,
        } = self;
        let s0 = model.strings.len() as u32;
        let a0 = model.ax_nodes.len() as u32;
        let (p0, c0) = (model.ax_props.len() as u32, model.ax_children.len() as u32);
        let str_id = |s: StrId| StrId::new(s.get() + s0);
        let ax_id = |a: AxId| AxId::new(a.get() + a0);
        let value = |v: AxValue| match v {
            AxValue::Str(s) => AxValue::Str(str_id(s)),
            other => other,
        };
        model.strings.extend(strings);
        for p in &mut props {
            if let AxProp::Other(s) = p.name {
                p.name = AxProp::Other(str_id(s));
            }
            p.value = value(p.value);
        }
        for c in &mut children {
            *c = ax_id(*c);
        }
        for (target, range) in trees {
            for k in range {
                let n = &mut nodes[k];
                n.role = n.role.map(str_id);
                n.name = n.name.map(str_id);
                n.description = n.description.map(str_id);
                n.value = n.value.map(value);
                n.frame_id = n.frame_id.map(str_id);
                n.parent = n.parent.map(ax_id);
                n.props_start += p0;
                n.props_end += p0;
                n.children_start += c0;
                n.children_end += c0;
                n.node = n
                    .backend_dom_node_id
                    .and_then(|b| model.node_by_target_backend_id(target, b));
                let (Some(dom), ignored) = (n.node, n.ignored) else {
                    continue;
                };
                // A DOM node named by several accessibility nodes keeps the first one exposed
                // to assistive technology (else the first one).
                let replace = match model.nodes[dom.index()].ax {
                    None => true,
                    Some(prev) => {
                        let prev_ignored = match prev.get().checked_sub(a0) {
                            Some(local) => nodes.get(local as usize).is_some_and(|n| n.ignored),
                            None => model.ax_nodes.get(prev.index()).is_some_and(|n| n.ignored),
                        };
                        prev_ignored && !ignored
                    }
                };
                if replace {
                    model.nodes[dom.index()].ax = Some(AxId::new(k as u32 + a0));
                }
            }
        }
        append(&mut model.ax_nodes, nodes);
        append(&mut model.ax_props, props);
        append(&mut model.ax_children, children);
        model.ax_roots.extend(roots.into_iter().map(ax_id));
    }
}

/// Appends `more` to `to`, taking `more` itself when `to` is empty (as it is when a model gets
/// its accessibility trees): a long page's lists run to tens of megabytes, not worth a copy.
fn append<T>(to: &mut Vec<T>, mut more: Vec<T>) {
    if to.is_empty() {
        std::mem::swap(to, &mut more);
    } else {
        to.append(&mut more);
    }
}

#[cfg(test)]
mod ax_key_index_tests {
    use super::*;
    use crate::capture::AxNodeKey;

    #[test]
    fn finds_every_kind_of_id_and_only_those() {
        let ids = [
            "0",
            "7",
            "-1000000003",
            "-1000000001",
            "x",
            "999999999",
            "-5",
        ];
        let list: Vec<String> = ids
            .iter()
            .map(|id| format!(r#"{{"nodeId":"{id}","properties":[{{"name":"busy","value":{{"type":"boolean","value":false}}}}],"childIds":["0","x"]}}"#))
            .collect();
        let nodes: AxNodes = serde_json::from_str(&format!("[{}]", list.join(","))).unwrap();
        let (mut index, nprops, nchildren) = AxKeyIndex::build(&nodes, 10);
        assert_eq!((nprops, nchildren), (ids.len(), 2 * ids.len()));
        for (k, id) in ids.iter().enumerate() {
            assert_eq!(
                index.get(AxNodeKey::new(id).as_key_ref()),
                Some(AxId::new(k as u32 + 10)),
                "{id}"
            );
        }
        for missing in ["1", "-1000000002", "-1000000000", "y", "-6", "64"] {
            assert_eq!(
                index.get(AxNodeKey::new(missing).as_key_ref()),
                None,
                "{missing}"
            );
        }
        index.insert(AxKeyRef::Int(7), AxId::new(40));
        assert_eq!(
            index.get(AxKeyRef::Int(7)),
            Some(AxId::new(40)),
            "the later node wins"
        );
    }
}
