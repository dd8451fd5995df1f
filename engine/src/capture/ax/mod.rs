//! A lean typed reply for `Accessibility.getFullAXTree` (and `getPartialAXTree`, which answers in
//! the same shape): only what the model reads, held flat.
//!
//! The generated bindings ([`crate::cdp`]) stay the one way pagesight speaks CDP; this module
//! does not replace them. It is a *projection* of one reply, the largest the engine asks for,
//! onto the fields the model uses (see `model::build::add_ax_tree`): `nodeId`, `ignored`, the
//! `value` of `role`, `name`, `description` and `value`, the properties' `name` and `value`,
//! `parentId`, `childIds`, `backendDOMNodeId` and `frameId`. [`GetFullAxTree`] sends the same
//! method with the same parameters as the generated `GetFullAXTreeParams`; only its reply type
//! differs.
//!
//! Why: on a large page this one reply is most of what a snapshot parses and keeps. The
//! generated `Vec<AXNode>` holds every `sources` list, `chromeRole`, `ignoredReasons` and
//! related node, and every value as a `serde_json::Value`, several times the size of its JSON.
//! The fields skipped here are stepped over while parsing without allocating, node ids (decimal
//! strings from Chromium) are kept as integers, and the rest is held by [`AxNodes`]: one tree in
//! a dozen flat tables rather than a record per node, so a node costs no allocation of its own
//! (a record per node, with its own strings and lists, made many small allocations per node,
//! whose cost grew faster than the page).
//!
//! Tolerance is that of the generated bindings: unknown fields are ignored, value types and
//! property names are the generated enums, whose unknown values are kept as strings, an id that
//! is not a plain decimal integer is kept as text, and `null` lists read as empty. Capture files
//! written with the full generated nodes still load (their extra fields are skipped); what
//! [`AxNodes`] writes is still valid `AXNode` JSON.

use crate::cdp::accessibility::{
    AXPropertyName, AXValueType, GetFullAXTreeParams, GetPartialAXTreeParams,
};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

use crate::error::Result;
use crate::transport::RawJson;

mod reader;
pub(crate) mod split;
use reader::read_node;

/// `Accessibility.getFullAXTree` with the same parameters as the generated
/// [`GetFullAXTreeParams`], answered as a lean [`FullAxTree`].
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GetFullAxTree {
    /// The maximum depth at which descendants of the root node should be retrieved; `None` for
    /// the whole tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// The frame whose document's tree is wanted; `None` for the target's root frame.
    #[serde(rename = "frameId", skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
}

impl crate::cdp::Command for GetFullAxTree {
    const METHOD: &'static str = <GetFullAXTreeParams as crate::cdp::Command>::METHOD;
    type Response = FullAxTree;
}

/// `Accessibility.getPartialAXTree` for one DOM node, answered as a lean [`FullAxTree`] (the
/// reply has the same shape). Sent with `fetchRelatives: false`: the node alone, which
/// still carries its `parentId` and `childIds` (with relatives, Chromium adds the ancestors,
/// siblings and children — and lists some child ids twice), except for the few nodes of a
/// subtree whose children have no DOM node to ask for them by.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GetPartialAxTree {
    /// The DOM node whose accessibility node is wanted.
    #[serde(rename = "backendNodeId")]
    pub backend_node_id: i64,
    /// `false` but for the nodes above (see above).
    #[serde(rename = "fetchRelatives")]
    pub fetch_relatives: bool,
}

impl GetPartialAxTree {
    /// The accessibility node of one DOM node, without its relatives.
    pub fn of(backend_node_id: i64) -> GetPartialAxTree {
        GetPartialAxTree {
            backend_node_id,
            fetch_relatives: false,
        }
    }
}

impl crate::cdp::Command for GetPartialAxTree {
    const METHOD: &'static str = <GetPartialAXTreeParams as crate::cdp::Command>::METHOD;
    type Response = FullAxTree;
}

/// The reply of [`GetFullAxTree`] (and of [`GetPartialAxTree`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FullAxTree {
    /// The tree's nodes, as Chromium lists them.
    pub nodes: AxNodes,
}

impl FullAxTree {
    /// Reads a `getFullAXTree` reply. One in the shape Chromium writes
    /// (`{"nodes":[{"nodeId":…},…]}`) is read node by node by the engine's own reader
    /// (`ax/reader.rs`), a large one on two threads, each from its own place in the text
    /// (`split.rs`): on a long page this reply is read after Chromium's last answer, so its
    /// parse is time the snapshot waits for (stdtypes: 12 MB). Any other shape, or parts that
    /// do not read, are read the usual way.
    pub fn from_reply(raw: &RawJson) -> Result<FullAxTree> {
        FullAxTree::read_reply(raw, <GetFullAxTree as crate::cdp::Command>::METHOD)
    }

    /// [`FullAxTree::from_reply`] for the reply of `method` (`getPartialAXTree` answers in the
    /// same shape), which an error names.
    pub(crate) fn read_reply(raw: &RawJson, method: &str) -> Result<FullAxTree> {
        let text = raw.as_str();
        let parallel = text.len() >= SPLIT_BYTES && crate::parallel::two_cores();
        if let Some(nodes) = split::read_reply_nodes(text, parallel) {
            return Ok(FullAxTree { nodes });
        }
        raw.parse(method)
    }
}

/// From how many bytes a reply is read on two threads.
const SPLIT_BYTES: usize = 1 << 20;

/// The nodes of one accessibility tree (the protocol's `AXNode`s, the fields the engine reads),
/// in the order Chromium lists them, held in a few flat tables shared by the whole tree.
///
/// Why: a long page's tree has one or two accessibility nodes per DOM node. Held as one record
/// per node, with a string per name, a list per node's properties and children and a box per
/// rare field, it was about 240 bytes and several small allocations per node: at 300k DOM nodes
/// about 108 MB of records, past the size the allocator reuses, so every page of them came
/// fresh (zeroed) from the system, and the allocator's work grew faster than the tree. Here a
/// node is a 48-byte row of ids and offsets; its role, name, description and value are 16-byte
/// rows of one shared table, its properties rows of another, its child ids 8-byte entries of a
/// third, and every string is a range of one text buffer (a role Chromium names is a number in
/// `ROLES`): a tree is a dozen allocations whatever its size, and two halves read apart are
/// joined by appending each table with its offsets moved (see [`AxNodes::append`]).
///
/// Read through [`AxNodeRef`]s ([`AxNodes::iter`], [`AxNodes::get`]); written and read as the
/// protocol's JSON list of nodes.
#[derive(Clone, Default)]
pub struct AxNodes {
    rows: Vec<NodeRow>,
    /// Each node's role, name, description and value, those it has, in that order.
    values: Vec<ValueRow>,
    /// Each node's properties, in order.
    props: Vec<ValueRow>,
    /// Each node's child ids, in order.
    children: Vec<PackedKey>,
    /// Every string of the tree, one after the other.
    text: String,
    /// Ranges of `text` named by a node id that is not a number, or by a frame id.
    spans: Vec<Span>,
    /// The value types met, each once (a tree uses about ten).
    types: Vec<AXValueType>,
    /// The property names met, each once.
    prop_names: Vec<AXPropertyName>,
}

/// One node: its ids, where its values, properties and child ids start in their tables (each
/// ends where the next node's start), and flags.
#[derive(Clone, Copy)]
struct NodeRow {
    id: PackedKey,
    parent: PackedKey,
    backend: i64,
    values: u32,
    props: u32,
    children: u32,
    /// An index of `spans`, or [`NO_SPAN`].
    frame: u32,
    flags: u8,
}

const IGNORED: u8 = 1;
const HAS_BACKEND: u8 = 2;
/// The four values a node may have, in the order they are kept.
const HAS_ROLE: u8 = 4;
const HAS_NAME: u8 = 8;
const HAS_DESCRIPTION: u8 = 16;
const HAS_VALUE: u8 = 32;
const NO_SPAN: u32 = u32::MAX;

/// An `AXValue` (or a property, whose name it then holds): its type, an index of
/// [`AxNodes::types`], and a scalar whose `bits` [`Kind`] says how to read.
#[derive(Clone, Copy)]
struct ValueRow {
    bits: u64,
    type_: u16,
    /// For a property, an index of [`AxNodes::prop_names`].
    name: u16,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    None,
    Bool,
    /// A non-negative integer, as a `u64`.
    PosInt,
    /// A negative integer, as an `i64`.
    NegInt,
    /// A finite float, as its bits.
    Float,
    /// A range of the text: start in the high half, length in the low.
    Str,
    /// An index of [`ROLES`].
    Role,
}

