#!/usr/bin/env bash
# The whole test suite: what a reviewer checks (formatting, lints, docs), every crate's tests
# (against a real headless Chromium), and a check that the CDP bindings compile with every
# domain enabled.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
cargo check -p pagesight-cdp --all-features
cargo test --workspace
