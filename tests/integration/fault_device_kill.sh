#!/usr/bin/env bash
# Fault: a device killed with SIGKILL in the middle of a call (issue 8). The broker sees the TCP
# connection die, the node goes offline, and the call in flight fails with E_NODE_OFFLINE at
# once, long before its deadline. Real mosquitto + plugin + HTTP front, a real fleetmcp-device.
. "$(dirname "$0")/lib.sh"

e2e_start 1 --test-hooks
# A node of its own process, so killing it leaves the rest alone; its echo deadline is the
# largest system.echo allows (5 s; the front's gateway deadline is then 6 s), so "at once" and
# "at the deadline" cannot be confused.
LONE=$(device_enroll 1 "$PORT_TLS")
sed -i 's/deadline_ms_default=[0-9]*/deadline_ms_default=5000/' "$T/pki/nodes/$LONE/device.conf"
device_start lone --config "$T/pki/nodes/$LONE/device.conf" --test-hooks
LONE_PID=$DEVICE_PID
e2e_wait_online 2 30
pass "a second node in its own process is online"

# The device holds the call for 4.5 s (test hook); it is killed 0.5 s in.
echo_call "$LONE" "sleep:4500" >"$T/killed.answer" &
CALL_PID=$!
sleep 0.5
kill -9 "$LONE_PID"
kill_ms=$(date +%s%3N)
wait "$CALL_PID" || fail "curl failed (see $T/killed.answer)"
took_ms=$(( $(date +%s%3N) - kill_ms ))
refused "$(cat "$T/killed.answer")" 503 E_NODE_OFFLINE \
  "a call to a device killed mid-call fails with E_NODE_OFFLINE, HTTP 503 (docs/protocol.md section 9)"
# Loose bound (a loaded CI machine, a sanitized build): the deadline would be 5.5 s after the kill.
[ "$took_ms" -lt 2500 ] || fail "the call ended $took_ms ms after the kill: it waited for a deadline instead of failing at once"
pass "it failed $took_ms ms after the kill, not at the deadline"

refused "$(echo_call "$LONE" "again")" 503 E_NODE_OFFLINE "a new call to the dead node fails with E_NODE_OFFLINE"
answer=$(echo_call "${E2E_NODES[0]}" "still-here")
assert_eq "$(answer_body "$answer" | jq -r .message)" still-here "the other node still answers"