/// A range of [`AxNodes::text`].
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn bits(self) -> u64 {
        (u64::from(self.start) << 32) | u64::from(self.len)
    }

    fn from_bits(bits: u64) -> Span {
        Span {
            start: (bits >> 32) as u32,
            len: bits as u32,
        }
    }
}

/// A node id in eight bytes: a canonical integer as itself (at most 18 digits, so well inside
/// `±2^60`), any other id as [`TEXT_KEY`] plus an index of [`AxNodes::spans`], no id as
/// [`NO_KEY`].
#[derive(Clone, Copy, PartialEq, Eq)]
struct PackedKey(i64);

const NO_KEY: i64 = i64::MAX;
/// The largest integer id kept as a number (18 digits, see `canonical_int`).
const MAX_INT_KEY: i64 = 999_999_999_999_999_999;
const TEXT_KEY: i64 = i64::MIN;
/// Text ids may use the range `TEXT_KEY..TEXT_KEY + MAX_TEXT_KEYS`, far below any integer id.
const MAX_TEXT_KEYS: usize = 1 << 60;

/// Why a tree could not be held: its text would pass 4 GiB, or it names more distinct value
/// types or property names than a table index holds.
const TOO_LARGE: &str = "the accessibility tree is too large to hold";

/// A node id as read from an [`AxNodes`]: a canonical integer, or the text of any other id. Two
/// ids are equal exactly when their protocol strings are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxKeyRef<'a> {
    /// A canonical decimal integer.
    Int(i64),
    /// Any other id, verbatim.
    Text(&'a str),
}

impl AxKeyRef<'_> {
    /// The owned key.
    pub fn to_key(self) -> AxNodeKey {
        match self {
            AxKeyRef::Int(i) => AxNodeKey::Int(i),
            AxKeyRef::Text(t) => AxNodeKey::Text(t.into()),
        }
    }
}

impl fmt::Display for AxKeyRef<'_> {
    /// The protocol string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxKeyRef::Int(i) => fmt::Display::fmt(i, f),
            AxKeyRef::Text(s) => f.write_str(s),
        }
    }
}

impl Serialize for AxKeyRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AxKeyRef::Int(i) => s.collect_str(i),
            AxKeyRef::Text(t) => s.serialize_str(t),
        }
    }
}

/// The scalar `value` of an `AXValue`: a string, number or boolean. Absent, `null`, and arrays
/// or objects (which the engine does not read) are all [`AxScalar::None`].
#[derive(Debug, Clone, PartialEq)]
pub enum AxScalar<'a> {
    /// No scalar value.
    None,
    /// A boolean.
    Bool(bool),
    /// A number, as JSON spelled it (integer or not).
    Number(serde_json::Number),
    /// A string.
    Str(&'a str),
}

/// One node of an [`AxNodes`].
#[derive(Clone, Copy)]
pub struct AxNodeRef<'a> {
    tree: &'a AxNodes,
    row: &'a NodeRow,
    k: usize,
}

/// An `AXValue` of a node (`role`, `name`, `description`, `value`) or of a property.
#[derive(Clone, Copy)]
pub struct AxValueRef<'a> {
    tree: &'a AxNodes,
    row: ValueRow,
}

/// An `AXProperty`: its name and value.
#[derive(Clone, Copy, PartialEq)]
pub struct AxPropertyRef<'a> {
    /// `name` (an unknown name is kept as a string).
    pub name: &'a AXPropertyName,
    /// `value`.
    pub value: AxValueRef<'a>,
}

impl AxNodes {
    /// Reads a JSON list of accessibility nodes (`getFullAXTree().nodes`): the value, or the
    /// error, of `serde_json::from_str::<AxNodes>`, each node read by the engine's own reader
    /// where it can (`ax/reader.rs`).
    pub fn from_json(text: &str) -> serde_json::Result<AxNodes> {
        match split::read_list(text) {
            Some(nodes) => Ok(nodes),
            None => serde_json::from_str(text),
        }
    }

