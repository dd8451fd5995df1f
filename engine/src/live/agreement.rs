//! What a DOM snapshot and an accessibility tree read of two states of a page still agree on.
//!
//! Why: a page whose scripts change its DOM every few milliseconds (a feed adding rows, a
//! ticker, a chat) changes it between Chromium's answer to `DOMSnapshot.captureSnapshot` and
//! its answers to the accessibility calls that follow, and again each time the two are asked
//! for again. Failing the snapshot would leave an agent nothing to do but ask again, into the
//! same race, on a page that has long finished loading. Both replies still agree on most
//! nodes, and what they agree on is one state of each node: the snapshot made of those says it
//! is not consistent and how many accessibility nodes it left out, and every node in it has
//! its DOM data and its accessibility data from states in which they agree.
//!
//! An accessibility node is left out, with everything under it, when:
//! - it is tied to a DOM node the snapshot does not have (added after the snapshot was taken;
//!   the insides of form controls and media, which the snapshot never lists, excepted);
//! - it is a text node's, and its text is not the text the snapshot holds for that node (the
//!   text was rewritten in between, as a ticker's is).
//!
//! The root web area's name is the document's title: when the two differ, the root is named by
//! the title the snapshot recorded. DOM nodes the tree no longer has (removed after the
//! snapshot) need nothing: they are left without accessibility data, as the a11y view leaves
//! them out. Pure: plain data in, plain data out.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::capture::{AxKeyRef, AxNodeRef, AxNodes, DomSnapshot};

/// An accessibility tree reduced to what agrees with a DOM snapshot.
pub struct Agreement {
    /// The nodes kept, in their order, without the child ids of nodes left out.
    pub nodes: AxNodes,
    /// How many nodes were left out that a view could show (not ignored, not inline text
    /// boxes).
    pub left_out: usize,
}

/// What the snapshot holds of a node it lists.
#[derive(Clone, Copy)]
struct DomFacts<'s> {
    tag: &'s str,
    /// A text node's text.
    text: Option<&'s str>,
}

/// `ax` reduced to the nodes that agree with `snapshot` (see the module docs). `Err` when the
/// reduced tree would be too large to hold, which a tree read whole never is.
pub fn agreeing_nodes(snapshot: &DomSnapshot, ax: &AxNodes) -> Result<Agreement, &'static str> {
    let dom = dom_facts(snapshot);
    let index: FxHashMap<AxKeyRef<'_>, usize> =
        ax.iter().map(|n| (n.node_id(), n.index())).collect();
    let parent_of = |n: &AxNodeRef<'_>| n.parent_id().and_then(|p| index.get(&p).copied());
    // Whether a node disagrees with the snapshot on its own.
    let disagrees = |n: &AxNodeRef<'_>| -> bool {
        let Some(backend) = n.backend_dom_node_id() else {
            return false;
        };
        match dom.get(&backend) {
            None => !under_user_agent_tree(n, ax, &dom, &parent_of),
            Some(facts) => text_differs(n, facts),
        }
    };
    // Whether each node is left out: it disagrees, or a node above it does.
    let mut out: Vec<Option<bool>> = vec![None; ax.len()];
    let mut chain = Vec::new();
    for start in 0..ax.len() {
        chain.clear();
        let mut cur = Some(start);
        let verdict = loop {
            let Some(k) = cur else { break false };
            if let Some(v) = out[k] {
                break v;
            }
            // A cycle, or a hostile depth: kept as it is (the model checks the tree).
            if chain.len() > ax.len() {
                break false;
            }
            let Some(n) = ax.get(k) else { break false };
            chain.push(k);
            if disagrees(&n) {
                break true;
            }
            cur = parent_of(&n);
        };
        // Every node walked is under (or is) the node the verdict is of.
        for &k in &chain {
            out[k] = Some(verdict);
        }
    }
    let left: FxHashSet<AxKeyRef<'_>> = ax
        .iter()
        .filter(|n| out[n.index()] == Some(true))
        .map(|n| n.node_id())
        .collect();
    let title = title_of(snapshot);
    let mut nodes = AxNodes::default();
    let mut left_out = 0;
    for n in ax.iter() {
        if left.contains(&n.node_id()) {
            let shown = !n.ignored() && n.role().and_then(|r| r.as_str()) != Some("InlineTextBox");
            left_out += usize::from(shown);
            continue;
        }
        let is_root =
            n.parent_id().is_none() && n.role().and_then(|r| r.as_str()) == Some("RootWebArea");
        let name = n.name().and_then(|v| v.as_str()).unwrap_or("");
        let rename = title
            .filter(|t| is_root && !t.is_empty() && !same_words(name, t, false))
            .map(String::as_str);
        nodes.push_node_with(n, rename, |c| !left.contains(&c))?;
    }
    Ok(Agreement { nodes, left_out })
}

