//! `cdp-gen`: regenerates the `pagesight-cdp` bindings.
//!
//! From the workspace root:
//!
//! ```text
//! cargo run -p cdp-gen -- protocol.json cdp          # (re)write cdp/src/*.rs, lib.rs and Cargo.toml sections
//! cargo run -p cdp-gen -- --check protocol.json cdp  # exit 1 and list files if the bindings are stale
//! ```
//!
//! Both paths default to `protocol.json` and `cdp`, relative to the current directory.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut check = false;
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("usage: cdp-gen [--check] [PROTOCOL_JSON [CRATE_DIR]]");
                return ExitCode::SUCCESS;
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.len() > 2 {
        eprintln!(
            "cdp-gen: too many arguments; usage: cdp-gen [--check] [PROTOCOL_JSON [CRATE_DIR]]"
        );
        return ExitCode::from(2);
    }
    let protocol_path = paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("protocol.json"));
    let crate_dir = paths
        .get(1)
        .cloned()
        .unwrap_or_else(|| PathBuf::from("cdp"));
    match run(&protocol_path, &crate_dir, check) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cdp-gen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    protocol_path: &std::path::Path,
    crate_dir: &std::path::Path,
    check: bool,
) -> Result<ExitCode, cdp_gen::Error> {
    let protocol = cdp_gen::load_protocol(protocol_path)?;
    let generated = cdp_gen::generate(&protocol, &cdp_gen::Config::pagesight())?;
    if check {
        let stale = generated.stale_files(crate_dir)?;
        if stale.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("cdp-gen: bindings are stale: run `cargo run -p cdp-gen -- protocol.json cdp`. Stale files:");
        for f in stale {
            eprintln!("  {}", f.display());
        }
        return Ok(ExitCode::FAILURE);
    }
    generated.write(crate_dir)?;
    let default = generated.feature_closure(&generated.default_features);
    println!(
        "cdp-gen: {} domains written to {}; default features enable {} modules: {}",
        generated.modules.len(),
        crate_dir.display(),
        default.len(),
        default.into_iter().collect::<Vec<_>>().join(", ")
    );
    Ok(ExitCode::SUCCESS)
}