    /// How many nodes there are.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no node.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Node `k`.
    pub fn get(&self, k: usize) -> Option<AxNodeRef<'_>> {
        Some(AxNodeRef {
            tree: self,
            row: self.rows.get(k)?,
            k,
        })
    }

    /// The nodes, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = AxNodeRef<'_>> + DoubleEndedIterator + '_ {
        self.rows
            .iter()
            .enumerate()
            .map(move |(k, row)| AxNodeRef { tree: self, row, k })
    }

    /// Keeps the first `len` nodes.
    pub fn truncate(&mut self, len: usize) {
        let Some(&first) = self.rows.get(len) else {
            return;
        };
        self.rows.truncate(len);
        self.values.truncate(first.values as usize);
        self.props.truncate(first.props as usize);
        self.children.truncate(first.children as usize);
        // Text and spans may be shared with earlier nodes' strings in no order: left as they
        // are (a truncated tree is a test's or a cut-down copy's, never a long page's).
    }

    /// Gives back the room growth left unused (a shrink in place costs no copy).
    pub fn shrink_to_fit(&mut self) {
        self.rows.shrink_to_fit();
        self.values.shrink_to_fit();
        self.props.shrink_to_fit();
        self.children.shrink_to_fit();
        self.text.shrink_to_fit();
        self.spans.shrink_to_fit();
    }

    /// Bytes held, for the benches (tables at their capacity).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.rows.capacity() * size_of::<NodeRow>()
            + (self.values.capacity() + self.props.capacity()) * size_of::<ValueRow>()
            + self.children.capacity() * size_of::<PackedKey>()
            + self.text.capacity()
            + self.spans.capacity() * size_of::<Span>()
    }

    /// Appends `other`'s nodes, moving its offsets past this tree's. `Err` (and this tree
    /// unchanged) when the two together are too large to hold.
    pub fn append(&mut self, other: AxNodes) -> Result<(), &'static str> {
        let text_at = self.text.len();
        let span_at = self.spans.len();
        if u32::try_from(text_at + other.text.len()).is_err()
            || span_at + other.spans.len() >= MAX_TEXT_KEYS
            || u32::try_from(self.values.len() + other.values.len()).is_err()
            || u32::try_from(self.props.len() + other.props.len()).is_err()
            || u32::try_from(self.children.len() + other.children.len()).is_err()
        {
            return Err(TOO_LARGE);
        }
        let types = other
            .types
            .iter()
            .map(|t| intern(&mut self.types, t))
            .collect::<Option<Vec<u16>>>()
            .ok_or(TOO_LARGE)?;
        let names = other
            .prop_names
            .iter()
            .map(|n| intern(&mut self.prop_names, n))
            .collect::<Option<Vec<u16>>>()
            .ok_or(TOO_LARGE)?;
        // Checked above: every offset below stays within `u32`, every text key below `NO_KEY`.
        let (text_at, span_at) = (text_at as u32, span_at as i64);
        let key = |k: PackedKey| match k.0 {
            NO_KEY => k,
            i if i < TEXT_KEY + MAX_TEXT_KEYS as i64 => PackedKey(i + span_at),
            _ => k,
        };
        let value = |mut v: ValueRow| {
            v.type_ = types.get(usize::from(v.type_)).copied().unwrap_or(v.type_);
            v.name = names.get(usize::from(v.name)).copied().unwrap_or(v.name);
            if v.kind == Kind::Str {
                let mut s = Span::from_bits(v.bits);
                s.start += text_at;
                v.bits = s.bits();
            }
            v
        };
        let (v0, p0, c0) = (
            self.values.len() as u32,
            self.props.len() as u32,
            self.children.len() as u32,
        );
        self.rows.reserve_exact(other.rows.len());
        self.rows.extend(other.rows.iter().map(|r| NodeRow {
            id: key(r.id),
            parent: key(r.parent),
            values: r.values + v0,
            props: r.props + p0,
            children: r.children + c0,
            frame: match r.frame {
                NO_SPAN => NO_SPAN,
                f => f + span_at as u32,
            },
            ..*r
        }));
        self.values.reserve_exact(other.values.len());
        self.values.extend(other.values.iter().map(|&v| value(v)));
        self.props.reserve_exact(other.props.len());
        self.props.extend(other.props.iter().map(|&v| value(v)));
        self.children.reserve_exact(other.children.len());
        self.children.extend(other.children.iter().map(|&k| key(k)));
        self.spans.extend(other.spans.iter().map(|s| Span {
            start: s.start + text_at,
            len: s.len,
        }));
        self.text.push_str(&other.text);
        Ok(())
    }

    /// Appends a copy of `node` (of this tree or another).
    pub fn push_node(&mut self, node: AxNodeRef<'_>) -> Result<(), &'static str> {
        self.push_node_with(node, None, |_| true)
    }

    /// Appends a copy of `node` with only the child ids `keep_child` accepts, and with `name`
    /// as its name when one is given (of the type its own name had, else `computedString`).
    pub fn push_node_with(
        &mut self,
        node: AxNodeRef<'_>,
        name: Option<&str>,
        keep_child: impl Fn(AxKeyRef<'_>) -> bool,
    ) -> Result<(), &'static str> {
        let (values, props, children) = self.starts()?;
        let id = self.push_key(node.node_id())?;
        let parent = match node.parent_id() {
            Some(p) => self.push_key(p)?,
            None => PackedKey(NO_KEY),
        };
        let mut flags = node.row.flags;
        if let Some(role) = node.role() {
            let row = self.copy_value(role, None)?;
            self.values.push(row);
        }
        match name {
            Some(text) => {
                let type_ = node
                    .name()
                    .map_or(AXValueType::ComputedString, |n| n.type_().clone());
                let type_ = intern(&mut self.types, &type_).ok_or(TOO_LARGE)?;
                let bits = self.push_text(text)?.bits();
                self.values.push(ValueRow {
                    bits,
                    type_,
                    name: 0,
                    kind: Kind::Str,
                });
                flags |= HAS_NAME;
            }
            None => {
                if let Some(name) = node.name() {
                    let row = self.copy_value(name, None)?;
                    self.values.push(row);
                }
            }
        }
        for v in [node.description(), node.value()].into_iter().flatten() {
            let row = self.copy_value(v, None)?;
            self.values.push(row);
        }
        for p in node.properties() {
            let row = self.copy_value(p.value, Some(p.name))?;
            self.props.push(row);
        }
        for c in node.child_ids().filter(|&c| keep_child(c)) {
            let c = self.push_key(c)?;
            self.children.push(c);
        }
        let frame = match node.frame_id() {
            Some(f) => self.push_span(f)?,
            None => NO_SPAN,
        };
        self.rows.push(NodeRow {
            id,
            parent,
            values,
            props,
            children,
            frame,
            flags,
            ..*node.row
        });
        Ok(())
    }

    /// Appends an ignored node without role, name or DOM node: a child `parent` lists that is
    /// not otherwise known, kept so that `parent` keeps its child count.
    pub fn push_stand_in(
        &mut self,
        id: AxKeyRef<'_>,
        parent: AxKeyRef<'_>,
    ) -> Result<(), &'static str> {
        let (values, props, children) = self.starts()?;
        let id = self.push_key(id)?;
        let parent = self.push_key(parent)?;
        self.rows.push(NodeRow {
            id,
            parent,
            backend: 0,
            values,
            props,
            children,
            frame: NO_SPAN,
            flags: IGNORED,
        });
        Ok(())
    }

    /// Where the next node's values, properties and child ids start.
    fn starts(&self) -> Result<(u32, u32, u32), &'static str> {
        let at = |n: usize| u32::try_from(n).map_err(|_| TOO_LARGE);
        Ok((
            at(self.values.len())?,
            at(self.props.len())?,
            at(self.children.len())?,
        ))
    }

    fn push_text(&mut self, s: &str) -> Result<Span, &'static str> {
        let start = u32::try_from(self.text.len()).map_err(|_| TOO_LARGE)?;
        let len = u32::try_from(s.len()).map_err(|_| TOO_LARGE)?;
        start.checked_add(len).ok_or(TOO_LARGE)?;
        self.text.push_str(s);
        Ok(Span { start, len })
    }

    /// `s` kept as a span of the text: its index.
    fn push_span(&mut self, s: &str) -> Result<u32, &'static str> {
        let span = self.push_text(s)?;
        let at = u32::try_from(self.spans.len())
            .ok()
            .filter(|&at| at != NO_SPAN)
            .ok_or(TOO_LARGE)?;
        self.spans.push(span);
        Ok(at)
    }

    fn push_key(&mut self, key: AxKeyRef<'_>) -> Result<PackedKey, &'static str> {
        match key {
            AxKeyRef::Int(i) if (-MAX_INT_KEY..=MAX_INT_KEY).contains(&i) => Ok(PackedKey(i)),
            AxKeyRef::Int(i) => self.push_text_key(&i.to_string()),
            AxKeyRef::Text(t) => self.push_id(t),
        }
    }

    /// The key of a protocol id.
    fn push_id(&mut self, s: &str) -> Result<PackedKey, &'static str> {
        match canonical_int(s) {
            Some(i) => Ok(PackedKey(i)),
            None => self.push_text_key(s),
        }
    }

    fn push_text_key(&mut self, s: &str) -> Result<PackedKey, &'static str> {
        if self.spans.len() >= MAX_TEXT_KEYS {
            return Err(TOO_LARGE);
        }
        let at = self.spans.len() as i64;
        let span = self.push_text(s)?;
        self.spans.push(span);
        Ok(PackedKey(TEXT_KEY + at))
    }

    fn copy_value(
        &mut self,
        v: AxValueRef<'_>,
        name: Option<&AXPropertyName>,
    ) -> Result<ValueRow, &'static str> {
        let type_ = intern(&mut self.types, v.type_()).ok_or(TOO_LARGE)?;
        let name = match name {
            Some(n) => intern(&mut self.prop_names, n).ok_or(TOO_LARGE)?,
            None => 0,
        };
        let mut row = ValueRow {
            type_,
            name,
            ..v.row
        };
        if v.row.kind == Kind::Str {
            row.bits = self.push_text(v.tree.str_at(v.row.bits))?.bits();
        }
        Ok(row)
    }

    fn str_at(&self, bits: u64) -> &str {
        let s = Span::from_bits(bits);
        let start = s.start as usize;
        self.text.get(start..start + s.len as usize).unwrap_or("")
    }

    fn key(&self, k: PackedKey) -> Option<AxKeyRef<'_>> {
        match k.0 {
            NO_KEY => None,
            i if i < TEXT_KEY + MAX_TEXT_KEYS as i64 => {
                let span = self.spans.get((i - TEXT_KEY) as usize)?;
                Some(AxKeyRef::Text(self.str_at(Span::bits(*span))))
            }
            i => Some(AxKeyRef::Int(i)),
        }
    }

    /// The end of node `k`'s run in a table whose runs start at `start(row)`.
    fn end_of(&self, k: usize, start: impl Fn(&NodeRow) -> u32, len: usize) -> usize {
        self.rows.get(k + 1).map_or(len, |r| start(r) as usize)
    }

    /// Room for `more` nodes like the ones read since `since` (the table sizes then), `read`
    /// of them.
    pub(crate) fn reserve_like(&mut self, since: &AxNodesSize, read: usize, more: usize) {
        let now = self.size();
        let grow = |now: usize, then: usize| (now - then.min(now)) * more / read.max(1) + 1;
        self.rows.reserve(more);
        self.values.reserve(grow(now.values, since.values));
        self.props.reserve(grow(now.props, since.props));
        self.children.reserve(grow(now.children, since.children));
        self.text.reserve(grow(now.text, since.text));
    }

    /// How long each table is, to measure a run of nodes.
    pub(crate) fn size(&self) -> AxNodesSize {
        AxNodesSize {
            values: self.values.len(),
            props: self.props.len(),
            children: self.children.len(),
            text: self.text.len(),
        }
    }

    /// Reads one node (a JSON object) onto the end.
    pub(crate) fn node_seed(&mut self) -> NodeSeed<'_> {
        NodeSeed(self)
    }
}

/// The lengths of an [`AxNodes`]' tables.
pub(crate) struct AxNodesSize {
    values: usize,
    props: usize,
    children: usize,
    text: usize,
}

/// `item`'s index in `table`, added when missing; `None` past `u16`.
fn intern<T: PartialEq + Clone>(table: &mut Vec<T>, item: &T) -> Option<u16> {
    if let Some(at) = table.iter().position(|t| t == item) {
        return u16::try_from(at).ok();
    }
    let at = u16::try_from(table.len()).ok()?;
    table.push(item.clone());
    Some(at)
}

/// [`intern`] for an owned item.
fn intern_owned<T: PartialEq>(table: &mut Vec<T>, item: T) -> Option<u16> {
    if let Some(at) = table.iter().position(|t| *t == item) {
        return u16::try_from(at).ok();
    }
    let at = u16::try_from(table.len()).ok()?;
    table.push(item);
    Some(at)
}

