//! The page model: one arena holding the DOM of every document of a capture, their layout boxes
//! and the accessibility tree, merged by `backendNodeId`.
//!
//! Why it looks like this:
//! - **One flat arena in flat-tree pre-order.** Same-process iframe documents are stitched under
//!   their `<iframe>` owner (the snapshot's `contentDocumentIndex`), so every node's subtree is the
//!   contiguous range `id..subtree_end`. Walking a subtree is a loop over indices, "is a descendant
//!   of" is two comparisons, and no node owns a `Vec` of children.
//! - **Strings stay in the snapshot's string table.** `DOMSnapshot.captureSnapshot` already
//!   deduplicates every string; the model keeps that table (moved, not copied) and refers to it by
//!   [`StrId`]. Strings the model adds (lower-cased tag names, AX roles and names) are appended.
//! - **Computed styles are parsed once** into small enums and numbers ([`Style`]), so the analysis
//!   never compares strings in its hot loops.
//! - **Boxes share their styles.** A page has a few hundred distinct computed styles and up to
//!   hundreds of thousands of boxes; each box holds a [`StyleId`] into [`Model::styles`] rather
//!   than a copy, which keeps the box table (streamed through memory by every stage) small.
//! - **Typed ids** ([`NodeId`], [`LayoutId`], [`AxId`], [`DocId`], [`StrId`], [`StyleId`])
//!   instead of bare integers, so an index of one arena cannot be used in another by mistake.
//!
//! Coordinates in the model are those of the snapshot: CSS px in the *document* coordinates of the
//! node's own document (viewport position plus that document's scroll offset). The analysis turns
//! them into top-level viewport coordinates.

mod ax;
mod backend_index;
mod build;
mod radius;
mod rect;
mod style;

pub use ax::{AxNode, AxProp, AxProperty, AxValue};
pub use rect::{Point, Rect};

pub use build::ModelLimits;
pub use style::{
    BorderRadii, ClipPath, ClipRect, ContentVisibility, Cursor, Display, EllipseShape, Float,
    InsetLength, InsetLengths, Overflow, PointerEvents, PolygonShape, Position, ShapeRadius, Style,
    Visibility,
};

use std::fmt;
use std::num::NonZeroU32;

/// Declares an id type: an index into one arena that is never `u32::MAX`, so that an
/// `Option` of it takes four bytes, not eight. Every stage streams whole tables of records
/// holding optional ids, and the smaller records keep more of a long page in the caches.
macro_rules! arena_id {
    ($($(#[$meta:meta])* $t:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $t(NonZeroU32);

        impl $t {
            /// The id of entry `index` of its arena.
            ///
            /// Panics for `u32::MAX`: the model refuses captures whose tables come near that
            /// size (see [`ModelLimits`]), so an arena never holds that many entries.
            #[inline]
            pub const fn new(index: u32) -> Self {
                // Stored inverted: `!index` is zero only for `u32::MAX`, which leaves zero as
                // the niche `Option` uses for `None`.
                match NonZeroU32::new(!index) {
                    Some(inverted) => $t(inverted),
                    None => panic!(concat!(stringify!($t), " out of range")),
                }
            }

            /// The index as a `u32`.
            #[inline]
            pub const fn get(self) -> u32 {
                !self.0.get()
            }

            /// The id as a `usize` index into its arena.
            #[inline]
            pub const fn index(self) -> usize {
                self.get() as usize
            }
        }

        impl Default for $t {
            fn default() -> Self {
                $t::new(0)
            }
        }

        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $t {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.get().cmp(&other.get())
            }
        }

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($t), "({})"), self.get())
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.get())
            }
        }
    )*};
}

arena_id! {
    /// Index of a DOM node in [`Model::nodes`] (flat-tree pre-order over all stitched documents).
    NodeId;
    /// Index of a layout box in [`Model::layouts`].
    LayoutId;
    /// Index of an accessibility node in [`Model::ax_nodes`].
    AxId;
    /// Index of a document in [`Model::docs`]; document 0 is the top-level document.
    DocId;
    /// Index of a string in [`Model::strings`].
    StrId;
    /// Index of a distinct computed style in [`Model::styles`]; [`StyleId::INITIAL`] is
    /// [`Style::default()`] (every property at its initial value).
    StyleId;
}

