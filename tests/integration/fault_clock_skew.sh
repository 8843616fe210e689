#!/usr/bin/env bash
# Fault: a device whose clock runs 10 minutes ahead (issue 8). Its signed announces carry an
# issued_at_ms in the broker's future, so the plugin refuses them (docs/protocol.md section 5, check 4: at
# most 60 s of skew); the device learns why on its rejected topic, with a suggested_fix that
# points at the clock, and logs it. The node never becomes callable.
#
# The skew: a small LD_PRELOAD shim, built here, adds SKEW_S seconds to CLOCK_REALTIME for the
# device process only (no libfaketime needed). verify_asan_link_order=0 lets it sit in front of
# ASan's runtime when the suite runs sanitized (scripts/test-sanitized.sh).
. "$(dirname "$0")/lib.sh"

cat >"$T/skew.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec* ts) {
  static int (*real)(clockid_t, struct timespec*);
  if (!real) real = (int (*)(clockid_t, struct timespec*))dlsym(RTLD_NEXT, "clock_gettime");
  const int rc = real(id, ts);
  if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += atol(getenv("SKEW_S"));
  return rc;
}
C
cc -shared -fPIC -O1 -o "$T/skew.so" "$T/skew.c" -ldl || fail "cannot build the clock shim"

e2e_start 1
SKEWED=$(device_enroll 1 "$PORT_TLS")
SKEW_S=600 LD_PRELOAD=$T/skew.so ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
  device_start skewed --config "$T/pki/nodes/$SKEWED/device.conf"

deadline=$((SECONDS + 30))
until grep -q 'announce.rejected' "$T/skewed.log" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the skewed device logged no rejection (see $T/skewed.log, $T/broker.log)"
  sleep 0.2
done
line=$(grep -m1 'announce.rejected' "$T/skewed.log")
assert_contains "$line" "ahead of the broker clock" "the device is told its manifest is from the future"
assert_contains "$line" "check the device clock (NTP)" "… with a suggested_fix that names the clock"
grep '"decision":"refuse"' "$T/audit.log" | grep -q "$SKEWED" || fail "the refusal is not audited"
pass "the refusal is audited"

refused "$(echo_call "$SKEWED" x)" 404 E_MANIFEST_NOT_FOUND "no tool of the skewed node can be called"
