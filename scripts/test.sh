#!/usr/bin/env bash
# The whole test suite: what a reviewer checks (formatting, lints, docs), every crate's tests
# (against a real headless Chromium), and a check that the CDP bindings compile with every
# domain enabled.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The C library's crate is also named `pagesight` (for libpagesight.so): its docs are built on
# their own, or the two would be written to the same folder.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p pagesight-capi
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --exclude pagesight-capi
cargo check -p pagesight-cdp --all-features
cargo test --workspace