impl StyleId {
    /// The style of a box the capture gave no computed styles for.
    pub const INITIAL: StyleId = StyleId::new(0);
}

/// The DOM node type (`nodeType` of the snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    Element,
    Attribute,
    Text,
    CData,
    ProcessingInstruction,
    Comment,
    Document,
    DocumentType,
    DocumentFragment,
    /// A node type this model does not know.
    Other,
}

impl NodeKind {
    /// From the DOM `nodeType` number.
    pub fn from_node_type(t: i64) -> Self {
        match t {
            1 => NodeKind::Element,
            2 => NodeKind::Attribute,
            3 => NodeKind::Text,
            4 => NodeKind::CData,
            7 => NodeKind::ProcessingInstruction,
            8 => NodeKind::Comment,
            9 => NodeKind::Document,
            10 => NodeKind::DocumentType,
            11 => NodeKind::DocumentFragment,
            _ => NodeKind::Other,
        }
    }
}

/// Which pseudo-element a node is (`pseudoType` of the snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PseudoKind {
    Before,
    After,
    Marker,
    FirstLetter,
    Backdrop,
    /// Any other pseudo-element (`::selection`, `::scroll-marker`, view transitions, ...).
    Other,
}

impl PseudoKind {
    /// From the protocol's pseudo type name (`"before"`, `"after"`, `"marker"`, ...).
    pub fn from_name(name: &str) -> Self {
        match name {
            "before" => PseudoKind::Before,
            "after" => PseudoKind::After,
            "marker" => PseudoKind::Marker,
            "first-letter" => PseudoKind::FirstLetter,
            "backdrop" => PseudoKind::Backdrop,
            _ => PseudoKind::Other,
        }
    }
}

/// One DOM node.
#[derive(Debug, Clone)]
pub struct Node {
    /// The DOM node type.
    pub kind: NodeKind,
    /// The document the node belongs to.
    pub doc: DocId,
    /// The parent in the stitched flat tree; a child document's `#document` has its `<iframe>`
    /// owner as parent. `None` only for roots.
    pub parent: Option<NodeId>,
    /// One past the last node of this node's subtree: the subtree is `self..subtree_end`.
    pub subtree_end: NodeId,
    /// Depth in the stitched tree (0 for the top-level `#document`).
    pub depth: u32,
    /// The `backendNodeId` (unique per renderer process; stable while the node lives). The
    /// protocol's `DOM.BackendNodeId` is a 32-bit integer; the model refuses a capture with
    /// one outside that range.
    pub backend_node_id: i32,
    /// `nodeName` as the snapshot gives it (`DIV`, `#text`, `::before`, `svg`).
    pub name: StrId,
    /// Lower-cased `nodeName` for elements (`div`, `svg`, `::before`); equal to `name` otherwise.
    pub tag: StrId,
    /// `nodeValue` (text of text and comment nodes).
    pub value: Option<StrId>,
    /// This node's attributes: `Model::attrs[attrs_start..attrs_end]`.
    pub attrs_start: u32,
    pub attrs_end: u32,
    /// The node's first (usually only) layout box; `None` = not rendered (`display:none`,
    /// `display:contents`, inside a skipped `content-visibility` subtree, `<head>`, ...).
    pub layout: Option<LayoutId>,
    /// Set for pseudo-elements (`::before`, `::after`, `::marker`, ...).
    pub pseudo: Option<PseudoKind>,
    /// The snapshot's boolean facts of the node, read with [`Node::input_checked`],
    /// [`Node::option_selected`] and [`Node::is_clickable`]: one byte, not three, keeps the
    /// node within 56 bytes.
    pub flags: NodeFlags,
    /// For an `<iframe>`/`<frame>`/`<object>`: the same-process child document.
    pub content_document: Option<DocId>,
    /// The accessibility node of this DOM node, if the AX tree has one.
    pub ax: Option<AxId>,
}

/// The snapshot's strings that few nodes have (see [`Model::rare_strings`]).
///
/// Kept apart from [`Node`]: every stage streams all nodes through memory, and on a long page
/// four mostly empty fields made each node half as large again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RareStrings {
    /// `shadowRootType` (`user-agent`, `open`, `closed`) of a shadow root.
    pub shadow_root_type: Option<StrId>,
    /// The current value of `<input>` / `<textarea>` / `<select>` (`inputValue`).
    pub input_value: Option<StrId>,
    /// `textValue`: the text of a `<textarea>`.
    pub text_value: Option<StrId>,
    /// `currentSourceURL` of images and media.
    pub current_source_url: Option<StrId>,
}

