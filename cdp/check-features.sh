#!/bin/sh
# Checks that pagesight-cdp compiles, warning-free, with no features, the default set, all
# features, and single domain features on their own (each module must only refer to modules its
# feature enables).
#
#   cdp/check-features.sh          # a sample of single features (the engine's and some leaves)
#   cdp/check-features.sh --all    # every single feature (slow: 59 crate builds)
#
# Uses its own target directory (CDP_FEATURES_TARGET_DIR, default: a directory under the system
# temp dir) so the workspace target is not churned by feature combinations.
set -eu
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CDP_FEATURES_TARGET_DIR:-${TMPDIR:-/tmp}/pagesight-cdp-features}"
export RUSTFLAGS="-D warnings"

check() {
    start=$(date +%s)
    cargo check -q -p pagesight-cdp "$@"
    echo "ok ($(( $(date +%s) - start ))s): $*"
}

check --no-default-features
check
check --all-features

if [ "${1:-}" = "--all" ]; then
    features=$(sed -n '/^# BEGIN GENERATED FEATURES/,/^# END GENERATED FEATURES/p' Cargo.toml |
        sed -n 's/^\([a-z_0-9]*\) = \[.*/\1/p' | grep -v '^default$')
else
    features="runtime schema io input dom page network accessibility dom_snapshot target browser emulation css fed_cm web_audio layer_tree storage"
fi
for f in $features; do
    check --no-default-features --features "$f"
done
