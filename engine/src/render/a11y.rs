//! The a11y text view: chrome-devtools-mcp's `take_snapshot` format, extended.
//!
//! Why this shape: agents (and the prompts written for them) already read
//! `uid=1_3 button "Save" disableable disabled`, with the tree Puppeteer's
//! `accessibility.snapshot({interestingOnly: true})` keeps. Matching that filter and spelling means
//! a prompt written for chrome-devtools-mcp works unchanged. The filter, in short:
//!
//! - ignored and hidden AX nodes are not printed; their children are lifted to the nearest
//!   printed ancestor;
//! - a node is *interesting* if it is focusable or richly editable, a control (`button`,
//!   `textbox`, `combobox`, …), a landmark (`main`, `navigation`, …), carries live-region / modal /
//!   role-description semantics, or — outside a control — a leaf with a name or description;
//! - *leaves* are not descended into: nodes without children, plain text fields, text-only
//!   nodes, presentational roles (`img`, `separator`, `slider`, …), and a named heading without
//!   focusable content.
//!
//! What this view adds (all additive, after chrome-devtools-mcp's own attributes):
//! - elements the analysis found interactive but the AX tree calls generic, ignores, or leaves
//!   out (a `div` with a click listener, a `cursor:pointer` card) are spliced in at their DOM
//!   position as `generic "<text>" clickable`, so the agent can still reach them (named by their
//!   text only when it is short; a `<label>` whose control is itself offered is not spliced);
//! - `disabled` for elements the analysis knows are disabled when the AX tree does not say so;
//! - `occluded-by=<uid or tag>` for elements something else covers;
//! - `scroll="…"` on scroll containers (and the root) with the content hidden in each direction;
//! - only nodes in the (expanded) viewport are printed, with the interesting ancestors that hold
//!   them, unless the analysis ran with `Expand::All`.
//!
//! Spelled as chrome-devtools-mcp prints it: text nodes without their role word
//! (`uid=1_7 "Some text"`), text children that only repeat their parent's name left out
//! (`link "Home"`, not `link "Home"` over `StaticText "Home"`), options without `selectable` or a
//! `value` equal to their name.
//!
//! Deliberate differences from Puppeteer: whitespace-only names (`StaticText " "` between inline
//! elements) do not make a node interesting, and empty values are not printed (`value=""`).
//!
//! `verbose` prints every non-ignored node (except `InlineTextBox`es, which repeat their
//! `StaticText`), the counterpart of chrome-devtools-mcp's verbose snapshot.
//!
//! The selection is computed in three linear passes over one pre-order arena of the (virtual)
//! tree — no recursion, so a pathologically deep page cannot overflow the stack, and a malformed
//! AX tree with shared or cyclic children is visited once per node.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::budget::{Line, LineKind, Rendered};
use super::escape::{self, push_quoted};
use super::{caps, expand_all, facts, is_password, push_scroll_summary, push_uncaptured, scrolls};
use super::{Labels, RenderOptions, UidSource, MASKED};
use crate::analysis::{Analysis, ScrollInfo};
use crate::identity::Uid;
use crate::model::{AxId, AxNode, AxProp, AxValue, Model, NodeId, StrId};

/// A node of the rendered tree: an AX node, or a DOM element the AX tree does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeNode {
    Ax(AxId),
    Dom(NodeId),
}

/// One printed node, in pre-order.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    /// Indent level (0 for the root).
    pub depth: u32,
    pub node: TreeNode,
    /// Printed although the AX tree did not offer it: the analysis found it interactive, or it
    /// is a scroll container with hidden content.
    pub spliced: bool,
    /// Spliced because it is interactive: printed with `clickable`, named by its text.
    pub clickable: bool,
}

/// The nodes the a11y view prints, in pre-order with their depth.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub items: Vec<Item>,
}

/// Renders the a11y text view.
pub fn render<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> String {
    let sel = select(model, analysis, options.verbose);
    let mut out = String::with_capacity(sel.items.len() * 56 + 64);
    for item in &sel.items {
        write_line(&mut out, model, analysis, uids, item);
    }
    out
}

/// Renders the a11y text view with what the budget needs to know of each line (see
/// [`super::budget`]).
pub fn render_lines<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> Rendered {
    let sel = select(model, analysis, options.verbose);
    let mut out = Rendered {
        text: String::with_capacity(sel.items.len() * 56 + 64),
        lines: Vec::with_capacity(sel.items.len()),
    };
    // The distance of each printed depth's latest line, for a node without a box of its own.
    let mut distances: Vec<f64> = Vec::new();
    for (i, item) in sel.items.iter().enumerate() {
        let start = out.text.len();
        write_line(&mut out.text, model, analysis, uids, item);
        let dom = match item.node {
            TreeNode::Ax(a) => model.ax(a).node,
            TreeNode::Dom(d) => Some(d),
        };
        let depth = item.depth as usize;
        distances.truncate(depth);
        let inherited = distances.last().copied().unwrap_or(f64::INFINITY);
        let distance = dom
            .and_then(|d| facts(analysis, d).bounds())
            .map_or(inherited, |b| super::view_distance(analysis, &b));
        distances.push(distance);
        let role = role(model, item);
        let kind = if i == 0 {
            LineKind::Frame
        } else if item.clickable
            || dom.is_some_and(|d| facts(analysis, d).interactive)
            || is_landmark_role(role)
        {
            LineKind::Landmark
        } else {
            LineKind::Plain
        };
        out.lines.push(Line {
            start,
            end: out.text.len().saturating_sub(1).max(start),
            depth: item.depth,
            uid: uid(model, uids, item.node),
            kind,
            distance,
        });
    }
    out
}

