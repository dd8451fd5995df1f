//! The JSON snapshot of docs/protocol.md ("Snapshot JSON"), for programs rather than models.
//!
//! Why it follows the text modes' selection: a program that switches between text (for the
//! model) and JSON (for itself) must see the same nodes with the same uids. So the tree holds
//! exactly the nodes the chosen mode prints — the a11y view's AX nodes, or the dom view's
//! elements under the document — and each node carries the analysis' facts (bounds, click point,
//! occlusion) that the text only hints at.
//!
//! Written with `serde_json` from small borrowed structs, so the output is valid JSON for any page
//! content (strings are escaped by serde_json; non-finite numbers become `null`). Page strings are
//! capped (at `caps::JSON` characters) so a huge text node cannot balloon the document, and the
//! nesting is capped at [`MAX_DEPTH`] so a pathologically deep page cannot exhaust the stack
//! when the tree is serialized or dropped, nor exceed a reader's nesting limit: deeper nodes
//! become children of the node at the cap.

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::a11y::{self, AttrVal, Item, TreeNode};
use super::dom::{self, Val};
use super::{caps, facts, Mode, RenderOptions, UidSource};
use crate::analysis::{Analysis, NodeFacts, ScrollInfo};
use crate::identity::Uid;
use crate::model::{AxValue, Checked, Model, NodeId};

/// JSON trees are flattened below this depth. Each level costs two nesting levels (the node and
/// its `children` array), and common JSON parsers refuse more than 128 (serde_json among them),
/// so 60 keeps every snapshot readable; real pages rarely print deeper than 30.
pub const MAX_DEPTH: usize = 60;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot<'a> {
    url: &'a str,
    title: &'a str,
    snapshot: u32,
    consistent: bool,
    viewport: ViewportJson,
    root: Option<JNode<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ViewportJson {
    width: f64,
    height: f64,
    scroll_x: f64,
    scroll_y: f64,
    content_width: f64,
    content_height: f64,
    device_pixel_ratio: f64,
}

