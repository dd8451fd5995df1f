//! A reader of one accessibility node (`AXNode` JSON), written for that one shape, straight into
//! the tables of an [`AxNodes`].
//!
//! Why: after the DOM snapshot got a reader of its own, the accessibility tree became the
//! larger part of reading a snapshot: on a small page about half of the engine's offline work,
//! and most of a long page's capture file. Read through serde's seeds, every key and string goes
//! through the derived visitors and every skipped value (each name's `sources`, `chromeRole`,
//! `ignoredReasons`: most of the bytes) is parsed token by token; here keys are matched as
//! bytes, strings that need no unescaping are copied once into the tree's text, and the end of
//! every string, read or skipped, is found eight bytes at a time (`json_reader.rs`).
//!
//! It gives what the seeds give, or nothing: [`read_node`] reads one node as
//! `AxNodes::node_seed` reads it (keys in any order, unknown keys skipped at any depth, `null`s,
//! a field given twice or missing refused), and for anything it does not read the same way — a
//! key with escapes, a number serde_json would convert by its slow path, JSON it refuses — it
//! answers `None` and leaves the tree as it was, for the caller to read that node with the seed,
//! whose value or error is the one given.

use std::borrow::Cow;

use crate::cdp::accessibility::{AXPropertyName, AXValueType};
use crate::cdp::wire::WireEnum;

use super::super::json_reader::{digits, set_once, Reader, Surrogates, SKIP_DEPTH};
use super::{
    known_role, AxNodes, FieldOf, Kind, NodeField, NodeRead, PackedKey, ValueField, ValueRow,
    IGNORED,
};

impl AxNodes {
    /// The engine's reader alone on a JSON list of nodes (`getFullAXTree().nodes`): what
    /// [`AxNodes::from_json`] gives, or `None` when it does not read every node as the seed
    /// would (see the module docs), or the text is not one list.
    pub fn read_fast(text: &str) -> Option<AxNodes> {
        let mut r = Reader::in_text(text, 0, Surrogates::Refuse);
        let mut tree = AxNodes::default();
        r.array(|r| read_node(&mut tree, r))?;
        r.skip_ws();
        (r.at == text.len()).then_some(())?;
        tree.shrink_to_fit();
        Some(tree)
    }
}

/// Reads the node at the reader's position (its `{` next, after any whitespace) onto the end of
/// `tree`. `None`, with the reader and the tree as they were, when it does not read it exactly
/// as the seed would.
pub(in crate::capture) fn read_node(tree: &mut AxNodes, r: &mut Reader<'_>) -> Option<()> {
    let (start, mark) = (r.at, Mark::of(tree));
    let read = node(tree, r);
    if read.is_none() {
        r.at = start;
        mark.restore(tree);
    }
    read
}

/// The lengths of a tree's tables before a node is read, to take back what a node that does not
/// read left in them.
struct Mark {
    rows: usize,
    values: usize,
    props: usize,
    children: usize,
    text: usize,
    spans: usize,
    types: usize,
    prop_names: usize,
}

impl Mark {
    fn of(t: &AxNodes) -> Mark {
        Mark {
            rows: t.rows.len(),
            values: t.values.len(),
            props: t.props.len(),
            children: t.children.len(),
            text: t.text.len(),
            spans: t.spans.len(),
            types: t.types.len(),
            prop_names: t.prop_names.len(),
        }
    }

    fn restore(self, t: &mut AxNodes) {
        t.rows.truncate(self.rows);
        t.values.truncate(self.values);
        t.props.truncate(self.props);
        t.children.truncate(self.children);
        t.text.truncate(self.text);
        t.spans.truncate(self.spans);
        t.types.truncate(self.types);
        t.prop_names.truncate(self.prop_names);
    }
}

