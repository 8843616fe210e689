#!/usr/bin/env bash
# Broker restart with persistence (docs/protocol.md §6): mosquitto restores retained announces without
# asking the plugin, so the plugin re-verifies them on its first tick. Valid announces survive;
# announces planted in the persistence file while the plugin was not loaded are cleared.
. "$(dirname "$0")/lib.sh"

pki_init
mapfile -t NODES < <(enroll_nodes acme 3)
A=${NODES[0]}; B=${NODES[1]}; X=${NODES[2]}
AGENT=$(agent_token claude acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
persist=("persistence true" "persistence_location $T/" "plugin_opt_state_file $T/state.json")
conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "${persist[@]}")

announces() {  # every retained announce an agent receives: "node_id etag" lines
  mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t '$devices/+/announce' \
    -W 2 -F '%t %p' 2>/dev/null | while read -r topic payload; do
    [ -n "$payload" ] && echo "$(echo "$topic" | cut -d/ -f2) $(printf '%s' "$payload" | b3sum --no-names)"
  done | sort || true
}

# 1. A and B announce through the plugin, then go offline.
run_broker "$conf" broker1
wait_for_line "$T/broker1.log" "fleetmcp: first tick" 5 || fail "plugin not ready"
for n in "$A" "$B"; do
  "$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$n" --run-ms 500 >"$T/node-$n.log" 2>&1 \
    || fail "node $n: $(cat "$T/node-$n.log")"
done
before=$(announces)
[ "$(echo "$before" | wc -l)" -eq 2 ] || fail "expected two announces before the restart: [$before]"
stop_broker
[ -s "$T/state.json" ] && [ -s "$T/mosquitto.db" ] || fail "no state or persistence file after the first run"
pass "two verified announces persisted"

# 2. Without the plugin, someone plants a tampered B and an announce for X (enrolled, never seen).
cat >"$T/plain.conf" <<CONF
user root
persistence true
persistence_location $T/
allow_anonymous true
log_dest stderr
listener $PORT_PLAIN 127.0.0.1
CONF
run_broker "$T/plain.conf" plain
b_manifest=$(mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -t "\$devices/$B/announce" -C 1 -W 2)
# Under B's own name, so the plugin has to re-verify the signature to notice.
echo "$b_manifest" | sed 's/"max_concurrency":4/"max_concurrency":64/' |
  mosquitto_pub -h 127.0.0.1 -p "$PORT_PLAIN" -i "$B" -u "$B" -t "\$devices/$B/announce" -r -q 1 -s
"$FLEETCTL" manifest example --node-id "$X" |
  "$FLEETCTL" manifest sign --key "$T/pki/nodes/$X/node.key" --cert "$T/pki/nodes/$X/node.crt" |
  mosquitto_pub -h 127.0.0.1 -p "$PORT_PLAIN" -t "\$devices/$X/announce" -r -q 1 -s
stop_broker
pass "a tampered and an unknown announce planted in the persistence file"

# 3. The plugin is back: it re-verifies what mosquitto restored.
run_broker "$conf" broker2
wait_for_line "$T/broker2.log" "fleetmcp: first tick" 5 || fail "plugin not ready after the restart"
wait_until 5 grep -q "restored announce refused" "$T/audit.log" || fail "no restored announce was refused"
sleep 0.5
after=$(announces)
assert_eq "$after" "$(echo "$before" | grep "^$A ")" "only A's valid announce survives the restart"
grep "\"node_id\":\"$B\",\"decision\":\"clear\"" "$T/audit.log" | grep -q "payload_hash does not match" \
  || fail "B's tampered announce not cleared for its signature"
grep "\"node_id\":\"$X\",\"decision\":\"clear\"" "$T/audit.log" | grep -q "not published by the node" \
  || fail "X's planted announce not cleared"
pass "the tampered and the unknown announce are cleared and audit-logged"
status=$(mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t "\$devices/$A/status" -C 1 -W 2)
assert_contains "$status" '"state":"offline"' "A's status is republished by the plugin after the restart"

# 4. A comes back; its next announce is newer, so replay protection survived the restart too.
"$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$A" --run-ms 300 >"$T/node-again.log" 2>&1 \
  || fail "A cannot announce after the restart: $(cat "$T/node-again.log")"
pass "A announces again after the restart"
