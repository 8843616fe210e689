#!/usr/bin/env bash
# The instrumented build both reliability passes share (docs/reliability.md): clang 14 with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage on every target
# (-DFLEETMCP_FUZZ=ON), in build-san. scripts/fuzz.sh runs its fuzz_* targets; scripts/test-
# sanitized.sh runs the whole test suite on it. One build instead of two: gcc's ASan+UBSan build
# of this code base takes about five times as long as clang's.
#
#   scripts/sanitized-build.sh [TARGET…]     default: every target
# Environment: BUILD_DIR (default build-san). Prints the build log's errors on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-san}
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "sanitized-build.sh: configuring $build (clang, ASan+UBSan, libFuzzer coverage)"
  # No -Werror: warnings are the ordinary build's business (scripts/test.sh builds with -Werror).
  # -O1 -gline-tables-only: what sanitizers and libFuzzer are usually built with; stack traces keep
  # file:line, and it compiles and links faster than -O2 -g.
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLEETMCP_FUZZ=ON -DFLEETMCP_BUILD_BENCH=OFF \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
        -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_INSTALL_PREFIX=/usr \
        >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
start=$SECONDS
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "sanitized-build.sh: building ${*:-every target} in $build (log: $build.build.log)"
if ! cmake --build "$build" -j"$(nproc)" "${targets[@]}" >"$build.build.log" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]" "$build.build.log" | head -80
  echo "sanitized-build.sh: build failed; full log in $build.build.log" >&2
  exit 1
fi
echo "sanitized-build.sh: built in $((SECONDS - start)) s"
