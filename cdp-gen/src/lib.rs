//! Generates pagesight's typed Chrome DevTools Protocol bindings (`pagesight-cdp`) from the
//! pinned `protocol.json`.
//!
//! Why a generator of our own rather than a hand-written or third-party binding: the engine
//! must survive whatever a newer or older Chromium sends (unknown fields ignored, unknown enum
//! values kept in `Unknown(String)`), must stay fast to parse (no per-value allocation for known
//! enum values, numbers unwrapped) and must compile quickly when only a few domains are used
//! (one cargo feature per domain, enabling exactly the domains it refers to). Those properties
//! hold *by construction* here, for all 59 domains, and regenerating after a protocol bump is
//! one command.
//!
//! Output, written into the crate directory given (normally `cdp/`):
//! * `src/<module>.rs` for every domain, each starting with [`GENERATED_HEADER`];
//! * the module declarations between the `BEGIN/END GENERATED MODULES` markers of `src/lib.rs`;
//! * the `[features]` table between the `BEGIN/END GENERATED FEATURES` markers of `Cargo.toml`.
//!
//! Everything else in those two files is left alone. Output is run through `rustfmt` and is
//! byte-for-byte deterministic for a given `protocol.json`.

mod emit;
pub mod model;
pub mod names;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use emit::{doc_lines, GENERATED_HEADER};
pub use model::Protocol;

/// Markers around the generated module declarations in `src/lib.rs`.
pub const LIB_BEGIN: &str = "// BEGIN GENERATED MODULES (cdp-gen)";
/// See [`LIB_BEGIN`].
pub const LIB_END: &str = "// END GENERATED MODULES (cdp-gen)";
/// Markers around the generated `[features]` table in `Cargo.toml`.
pub const FEATURES_BEGIN: &str = "# BEGIN GENERATED FEATURES (cdp-gen): regenerate with `cargo run -p cdp-gen -- protocol.json cdp`";
/// See [`FEATURES_BEGIN`].
pub const FEATURES_END: &str = "# END GENERATED FEATURES (cdp-gen)";

/// The domains the pagesight engine uses; the `default` feature enables these (and, through
/// feature dependencies, whatever they refer to).
pub const ENGINE_DOMAINS: &[&str] = &[
    "Accessibility",
    "Browser",
    "DOM",
    "DOMSnapshot",
    "Emulation",
    "Input",
    "IO",
    "Network",
    "Page",
    "Runtime",
    "Schema",
    "Target",
];

/// A generator failure; the message names the protocol item or file at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Generation settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Wire names of the domains in the `default` feature.
    pub default_domains: Vec<String>,
    /// Run the output through `rustfmt` (tests on snippets may skip it).
    pub rustfmt: bool,
}

impl Config {
    /// The configuration for pagesight's own bindings.
    pub fn pagesight() -> Self {
        Config {
            default_domains: ENGINE_DOMAINS.iter().map(|d| d.to_string()).collect(),
            rustfmt: true,
        }
    }
}

/// Everything generated from one protocol, in memory.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Module name -> source of `src/<module>.rs`.
    pub modules: BTreeMap<String, String>,
    /// `(wire domain, module)` in protocol order.
    pub domains: Vec<(String, String)>,
    /// Module -> modules it refers to directly (its feature's dependencies).
    pub deps: BTreeMap<String, BTreeSet<String>>,
    /// Modules named by the `default` feature.
    pub default_features: Vec<String>,
    /// Text between the lib.rs markers (markers excluded).
    pub lib_section: String,
    /// Text between the Cargo.toml markers (markers excluded).
    pub features_section: String,
}

/// Reads and parses a protocol file.
pub fn load_protocol(path: &Path) -> Result<Protocol, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    parse_protocol(&bytes).map_err(|e| Error::new(format!("{}: {e}", path.display())))
}

/// Parses protocol JSON.
pub fn parse_protocol(json: &[u8]) -> Result<Protocol, Error> {
    serde_json::from_slice(json)
        .map_err(|e| Error::new(format!("not a valid protocol description: {e}")))
}

/// Generates the bindings for `protocol`.
pub fn generate(protocol: &Protocol, config: &Config) -> Result<Generated, Error> {
    let emitted = emit::emit(protocol)?;
    let mut modules = BTreeMap::new();
    for (module, source) in emitted.sources {
        let source = if config.rustfmt {
            rustfmt(&source).map_err(|e| Error::new(format!("module `{module}`: {e}")))?
        } else {
            source
        };
        modules.insert(module, source);
    }
    let module_of: BTreeMap<&str, &str> = emitted
        .domains
        .iter()
        .map(|(d, m)| (d.as_str(), m.as_str()))
        .collect();
    let mut default_features = Vec::new();
    for d in &config.default_domains {
        let m = module_of
            .get(d.as_str())
            .ok_or_else(|| Error::new(format!("default domain `{d}` is not in the protocol")))?;
        default_features.push(m.to_string());
    }
    default_features.sort();
    default_features.dedup();

    let mut lib_section = String::new();
    let mut sorted: Vec<&(String, String)> = emitted.domains.iter().collect();
    sorted.sort_by(|a, b| a.1.cmp(&b.1));
    for (_, module) in &sorted {
        lib_section.push_str(&format!(
            "#[cfg(feature = \"{module}\")]\npub mod {module};\n"
        ));
    }

    let mut features_section = String::from("[features]\n");
    features_section.push_str(&format!("default = [{}]\n", quoted_list(&default_features)));
    for (_, module) in &sorted {
        let deps: Vec<String> = emitted
            .deps
            .get(module)
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        features_section.push_str(&format!("{module} = [{}]\n", quoted_list(&deps)));
    }

    Ok(Generated {
        modules,
        domains: emitted.domains,
        deps: emitted.deps,
        default_features,
        lib_section,
        features_section,
    })
}

fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("\"{i}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Generated {
    /// Every module a feature enables, itself included (the transitive closure of `deps`).
    pub fn feature_closure(&self, features: &[String]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<String> = features.to_vec();
        while let Some(m) = todo.pop() {
            if seen.insert(m.clone()) {
                todo.extend(self.deps.get(&m).into_iter().flatten().cloned());
            }
        }
        seen
    }

    /// The full contents of every file this generator owns in `crate_dir`, given the current
    /// `src/lib.rs` and `Cargo.toml` there (their hand-written parts are kept).
    pub fn render(&self, crate_dir: &Path) -> Result<BTreeMap<PathBuf, String>, Error> {
        let mut files = BTreeMap::new();
        for (module, source) in &self.modules {
            files.insert(
                PathBuf::from("src").join(format!("{module}.rs")),
                source.clone(),
            );
        }
        let lib_path = crate_dir.join("src").join("lib.rs");
        let lib = read(&lib_path)?;
        files.insert(
            PathBuf::from("src/lib.rs"),
            splice(&lib, LIB_BEGIN, LIB_END, &self.lib_section),
        );
        let toml_path = crate_dir.join("Cargo.toml");
        let toml = read(&toml_path)?;
        files.insert(
            PathBuf::from("Cargo.toml"),
            splice(&toml, FEATURES_BEGIN, FEATURES_END, &self.features_section),
        );
        Ok(files)
    }

    /// Generated files in `crate_dir/src` that this generation no longer produces.
    pub fn obsolete_files(&self, crate_dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let src = crate_dir.join("src");
        let mut obsolete = Vec::new();
        let entries = std::fs::read_dir(&src)
            .map_err(|e| Error::new(format!("cannot list {}: {e}", src.display())))?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let is_rs = path.extension().is_some_and(|e| e == "rs");
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            if !is_rs || self.modules.contains_key(&stem) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.starts_with(GENERATED_HEADER) {
                obsolete.push(path);
            }
        }
        Ok(obsolete)
    }

    /// Writes the bindings into `crate_dir` (normally `cdp/`), removing generated modules of
    /// domains that no longer exist. Files whose content is unchanged are not rewritten.
    pub fn write(&self, crate_dir: &Path) -> Result<(), Error> {
        for (rel, content) in self.render(crate_dir)? {
            let path = crate_dir.join(rel);
            if std::fs::read_to_string(&path).ok().as_deref() == Some(content.as_str()) {
                continue;
            }
            std::fs::write(&path, content)
                .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
        }
        for path in self.obsolete_files(crate_dir)? {
            std::fs::remove_file(&path)
                .map_err(|e| Error::new(format!("cannot remove {}: {e}", path.display())))?;
        }
        Ok(())
    }

    /// Paths (relative to `crate_dir`) whose checked-in content differs from this generation,
    /// including obsolete generated files; empty when the bindings are up to date.
    pub fn stale_files(&self, crate_dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let mut stale = Vec::new();
        for (rel, content) in self.render(crate_dir)? {
            if std::fs::read_to_string(crate_dir.join(&rel))
                .ok()
                .as_deref()
                != Some(content.as_str())
            {
                stale.push(rel);
            }
        }
        for path in self.obsolete_files(crate_dir)? {
            stale.push(
                path.strip_prefix(crate_dir)
                    .map(Path::to_path_buf)
                    .unwrap_or(path),
            );
        }
        Ok(stale)
    }
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))
}

/// Replaces the text between the `begin` and `end` marker lines of `text` by `section`, or
/// appends the markers and section at the end when the markers are missing.
pub fn splice(text: &str, begin: &str, end: &str, section: &str) -> String {
    let block = format!("{begin}\n{section}{end}\n");
    if let (Some(b), Some(e)) = (text.find(begin), text.find(end)) {
        if b < e {
            let after = &text[e + end.len()..];
            let after = after.strip_prefix('\n').unwrap_or(after);
            return format!("{}{block}{after}", &text[..b]);
        }
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&block);
    out
}

/// Formats Rust source with `rustfmt` (edition 2021), read from stdin. The `RUSTFMT`
/// environment variable overrides which binary is used.
pub fn rustfmt(source: &str) -> Result<String, Error> {
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(&program)
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::new(format!(
                "cannot run rustfmt ({}): {e}",
                program.to_string_lossy()
            ))
        })?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| Error::new("rustfmt: no stdin"))?;
    let output = std::thread::scope(|s| {
        let writer = s.spawn(move || stdin.write_all(source.as_bytes()));
        let output = child.wait_with_output();
        let written = writer
            .join()
            .map_err(|_| Error::new("rustfmt: writer thread panicked"))?;
        written.map_err(|e| Error::new(format!("rustfmt: cannot write input: {e}")))?;
        output.map_err(|e| Error::new(format!("rustfmt: {e}")))
    })?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "rustfmt failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    String::from_utf8(output.stdout).map_err(|_| Error::new("rustfmt: output is not UTF-8"))
}
