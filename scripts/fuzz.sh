#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for SECONDS each (default 20), or up to RUNS executions
# (default 10 million), whichever comes first, starting from its corpus in fuzz/corpus/.
#
#   bash scripts/fuzz.sh [SECONDS] [RUNS] [TARGET...]
#
# New inputs a run finds go to target/fuzz-corpus/TARGET, not into the checked-in corpus; a
# crash is written to fuzz/artifacts/TARGET/ and fails the script (keep the input under
# fuzz/regressions/TARGET/, where the engine's tests replay it, and fix it).
#
# cargo-fuzz builds with flags only a nightly compiler takes; RUSTC_BOOTSTRAP lets the stable
# toolchain take them, so a machine with stable Rust alone fuzzes too.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
runs=${2:-10000000}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tool_arguments command_lines pipe_stream json_readers capture_file adversarial_capture)
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz@0.13.2
[ -f fuzz/Cargo.lock ] || cp Cargo.lock fuzz/Cargo.lock 2>/dev/null || true
(cd fuzz && cargo fuzz build -O --debug-assertions)
for target in "${targets[@]}"; do
  found=target/fuzz-corpus/$target
  mkdir -p "$found"
  echo "fuzz: $target for ${seconds}s (at most $runs runs)"
  # adversarial_capture reads four bytes per change: its inputs may be long from the start
  # (libFuzzer otherwise lets lengths grow slowly from its short seeds).
  extra=()
  [ "$target" = adversarial_capture ] && extra=(-max_len=512 -len_control=0)
  (cd fuzz && cargo fuzz run -O --debug-assertions "$target" "../$found" "corpus/$target" -- \
    -max_total_time="$seconds" -runs="$runs" -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 \
    "${extra[@]}")
done