fn node(t: &mut AxNodes, r: &mut Reader<'_>) -> Option<()> {
    let mut node = NodeRead::start(t).ok()?;
    r.object(|r, key| {
        let field = NodeField::of(key);
        if !node.first(field) {
            return None;
        }
        match field {
            NodeField::NodeId => node.id = Some(key_of(t, r)?),
            NodeField::Ignored => {
                if boolean(r)? {
                    node.flags |= IGNORED;
                }
            }
            NodeField::Role | NodeField::Name | NodeField::Description | NodeField::Value => {
                node.kept[field.value_slot()] = r.nullable(|r| value(t, r, false))?;
            }
            NodeField::Properties => {
                r.nullable(|r| {
                    r.array(|r| {
                        let row = value(t, r, true)?;
                        t.props.push(row);
                        Some(())
                    })
                })?;
            }
            NodeField::ParentId => {
                if let Some(p) = r.nullable(|r| key_of(t, r))? {
                    node.parent = p;
                }
            }
            NodeField::ChildIds => {
                r.nullable(|r| {
                    r.array(|r| {
                        let k = key_of(t, r)?;
                        t.children.push(k);
                        Some(())
                    })
                })?;
            }
            NodeField::BackendDomNodeId => {
                if let Some(b) = r.nullable(Reader::i64)? {
                    node.backend = Some(b);
                }
            }
            NodeField::FrameId => {
                if let Some(f) = r.nullable(|r| t.push_span(&r.quoted_text()?).ok())? {
                    node.frame = f;
                }
            }
            NodeField::Other => r.skip_value(SKIP_DEPTH)?,
        }
        Some(())
    })?;
    node.finish(t)
}

/// `true` or `false`, as serde reads a `bool` (no `null`).
fn boolean(r: &mut Reader<'_>) -> Option<bool> {
    r.skip_ws();
    if r.word(b"true") {
        Some(true)
    } else if r.word(b"false") {
        Some(false)
    } else {
        None
    }
}

/// A node id: a string.
fn key_of(t: &mut AxNodes, r: &mut Reader<'_>) -> Option<PackedKey> {
    t.push_id(&r.quoted_text()?).ok()
}

/// An `AXValue` (its `type`, required, and scalar `value`) or, for `property`, an
/// `AXProperty` (its `name` and an `AXValue` as its `value`, both required), as the seed reads
/// them; other keys are stepped over.
fn value(t: &mut AxNodes, r: &mut Reader<'_>, property: bool) -> Option<ValueRow> {
    let (mut type_, mut name, mut read) = (None, None, None);
    r.object(|r, key| match (ValueField::of(key), property) {
        (ValueField::Type, false) => {
            let type_of = intern_wire(&mut t.types, r.quoted_text()?, AXValueType::as_str);
            set_once(&mut type_, type_of)
        }
        (ValueField::Name, true) => {
            let named = intern_wire(&mut t.prop_names, r.quoted_text()?, AXPropertyName::as_str);
            set_once(&mut name, named)
        }
        (ValueField::Value, false) => set_once(&mut read, scalar_of(t, r)),
        (ValueField::Value, true) => set_once(&mut read, value(t, r, false)),
        _ => r.skip_value(SKIP_DEPTH),
    })?;
    if property {
        return Some(ValueRow {
            name: name?,
            ..read?
        });
    }
    let type_ = type_?;
    Some(ValueRow {
        type_,
        ..read.unwrap_or(ValueRow {
            bits: 0,
            type_,
            name: 0,
            kind: Kind::None,
        })
    })
}

/// The index of a value type or property name in its table, added when new. Looked up by its
/// wire string: a known string always reads as its variant, so equal strings are equal values.
fn intern_wire<T: WireEnum>(
    table: &mut Vec<T>,
    s: Cow<'_, str>,
    as_str: impl Fn(&T) -> &str,
) -> Option<u16> {
    if let Some(at) = table.iter().position(|item| as_str(item) == s) {
        return u16::try_from(at).ok();
    }
    let at = u16::try_from(table.len()).ok()?;
    table.push(T::from_known(&s).unwrap_or_else(|| T::from_unknown(s.into())));
    Some(at)
}

/// The `value` of an `AXValue` as serde_json hands it to the scalar seed: a string, a boolean, a
/// number, or nothing for `null`, a list or an object (each checked as serde_json checks what
/// it ignores).
fn scalar_of(t: &mut AxNodes, r: &mut Reader<'_>) -> Option<ValueRow> {
    let row = |kind, bits| ValueRow {
        bits,
        type_: 0,
        name: 0,
        kind,
    };
    r.skip_ws();
    Some(match *r.bytes.get(r.at)? {
        b'"' => {
            r.at += 1;
            let s = r.text()?;
            match known_role(&s) {
                Some(role) => row(Kind::Role, role as u64),
                None => row(Kind::Str, t.push_text(&s).ok()?.bits()),
            }
        }
        b't' | b'f' => row(Kind::Bool, u64::from(boolean(r)?)),
        b'n' => {
            r.word(b"null").then_some(())?;
            row(Kind::None, 0)
        }
        b'[' | b'{' => {
            r.skip_value(SKIP_DEPTH)?;
            row(Kind::None, 0)
        }
        _ => {
            let (kind, bits) = number(r)?;
            row(kind, bits)
        }
    })
}

