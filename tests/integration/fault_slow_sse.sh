#!/usr/bin/env bash
# Fault: a slow SSE consumer (issue 8, RFC-0009 §6). Two clients subscribe to the metrics of the
# same node through the real broker (mosquitto + plugin + HTTP front + a simulated device): one
# reads everything (curl), the other (fleetmcp-http-stalled-client) stops reading after its first
# frame, with its TCP window clamped small so the kernel stops accepting frames for it. Once it is
# more than 3 frames (the send buffer) behind, the front sends it `close` 4413 "backpressure" and
# tears its stream down, while the well-behaved subscriber keeps receiving frames at its cadence.
# The stalled client then reconnects with a longer interval_ms, as RFC-0009 §6 asks, and is served.
. "$(dirname "$0")/lib.sh"

# A long idle timeout so the stalled client meets the backpressure limit (4413), not the idle
# timeout (4408); pings rarer than the test so only counted frames fill the client's window.
E2E_BROKER_LINES=("plugin_opt_http_sse_idle_timeout_ms 60000" "plugin_opt_http_sse_ping_ms 60000")
e2e_start 1
NODE=${E2E_NODES[0]}
TOOL=sys.$NODE.metrics.subscribe

rfc0009_streams() {  # open RFC-0009 streams, from the front's GET /metrics
  curl -s "$E2E_BASE/metrics" | awk '/^fleetmcp_sse_streams\{endpoint="rfc0009"\}/{print $2}'
}
frames() { grep -c '^event: metric' "$1" 2>/dev/null || true; }
# For wait_until, which runs a command again and again (a "$(…)" argument would be evaluated once).
has_frames() { [ "$(frames "$1")" -ge "$2" ]; }
streams_are() { [ "$(rfc0009_streams)" = "$1" ]; }

echo "# a well-behaved subscriber"
curl -sN --max-time 120 -X POST "$E2E_BASE/mcp/tools/call" \
  -H "Authorization: Bearer $E2E_TOKEN" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' \
  -d "{\"tool\":\"$TOOL\",\"arguments\":{\"interval_ms\":1000}}" >"$T/good.sse" 2>"$T/good.log" &
track $!
wait_until 20 has_frames "$T/good.sse" 2 || fail "the well-behaved subscriber got no frames (see $T/good.sse)"
pass "the well-behaved subscriber receives metric frames"

echo "# a subscriber that stops reading after one frame"
# It stalls 15 s: at 1 frame/s, its clamped window (about 2 KiB: 3 or 4 frames) and the 3-frame
# buffer are used up in about 7 s, so 4413 comes well inside the stall.
"$HTTP_STALLED_CLIENT" --port "$HTTP_PORT" --token "$E2E_TOKEN" --tool "$TOOL" --interval-ms 1000 \
  --read-frames 1 --stall-ms 15000 --read-timeout-ms 10000 >"$T/stalled.sse" 2>"$T/stalled.log" &
STALLED_PID=$!
track "$STALLED_PID"
wait_until 10 grep -q 'not reading' "$T/stalled.log" || fail "the stalled client never got its first frame (see $T/stalled.log)"
stall_ms=$(date +%s%3N)
wait_until 10 streams_are 2 || fail "the front does not count two open streams: $(rfc0009_streams)"
pass "two RFC-0009 streams open on the same node"

# The front ends the stalled stream: its audit line says why, and /metrics counts one stream.
wait_until 30 grep -q '"decision":"stream","code":"backpressure"' "$T/audit.log" \
  || fail "no stream ended with backpressure in the audit log within 30 s (see $T/audit.log)"
teardown_ms=$(date +%s%3N)
pass "the stalled stream ended with backpressure $(( teardown_ms - stall_ms )) ms after the client stopped reading (audit log)"
wait_until 5 streams_are 1 || fail "the front still counts $(rfc0009_streams) streams after the teardown"
pass "the stalled stream is torn down (GET /metrics: 1 RFC-0009 stream open)"

good_at_teardown=$(frames "$T/good.sse")
wait "$STALLED_PID" || fail "stalled client failed (see $T/stalled.log)"
assert_contains "$(cat "$T/stalled.sse")" 'event: close' "the stalled client receives a close event once it reads again"
assert_contains "$(cat "$T/stalled.sse")" 'data: {"code":4413,"reason":"backpressure"}' "… with code 4413 backpressure"
[ "$(grep -c '^event: close' "$T/stalled.sse")" = 1 ] || fail "more than one close event: $(cat "$T/stalled.sse")"
last_event=$(grep '^event: ' "$T/stalled.sse" | tail -n 1)
assert_eq "$last_event" "event: close" "the close event is the last thing on the stalled stream"
echo "  the stalled client received $(frames "$T/stalled.sse") metric frames in all"

# The other subscriber of the same node goes on: frames keep coming, and nothing closed it.
wait_until 15 has_frames "$T/good.sse" $((good_at_teardown + 3)) \
  || fail "the well-behaved subscriber stopped at $(frames "$T/good.sse") frames (had $good_at_teardown at the teardown)"
pass "the well-behaved subscriber keeps receiving frames after the teardown ($(frames "$T/good.sse") in all)"
if grep -q '^event: close' "$T/good.sse"; then fail "the well-behaved subscriber got a close: $(grep -A1 '^event: close' "$T/good.sse")"; fi
pass "… and was never closed"
assert_eq "$(rfc0009_streams)" 1 "its stream is still open"

# RFC-0009 §6: after 4413 the client reconnects with a longer interval_ms. The front has freed the
# stalled stream's slot: the new stream opens, and its frames come at the interval it asked for.
echo "# the stalled client reconnects at 2000 ms"
curl -sN --max-time 9 -X POST "$E2E_BASE/mcp/tools/call" \
  -H "Authorization: Bearer $E2E_TOKEN" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' \
  -d "{\"tool\":\"$TOOL\",\"arguments\":{\"interval_ms\":2000}}" >"$T/again.sse" 2>"$T/again.log" &
AGAIN_PID=$!
track "$AGAIN_PID"
wait_until 15 has_frames "$T/again.sse" 3 || fail "the reconnected stream got $(frames "$T/again.sse") frames (see $T/again.sse)"
assert_eq "$(rfc0009_streams)" 2 "the reconnected stream is served beside the other one"
gaps=$(grep '^data: ' "$T/again.sse" | sed 's/^data: //' | jq -s '[.[] | select(.ts_ms) | .ts_ms] | [range(1; length) as $i | .[$i] - .[$i-1]] | min')
[ "$gaps" -ge 1500 ] || fail "the reconnected stream's frames are $gaps ms apart, not about 2000 (see $T/again.sse)"
pass "its frames come at least $gaps ms apart (interval_ms 2000; the other stream keeps 1000)"
