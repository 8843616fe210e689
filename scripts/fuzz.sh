#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in the shared instrumented build (scripts/sanitized-build.sh,
# build-san) and runs each one
# for a while, printing its executions and exec/s. Fails when any target finds a crash, a leak,
# undefined behaviour or an input it cannot answer (fuzz/fuzz_target.h says what counts).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]    default 20 s, every target
#
# Seeds come from tests/fuzz/corpus/<target>/ and tests/fuzz/regressions/<target>/ (read-only);
# what the fuzzer learns goes to build-san/corpus/<target>/, kept between runs so long
# campaigns build on each other. Crash inputs land in build-san/artifacts/<target>/: minimise one
# with `build-san/fuzz/fuzz_<target> -minimize_crash=1 -runs=10000 FILE`, fix the bug and keep
# the input under tests/fuzz/regressions/<target>/ (docs/reliability.md).
# Environment: BUILD_DIR (default build-san), FUZZ_JOBS (targets run side by side, default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
all_targets=(json jcs manifest agent_token device_cmd cmd_ack mcp rfc0009 acl device_config)
[ $# -gt 0 ] && targets=("$@") || targets=("${all_targets[@]}")
build=${BUILD_DIR:-build-san}
jobs=${FUZZ_JOBS:-1}
manifest_stack_kib=2048

BUILD_DIR=$build scripts/sanitized-build.sh "${targets[@]/#/fuzz_}"
echo "fuzz.sh: ${#targets[@]} targets, ${seconds} s each"

# UBSan findings must stop the run (libFuzzer only sees what aborts), with a stack to read.
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/fuzz/ubsan.supp
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}

run_one() {
  local t=$1 corpus=$build/corpus/$1 artifacts=$build/artifacts/$1/ log=$build/fuzz-$1.log
  mkdir -p "$corpus" "$artifacts"
  local seeds=(tests/fuzz/corpus/"$t")
  [ -d tests/fuzz/regressions/"$t" ] && seeds+=(tests/fuzz/regressions/"$t")
  # -timeout: one input may take at most 10 s; -rss_limit_mb: the MCP targets hold a whole front.
  # The manifest checks run on the broker thread on device input: they run here on a small stack
  # (issue 17: a recursive regex once needed 7.5 MiB for one 64 KB announce).
  if (if [ "$t" = manifest ]; then ulimit -s "$manifest_stack_kib"; fi
      exec "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}") >"$log" 2>&1; then
    local execs rate
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    printf 'fuzz.sh: %-14s ok    %9s execs %7s exec/s  corpus %s\n' "$t" "$execs" "$rate" "$(ls "$corpus" | wc -l)"
  else
    printf 'fuzz.sh: %-14s FAILED (log %s, inputs in %s)\n' "$t" "$log" "$artifacts"
    grep -E -A30 "ERROR: |runtime error|uncaught|property failed" "$log" | head -60
    return 1
  fi
}

failed=0
running=0
for t in "${targets[@]}"; do
  if [ "$jobs" -le 1 ]; then
    run_one "$t" || failed=1
  else
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
  fi
done
while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
[ "$failed" -eq 0 ] || { echo "fuzz.sh: a fuzzer found a problem" >&2; exit 1; }
echo "fuzz.sh: all ${#targets[@]} targets ran clean"
