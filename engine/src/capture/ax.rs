//! A lean typed reply for `Accessibility.getFullAXTree` (and `getPartialAXTree`, which answers in
//! the same shape): only what the model reads.
//!
//! The generated bindings ([`crate::cdp`]) stay the one way pagesight speaks CDP; this module
//! does not replace them. It is a *projection* of one reply, the largest the engine asks for,
//! onto the fields the model uses (see `model::build::add_ax_tree`): `nodeId`, `ignored`, the
//! `value` of `role`, `name`, `description` and `value`, the properties' `name` and `value`,
//! `parentId`, `childIds`, `backendDOMNodeId` and `frameId`. [`GetFullAxTree`] sends the same
//! method with the same parameters as the generated `GetFullAXTreeParams`; only its reply type
//! differs.
//!
//! Why: on a large page this one reply is most of what a snapshot parses and keeps. On the
//! python3.11-doc `stdtypes` page (36k DOM nodes, 36k AX nodes, 12.7 MiB of JSON) the generated
//! `Vec<AXNode>` holds every `sources` list, `chromeRole`, `ignoredReasons` and related node, and
//! every value as a `serde_json::Value`: about 2.3 KB per node, 81.5 MiB in all (6.4× its JSON),
//! parsed at about 170 MiB/s, and freeing it was a large part of building the model. The
//! records here skip those fields while parsing (serde steps over them without allocating), keep
//! a value as a small scalar, box the rare `description` and `value`, hold a lone child id in
//! place ([`AxChildIds`]), and keep node ids, which Chromium sends as decimal strings, as
//! integers: 17.7 MiB (1.4× the JSON, less once the list's spare room is given back) parsed at
//! about 480 MiB/s on the same machine. The `parse/stdtypes` bench shows both types side by
//! side, `peak_mem` both sizes.
//!
//! Tolerance is that of the generated bindings: unknown fields are ignored (no
//! `deny_unknown_fields`), value types and property names are the generated enums, whose unknown
//! values are kept as strings, and an id that is not a plain decimal integer is kept as text.
//! Capture files written with the full generated nodes still load (their extra fields are
//! skipped); files written with these records are still valid `AXNode` JSON.

use crate::cdp::accessibility::{
    AXPropertyName, AXValueType, GetFullAXTreeParams, GetPartialAXTreeParams,
};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

use crate::error::Result;
use crate::transport::RawJson;

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
/// reply has the same shape). Always sent with `fetchRelatives: false`: the node alone, which
/// still carries its `parentId` and `childIds` (with relatives, Chromium adds the ancestors,
/// siblings and children — and lists some child ids twice).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GetPartialAxTree {
    /// The DOM node whose accessibility node is wanted.
    #[serde(rename = "backendNodeId")]
    pub backend_node_id: i64,
    /// Always `false` (see above).
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
    #[serde(deserialize_with = "shrunk")]
    pub nodes: Vec<AxNodeRecord>,
}

impl FullAxTree {
    /// Reads a `getFullAXTree` reply. A large one in the shape Chromium writes
    /// (`{"nodes":[{"nodeId":…},…]}`) is read on two threads, each from its own place in the
    /// text (`ax_split`): on a long page this reply is read after Chromium's last answer, so
    /// its parse is time the snapshot waits for (stdtypes: 12 MB). Any other shape, or parts
    /// that do not read, are read the usual way.
    pub fn from_reply(raw: &RawJson) -> Result<FullAxTree> {
        let text = raw.as_str();
        if text.len() >= SPLIT_BYTES && crate::parallel::two_cores() {
            if let Some(nodes) = super::ax_split::read_reply_nodes(text) {
                return Ok(FullAxTree { nodes });
            }
        }
        raw.parse(<GetFullAxTree as crate::cdp::Command>::METHOD)
    }
}

/// From how many bytes a reply is read on two threads.
const SPLIT_BYTES: usize = 1 << 20;

