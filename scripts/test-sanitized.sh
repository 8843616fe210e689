#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer, on the instrumented clang
# build it shares with the fuzzers (scripts/sanitized-build.sh, build-san). Fails on a failing
# test or on any sanitizer report, including reports from processes whose exit status no test
# looks at (a broker stopped with SIGTERM, a device killed).
#
#   scripts/test-sanitized.sh [ctest args…]      e.g. -L unit, or -E 'integration\.(a|b)'
#
# How the sanitized plugin gets into mosquitto: /usr/sbin/mosquitto is not instrumented, and
# ASan's runtime must be the first library of a process, so dlopen()ing the sanitized .so into a
# plain mosquitto aborts ("ASan runtime does not come first"). The integration tests start
# `mosquitto` from PATH (tests/integration/lib.sh), so this script puts a wrapper first on PATH
# that runs the real broker with LD_PRELOAD of clang's shared ASan runtime (which carries UBSan's
# handlers and libFuzzer's coverage stubs too) and libstdc++ (see the wrapper). Everything else
# we run (fleetctl, fleetmcp-device, unit_tests, test programs) is instrumented itself, with the
# runtime linked in; system tools (bash, curl, jq, openssl, node) are left alone.
#
# Every sanitizer report goes to $BUILD_DIR/sanitizer-logs/<tool>.<pid> (log_path), because
# stderr of background processes is often thrown away by tests; the script prints them at the end.
# Environment: BUILD_DIR (default build-san).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build-san}
jobs=$(nproc)
BUILD_DIR=$build scripts/sanitized-build.sh

logs=$(cd "$build" && pwd)/sanitizer-logs
wrappers=$(cd "$build" && pwd)/sanitizer-path
rm -rf "$logs" && mkdir -p "$logs" "$wrappers"
libasan=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
libstdcxx=$(g++ -print-file-name=libstdc++.so.6)
real_mosquitto=$(PATH=/usr/sbin:/usr/local/sbin:$PATH command -v mosquitto)
cat >"$wrappers/mosquitto" <<WRAP
#!/bin/sh
# Written by scripts/test-sanitized.sh: the real broker with ASan's runtime loaded first, so the
# sanitized fleetmcp_plugin.so can be dlopen()ed. libstdc++ is preloaded too: mosquitto is C, and
# ASan resolves its __cxa_throw interceptor at start, so without it the plugin's first throw
# aborts ("CHECK failed: real___cxa_throw != 0"). mosquitto's own allocations are not checked for
# leaks (detect_leaks=0): it is not ours and not instrumented.
LD_PRELOAD="$libasan $libstdcxx" ASAN_OPTIONS="\$ASAN_OPTIONS:detect_leaks=0" exec $real_mosquitto "\$@"
WRAP
chmod +x "$wrappers/mosquitto"
export PATH=$wrappers:$PATH
export ASAN_OPTIONS=log_path=$logs/asan:detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0
# RapidJSON's null-pointer arithmetic, which clang's UBSan reports: tests/fuzz/ubsan.supp says why.
export UBSAN_OPTIONS=log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/fuzz/ubsan.supp
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp

echo "test-sanitized.sh: running tests (reports in $logs)"
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" "$@" || status=$?

if compgen -G "$logs/*" >/dev/null; then
  echo "test-sanitized.sh: sanitizer reports:" >&2
  for f in "$logs"/*; do echo "== $f" >&2; head -60 "$f" >&2; done
  status=1
fi
[ "$status" -eq 0 ] && echo "test-sanitized.sh: clean" || echo "test-sanitized.sh: FAILED" >&2
exit "$status"
