//! Building a [`Model`] from a [`Capture`]: stitching documents into one flat pre-order arena,
//! parsing layout and styles (`layout.rs`), and linking the accessibility tree (`ax.rs`).
//!
//! Everything the page controls is checked: an index out of range, a cycle in `parentIndex` or in
//! `contentDocumentIndex` is an `INVALID_ARGUMENT` error naming the document and the field, never
//! a panic. Arrays shorter than `parentIndex` are tolerated (missing entries read as "absent").

mod ax;
mod layout;

use self::ax::{take_ax_trees, AxPart};
use self::layout::LayoutTables;
use super::style::{StyleField, StylesPresent};
use super::{
    Attr, DocId, Document, Model, Node, NodeFlags, NodeId, NodeKind, PageMetrics, PseudoKind,
    RareStrings, StrId,
};
use crate::capture::{Capture, DocumentRecord, DomSnapshot};
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
        let loaders = frame_loaders(capture);
        let targets = read_targets(&mut model, capture, strings)?;
        let mut docs = Scratch::new(&targets, limits)?;
        docs.link_child_documents(&targets)?;
        docs.link_out_of_process_frames(&targets);
        let order = stitch(&mut model, &mut docs)?;
        read_documents(&mut model, &docs.docs, &order, &targets, &loaders)?;
        index_backend_ids(&mut model, capture);
        Ok(model)
    }
}

/// Frame id -> loader id, of the page's frame tree and of every out-of-process frame's own.
fn frame_loaders(capture: &Capture) -> FxHashMap<String, String> {
    let mut loaders: FxHashMap<String, String> = FxHashMap::default();
    if let Some(tree) = &capture.frame_tree {
        collect_loaders(tree, &mut loaders, 0);
    }
    for o in &capture.oopifs {
        // An out-of-process frame's loader ids come from its own session's frame tree.
        if let Some(tree) = &o.frame_tree {
            collect_loaders(tree, &mut loaders, 0);
        }
    }
    loaders
}

/// The renderer targets of the capture (the page, then each out-of-process frame), their
/// string tables moved into the model's and the styles they asked for; the model learns which
/// styles were asked for at all.
fn read_targets<'c>(
    model: &mut Model,
    capture: &'c Capture,
    strings: Vec<Vec<String>>,
) -> Result<Vec<TargetInput<'c>>> {
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
    Ok(targets)
}

/// The per-document scratch data of every target's documents, in (target, index) order.
struct Scratch {
    docs: Vec<DocScratch>,
    /// Where each target's documents start in `docs`.
    first_doc_of_target: Vec<u32>,
    /// Nodes over all documents.
    total_nodes: usize,
}

impl Scratch {
    /// Each document's children lists; an error past `limits`.
    fn new(targets: &[TargetInput<'_>], limits: ModelLimits) -> Result<Scratch> {
        let mut docs: Vec<DocScratch> = Vec::new();
        let mut first_doc_of_target = Vec::with_capacity(targets.len());
        let mut total_nodes = 0usize;
        for (ti, t) in targets.iter().enumerate() {
            first_doc_of_target.push(docs.len() as u32);
            for (di, d) in t.snapshot.documents.iter().enumerate() {
                let s = doc_scratch(ti as u32, di, d)?;
                total_nodes += s.map.len();
                docs.push(s);
            }
        }
        if total_nodes > limits.max_nodes {
            return Err(Error::invalid_argument(format!(
                "the capture has {total_nodes} nodes, more than the limit of {}",
                limits.max_nodes
            )));
        }
        Ok(Scratch {
            docs,
            first_doc_of_target,
            total_nodes,
        })
    }

    /// Same-process child documents: each `contentDocumentIndex` entry, checked.
    fn link_child_documents(&mut self, targets: &[TargetInput<'_>]) -> Result<()> {
        let first_doc_of_target = &self.first_doc_of_target;
        for sc in self.docs.iter_mut() {
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
        Ok(())
    }

    /// Out-of-process iframes: their first document goes under the owner element.
    fn link_out_of_process_frames(&mut self, targets: &[TargetInput<'_>]) {
        let first_doc_of_target = &self.first_doc_of_target;
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
                        self.docs[si]
                            .content_docs
                            .insert(pos as u32, first_doc_of_target[ti]);
                        break 'docs;
                    }
                }
            }
        }
    }
}