/// Deserialises a list and gives back the room its growth left unused (a list grown one node
/// at a time ends up to twice as large as needed; a shrink in place costs no copy).
pub(crate) fn shrunk<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let mut v = Vec::<T>::deserialize(d)?;
    v.shrink_to_fit();
    Ok(v)
}

/// One node of the accessibility tree (the protocol's `AXNode`, the fields the engine reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxNodeRecord {
    /// `nodeId`.
    #[serde(rename = "nodeId")]
    pub node_id: AxNodeKey,
    /// `ignored`: not exposed to assistive technology.
    #[serde(default)]
    pub ignored: bool,
    /// `role`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<AxValueRecord>,
    /// `name`: the accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<AxValueRecord>,
    /// `description` (rare: boxed to keep the record small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Box<AxValueRecord>>,
    /// `value` (rare: boxed to keep the record small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Box<AxValueRecord>>,
    /// `properties` (absent reads as empty).
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub properties: Vec<AxPropertyRecord>,
    /// `parentId`.
    #[serde(rename = "parentId", default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<AxNodeKey>,
    /// `childIds` (absent reads as empty).
    #[serde(
        rename = "childIds",
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "AxChildIds::is_empty"
    )]
    pub child_ids: AxChildIds,
    /// `backendDOMNodeId`.
    #[serde(
        rename = "backendDOMNodeId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub backend_dom_node_id: Option<i64>,
    /// `frameId` (Chromium sets it on the root only).
    #[serde(rename = "frameId", default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<Box<str>>,
}

/// An `AXProperty`: its name and value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxPropertyRecord {
    /// `name` (an unknown name is kept as a string).
    pub name: AXPropertyName,
    /// `value`.
    pub value: AxValueRecord,
}

/// An `AXValue`: its type and a scalar `value` (`relatedNodes` and `sources` are skipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxValueRecord {
    /// `type` (an unknown type is kept as a string).
    #[serde(rename = "type")]
    pub type_: AXValueType,
    /// `value`.
    #[serde(default, skip_serializing_if = "AxScalar::is_none")]
    pub value: AxScalar,
}