impl<'a> AxNodeRef<'a> {
    /// Its index in the tree.
    pub fn index(&self) -> usize {
        self.k
    }

    /// `nodeId`.
    pub fn node_id(&self) -> AxKeyRef<'a> {
        self.tree.key(self.row.id).unwrap_or(AxKeyRef::Int(0))
    }

    /// `ignored`: not exposed to assistive technology.
    pub fn ignored(&self) -> bool {
        self.row.flags & IGNORED != 0
    }

    /// The value flagged `which` (one of `HAS_ROLE`..`HAS_VALUE`).
    fn value_row(&self, which: u8) -> Option<AxValueRef<'a>> {
        if self.row.flags & which == 0 {
            return None;
        }
        // The values kept before this one.
        let before = (self.row.flags & (which - 1) & !(IGNORED | HAS_BACKEND)).count_ones();
        let row = *self
            .tree
            .values
            .get(self.row.values as usize + before as usize)?;
        Some(AxValueRef {
            tree: self.tree,
            row,
        })
    }

    /// `role`.
    pub fn role(&self) -> Option<AxValueRef<'a>> {
        self.value_row(HAS_ROLE)
    }

    /// `name`: the accessible name.
    pub fn name(&self) -> Option<AxValueRef<'a>> {
        self.value_row(HAS_NAME)
    }

    /// `description`.
    pub fn description(&self) -> Option<AxValueRef<'a>> {
        self.value_row(HAS_DESCRIPTION)
    }

    /// `value`.
    pub fn value(&self) -> Option<AxValueRef<'a>> {
        self.value_row(HAS_VALUE)
    }

    /// `properties`, in order.
    pub fn properties(&self) -> impl ExactSizeIterator<Item = AxPropertyRef<'a>> + Clone + 'a {
        let tree = self.tree;
        let end = tree.end_of(self.k, |r| r.props, tree.props.len());
        let rows = tree.props.get(self.row.props as usize..end).unwrap_or(&[]);
        rows.iter().map(move |&row| AxPropertyRef {
            name: tree
                .prop_names
                .get(usize::from(row.name))
                .unwrap_or(&AXPropertyName::Busy),
            value: AxValueRef { tree, row },
        })
    }

    /// `parentId`.
    pub fn parent_id(&self) -> Option<AxKeyRef<'a>> {
        self.tree.key(self.row.parent)
    }

    /// `childIds`, in order.
    pub fn child_ids(&self) -> impl ExactSizeIterator<Item = AxKeyRef<'a>> + Clone + 'a {
        let tree = self.tree;
        tree.children_of(self.k, self.row)
            .iter()
            .map(move |&k| tree.key(k).unwrap_or(AxKeyRef::Int(0)))
    }

    /// How many child ids there are.
    pub fn child_count(&self) -> usize {
        self.tree.children_of(self.k, self.row).len()
    }

    /// `backendDOMNodeId`.
    pub fn backend_dom_node_id(&self) -> Option<i64> {
        (self.row.flags & HAS_BACKEND != 0).then_some(self.row.backend)
    }

    /// `frameId` (Chromium sets it on the root only).
    pub fn frame_id(&self) -> Option<&'a str> {
        let span = self.tree.spans.get(self.row.frame as usize)?;
        Some(self.tree.str_at(span.bits()))
    }
}

impl AxNodes {
    fn children_of(&self, k: usize, row: &NodeRow) -> &[PackedKey] {
        let end = self.end_of(k, |r| r.children, self.children.len());
        self.children.get(row.children as usize..end).unwrap_or(&[])
    }
}

impl<'a> AxValueRef<'a> {
    /// `type` (an unknown type is kept as a string).
    pub fn type_(&self) -> &'a AXValueType {
        self.tree
            .types
            .get(usize::from(self.row.type_))
            .unwrap_or(&AXValueType::ValueUndefined)
    }

    /// `value`.
    pub fn scalar(&self) -> AxScalar<'a> {
        let bits = self.row.bits;
        match self.row.kind {
            Kind::None => AxScalar::None,
            Kind::Bool => AxScalar::Bool(bits != 0),
            Kind::PosInt => AxScalar::Number(bits.into()),
            Kind::NegInt => AxScalar::Number((bits as i64).into()),
            Kind::Float => serde_json::Number::from_f64(f64::from_bits(bits))
                .map_or(AxScalar::None, AxScalar::Number),
            Kind::Str => AxScalar::Str(self.tree.str_at(bits)),
            Kind::Role => AxScalar::Str(ROLES.get(bits as usize).copied().unwrap_or("")),
        }
    }

    /// The value when it is a string.
    pub fn as_str(&self) -> Option<&'a str> {
        match self.scalar() {
            AxScalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value when it is one of the role names Chromium sends, as a static string (each is
    /// one string whatever the number of nodes naming it).
    pub fn known_role(&self) -> Option<&'static str> {
        match self.row.kind {
            Kind::Role => ROLES.get(self.row.bits as usize).copied(),
            _ => None,
        }
    }
}

impl PartialEq for AxValueRef<'_> {
    fn eq(&self, other: &AxValueRef<'_>) -> bool {
        self.type_() == other.type_() && self.scalar() == other.scalar()
    }
}

impl fmt::Debug for AxValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxValue")
            .field("type", self.type_())
            .field("value", &self.scalar())
            .finish()
    }
}

impl fmt::Debug for AxPropertyRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxProperty")
            .field("name", self.name)
            .field("value", &self.value)
            .finish()
    }
}

impl PartialEq for AxNodeRef<'_> {
    fn eq(&self, other: &AxNodeRef<'_>) -> bool {
        self.node_id() == other.node_id()
            && self.ignored() == other.ignored()
            && self.role() == other.role()
            && self.name() == other.name()
            && self.description() == other.description()
            && self.value() == other.value()
            && self.properties().eq(other.properties())
            && self.parent_id() == other.parent_id()
            && self.child_ids().eq(other.child_ids())
            && self.backend_dom_node_id() == other.backend_dom_node_id()
            && self.frame_id() == other.frame_id()
    }
}

impl fmt::Debug for AxNodeRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AxNode")
            .field("node_id", &self.node_id())
            .field("ignored", &self.ignored())
            .field("role", &self.role())
            .field("name", &self.name())
            .field("description", &self.description())
            .field("value", &self.value())
            .field("properties", &self.properties().collect::<Vec<_>>())
            .field("parent_id", &self.parent_id())
            .field("child_ids", &self.child_ids().collect::<Vec<_>>())
            .field("backend_dom_node_id", &self.backend_dom_node_id())
            .field("frame_id", &self.frame_id())
            .finish()
    }
}

impl PartialEq for AxNodes {
    fn eq(&self, other: &AxNodes) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for AxNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for AxNodes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl Serialize for AxNodeRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("nodeId", &self.node_id())?;
        m.serialize_entry("ignored", &self.ignored())?;
        for (key, v) in [
            ("role", self.role()),
            ("name", self.name()),
            ("description", self.description()),
            ("value", self.value()),
        ] {
            if let Some(v) = v {
                m.serialize_entry(key, &v)?;
            }
        }
        if self.properties().len() > 0 {
            m.serialize_entry("properties", &Seq(self.properties()))?;
        }
        if let Some(p) = self.parent_id() {
            m.serialize_entry("parentId", &p)?;
        }
        if self.child_count() > 0 {
            m.serialize_entry("childIds", &Seq(self.child_ids()))?;
        }
        if let Some(b) = self.backend_dom_node_id() {
            m.serialize_entry("backendDOMNodeId", &b)?;
        }
        if let Some(f) = self.frame_id() {
            m.serialize_entry("frameId", f)?;
        }
        m.end()
    }
}

/// Writes the items of an iterator as a list.
struct Seq<I>(I);

impl<I: Iterator + Clone> Serialize for Seq<I>
where
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}

impl Serialize for AxPropertyRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("name", self.name)?;
        m.serialize_entry("value", &self.value)?;
        m.end()
    }
}

impl Serialize for AxValueRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let scalar = self.scalar();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", self.type_())?;
        match scalar {
            AxScalar::None => {}
            AxScalar::Bool(b) => m.serialize_entry("value", &b)?,
            AxScalar::Number(n) => m.serialize_entry("value", &n)?,
            AxScalar::Str(v) => m.serialize_entry("value", v)?,
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for AxNodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Nodes;
        impl<'de> Visitor<'de> for Nodes {
            type Value = AxNodes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of accessibility nodes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxNodes, A::Error> {
                let mut nodes = AxNodes::default();
                while seq.next_element_seed(NodeSeed(&mut nodes))?.is_some() {}
                nodes.shrink_to_fit();
                Ok(nodes)
            }
        }
        d.deserialize_seq(Nodes)
    }
}