/// Roles an agent finds its way by: headings and landmarks.
fn is_landmark_role(role: &str) -> bool {
    matches!(
        role,
        "heading"
            | "main"
            | "navigation"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "search"
            | "form"
            | "region"
            | "dialog"
            | "alertdialog"
    )
}

// ----- selection -----

struct Visit {
    node: TreeNode,
    /// Index of the parent visit (`u32::MAX` for the root).
    parent: u32,
    /// Flags computed over the passes.
    flags: u16,
    /// [`prop_bits`] of an AX node.
    props: u8,
    /// [`role_class`] of an AX node's role.
    class: u8,
    /// The DOM node it stands for ([`NO_DOM`] for none), read once while building the arena:
    /// the passes ask it of every node, and the AX node itself is a cache miss on a long page.
    dom: u32,
}

const NO_DOM: u32 = u32::MAX;

impl Visit {
    #[inline]
    fn dom(&self) -> Option<NodeId> {
        (self.dom != NO_DOM).then(|| NodeId::new(self.dom))
    }
}

const F_FOCUSABLE_DESC: u16 = 1; // something below is focusable or interactive
const F_CANDIDATE: u16 = 2; // would be printed if kept
const F_SPLICED: u16 = 4;
const F_KEEP: u16 = 8; // candidate in view, or holds a kept node
const F_BLOCKED: u16 = 16; // under a leaf: not collected
const F_IN_CONTROL: u16 = 32; // children are inside a control
const F_LEAF: u16 = 64;
const F_INSIDE: u16 = 128; // this node is inside a control
const F_CLICKABLE: u16 = 256; // spliced because interactive
const F_IGNORED: u16 = 512; // an AX node the AX tree marks ignored (set with the arena)

/// Computes which nodes the a11y view prints.
pub fn select(model: &Model, analysis: &Analysis, verbose: bool) -> Selection {
    let Some(root) = root_ax(model) else {
        return Selection::default();
    };
    let (extras, fact_bits) = dom_only_interactive(model, analysis);
    let mut labels = Labels::default();
    let arena = build_arena(model, analysis, root, &extras);
    drop(extras);
    let all = expand_all(analysis);
    let n = arena.len();
    let mut visits = arena;

    // Pass 1 (reverse pre-order = children before parents): focusable descendants.
    for i in (1..n).rev() {
        let me = &visits[i];
        let focusable_here = match me.node {
            TreeNode::Ax(_) => {
                // An interactive element the page hides (a heading's `¶` link that shows on
                // hover) is not printed, so it must not turn its heading into a container.
                me.props & P_FOCUSABLE != 0
                    || me
                        .dom()
                        .is_some_and(|d| fact_bits.has(d, FACT_INTERACTIVE | FACT_VISIBLE))
            }
            TreeNode::Dom(_) => true,
        };
        let up = focusable_here || me.flags & F_FOCUSABLE_DESC != 0;
        let p = me.parent as usize;
        if up && p < n {
            visits[p].flags |= F_FOCUSABLE_DESC;
        }
    }

    // Pass 2 (pre-order = parents first): leaf, control and interest, splicing.
    let mut child_count = vec![0u32; n];
    for v in visits.iter().skip(1) {
        if let Some(c) = child_count.get_mut(v.parent as usize) {
            *c += 1;
        }
    }
    for i in 0..n {
        let (blocked, inside) = if i == 0 {
            (false, false)
        } else {
            let p = &visits[visits[i].parent as usize];
            (
                p.flags & (F_BLOCKED | F_LEAF) != 0,
                p.flags & (F_IN_CONTROL | F_INSIDE) != 0,
            )
        };
        let mut flags = visits[i].flags;
        if blocked {
            flags |= F_BLOCKED;
        }
        if inside {
            flags |= F_INSIDE;
        }
        if blocked && !verbose {
            // Under a leaf: nothing here is collected (Puppeteer does not even visit it).
            visits[i].flags = flags;
            continue;
        }
        match visits[i].node {
            TreeNode::Ax(a) => {
                let class = visits[i].class;
                let has_children = child_count[i] > 0;
                let bits = visits[i].props;
                let leaf = !verbose
                    && is_leaf(
                        model,
                        a,
                        bits,
                        class,
                        has_children,
                        flags & F_FOCUSABLE_DESC != 0,
                    );
                if leaf {
                    flags |= F_LEAF;
                    // Nothing under a leaf is collected, so a leaf is printed only if it is in
                    // view itself: one that is not needs no interest rules (whose name checks
                    // read page text of every leaf of a long page).
                    if !all && !in_view(model, &fact_bits, visits[i].dom()) {
                        visits[i].flags = flags;
                        continue;
                    }
                }
                let dom = visits[i].dom();
                let interesting = if verbose {
                    flags & F_IGNORED == 0 && class & R_INLINE_TEXT_BOX == 0
                } else {
                    !blocked
                        && is_interesting(
                            model,
                            a,
                            flags & F_IGNORED != 0,
                            bits,
                            class,
                            inside,
                            leaf,
                        )
                };
                // An iframe whose content could not be captured says so.
                let uncaptured = dom.is_some_and(|d| model.uncaptured_reason(d).is_some());
                if interesting || uncaptured {
                    flags |= F_CANDIDATE;
                    if class & R_CONTROL != 0 {
                        flags |= F_IN_CONTROL;
                    }
                } else if !blocked
                    && !inside
                    && dom.is_some_and(|d| {
                        (fact_bits.has(d, FACT_INTERACTIVE)
                            && !labels.is_redundant(model, analysis, d))
                            || is_scroller(analysis, d)
                    })
                {
                    flags |= F_CANDIDATE | F_SPLICED;
                    // A short clickable thing reads like a button: its text is its name, so its
                    // plain text children are not repeated. A large clickable card keeps its
                    // content visible.
                    if let Some(d) = dom {
                        if fact_bits.has(d, FACT_INTERACTIVE) {
                            flags |= F_CLICKABLE;
                            if short_text(model, d) {
                                flags |= F_IN_CONTROL;
                            }
                        }
                    }
                }
            }
            TreeNode::Dom(d) => {
                if !blocked && !inside && !labels.is_redundant(model, analysis, d) {
                    flags |= F_CANDIDATE | F_SPLICED | F_CLICKABLE;
                }
            }
        }
        visits[i].flags = flags;
    }

    // Pass 3 (reverse): keep candidates in view and the candidates that hold them.
    for i in (0..n).rev() {
        let v = &visits[i];
        let keep = v.flags & F_KEEP != 0
            || (v.flags & F_CANDIDATE != 0 && (all || in_view(model, &fact_bits, v.dom())));
        if keep {
            visits[i].flags |= F_KEEP;
            let p = visits[i].parent as usize;
            if p < n {
                visits[p].flags |= F_KEEP;
            }
        }
    }

    // Emission: printed = root, or a kept candidate; depth = printed ancestors.
    let mut depth_of = vec![0u32; n];
    let mut items = Vec::with_capacity(n / 4 + 1);
    for i in 0..n {
        let v = &visits[i];
        let printed = i == 0 || (v.flags & F_CANDIDATE != 0 && v.flags & F_KEEP != 0);
        let base = if i == 0 {
            0
        } else {
            depth_of[v.parent as usize]
        };
        if printed {
            items.push(Item {
                depth: base,
                node: v.node,
                spliced: v.flags & F_SPLICED != 0,
                clickable: v.flags & F_CLICKABLE != 0,
            });
            depth_of[i] = base + 1;
        } else {
            depth_of[i] = base;
        }
    }
    if !verbose {
        drop_redundant_text(model, &mut items);
    }
    Selection { items }
}

