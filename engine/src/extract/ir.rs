//! The chosen content as a small document tree: blocks (headings, paragraphs, lists, code,
//! quotes, tables) of inline runs (text, emphasis, code, links, images, breaks).
//!
//! Why a tree of its own: markdown and plain text are two writings of the same structure, and
//! escaping is only correct when it is done once, at the end, knowing what every piece of text
//! is. The tree is built from the DOM as Chromium laid it out: what is a block is the box's
//! `display`, not its tag, and only what [`super::prep`] found readable is read.

use super::prep::{is_block, text_of, Prep};
use super::url::resolve;
use crate::analysis::Analysis;
use crate::model::{Model, NodeId, NodeKind};

/// Nesting deeper than this is read as plain text (a page cannot make the walk overflow).
const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Inline {
    Text(String),
    Emph(Vec<Inline>),
    Strong(Vec<Inline>),
    Code(String),
    Link { url: String, kids: Vec<Inline> },
    Image { alt: String, url: String },
    Break,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Heading(u8, Vec<Inline>),
    Para(Vec<Inline>),
    List {
        ordered: bool,
        start: u32,
        items: Vec<Vec<Block>>,
    },
    Code {
        lang: Option<String>,
        text: String,
    },
    Quote(Vec<Block>),
    /// A regular table: the first row is the header.
    Table(Vec<Vec<Vec<Inline>>>),
    Rule,
}

/// The blocks of a flow, with the element each top-level block came from.
#[derive(Default)]
struct Flow {
    blocks: Vec<(NodeId, Block)>,
    inl: Vec<Inline>,
    owner: Option<NodeId>,
}

impl Flow {
    fn new(owner: NodeId) -> Flow {
        Flow {
            owner: Some(owner),
            ..Flow::default()
        }
    }

    fn flush(&mut self) {
        if has_content(&self.inl) {
            let inl = std::mem::take(&mut self.inl);
            self.push_block(Block::Para(inl));
        } else {
            self.inl.clear();
        }
    }

    fn push_block(&mut self, b: Block) {
        let owner = self.owner.unwrap_or(NodeId::new(0));
        self.blocks.push((owner, b));
    }
}

/// Whether inlines hold anything but whitespace and breaks.
pub(crate) fn has_content(inl: &[Inline]) -> bool {
    inl.iter().any(|i| match i {
        Inline::Text(t) => !t.trim().is_empty(),
        Inline::Emph(k) | Inline::Strong(k) => has_content(k),
        Inline::Link { kids, .. } => has_content(kids),
        Inline::Code(c) => !c.trim().is_empty(),
        Inline::Image { .. } => true,
        Inline::Break => false,
    })
}

/// Reads the DOM into blocks.
pub(crate) struct Builder<'a> {
    pub model: &'a Model,
    pub analysis: &'a Analysis,
    pub prep: &'a Prep,
    pub dropped: &'a [bool],
    /// Nodes read elsewhere (the title heading).
    pub skip: &'a [NodeId],
}