/// backendNodeId -> what the snapshot holds of the node, for every document of `snapshot`.
fn dom_facts(snapshot: &DomSnapshot) -> FxHashMap<i64, DomFacts<'_>> {
    let string = |i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| snapshot.strings.get(i))
    };
    let mut out = FxHashMap::default();
    for d in &snapshot.documents {
        let (Some(ids), Some(names)) = (&d.nodes.backend_node_id, &d.nodes.node_name) else {
            continue;
        };
        let types = d.nodes.node_type.as_deref().unwrap_or(&[]);
        let values = d.nodes.node_value.as_deref().unwrap_or(&[]);
        for (k, (&id, &name)) in ids.iter().zip(names).enumerate() {
            let text_node = types.get(k) == Some(&3);
            let text = values
                .get(k)
                .filter(|_| text_node)
                .and_then(|&v| string(v))
                .map(String::as_str);
            let tag = string(name).map_or("", String::as_str);
            out.insert(id, DomFacts { tag, text });
        }
    }
    out
}

/// Whether the nearest ancestor of `n` the snapshot lists holds a tree of its own the snapshot
/// leaves out (form controls, media): its nodes are unknown to the snapshot in any one state.
fn under_user_agent_tree(
    n: &AxNodeRef<'_>,
    ax: &AxNodes,
    dom: &FxHashMap<i64, DomFacts<'_>>,
    parent_of: &impl Fn(&AxNodeRef<'_>) -> Option<usize>,
) -> bool {
    let mut cur = parent_of(n).and_then(|k| ax.get(k));
    for _ in 0..64 {
        let Some(p) = cur else { return false };
        if let Some(facts) = p.backend_dom_node_id().and_then(|b| dom.get(&b)) {
            return holds_user_agent_tree(facts.tag);
        }
        cur = parent_of(&p).and_then(|k| ax.get(k));
    }
    false
}

/// Elements whose insides the accessibility tree describes and the DOM snapshot does not
/// (user-agent shadow trees).
pub(super) fn holds_user_agent_tree(tag: &str) -> bool {
    matches!(
        tag.to_ascii_lowercase().as_str(),
        "input"
            | "textarea"
            | "select"
            | "video"
            | "audio"
            | "meter"
            | "progress"
            | "details"
            | "img"
            | "object"
            | "embed"
    )
}

/// Whether a text node's accessibility node names another text than the snapshot holds for it
/// (case aside: `text-transform` changes the rendered text the tree names).
fn text_differs(n: &AxNodeRef<'_>, facts: &DomFacts<'_>) -> bool {
    let Some(text) = facts.text else {
        return false;
    };
    if n.role().and_then(|r| r.as_str()) != Some("StaticText") {
        return false;
    }
    let name = n.name().and_then(|v| v.as_str()).unwrap_or("");
    !same_words(name, text, true)
}

fn title_of(snapshot: &DomSnapshot) -> Option<&String> {
    snapshot
        .documents
        .first()
        .and_then(|d| usize::try_from(d.title).ok())
        .and_then(|i| snapshot.strings.get(i))
}

/// Whether two texts have the same words, in the same order (`any_case`: case aside).
fn same_words(a: &str, b: &str, any_case: bool) -> bool {
    let mut a = a.split_whitespace();
    let mut b = b.split_whitespace();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) if any_case && x.to_lowercase() == y.to_lowercase() => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot of one state: the document (title "Feed 2"), a list holding row 1 (a link
    /// with its text) and a ticker's text node saying "tick 5", and an input.
    fn snapshot() -> DomSnapshot {
        serde_json::from_value(serde_json::json!({
            "strings": ["F0", "#document", "UL", "LI", "A", "#text", "row 1", "tick 5", "P",
                        "Feed 2", "INPUT"],
            "documents": [{
                "documentURL": -1, "title": 9, "baseURL": -1, "contentLanguage": -1,
                "encodingName": -1, "publicId": -1, "systemId": -1, "frameId": 0,
                "nodes": {"parentIndex": [-1, 0, 1, 2, 3, 0, 5, 0],
                          "nodeType": [9, 1, 1, 1, 3, 1, 3, 1],
                          "nodeName": [1, 2, 3, 4, 5, 8, 5, 10],
                          "nodeValue": [-1, -1, -1, -1, 6, -1, 7, -1],
                          "backendNodeId": [1, 2, 3, 4, 5, 6, 7, 8]},
                "layout": {"nodeIndex": [], "styles": [], "bounds": [], "text": [],
                           "stackingContexts": {"index": []}},
                "textBoxes": {"layoutIndex": [], "bounds": [], "start": [], "length": []}
            }]
        }))
        .expect("a snapshot")
    }

    fn node(
        id: &str,
        parent: Option<&str>,
        backend: i64,
        role: &str,
        name: &str,
        children: &[&str],
    ) -> serde_json::Value {
        let mut n = serde_json::json!({
            "nodeId": id, "ignored": false, "backendDOMNodeId": backend,
            "role": {"type": "role", "value": role},
            "name": {"type": "computedString", "value": name},
            "childIds": children,
        });
        if let Some(p) = parent {
            n["parentId"] = serde_json::json!(p);
        }
        n
    }

    /// The tree read a moment later: row 0 was added before row 1 (nodes 20-22, DOM nodes
    /// 20-22 the snapshot does not have), the ticker says "tick 6", the title changed, and the
    /// input's inner editor (unknown to any snapshot) is there.
    fn later_tree() -> AxNodes {
        let nodes = serde_json::json!([
            node("1", None, 1, "RootWebArea", "(3) Feed", &["2", "6", "8"]),
            node("2", Some("1"), 2, "list", "", &["20", "3"]),
            node("20", Some("2"), 20, "listitem", "", &["21"]),
            node("21", Some("20"), 21, "link", "row 0", &["22"]),
            node("22", Some("21"), 22, "StaticText", "row 0", &[]),
            node("3", Some("2"), 3, "listitem", "", &["4"]),
            node("4", Some("3"), 4, "link", "row 1", &["5"]),
            node("5", Some("4"), 5, "StaticText", "row 1", &[]),
            node("6", Some("1"), 6, "paragraph", "", &["7"]),
            node("7", Some("6"), 7, "StaticText", "tick 6", &[]),
            node("8", Some("1"), 8, "textbox", "", &["30"]),
            node("30", Some("8"), 30, "generic", "", &[]),
        ]);
        AxNodes::from_json(&nodes.to_string()).expect("a tree")
    }

    fn ids(nodes: &AxNodes) -> Vec<String> {
        nodes.iter().map(|n| n.node_id().to_string()).collect()
    }

    #[test]
    fn what_changed_in_between_is_left_out_with_what_lies_under_it() {
        let agreed = agreeing_nodes(&snapshot(), &later_tree()).expect("agreement");
        // Row 0 (added after the snapshot) and the ticker's rewritten text are left out; the
        // input's insides stay.
        assert_eq!(
            ids(&agreed.nodes),
            ["1", "2", "3", "4", "5", "6", "8", "30"]
        );
        assert_eq!(agreed.left_out, 4);
        let list = agreed.nodes.get(1).expect("the list");
        assert_eq!(
            list.child_ids().map(|c| c.to_string()).collect::<Vec<_>>(),
            ["3"]
        );
        let ticker = agreed.nodes.get(5).expect("the paragraph");
        assert_eq!(ticker.child_count(), 0);
        // The page is named by the title of the snapshot's moment, not the tree's.
        let root = agreed.nodes.get(0).expect("the root");
        assert_eq!(root.name().and_then(|n| n.as_str()), Some("Feed 2"));
        assert_eq!(root.role().and_then(|r| r.as_str()), Some("RootWebArea"));
        assert_eq!(root.child_count(), 3);
    }

    #[test]
    fn a_tree_of_the_snapshot_s_own_moment_is_kept_whole() {
        let nodes = serde_json::json!([
            node("1", None, 1, "RootWebArea", "Feed 2", &["2"]),
            node("2", Some("1"), 2, "list", "", &["3"]),
            node("3", Some("2"), 3, "listitem", "", &["4"]),
            node("4", Some("3"), 4, "link", "row 1", &["5"]),
            node("5", Some("4"), 5, "StaticText", "ROW  1", &[]),
        ]);
        let tree = AxNodes::from_json(&nodes.to_string()).expect("a tree");
        let agreed = agreeing_nodes(&snapshot(), &tree).expect("agreement");
        assert_eq!(agreed.left_out, 0);
        assert_eq!(agreed.nodes, tree);
    }
}