/// The boolean facts of a [`Node`], one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeFlags(u8);

impl NodeFlags {
    /// `inputChecked`: a checked checkbox or radio button.
    pub const INPUT_CHECKED: NodeFlags = NodeFlags(1);
    /// `optionSelected`: a selected `<option>`.
    pub const OPTION_SELECTED: NodeFlags = NodeFlags(2);
    /// `isClickable`: Chromium thinks the node reacts to clicks (listeners included).
    pub const IS_CLICKABLE: NodeFlags = NodeFlags(4);

    /// Whether every flag of `other` is set.
    #[inline]
    pub fn contains(self, other: NodeFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets the flags of `other`.
    #[inline]
    pub fn insert(&mut self, other: NodeFlags) {
        self.0 |= other.0;
    }
}

impl Node {
    /// `inputChecked`: a checked checkbox or radio button.
    #[inline]
    pub fn input_checked(&self) -> bool {
        self.flags.contains(NodeFlags::INPUT_CHECKED)
    }

    /// `optionSelected`: a selected `<option>`.
    #[inline]
    pub fn option_selected(&self) -> bool {
        self.flags.contains(NodeFlags::OPTION_SELECTED)
    }

    /// `isClickable`: Chromium thinks the node reacts to clicks (listeners included).
    #[inline]
    pub fn is_clickable(&self) -> bool {
        self.flags.contains(NodeFlags::IS_CLICKABLE)
    }

    #[inline]
    pub fn is_element(&self) -> bool {
        self.kind == NodeKind::Element
    }

    #[inline]
    pub fn is_text(&self) -> bool {
        self.kind == NodeKind::Text || self.kind == NodeKind::CData
    }
}

/// An attribute of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    pub name: StrId,
    pub value: StrId,
}

/// [`LayoutBox::rects`] of a box without client or scroll rectangles.
pub const NO_BOX_RECTS: u32 = u32::MAX;

/// The client and scroll rectangles of one layout box, when DOM rects were captured for it.
///
/// Kept apart from [`LayoutBox`]: few boxes have them in a live snapshot (only those geometry
/// needs are read), and a long page's boxes are streamed through memory by every stage, so each
/// box is better without eighty bytes that are mostly empty.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BoxRects {
    /// `clientRects` (`clientLeft/Top/Width/Height`: the padding box, without scrollbars,
    /// relative to the border box).
    pub client: Option<Rect>,
    /// `scrollRects` (`scrollLeft/Top/Width/Height`).
    pub scroll: Option<Rect>,
}

/// One layout box (an entry of the snapshot's `layout` table).
#[derive(Debug, Clone)]
pub struct LayoutBox {
    /// The DOM node the box belongs to.
    pub node: NodeId,
    /// Border box, document coordinates of the node's own document, CSS px.
    pub bounds: Rect,
    /// `paintOrders`: the number of the box's paint layer (see docs/chromium-facts.md, item 7).
    pub paint_order: i64,
    /// `stackingContexts`: the box's layer is a stacking context.
    pub stacking_context: bool,
    /// Parsed computed style, in [`Model::styles`]; read it with [`Model::style`].
    pub style: StyleId,
    /// `text` of the box: the rendered text of text boxes and pseudo-element text.
    pub text: Option<StrId>,
    /// Its client and scroll rectangles in [`Model::box_rects`], or [`NO_BOX_RECTS`]; read them
    /// with [`Model::client_rect`] and [`Model::scroll_rect`].
    pub rects: u32,
    /// The box's text fragments: `Model::text_boxes[text_boxes_start..text_boxes_end]`.
    pub text_boxes_start: u32,
    pub text_boxes_end: u32,
    /// Another layout box of the same node (rare: continuations), if any.
    pub next_for_node: Option<LayoutId>,
}

/// One text fragment (an entry of the snapshot's `textBoxes`): one line's worth of a text box.
#[derive(Debug, Clone, Copy)]
pub struct TextBox {
    /// The layout box the fragment belongs to.
    pub layout: LayoutId,
    /// Document coordinates, CSS px, as tall as the font.
    pub bounds: Rect,
    /// Offset and length of the fragment in the layout box's `text`, in UTF-16 code units.
    pub start: u32,
    pub length: u32,
}

