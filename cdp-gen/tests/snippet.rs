//! Generator rules on a small hand-written protocol (`tests/snippet/protocol.json`).
//!
//! The generated modules are checked in under `tests/snippet/gen/` and compiled by
//! `tests/snippet_behaviour.rs`, which checks how they behave at run time; this file checks the
//! generated text and keeps those modules in sync (`CDP_GEN_BLESS=1` rewrites them).

use std::path::PathBuf;

use cdp_gen::{generate, parse_protocol, Config, Generated};

fn snippet_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snippet")
}

fn config() -> Config {
    Config {
        default_domains: vec!["Snippet".into()],
        rustfmt: true,
    }
}

fn snippet() -> Generated {
    let json = std::fs::read(snippet_dir().join("protocol.json")).expect("snippet protocol");
    generate(&parse_protocol(&json).expect("parses"), &config()).expect("generates")
}

fn generate_str(json: &str) -> Result<Generated, cdp_gen::Error> {
    generate(
        &parse_protocol(json.as_bytes())?,
        &Config {
            default_domains: vec![],
            rustfmt: false,
        },
    )
}

/// Source with all whitespace runs collapsed, so checks do not depend on rustfmt's wrapping.
fn flat(source: &str) -> String {
    source.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn checked_in_snippet_modules_are_current() {
    let generated = snippet();
    let dir = snippet_dir().join("gen");
    if std::env::var_os("CDP_GEN_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (module, source) in &generated.modules {
            std::fs::write(dir.join(format!("{module}.rs")), source).unwrap();
        }
    }
    for (module, source) in &generated.modules {
        let path = dir.join(format!("{module}.rs"));
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == *source,
            "{} is stale: run `CDP_GEN_BLESS=1 cargo test -p cdp-gen --test snippet`",
            path.display()
        );
    }
}

#[test]
fn enums_get_an_unknown_fallback_and_exact_wire_strings() {
    let src = flat(&snippet().modules["snippet"]);
    for expected in [
        "pub enum Kind {",
        "ComputedString,",
        "UserAgent,",
        "Unknown_,",
        "Self_,",
        "V2d,",
        "Ctap2_0,",
        "Empty,",
        "Unknown(String), }",
        "Self::UserAgent => \"user-agent\",",
        "\"user-agent\" => Self::UserAgent,",
        "\"\" => Self::Empty,",
        "_ => return None,",
        "fn from_unknown(s: String) -> Self { Self::Unknown(s) }",
        "crate::wire::deserialize_enum(d)",
    ] {
        assert!(src.contains(expected), "missing `{expected}`");
    }
}

#[test]
fn recursion_is_boxed_only_where_needed() {
    let g = snippet();
    let dom = flat(&g.modules["dom"]);
    assert!(dom.contains("pub content_document: Option<Box<Node>>,"));
    assert!(
        dom.contains("pub children: Option<Vec<Node>>,"),
        "Vec needs no box"
    );
    let layer = flat(&g.modules["layer_tree"]);
    assert!(
        layer.contains("pub b: Option<Box<B>>,"),
        "mutual recursion A -> B"
    );
    assert!(layer.contains("pub a: Box<A>,"), "mutual recursion B -> A");
    assert!(layer.contains("pub c: C,"), "C is not in the cycle");
    assert!(layer.contains("pub cs: Vec<C>,"));
}

#[test]
fn keywords_are_escaped_and_renamed() {
    let src = flat(&snippet().modules["snippet"]);
    assert!(src.contains("#[serde(rename = \"type\")] pub type_: Kind,"));
    assert!(src.contains("#[serde( rename = \"override\", default, skip_serializing_if = \"Option::is_none\" )] pub override_: Option<bool>,")
        || src.contains("#[serde(rename = \"override\", default, skip_serializing_if = \"Option::is_none\")] pub override_: Option<bool>,"));
    assert!(src.contains("pub self_: Option<String>,"));
}

#[test]
fn optional_fields_are_options_skipped_when_none() {
    let g = generate_str(
        r#"{"domains":[{"domain":"D","types":[{"id":"T","type":"object","properties":[
            {"name":"a","type":"integer","optional":true},{"name":"b","type":"integer"}]}]}]}"#,
    )
    .unwrap();
    let src = flat(&g.modules["d"]);
    assert!(src.contains(
        "#[serde(default, skip_serializing_if = \"Option::is_none\")] pub a: Option<i64>,"
    ));
    assert!(src.contains("pub b: i64,"));
    assert!(
        !src.contains("Default, serde"),
        "a struct with a required field derives no Default"
    );
    let all_optional = flat(&snippet().modules["snippet"]);
    assert!(all_optional.contains("#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)] pub struct GetFullAXTreeParams"));
}