impl Builder<'_> {
    fn keep(&self, id: NodeId) -> bool {
        let i = id.index();
        self.prep.shown[i] && !self.dropped[i] && !self.skip.contains(&id)
    }

    /// The blocks of the subtrees of `roots`, each with the element it came from.
    pub fn build(&self, roots: &[NodeId]) -> Vec<(NodeId, Block)> {
        let mut out = Vec::new();
        for &r in roots {
            let mut flow = Flow::new(r);
            self.node(r, &mut flow, 0);
            flow.flush();
            out.append(&mut flow.blocks);
        }
        out
    }

    fn children(&self, id: NodeId, flow: &mut Flow, depth: usize) {
        for c in self.model.children(id) {
            self.node(c, flow, depth + 1);
        }
    }

    /// The inlines of an element's content, or `None` when it holds blocks (which are then
    /// added to `flow` as they are).
    fn inlines(&self, id: NodeId, flow: &mut Flow, depth: usize) -> Option<Vec<Inline>> {
        let mut sub = Flow::new(flow.owner.unwrap_or(id));
        self.children(id, &mut sub, depth);
        if sub.blocks.is_empty() {
            return Some(sub.inl);
        }
        flow.flush();
        sub.flush();
        flow.blocks.append(&mut sub.blocks);
        None
    }

    fn node(&self, id: NodeId, flow: &mut Flow, depth: usize) {
        if !self.keep(id) {
            return;
        }
        let model = self.model;
        let node = model.node(id);
        match node.kind {
            NodeKind::Text => {
                let t = text_of(model, id);
                let mut s = String::with_capacity(t.len());
                let mut space = false;
                for c in t.chars() {
                    if c.is_whitespace() {
                        space = true;
                    } else {
                        if space {
                            s.push(' ');
                        }
                        space = false;
                        s.push(c);
                    }
                }
                if space {
                    s.push(' ');
                }
                if !s.is_empty() {
                    flow.inl.push(Inline::Text(s));
                }
                return;
            }
            NodeKind::Document | NodeKind::DocumentFragment => {
                return self.children(id, flow, depth);
            }
            NodeKind::Element => {}
            _ => return,
        }
        if depth > MAX_DEPTH {
            let t = model.text_content(id, 100_000);
            flow.inl.push(Inline::Text(format!(" {t} ")));
            return;
        }
        let tag = model.tag(id).unwrap_or("");
        if !is_block(model, id) {
            match tag {
                "br" => flow.inl.push(Inline::Break),
                "img" => {
                    if let Some(img) = self.image(id) {
                        flow.inl.push(img);
                    }
                }
                "a" => {
                    if let Some(kids) = self.inlines(id, flow, depth) {
                        let url = model
                            .attr(id, "href")
                            .and_then(|h| resolve(self.base(id), h))
                            .filter(|u| !u.starts_with("data:"));
                        match url {
                            Some(url) if has_content(&kids) => {
                                flow.inl.push(Inline::Link { url, kids })
                            }
                            _ => flow.inl.extend(kids),
                        }
                    }
                }
                "em" | "i" | "cite" | "var" | "dfn" => {
                    if let Some(kids) = self.inlines(id, flow, depth) {
                        flow.inl.push(Inline::Emph(kids));
                    }
                }
                "strong" | "b" => {
                    if let Some(kids) = self.inlines(id, flow, depth) {
                        flow.inl.push(Inline::Strong(kids));
                    }
                }
                "code" | "kbd" | "samp" | "tt" => {
                    let t = self.raw_text(id);
                    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !t.is_empty() {
                        flow.inl.push(Inline::Code(t));
                    }
                }
                "iframe" | "frame" => self.frame(id, flow, depth),
                _ => self.children(id, flow, depth),
            }
            return;
        }
        flow.flush();
        let owner = flow.owner;
        // A block directly in the content roots owns what it makes.
        flow.owner = Some(id);
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = tag.as_bytes()[1] - b'0';
                if let Some(kids) = self.inlines(id, flow, depth) {
                    if has_content(&kids) {
                        flow.push_block(Block::Heading(level, kids));
                    }
                }
            }
            "ul" | "ol" => self.list(id, tag == "ol", flow, depth),
            "pre" => {
                let text = self.raw_text(id);
                let text = text.strip_prefix('\n').unwrap_or(&text).trim_end();
                if !text.trim().is_empty() {
                    flow.push_block(Block::Code {
                        lang: code_language(model, id),
                        text: text.to_string(),
                    });
                }
            }
            "blockquote" => {
                let mut sub = Flow::new(id);
                self.children(id, &mut sub, depth);
                sub.flush();
                if !sub.blocks.is_empty() {
                    flow.push_block(Block::Quote(
                        sub.blocks.into_iter().map(|(_, b)| b).collect(),
                    ));
                }
            }
            "table" => self.table(id, flow, depth),
            "hr" => flow.push_block(Block::Rule),
            "iframe" | "frame" => self.frame(id, flow, depth),
            "img" => {
                if let Some(img) = self.image(id) {
                    flow.inl.push(img);
                }
            }
            _ => self.children(id, flow, depth),
        }
        flow.flush();
        flow.owner = owner;
    }

    fn frame(&self, id: NodeId, flow: &mut Flow, depth: usize) {
        flow.flush();
        self.children(id, flow, depth);
        flow.flush();
    }

    /// The base URL links of `id`'s document resolve against.
    fn base(&self, id: NodeId) -> &str {
        super::url::base_of(self.model, id)
    }

    fn image(&self, id: NodeId) -> Option<Inline> {
        let r = self.analysis.facts(id).visible_rect()?;
        if r.width < 2.0 || r.height < 2.0 {
            return None;
        }
        let model = self.model;
        let src = model
            .rare_strings(id)
            .current_source_url
            .map(|s| model.str(s))
            .filter(|s| !s.is_empty())
            .or_else(|| model.attr(id, "src"))?;
        let url = resolve(self.base(id), src)?;
        if url.starts_with("data:") {
            return None;
        }
        let alt = model
            .attr(id, "alt")
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        Some(Inline::Image { alt, url })
    }

    /// The text of a subtree as it is written (line breaks and spaces kept), for code.
    fn raw_text(&self, id: NodeId) -> String {
        let model = self.model;
        let mut out = String::new();
        let end = model.node(id).subtree_end.get();
        let mut i = id.get() + 1;
        while i < end {
            let c = NodeId::new(i);
            if !self.keep(c) {
                i = model.node(c).subtree_end.get();
                continue;
            }
            match model.node(c).kind {
                NodeKind::Text => out.push_str(text_of(model, c)),
                NodeKind::Element if model.tag(c) == Some("br") => out.push('\n'),
                NodeKind::Element
                    if is_block(model, c) && !out.is_empty() && !out.ends_with('\n') =>
                {
                    out.push('\n')
                }
                _ => {}
            }
            i += 1;
        }
        out.replace("\r\n", "\n").replace('\u{a0}', " ")
    }

    fn list(&self, id: NodeId, ordered: bool, flow: &mut Flow, depth: usize) {
        let start = self
            .model
            .attr(id, "start")
            .and_then(|s| s.trim().parse::<u32>().ok())
            .unwrap_or(1);
        let mut items = Vec::new();
        self.list_items(id, &mut items, depth);
        if !items.is_empty() {
            flow.push_block(Block::List {
                ordered,
                start,
                items,
            });
        }
    }

    fn list_items(&self, id: NodeId, items: &mut Vec<Vec<Block>>, depth: usize) {
        for c in self.model.children(id) {
            if !self.keep(c) {
                continue;
            }
            let is_item =
                self.model.tag(c) == Some("li") || self.model.node(c).kind != NodeKind::Element;
            if !is_item && depth < MAX_DEPTH && self.model.tag(c) != Some("ul") {
                // A wrapper between the list and its items.
                let before = items.len();
                self.list_items(c, items, depth + 1);
                if items.len() > before {
                    continue;
                }
            }
            let mut sub = Flow::new(c);
            if self.model.node(c).kind == NodeKind::Element {
                self.children(c, &mut sub, depth + 1);
            } else {
                self.node(c, &mut sub, depth + 1);
            }
            sub.flush();
            if !sub.blocks.is_empty() {
                items.push(sub.blocks.into_iter().map(|(_, b)| b).collect());
            }
        }
    }

    fn table(&self, id: NodeId, flow: &mut Flow, depth: usize) {
        let model = self.model;
        let rows = self.rows(id);
        let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
        // Chromium's guess that a table only lays out the page is taken for a table of one row
        // or one column; a grid of data without headers is still a grid.
        let role = super::role::role(model, id);
        let layout_role = matches!(role, Some("presentation" | "none"))
            || matches!(model.attr(id, "role"), Some("presentation" | "none"))
            || (role == Some("LayoutTable") && (rows.len() <= 1 || cols <= 1));
        // A table used to lay out the page, not to hold data: read it as boxes.
        let within = |cell: NodeId, pred: &dyn Fn(NodeId) -> bool| {
            let end = model.node(cell).subtree_end.get();
            (cell.get() + 1..end).any(|i| self.keep(NodeId::new(i)) && pred(NodeId::new(i)))
        };
        let holds_blocks = rows.iter().flatten().any(|&cell| {
            within(cell, &|n| {
                matches!(
                    model.tag(n),
                    Some("p" | "div" | "ul" | "ol" | "h1" | "h2" | "h3" | "h4")
                ) && self.prep.chars[n.index()] > 150
            })
        });
        let nested = rows
            .iter()
            .flatten()
            .any(|&cell| within(cell, &|n| model.tag(n) == Some("table")));
        if layout_role || rows.is_empty() || (holds_blocks && !has_header(model, &rows)) {
            self.children(id, flow, depth);
            return;
        }
        if let Some(caption) = model
            .children(id)
            .find(|c| model.tag(*c) == Some("caption") && self.keep(*c))
        {
            let mut sub = Flow::new(caption);
            self.children(caption, &mut sub, depth + 1);
            sub.flush();
            for (_, b) in sub.blocks {
                flow.push_block(b);
            }
        }
        let irregular = holds_blocks
            || nested
            || rows.iter().flatten().any(|&c| {
                ["rowspan", "colspan"].iter().any(|a| {
                    model
                        .attr(c, a)
                        .and_then(|v| v.trim().parse::<u32>().ok())
                        .is_some_and(|v| v > 1)
                })
            });
        let mut cells: Vec<Vec<Vec<Inline>>> = Vec::new();
        for row in &rows {
            let mut r = Vec::new();
            for &cell in row {
                let mut sub = Flow::new(cell);
                self.children(cell, &mut sub, depth + 1);
                sub.flush();
                let mut inl = Vec::new();
                for (k, (_, b)) in sub.blocks.into_iter().enumerate() {
                    if k > 0 {
                        inl.push(Inline::Text(" ".into()));
                    }
                    flatten(b, &mut inl);
                }
                r.push(inl);
            }
            if r.iter().any(|c| has_content(c)) {
                cells.push(r);
            }
        }
        if cells.is_empty() {
            return;
        }
        if irregular {
            // Too irregular for a grid: one line per row, its cells in order.
            for r in cells {
                let mut inl = Vec::new();
                for c in r.into_iter().filter(|c| has_content(c)) {
                    if !inl.is_empty() {
                        inl.push(Inline::Text(" · ".into()));
                    }
                    inl.extend(c);
                }
                flow.push_block(Block::Para(inl));
            }
            return;
        }
        flow.push_block(Block::Table(cells));
    }

    /// The rows of a table (not of tables inside it), each a list of its cells.
    fn rows(&self, table: NodeId) -> Vec<Vec<NodeId>> {
        let model = self.model;
        let mut rows = Vec::new();
        let mut stack: Vec<NodeId> = model.children(table).collect();
        stack.reverse();
        while let Some(n) = stack.pop() {
            if !self.keep(n) {
                continue;
            }
            match model.tag(n) {
                Some("tr") => {
                    let cells: Vec<NodeId> = model
                        .children(n)
                        .filter(|c| matches!(model.tag(*c), Some("td" | "th")) && self.keep(*c))
                        .collect();
                    if !cells.is_empty() {
                        rows.push(cells);
                    }
                }
                Some("thead" | "tbody" | "tfoot") => {
                    let mut kids: Vec<NodeId> = model.children(n).collect();
                    kids.reverse();
                    stack.extend(kids);
                }
                _ => {}
            }
        }
        rows
    }
}