/// Drops the text children that only repeat their parent's name, as chrome-devtools-mcp does
/// (`link "Home"` over `StaticText "Home"`): a named node whose printed children are all
/// childless `StaticText`s that together spell its name, whitespace aside, is printed alone.
/// A spliced clickable node is named by its text already, so the same rule holds for it.
fn drop_redundant_text(model: &Model, items: &mut Vec<Item>) {
    let is_text_leaf = |items: &[Item], k: usize| {
        let leaf = items.get(k + 1).is_none_or(|n| n.depth <= items[k].depth);
        leaf && !items[k].spliced
            && matches!(items[k].node, TreeNode::Ax(a)
                if model.opt_str(model.ax(a).role) == Some("StaticText"))
    };
    let mut drop = vec![false; items.len()];
    for i in 0..items.len() {
        let depth = items[i].depth;
        let end = items[i + 1..]
            .iter()
            .position(|n| n.depth <= depth)
            .map_or(items.len(), |k| i + 1 + k);
        if end == i + 1
            || !(i + 1..end).all(|k| items[k].depth == depth + 1 && is_text_leaf(items, k))
        {
            continue;
        }
        let name = name(model, &items[i]);
        if escape::is_blank(&name) {
            continue;
        }
        let mut text = String::new();
        for item in &items[i + 1..end] {
            text.push_str(name_of_text(model, item));
        }
        if without_whitespace(&text) == without_whitespace(&name) {
            drop[i + 1..end].iter_mut().for_each(|d| *d = true);
        }
    }
    let mut k = 0;
    items.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

fn name_of_text<'m>(model: &'m Model, item: &Item) -> &'m str {
    match item.node {
        TreeNode::Ax(a) => model.opt_str(model.ax(a).name).unwrap_or(""),
        TreeNode::Dom(_) => "",
    }
}