/// One document (the top-level one or a same-process iframe's).
#[derive(Debug, Clone)]
pub struct Document {
    /// The `#document` node.
    pub root: NodeId,
    /// The `<iframe>` (or `<frame>`, `<object>`) element that owns this document.
    pub owner: Option<NodeId>,
    /// The frame id (from the snapshot, else the frame tree).
    pub frame_id: Option<StrId>,
    /// `documentURL`.
    pub url: Option<StrId>,
    /// `baseURL`.
    pub base_url: Option<StrId>,
    /// `title`.
    pub title: Option<StrId>,
    /// The frame's `loaderId` from the frame tree: changes when the frame navigates.
    pub loader_id: Option<StrId>,
    /// The renderer target this document was captured from (0 = the page's own target).
    pub target: u32,
    /// `scrollOffsetX/Y`: integer CSS px the document is scrolled by.
    pub scroll_x: f64,
    pub scroll_y: f64,
    /// `contentWidth/Height`: the document's scrollable size, CSS px.
    pub content_width: f64,
    pub content_height: f64,
}

/// Page-level metrics from `Page.getLayoutMetrics` (CSS px).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PageMetrics {
    /// Layout viewport size (without scrollbars).
    pub viewport_width: f64,
    pub viewport_height: f64,
    /// Layout viewport scroll position.
    pub scroll_x: f64,
    pub scroll_y: f64,
    /// Visual viewport offset inside the layout viewport (pinch zoom), and its scale.
    pub visual_offset_x: f64,
    pub visual_offset_y: f64,
    pub visual_scale: f64,
    /// Content size of the top-level document.
    pub content_width: f64,
    pub content_height: f64,
    /// Device pixel ratio (device px per CSS px), from the visual viewport's `zoom` and the
    /// ratio of device to CSS sizes.
    pub device_pixel_ratio: f64,
}

/// The page: every node, box, document and accessibility node of one capture.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// The page URL of the capture.
    pub url: String,
    /// The page title of the capture.
    pub title: String,
    /// The string table (the snapshot's, plus strings the model added).
    pub strings: Vec<String>,
    /// DOM nodes in flat-tree pre-order.
    pub nodes: Vec<Node>,
    /// Attributes of all elements.
    pub attrs: Vec<Attr>,
    /// Layout boxes.
    pub layouts: Vec<LayoutBox>,
    /// The distinct computed styles of the layout boxes, read with [`Model::style`]; index 0
    /// ([`StyleId::INITIAL`]) is [`Style::default()`].
    pub styles: Vec<Style>,
    /// Text fragments of all layout boxes.
    pub text_boxes: Vec<TextBox>,
    /// Client and scroll rectangles of the layout boxes that have them (see [`BoxRects`]).
    pub box_rects: Vec<BoxRects>,
    /// Documents; 0 is the top-level document.
    pub docs: Vec<Document>,
    /// The nodes that have any [`RareStrings`], sorted by node; read them with
    /// [`Model::rare_strings`].
    pub rare: Vec<(NodeId, RareStrings)>,
    /// Accessibility nodes.
    pub ax_nodes: Vec<AxNode>,
    /// Properties of all AX nodes.
    pub ax_props: Vec<AxProperty>,
    /// Children lists of all AX nodes.
    pub ax_children: Vec<AxId>,
    /// Roots of the AX trees (one per captured frame, usually `RootWebArea`).
    pub ax_roots: Vec<AxId>,
    /// Page metrics.
    pub metrics: PageMetrics,
    /// Which computed styles the capture had (by our parsing), for callers that need to know
    /// whether a rule could be applied at all.
    pub styles_present: style::StylesPresent,
    /// `<iframe>` elements whose content could not be captured, with the reason: shown as such
    /// rather than as empty frames.
    pub uncaptured_frames: Vec<(NodeId, String)>,
    /// (target, backendNodeId) -> node.
    by_backend: backend_index::BackendIndex,
}

/// The text content of a subtree is cut at this many bytes by default.
pub const DEFAULT_TEXT_CAP: usize = 2000;

impl Model {
    /// The string with this id ("" for an id out of range).
    #[inline]
    pub fn str(&self, id: StrId) -> &str {
        self.strings
            .get(id.index())
            .map(String::as_str)
            .unwrap_or("")
    }

