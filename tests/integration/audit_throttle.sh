#!/usr/bin/env bash
# Issue 24 item 6: the plugin's drop/deny/refuse audit lines are throttled as the HTTP front's are.
# An enrolled node writing stale cmd_acks as fast as it can added ~170 bytes of audit log per ack
# (8.1 MiB/s at 50,000 acks/s), and each bad CONNECT a line. Now each kind of refusal (decision,
# code, tenant, verified caller) gets one line per second (plugin_opt_audit_refusal_interval_ms,
# default 1000), which says how many more it stands for; /metrics counts every one exactly.
# Real clients: mosquitto_pub as the enrolled node (its certificate, mTLS) and as agents with bad tokens.
. "$(dirname "$0")/lib.sh"

pki_init
NODE=$(enroll_nodes acme 1)
B=$T/pki/nodes/$NODE
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"
HTTP_PORT=$(broker_http_port broker)

metric() {  # metric NAME_AND_LABELS: its value on /metrics
  curl -s "http://127.0.0.1:$HTTP_PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}
refusals() { metric "fleetmcp_mqtt_refusals_total{what=\"$1\"}"; }
refusals_are() { [ "$(refusals "$1")" = "$2" ]; }  # for wait_until, which runs it again each time
node_pub() {  # node_pub TOPIC [mosquitto_pub args…]: as the enrolled node, over mutual TLS, QoS 1
  local topic=$1; shift
  # MQTT 3.1.1: a denied publish is acknowledged like any other (docs/platform-notes.md §M4), so
  # the client goes on publishing as a hostile node would.
  mosquitto_pub -V mqttv311 -h 127.0.0.1 -p "$PORT_TLS" --cafile "$T/pki/ca.crt" --cert "$B/node.crt" \
    --key "$B/node.key" -i "$NODE" -q 1 -t "$topic" "$@"
}
# lines_standing_for JQ_FILTER: how many refusals the audit lines selected by JQ_FILTER stand for
# (each is itself and the "N more like this" it counts).
lines_standing_for() {
  jq -s "[.[] | select($1) | 1 + ((.reason | capture(\"; (?<n>[0-9]+) more like this\").n | tonumber) // 0)] | add // 0" \
    "$T/audit.log"
}
line_count() { jq -s "[.[] | select($1)] | length" "$T/audit.log"; }

# ---- a node flooding stale and malformed cmd_acks, and publishes it may not make ------------------
STALE=20000 MALFORMED=2000 DENIED=2000
node -e '
  const [stale, malformed] = process.argv.slice(1).map(Number);
  // Uppercase Crockford ULIDs (docs/protocol.md §4): base 32 digits without I, L, O and U.
  const ulid = (i) => "01JD" + i.toString(32).toUpperCase().padStart(22, "0").replace(/[ILOU]/g, "Z");
  const out = [];
  for (let i = 0; i < stale; i++) {
    out.push(JSON.stringify({ type: "cmd_ack", msg_id: ulid(2 * i), in_reply_to: ulid(2 * i + 1),
                              payload: { ok: true, result: { message: "stale" } } }));
  }
  for (let i = 0; i < malformed; i++) out.push("{\"type\":\"cmd_ack\"}");
  process.stdout.write(out.join("\n") + "\n");
' "$STALE" "$MALFORMED" >"$T/acks.txt"
awk -v n="$DENIED" 'BEGIN { for (i = 0; i < n; i++) print "{\"node_id\":\"forged\",\"state\":\"online\"}" }' >"$T/denied.txt"
audit_before=$(stat -c %s "$T/audit.log")
started=$SECONDS
node_pub "\$devices/$NODE/cmd_ack" -l <"$T/acks.txt" 2>"$T/flood.log" || fail "the node's ack flood failed: $(cat "$T/flood.log")"
node_pub "\$devices/$NODE/status" -l <"$T/denied.txt" 2>>"$T/flood.log" || fail "the node's denied publishes failed"
took=$((SECONDS - started + 1))
audit_after=$(stat -c %s "$T/audit.log")
sent=$((STALE + MALFORMED + DENIED))
echo "node: $sent refusals in ~${took} s added $((audit_after - audit_before)) bytes of audit log"
wait_until 5 refusals_are publish "$DENIED" || fail "publish refusals on /metrics: $(refusals publish)"
assert_eq "$(refusals cmd_ack_unmatched)" "$STALE" "/metrics counts every stale cmd_ack"
assert_eq "$(refusals cmd_ack_malformed)" "$MALFORMED" "/metrics counts every malformed cmd_ack"
assert_eq "$(refusals publish)" "$DENIED" "/metrics counts every denied publish"
# Issue 33 item 8: the refusals of a kind not written yet are written when its interval ends (the
# burst's last refusal, counting the rest), not only when another refusal of that kind comes.
UNMATCHED=".caller == \"$NODE\" and .decision == \"drop\" and (.reason | test(\"answers no call\"))"
BAD_ACK=".caller == \"$NODE\" and .decision == \"drop\" and .code == \"E_BAD_REQUEST\""
DENY=".caller == \"$NODE\" and .decision == \"deny\""
# accounted_for WHAT JQ_FILTER COUNT: within 5 s (the 1 s interval, the tick, a loaded machine)
# the lines stand for COUNT.
stand_for() { [ "$(lines_standing_for "$1")" = "$2" ]; }
accounted_for() {
  wait_until 5 stand_for "$2" "$3" \
    || fail "the $1 lines stand for $(lines_standing_for "$2") of $3 refusals, with no further refusal"
  pass "the $1 lines account for every one ($3), the last written when its interval ended"
}
accounted_for "stale-ack" "$UNMATCHED" "$STALE"
accounted_for "malformed-ack" "$BAD_ACK" "$MALFORMED"
accounted_for "deny" "$DENY" "$DENIED"
node_lines=$(line_count ".caller == \"$NODE\" and (.decision == \"drop\" or .decision == \"deny\")")
echo "node: $node_lines audit lines for $sent refusals"
[ "$node_lines" -le $((3 * (took + 3))) ] || fail "$node_lines lines for ~$took s of flooding: not one per kind and second"
pass "the node's flood wrote at most one line per kind and second ($node_lines lines)"

# ---- bad CONNECTs, each with another made-up username ---------------------------------------------
BAD=400
connect_before=$(refusals connect)
started=$SECONDS
seq 1 "$BAD" | xargs -P 8 -I{} mosquitto_pub -h 127.0.0.1 -p "$PORT_PLAIN" -i "user-{}" -u "user-{}" \
  -P "not-a-token-{}" -t x -m x 2>/dev/null || true   # every one refused
took=$((SECONDS - started + 1))
wait_until 5 refusals_are connect $((connect_before + BAD)) || fail "connect refusals on /metrics: $(refusals connect)"
pass "/metrics counts every refused CONNECT"
REFUSED='.decision == "refuse" and (.caller | startswith("user-"))'
accounted_for "bad-CONNECT" "$REFUSED" "$BAD"
connect_lines=$(line_count "$REFUSED")
echo "agents: $connect_lines audit lines for $BAD bad CONNECTs in ~${took} s"

# A burst much shorter than the interval, then silence: one line at once, one when it ends. (Refused
# CONNECTs are one kind whatever their username; a second after the last line, it is written at once.)
sleep 1.1
seq 1 5 | xargs -P 5 -I{} mosquitto_pub -h 127.0.0.1 -p "$PORT_PLAIN" -i "burst-{}" -u burst -P bad -t x -m x \
  2>/dev/null || true
accounted_for "short burst" '.decision == "refuse" and .caller == "burst"' 5
assert_eq "$(line_count '.decision == "refuse" and .caller == "burst"')" 2 "the short burst took two lines"
[ "$connect_lines" -le $((took + 3)) ] || fail "$connect_lines lines for $BAD bad CONNECTs: made-up names multiply them"
pass "made-up usernames do not multiply the lines ($connect_lines)"

total=$(metric fleetmcp_audit_lines_throttled_total)
[ "$total" -gt $((sent + BAD - node_lines - connect_lines - 10)) ] || fail "fleetmcp_audit_lines_throttled_total is $total"
pass "/metrics counts the lines not written ($total)"

# Accepts are never throttled: a good client's line is there at once, whatever the flood before.
TOKEN=$(agent_token reader acme devices:read)
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i reader -u reader -P "$TOKEN" -t "\$devices/+/status" -C 1 -W 2 \
  >/dev/null 2>&1 || true
wait_for_line "$T/audit.log" '"caller":"reader".*"decision":"accept"' 3 || fail "an accept line was held back"
pass "accept lines are written as they happen"
