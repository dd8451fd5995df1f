//! The real, pinned `protocol.json`: it generates, the contract names hold, and the checked-in
//! bindings in `cdp/` are exactly what the generator produces now.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cdp_gen::{generate, load_protocol, Config, Generated, Protocol};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load() -> (Protocol, Generated) {
    let protocol = load_protocol(&workspace().join("protocol.json")).expect("protocol.json loads");
    let generated = generate(&protocol, &Config::pagesight()).expect("protocol.json generates");
    (protocol, generated)
}

fn flat(source: &str) -> String {
    source.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn checked_in_bindings_are_current() {
    let (_, generated) = load();
    let checked_in = workspace().join("cdp");
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(tmp.path().join("src")).unwrap();
    // The hand-written parts of these two files are kept; start from the checked-in ones.
    std::fs::copy(checked_in.join("Cargo.toml"), tmp.path().join("Cargo.toml")).unwrap();
    std::fs::copy(checked_in.join("src/lib.rs"), tmp.path().join("src/lib.rs")).unwrap();
    generated.write(tmp.path()).expect("writes");

    let mut stale = Vec::new();
    let mut files: Vec<PathBuf> = vec![PathBuf::from("Cargo.toml")];
    for entry in std::fs::read_dir(tmp.path().join("src")).unwrap() {
        files.push(Path::new("src").join(entry.unwrap().file_name()));
    }
    files.sort();
    for rel in &files {
        let fresh = std::fs::read_to_string(tmp.path().join(rel)).unwrap();
        if std::fs::read_to_string(checked_in.join(rel))
            .ok()
            .as_deref()
            != Some(fresh.as_str())
        {
            stale.push(rel.display().to_string());
        }
    }
    for obsolete in generated.obsolete_files(&checked_in).unwrap() {
        stale.push(format!("{} (no longer generated)", obsolete.display()));
    }
    assert!(
        stale.is_empty(),
        "bindings are stale: run `cargo run -p cdp-gen -- protocol.json cdp` from the workspace root. Differing files in cdp/: {stale:?}"
    );
}

#[test]
fn all_domains_are_generated_with_contract_module_names() {
    let (protocol, generated) = load();
    assert_eq!(protocol.domains.len(), 59);
    assert_eq!(generated.modules.len(), 59);
    for (domain, module) in [
        ("DOMSnapshot", "dom_snapshot"),
        ("DOM", "dom"),
        ("CSS", "css"),
        ("IO", "io"),
        ("IndexedDB", "indexed_db"),
        ("DOMDebugger", "dom_debugger"),
        ("LayerTree", "layer_tree"),
        ("PWA", "pwa"),
        ("FedCm", "fed_cm"),
        ("WebAudio", "web_audio"),
        ("Accessibility", "accessibility"),
        ("Target", "target"),
        ("Page", "page"),
    ] {
        assert!(
            generated
                .domains
                .contains(&(domain.to_string(), module.to_string())),
            "{domain} -> {module}"
        );
        assert!(
            generated
                .features_section
                .contains(&format!("\n{module} = [")),
            "feature {module}"
        );
        assert!(generated.lib_section.contains(&format!(
            "#[cfg(feature = \"{module}\")]\npub mod {module};"
        )));
    }
}

#[test]
fn every_command_and_event_is_bound() {
    let (protocol, generated) = load();
    let mut commands = 0;
    for domain in &protocol.domains {
        let module = &generated
            .domains
            .iter()
            .find(|(d, _)| d == &domain.domain)
            .unwrap()
            .1;
        let src = flat(&generated.modules[module]);
        for c in &domain.commands {
            let pascal = cdp_gen::names::upper_first(&c.name);
            let expected = format!(
                "impl crate::Command for {pascal}Params {{ const METHOD: &'static str = \"{}.{}\"; type Response = {pascal}Returns; }}",
                domain.domain, c.name
            );
            assert!(src.contains(&expected), "missing `{expected}`");
            assert!(
                src.contains(&format!("pub struct {pascal}Returns {{")),
                "{}.{} returns",
                domain.domain,
                c.name
            );
            commands += 1;
        }
        for e in &domain.events {
            let expected = format!(
                "impl crate::Event for {}Event {{ const METHOD: &'static str = \"{}.{}\"; }}",
                cdp_gen::names::upper_first(&e.name),
                domain.domain,
                e.name
            );
            assert!(src.contains(&expected), "missing `{expected}`");
        }
        for t in &domain.types {
            let declared = [
                format!("pub struct {} {{", t.id),
                format!("pub enum {} {{", t.id),
                format!("pub type {} =", t.id),
            ];
            assert!(
                declared.iter().any(|d| src.contains(d.as_str())),
                "type {}.{}",
                domain.domain,
                t.id
            );
        }
        assert!(!src.contains("#[deprecated"));
        assert!(!src.contains("deny_unknown_fields"));
    }
    assert!(commands > 500, "{commands} commands");
}

#[test]
fn contract_type_and_field_names() {
    let (_, g) = load();
    let a11y = flat(&g.modules["accessibility"]);
    for s in [
        "pub struct AXNode {",
        "pub struct AXValue {",
        "pub enum AXPropertyName {",
        "pub struct GetFullAXTreeParams {",
        "pub backend_dom_node_id: Option<crate::dom::BackendNodeId>,",
    ] {
        assert!(a11y.contains(s), "accessibility: {s}");
    }
    let snap = flat(&g.modules["dom_snapshot"]);
    for s in [
        "pub struct DocumentSnapshot {",
        "pub struct NodeTreeSnapshot {",
        "pub struct LayoutTreeSnapshot {",
        "pub struct TextBoxSnapshot {",
        "pub struct RareStringData {",
        "pub struct CaptureSnapshotParams {",
        "pub struct CaptureSnapshotReturns {",
        "pub type ArrayOfStrings = Vec<StringIndex>;",
        "pub document_url: StringIndex,",
        "pub scroll_offset_x: Option<f64>,",
        "pub is_clickable: Option<RareBooleanData>,",
        "pub paint_orders: Option<Vec<i64>>,",
    ] {
        assert!(snap.contains(s), "dom_snapshot: {s}");
    }
    let dom = flat(&g.modules["dom"]);
    assert!(dom.contains("pub type BackendNodeId = i64;"));
    assert!(dom.contains("pub content_document: Option<Box<Node>>,"));
    assert!(dom.contains("pub children: Option<Vec<Node>>,"));
    assert!(flat(&g.modules["runtime"]).contains("pub parent: Option<Box<StackTrace>>,"));
    assert!(flat(&g.modules["page"]).contains("pub struct LoadEventFiredEvent {"));
    assert!(flat(&g.modules["page"]).contains("pub struct FrameTree {"));
    assert!(flat(&g.modules["target"]).contains("pub struct AttachedToTargetEvent {"));
    assert!(flat(&g.modules["target"]).contains("pub struct TargetInfo {"));
    assert!(flat(&g.modules["debugger"])
        .contains("pub target_call_frames: Option<ContinueToLocationTargetCallFrames>,"));
}

#[test]
fn default_features_and_their_closure() {
    let (_, g) = load();
    let listed: Vec<&str> = g.default_features.iter().map(String::as_str).collect();
    assert_eq!(
        listed,
        [
            "accessibility",
            "browser",
            "dom",
            "dom_snapshot",
            "emulation",
            "input",
            "io",
            "network",
            "page",
            "runtime",
            "schema",
            "target"
        ]
    );
    let closure = g.feature_closure(&g.default_features);
    // Every module a default module refers to is in the closure...
    for m in &closure {
        for d in &g.deps[m] {
            assert!(closure.contains(d), "{m} needs {d}");
        }
    }
    // ...and the closure is the expected, small set.
    let expected: BTreeSet<String> = [
        "accessibility",
        "browser",
        "debugger",
        "dom",
        "dom_debugger",
        "dom_snapshot",
        "emulation",
        "input",
        "io",
        "network",
        "page",
        "runtime",
        "schema",
        "security",
        "target",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(closure, expected);
}

#[test]
fn feature_deps_match_the_refs_in_each_module() {
    let (_, g) = load();
    for (module, source) in &g.modules {
        let mut referenced = BTreeSet::new();
        for part in source.split("crate::").skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !["Command", "Event", "wire"].contains(&name.as_str()) {
                referenced.insert(name);
            }
        }
        referenced.remove(module);
        assert_eq!(&referenced, &g.deps[module], "feature deps of {module}");
    }
}