impl AxValueRecord {
    /// The value when it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            AxScalar::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The `value` of an `AXValue`: a string, number or boolean. Absent, `null`, and arrays or
/// objects (which the engine does not read) are all [`AxScalar::None`].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum AxScalar {
    /// No scalar value.
    #[default]
    None,
    /// A boolean.
    Bool(bool),
    /// A number, as JSON spelled it (integer or not).
    Number(serde_json::Number),
    /// A string. Chromium's role names are borrowed from a table rather than allocated per node
    /// (every node has a role, and a long page has tens of thousands of nodes).
    Str(Cow<'static, str>),
}

impl AxScalar {
    /// Whether there is no scalar value.
    pub fn is_none(&self) -> bool {
        matches!(self, AxScalar::None)
    }
}

impl Serialize for AxScalar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AxScalar::None => s.serialize_unit(),
            AxScalar::Bool(b) => s.serialize_bool(*b),
            AxScalar::Number(n) => n.serialize(s),
            AxScalar::Str(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for AxScalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = AxScalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an accessibility value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<AxScalar, E> {
        Ok(AxScalar::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxScalar, E> {
        Ok(AxScalar::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AxScalar, E> {
        Ok(AxScalar::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<AxScalar, E> {
        Ok(serde_json::Number::from_f64(v).map_or(AxScalar::None, AxScalar::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxScalar, E> {
        Ok(AxScalar::Str(match known_role(v) {
            Some(role) => Cow::Borrowed(role),
            None => Cow::Owned(v.to_owned()),
        }))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<AxScalar, E> {
        Ok(AxScalar::Str(match known_role(&v) {
            Some(role) => Cow::Borrowed(role),
            None => Cow::Owned(v),
        }))
    }

    fn visit_unit<E: de::Error>(self) -> Result<AxScalar, E> {
        Ok(AxScalar::None)
    }

    fn visit_none<E: de::Error>(self) -> Result<AxScalar, E> {
        Ok(AxScalar::None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<AxScalar, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxScalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(AxScalar::None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxScalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(AxScalar::None)
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

fn null_as_empty<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A node's `childIds`: a list of [`AxNodeKey`]s that holds a single child in place.
///
/// Why: most accessibility nodes have no child or one (a text and its inline text box, a link
/// and its text), and a `Vec` each would be one small allocation per node to make while parsing
/// and to free after the model has read it (on a long page, close to one per DOM node). Here a
/// lone child costs nothing beyond the record, which stays as wide as with a `Vec`; only a
/// node with two children or more holds its list on the heap, exactly sized.
#[derive(Clone, Default)]
pub struct AxChildIds(ChildIds);

#[derive(Clone, Default)]
enum ChildIds {
    #[default]
    None,
    One(AxNodeKey),
    Many(Box<[AxNodeKey]>),
}

impl AxChildIds {
    /// The ids, in order.
    pub fn as_slice(&self) -> &[AxNodeKey] {
        match &self.0 {
            ChildIds::None => &[],
            ChildIds::One(k) => std::slice::from_ref(k),
            ChildIds::Many(ks) => ks,
        }
    }

    /// Whether there is no id.
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Whether the list holds memory of its own (two ids or more), which dropping it frees.
    pub fn on_heap(&self) -> bool {
        matches!(self.0, ChildIds::Many(_))
    }
}

impl std::ops::Deref for AxChildIds {
    type Target = [AxNodeKey];
    fn deref(&self) -> &[AxNodeKey] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a AxChildIds {
    type Item = &'a AxNodeKey;
    type IntoIter = std::slice::Iter<'a, AxNodeKey>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl From<Vec<AxNodeKey>> for AxChildIds {
    fn from(mut ids: Vec<AxNodeKey>) -> AxChildIds {
        AxChildIds(match ids.len() {
            0 => ChildIds::None,
            1 => ids.pop().map_or(ChildIds::None, ChildIds::One),
            _ => ChildIds::Many(ids.into_boxed_slice()),
        })
    }
}

impl FromIterator<AxNodeKey> for AxChildIds {
    fn from_iter<I: IntoIterator<Item = AxNodeKey>>(iter: I) -> AxChildIds {
        iter.into_iter().collect::<Vec<_>>().into()
    }
}

impl PartialEq for AxChildIds {
    fn eq(&self, other: &AxChildIds) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for AxChildIds {}

impl fmt::Debug for AxChildIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Serialize for AxChildIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for AxChildIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ids;
        impl<'de> Visitor<'de> for Ids {
            type Value = AxChildIds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of accessibility node ids")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxChildIds, A::Error> {
                let Some(first) = seq.next_element::<AxNodeKey>()? else {
                    return Ok(AxChildIds(ChildIds::None));
                };
                let Some(second) = seq.next_element::<AxNodeKey>()? else {
                    return Ok(AxChildIds(ChildIds::One(first)));
                };
                let mut ids = Vec::with_capacity(seq.size_hint().unwrap_or(2).clamp(4, 64));
                ids.extend([first, second]);
                while let Some(id) = seq.next_element()? {
                    ids.push(id);
                }
                Ok(AxChildIds(ChildIds::Many(ids.into_boxed_slice())))
            }
        }
        d.deserialize_seq(Ids)
    }
}

/// The role names Chromium sends (ARIA roles, DPUB and graphics roles, and its internal ones),
/// as static strings; `None` for anything else. Every accessible name passes through here too
/// (tens of thousands on a long page), so a string longer than any role is turned away at once
/// and the rest is looked up in a small hash table: one or two comparisons instead of the
/// eight of a binary search.
fn known_role(s: &str) -> Option<&'static str> {
    if s.is_empty() || s.len() > LONGEST_ROLE {
        return None;
    }
    let table = ROLE_TABLE.get_or_init(RoleTable::new);
    let bucket = &table.buckets[role_bucket(s.as_bytes())];
    if bucket.last() == Some(&ROLE_BUCKET_FULL) {
        return ROLES.binary_search(&s).ok().map(|i| ROLES[i]);
    }
    bucket
        .iter()
        .take_while(|&&i| i != ROLE_BUCKET_EMPTY)
        .map(|&i| ROLES[usize::from(i)])
        .find(|role| *role == s)
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
            assert!(super::super::ax_split::read_reply_nodes(&text).is_some());
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
            assert_eq!(known_role(r), Some(*r));
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

    #[test]
    fn reads_the_fields_the_engine_uses_and_skips_the_rest() {
        let n: AxNodeRecord = serde_json::from_str(NODE).unwrap();
        assert_eq!(n.node_id, AxNodeKey::Int(-1000014802));
        assert_eq!(n.role.as_ref().and_then(|r| r.as_str()), Some("link"));
        assert_eq!(n.name.as_ref().and_then(|r| r.as_str()), Some("Docs"));
        assert_eq!(n.value.as_ref().unwrap().value, AxScalar::Number(3.into()));
        assert_eq!(n.properties.len(), 3);
        assert_eq!(
            n.properties[1].name,
            AXPropertyName::Unknown("someNewProperty".into())
        );
        assert_eq!(
            n.properties[1].value.type_,
            AXValueType::Unknown("someNewType".into())
        );
        assert_eq!(n.properties[2].value.value, AxScalar::None);
        assert_eq!(n.parent_id, Some(AxNodeKey::Int(7)));
        assert_eq!(
            n.child_ids[..],
            [
                AxNodeKey::Int(0),
                AxNodeKey::Text("x1".into()),
                AxNodeKey::Text("007".into())
            ]
        );
        assert_eq!(n.backend_dom_node_id, Some(1917));
        assert_eq!(n.frame_id.as_deref(), Some("F"));
    }

    #[test]
    fn written_records_read_back_and_are_valid_protocol_nodes() {
        let n: AxNodeRecord = serde_json::from_str(NODE).unwrap();
        let json = serde_json::to_string(&n).unwrap();
        let back: AxNodeRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, n);
        let full: AXNode = serde_json::from_str(&json).unwrap();
        assert_eq!(full.node_id, "-1000014802");
        assert_eq!(full.child_ids.unwrap(), vec!["0", "x1", "007"]);
        // A minimal node and nulls are tolerated.
        let m: AxNodeRecord =
            serde_json::from_str(r#"{"nodeId":"1","ignored":true,"properties":null}"#).unwrap();
        assert!(m.properties.is_empty() && m.child_ids.is_empty());
    }

    #[test]
    fn child_ids_read_and_write_as_a_list_of_any_length() {
        for json in [
            "[]",
            r#"["5"]"#,
            r#"["x"]"#,
            r#"["1","-2"]"#,
            r#"["1","2","x","4","5"]"#,
        ] {
            let ids: AxChildIds = serde_json::from_str(json).unwrap();
            let keys: Vec<String> = serde_json::from_str(json).unwrap();
            let want: Vec<AxNodeKey> = keys.iter().map(|k| AxNodeKey::new(k)).collect();
            assert_eq!(ids[..], want[..]);
            assert_eq!(ids.on_heap(), want.len() > 1);
            assert_eq!(ids, AxChildIds::from(want.clone()));
            assert_eq!(ids, want.into_iter().collect::<AxChildIds>());
            assert_eq!(serde_json::to_string(&ids).unwrap(), json.replace(' ', ""));
        }
        assert!(serde_json::from_str::<AxChildIds>(r#"["1",2]"#).is_err());
        assert!(serde_json::from_str::<AxChildIds>(r#""1""#).is_err());
        let n: AxNodeRecord = serde_json::from_str(r#"{"nodeId":"1","childIds":null}"#).unwrap();
        assert!(n.child_ids.is_empty());
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
            assert_eq!(k.clone().into_string(), s);
            assert_eq!(
                matches!(k, AxNodeKey::Int(_)),
                s.parse::<i64>().is_ok_and(|i| i.to_string() == s),
                "{s}"
            );
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
