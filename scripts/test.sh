#!/usr/bin/env bash
# README command (2): install what is needed, build, and run every test.
#   scripts/test.sh [ctest args…]      e.g. scripts/test.sh -L unit    or    -R manifest
# Environment: BUILD_DIR (default build), FLEETMCP_SANITIZE=ON for an ASan+UBSan build.
#
# Without ctest arguments (CI, .ci/run) two reliability passes follow the suite
# (docs/reliability.md): every fuzzer for FUZZ_SECONDS (default 20; 0 skips) via scripts/fuzz.sh,
# then the suite under ASan+UBSan via scripts/test-sanitized.sh (SANITIZED=0 skips), all but the
# reconnect storm. Their instrumented build (scripts/sanitized-build.sh) runs at low priority
# while the ordinary suite runs.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

build=${BUILD_DIR:-build}
jobs=$(nproc)
echo "test.sh: configuring $build"
# Prefixed /usr like the .deb packages, so tests/integration/packages.sh packages this very build
# instead of building a second one.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFLEETMCP_WERROR=ON -DCMAKE_INSTALL_PREFIX=/usr \
      -DFLEETMCP_SANITIZE="${FLEETMCP_SANITIZE:-OFF}" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
echo "test.sh: building with $jobs jobs (log: $build.build.log)"
start=$SECONDS
if ! cmake --build "$build" -j"$jobs" >"$build.build.log" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]" "$build.build.log" | head -80
  echo "test.sh: build failed after $((SECONDS - start)) s; full log in $build.build.log" >&2
  exit 1
fi
echo "test.sh: built in $((SECONDS - start)) s"

reliability=0
[ $# -eq 0 ] && { [ "${FUZZ_SECONDS:-20}" != 0 ] || [ "${SANITIZED:-1}" != 0 ]; } && reliability=1
san_build_pid=""
if [ "$reliability" = 1 ]; then
  # The suite spends much of its time waiting on brokers and devices; the instrumented build the
  # reliability passes need uses that time, as SCHED_IDLE so the tests get the CPU whenever they
  # want it. Measured on 2 cores: the suite takes ~1.5 min longer, the build ~3 min less after it.
  echo "test.sh: building the instrumented build (build-san) at idle priority while the tests run"
  # setsid: its own process group, so a failing suite can stop the whole build at once.
  setsid chrt --idle 0 nice -n 19 scripts/sanitized-build.sh >build-san.background.log 2>&1 &
  san_build_pid=$!
fi

echo "test.sh: running tests"
# --no-tests=error: a run that executes no test is a failure.
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" "$@" || status=$?
if [ -n "$san_build_pid" ] && [ "$status" -ne 0 ]; then
  kill -- -"$san_build_pid" 2>/dev/null || true
  exit "$status"
fi
if [ -n "$san_build_pid" ]; then
  start=$SECONDS
  wait "$san_build_pid" || { cat build-san.background.log; echo "test.sh: the instrumented build failed" >&2; exit 1; }
  echo "test.sh: instrumented build: $(tail -n 1 build-san.background.log) (waited $((SECONDS - start)) s after the tests)"
fi

if [ $# -gt 0 ]; then
  echo "test.sh: ctest arguments given: skipping the fuzz and sanitized passes"
  exit 0
fi
if [ "${FUZZ_SECONDS:-20}" != 0 ]; then
  start=$SECONDS
  # The fuzzers are single-threaded: as many side by side as there are cores.
  FUZZ_JOBS=${FUZZ_JOBS:-$jobs} scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
  echo "test.sh: fuzz pass took $((SECONDS - start)) s"
fi
if [ "${SANITIZED:-1}" != 0 ]; then
  start=$SECONDS
  # The 2,000-node reconnect storm takes minutes under ASan (about 15 s per round unsanitized):
  # it runs in the ordinary pass only.
  scripts/test-sanitized.sh -E 'integration\.fault_reconnect_storm'
  echo "test.sh: sanitized pass took $((SECONDS - start)) s"
fi
