#!/usr/bin/env bash
# Issue 17 item 1: a client id is a claim on a session (mosquitto disconnects whoever holds it when
# another client connects with it). An agent token, whatever its scopes, may connect only with a
# client id derived from its sub (docs/threat-model.md): never a node's, the waker's or another
# principal's. The node connected here must not flap when someone tries.
. "$(dirname "$0")/lib.sh"

pki_init
NODE=$(enroll_nodes acme 1)
READER=$(agent_token claude acme "devices:read")
OPS=$(agent_token ops acme "devices:read")
OPS_A=$(agent_token ops-a acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"
"$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$NODE" >"$T/node.log" 2>&1 &
track $!
wait_for_line "$T/node.log" "^announced" 10 || fail "the node did not announce"

# connects ID USER TOKEN [MQTT_VERSION]: the agent could CONNECT with that client id (it reads the
# node's retained status), else prints mosquitto_sub's refusal to $T/refused.out.
connects() {
  mosquitto_sub -V "${4:-mqttv311}" -h 127.0.0.1 -p "$PORT_PLAIN" ${1:+-i "$1"} -u "$2" -P "$3" \
    -t "\$devices/$NODE/status" -C 1 -W 3 >"$T/refused.out" 2>&1
}
refused() {  # refused LABEL ID USER TOKEN
  if connects "$2" "$3" "$4"; then fail "$1: accepted ($(cat "$T/refused.out"))"; fi
  assert_contains "$(cat "$T/refused.out")" "authori" "$1 is refused at CONNECT"
}

refused "a devices:read agent with the node's id" "$NODE" claude "$READER"
refused "the same with the node id in capitals" "${NODE^^}" claude "$READER"
refused "an agent with the plugin waker's id" fleetmcp-plugin claude "$READER"
refused "an agent with an id not derived from its sub" "mosq-1234" claude "$READER"
connects "claude-reader-1" claude "$READER" || fail "claude-reader-1 refused: $(cat "$T/refused.out")"
pass "an id <sub>-… is accepted"
connects "" claude "$READER" mqttv5 || fail "an MQTT 5 client without an id refused: $(cat "$T/refused.out")"
pass "an MQTT 5 client without an id gets mosquitto's auto- id and is accepted"

# ops-a holds its own id; the agent ops may not take it over, although "ops-a" starts with "ops-".
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i ops-a -u ops-a -P "$OPS_A" -t "\$devices/$NODE/status" >/dev/null 2>&1 &
HOLDER=$!
track $HOLDER
wait_for_line "$T/audit.log" '"caller":"ops-a".*"decision":"accept"' 5 || fail "ops-a never connected"
refused "an agent taking another sub's connected id" ops-a ops "$OPS"
kill -0 "$HOLDER" || fail "ops-a lost its session"
pass "ops-a keeps its session"

# The node never lost its session: mosquitto logs every takeover it performs.
if grep -q "already connected, closing old connection" "$T/broker.log"; then
  fail "a session was taken over: $(grep 'already connected' "$T/broker.log")"
fi
assert_eq "$(grep -c "New client connected.* as $NODE" "$T/broker.log")" 1 "the node connected once and was never kicked"
