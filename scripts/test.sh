#!/usr/bin/env bash
# The whole test suite: what a reviewer checks (formatting, lints, docs), every crate's tests
# (against a real headless Chromium), a check that the CDP bindings compile with every
# domain enabled, the Python package's tests (in the venv scripts/setup.sh makes), and a short
# run of every fuzz target.
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
# The Python package, installed the way `pip install ./python` installs it (maturin through
# pip), but in the dev profile as the Rust tests build: then its tests against the installed
# package, from the repository's root (no `pagesight` folder there to shadow it).
venv=target/python-venv
# The build backend runs the `maturin` of the venv, found on PATH.
PATH="$PWD/$venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/python" -m pip install -q \
  --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./python
"$venv/bin/python" -m pytest -q python/tests
# Each fuzz target (fuzz/) for a short, fixed time from its checked-in corpus. Every input of
# that corpus is also replayed by `cargo test` above (pagesight::fuzzing), with no fuzzer.
bash scripts/fuzz.sh 20