/// Walks the stitched tree in pre-order, pushing one node per reached snapshot node (its data
/// read later), and returns the documents in the order they were reached. A node reached twice
/// or never is a cycle in `nodes.parentIndex`: an error.
fn stitch(model: &mut Model, docs: &mut Scratch) -> Result<Vec<u32>> {
    model.nodes.reserve(docs.total_nodes);
    let scratch = &mut docs.docs;
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
    for s in scratch.iter() {
        if let Some(local) = s.map.iter().position(|&m| m == NONE) {
            return Err(Error::invalid_argument(format!(
                "document {} of the capture: node {local} is not reachable from a root (cycle in nodes.parentIndex)",
                s.index
            )));
        }
    }
    set_subtree_ends(model);
    Ok(order)
}

/// Each node's subtree end, from its children's (children follow their parent).
fn set_subtree_ends(model: &mut Model) {
    for i in (0..model.nodes.len()).rev() {
        if let Some(p) = model.nodes[i].parent {
            let end = model.nodes[i].subtree_end;
            let pe = &mut model.nodes[p.index()].subtree_end;
            if end > *pe {
                *pe = end;
            }
        }
    }
}

/// Node data, documents, layout, document by document in the order they were reached.
fn read_documents(
    model: &mut Model,
    scratch: &[DocScratch],
    order: &[u32],
    targets: &[TargetInput<'_>],
    loaders: &FxHashMap<String, String>,
) -> Result<()> {
    let empty = push_string(model, String::new());
    let mut lower_tags: FxHashMap<u32, StrId> = FxHashMap::default();
    let (mut nlayouts, mut ntext_boxes, mut nattrs) = (0usize, 0usize, 0usize);
    for &sd in order {
        let s = &scratch[sd as usize];
        let d = &targets[s.target as usize].snapshot.documents[s.index];
        nlayouts += d.layout.node_index.len();
        ntext_boxes += d.text_boxes.layout_index.len();
        if let Some(a) = &d.nodes.attributes {
            nattrs += a.rows().map(|row| row.len() / 2).sum::<usize>();
        }
    }
    model.attrs.reserve(nattrs);
    let mut tables = LayoutTables::with_capacity(nlayouts, ntext_boxes);
    model.docs = Vec::with_capacity(order.len());
    for &sd in order {
        let s = &scratch[sd as usize];
        let t = &targets[s.target as usize];
        let d = &t.snapshot.documents[s.index];
        let ctx = Ctx {
            strings: t.str_base,
            nstrings: model.strings.len() as u32,
            doc: s.index,
        };
        read_nodes(model, s, d, &ctx, &mut lower_tags, empty)?;
        let root = NodeId::new(s.map.first().copied().unwrap_or(0));
        let owner = model.nodes[root.index()].parent;
        let frame_id = ctx.opt_str(d.frame_id)?.or_else(|| {
            // An out-of-process frame's snapshot may not name its frame.
            t.frame_id.map(|f| intern(model, f))
        });
        let loader_id = frame_id
            .and_then(|f| loaders.get(model.str(f)).cloned())
            .map(|l| push_string(model, l));
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
        tables.read_document(
            &mut model.box_rects,
            s,
            d,
            s.target,
            &t.styles,
            &ctx,
            &model.strings,
        )?;
    }
    tables.finish(model);
    merge_rare_strings(&mut model.rare);
    Ok(())
}

/// The `(target, backendNodeId) -> node` index, and the frames the capture could not take,
/// by their owner nodes.
fn index_backend_ids(model: &mut Model, capture: &Capture) {
    let by_backend = super::backend_index::BackendIndex::build(model.nodes.iter().map(|n| {
        (
            model.docs[n.doc.index()].target,
            i64::from(n.backend_node_id),
        )
    }));
    *model.by_backend_mut() = by_backend;
    for u in &capture.uncaptured_frames {
        if let Some(node) = model.node_by_target_backend_id(u.owner_target, u.owner_backend_node_id)
        {
            model.uncaptured_frames.push((node, u.reason.clone()));
        }
    }
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
    // Where the next child of each node goes.
    let mut next = child_start.clone();
    let mut children = vec![0u32; child_start[n] as usize];
    for (i, &p) in parents.iter().enumerate() {
        if p >= 0 {
            let slot = &mut next[p as usize];
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

/// Reads one document's node data into the nodes the walk pushed for it: kind, names, value,
/// backend id, attributes, rare strings and flags.
fn read_nodes(
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
