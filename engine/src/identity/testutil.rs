//! Hand-made models for the unit tests of identity and the renderers: a tiny builder for DOM + AX
//! trees with facts, and a stand-in uid source.

use rustc_hash::FxHashSet;

use super::{Uid, UidSource};
use crate::analysis::{
    analyze, Analysis, AnalysisOptions, ClickFacts, Expand, NodeFacts, Rect, ScrollInfo,
};
use crate::model::{
    Attr, AxId, AxNode, AxProp, AxProperty, AxValue, Display, DocId, Document, LayoutBox, LayoutId,
    Model, Node, NodeFlags, NodeId, NodeKind, StrId, Style, StyleId,
};

/// Uids `1_<node index>` for DOM nodes, `1_<1000 + ax index>` for AX-only nodes.
pub struct TestUids {
    pub snapshot: u32,
    pub new: FxHashSet<u32>,
    pub ax_dom: Vec<Option<NodeId>>,
}

impl UidSource for TestUids {
    fn dom(&self, node: NodeId) -> Option<Uid> {
        Some(Uid {
            snapshot: self.snapshot,
            n: node.get(),
        })
    }
    fn ax(&self, ax: AxId) -> Option<Uid> {
        match self.ax_dom.get(ax.index()).copied().flatten() {
            Some(d) => self.dom(d),
            None => Some(Uid {
                snapshot: self.snapshot,
                n: 1000 + ax.get(),
            }),
        }
    }
    fn is_new(&self, uid: Uid) -> bool {
        uid.snapshot == self.snapshot && self.new.contains(&uid.n)
    }
    fn snapshot(&self) -> u32 {
        self.snapshot
    }
}

/// Builds a model in pre-order: add a node's children right after it.
pub struct Builder {
    pub m: Model,
    pub facts: Vec<NodeFacts>,
    /// Hand-set scroll states (see [`Builder::scroll`]).
    scrolls: Vec<(NodeId, ScrollInfo)>,
    clicks: Vec<(NodeId, ClickFacts)>,
    ax_kids: Vec<Vec<AxId>>,
    ax_props: Vec<Vec<AxProperty>>,
    pub expand: Expand,
}

impl Builder {
    /// A document with `<html><body>`; returns the builder and the body.
    pub fn page(title: &str) -> (Builder, NodeId, AxId) {
        let mut m = Model::default();
        m.url = "http://test/".into();
        m.title = title.into();
        let mut b = Builder {
            m,
            facts: Vec::new(),
            scrolls: Vec::new(),
            clicks: Vec::new(),
            ax_kids: Vec::new(),
            ax_props: Vec::new(),
            expand: Expand::Viewport,
        };
        let frame = b.s("FRAME1");
        let url = b.s("http://test/");
        b.m.docs.push(Document {
            root: NodeId::new(0),
            owner: None,
            frame_id: Some(frame),
            url: Some(url),
            base_url: Some(url),
            title: None,
            loader_id: None,
            target: 0,
            scroll_x: 0.0,
            scroll_y: 0.0,
            content_width: 1000.0,
            content_height: 800.0,
        });
        let doc = b.node(None, NodeKind::Document, "#document", None, &[]);
        let root_ax = b.ax(
            Some(doc),
            None,
            "RootWebArea",
            title,
            &[(AxProp::Focusable, AxValue::Bool(true))],
        );
        let html = b.el(doc, "html", &[]);
        let body = b.el(html, "body", &[]);
        let html_ax = b.ax(Some(html), Some(root_ax), "none", "", &[]);
        b.m.ax_nodes[html_ax.index()].ignored = true;
        let body_ax = b.ax(Some(body), Some(html_ax), "generic", "", &[]);
        b.m.ax_nodes[body_ax.index()].ignored = true;
        (b, body, body_ax)
    }

    pub fn s(&mut self, s: &str) -> StrId {
        self.m.strings.push(s.to_string());
        StrId::new(self.m.strings.len() as u32 - 1)
    }

