#!/usr/bin/env bash
# docs/protocol.md §12, bridged brokers on loopback, each mosquitto + fleetmcp_plugin.so from the top-level
# mosquitto.conf (scripts/broker-conf.sh), sharing one fleet CA and token issuer. The node is
# connected to A. Both directions of mosquitto's bridge are used, each holding a fleet:bridge
# token as a client of the other broker (docs/sharding.md):
#   B bridges in from A (B is A's client): B's own bridge delivers to B's plugin;
#   A bridges out to C (A is C's client, the edge-to-core shape): C's plugin sees a bridge principal.
# The node must be verified on all three, listed by B's and C's MCP endpoints and callable through
# them, its telemetry must reach B's subscribers, and its liveness must follow it across the
# bridges: offline on A, or A gone.
. "$(dirname "$0")/lib.sh"

pki_init
node=$(enroll_nodes acme 1)
A_TLS=$(free_port) A_PLAIN=$(free_port) A_HTTP=$(free_port)
B_TLS=$(free_port) B_PLAIN=$(free_port) B_HTTP=$(free_port)
C_TLS=$(free_port) C_PLAIN=$(free_port) C_HTTP=$(free_port)
A_BRIDGE=$(free_port) C_BRIDGE=$(free_port)
sed -i "s|^broker = .*|broker = mqtts://127.0.0.1:$A_TLS|" "$T/pki/nodes/$node/device.conf"

bridged_broker_conf a "$A_TLS" "$A_PLAIN" "$A_HTTP"
bridged_broker_conf b "$B_TLS" "$B_PLAIN" "$B_HTTP"
bridged_broker_conf c "$C_TLS" "$C_PLAIN" "$C_HTTP"
bridge_listener "$T/a.conf" "$A_BRIDGE"
bridge_listener "$T/c.conf" "$C_BRIDGE"
# B bridges in from A: mosquitto skips B's own ACL checks for what its bridge delivers (B's plugin
# still verifies it); A's plugin sees a `bridge` principal.
bridge_section "$T/b.conf" to-a "$A_BRIDGE" bridge-b in
# A bridges out to the core C, as docs/sharding.md configures an edge broker.
bridge_section "$T/a.conf" to-c "$C_BRIDGE" bridge-a out
bridge_token=$(sed -n 's/^remote_password //p' "$T/b.conf")

start_mosquitto "$T/c.conf" c
run_broker "$T/a.conf" a
A_PID=$BROKER_PID
start_mosquitto "$T/b.conf" b
for b in a b c; do wait_for_line "$T/$b.log" "fleetmcp: plugin ready" 10 || fail "$b not ready"; done
wait_for_line "$T/a-data/fleetmcp-audit.log" '"caller":"bridge-b".*"decision":"accept".*"reason":"bridge"' 10 \
  || fail "A never accepted B's bridge (A audit: $(tail -3 "$T/a-data/fleetmcp-audit.log"))"
wait_for_line "$T/c-data/fleetmcp-audit.log" '"caller":"bridge-a".*"decision":"accept".*"reason":"bridge"' 10 \
  || fail "C never accepted A's bridge (C audit: $(tail -3 "$T/c-data/fleetmcp-audit.log"))"
pass "three brokers with the plugin: B bridged in from A, A bridged out to C, as bridge principals"
assert_contains "$(openssl x509 -in "$T/pki/bridges/bridge-b/bridge.crt" -noout -subject)" "O = fleet:bridge, CN = bridge-b" \
  "fleetctl pki bridge made the bridge's certificate"

# Issue 17: the bridge token alone (no client certificate) is refused, on any listener.
if mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$A_PLAIN" -i bridge-b-stolen -u bridge-b -P "$bridge_token" \
     -t '$devices/+/status' -C 1 -W 2 >"$T/token-only.out" 2>&1; then
  fail "a bridge token without its certificate was accepted"
fi
assert_contains "$(cat "$T/token-only.out")" "authori" "a bridge token without its client certificate is refused at CONNECT"
wait_for_line "$T/a-data/fleetmcp-audit.log" '"caller":"bridge-b".*"decision":"refuse".*a bridge needs its client certificate' 5 \
  || fail "A did not audit the token-only bridge: $(grep refuse "$T/a-data/fleetmcp-audit.log" | tail -2)"
pass "A audits why"

device_start node --config "$T/pki/nodes/$node/device.conf"
token=$(agent_token claude acme "devices:read tools:call:read_only")
online_on() {  # online_on PLAIN_PORT : the node's retained status on that broker says online
  { timeout 3 mosquitto_sub -V mqttv5 -p "$1" -u claude -P "$token" -t "\$devices/$node/status" --retained-only -W 1 2>/dev/null || true; } \
    | grep '"state":"online"' >/dev/null
}
wait_until 15 online_on "$A_PLAIN" || fail "node not online on A (see $T/node.log, $T/a.log)"
pass "node verified and online on A"

# Verified on B: B's plugin accepted the bridged announce (its audit line) and lists the tool.
wait_for_line "$T/b-data/fleetmcp-audit.log" "\"node_id\":\"$node\".*\"decision\":\"accept\"" 10 \
  || fail "B never accepted $node's bridged announce (B audit: $(grep "$node" "$T/b-data/fleetmcp-audit.log" | tail -3))"
