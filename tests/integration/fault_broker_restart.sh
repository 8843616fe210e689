#!/usr/bin/env bash
# Fault: the broker restarted mid-TTL with persistence on (issue 8). RESTART_NODES simulated nodes
# (default 50, one fleetmcp-device process) and one more node in its own process are online with
# valid manifests (TTL 1 h) when mosquitto is stopped (SIGTERM, as `systemctl restart` does) with
# a call in flight, and started again on the same configuration. What must happen:
#   - the call in flight is answered at once, 503 E_NODE_OFFLINE "the broker is shutting down"
#     (the HTTP front lives in the broker process: its answer can never come);
#   - the retained announces survive and the plugin re-verifies them against the certificates in
#     its state file: the lone node is kept stopped (SIGSTOP) across the restart, so its announce
#     can only come from persistence; counters restored_verified > 0, restored_cleared = 0;
#   - every node reconnects by itself (jittered exponential backoff), is online again and
#     callable; the spread of the fleet's reconnect times is printed, and must not be one burst.
# The devices' backoff is capped at 8 s (reconnect_max_ms) so the unluckiest node is back in CI
# time; the first window is the default 2 s.
. "$(dirname "$0")/lib.sh"

n=${RESTART_NODES:-50}
pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
mapfile -t E2E_NODES < <(device_enroll "$n" "$PORT_TLS")
# Enrolled later, so its ULID sorts after the fleet's and --simulate N leaves it out.
LONE=$(device_enroll 1 "$PORT_TLS")
for conf in "$T"/pki/nodes/*/device.conf; do
  # Echo calls may take 5 s on the device (system.echo's largest deadline), so the call below is
  # surely in flight when the broker stops.
  sed -i 's/deadline_ms_default=[0-9]*/deadline_ms_default=5000/' "$conf"
  echo "reconnect_max_ms = 8000" >>"$conf"
done
persist=("persistence true" "persistence_location $T/" "plugin_opt_state_file $T/state.json")
conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "${persist[@]}")
run_broker "$conf" broker1
HTTP_PORT=$(broker_http_port broker1)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
E2E_TOKEN=$(agent_token agent-e2e acme "$E2E_SCOPES")
OPS_TOKEN=$(agent_token ops acme "devices:read")
device_start fleet --simulate "$n" --bundle-dir "$T/pki" --test-hooks
device_start lone --config "$T/pki/nodes/$LONE/device.conf"
LONE_PID=$DEVICE_PID
# A stopped process ignores lib.sh's SIGTERM at exit until it runs again: resume it first.
resume_then_cleanup() {
  local rc=$?
  set +e
  kill -CONT "$LONE_PID" 2>/dev/null
  (exit $rc)
  _cleanup
}
trap resume_then_cleanup EXIT
e2e_wait_online $((n + 1)) 60
pass "$n simulated nodes and a lone node online"

call() {  # call NODE MESSAGE: echo_call's answer, the status line followed by curl's exit code
  local rc=0 out
  out=$(echo_call "$1" "$2" --max-time 30) || rc=$?
  printf '%s %s\n' "$out" "$rc"
}
counter() {  # counter NAME: one of the plugin's counters, from its $CONTROL driver
  "$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub ops --token "$OPS_TOKEN" --command counters \
    2>>"$T/counters.log" | jq -r ".. | objects | .$1? // empty" | head -n 1
}
counter_at_least() { [ "$(counter "$1")" -ge "$2" ] 2>/dev/null; }
announce_hash() {  # announce_hash NODE: BLAKE3 of its retained announce, as an agent receives it
  mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u ops -P "$OPS_TOKEN" -t "\$devices/$1/announce" \
    -C 1 -W 10 2>/dev/null | b3sum --no-names || true  # 10 s: the broker re-verifies the fleet meanwhile
}
lone_hash=$(announce_hash "$LONE")
[ -n "$lone_hash" ] || fail "no retained announce of the lone node before the restart"

echo "# stop the broker with a call in flight (the device holds it 4 s); the lone node is stopped"
call "${E2E_NODES[0]}" "sleep:4000" >"$T/inflight.answer" &
CALL_PID=$!
sleep 0.5
kill -STOP "$LONE_PID"
stop_ms=$(date +%s%3N)
stop_broker
stopped_ms=$(date +%s%3N)
wait "$CALL_PID"
took_ms=$(( $(date +%s%3N) - stop_ms ))
answer=$(cat "$T/inflight.answer")
echo "  broker stopped in $(( stopped_ms - stop_ms )) ms; the client got: $(tr '\n' ' ' <<<"$answer")"
[ "${answer##* }" = 0 ] || fail "the call in flight failed in curl (status, curl exit): $answer"
refused "${answer% *}" 503 E_NODE_OFFLINE "the call in flight is answered E_NODE_OFFLINE, HTTP 503"
assert_contains "$(jq -r .message <<<"$REFUSAL")" "shutting down" "… saying the broker is shutting down"
[ "$took_ms" -lt 4000 ] || fail "the call in flight ended $took_ms ms after the stop: it waited for the device"
pass "… $took_ms ms after the broker was told to stop, not at the device's answer or the deadline"
[ -s "$T/mosquitto.db" ] && [ -s "$T/state.json" ] || fail "no persistence or state file after the stop"
pass "mosquitto.db and the plugin's state file written"

