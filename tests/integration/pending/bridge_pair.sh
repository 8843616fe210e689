#!/usr/bin/env bash
# DESIGN §12, the bridged pair: brokers A and B on loopback, each mosquitto + fleetmcp_plugin.so
# from the top-level mosquitto.conf (scripts/broker-conf.sh), sharing one fleet CA and token
# issuer; B bridges $devices/# to A with mosquitto's own bridge. A node connected to A must be
# verified on both, listed by B's MCP endpoint and callable through it.
#
# PENDING: not in tests/integration/ because it cannot pass until the plugin verifies bridged
# announces and routes calls over a bridge (docs/sharding.md, "What the plugin needs"). Run it
# by hand: FLEETMCP_BINARY_DIR=build bash tests/integration/pending/bridge_pair.sh
. "$(dirname "$0")/../lib.sh"

pki_init
node=$(enroll_nodes acme 1)
A_TLS=$(free_port) A_PLAIN=$(free_port) A_HTTP=$(free_port)
B_TLS=$(free_port) B_PLAIN=$(free_port) B_HTTP=$(free_port)
sed -i "s|^broker = .*|broker = mqtts://127.0.0.1:$A_TLS|" "$T/pki/nodes/$node/device.conf"

# broker NAME TLS PLAIN HTTP : a derived config in $T/NAME.conf with its own data dir.
broker() {
  mkdir -p "$T/$1-data"
  "$SRC/scripts/broker-conf.sh" --pki "$T/pki" --plugin "$PLUGIN" --data "$T/$1-data" \
    --device-port "$2" --agent-port "$3" --http-port "$4" >"$T/$1.conf"
}
broker a "$A_TLS" "$A_PLAIN" "$A_HTTP"
broker b "$B_TLS" "$B_PLAIN" "$B_HTTP"
# B's bridge to A: a client of A's agent listener authenticated like an agent (username = sub,
# password = token). mosquitto skips B's own ACL checks for what its bridge receives; A's plugin
# sees a client. The topics are named leaf by leaf (docs/sharding.md): announce, status,
# telemetry and cmd_ack come in from A, cmd goes out to A. BRIDGE_SCOPE: the scope the plugin
# change will introduce (docs/sharding.md, "What the plugin needs" 1); devices:read until then.
bridge_token=$(agent_token bridge-b acme "${BRIDGE_SCOPE:-devices:read}")
cat >>"$T/b.conf" <<CONF
connection to-a
address 127.0.0.1:$A_PLAIN
remote_clientid bridge-b-to-a
remote_username bridge-b
remote_password $bridge_token
bridge_protocol_version mqttv50
cleansession true
try_private false
topic \$devices/+/announce in 1
topic \$devices/+/status in 1
topic \$devices/+/telemetry in 0
topic \$devices/+/cmd_ack in 1
topic \$devices/+/cmd out 1
CONF

start_mosquitto "$T/a.conf" a
start_mosquitto "$T/b.conf" b
wait_for_line "$T/a.log" "fleetmcp: plugin ready" 10 || fail "A not ready"
wait_for_line "$T/b.log" "fleetmcp: plugin ready" 10 || fail "B not ready"
wait_for_line "$T/b.log" "Connecting bridge.*to-a" 10 || fail "B's bridge never started"
pass "two brokers with the plugin, B bridged to A"

device_start node --config "$T/pki/nodes/$node/device.conf"
token=$(agent_token claude acme "devices:read tools:call:read_only")
online_on() {  # online_on PLAIN_PORT : the node's retained status on that broker says online
  { timeout 3 mosquitto_sub -p "$1" -u claude -P "$token" -t "\$devices/$node/status" --retained-only -W 1 2>/dev/null || true; } \
    | grep '"state":"online"' >/dev/null
}
wait_until 15 online_on "$A_PLAIN" || { timeout 3 mosquitto_sub -p "$A_PLAIN" -u claude -P "$token" -t "\$devices/+/status" -v -W 2 || true; fail "node not online on A (see $T/node.log, $T/a.log)"; }
pass "node verified and online on A"

# Verified on B: B's plugin accepted the bridged announce (its audit line) and lists the tool.
wait_for_line "$T/b-data/fleetmcp-audit.log" "\"decision\":\"accept\".*\"node_id\":\"$node\"" 10 \
  || fail "B never accepted $node's bridged announce (B audit: $(grep "$node" "$T/b-data/fleetmcp-audit.log" | tail -3))"
pass "node's manifest verified on B"

CALL=(-s -H "Content-Type: application/json" -H "Authorization: Bearer $token")
listed() {
  curl "${CALL[@]}" -X POST "http://127.0.0.1:$B_HTTP/mcp" -H "Accept: application/json, text/event-stream" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    -D "$T/init.h" -o /dev/null
  sid=$(awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' "$T/init.h" | tr -d '\r')
  curl "${CALL[@]}" -X POST "http://127.0.0.1:$B_HTTP/mcp" -H "Accept: application/json, text/event-stream" \
    -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | grep "sysecho-$node-echo-invoke" >/dev/null
}
wait_until 10 listed || fail "B's MCP endpoint does not list $node's tools"
pass "node on A listed by B's MCP endpoint"

answer=$(curl "${CALL[@]}" -X POST "http://127.0.0.1:$B_HTTP/mcp/tools/call" \
  -d "{\"tool\":\"sysecho.$node.echo.invoke\",\"arguments\":{\"message\":\"via B\"}}")
assert_contains "$answer" "\"node_id\":\"$node\"" "node on A called through B's HTTP front"
assert_contains "$answer" '"message":"via B"' "with its echo"

# Liveness crosses the bridge: stopping the node makes calls through B fail fast.
kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
wait_until 10 bash -c "curl -s -H 'Content-Type: application/json' -H 'Authorization: Bearer $token' -X POST http://127.0.0.1:$B_HTTP/mcp/tools/call -d '{\"tool\":\"sysecho.$node.echo.invoke\",\"arguments\":{\"message\":\"x\"}}' | grep -q E_NODE_OFFLINE" \
  || fail "B does not see the node go offline"
pass "node offline on A is offline through B"
