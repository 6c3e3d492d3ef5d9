#!/usr/bin/env bash
# Fuzz one target (or every target, one after the other) for SECONDS each, at the lowest CPU
# priority, keeping going after a finding (fork mode): reproducers land in artifacts/<target>/,
# new corpus entries in work/<target>/ (both ignored by git). Usage, from anywhere:
#   fuzz/run.sh [TARGET|all] [SECONDS]        (default: all, 600)
set -euo pipefail
cd "$(dirname "$0")"
target=${1:-all}
seconds=${2:-600}
export RUSTC_BOOTSTRAP=1 # cargo-fuzz passes -Z flags; this lets the stable toolchain take them
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if [ "$target" = all ]; then
    targets=$(cargo fuzz list)
else
    targets=$target
fi
nice -n 19 cargo fuzz build --debug-assertions
for t in $targets; do
    mkdir -p "work/$t" "artifacts/$t" logs
    echo "== $t: ${seconds}s" >&2
    nice -n 19 cargo fuzz run --debug-assertions "$t" "work/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 2>&1 | tee "logs/$t.log" | grep -E "^#|INFO: (fuzzed|exiting)|Done|crash|Timeout|oom" >&2 || true
done