    fn node(
        &mut self,
        parent: Option<NodeId>,
        kind: NodeKind,
        name: &str,
        value: Option<&str>,
        attrs: &[(&str, &str)],
    ) -> NodeId {
        let id = NodeId::new(self.m.nodes.len() as u32);
        let name_id = self.s(name);
        let tag = if kind == NodeKind::Element {
            self.s(&name.to_ascii_lowercase())
        } else {
            name_id
        };
        let value = value.map(|v| self.s(v));
        let start = self.m.attrs.len() as u32;
        for (k, v) in attrs {
            let a = Attr {
                name: self.s(k),
                value: self.s(v),
            };
            self.m.attrs.push(a);
        }
        let depth = parent.map(|p| self.m.node(p).depth + 1).unwrap_or(0);
        self.m.nodes.push(Node {
            kind,
            doc: DocId::new(0),
            parent,
            subtree_end: NodeId::new(id.get() + 1),
            depth,
            backend_node_id: id.get() as i32 + 1,
            name: name_id,
            tag,
            value,
            attrs_start: start,
            attrs_end: self.m.attrs.len() as u32,
            layout: None,
            pseudo: None,
            flags: NodeFlags::default(),
            content_document: None,
            ax: None,
        });
        // Visible and in the viewport unless a test says otherwise.
        let mut facts = NodeFacts::default();
        facts.in_viewport = true;
        facts.set_bounds(Some(Rect::new(0.0, 0.0, 10.0, 10.0)));
        facts.set_visible_rect(Some(Rect::new(0.0, 0.0, 10.0, 10.0)));
        self.facts.push(facts);
        let mut p = parent;
        while let Some(pp) = p {
            self.m.nodes[pp.index()].subtree_end = NodeId::new(id.get() + 1);
            p = self.m.nodes[pp.index()].parent;
        }
        id
    }

    pub fn el(&mut self, parent: NodeId, tag: &str, attrs: &[(&str, &str)]) -> NodeId {
        self.node(
            Some(parent),
            NodeKind::Element,
            &tag.to_ascii_uppercase(),
            None,
            attrs,
        )
    }

    pub fn text(&mut self, parent: NodeId, text: &str) -> NodeId {
        self.node(Some(parent), NodeKind::Text, "#text", Some(text), &[])
    }

    /// Adds an AX node (for DOM node `dom`) under `parent`.
    pub fn ax(
        &mut self,
        dom: Option<NodeId>,
        parent: Option<AxId>,
        role: &str,
        name: &str,
        props: &[(AxProp, AxValue)],
    ) -> AxId {
        let id = AxId::new(self.m.ax_nodes.len() as u32);
        let role = self.s(role);
        let name = (!name.is_empty()).then(|| self.s(name));
        self.m.ax_nodes.push(AxNode {
            ignored: false,
            role: Some(role),
            name,
            description: None,
            value: None,
            props_start: 0,
            props_end: 0,
            parent,
            children_start: 0,
            children_end: 0,
            node: dom,
            backend_dom_node_id: dom.map(|d| d.get() as i64 + 1),
            frame_id: None,
        });
        self.ax_kids.push(Vec::new());
        self.ax_props.push(
            props
                .iter()
                .map(|&(name, value)| AxProperty { name, value })
                .collect(),
        );
        if let Some(p) = parent {
            self.ax_kids[p.index()].push(id);
        } else {
            self.m.ax_roots.push(id);
        }
        if let Some(d) = dom {
            self.m.nodes[d.index()].ax = Some(id);
        }
        id
    }

    /// An element with its AX node and (optionally) a text child with a StaticText node.
    #[allow(clippy::too_many_arguments)]
    pub fn control(
        &mut self,
        parent: NodeId,
        parent_ax: AxId,
        tag: &str,
        attrs: &[(&str, &str)],
        role: &str,
        name: &str,
        props: &[(AxProp, AxValue)],
        text: Option<&str>,
    ) -> (NodeId, AxId) {
        let e = self.el(parent, tag, attrs);
        let a = self.ax(Some(e), Some(parent_ax), role, name, props);
        if let Some(t) = text {
            let tn = self.text(e, t);
            self.ax(Some(tn), Some(a), "StaticText", t, &[]);
        }
        (e, a)
    }