assert_contains "$(grep "\"node_id\":\"$node\"" "$T/b-data/fleetmcp-audit.log" | grep accept)" "over a bridge" \
  "B verified the node's manifest itself, from the enrolled certificate"
wait_until 10 online_on "$B_PLAIN" || fail "A's status for the node never reached B's agents"
pass "B's agents read the node's announce and status (same tenant)"

CALL=(-s -H "Content-Type: application/json" -H "Authorization: Bearer $token")
listed() {  # listed HTTP_PORT : that broker's MCP endpoint lists the node's echo tool
  curl "${CALL[@]}" -X POST "http://127.0.0.1:$1/mcp" -H "Accept: application/json, text/event-stream" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    -D "$T/init.h" -o /dev/null
  sid=$(awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' "$T/init.h" | tr -d '\r')
  curl "${CALL[@]}" -X POST "http://127.0.0.1:$1/mcp" -H "Accept: application/json, text/event-stream" \
    -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | grep "$node" >/dev/null  # by_kind: the node_id enum
}
wait_until 10 listed "$B_HTTP" || fail "B's MCP endpoint does not list $node's tools"
pass "node on A listed by B's MCP endpoint"
wait_until 10 listed "$C_HTTP" || fail "C's MCP endpoint does not list $node's tools (C audit: $(tail -3 "$T/c-data/fleetmcp-audit.log"))"
pass "node on A listed by C's MCP endpoint"

call_on() {  # call_on HTTP_PORT MESSAGE : an echo call through that broker's RFC-0009 endpoint
  TOOLS_CALL_BASE=http://127.0.0.1:$1 TOOLS_CALL_TOKEN=$token echo_call "$node" "$2"
}
call_b() { call_on "$B_HTTP" "$1"; }
answers() { answers_on "$B_HTTP" "$1" "$2"; }  # answers MESSAGE PATTERN: through B
answers_on() { call_on "$1" "$2" | grep -q -- "$3"; }  # answers_on HTTP_PORT MESSAGE PATTERN
for via in B C; do
  port=$B_HTTP; [ $via = C ] && port=$C_HTTP
  answer=$(call_on "$port" "via $via")
  assert_contains "$answer" "\"node_id\":\"$node\"" "node on A called through $via's HTTP front"
  assert_contains "$answer" "\"message\":\"via $via\"" "with its echo"
  data=$(echo "$via" | tr BC bc)-data
  assert_contains "$(grep "sysecho.$node" "$T/$data/fleetmcp-audit.log" | tail -1)" '"decision":"ok"' "$via audits the call"
done
[ -z "$(grep "\"node_id\":\"$node\"" "$T/a-data/fleetmcp-audit.log" | grep '"decision":"drop"')" ] \
  || fail "A audited a relayed call's cmd_ack as unknown: $(grep '"decision":"drop"' "$T/a-data/fleetmcp-audit.log")"
pass "A relays the cmds and their acks without taking them for its own"

# Telemetry crosses the bridge: a metrics subscription through B gets frames from the node on A.
timeout 6 curl -s -N "${CALL[@]}" -H "Accept: text/event-stream" -X POST "http://127.0.0.1:$B_HTTP/mcp/tools/call" \
  -d "{\"tool\":\"sys.$node.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}" >"$T/sse.txt" || true
assert_contains "$(cat "$T/sse.txt")" "event: metric" "a metrics subscription through B receives the node's telemetry"

assert_eq "$(answer_status "$(TOOLS_CALL_BASE=http://127.0.0.1:$B_HTTP TOOLS_CALL_TOKEN=$bridge_token echo_call "$node" x)")" \
  401 "a fleet:bridge token is not an agent's at the HTTP front"

# Liveness crosses the bridge: stopping the node makes calls through B fail fast.
kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
wait_until 10 answers x E_NODE_OFFLINE \
  || fail "B does not see the node go offline ($(call_b x))"
pass "node offline on A is offline through B"

# And when A itself is gone, B's bridge drops and the node is unreachable at once, not at the
# deadline: B fails the call with E_NODE_OFFLINE.
device_start node2 --config "$T/pki/nodes/$node/device.conf"
wait_until 15 answers y '"message":"y"' \
  || fail "the node never came back through B ($(call_b y))"
kill -9 "$A_PID"; wait "$A_PID" 2>/dev/null || true
start=$(date +%s%N)
wait_until 10 answers z E_NODE_OFFLINE \
  || fail "B still calls the node after A died ($(call_b z))"
echo "# B saw A's loss in $(( ($(date +%s%N) - start) / 1000000 )) ms"
wait_until 10 answers_on "$C_HTTP" z E_NODE_OFFLINE \
  || fail "C still calls the node after A died ($(call_on "$C_HTTP" z))"
echo "# C saw A's loss in $(( ($(date +%s%N) - start) / 1000000 )) ms (both counted from the kill)"
pass "broker A gone: its nodes are offline through B and C"
