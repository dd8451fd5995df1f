//! The accessibility part of a model: the trees of a capture read into the model's own shapes
//! ([`AxPart::read`], which needs nothing of the DOM part, so a large page reads them while its
//! DOM part is built), then appended to the model and tied to the DOM nodes ([`AxPart::link`]).

use super::NONE;
use crate::capture::{AxKeyRef, AxNodeRef, AxNodes, AxScalar, AxTreeCapture, AxValueRef, Capture};
use crate::cdp::accessibility::{AXPropertyName, AXValueType};
use crate::model::{AxId, AxNode, AxProp, AxProperty, AxValue, Model, StrId};
use rustc_hash::FxHashMap;

/// The accessibility trees of every target of `capture`, moved out of it, with their target.
pub(super) fn take_ax_trees(capture: &mut Capture) -> Vec<(u32, AxTreeCapture)> {
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
pub(super) struct AxPart {
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
    pub(super) fn read(trees: Vec<(u32, AxTreeCapture)>) -> AxPart {
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
    pub(super) fn link(self, model: &mut Model) {
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