/// Reads one `AXNode` onto the end of a tree.
pub(crate) struct NodeSeed<'t>(&'t mut AxNodes);

/// The keys of an `AXNode` the engine reads; any other is stepped over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NodeField {
    NodeId,
    Ignored,
    Role,
    Name,
    Description,
    Value,
    Properties,
    ParentId,
    ChildIds,
    BackendDomNodeId,
    FrameId,
    Other,
}

impl NodeField {
    fn of(key: &[u8]) -> NodeField {
        match key {
            b"nodeId" => NodeField::NodeId,
            b"ignored" => NodeField::Ignored,
            b"role" => NodeField::Role,
            b"name" => NodeField::Name,
            b"description" => NodeField::Description,
            b"value" => NodeField::Value,
            b"properties" => NodeField::Properties,
            b"parentId" => NodeField::ParentId,
            b"childIds" => NodeField::ChildIds,
            b"backendDOMNodeId" => NodeField::BackendDomNodeId,
            b"frameId" => NodeField::FrameId,
            _ => NodeField::Other,
        }
    }

    /// The place of a node's `AXValue` field in [`NodeRead::kept`].
    fn value_slot(self) -> usize {
        self as usize - NodeField::Role as usize
    }

    fn name(self) -> &'static str {
        match self {
            NodeField::NodeId => "nodeId",
            NodeField::Ignored => "ignored",
            NodeField::Role => "role",
            NodeField::Name => "name",
            NodeField::Description => "description",
            NodeField::Value => "value",
            NodeField::Properties => "properties",
            NodeField::ParentId => "parentId",
            NodeField::ChildIds => "childIds",
            NodeField::BackendDomNodeId => "backendDOMNodeId",
            NodeField::FrameId => "frameId",
            NodeField::Other => "",
        }
    }
}

/// A key of an object, matched by `of` without allocating.
struct FieldKey<F>(F);

impl<'de, F: Copy> Deserialize<'de> for FieldKey<F>
where
    F: FieldOf,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Key<F>(std::marker::PhantomData<F>);
        impl<F: FieldOf> Visitor<'_> for Key<F> {
            type Value = FieldKey<F>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FieldKey<F>, E> {
                Ok(FieldKey(F::of(v.as_bytes())))
            }
        }
        d.deserialize_identifier(Key(std::marker::PhantomData))
    }
}

trait FieldOf: Sized {
    fn of(key: &[u8]) -> Self;
}

impl FieldOf for NodeField {
    fn of(key: &[u8]) -> NodeField {
        NodeField::of(key)
    }
}

/// The keys of an `AXValue` (and of an `AXProperty`) the engine reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueField {
    Type,
    Value,
    Name,
    Other,
}

impl FieldOf for ValueField {
    fn of(key: &[u8]) -> ValueField {
        match key {
            b"type" => ValueField::Type,
            b"value" => ValueField::Value,
            b"name" => ValueField::Name,
            _ => ValueField::Other,
        }
    }
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an accessibility node")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let t = self.0;
        let mut node = NodeRead::start(t).map_err(de::Error::custom)?;
        while let Some(FieldKey(field)) = map.next_key::<FieldKey<NodeField>>()? {
            if !node.first(field) {
                return Err(de::Error::duplicate_field(field.name()));
            }
            match field {
                NodeField::NodeId => node.id = Some(map.next_value_seed(KeySeed(&mut *t))?),
                NodeField::Ignored => {
                    if map.next_value::<bool>()? {
                        node.flags |= IGNORED;
                    }
                }
                NodeField::Role | NodeField::Name | NodeField::Description | NodeField::Value => {
                    node.kept[field.value_slot()] = map.next_value_seed(Nullable(ValueSeed {
                        tree: &mut *t,
                        property: false,
                    }))?;
                }
                NodeField::Properties => {
                    map.next_value_seed(Nullable(PropsSeed(&mut *t)))?;
                }
                NodeField::ParentId => {
                    if let Some(p) = map.next_value_seed(Nullable(KeySeed(&mut *t)))? {
                        node.parent = p;
                    }
                }
                NodeField::ChildIds => {
                    map.next_value_seed(Nullable(ChildrenSeed(&mut *t)))?;
                }
                NodeField::BackendDomNodeId => {
                    if let Some(b) = map.next_value::<Option<i64>>()? {
                        node.backend = Some(b);
                    }
                }
                NodeField::FrameId => {
                    if let Some(f) = map.next_value_seed(Nullable(SpanSeed(&mut *t)))? {
                        node.frame = f;
                    }
                }
                NodeField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        node.finish(t)
            .ok_or_else(|| de::Error::missing_field("nodeId"))
    }
}

/// A node being read, by the seed or by the engine's reader (`ax/reader.rs`): what its keys
/// gave so far. Its properties and child ids go to the tree's tables as they are read; its
/// values wait here, to be kept in their order whatever the order of the keys.
struct NodeRead {
    /// Where the node's values, properties and child ids start in their tables.
    starts: (u32, u32, u32),
    /// The known keys met, one bit per [`NodeField`].
    seen: u16,
    id: Option<PackedKey>,
    parent: PackedKey,
    frame: u32,
    flags: u8,
    backend: Option<i64>,
    /// `role`, `name`, `description` and `value` ([`NodeField::value_slot`]).
    kept: [Option<ValueRow>; 4],
}

impl NodeRead {
    fn start(t: &AxNodes) -> Result<NodeRead, &'static str> {
        Ok(NodeRead {
            starts: t.starts()?,
            seen: 0,
            id: None,
            parent: PackedKey(NO_KEY),
            frame: NO_SPAN,
            flags: 0,
            backend: None,
            kept: [None; 4],
        })
    }

    /// Whether `field` is met for the first time (a known key given twice is refused).
    fn first(&mut self, field: NodeField) -> bool {
        if field == NodeField::Other {
            return true;
        }
        let bit = 1u16 << field as u16;
        let first = self.seen & bit == 0;
        self.seen |= bit;
        first
    }

    /// Ends the node: its values and its row go onto the tree. `None` (the tree's rows
    /// unchanged) when it had no `nodeId`.
    fn finish(self, t: &mut AxNodes) -> Option<()> {
        let id = self.id?;
        let mut flags = self.flags;
        for (k, v) in self.kept.into_iter().enumerate() {
            if let Some(v) = v {
                flags |= HAS_ROLE << k;
                t.values.push(v);
            }
        }
        if self.backend.is_some() {
            flags |= HAS_BACKEND;
        }
        let (values, props, children) = self.starts;
        t.rows.push(NodeRow {
            id,
            parent: self.parent,
            backend: self.backend.unwrap_or(0),
            values,
            props,
            children,
            frame: self.frame,
            flags,
        });
        Some(())
    }
}

/// `null` read as nothing, anything else by the seed.
struct Nullable<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Nullable<S> {
    type Value = Option<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Nullable<S> {
    type Value = Option<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}

/// A node id, kept in the tree.
struct KeySeed<'t>(&'t mut AxNodes);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = PackedKey;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<PackedKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = PackedKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an accessibility node id")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<PackedKey, E> {
        self.0.push_id(v).map_err(E::custom)
    }
}

/// A string kept as a span of the tree's text: its index.
struct SpanSeed<'t>(&'t mut AxNodes);

impl<'de> DeserializeSeed<'de> for SpanSeed<'_> {
    type Value = u32;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for SpanSeed<'_> {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u32, E> {
        self.0.push_span(v).map_err(E::custom)
    }
}

/// `childIds`, appended to the tree's child ids.
struct ChildrenSeed<'t>(&'t mut AxNodes);

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of accessibility node ids")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(k) = seq.next_element_seed(KeySeed(&mut *self.0))? {
            self.0.children.push(k);
        }
        Ok(())
    }
}

/// `properties`, appended to the tree's properties.
struct PropsSeed<'t>(&'t mut AxNodes);

impl<'de> DeserializeSeed<'de> for PropsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PropsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of accessibility properties")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(row) = seq.next_element_seed(ValueSeed {
            tree: &mut *self.0,
            property: true,
        })? {
            self.0.props.push(row);
        }
        Ok(())
    }
}

