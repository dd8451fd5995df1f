//! The checked-in C header must match what cbindgen generates from the sources.
//!
//! Regenerate it with `PAGESIGHT_UPDATE_HEADER=1 cargo test -p pagesight-capi --test header`.

use std::path::Path;

#[test]
fn header_is_up_to_date() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("capi/cbindgen.toml is readable");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        // Follows the `mod` items of lib.rs to the other source files.
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/pagesight.h");
    if std::env::var_os("PAGESIGHT_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("include/pagesight.h is writable");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "capi/include/pagesight.h is stale (or missing): the C API in capi/src changed. \
         Regenerate it with `PAGESIGHT_UPDATE_HEADER=1 cargo test -p pagesight-capi --test header` \
         and commit the result."
    );
}