/// Whether the table's first row is a header (all `th`, or in a `thead`).
fn has_header(model: &Model, rows: &[Vec<NodeId>]) -> bool {
    rows.first().is_some_and(|r| {
        r.iter().all(|c| model.tag(*c) == Some("th"))
            || r.first()
                .and_then(|c| model.parent_element(*c))
                .and_then(|tr| model.parent_element(tr))
                .is_some_and(|g| model.tag(g) == Some("thead"))
    })
}

/// A block's content as inlines (for a table cell).
fn flatten(b: Block, out: &mut Vec<Inline>) {
    match b {
        Block::Heading(_, k) | Block::Para(k) => out.extend(k),
        Block::List { items, .. } => {
            for (n, item) in items.into_iter().enumerate() {
                if n > 0 {
                    out.push(Inline::Text(", ".into()));
                }
                for b in item {
                    flatten(b, out);
                }
            }
        }
        Block::Code { text, .. } => out.push(Inline::Code(
            text.split_whitespace().collect::<Vec<_>>().join(" "),
        )),
        Block::Quote(bs) => {
            for b in bs {
                flatten(b, out);
            }
        }
        Block::Table(rows) => {
            for (n, r) in rows.into_iter().enumerate() {
                if n > 0 {
                    out.push(Inline::Text("; ".into()));
                }
                for (k, c) in r.into_iter().enumerate() {
                    if k > 0 {
                        out.push(Inline::Text(", ".into()));
                    }
                    out.extend(c);
                }
            }
        }
        Block::Rule => {}
    }
}

/// The language a code block says it is in: `class="language-rust"`, `lang-py`,
/// `highlight-source-js` on the `<pre>` or its `<code>`, or a `data-lang` attribute.
fn code_language(model: &Model, pre: NodeId) -> Option<String> {
    let mut nodes = vec![pre];
    nodes.extend(
        model
            .children(pre)
            .filter(|c| model.tag(*c) == Some("code")),
    );
    if let Some(p) = model.parent_element(pre) {
        nodes.push(p);
    }
    for n in nodes {
        for a in ["data-lang", "data-language"] {
            if let Some(v) = model.attr(n, a).map(str::trim).filter(|v| is_lang_name(v)) {
                return Some(v.to_ascii_lowercase());
            }
        }
        if let Some(class) = model.attr(n, "class") {
            for w in class.split_whitespace() {
                for prefix in ["language-", "lang-", "highlight-source-", "highlight-"] {
                    if let Some(l) = w.strip_prefix(prefix).filter(|l| is_lang_name(l)) {
                        return Some(l.to_ascii_lowercase());
                    }
                }
            }
        }
    }
    None
}

fn is_lang_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 24
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '#' | '.' | '_'))
}
