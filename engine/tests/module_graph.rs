//! The engine's modules form layers: no module reaches, directly or through others, a module
//! that reaches it. This test reads `engine/src/**/*.rs`, collects every path a file names that
//! starts with `crate::` or `super::` (in `use` lines and in code alike; comments, strings and
//! character literals are skipped), and checks two graphs for circles:
//!
//! - the top-level modules (`act`, `capture`, `live`, …): an edge `a -> b` for every file of
//!   `a` that names something of `b` (a name the crate root re-exports, like `crate::Error`,
//!   counts as its module's);
//! - inside each module folder, its submodules (`act/live.rs`, `act/pointer.rs`, …; a file of a
//!   deeper folder counts as its submodule's): the folder's own `mod.rs` is left out, since a
//!   parent declaring and re-exporting its children is how modules are built.
//!
//! A circle is reported with the file and line of each of its edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One file's source with its comments, strings and character literals blanked (newlines kept,
/// so lines still count), leaving only code.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && next == Some(b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(b, i) {
            // r"…", r#"…"#, br#"…"#: no escapes; ends at a quote followed by as many hashes.
            let open = i + usize::from(b[i] == b'b') + 1 + hashes + 1;
            out.resize(out.len() + (open - i), b' ');
            i = open;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    out.resize(out.len() + 1 + hashes, b' ');
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == b'"' || (c == b'b' && next == Some(b'"') && !ident_before(b, i)) {
            let start = if c == b'b' { i + 1 } else { i };
            out.resize(out.len() + (start + 1 - i), b' ');
            i = start + 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', 'é'), or a lifetime / label ('a).
            let len = char_literal_len(b, i);
            match len {
                Some(len) => {
                    out.resize(out.len() + len, b' ');
                    i += len;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// At `r"`, `r#…#"`, `br"` or `br#…#"` (not inside an identifier): the number of hashes.
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    if ident_before(b, i) {
        return None;
    }
    let mut j = i;
    if b[j] == b'b' {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&h| h == b'#').count();
    (b.get(j + hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of the character literal starting at `b[i] == '\''`, if it is one.
fn char_literal_len(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i + 1..];
    if rest.first() == Some(&b'\\') {
        let end = rest.iter().skip(1).position(|&c| c == b'\'')?;
        return Some(end + 3);
    }
    let text = std::str::from_utf8(&rest[..rest.len().min(8)])
        .ok()
        .or_else(|| {
            (1..8)
                .rev()
                .find_map(|n| std::str::from_utf8(&rest[..rest.len().min(n)]).ok())
        })?;
    let ch = text.chars().next()?;
    let after = ch.len_utf8();
    (rest.get(after) == Some(&b'\'')).then_some(after + 2)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Path,
    Open,
    Close,
    Comma,
    Other,
}

/// The code's tokens, each with its line.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Token::Ident(code[start..i].to_string()), line));
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push((Token::Path, line));
            i += 2;
        } else {
            out.push((
                match c {
                    b'{' => Token::Open,
                    b'}' => Token::Close,
                    b',' => Token::Comma,
                    _ => Token::Other,
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// The paths of a use tree (or of a path in code) starting at `toks[i]`, after its `::`, each
/// prefixed by `prefix`; returns where the tree ends.
fn use_tree(
    toks: &[(Token, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<Vec<String>>,
) -> usize {
    match toks.get(i).map(|t| &t.0) {
        Some(Token::Open) => {
            i += 1;
            loop {
                match toks.get(i).map(|t| &t.0) {
                    Some(Token::Close) => return i + 1,
                    Some(Token::Comma) => i += 1,
                    None => return i,
                    _ => {
                        let next = use_tree(toks, i, prefix, out);
                        i = if next == i { i + 1 } else { next };
                    }
                }
            }
        }
        Some(Token::Ident(name)) => {
            let mut path = prefix.to_vec();
            if name != "self" {
                path.push(name.clone());
            }
            i += 1;
            if toks.get(i).map(|t| &t.0) == Some(&Token::Path) {
                return use_tree(toks, i + 1, &path, out);
            }
            out.push(path);
            // `a::b as c`
            if matches!(toks.get(i).map(|t| &t.0), Some(Token::Ident(n)) if n == "as") {
                i += 2;
            }
            i
        }
        // `a::*`, `a::f::<T>()`
        _ => {
            if !prefix.is_empty() {
                out.push(prefix.to_vec());
            }
            i
        }
    }
}

/// Every path a file's code names from the crate root or from a parent module, made absolute,
/// with its line.
fn crate_paths(code: &str, module: &[String]) -> Vec<(Vec<String>, usize)> {
    let toks = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (base, mut j) = match &toks[i].0 {
            Token::Ident(name) if name == "crate" || name == "$crate" => (Vec::new(), i + 1),
            Token::Ident(name) if name == "super" => {
                // `super::super::…` from the file's module.
                let mut up = module.len();
                let mut j = i;
                while matches!(&toks.get(j).map(|t| &t.0), Some(Token::Ident(n)) if n == "super")
                    && toks.get(j + 1).map(|t| &t.0) == Some(&Token::Path)
                {
                    up = up.saturating_sub(1);
                    j += 2;
                }
                (module[..up].to_vec(), j.saturating_sub(1))
            }
            _ => {
                i += 1;
                continue;
            }
        };
        // Not preceded by `::` (then it is not a path's start) and followed by `::`.
        let after_path = i > 0 && toks[i - 1].0 == Token::Path;
        if after_path || toks.get(j).map(|t| &t.0) != Some(&Token::Path) {
            i += 1;
            continue;
        }
        j += 1;
        let mut paths = Vec::new();
        let end = use_tree(&toks, j, &[], &mut paths);
        for p in paths {
            let mut full = base.clone();
            full.extend(p);
            out.push((full, toks[i].1));
        }
        i = end.max(i + 1);
    }
    out
}

/// A file's module path from its place under `src` (`act/mod.rs` -> `act`, `act/live.rs` ->
/// `act::live`, `lib.rs` -> the root).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Where an edge was seen first: the file and line.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn add(graph: &mut Graph, from: &str, to: &str, at: String) {
    graph
        .entry(from.to_string())
        .or_default()
        .entry(to.to_string())
        .or_insert(at);
    graph.entry(to.to_string()).or_default();
}

/// A circle of `graph`, as its nodes in order (the first repeated at the end), if it has one.
fn circle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|n| n.keys()) {
            match marks.get(next).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let mut found = stack[from..].to_vec();
                    found.push(next.clone());
                    return Some(found);
                }
                Mark::New => {
                    if let Some(found) = visit(next, graph, marks, stack) {
                        return Some(found);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if marks.get(node).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(found) = visit(node, graph, &mut marks, &mut Vec::new()) {
                return Some(found);
            }
        }
    }
    None
}

fn describe(graph: &Graph, found: &[String]) -> String {
    let edges: Vec<String> = found
        .windows(2)
        .map(|w| format!("  {} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]]))
        .collect();
    format!("{}\n{}", found.join(" -> "), edges.join("\n"))
}

/// The two graphs of the engine's sources: the top-level modules', and per module folder its
/// submodules'.
fn graphs() -> (Graph, BTreeMap<String, Graph>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let modules: Vec<(PathBuf, Vec<String>)> = files
        .iter()
        .map(|f| (f.clone(), module_of(f.strip_prefix(&src).unwrap())))
        .collect();
    let top: BTreeSet<String> = modules
        .iter()
        .filter_map(|(_, m)| m.first().cloned())
        .collect();
    // What the crate root re-exports by name (`crate::Error` is `error`'s).
    let root = code_only(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for (path, _) in crate_paths(&root.replace("pub use ", "pub use crate::"), &[]) {
        if let [module, name, ..] = &path[..] {
            if top.contains(module) && !top.contains(name) {
                reexports.insert(name.clone(), module.clone());
            }
        }
    }
    let mut modules_graph = Graph::new();
    let mut folders: BTreeMap<String, Graph> = BTreeMap::new();
    for (file, module) in &modules {
        let Some(from) = module.first() else { continue };
        modules_graph.entry(from.clone()).or_default();
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        for (path, line) in crate_paths(&code, module) {
            let Some(first) = path.first() else { continue };
            let to = match reexports.get(first) {
                Some(module) if !top.contains(first) => module,
                _ => first,
            };
            let at = format!("{rel}:{line}");
            if top.contains(to) && to != from {
                add(&mut modules_graph, from, to, at.clone());
            }
            // Inside a folder: from the file's submodule to another named one.
            if let ([_, sub, ..], [_, target, ..]) = (&module[..], &path[..]) {
                let is_submodule = |name: &str| {
                    modules
                        .iter()
                        .any(|(_, m)| m.len() >= 2 && m[0] == *from && m[1] == name)
                };
                if to == from && sub != target && is_submodule(target) {
                    add(folders.entry(from.clone()).or_default(), sub, target, at);
                }
            }
        }
    }
    (modules_graph, folders)
}

#[test]
fn the_top_level_modules_form_layers() {
    let (graph, _) = graphs();
    assert!(graph.len() > 10, "{graph:?}");
    assert!(graph["act"].contains_key("browser"), "{graph:?}");
    if let Some(found) = circle(&graph) {
        panic!(
            "the engine's modules go round in a circle:\n{}",
            describe(&graph, &found)
        );
    }
}

#[test]
fn each_module_folders_submodules_form_layers() {
    let (_, folders) = graphs();
    for folder in ["act", "capture", "live"] {
        assert!(folders.contains_key(folder), "{folder}: {folders:?}");
    }
    for (folder, graph) in &folders {
        if let Some(found) = circle(graph) {
            panic!(
                "the submodules of {folder} go round in a circle:\n{}",
                describe(graph, &found)
            );
        }
    }
}

#[test]
fn the_reader_sees_code_only() {
    let src = r####"
        // crate::a::x in a comment
        /* crate::b::x /* nested crate::b2 */ still crate::b3 */
        let s = "crate::c::x \" crate::c2"; let r = r#"crate::d " crate::d2"#;
        let q = '"'; let lifetime: &'static str = crate::e::f();
        use crate::{g::h, i::{j, k::l}};
        use super::super::m::n;
        pub(in crate::o) fn f() {}
        x::crate::no;
        let b = b"crate::p"; let c = '\'';
    "####;
    let code = code_only(src);
    let mut found: Vec<String> = crate_paths(&code, &["t".into(), "u".into(), "v".into()])
        .into_iter()
        .map(|(p, _)| p.join("::"))
        .collect();
    found.sort();
    assert_eq!(found, ["e::f", "g::h", "i::j", "i::k::l", "o", "t::m::n"]);
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .into_iter()
        .fold(Graph::new(), |mut g, (f, t)| {
            add(&mut g, f, t, String::new());
            g
        });
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
}