fn without_whitespace(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The AX node of the top-level document (`RootWebArea`).
fn root_ax(model: &Model) -> Option<AxId> {
    let top = model
        .docs
        .first()
        .and_then(|d| model.nodes.get(d.root.index()))
        .and_then(|n| n.ax);
    top.or_else(|| model.ax_roots.first().copied())
        .filter(|a| a.index() < model.ax_nodes.len())
}

/// The facts the selection asks of every accessibility node's DOM node, a byte per node.
///
/// Why: the selection reads them for every node of the AX tree, in the tree's order; read from
/// the full facts (well over a hundred bytes a node) a long page's reads miss the caches, while
/// these bytes stay in them.
struct FactBits(Vec<u8>);

const FACT_INTERACTIVE: u8 = 1;
const FACT_VISIBLE: u8 = 2;
const FACT_IN_VIEWPORT: u8 = 4;
const FACT_BOUNDS: u8 = 8;
/// Interactive, with a click point in the viewport.
const FACT_CLICKABLE: u8 = 16;

impl FactBits {
    /// Whether the node has all of `bits` (a node without facts has none).
    #[inline]
    fn has(&self, node: NodeId, bits: u8) -> bool {
        self.0.get(node.index()).is_some_and(|b| b & bits == bits)
    }
}

/// Interactive elements without an AX node, grouped under the nearest ancestor that has one,
/// and the [`FactBits`] of every node (read in the same pass over the facts).
fn dom_only_interactive(
    model: &Model,
    analysis: &Analysis,
) -> (FxHashMap<AxId, Vec<NodeId>>, FactBits) {
    let mut map: FxHashMap<AxId, Vec<NodeId>> = FxHashMap::default();
    let mut bits = Vec::with_capacity(analysis.nodes.len());
    for (i, f) in analysis.nodes.iter().enumerate() {
        let held = [
            (f.interactive, FACT_INTERACTIVE),
            (f.visible(), FACT_VISIBLE),
            (f.in_viewport, FACT_IN_VIEWPORT),
            (f.bounds().is_some(), FACT_BOUNDS),
            (
                f.interactive && analysis.click(NodeId::new(i as u32)).click_point.is_some(),
                FACT_CLICKABLE,
            ),
        ];
        bits.push(
            held.iter()
                .filter(|(holds, _)| *holds)
                .fold(0, |b, (_, bit)| b | bit),
        );
        // A hidden one is never printed, and must not make its container look interactive.
        if !f.interactive || !f.visible() || i >= model.nodes.len() {
            continue;
        }
        let id = NodeId::new(i as u32);
        let node = model.node(id);
        if !node.is_element() || node.ax.is_some_and(|a| a.index() < model.ax_nodes.len()) {
            continue;
        }
        if let Some(owner) = model.ancestors(id).find_map(|a| {
            model
                .node(a)
                .ax
                .filter(|x| x.index() < model.ax_nodes.len())
        }) {
            map.entry(owner).or_default().push(id);
        }
    }
    (map, FactBits(bits))
}

/// The virtual tree in pre-order: AX children, then the AX root of a frame's child document
/// (when the AX tree does not link it), then DOM-only interactive elements.
fn build_arena(
    model: &Model,
    analysis: &Analysis,
    root: AxId,
    extras: &FxHashMap<AxId, Vec<NodeId>>,
) -> Vec<Visit> {
    let mut seen = vec![false; model.ax_nodes.len()];
    let mut arena: Vec<Visit> = Vec::with_capacity(model.ax_nodes.len() + 1);
    let mut stack: Vec<(TreeNode, u32)> = vec![(TreeNode::Ax(root), u32::MAX)];
    let mut kids: Vec<TreeNode> = Vec::new();
    let mut classes: FxHashMap<u32, u8> = FxHashMap::default();
    while let Some((node, parent)) = stack.pop() {
        if let TreeNode::Ax(a) = node {
            match seen.get_mut(a.index()) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
        }
        let me = arena.len() as u32;
        let (props, class, dom, flags) = match node {
            TreeNode::Ax(a) => {
                let ax = model.ax(a);
                let class = match ax.role {
                    Some(r) => *classes
                        .entry(r.get())
                        .or_insert_with(|| role_class(model.str(r))),
                    None => 0,
                };
                let flags = if ax.ignored { F_IGNORED } else { 0 };
                (prop_bits(model, a), class, ax.node, flags)
            }
            TreeNode::Dom(d) => (0, 0, Some(d), 0),
        };
        arena.push(Visit {
            node,
            parent,
            flags,
            props,
            class,
            dom: dom.map_or(NO_DOM, |d| d.get()),
        });
        let TreeNode::Ax(a) = node else { continue };
        kids.clear();
        for &c in model.ax_children(a) {
            if c.index() < model.ax_nodes.len() {
                kids.push(TreeNode::Ax(c));
            }
        }
        if let Some(child_root) = frame_child_root(model, analysis, model.ax(a)) {
            if !kids.contains(&TreeNode::Ax(child_root)) {
                kids.push(TreeNode::Ax(child_root));
            }
        }
        if let Some(list) = extras.get(&a) {
            kids.extend(list.iter().map(|&d| TreeNode::Dom(d)));
        }
        for &k in kids.iter().rev() {
            stack.push((k, me));
        }
    }
    arena
}

/// For the AX node of an `<iframe>` whose document is in the model: that document's AX root.
/// A frame too small to show anything (tracking pixels, zero-size frames) has nothing to read.
fn frame_child_root(model: &Model, analysis: &Analysis, ax: &AxNode) -> Option<AxId> {
    let d = ax.node?;
    let doc = model.nodes.get(d.index())?.content_document?;
    let shown = facts(analysis, d)
        .bounds()
        .is_some_and(|r| r.width >= 2.0 && r.height >= 2.0);
    if !shown {
        return None;
    }
    let root = model.docs.get(doc.index())?.root;
    model
        .nodes
        .get(root.index())?
        .ax
        .filter(|a| a.index() < model.ax_nodes.len())
}

fn is_scroller(analysis: &Analysis, d: NodeId) -> bool {
    analysis.scroll(d).is_some_and(|s| scrolls(&s))
}

fn short_text(model: &Model, d: NodeId) -> bool {
    model.text_content(d, caps::NAME * 4 + 8).chars().count() <= caps::NAME
}

/// Whether the node a visit stands for (its [`Visit::dom`]) is in view.
fn in_view(model: &Model, bits: &FactBits, dom: Option<NodeId>) -> bool {
    let d = match dom {
        Some(d) if d.index() < model.nodes.len() => d,
        _ => return false,
    };
    // A transparent control a click reaches (an `opacity:0` input over its drawn box) is as
    // much in view as the box a person sees.
    if bits.has(d, FACT_IN_VIEWPORT) || bits.has(d, FACT_CLICKABLE) {
        return true;
    }
    // Text without facts of its own is judged by its element.
    if !bits.has(d, FACT_BOUNDS) && !model.node(d).is_element() {
        if let Some(p) = model.parent_element(d) {
            return bits.has(p, FACT_IN_VIEWPORT);
        }
    }
    false
}

// ----- Puppeteer's interest rules -----

const P_FOCUSABLE: u8 = 1;
const P_EDITABLE: u8 = 2;
const P_RICH: u8 = 4;
const P_HIDDEN: u8 = 8;
/// Live region, busy, modal, role description, error message or details: kept by Puppeteer.
const P_SEMANTIC: u8 = 16;

/// The properties the interest rules look at, in one pass over the node's properties.
fn prop_bits(model: &Model, a: AxId) -> u8 {
    let mut bits = 0;
    for p in model.ax_props(a) {
        bits |= match (p.name, p.value) {
            (AxProp::Focusable, v) if truthy(model, v) => P_FOCUSABLE,
            (AxProp::Editable, AxValue::Str(s)) if model.str(s) == "richtext" => {
                P_EDITABLE | P_RICH
            }
            (AxProp::Editable, _) => P_EDITABLE,
            (AxProp::Hidden, v) if truthy(model, v) => P_HIDDEN,
            (AxProp::Live, AxValue::Str(s)) if !matches!(model.str(s), "" | "off") => P_SEMANTIC,
            (AxProp::Busy | AxProp::Modal, v) if truthy(model, v) => P_SEMANTIC,
            (AxProp::Roledescription | AxProp::Errormessage | AxProp::Details, _) => P_SEMANTIC,
            _ => 0,
        };
    }
    bits
}

const R_CONTROL: u8 = 1;
const R_LANDMARK: u8 = 2;
/// `LineBreak`, `text`, `InlineTextBox`, `StaticText`: leaves by nature.
const R_TEXT_ONLY: u8 = 4;
/// Roles whose children are presentational (`img`, `separator`, `slider`, ...).
const R_PRESENTATIONAL: u8 = 8;
const R_HEADING: u8 = 16;
/// `textbox` / `searchbox`: plain text fields unless richly editable.
const R_TEXT_FIELD: u8 = 32;
/// The role `Ignored`.
const R_IGNORED: u8 = 64;
const R_INLINE_TEXT_BOX: u8 = 128;

/// Puppeteer's role classes, computed once per distinct role string.
fn role_class(role: &str) -> u8 {
    let mut c = 0;
    if matches!(
        role,
        "button"
            | "checkbox"
            | "ColorWell"
            | "combobox"
            | "DisclosureTriangle"
            | "listbox"
            | "menu"
            | "menubar"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "radio"
            | "scrollbar"
            | "searchbox"
            | "slider"
            | "spinbutton"
            | "switch"
            | "tab"
            | "textbox"
            | "tree"
            | "treeitem"
    ) {
        c |= R_CONTROL;
    }
    if matches!(
        role,
        "banner"
            | "complementary"
            | "contentinfo"
            | "form"
            | "main"
            | "navigation"
            | "region"
            | "search"
    ) {
        c |= R_LANDMARK;
    }
    if matches!(role, "LineBreak" | "text" | "InlineTextBox" | "StaticText") {
        c |= R_TEXT_ONLY;
    }
    if matches!(
        role,
        "doc-cover"
            | "graphics-symbol"
            | "img"
            | "image"
            | "Meter"
            | "scrollbar"
            | "slider"
            | "separator"
            | "progressbar"
    ) {
        c |= R_PRESENTATIONAL;
    }
    match role {
        "heading" => c |= R_HEADING,
        "textbox" | "searchbox" => c |= R_TEXT_FIELD,
        "Ignored" => c |= R_IGNORED,
        "InlineTextBox" => c |= R_INLINE_TEXT_BOX,
        _ => {}
    }
    c
}

fn is_leaf(
    model: &Model,
    a: AxId,
    bits: u8,
    class: u8,
    has_children: bool,
    focusable_desc: bool,
) -> bool {
    if !has_children {
        return true;
    }
    let plain_text_field = if bits & P_EDITABLE != 0 {
        bits & P_RICH == 0
    } else {
        class & R_TEXT_FIELD != 0
    };
    if plain_text_field || class & (R_TEXT_ONLY | R_PRESENTATIONAL) != 0 {
        return true;
    }
    if focusable_desc {
        return false;
    }
    class & R_HEADING != 0 && has_str(model, model.ax(a).name)
}

/// A name or description worth printing: whitespace alone is not (Chromium names the
/// whitespace between inline elements `StaticText " "`, which tells an agent nothing).
fn has_str(model: &Model, s: Option<StrId>) -> bool {
    s.is_some_and(|s| !escape::is_blank(model.str(s)))
}

/// Puppeteer's interest rule for AX node `a`; `ignored` is the node's own `ignored`.
fn is_interesting(
    model: &Model,
    a: AxId,
    ignored: bool,
    bits: u8,
    class: u8,
    inside_control: bool,
    leaf: bool,
) -> bool {
    if ignored || class & R_IGNORED != 0 || bits & P_HIDDEN != 0 {
        return false;
    }
    if bits & (P_FOCUSABLE | P_RICH | P_SEMANTIC) != 0 || class & (R_CONTROL | R_LANDMARK) != 0 {
        return true;
    }
    if inside_control {
        return false;
    }
    if !leaf {
        return false;
    }
    let node = model.ax(a);
    has_str(model, node.name) || has_str(model, node.description)
}

// ----- attributes -----

/// An attribute value as both the text and the JSON writer need it.
#[derive(Debug, Clone, Copy)]
pub enum AttrVal<'a> {
    /// A bare flag (`focusable`, `clickable`).
    Flag,
    /// `key="…"` with page text.
    Str(&'a str),
    /// `key="…"` with a number.
    Num(f64),
    /// `occluded-by=<uid>`.
    Uid(Uid),
    /// `scroll="…"`.
    Scroll(ScrollInfo),
}

/// Calls `f` with every attribute of a printed node, in the order the text view prints them:
/// chrome-devtools-mcp's attributes sorted by key, then this view's own (`clickable`,
/// `disabled`, `occluded-by`, `scroll`). `value` and `checked` are included.
pub fn for_each_attr<'m, U: UidSource + ?Sized>(
    model: &'m Model,
    analysis: &Analysis,
    uids: &U,
    item: &Item,
    f: &mut dyn FnMut(&'static str, AttrVal<'m>),
) {
    let dom = match item.node {
        TreeNode::Ax(a) => {
            ax_attrs(model, a, f);
            model.ax(a).node.filter(|d| d.index() < model.nodes.len())
        }
        TreeNode::Dom(d) => Some(d),
    };
    if item.clickable {
        f("clickable", AttrVal::Flag);
    }
    let Some(d) = dom else { return };
    let fa = facts(analysis, d);
    let ax_disabled = match item.node {
        TreeNode::Ax(a) => model.ax_flag(a, AxProp::Disabled),
        TreeNode::Dom(_) => false,
    };
    if fa.disabled && !ax_disabled {
        f("disabled", AttrVal::Flag);
    }
    let click = analysis.click(d);
    if click.occluded {
        let cover = click.covered_by.filter(|c| c.index() < model.nodes.len());
        match cover.map(|c| element_of(model, c)) {
            Some(c) => match uids.dom(c) {
                Some(uid) => f("occluded-by", AttrVal::Uid(uid)),
                None => f(
                    "occluded-by",
                    AttrVal::Str(model.tag(c).unwrap_or("unknown")),
                ),
            },
            None => f("occluded-by", AttrVal::Str("unknown")),
        }
    }
    let scroll = analysis.scroll(d).or_else(|| {
        // The top-level document scrolls as the page.
        (model.docs.first().map(|doc| doc.root) == Some(d)).then(|| analysis.page_scroll())
    });
    if let Some(s) = scroll.filter(scrolls) {
        f("scroll", AttrVal::Scroll(s));
    }
}