#[derive(Serialize)]
struct RectJson {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

#[derive(Serialize)]
struct PointJson {
    x: f64,
    y: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScrollJson {
    above: f64,
    below: f64,
    left: f64,
    right: f64,
    scroll_width: f64,
    scroll_height: f64,
    client_width: f64,
    client_height: f64,
}

#[derive(Serialize)]
#[serde(untagged)]
enum CheckedJson {
    Bool(bool),
    Mixed(&'static str),
}

#[derive(Serialize)]
#[serde(untagged)]
enum AttrJson<'a> {
    Flag(bool),
    Str(Cow<'a, str>),
    Num(f64),
}

struct Attrs<'a>(Vec<(&'static str, AttrJson<'a>)>);

impl Serialize for Attrs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JNode<'a> {
    uid: String,
    backend_node_id: Option<i64>,
    frame_id: Option<&'a str>,
    role: Cow<'a, str>,
    name: Cow<'a, str>,
    tag: Option<&'a str>,
    interactive: bool,
    visible: bool,
    in_viewport: bool,
    occluded: bool,
    covered_by: Option<String>,
    bounds: Option<RectJson>,
    click_point: Option<PointJson>,
    new: bool,
    attributes: Attrs<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<CheckedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scroll: Option<ScrollJson>,
    children: Vec<JNode<'a>>,
}

/// The JSON snapshot `json` with the node showing `uid` as its `root`: the subtree of that
/// element, every node as the whole document has it. `None` when no node shows `uid`.
pub fn subtree(json: &str, uid: Uid) -> Option<String> {
    let mut doc: serde_json::Value = serde_json::from_str(json).ok()?;
    let wanted = uid.to_string();
    let mut stack: Vec<&serde_json::Value> = doc.get("root").into_iter().collect();
    let mut found = None;
    while let Some(node) = stack.pop() {
        if node.get("uid").and_then(|u| u.as_str()) == Some(wanted.as_str()) {
            found = Some(node.clone());
            break;
        }
        if let Some(children) = node.get("children").and_then(|c| c.as_array()) {
            stack.extend(children.iter().rev());
        }
    }
    let found = found?;
    *doc.get_mut("root")? = found;
    Some(doc.to_string())
}

/// Renders the JSON snapshot for the mode in `options`.
pub fn render<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    options: &RenderOptions,
) -> String {
    let flat: Vec<(usize, JNode<'_>)> = match options.mode {
        Mode::A11y => a11y::select(model, analysis, options.verbose)
            .items
            .iter()
            .map(|it| (it.depth as usize, a11y_node(model, analysis, uids, it)))
            .collect(),
        Mode::Dom => dom_nodes(model, analysis, uids),
    };
    let v = &analysis.viewport;
    let snap = Snapshot {
        url: &model.url,
        title: &model.title,
        snapshot: uids.snapshot(),
        consistent: options.consistent,
        viewport: ViewportJson {
            width: v.width,
            height: v.height,
            scroll_x: v.scroll_x,
            scroll_y: v.scroll_y,
            content_width: v.content_width,
            content_height: v.content_height,
            device_pixel_ratio: v.device_pixel_ratio,
        },
        root: nest(flat),
    };
    // Serializing plain structs of strings, numbers and maps with string keys cannot fail.
    serde_json::to_string(&snap).unwrap_or_else(|_| String::from("{}"))
}

/// Builds the tree from pre-order nodes with depths (clamped to be well-formed and shallow).
fn nest(flat: Vec<(usize, JNode<'_>)>) -> Option<JNode<'_>> {
    let mut stack: Vec<JNode<'_>> = Vec::new();
    for (depth, node) in flat {
        let depth = if stack.is_empty() {
            0
        } else {
            depth.clamp(1, stack.len()).min(MAX_DEPTH)
        };
        while stack.len() > depth {
            attach_top(&mut stack);
        }
        stack.push(node);
    }
    while stack.len() > 1 {
        attach_top(&mut stack);
    }
    stack.pop()
}

fn attach_top(stack: &mut Vec<JNode<'_>>) {
    if let Some(child) = stack.pop() {
        if let Some(parent) = stack.last_mut() {
            parent.children.push(child);
        }
    }
}

fn cap(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(caps::JSON) {
        Some((i, _)) => {
            let mut o = String::with_capacity(i + 3);
            o.push_str(&s[..i]);
            o.push(super::escape::ELLIPSIS);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(s),
    }
}

fn uid_string(uid: Option<Uid>) -> String {
    uid.map(|u| u.to_string()).unwrap_or_default()
}

fn checked_json(c: Option<Checked>) -> Option<CheckedJson> {
    match c? {
        Checked::True => Some(CheckedJson::Bool(true)),
        Checked::False => Some(CheckedJson::Bool(false)),
        Checked::Mixed => Some(CheckedJson::Mixed("mixed")),
    }
}

fn scroll_json(s: ScrollInfo) -> ScrollJson {
    ScrollJson {
        above: s.above(),
        below: s.below(),
        left: s.left_of(),
        right: s.right_of(),
        scroll_width: s.width,
        scroll_height: s.height,
        client_width: s.client_width,
        client_height: s.client_height,
    }
}

/// The facts part of a node: everything the analysis knows about its DOM node.
#[allow(clippy::too_many_arguments)]
fn base_node<'a, U: UidSource + ?Sized>(
    model: &'a Model,
    analysis: &Analysis,
    uids: &U,
    uid: Option<Uid>,
    dom: Option<NodeId>,
    f: &NodeFacts,
    role: Cow<'a, str>,
    name: Cow<'a, str>,
) -> JNode<'a> {
    let node = dom.map(|d| model.node(d));
    let frame_id = node.and_then(|n| {
        model
            .docs
            .get(n.doc.index())
            .and_then(|d| model.opt_str(d.frame_id))
    });
    let click = dom.map(|d| analysis.click(d)).unwrap_or_default();
    let covered_by = if click.occluded {
        click
            .covered_by
            .filter(|c| c.index() < model.nodes.len())
            .map(|c| {
                if model.node(c).is_element() {
                    c
                } else {
                    model.parent_element(c).unwrap_or(c)
                }
            })
            .and_then(|c| uids.dom(c))
            .map(|u| u.to_string())
    } else {
        None
    };
    JNode {
        uid: uid_string(uid),
        backend_node_id: node.map(|n| i64::from(n.backend_node_id)),
        frame_id,
        role,
        name,
        tag: dom.and_then(|d| model.tag(d)),
        interactive: f.interactive,
        visible: f.visible(),
        in_viewport: f.in_viewport,
        occluded: click.occluded,
        covered_by,
        bounds: f.bounds().map(|b| RectJson {
            x: b.x,
            y: b.y,
            width: b.width,
            height: b.height,
        }),
        click_point: click.click_point.map(|p| PointJson { x: p.x, y: p.y }),
        new: uid.is_some_and(|u| uids.is_new(u)),
        attributes: Attrs(Vec::new()),
        value: None,
        checked: dom.and_then(|d| checked_json(model.checked(d))),
        scroll: dom
            .and_then(|d| analysis.scroll(d))
            .filter(super::scrolls)
            .map(scroll_json),
        children: Vec::new(),
    }
}

fn a11y_node<'a, U: UidSource + ?Sized>(
    model: &'a Model,
    analysis: &Analysis,
    uids: &U,
    item: &Item,
) -> JNode<'a> {
    let dom = match item.node {
        TreeNode::Ax(a) => model.ax(a).node.filter(|d| d.index() < model.nodes.len()),
        TreeNode::Dom(d) => Some(d),
    };
    let f = dom.map(|d| *facts(analysis, d)).unwrap_or_default();
    let uid = a11y::uid(model, uids, item.node);
    let name = match a11y::name(model, item) {
        Cow::Borrowed(s) => cap(s),
        Cow::Owned(s) => Cow::Owned(cap(&s).into_owned()),
    };
    let mut j = base_node(
        model,
        analysis,
        uids,
        uid,
        dom,
        &f,
        Cow::Borrowed(a11y::role(model, item)),
        name,
    );
    if let TreeNode::Ax(a) = item.node {
        let ax = model.ax(a);
        if dom.is_none() {
            j.backend_node_id = ax.backend_dom_node_id;
            j.frame_id = model.opt_str(ax.frame_id);
        }
        if j.checked.is_none() {
            j.checked = match model.ax_prop(a, crate::model::AxProp::Checked) {
                Some(AxValue::Bool(b)) => Some(CheckedJson::Bool(b)),
                Some(AxValue::Mixed) => Some(CheckedJson::Mixed("mixed")),
                _ => None,
            };
        }
    }
    let mut attrs = Vec::new();
    let mut value = None;
    a11y::for_each_attr(
        model,
        analysis,
        uids,
        item,
        &mut |key, val| match (key, val) {
            ("value", AttrVal::Str(s)) => value = Some(cap(s)),
            ("value", AttrVal::Num(n)) => {
                let mut s = String::new();
                a11y::push_number(&mut s, n);
                value = Some(Cow::Owned(s));
            }
            ("checked", _) | ("scroll", _) => {}
            (k, AttrVal::Flag) => attrs.push((k, AttrJson::Flag(true))),
            (k, AttrVal::Str(s)) => attrs.push((k, AttrJson::Str(cap(s)))),
            (k, AttrVal::Num(n)) => attrs.push((k, AttrJson::Num(n))),
            (k, AttrVal::Uid(u)) => attrs.push((k, AttrJson::Str(Cow::Owned(u.to_string())))),
            (_, AttrVal::Scroll(_)) => {}
        },
    );
    j.attributes = Attrs(attrs);
    j.value = value;
    if j.scroll.is_none() && item.depth == 0 {
        j.scroll = Some(scroll_json(analysis.page_scroll())).filter(|_| {
            let s = analysis.page_scroll();
            super::scrolls(&s)
        });
    }
    j
}