/// An `AXValue` (or, for `property`, an `AXProperty`: a name and an `AXValue`), its strings
/// kept in the tree.
struct ValueSeed<'t> {
    tree: &'t mut AxNodes,
    property: bool,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ValueRow;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ValueRow, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ValueRow;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.property {
            "an accessibility property"
        } else {
            "an accessibility value"
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValueRow, A::Error> {
        let t = self.tree;
        let (mut type_, mut name) = (None, None);
        let mut value: Option<ValueRow> = None;
        while let Some(FieldKey(field)) = map.next_key::<FieldKey<ValueField>>()? {
            match field {
                ValueField::Type if !self.property => {
                    if type_.is_some() {
                        return Err(de::Error::duplicate_field("type"));
                    }
                    let ty = map.next_value::<AXValueType>()?;
                    type_ = Some(intern_owned(&mut t.types, ty).ok_or_else(too_large)?);
                }
                ValueField::Value if !self.property => {
                    if value.is_some() {
                        return Err(de::Error::duplicate_field("value"));
                    }
                    value = Some(map.next_value_seed(ScalarSeed(&mut *t))?);
                }
                ValueField::Name if self.property => {
                    if name.is_some() {
                        return Err(de::Error::duplicate_field("name"));
                    }
                    let n = map.next_value::<AXPropertyName>()?;
                    name = Some(intern_owned(&mut t.prop_names, n).ok_or_else(too_large)?);
                }
                ValueField::Value => {
                    if value.is_some() {
                        return Err(de::Error::duplicate_field("value"));
                    }
                    value = Some(map.next_value_seed(ValueSeed {
                        tree: &mut *t,
                        property: false,
                    })?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if self.property {
            let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
            let value = value.ok_or_else(|| de::Error::missing_field("value"))?;
            return Ok(ValueRow { name, ..value });
        }
        let type_ = type_.ok_or_else(|| de::Error::missing_field("type"))?;
        Ok(ValueRow {
            type_,
            ..value.unwrap_or(ValueRow {
                bits: 0,
                type_,
                name: 0,
                kind: Kind::None,
            })
        })
    }
}

fn too_large<E: de::Error>() -> E {
    E::custom(TOO_LARGE)
}

/// The scalar `value` of an `AXValue`, strings kept in the tree; `type` is filled in by the
/// caller.
struct ScalarSeed<'t>(&'t mut AxNodes);

impl ScalarSeed<'_> {
    fn row(kind: Kind, bits: u64) -> ValueRow {
        ValueRow {
            bits,
            type_: 0,
            name: 0,
            kind,
        }
    }
}

impl<'de> DeserializeSeed<'de> for ScalarSeed<'_> {
    type Value = ValueRow;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ValueRow, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ScalarSeed<'_> {
    type Value = ValueRow;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an accessibility value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<ValueRow, E> {
        Ok(Self::row(Kind::Bool, u64::from(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ValueRow, E> {
        Ok(match u64::try_from(v) {
            Ok(u) => Self::row(Kind::PosInt, u),
            Err(_) => Self::row(Kind::NegInt, v as u64),
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ValueRow, E> {
        Ok(Self::row(Kind::PosInt, v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<ValueRow, E> {
        Ok(if v.is_finite() {
            Self::row(Kind::Float, v.to_bits())
        } else {
            Self::row(Kind::None, 0)
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ValueRow, E> {
        Ok(match known_role(v) {
            Some(role) => Self::row(Kind::Role, role as u64),
            None => Self::row(Kind::Str, self.0.push_text(v).map_err(E::custom)?.bits()),
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<ValueRow, E> {
        Ok(Self::row(Kind::None, 0))
    }

    fn visit_none<E: de::Error>(self) -> Result<ValueRow, E> {
        Ok(Self::row(Kind::None, 0))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<ValueRow, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ValueRow, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::row(Kind::None, 0))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValueRow, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::row(Kind::None, 0))
    }
}

/// An AX node id (`AXNodeId`, a string in the protocol). Chromium's ids are decimal integers,
/// negative ones included; those are kept as numbers, anything else as text. Two keys are equal
/// exactly when their protocol strings are.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AxNodeKey {
    /// A canonical decimal integer (no sign other than `-`, no leading zero, not `-0`).
    Int(i64),
    /// Any other id, verbatim.
    Text(Box<str>),
}

impl AxNodeKey {
    /// The key of a protocol id.
    pub fn new(s: &str) -> AxNodeKey {
        match canonical_int(s) {
            Some(i) => AxNodeKey::Int(i),
            None => AxNodeKey::Text(s.into()),
        }
    }
}

impl AxNodeKey {
    /// The key as read from a tree.
    pub fn as_key_ref(&self) -> AxKeyRef<'_> {
        match self {
            AxNodeKey::Int(i) => AxKeyRef::Int(*i),
            AxNodeKey::Text(t) => AxKeyRef::Text(t),
        }
    }
}

impl fmt::Display for AxNodeKey {
    /// The protocol string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxNodeKey::Int(i) => fmt::Display::fmt(i, f),
            AxNodeKey::Text(s) => f.write_str(s),
        }
    }
}

/// `s` as an integer when printing that integer gives `s` back.
fn canonical_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d.as_bytes()),
        None => (false, s.as_bytes()),
    };
    // At most 18 digits: no overflow; a leading zero only for "0" itself (and not "-0").
    if digits.is_empty()
        || digits.len() > 18
        || (digits[0] == b'0' && (digits.len() > 1 || negative))
    {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(b - b'0');
    }
    Some(if negative { -v } else { v })
}

impl AxNodeKey {
    /// The protocol string (what `to_string` gives, without the formatting machinery).
    pub fn into_string(self) -> String {
        match self {
            AxNodeKey::Text(t) => t.into(),
            AxNodeKey::Int(i) => {
                let mut buf = [0u8; 20];
                let mut at = buf.len();
                let mut n = i.unsigned_abs();
                loop {
                    at -= 1;
                    buf[at] = b'0' + (n % 10) as u8;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                if i < 0 {
                    at -= 1;
                    buf[at] = b'-';
                }
                // Only ASCII digits and '-' were written.
                String::from_utf8_lossy(&buf[at..]).into_owned()
            }
        }
    }
}

impl Serialize for AxNodeKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AxNodeKey::Int(i) => s.collect_str(i),
            AxNodeKey::Text(t) => s.serialize_str(t),
        }
    }
}

impl<'de> Deserialize<'de> for AxNodeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = AxNodeKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an accessibility node id")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxNodeKey, E> {
        Ok(AxNodeKey::new(v))
    }
}

/// The role names Chromium sends (ARIA roles, DPUB and graphics roles, and its internal ones):
/// the index in [`ROLES`], `None` for anything else. Every accessible name passes through here
/// too (tens of thousands on a long page), so a string longer than any role is turned away at
/// once and the rest is looked up in a small hash table: one or two comparisons instead of the
/// eight of a binary search.
fn known_role(s: &str) -> Option<usize> {
    if s.is_empty() || s.len() > LONGEST_ROLE {
        return None;
    }
    let table = ROLE_TABLE.get_or_init(RoleTable::new);
    let bucket = &table.buckets[role_bucket(s.as_bytes())];
    if bucket.last() == Some(&ROLE_BUCKET_FULL) {
        return ROLES.binary_search(&s).ok();
    }
    bucket
        .iter()
        .take_while(|&&i| i != ROLE_BUCKET_EMPTY)
        .map(|&i| usize::from(i))
        .find(|&i| ROLES[i] == s)
}

/// [`ROLES`] by [`role_bucket`]: up to three indices per bucket, then [`ROLE_BUCKET_EMPTY`];
/// a bucket that would hold more ends with [`ROLE_BUCKET_FULL`] and is searched the slow way.
struct RoleTable {
    buckets: Vec<[u8; 4]>,
}

const ROLE_BUCKETS: usize = 512;
const ROLE_BUCKET_EMPTY: u8 = u8::MAX;
const ROLE_BUCKET_FULL: u8 = u8::MAX - 1;

static ROLE_TABLE: std::sync::OnceLock<RoleTable> = std::sync::OnceLock::new();

impl RoleTable {
    fn new() -> RoleTable {
        let mut buckets = vec![[ROLE_BUCKET_EMPTY; 4]; ROLE_BUCKETS];
        for (i, role) in ROLES.iter().enumerate() {
            let bucket = &mut buckets[role_bucket(role.as_bytes())];
            match (
                bucket.iter().position(|&b| b == ROLE_BUCKET_EMPTY),
                u8::try_from(i),
            ) {
                (Some(free), Ok(i)) if free < 3 => bucket[free] = i,
                _ => bucket[3] = ROLE_BUCKET_FULL,
            }
        }
        RoleTable { buckets }
    }
}

/// Mixes a string's length and its first, middle and last bytes (`bytes` is not empty).
fn role_bucket(bytes: &[u8]) -> usize {
    let byte = |i: usize| bytes.get(i).map_or(0, |&b| usize::from(b));
    let n = bytes.len();
    let h = n.wrapping_mul(0x9e37_79b9)
        ^ byte(0).wrapping_mul(0x85eb_ca6b)
        ^ byte(n / 2).wrapping_mul(0xc2b2_ae35)
        ^ byte(n.saturating_sub(1)).wrapping_mul(0x27d4_eb2f);
    (h ^ (h >> 15)) % ROLE_BUCKETS
}

const LONGEST_ROLE: usize = 20;

/// Sorted (byte order), for the binary search.
const ROLES: &[&str] = &[
    "Abbr",
    "Audio",
    "Canvas",
    "Caption",
    "DescriptionList",
    "Details",
    "DisclosureTriangle",
    "Embed",
    "FigureCaption",
    "Iframe",
    "IframePresentational",
    "Ignored",
    "InlineTextBox",
    "LabelText",
    "LayoutTable",
    "LayoutTableCell",
    "LayoutTableRow",
    "Legend",
    "LineBreak",
    "ListMarker",
    "Pre",
    "RootWebArea",
    "Ruby",
    "RubyAnnotation",
    "SectionFooter",
    "SectionHeader",
    "StaticText",
    "Summary",
    "SvgRoot",
    "Unknown",
    "Video",
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "doc-abstract",
    "doc-acknowledgments",
    "doc-afterword",
    "doc-appendix",
    "doc-backlink",
    "doc-biblioentry",
    "doc-bibliography",
    "doc-biblioref",
    "doc-chapter",
    "doc-colophon",
    "doc-conclusion",
    "doc-cover",
    "doc-credit",
    "doc-credits",
    "doc-dedication",
    "doc-endnote",
    "doc-endnotes",
    "doc-epigraph",
    "doc-epilogue",
    "doc-errata",
    "doc-example",
    "doc-footnote",
    "doc-foreword",
    "doc-glossary",
    "doc-glossref",
    "doc-index",
    "doc-introduction",
    "doc-noteref",
    "doc-notice",
    "doc-pagebreak",
    "doc-pagefooter",
    "doc-pageheader",
    "doc-pagelist",
    "doc-part",
    "doc-preface",
    "doc-prologue",
    "doc-pullquote",
    "doc-qna",
    "doc-subtitle",
    "doc-tip",
    "doc-toc",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "graphics-document",
    "graphics-object",
    "graphics-symbol",
    "grid",
    "gridcell",
    "group",
    "heading",
    "image",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "section",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

#[cfg(test)]
mod tests {
    use super::{known_role, LONGEST_ROLE, ROLES};

    #[test]
    fn a_large_reply_reads_the_same_on_two_threads() {
        use super::{FullAxTree, SPLIT_BYTES};
        use crate::transport::RawJson;
        use tokio_tungstenite::tungstenite::Bytes;
        let node = |i: usize| {
            format!(
                r#"{{"nodeId":"{i}","ignored":false,"role":{{"type":"role","value":"link"}},"name":{{"type":"computedString","value":"n{i} \"q\" {{}}, ","sources":[{{"type":"contents","value":{{"type":"computedString","value":"x"}}}}]}},"properties":[],"childIds":["{}"],"backendDOMNodeId":{i}}}"#,
                i + 1
            )
        };
        let count = SPLIT_BYTES / 150;
        let nodes: Vec<String> = (0..count).map(node).collect();
        let filler = "f".repeat(SPLIT_BYTES);
        // A node whose value nests a `{"nodeId"` right where a cut would fall.
        let nested = format!(
            r#"{{"nodeId":"x","name":{{"type":"computedString","value":"{filler}"}},"value":{{"type":"x","value":[{{}},{{"nodeId":1}}]}}}}"#
        );
        for text in [
            format!(r#"{{"nodes":[{}]}}"#, nodes.join(",")),
            format!(r#"{{"x":1,"nodes":[{}], "y" : [2]}}"#, nodes.join(", ")),
            format!(r#"{{"nodes":[{nested},{}]}}"#, nodes[0]),
        ] {
            let whole: FullAxTree = serde_json::from_str(&text).unwrap();
            let raw = RawJson::new(Bytes::from(text.clone()), 0..text.len());
            let read = FullAxTree::from_reply(&raw).unwrap();
            assert_eq!(read.nodes, whole.nodes);
            assert!(super::split::read_reply_nodes(&text, true).is_some());
        }
    }

    #[test]
    fn role_table_is_sorted_and_found() {
        assert!(
            ROLES.windows(2).all(|w| w[0] < w[1]),
            "ROLES must stay sorted"
        );
        assert_eq!(ROLES.iter().map(|r| r.len()).max(), Some(LONGEST_ROLE));
        for r in ROLES {
            assert_eq!(known_role(r).map(|i| ROLES[i]), Some(*r));
        }
        // Few buckets hold more than one role, none more than three.
        let table = super::RoleTable::new();
        assert!(table
            .buckets
            .iter()
            .all(|b| b[3] == super::ROLE_BUCKET_EMPTY));
        assert_eq!(known_role(""), None);
        assert_eq!(known_role("buttons"), None);
        assert_eq!(known_role("Button"), None);
        assert_eq!(known_role("Static"), None);
        assert_eq!(known_role("a name that is not a role at all"), None);
    }

    use super::*;
    use crate::cdp::accessibility::AXNode;
    use crate::cdp::Command;

    const NODE: &str = r#"{"nodeId":"-1000014802","ignored":false,
        "ignoredReasons":[{"name":"notRendered","value":{"type":"boolean","value":true}}],
        "role":{"type":"role","value":"link"},"chromeRole":{"type":"internalRole","value":110},
        "name":{"type":"computedString","value":"Docs","sources":[{"type":"attribute",
            "attribute":"aria-label"},{"type":"contents","value":{"type":"computedString","value":"Docs"}}]},
        "value":{"type":"integer","value":3},
        "properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},
            {"name":"someNewProperty","value":{"type":"someNewType","value":1.5}},
            {"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"backendDOMNodeId":4}]}}],
        "parentId":"7","childIds":["0","x1","007"],"backendDOMNodeId":1917,"frameId":"F",
        "somethingNew":{"a":[1,2,{"b":null}]}}"#;

    fn one(json: &str) -> AxNodes {
        serde_json::from_str(&format!("[{json}]")).unwrap()
    }

    #[test]
    fn reads_the_fields_the_engine_uses_and_skips_the_rest() {
        let nodes = one(NODE);
        let n = nodes.get(0).unwrap();
        assert_eq!(n.node_id(), AxKeyRef::Int(-1000014802));
        assert_eq!(n.role().and_then(|r| r.as_str()), Some("link"));
        assert_eq!(n.role().and_then(|r| r.known_role()), Some("link"));
        assert_eq!(n.role().unwrap().type_(), &AXValueType::Role);
        assert_eq!(n.name().and_then(|r| r.as_str()), Some("Docs"));
        assert_eq!(n.name().and_then(|r| r.known_role()), None);
        assert_eq!(n.description(), None);
        assert_eq!(n.value().unwrap().scalar(), AxScalar::Number(3.into()));
        let props: Vec<AxPropertyRef<'_>> = n.properties().collect();
        assert_eq!(props.len(), 3);
        assert_eq!(props[0].name, &AXPropertyName::Focusable);
        assert_eq!(props[0].value.scalar(), AxScalar::Bool(true));
        assert_eq!(
            props[1].name,
            &AXPropertyName::Unknown("someNewProperty".into())
        );
        assert_eq!(
            props[1].value.type_(),
            &AXValueType::Unknown("someNewType".into())
        );
        assert_eq!(
            props[1].value.scalar(),
            AxScalar::Number(serde_json::Number::from_f64(1.5).unwrap())
        );
        assert_eq!(props[2].value.scalar(), AxScalar::None);
        assert_eq!(n.parent_id(), Some(AxKeyRef::Int(7)));
        assert_eq!(
            n.child_ids().collect::<Vec<_>>(),
            [
                AxKeyRef::Int(0),
                AxKeyRef::Text("x1"),
                AxKeyRef::Text("007")
            ]
        );
        assert_eq!(n.backend_dom_node_id(), Some(1917));
        assert_eq!(n.frame_id(), Some("F"));
        assert!(!n.ignored());
    }

    #[test]
    fn keys_may_come_in_any_order_and_each_node_keeps_its_own() {
        let nodes: AxNodes = serde_json::from_str(
            r#"[{"value":{"type":"string","value":"v"},"childIds":["2"],"role":{"type":"role","value":"textbox"},"nodeId":"1","ignored":true},
                {"nodeId":"2","name":{"type":"computedString","value":""},"description":{"type":"computedString","value":"d"},"parentId":"1","childIds":null,"properties":null,"role":null},
                {"nodeId":"3","properties":[{"value":{"value":"polite","type":"token"},"name":"live"}],"childIds":["1","2"]}]"#,
        )
        .unwrap();
        let n: Vec<AxNodeRef<'_>> = nodes.iter().collect();
        assert_eq!(n[0].role().and_then(|v| v.as_str()), Some("textbox"));
        assert_eq!(n[0].value().and_then(|v| v.as_str()), Some("v"));
        assert_eq!(n[0].name(), None);
        assert!(n[0].ignored());
        assert_eq!(n[0].child_ids().collect::<Vec<_>>(), [AxKeyRef::Int(2)]);
        assert_eq!(n[1].role(), None);
        assert_eq!(n[1].name().and_then(|v| v.as_str()), Some(""));
        assert_eq!(n[1].description().and_then(|v| v.as_str()), Some("d"));
        assert_eq!((n[1].child_count(), n[1].properties().len()), (0, 0));
        assert_eq!(n[1].backend_dom_node_id(), None);
        let p: Vec<_> = n[2].properties().collect();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, &AXPropertyName::Live);
        assert_eq!(p[0].value.as_str(), Some("polite"));
        assert_eq!(p[0].value.type_(), &AXValueType::Token);
        assert_eq!(n[2].child_count(), 2);
    }

    #[test]
    fn what_a_one_piece_parse_refused_is_still_refused() {
        for bad in [
            r#"[{"ignored":true}]"#,
            r#"[{"nodeId":"1","nodeId":"2"}]"#,
            r#"[{"nodeId":"1","childIds":["2"],"childIds":["3"]}]"#,
            r#"[{"nodeId":1}]"#,
            r#"[{"nodeId":"1","childIds":["1",2]}]"#,
            r#"[{"nodeId":"1","childIds":"1"}]"#,
            r#"[{"nodeId":"1","ignored":null}]"#,
            r#"[{"nodeId":"1","name":{"value":"no type"}}]"#,
            r#"[{"nodeId":"1","properties":[{"name":"busy"}]}]"#,
            r#"[{"nodeId":"1","properties":[{"value":{"type":"boolean"}}]}]"#,
            r#"{"nodeId":"1"}"#,
        ] {
            assert!(serde_json::from_str::<AxNodes>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn written_nodes_read_back_and_are_valid_protocol_nodes() {
        let n = one(NODE);
        let json = serde_json::to_string(&n).unwrap();
        let back: AxNodes = serde_json::from_str(&json).unwrap();
        assert_eq!(back, n);
        let full: Vec<AXNode> = serde_json::from_str(&json).unwrap();
        assert_eq!(full[0].node_id, "-1000014802");
        assert_eq!(full[0].child_ids.clone().unwrap(), vec!["0", "x1", "007"]);
        // A minimal node and nulls are tolerated.
        let m = one(r#"{"nodeId":"1","ignored":true,"properties":null}"#);
        let m = m.get(0).unwrap();
        assert!(m.properties().len() == 0 && m.child_count() == 0 && m.ignored());
        assert_eq!(
            serde_json::to_string(&one(r#"{"nodeId":"x","childIds":["5"]}"#)).unwrap(),
            r#"[{"nodeId":"x","ignored":false,"childIds":["5"]}]"#
        );
    }

    /// A tree of `count` nodes with a bit of everything, ids counting from `from`.
    fn varied(from: usize, count: usize) -> String {
        let nodes: Vec<String> = (from..from + count)
            .map(|i| match i % 4 {
                0 => format!(
                    r#"{{"nodeId":"{i}","role":{{"type":"role","value":"link"}},"name":{{"type":"computedString","value":"name {i}"}},"childIds":["{}","t{i}"],"backendDOMNodeId":{i}}}"#,
                    i + 1
                ),
                1 => format!(
                    r#"{{"nodeId":"t{i}","ignored":true,"parentId":"{}","properties":[{{"name":"new{}","value":{{"type":"kind{}","value":"v{i}"}}}}]}}"#,
                    i - 1,
                    i % 3,
                    i % 5
                ),
                2 => format!(
                    r#"{{"nodeId":"{i}","role":{{"type":"internalRole","value":"StaticText"}},"value":{{"type":"number","value":-{i}.5}},"description":{{"type":"string","value":"d{i}"}},"frameId":"F{i}"}}"#
                ),
                _ => format!(
                    r#"{{"nodeId":"-{i}","role":{{"type":"role","value":"role{i}"}},"properties":[{{"name":"level","value":{{"type":"integer","value":{i}}}}},{{"name":"focusable","value":{{"type":"booleanOrUndefined","value":true}}}}],"parentId":"t{i}"}}"#
                ),
            })
            .collect();
        format!("[{}]", nodes.join(","))
    }

    #[test]
    fn trees_appended_read_as_one() {
        let (a, b) = (varied(0, 21), varied(21, 30));
        let whole: AxNodes = serde_json::from_str(&format!(
            "{},{}",
            a.trim_end_matches(']'),
            b.trim_start_matches('[')
        ))
        .unwrap();
        let mut joined: AxNodes = serde_json::from_str(&a).unwrap();
        joined.append(serde_json::from_str(&b).unwrap()).unwrap();
        assert_eq!(joined, whole);
        assert_eq!(
            serde_json::to_value(&joined).unwrap(),
            serde_json::to_value(&whole).unwrap()
        );
        // A copy node by node, and a truncated tree, keep what they hold.
        let mut copy = AxNodes::default();
        for n in whole.iter() {
            copy.push_node(n).unwrap();
        }
        assert_eq!(copy, whole);
        copy.truncate(10);
        assert_eq!(copy.len(), 10);
        assert!(copy.iter().zip(whole.iter()).all(|(a, b)| a == b));
        assert_eq!(
            copy.get(9).unwrap().properties().len(),
            whole.get(9).unwrap().properties().len()
        );
    }

    #[test]
    fn a_node_is_a_few_compact_rows() {
        assert_eq!(std::mem::size_of::<NodeRow>(), 48);
        assert_eq!(std::mem::size_of::<ValueRow>(), 16);
        let nodes: AxNodes = serde_json::from_str(&varied(0, 400)).unwrap();
        // Rows, values, properties, child ids and text: no allocation per node.
        assert!(nodes.heap_bytes() < 400 * 120, "{}", nodes.heap_bytes());
    }

    #[test]
    fn keys_are_equal_exactly_when_their_strings_are() {
        for s in [
            "0",
            "-1",
            "12",
            "-1000014802",
            "999999999999999999",
            "-0",
            "01",
            "-01",
            "+1",
            "",
            "-",
            "a",
            "1a",
            "99999999999999999999",
        ] {
            let k = AxNodeKey::new(s);
            assert_eq!(k.to_string(), s);
            assert_eq!(k.as_key_ref().to_string(), s);
            assert_eq!(k.clone().into_string(), s);
            assert_eq!(
                matches!(k, AxNodeKey::Int(_)),
                s.parse::<i64>().is_ok_and(|i| i.to_string() == s),
                "{s}"
            );
            // Read from a tree, the key is the same.
            let tree = one(&format!(
                r#"{{"nodeId":{}}}"#,
                serde_json::to_string(s).unwrap()
            ));
            assert_eq!(tree.get(0).unwrap().node_id(), k.as_key_ref(), "{s}");
            let mut copy = AxNodes::default();
            copy.push_stand_in(k.as_key_ref(), AxKeyRef::Text("7"))
                .unwrap();
            assert_eq!(copy.get(0).unwrap().node_id(), k.as_key_ref(), "{s}");
            assert_eq!(copy.get(0).unwrap().parent_id(), Some(AxKeyRef::Int(7)));
        }
        assert_ne!(AxNodeKey::new("1"), AxNodeKey::new("01"));
        assert_eq!(GetFullAxTree::METHOD, "Accessibility.getFullAXTree");
        let p = serde_json::to_value(GetFullAxTree {
            depth: None,
            frame_id: Some("F".into()),
        })
        .unwrap();
        assert_eq!(p, serde_json::json!({"frameId": "F"}));
    }
}