fn element_of(model: &Model, n: NodeId) -> NodeId {
    if model.node(n).is_element() {
        n
    } else {
        model.parent_element(n).unwrap_or(n)
    }
}

/// chrome-devtools-mcp's attributes of an AX node, sorted by key.
fn ax_attrs<'m>(model: &'m Model, a: AxId, f: &mut dyn FnMut(&'static str, AttrVal<'m>)) {
    let node = model.ax(a);
    let role = model.opt_str(node.role).unwrap_or("");
    let mut p = Props::default();
    for pr in model.ax_props(a) {
        let slot = match pr.name {
            AxProp::Autocomplete => &mut p.autocomplete,
            AxProp::Busy => &mut p.busy,
            AxProp::Checked => &mut p.checked,
            AxProp::Disabled => &mut p.disabled,
            AxProp::Expanded => &mut p.expanded,
            AxProp::Focused => &mut p.focused,
            AxProp::HasPopup => &mut p.haspopup,
            AxProp::Invalid => &mut p.invalid,
            AxProp::Keyshortcuts => &mut p.keyshortcuts,
            AxProp::Level => &mut p.level,
            AxProp::Live => &mut p.live,
            AxProp::Modal => &mut p.modal,
            AxProp::Multiline => &mut p.multiline,
            AxProp::Multiselectable => &mut p.multiselectable,
            AxProp::Orientation => &mut p.orientation,
            AxProp::Pressed => &mut p.pressed,
            AxProp::Readonly => &mut p.readonly,
            AxProp::Required => &mut p.required,
            AxProp::Roledescription => &mut p.roledescription,
            AxProp::Selected => &mut p.selected,
            AxProp::Url => &mut p.url,
            AxProp::Valuemax => &mut p.valuemax,
            AxProp::Valuemin => &mut p.valuemin,
            AxProp::Valuetext => &mut p.valuetext,
            _ => continue,
        };
        *slot = Some(pr.value);
    }
    token(model, "autocomplete", p.autocomplete, "false", f);
    flag(model, "busy", p.busy, f);
    tristate(model, "checked", p.checked, f);
    if let Some(d) = node
        .description
        .map(|s| model.str(s))
        .filter(|s| !s.is_empty())
    {
        f("description", AttrVal::Str(d));
    }
    mapped(model, "disabled", "disableable", p.disabled, f);
    mapped(model, "expanded", "expandable", p.expanded, f);
    if role != "RootWebArea" {
        mapped(model, "focused", "focusable", p.focused, f);
    }
    token(model, "haspopup", p.haspopup, "false", f);
    token(model, "invalid", p.invalid, "false", f);
    string(model, "keyshortcuts", p.keyshortcuts, f);
    number("level", p.level, f);
    token(model, "live", p.live, "off", f);
    flag(model, "modal", p.modal, f);
    flag(model, "multiline", p.multiline, f);
    flag(model, "multiselectable", p.multiselectable, f);
    token(model, "orientation", p.orientation, "false", f);
    tristate(model, "pressed", p.pressed, f);
    flag(model, "readonly", p.readonly, f);
    flag(model, "required", p.required, f);
    string(model, "roledescription", p.roledescription, f);
    // An option's `selectable` says nothing (every option is), so it is left out.
    if role == "option" {
        flag(model, "selected", p.selected, f);
    } else {
        mapped(model, "selected", "selectable", p.selected, f);
    }
    string(model, "url", p.url, f);
    let password = node.node.is_some_and(|d| is_password(model, d));
    let repeats_name =
        |s: StrId| role == "option" && node.name.map(|n| model.str(n)) == Some(model.str(s));
    match node.value {
        Some(AxValue::Str(s)) if !model.str(s).is_empty() && !repeats_name(s) => f(
            "value",
            AttrVal::Str(if password { MASKED } else { model.str(s) }),
        ),
        Some(AxValue::Number(n)) if !password => f("value", AttrVal::Num(n)),
        _ => {}
    }
    number("valuemax", p.valuemax, f);
    number("valuemin", p.valuemin, f);
    string(model, "valuetext", p.valuetext, f);
}