    /// The client rectangle of a box (`clientLeft/Top/Width/Height`), when captured.
    #[inline]
    pub fn client_rect(&self, layout: &LayoutBox) -> Option<Rect> {
        self.box_rects.get(layout.rects as usize)?.client
    }

    /// The scroll rectangle of a box (`scrollLeft/Top/Width/Height`), when captured.
    #[inline]
    pub fn scroll_rect(&self, layout: &LayoutBox) -> Option<Rect> {
        self.box_rects.get(layout.rects as usize)?.scroll
    }

    /// The string of an optional id.
    #[inline]
    pub fn opt_str(&self, id: Option<StrId>) -> Option<&str> {
        id.map(|s| self.str(s))
    }

    /// Why the content of this `<iframe>` is not in the model, if it could not be captured.
    pub fn uncaptured_reason(&self, iframe: NodeId) -> Option<&str> {
        self.uncaptured_frames
            .iter()
            .find(|(n, _)| *n == iframe)
            .map(|(_, r)| r.as_str())
    }

    /// The node with this id.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// No nodes at all.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// All node ids in pre-order.
    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> + DoubleEndedIterator {
        (0..self.nodes.len() as u32).map(NodeId::new)
    }

    /// The layout box with this id.
    #[inline]
    pub fn layout(&self, id: LayoutId) -> &LayoutBox {
        &self.layouts[id.index()]
    }

    /// The node's (first) layout box.
    #[inline]
    pub fn layout_of(&self, id: NodeId) -> Option<&LayoutBox> {
        self.node(id).layout.map(|l| self.layout(l))
    }

    /// The parsed computed style of a layout box.
    ///
    /// An id the table does not hold (a model assembled by hand that left [`Model::styles`]
    /// empty) reads as the initial style, which is what [`StyleId::INITIAL`] stands for.
    #[inline]
    pub fn style(&self, layout: &LayoutBox) -> &Style {
        self.styles
            .get(layout.style.index())
            .unwrap_or(&Style::INITIAL)
    }

    /// The node's parsed computed style, if it has a layout box.
    #[inline]
    pub fn style_of(&self, id: NodeId) -> Option<&Style> {
        self.layout_of(id).map(|l| self.style(l))
    }

    /// The text fragments of a layout box.
    pub fn text_boxes_of(&self, id: LayoutId) -> &[TextBox] {
        let l = self.layout(id);
        &self.text_boxes[l.text_boxes_start as usize..l.text_boxes_end as usize]
    }

    /// The document with this id.
    #[inline]
    pub fn doc(&self, id: DocId) -> &Document {
        &self.docs[id.index()]
    }

