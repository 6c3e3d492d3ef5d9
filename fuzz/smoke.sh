#!/usr/bin/env bash
# CI fuzz smoke: build every fuzz target and run each for a few seconds over its seed corpus and
# saved regressions (a fixed -seed, so a run is repeatable; campaigns use fuzz/run.sh). Exits
# non-zero on any crash, timeout, leak or out-of-memory. Installs cargo-fuzz when missing.
# Usage: fuzz/smoke.sh [SECONDS_PER_TARGET] (default 5). FUZZ_SANITIZER=none (CI's choice) builds
# without AddressSanitizer (72 s for every target on the 2-core VM): the targets still run with
# debug assertions and libFuzzer's coverage and limits, so panics, overflows, hangs and runaway
# memory are still found; only memory errors in unsafe code need the default (address).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-5}
sanitizer=${FUZZ_SANITIZER:-address}
# cargo-fuzz passes nightly -Z flags (sanitizer, coverage); this lets the stable toolchain take
# them. There is no other toolchain on the machines.
export RUSTC_BOOTSTRAP=1
if ! command -v cargo-fuzz >/dev/null; then
    cargo install cargo-fuzz --locked
fi
start=$(date +%s)
# --debug-assertions: overflow checks and debug_assert! on, as under `cargo test`.
cargo fuzz build --sanitizer "$sanitizer" --debug-assertions
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p artifacts
for t in $(cargo fuzz list); do
    mkdir -p "$scratch/$t"
    inputs=("corpus/$t")
    [ -d "regressions/$t" ] && inputs+=("regressions/$t")
    echo "== fuzz smoke: $t (${seconds}s)"
    # New corpus entries go to the scratch directory, so the committed corpus never changes.
    if ! cargo fuzz run --sanitizer "$sanitizer" --debug-assertions "$t" "$scratch/$t" "${inputs[@]}" -- \
        -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
        -artifact_prefix="artifacts/smoke-$t-" >"$scratch/$t.log" 2>&1; then
        tail -n 60 "$scratch/$t.log"
        echo "fuzz smoke: target $t failed; reproducer in fuzz/artifacts/smoke-$t-*, log above" >&2
        exit 1
    fi
    grep -E "^#[0-9]+.*(DONE|cov:)" "$scratch/$t.log" | tail -n 1
done
echo "fuzz smoke: all targets clean in $(($(date +%s) - start))s"
