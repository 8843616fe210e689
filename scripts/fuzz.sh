#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in the shared instrumented build (scripts/sanitized-build.sh,
# build-san) and runs each one for a while, then prints a table of each target's executions,
# exec/s and corpus, with the host's load. Fails when any target finds a crash, a leak,
# undefined behaviour or an input it cannot answer (fuzz/fuzz_target.h says what counts).
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]    default 20 s, every target
#
# The request-path targets (what an agent reaches: http, jsonrpc, mcp, rfc0009, tool_args) run
# SECONDS each; the others, whose parsers run 20,000-500,000 inputs in that time and stopped
# finding new coverage long ago, run SECONDS/2, so the pass takes no longer than it did before the
# request path had five targets (issue 33 item 9). Longest first, so FUZZ_JOBS slots fill evenly.
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
request_path=(http jsonrpc mcp rfc0009 tool_args)
# The targets over a whole front (fuzz/front_harness.h) run with two of libFuzzer's per-input
# costs off (issue 33 item 9; each was most of their time):
#   -entropic=0: the entropic scheduler keeps every feature seen fewer than 256 times as "rare"
#     and scans that list for each feature of each input, quadratic in the ~36,000 features one
#     request through the front touches (62 % of fuzz_mcp's time);
#   -detect_leaks=0: an input after which the front holds more memory than before (a session, a
#     remembered call) set off a LeakSanitizer scan of the whole heap, and the front keeps state
#     by design. LeakSanitizer still checks the whole run at its exit and fails it on lost memory.
front_targets=(http mcp rfc0009 tool_args)
front_flags=(-entropic=0 -detect_leaks=0)
all_targets=("${request_path[@]}" json jcs manifest agent_token issuer_token device_cmd cmd_ack acl device_config)
[ $# -gt 0 ] && targets=("$@") || targets=("${all_targets[@]}")
build=${BUILD_DIR:-build-san}
jobs=${FUZZ_JOBS:-1}
manifest_stack_kib=2048

BUILD_DIR=$build scripts/sanitized-build.sh "${targets[@]/#/fuzz_}"
echo "fuzz.sh: ${#targets[@]} targets, ${seconds} s each on the request path, $(((seconds + 1) / 2)) s the others"

# UBSan findings must stop the run (libFuzzer only sees what aborts), with a stack to read.
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/fuzz/ubsan.supp
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}

flags_of() {
  local t
  for t in "${front_targets[@]}"; do [ "$t" = "$1" ] && { echo "${front_flags[@]}"; return; }; done
}

seconds_of() {
  local t
  for t in "${request_path[@]}"; do [ "$t" = "$1" ] && { echo "$seconds"; return; }; done
  echo $(((seconds + 1) / 2))
}

run_one() {
  local t=$1 corpus=$build/corpus/$1 artifacts=$build/artifacts/$1/ log=$build/fuzz-$1.log
  local result=$build/fuzz-$1.result
  mkdir -p "$corpus" "$artifacts"
  rm -f "$result"
  local seeds=(tests/fuzz/corpus/"$t")
  [ -d tests/fuzz/regressions/"$t" ] && seeds+=(tests/fuzz/regressions/"$t")
  # -timeout: one input may take at most 10 s; -rss_limit_mb: the MCP targets hold a whole front.
  # The manifest checks run on the broker thread on device input: they run here on a small stack
  # (issue 17: a recursive regex once needed 7.5 MiB for one 64 KB announce).
  # The CPU time the fuzzer got (bash's time of the subshell): on a shared host its exec/s per
  # CPU second says more about the target than exec/s against the clock.
  local TIMEFORMAT='%U %S' cpu=$build/fuzz-$1.cpu status=0
  # shellcheck disable=SC2046  # flags_of's words are separate flags
  { time (if [ "$t" = manifest ]; then ulimit -s "$manifest_stack_kib"; fi
      "$build/fuzz/fuzz_$t" -max_total_time="$(seconds_of "$t")" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       $(flags_of "$t") -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}" >"$log" 2>&1); } 2>"$cpu" \
    || status=$?  # (no exec in the subshell, and the log's redirection inside it: either loses time's report)
  if [ "$status" -eq 0 ]; then
    local execs rate cpu_s
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cpu_s=$(awk '{ printf "%.1f", $1 + $2 }' "$cpu")
    printf '%-12s %-6s %4s %10s %8s %6s %10s %7s\n' "$t" ok "$(seconds_of "$t")" "$execs" "$rate" "$cpu_s" \
      "$(awk -v n="$execs" '{ c = $1 + $2; printf "%d", (c > 0 ? n / c : 0) }' "$cpu")" "$(ls "$corpus" | wc -l)" >"$result"
    echo "fuzz.sh: $(cat "$result")"
  else
    printf '%-12s %-6s %4s %10s %8s %6s %10s %7s\n' "$t" FAILED "$(seconds_of "$t")" - - - - - >"$result"
    printf 'fuzz.sh: %-14s FAILED (log %s, inputs in %s)\n' "$t" "$log" "$artifacts"
    grep -E -A30 "ERROR: |runtime error|uncaught|property failed" "$log" | head -60
    return 1
  fi
}

failed=0
running=0
pass_start=$SECONDS
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
echo "fuzz.sh: the pass took $((SECONDS - pass_start)) s, $jobs side by side; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
printf 'fuzz.sh: %-12s %-6s %4s %10s %8s %6s %10s %7s\n' target result s execs exec/s cpu_s exec/cpu_s corpus
for t in "${targets[@]}"; do
  printf 'fuzz.sh: %s\n' "$(cat "$build/fuzz-$t.result" 2>/dev/null || echo "$t (no result)")"
done
[ "$failed" -eq 0 ] || { echo "fuzz.sh: a fuzzer found a problem" >&2; exit 1; }
echo "fuzz.sh: all ${#targets[@]} targets ran clean"