    /// Lower-case tag name of an element (`div`, `::before` for pseudo-elements); `None` for
    /// other nodes.
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        let n = self.node(id);
        n.is_element().then(|| self.str(n.tag))
    }

    /// The ids of the strings `matches` accepts: to look for a rare tag or attribute name by
    /// id in a pass over every node, rather than comparing each node's string. Empty when the
    /// page has none, which lets that pass be skipped.
    pub fn string_ids(&self, matches: impl Fn(&str) -> bool) -> Vec<StrId> {
        self.strings
            .iter()
            .enumerate()
            .filter(|(_, s)| matches(s))
            .map(|(k, _)| StrId::new(k as u32))
            .collect()
    }

    /// Whether the node is an element with this (lower-case) tag name.
    #[inline]
    pub fn is_tag(&self, id: NodeId, tag: &str) -> bool {
        let n = self.node(id);
        n.is_element() && self.str(n.tag) == tag
    }

    /// The node's attributes.
    pub fn attrs(&self, id: NodeId) -> &[Attr] {
        let n = self.node(id);
        &self.attrs[n.attrs_start as usize..n.attrs_end as usize]
    }

    /// The value of the attribute `name` (ASCII case-insensitive), if present.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        self.attrs(id)
            .iter()
            .find(|a| self.str(a.name).eq_ignore_ascii_case(name))
            .map(|a| self.str(a.value))
    }

    /// Whether the attribute `name` is present.
    pub fn has_attr(&self, id: NodeId, name: &str) -> bool {
        self.attr(id, name).is_some()
    }

    /// The node's direct children, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            model: self,
            next: id.get() + 1,
            end: self.node(id).subtree_end.get(),
        }
    }

    /// The node's ancestors, nearest first (not including the node).
    pub fn ancestors(&self, id: NodeId) -> Ancestors<'_> {
        Ancestors {
            model: self,
            next: self.node(id).parent,
        }
    }

    /// Whether `descendant` is in the subtree of `ancestor` (inclusive).
    #[inline]
    pub fn contains(&self, ancestor: NodeId, descendant: NodeId) -> bool {
        descendant >= ancestor && descendant < self.node(ancestor).subtree_end
    }

    /// The node's parent element (skipping nothing: `None` if the parent is not an element).
    pub fn parent_element(&self, id: NodeId) -> Option<NodeId> {
        self.node(id).parent.filter(|p| self.node(*p).is_element())
    }

    /// The text content of a subtree: the values of its text nodes plus the text of its
    /// `::before`/`::after` pseudo-elements, whitespace collapsed, cut at about `cap` bytes.
    /// Text inside `<script>`, `<style>`, `<template>`, `<noscript>` and child documents is skipped.
    pub fn text_content(&self, id: NodeId, cap: usize) -> String {
        let mut out = String::new();
        let end = self.node(id).subtree_end.get();
        let doc = self.node(id).doc;
        let mut i = id.get();
        let mut pending_space = false;
        while i < end && out.len() < cap {
            let n = &self.nodes[i as usize];
            if n.doc != doc {
                i = n.subtree_end.get();
                continue;
            }
            if n.is_element() {
                if n.pseudo.is_none()
                    && matches!(
                        self.str(n.tag),
                        "script" | "style" | "template" | "noscript" | "head"
                    )
                {
                    i = n.subtree_end.get();
                    continue;
                }
                if matches!(n.pseudo, Some(PseudoKind::Before | PseudoKind::After)) {
                    // Pseudo-element text is on its layout box, or on its text child's.
                    let text = n
                        .layout
                        .and_then(|l| self.layout(l).text)
                        .filter(|t| !self.str(*t).is_empty());
                    if let Some(t) = text {
                        push_collapsed(&mut out, self.str(t), &mut pending_space, cap);
                        i = n.subtree_end.get();
                        continue;
                    }
                }
            } else if n.is_text() {
                let text = n.value.map(|v| self.str(v)).unwrap_or_else(|| {
                    n.layout
                        .and_then(|l| self.layout(l).text)
                        .map(|t| self.str(t))
                        .unwrap_or("")
                });
                push_collapsed(&mut out, text, &mut pending_space, cap);
            }
            i += 1;
        }
        out
    }

    /// The node with this `backendNodeId` in the page's own target.
    pub fn node_by_backend_id(&self, backend_node_id: i64) -> Option<NodeId> {
        self.by_backend.get(0, backend_node_id)
    }

    /// The node with this `backendNodeId` in a given target (0 = the page's own).
    pub fn node_by_target_backend_id(&self, target: u32, backend_node_id: i64) -> Option<NodeId> {
        self.by_backend.get(target, backend_node_id)
    }

    /// The root element (`<html>`) of a document, if any.
    pub fn document_element(&self, doc: DocId) -> Option<NodeId> {
        let root = self.doc(doc).root;
        self.children(root).find(|c| self.node(*c).is_element())
    }

    // ----- accessibility -----

    /// The AX node with this id.
    #[inline]
    pub fn ax(&self, id: AxId) -> &AxNode {
        &self.ax_nodes[id.index()]
    }

    /// The AX node of a DOM node.
    #[inline]
    pub fn ax_of(&self, id: NodeId) -> Option<&AxNode> {
        self.node(id).ax.map(|a| self.ax(a))
    }

    /// Children of an AX node.
    pub fn ax_children(&self, id: AxId) -> &[AxId] {
        let a = self.ax(id);
        &self.ax_children[a.children_start as usize..a.children_end as usize]
    }

    /// Properties of an AX node.
    pub fn ax_props(&self, id: AxId) -> &[AxProperty] {
        let a = self.ax(id);
        &self.ax_props[a.props_start as usize..a.props_end as usize]
    }

    /// The value of one AX property.
    pub fn ax_prop(&self, id: AxId, name: AxProp) -> Option<AxValue> {
        self.ax_props(id)
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value)
    }

    /// Whether a boolean AX property is present and true (`Mixed` counts as true).
    pub fn ax_flag(&self, id: AxId, name: AxProp) -> bool {
        self.ax_prop(id, name).is_some_and(|v| v.is_truthy())
    }

    /// The AX role of a DOM node (`button`, `link`, ...).
    pub fn role(&self, id: NodeId) -> Option<&str> {
        self.ax_of(id).and_then(|a| self.opt_str(a.role))
    }

    /// The accessible name of a DOM node.
    pub fn ax_name(&self, id: NodeId) -> Option<&str> {
        self.ax_of(id).and_then(|a| self.opt_str(a.name))
    }

    /// The AX role of an AX node.
    pub fn ax_role(&self, id: AxId) -> Option<&str> {
        self.opt_str(self.ax(id).role)
    }

    /// The text of an AX value (`Str`), or its number / boolean spelled out.
    pub fn ax_value_text(&self, v: AxValue) -> Option<String> {
        match v {
            AxValue::Str(s) => Some(self.str(s).to_string()),
            AxValue::Number(n) => Some(format_number(n)),
            AxValue::Bool(b) => Some(b.to_string()),
            AxValue::Mixed => Some("mixed".to_string()),
            AxValue::Other => None,
        }
    }

    /// The checked state: `Some(Checked::True | False | Mixed)` for checkable nodes. From the AX
    /// tree when present, else from the snapshot's `inputChecked` for checkboxes and radios.
    pub fn checked(&self, id: NodeId) -> Option<Checked> {
        if let Some(a) = self.node(id).ax {
            match self.ax_prop(a, AxProp::Checked) {
                Some(AxValue::Bool(true)) => return Some(Checked::True),
                Some(AxValue::Bool(false)) => return Some(Checked::False),
                Some(AxValue::Mixed) => return Some(Checked::Mixed),
                Some(AxValue::Str(s)) => {
                    return Some(match self.str(s) {
                        "true" => Checked::True,
                        "mixed" => Checked::Mixed,
                        _ => Checked::False,
                    })
                }
                _ => {}
            }
        }
        if self.is_tag(id, "input") {
            let ty = self.attr(id, "type").unwrap_or("");
            if ty.eq_ignore_ascii_case("checkbox") || ty.eq_ignore_ascii_case("radio") {
                return Some(if self.node(id).input_checked() {
                    Checked::True
                } else {
                    Checked::False
                });
            }
        }
        None
    }

    /// The node's rare snapshot strings (all `None` for most nodes).
    pub fn rare_strings(&self, id: NodeId) -> RareStrings {
        self.rare
            .binary_search_by_key(&id, |&(n, _)| n)
            .map(|k| self.rare[k].1)
            .unwrap_or_default()
    }

    /// The current value of a form control: `inputValue` / `textValue` from the snapshot, else
    /// the AX value.
    pub fn form_value(&self, id: NodeId) -> Option<&str> {
        let rare = self.rare_strings(id);
        if let Some(v) = rare.input_value.or(rare.text_value) {
            return Some(self.str(v));
        }
        match self.ax_of(id).and_then(|a| a.value) {
            Some(AxValue::Str(s)) => Some(self.str(s)),
            _ => None,
        }
    }

    pub(crate) fn by_backend_mut(&mut self) -> &mut backend_index::BackendIndex {
        &mut self.by_backend
    }
}

/// A tri-state checked value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Checked {
    True,
    False,
    Mixed,
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn push_collapsed(out: &mut String, text: &str, pending_space: &mut bool, cap: usize) {
    for ch in text.chars() {
        if out.len() >= cap {
            return;
        }
        if ch.is_whitespace() {
            *pending_space = !out.is_empty();
        } else {
            if *pending_space {
                out.push(' ');
                *pending_space = false;
            }
            out.push(ch);
        }
    }
}

/// Iterator over a node's children (see [`Model::children`]).
pub struct Children<'a> {
    model: &'a Model,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId::new(self.next);
        self.next = self.model.nodes[self.next as usize].subtree_end.get();
        Some(id)
    }
}

/// Iterator over a node's ancestors (see [`Model::ancestors`]).
pub struct Ancestors<'a> {
    model: &'a Model,
    next: Option<NodeId>,
}

impl Iterator for Ancestors<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let id = self.next?;
        self.next = self.model.node(id).parent;
        Some(id)
    }
}

#[cfg(test)]
pub(crate) mod tests;
