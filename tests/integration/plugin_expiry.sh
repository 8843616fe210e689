#!/usr/bin/env bash
# docs/protocol.md D7 on a real broker: a manifest with a short TTL expires; its status turns "expired",
# live subscribers receive the clearing (empty) announce, and new subscribers get no announce.
. "$(dirname "$0")/lib.sh"

pki_init
NODE=$(enroll_nodes acme 1)
AGENT=$(agent_token claude acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

sub() {  # sub NAME TOPIC: an agent subscriber printing "topic payload" lines into $T/NAME.out
  mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t "$2" -F '%t [%p]' >"$T/$1.out" 2>&1 &
  track $!
}
sub status "\$devices/$NODE/status"
sub announce "\$devices/$NODE/announce"
sleep 0.3
"$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$NODE" --ttl-ms 2500 >"$T/node.log" 2>&1 &
track $!
wait_for_line "$T/node.log" "^announced" 10 || fail "the node did not announce"
wait_for_line "$T/status.out" '"state":"online"' 5 || fail "status never said online"
pass "status online with the manifest"
wait_for_line "$T/announce.out" '"node_attestation"' 5 || fail "the live subscriber did not get the announce"
pass "the announce is delivered while fresh"

wait_for_line "$T/status.out" '"state":"expired"' 6 || fail "status never said expired: $(cat "$T/status.out")"
pass "status turns expired after the TTL"
wait_for_line "$T/announce.out" '/announce \[\]$' 3 || fail "no clearing announce reached the live subscriber"
pass "live subscribers receive the clearing empty announce"
if mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t "\$devices/$NODE/announce" \
     -C 1 -W 2 >"$T/late.out" 2>&1; then
  fail "a new subscriber still got an announce: $(cat "$T/late.out")"
fi
pass "a new subscriber gets no announce"
grep -q "\"node_id\":\"$NODE\",\"decision\":\"expire\"" "$T/audit.log" || fail "expiry not audit-logged"
pass "the expiry is audit-logged"
