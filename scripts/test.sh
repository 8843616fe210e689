#!/usr/bin/env bash
# README command (2): install what is needed, build, and run every test.
#   scripts/test.sh                     every test (CI: .ci/run), in three passes, below, with the
#                                       amd64 virtual Pi only (see VIRTUAL_PI)
#   scripts/test.sh --all               the same with the tests labelled `local` too: the arm64
#                                       virtual Pi and the Pi's SD-card image (the full local run)
#   scripts/test.sh [ctest args…]       the whole Release build, then those tests only,
#                                       e.g. scripts/test.sh -L unit    or    -R manifest
# Environment: BUILD_DIR (default build), FLEETMCP_SANITIZE=ON for an ASan+UBSan build,
# VIRTUAL_PI=amd64|arm64|all|alternate: the virtual Pi (docs/virtual-pi.md) to boot, default amd64.
# Tests labelled `local` (the arm64 guest, the SD-card image, the full Debian 13 checks
# trixie_packages, trixie_broker and the trixie guest virtual_pi_trixie: tests/CMakeLists.txt) run only with --all (VIRTUAL_PI=all);
# VIRTUAL_PI=arm64 adds the arm64 virtual Pi alone. CI's Debian 13 check is trixie_node (the amd64
# node's package built in a trixie root, apt-installed, answering a call): ~400 s cold on 2 cores.
# The arm64 guest does not fit the 50 minutes CI's run is kept under, not even instead of the amd64 one (on a clean
# clone its image alone takes ~14 min: docs/virtual-pi.md "Figures"); `alternate` boots one of
# the two by the parity of the commit's hash (printed), for a CI that keeps build/virtual-pi/.
#
# Without ctest arguments every test runs once, in the build that checks it best
# (docs/reliability.md "Where each test runs"):
#   1. the Release build (gcc, -Werror), the one the packages ship: the programs, the benchmarks
#      (so they keep compiling) and the tests labelled `release`: the packages and the images,
#      guests and arm64 packages made from them, the node's Debian 13 package, the 2,000-node
#      reconnect storm, the out-of-descriptors back-off;
#   2. every fuzzer for FUZZ_SECONDS (default 20; 0 skips), scripts/fuzz.sh;
#   3. every other test (unit, integration, lint) under ASan+UBSan, scripts/test-sanitized.sh
#      (SANITIZED=0 runs them on the Release build instead).
# So the unit tests and test programs compile once (instrumented) and the suite runs once; CI on
# 2 cores keeps all of it under 50 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --all ]; then VIRTUAL_PI=all; shift; fi

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
# CI builds only what the release tests use, unless the other tests run here too (SANITIZED=0).
targets=()
if [ $# -eq 0 ] && [ "${SANITIZED:-1}" != 0 ]; then
  targets=(--target fleetmcp-device fleetmcp-camera-still fleetmcp_plugin fleetctl benchmarks)
fi
start=$SECONDS
if ! cmake --build "$build" -j"$jobs" "${targets[@]}" >"$build.build.log" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]" "$build.build.log" | head -80
  echo "test.sh: build failed after $((SECONDS - start)) s; full log in $build.build.log" >&2
  exit 1
fi
echo "test.sh: built in $((SECONDS - start)) s"

# --no-tests=error: a run that executes no test is a failure.
if [ $# -gt 0 ]; then
  echo "test.sh: running tests"
  ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" "$@"
  exit 0
fi
selection=(-L release)
[ "${SANITIZED:-1}" != 0 ] || selection=()
vpi=${VIRTUAL_PI:-amd64}
if [ "$vpi" = alternate ]; then
  commit=$(git rev-parse HEAD 2>/dev/null || echo 0)
  vpi=amd64; (( 16#${commit: -1} % 2 )) && vpi=arm64
  echo "test.sh: commit ${commit:0:12} (last digit ${commit: -1}): the $vpi virtual Pi this run"
fi
echo "test.sh: virtual Pi: $vpi (VIRTUAL_PI; --all boots both)"
case "$vpi" in
  amd64) selection+=(-LE '^local$') ;;
  arm64) selection+=(-E '^integration\.(virtual_pi|pi_image)$') ;;
  all) ;;
  *) echo "test.sh: VIRTUAL_PI is amd64, arm64, all or alternate, not '$vpi'" >&2; exit 2 ;;
esac
echo "test.sh: running the tests of the Release build (${selection[*]:-all})"
start=$SECONDS
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" "${selection[@]}"
echo "test.sh: Release tests took $((SECONDS - start)) s"
if [ "${FUZZ_SECONDS:-20}" != 0 ]; then
  start=$SECONDS
  # The fuzzers are single-threaded: as many side by side as there are cores.
  FUZZ_JOBS=${FUZZ_JOBS:-$jobs} scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
  echo "test.sh: fuzz pass took $((SECONDS - start)) s"
fi
if [ "${SANITIZED:-1}" != 0 ]; then
  start=$SECONDS
  scripts/test-sanitized.sh -LE release
  echo "test.sh: sanitized pass took $((SECONDS - start)) s"
fi
