#!/usr/bin/env bash
# The whole test suite: every crate's tests (against a real headless Chromium), and a check that
# the CDP bindings compile with every domain enabled.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo check -p pagesight-cdp --all-features
cargo test --workspace