#[derive(Default)]
struct Props {
    autocomplete: Option<AxValue>,
    busy: Option<AxValue>,
    checked: Option<AxValue>,
    disabled: Option<AxValue>,
    expanded: Option<AxValue>,
    focused: Option<AxValue>,
    haspopup: Option<AxValue>,
    invalid: Option<AxValue>,
    keyshortcuts: Option<AxValue>,
    level: Option<AxValue>,
    live: Option<AxValue>,
    modal: Option<AxValue>,
    multiline: Option<AxValue>,
    multiselectable: Option<AxValue>,
    orientation: Option<AxValue>,
    pressed: Option<AxValue>,
    readonly: Option<AxValue>,
    required: Option<AxValue>,
    roledescription: Option<AxValue>,
    selected: Option<AxValue>,
    url: Option<AxValue>,
    valuemax: Option<AxValue>,
    valuemin: Option<AxValue>,
    valuetext: Option<AxValue>,
}

type Sink<'f, 'm> = &'f mut dyn FnMut(&'static str, AttrVal<'m>);

fn truthy(model: &Model, v: AxValue) -> bool {
    match v {
        AxValue::Bool(b) => b,
        AxValue::Mixed => true,
        AxValue::Str(s) => model.str(s) == "true",
        AxValue::Number(n) => n != 0.0,
        AxValue::Other => false,
    }
}