fn dom_nodes<'a, U: UidSource + ?Sized>(
    model: &'a Model,
    analysis: &Analysis,
    uids: &U,
) -> Vec<(usize, JNode<'a>)> {
    let mut flat = Vec::new();
    let Some(root) = model.docs.first().map(|d| d.root) else {
        return flat;
    };
    if root.index() >= model.nodes.len() {
        return flat;
    }
    let rf = *facts(analysis, root);
    let role = model.role(root).unwrap_or("RootWebArea");
    let mut r = base_node(
        model,
        analysis,
        uids,
        uids.dom(root),
        Some(root),
        &rf,
        Cow::Borrowed(role),
        cap(&model.title),
    );
    if r.scroll.is_none() {
        let s = analysis.page_scroll();
        r.scroll = super::scrolls(&s).then(|| scroll_json(s));
    }
    flat.push((0, r));
    for el in dom::elements(model, analysis, uids) {
        let d = el.node;
        let f = *facts(analysis, d);
        // Named like the a11y view names a spliced element: its accessible name, else its text
        // when that is short (a page wrapper's whole text is not a name).
        let t = model.text_content(d, caps::NAME * 4 + 8);
        let ax_name = model.ax_name(d).unwrap_or("");
        let name: Cow<'a, str> = if !ax_name.is_empty() {
            cap(ax_name)
        } else if t.chars().count() <= caps::NAME {
            Cow::Owned(t.clone())
        } else {
            Cow::Borrowed("")
        };
        let role = model.role(d).filter(|r| !r.is_empty() && *r != "none");
        let mut j = base_node(
            model,
            analysis,
            uids,
            uids.dom(d),
            Some(d),
            &f,
            Cow::Borrowed(role.unwrap_or("generic")),
            name,
        );
        let attrs = dom::dom_attributes(model, analysis, d, t.trim());
        let mut out = Vec::with_capacity(attrs.len());
        for (k, v) in attrs {
            match (k, v) {
                ("checked", _) => {}
                ("value", Val::Str(s)) => j.value = Some(cap(s)),
                (k, Val::Str(s)) => out.push((k, AttrJson::Str(cap(s)))),
                (k, Val::Bool(b)) => out.push((k, AttrJson::Flag(b))),
            }
        }
        j.attributes = Attrs(out);
        flat.push((el.depth as usize + 1, j));
    }
    flat
}

#[cfg(test)]
mod tests;