/// A number as serde_json reads it for `deserialize_any`: an integer without fraction or
/// exponent as a `u64` (or, negative, an `i64`; `-0` and what an `i64` does not hold as a
/// float), anything else as an `f64`. Integers of 20 digits and more are left to serde_json.
fn number(r: &mut Reader<'_>) -> Option<(Kind, u64)> {
    let bytes = r.bytes;
    let negative = bytes.get(r.at) == Some(&b'-');
    let at = r.at + usize::from(negative);
    let (n, len) = digits(bytes, at);
    if len == 0 || len > 19 || (len > 1 && bytes.get(at) == Some(&b'0')) {
        return None;
    }
    if let Some(b'.' | b'e' | b'E') = bytes.get(at + len) {
        let v = r.f64()?;
        // serde_json gives no float that is not finite; were one read, it is no value.
        return Some(if v.is_finite() {
            (Kind::Float, v.to_bits())
        } else {
            (Kind::None, 0)
        });
    }
    r.at = at + len;
    if !negative {
        return Some((Kind::PosInt, n));
    }
    let value = (n as i64).wrapping_neg();
    Some(if value < 0 {
        (Kind::NegInt, value as u64)
    } else {
        (Kind::Float, (-(n as f64)).to_bits())
    })
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeSeed;

    use super::*;

    /// Equal, and every value written the same (which tells `-0.0` from `0.0`).
    fn same(a: &AxNodes, b: &AxNodes) -> bool {
        a == b && serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
    }

    /// `text` (one node) read onto the end of `tree` by the seed, as a whole text.
    fn seed(tree: &mut AxNodes, text: &str) -> serde_json::Result<()> {
        let mut de = serde_json::Deserializer::from_str(text);
        tree.node_seed().deserialize(&mut de)?;
        de.end()
    }

    /// Reads one node's `text` both ways onto copies of `before`: what the reader gives must be
    /// what the seed gives for the text the reader read (what follows a node is its list's
    /// business), and a node it does not read must leave the tree exactly as it was. Where the
    /// reader stopped, when it read the node.
    fn agree_after(before: &AxNodes, text: &str) -> Option<usize> {
        let (mut fast, mut slow) = (before.clone(), before.clone());
        let mut r = Reader::new(text.as_bytes(), Surrogates::Refuse);
        if read_node(&mut fast, &mut r).is_some() {
            let read = &text[..r.at];
            match seed(&mut slow, read) {
                Ok(()) => assert!(same(&fast, &slow), "reader and seed differ on {read}"),
                Err(e) => panic!("the reader read what the seed refuses ({e}): {read}"),
            }
            return Some(r.at);
        }
        assert_eq!(r.at, 0, "{text}");
        let (a, b) = (fast.size(), before.size());
        assert_eq!(
            (fast.len(), a.values, a.props, a.children, a.text),
            (before.len(), b.values, b.props, b.children, b.text),
            "a node not read left something behind: {text}"
        );
        assert_eq!(
            (fast.spans.len(), fast.types.len(), fast.prop_names.len()),
            (
                before.spans.len(),
                before.types.len(),
                before.prop_names.len()
            ),
            "{text}"
        );
        None
    }

    /// Whether the reader read all of `text`, as the seed does.
    fn agree(text: &str) -> bool {
        agree_after(&AxNodes::default(), text).is_some_and(|at| text[at..].trim().is_empty())
    }

    /// The reader must read `text`, as the seed does.
    fn reads(text: &str) {
        assert!(agree(text), "the reader gave up on {text}");
    }

    /// Every node of every tree of a recorded capture, as written by the capture.
    fn recorded_nodes() -> Vec<(String, Vec<serde_json::Value>)> {
        crate::capture::tests::recorded_capture_names()
            .into_iter()
            .map(|name| {
                let json = crate::capture::tests::fixture_json(&name);
                let capture: serde_json::Value = serde_json::from_slice(&json).unwrap();
                let nodes = capture["axTrees"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|tree| tree["nodes"].as_array().unwrap().clone())
                    .collect();
                (name, nodes)
            })
            .collect()
    }

    #[test]
    fn reads_every_node_of_every_recorded_capture_as_the_seed_does() {
        let mut total = 0;
        for (name, nodes) in recorded_nodes() {
            assert!(!nodes.is_empty(), "{name}");
            for node in &nodes {
                // As Chromium writes it, and spread over lines.
                let compact = serde_json::to_string(node).unwrap();
                let pretty = serde_json::to_string_pretty(node).unwrap();
                assert!(agree(&compact), "{name}: gave up on {compact}");
                assert!(agree(&pretty), "{name}: gave up on {pretty}");
            }
            total += nodes.len();
        }
        assert!(total > 10_000, "{total}");
    }

    #[test]
    fn reads_what_the_seed_reads_in_every_form_it_takes() {
        for text in [
            // As Chromium writes a node.
            r#"{"nodeId":"2","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"chromeRole":{"type":"internalRole","value":144},"name":{"type":"computedString","value":"Checkout \u00b7 \"x\" \\ \/ \ud83d\ude00 \n","sources":[{"type":"relatedElement","attribute":"aria-labelledby"},{"type":"relatedElement","value":{"type":"computedString","value":"t"},"nativeSource":"title","superseded":true}]},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},{"name":"level","value":{"type":"integer","value":2}},{"name":"valuetext","value":{"type":"string","value":""}},{"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"idref":"a","backendDOMNodeId":7,"text":"A"}]}}],"childIds":["29","-4"],"backendDOMNodeId":2,"frameId":"94E8"}"#,
            r#"{"nodeId":"29","ignored":true,"ignoredReasons":[{"name":"uninteresting","value":{"type":"boolean","value":true}}],"role":{"type":"role","value":"none"},"parentId":"2","childIds":[],"backendDOMNodeId":29}"#,
            // Keys in another order, `null`s, whitespace everywhere.
            " {\n \"childIds\" : null , \"parentId\":null,\"backendDOMNodeId\":null,\t\"name\":null,\r\n\"properties\" :null,\"frameId\": null, \"nodeId\" : \"-7\" } ",
            r#"{"value":{"type":"string"},"description":{"value":"d","type":"computedString","extra":[1,{"a":[]}]},"nodeId":"1"}"#,
            // Numbers of every kind serde_json tells apart.
            r#"{"nodeId":"1","value":{"type":"number","value":-0}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-12}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":0}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":1.5}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-2.25e3}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":1E-2}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":9999999999999999999}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-9223372036854775808}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-9223372036854775809}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-9999999999999999999}}"#,
            // A decimal the fast conversion cannot round: converted by serde_json.
            r#"{"nodeId":"1","value":{"type":"number","value":1.234567890123456789012}}"#,
            // Scalars the engine does not read, and the other scalars.
            r#"{"nodeId":"1","value":{"type":"x","value":[1,[],{}]},"role":{"type":"y","value":{"a":"b"}}}"#,
            r#"{"nodeId":"1","value":{"type":"tristate","value":false},"role":{"type":"role","value":null}}"#,
            // Types and property names this build does not know, ids that are not numbers.
            r#"{"nodeId":"007","role":{"type":"someNewType","value":"button"},"properties":[{"name":"someNewProperty","value":{"type":"someNewType","value":"v"},"type":"ignored"}],"parentId":"-0","childIds":["","x y","1234567890123456789"]}"#,
            // A property's `type` key is stepped over, a value's `name` too.
            r#"{"nodeId":"1","name":{"type":"computedString","name":"n","value":"v"},"properties":[{"type":"t","name":"busy","value":{"type":"boolean","value":false}}]}"#,
            // Unknown keys with any value.
            r#"{"nodeId":"1","x":{"y":[{"z":null}]},"w":"\u0041","v":-1.5e-7,"u":true}"#,
        ] {
            reads(text);
        }
    }

    #[test]
    fn cut_or_damaged_nodes_are_refused_or_read_as_the_seed_reads_them() {
        // Rich nodes as Chromium writes them, cut at every place and damaged at every byte:
        // whatever the reader makes of them is what the seed makes of them, or left to it.
        let nodes = [
            r#"{"nodeId":"2","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"chromeRole":{"type":"internalRole","value":144},"name":{"type":"computedString","value":"Caf\u00e9 \"x\" é","sources":[{"type":"relatedElement","attribute":"aria-labelledby"},{"type":"contents","value":{"type":"computedString","value":"t"},"superseded":true}]},"properties":[{"name":"level","value":{"type":"integer","value":-2.5e1}},{"name":"busy","value":{"type":"boolean","value":false}}],"childIds":["29","-4"],"backendDOMNodeId":2,"frameId":"94E8"}"#,
            r#"{"nodeId":"29","ignored":true,"ignoredReasons":[{"name":"uninteresting","value":{"type":"boolean","value":true}}],"role":{"type":"role","value":"none"},"parentId":"2","childIds":[],"backendDOMNodeId":29}"#,
        ];
        let mut read = 0;
        for node in nodes {
            assert!(agree(node), "{node}");
            for cut in (0..node.len()).filter(|&i| node.is_char_boundary(i)) {
                agree(&node[..cut]);
            }
            for at in 0..node.len() {
                for b in [
                    b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'-', b'x', b' ', 1,
                ] {
                    let mut damaged = node.as_bytes().to_vec();
                    damaged[at] = b;
                    if let Ok(text) = std::str::from_utf8(&damaged) {
                        read += usize::from(agree(text));
                    }
                }
            }
        }
        // Much damage leaves a node that still reads (a digit for a digit, a byte in a string).
        assert!(read > 500, "{read}");
    }

    #[test]
    fn what_the_seed_refuses_or_reads_another_way_is_left_to_it() {
        let deep = format!(
            r#"{{"nodeId":"1","x":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for text in [
            // Refused by the seed.
            r#"{"nodeId":"1","nodeId":"2"}"#,
            r#"{"nodeId":"1","role":{"type":"role","value":"a"},"role":null}"#,
            r#"{"ignored":false}"#,
            r#"{"nodeId":1}"#,
            r#"{"nodeId":"1","ignored":null}"#,
            r#"{"nodeId":"1","ignored":1}"#,
            r#"{"nodeId":"1","role":{"value":"button"}}"#,
            r#"{"nodeId":"1","role":{"type":"role","type":"role"}}"#,
            r#"{"nodeId":"1","role":{"type":"role","value":1,"value":2}}"#,
            r#"{"nodeId":"1","properties":[{"value":{"type":"boolean","value":true}}]}"#,
            r#"{"nodeId":"1","properties":[{"name":"busy"}]}"#,
            r#"{"nodeId":"1","properties":[{"name":"busy","value":null}]}"#,
            r#"{"nodeId":"1","properties":[{"name":"busy","name":"busy","value":{"type":"t"}}]}"#,
            r#"{"nodeId":"1","childIds":[1]}"#,
            r#"{"nodeId":"1","childIds":["2",]}"#,
            r#"{"nodeId":"1",}"#,
            r#"{"nodeId":"1""#,
            r#"{"nodeId":"1","backendDOMNodeId":1.5}"#,
            r#"{"nodeId":"1","backendDOMNodeId":-0}"#,
            r#"{"nodeId":"1","backendDOMNodeId":99999999999999999999}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":01}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":1.}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":1e400}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":-}}"#,
            r#"{"nodeId":"1","name":{"type":"s","value":"a\x"}}"#,
            r#"{"nodeId":"1","name":{"type":"s","value":"\ud800"}}"#,
            "{\"nodeId\":\"1\",\"name\":{\"type\":\"s\",\"value\":\"a\u{1}\"}}",
            r#"{"nodeId":"1","frameId":"F","frameId":"G"}"#,
            r#"{"nodeId":"1","x":tru}"#,
            r#"[{"nodeId":"1"}]"#,
            &deep,
            // Read by the seed another way, or by serde_json's slow paths.
            r#"{"node\u0049d":"1"}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":18446744073709551615}}"#,
            r#"{"nodeId":"1","value":{"type":"number","value":123456789012345678901234}}"#,
        ] {
            // A node before it, whose tables a node not read must leave as they were.
            let mut before = AxNodes::default();
            seed(
                &mut before,
                r#"{"nodeId":"9","role":{"type":"role","value":"link"},"name":{"type":"computedString","value":"n"},"properties":[{"name":"url","value":{"type":"string","value":"u"}}],"childIds":["10"],"frameId":"F"}"#,
            )
            .unwrap();
            assert!(
                agree_after(&before, text).is_none(),
                "the reader read {text}"
            );
        }
    }
}