fn flag(model: &Model, key: &'static str, v: Option<AxValue>, f: Sink<'_, '_>) {
    if v.is_some_and(|v| truthy(model, v)) {
        f(key, AttrVal::Flag);
    }
}

/// chrome-devtools-mcp prints `disableable`/`expandable`/`focusable`/`selectable` whenever the
/// state is reported, and the state itself when it is true.
fn mapped(
    model: &Model,
    key: &'static str,
    able: &'static str,
    v: Option<AxValue>,
    f: Sink<'_, '_>,
) {
    let Some(v) = v else { return };
    f(able, AttrVal::Flag);
    if truthy(model, v) {
        f(key, AttrVal::Flag);
    }
}

fn tristate(model: &Model, key: &'static str, v: Option<AxValue>, f: Sink<'_, '_>) {
    match v {
        Some(AxValue::Mixed) => f(key, AttrVal::Str("mixed")),
        Some(AxValue::Str(s)) if model.str(s) == "mixed" => f(key, AttrVal::Str("mixed")),
        Some(v) if truthy(model, v) => f(key, AttrVal::Flag),
        _ => {}
    }
}

fn token<'m>(model: &'m Model, key: &'static str, v: Option<AxValue>, off: &str, f: Sink<'_, 'm>) {
    if let Some(AxValue::Str(s)) = v {
        let s = model.str(s);
        if !s.is_empty() && s != off && s != "false" {
            f(key, AttrVal::Str(s));
        }
    }
}