echo "# start it again on the same configuration"
restart_ms=$(date +%s%3N)
run_broker "$conf" broker2
HTTP_PORT=$(broker_http_port broker2)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
wait_for_line "$T/broker2.log" "fleetmcp: first tick, $((n + 1)) nodes remembered" 10 \
  || fail "the plugin does not remember the $((n + 1)) nodes (see $T/broker2.log)"
pass "the plugin remembers all $((n + 1)) nodes (state file)"
wait_until 10 counter_at_least restored_verified 1 || fail "no restored announce re-verified: $(counter restored_verified)"
assert_eq "$(announce_hash "$LONE")" "$lone_hash" "the stopped node's retained announce survived the restart unchanged"
assert_eq "$(counter restored_cleared)" 0 "no restored announce was cleared"
grep -q '"decision":"clear"' "$T/audit.log" && fail "a clear in the audit log: $(grep '"decision":"clear"' "$T/audit.log")"
pass "… and none is audited as cleared"

e2e_wait_online "$n" 60
pass "all $n simulated nodes reconnected by themselves, $(( $(date +%s%3N) - restart_ms )) ms after the restart"
# Re-verified: the lone node's announce, and the fleet's that the waker's scan reached before
# their node re-announced.
echo "  restored announces re-verified: $(counter restored_verified) of $((n + 1))"

# Reconnect times of the fleet, in ms since the restart, from fleet.log: when each node's last
# connection attempt started (the jittered backoff: "next attempt in X ms") and when it was
# connected (CONNACK). The attempts are what the broker sees arrive; the CONNACKs of one
# simulating process may bunch up behind Paho's shared network thread.
awk -v r="$((restart_ms % 86400000))" '
  function rel(ts,  ms) {  # 2026-11-23T18:06:14.922Z -> ms since the restart (UTC, across midnight)
    ms = int((substr(ts, 12, 2) * 3600 + substr(ts, 15, 2) * 60 + substr(ts, 18, 6)) * 1000 + 0.5)
    ms = (ms - r + 86400000) % 86400000
    return ms > 43200000 ? ms - 86400000 : ms
  }
  $4 == "mqtt.reconnect_scheduled" { attempt[$3] = rel($1) + $(NF - 1) }
  $4 == "mqtt.connected" && rel($1) >= 0 { print attempt[$3], rel($1) }
' "$T/fleet.log" >"$T/reconnect.ms"
[ "$(wc -l <"$T/reconnect.ms")" = "$n" ] || fail "reconnect times of $(wc -l <"$T/reconnect.ms") nodes, not $n (see $T/reconnect.ms)"
spread() {  # spread COLUMN: "first median last busiest-100-ms-window" of that column
  cut -d' ' -f"$1" "$T/reconnect.ms" | sort -n | awk '{ t[NR] = $1 } END {
    for (i = 1; i <= NR; i++) { j = i; while (j < NR && t[j + 1] - t[i] < 100) j++; if (j - i + 1 > best) best = j - i + 1 }
    print t[1], t[int((NR + 1) / 2)], t[NR], best }'
}
read -r first median last busiest < <(spread 2)
echo "  connected (ms after the restart): first $first, median $median, last $last; busiest 100 ms: $busiest of $n"
read -r first median last busiest < <(spread 1)
echo "  connection attempts (ms after the restart): first $first, median $median, last $last; spread $((last - first)) ms; busiest 100 ms: $busiest of $n"
# Loose: with full jitter over the first windows (2 s, 4 s, ...) a 100 ms window holds a few.
[ "$busiest" -lt $((n / 2)) ] || fail "$busiest of $n nodes attempted to reconnect within one 100 ms window: no jitter"
[ $((last - first)) -ge 500 ] || fail "all $n nodes attempted to reconnect within $((last - first)) ms: no jitter"
pass "the reconnections are spread out (jittered backoff)"

echo "# the stopped node resumes"
kill -CONT "$LONE_PID"
e2e_wait_online $((n + 1)) 30
pass "the lone node reconnected too"

# One curl for all the calls (a process per call costs more than the calls on a loaded machine).
calls=()
for id in "${E2E_NODES[@]}" "$LONE"; do
  calls+=(--next -s -X POST "$E2E_BASE/mcp/tools/call" -H "Authorization: Bearer $E2E_TOKEN"
    -H 'Content-Type: application/json' -H 'Accept: application/json' -w '\n'
    -d "{\"tool\":\"sysecho.$id.echo.invoke\",\"arguments\":{\"message\":\"after-restart\"}}")
done
curl "${calls[@]:1}" >"$T/after.answers" || fail "curl failed (see $T/after.answers)"
answered=$(jq -r 'select(.message == "after-restart") | .node_id' "$T/after.answers" | sort -u | wc -l)
[ "$answered" = $((n + 1)) ] ||
  fail "$answered of $((n + 1)) nodes answered after the restart; the others: $(jq -c 'select(.message != "after-restart")' "$T/after.answers" | sort | uniq -c | head -5)"
pass "every one of the $((n + 1)) nodes answers a call after the restart"