#[test]
fn acronym_fields_are_folded_and_renamed() {
    let dom = flat(&snippet().modules["dom"]);
    assert!(dom.contains("rename = \"backendDOMNodeId\""));
    assert!(dom.contains("pub backend_dom_node_id: Option<BackendNodeId>,"));
    assert!(dom.contains("rename = \"documentURL\""));
    assert!(dom.contains("pub document_url: Option<String>,"));
    assert!(dom.contains("#[serde(rename = \"nodeId\")] pub node_id: NodeId,"));
    let snippet = flat(&snippet().modules["snippet"]);
    assert!(snippet.contains("pub scroll_offset_x: Option<f64>,"));
}

#[test]
fn cross_domain_refs_and_feature_deps() {
    let g = snippet();
    let src = flat(&g.modules["snippet"]);
    assert!(src.contains("pub node: Option<crate::dom::Node>,"));
    assert!(src.contains("pub backend_node_id: crate::dom::BackendNodeId,"));
    assert!(src.contains("pub nodes: Vec<crate::dom::Node>,"));
    assert!(
        g.features_section.contains("\nsnippet = [\"dom\"]\n"),
        "{}",
        g.features_section
    );
    assert!(g.features_section.contains("\ndom = []\n"));
    assert!(g.features_section.contains("\nlayer_tree = []\n"));
    assert!(g.features_section.contains("default = [\"snippet\"]"));
    let closure: Vec<String> = g.feature_closure(&g.default_features).into_iter().collect();
    assert_eq!(closure, ["dom", "snippet"]);
    assert!(g
        .lib_section
        .contains("#[cfg(feature = \"layer_tree\")]\npub mod layer_tree;\n"));
}

#[test]
fn commands_events_and_inline_enum_names() {
    let src = flat(&snippet().modules["snippet"]);
    for expected in [
        "pub struct GetFullAXTreeParams {",
        "pub struct GetFullAXTreeReturns {",
        "impl crate::Command for GetFullAXTreeParams { const METHOD: &'static str = \"Snippet.getFullAXTree\"; type Response = GetFullAXTreeReturns; }",
        "pub struct EnableParams {}",
        "pub struct EnableReturns {}",
        "pub struct LoadEventFiredEvent {",
        "impl crate::Event for LoadEventFiredEvent { const METHOD: &'static str = \"Snippet.loadEventFired\"; }",
        "pub struct AttachedToTargetEvent {}",
        // Params gets `<Command><Field>`, the same field of Returns then `<Struct><Field>`.
        "pub mode: Option<GetFullAXTreeMode>,",
        "pub mode: GetFullAXTreeReturnsMode,",
        // `ThingKind` is a protocol type, so `Thing.kind` gets a numbered name.
        "pub kind: ThingKind2,",
        "The browser implements this command in the `DOM` domain.",
    ] {
        assert!(src.contains(expected), "missing `{expected}`");
    }
    assert!(
        !src.contains("#[deprecated"),
        "deprecation is documented, not an attribute"
    );
}

#[test]
fn descriptions_are_escaped_for_rustdoc() {
    let dom = &snippet().modules["dom"];
    assert!(
        dom.contains("//! A tiny DOM: see &lt;`https://example.com/dom`&gt; or \\[the spec\\]\n"),
        "{dom}"
    );
    assert!(dom.contains("//! indented text that is not code\n"));
    assert!(dom.contains("//! '''\n"));
    assert!(dom.contains("/// A DOM node. It may contain `<iframe>` content documents.\n"));
    assert!(!dom.contains("///     "), "no indented code blocks");
}

#[test]
fn output_is_deterministic() {
    let a = snippet();
    let b = snippet();
    assert_eq!(a.modules, b.modules);
    assert_eq!(a.features_section, b.features_section);
    assert_eq!(a.lib_section, b.lib_section);
}

#[test]
fn errors_name_the_bad_item() {
    let err = generate_str(
        r#"{"domains":[{"domain":"D","types":[{"id":"T","type":"object","properties":[{"name":"x","$ref":"Nope.X"}]}]}]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`D.T.x`") && err.contains("Nope.X"), "{err}");

    let err = generate_str(
        r#"{"domains":[{"domain":"D","commands":[{"name":"go","parameters":[{"name":"fooBar","type":"string"},{"name":"foo_bar","type":"string"}]}]}]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("D.go") && err.contains("foo_bar"), "{err}");

    let err = generate_str(r#"{"domains":[{"domain":"D","types":[{"id":"T","type":"array"}]}]}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("D.T") && err.contains("items"), "{err}");

    let err = generate_str(r#"{"domains":[{"domain":"D","types":[{"id":"FooEvent","type":"string"}],"events":[{"name":"foo"}]}]}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("D.foo") && err.contains("FooEvent"), "{err}");

    let err = generate(
        &parse_protocol(br#"{"domains":[]}"#).unwrap(),
        &Config {
            default_domains: vec!["DOM".into()],
            rustfmt: false,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("DOM"), "{err}");
    assert!(parse_protocol(b"{\"domains\": 3}").is_err());
}