fn string<'m>(model: &'m Model, key: &'static str, v: Option<AxValue>, f: Sink<'_, 'm>) {
    match v {
        Some(AxValue::Str(s)) if !model.str(s).is_empty() => f(key, AttrVal::Str(model.str(s))),
        Some(AxValue::Number(n)) => f(key, AttrVal::Num(n)),
        _ => {}
    }
}

fn number(key: &'static str, v: Option<AxValue>, f: Sink<'_, '_>) {
    if let Some(AxValue::Number(n)) = v {
        f(key, AttrVal::Num(n));
    }
}

// ----- role and name -----

/// The role a printed node shows: the AX role (`none` as chrome-devtools-mcp's `ignored`), or
/// `generic` for spliced nodes whose AX role says nothing.
pub fn role<'m>(model: &'m Model, item: &Item) -> &'m str {
    match item.node {
        TreeNode::Ax(a) => {
            let node = model.ax(a);
            let r = model.opt_str(node.role).unwrap_or("");
            if item.spliced && (node.ignored || matches!(r, "" | "none" | "generic" | "Ignored")) {
                "generic"
            } else if r == "none" {
                "ignored"
            } else if r.is_empty() {
                "generic"
            } else {
                r
            }
        }
        TreeNode::Dom(_) => "generic",
    }
}

/// The name a printed node shows: the accessible name, or for a spliced node without one, its
/// text content.
pub fn name<'m>(model: &'m Model, item: &Item) -> std::borrow::Cow<'m, str> {
    let (ax_name, dom) = match item.node {
        TreeNode::Ax(a) => {
            let node = model.ax(a);
            (model.opt_str(node.name).unwrap_or(""), node.node)
        }
        TreeNode::Dom(d) => ("", Some(d)),
    };
    if !ax_name.is_empty() || !item.clickable {
        return std::borrow::Cow::Borrowed(ax_name);
    }
    match dom.filter(|d| d.index() < model.nodes.len()) {
        Some(d) => {
            // A short text names the element; a long one (a clickable card or page wrapper) is
            // shown by its children instead.
            let t = model.text_content(d, caps::NAME * 4 + 8);
            if t.chars().count() > caps::NAME {
                std::borrow::Cow::Borrowed("")
            } else if t.is_empty() {
                std::borrow::Cow::Borrowed(
                    model
                        .attr(d, "aria-label")
                        .or_else(|| model.attr(d, "title"))
                        .unwrap_or(""),
                )
            } else {
                std::borrow::Cow::Owned(t)
            }
        }
        None => std::borrow::Cow::Borrowed(""),
    }
}

/// The uid a printed node shows.
pub fn uid<U: UidSource + ?Sized>(model: &Model, uids: &U, node: TreeNode) -> Option<Uid> {
    match node {
        TreeNode::Ax(a) => uids
            .ax(a)
            .or_else(|| model.ax(a).node.and_then(|d| uids.dom(d))),
        TreeNode::Dom(d) => uids.dom(d),
    }
}

fn write_line<U: UidSource + ?Sized>(
    out: &mut String,
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    item: &Item,
) {
    for _ in 0..item.depth {
        out.push_str("  ");
    }
    out.push_str("uid=");
    match uid(model, uids, item.node) {
        Some(u) => {
            let _ = write!(out, "{u}");
        }
        None => out.push('?'),
    }
    // chrome-devtools-mcp prints text as `uid=1_7 "Some text"`: the role word is left out.
    let role = role(model, item);
    if role != "StaticText" {
        out.push(' ');
        out.push_str(role);
    }
    let name = name(model, item);
    if !escape::is_blank(&name) {
        out.push(' ');
        push_quoted(out, &name, caps::NAME);
    }
    if let TreeNode::Ax(a) = item.node {
        if let Some(d) = model.ax(a).node {
            push_uncaptured(out, model, d);
        }
    }
    for_each_attr(model, analysis, uids, item, &mut |key, val| {
        out.push(' ');
        push_attr(out, key, val);
    });
    out.push('\n');
}

fn push_attr(out: &mut String, key: &str, val: AttrVal<'_>) {
    out.push_str(key);
    match val {
        AttrVal::Flag => {}
        AttrVal::Str(s) => {
            out.push('=');
            let cap = match key {
                "url" => caps::URL,
                "occluded-by" => caps::ATTR,
                _ => caps::VALUE,
            };
            if key == "occluded-by" {
                escape::push_attr_value(out, s, cap);
            } else {
                push_quoted(out, s, cap);
            }
        }
        AttrVal::Num(n) => {
            out.push_str("=\"");
            push_number(out, n);
            out.push('"');
        }
        AttrVal::Uid(u) => {
            let _ = write!(out, "={u}");
        }
        AttrVal::Scroll(s) => {
            out.push_str("=\"");
            push_scroll_summary(out, &s);
            out.push('"');
        }
    }
}

/// A number as JavaScript would print it (`2`, `0.5`).
pub(crate) fn push_number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push('0');
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        let _ = write!(out, "{}", n as i64);
    } else {
        let _ = write!(out, "{n}");
    }
}

#[cfg(test)]
mod tests;