    /// Gives an element a block box (so free text inside it is a line of its own).
    pub fn block(&mut self, n: NodeId) {
        let id = LayoutId::new(self.m.layouts.len() as u32);
        if self.m.styles.is_empty() {
            self.m.styles.push(Style::INITIAL);
        }
        let block = Style {
            display: Display::Block,
            ..Style::INITIAL
        };
        let style = match self.m.styles.iter().position(|s| *s == block) {
            Some(k) => StyleId::new(k as u32),
            None => {
                self.m.styles.push(block);
                StyleId::new(self.m.styles.len() as u32 - 1)
            }
        };
        self.m.layouts.push(LayoutBox {
            node: n,
            bounds: Rect::new(0.0, 0.0, 10.0, 10.0),
            paint_order: 0,
            stacking_context: false,
            style,
            text: None,
            rects: crate::model::NO_BOX_RECTS,
            text_boxes_start: 0,
            text_boxes_end: 0,
            next_for_node: None,
        });
        self.m.nodes[n.index()].layout = Some(id);
    }

    pub fn set_value(&mut self, ax: AxId, value: &str) {
        let v = self.s(value);
        self.m.ax_nodes[ax.index()].value = Some(AxValue::Str(v));
    }

    pub fn fact(&mut self, n: NodeId) -> &mut NodeFacts {
        &mut self.facts[n.index()]
    }

    /// The click facts of a node (empty until a test sets them).
    pub fn click(&mut self, n: NodeId) -> &mut ClickFacts {
        let k = match self.clicks.iter().position(|(m, _)| *m == n) {
            Some(k) => k,
            None => {
                self.clicks.push((n, ClickFacts::default()));
                self.clicks.len() - 1
            }
        };
        &mut self.clicks[k].1
    }

    /// Sets how a node scrolls.
    pub fn scroll(&mut self, n: NodeId, info: ScrollInfo) {
        self.scrolls.retain(|(m, _)| *m != n);
        self.scrolls.push((n, info));
    }

    /// Finishes the model and an analysis carrying the hand-set facts.
    pub fn finish(mut self) -> (Model, Analysis, TestUids) {
        for (i, kids) in self.ax_kids.iter().enumerate() {
            let start = self.m.ax_children.len() as u32;
            self.m.ax_children.extend(kids.iter().copied());
            self.m.ax_nodes[i].children_start = start;
            self.m.ax_nodes[i].children_end = self.m.ax_children.len() as u32;
            let pstart = self.m.ax_props.len() as u32;
            self.m.ax_props.extend(self.ax_props[i].iter().copied());
            self.m.ax_nodes[i].props_start = pstart;
            self.m.ax_nodes[i].props_end = self.m.ax_props.len() as u32;
        }
        self.m.metrics.viewport_width = 1000.0;
        self.m.metrics.viewport_height = 800.0;
        self.m.metrics.content_width = 1000.0;
        self.m.metrics.content_height = 800.0;
        self.m.metrics.device_pixel_ratio = 1.0;
        let mut analysis = analyze(
            &self.m,
            &AnalysisOptions {
                expand: self.expand,
            },
        );
        analysis.nodes = self.facts;
        self.clicks.sort_by_key(|(n, _)| *n);
        analysis.clicks = self.clicks;
        self.scrolls.sort_by_key(|(n, _)| *n);
        analysis.scrolls = self.scrolls;
        let uids = TestUids {
            snapshot: 1,
            new: FxHashSet::default(),
            ax_dom: self.m.ax_nodes.iter().map(|a| a.node).collect(),
        };
        (self.m, analysis, uids)
    }
}
