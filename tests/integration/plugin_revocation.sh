#!/usr/bin/env bash
# Revocation while connected (docs/protocol.md §2): after `fleetctl pki revoke` and SIGHUP the node is
# kicked, its announce cleared for subscribers, its status says revoked, its tools are gone, and
# it cannot come back. A revoked agent token is disconnected the same way.
. "$(dirname "$0")/lib.sh"

pki_init
NODE=$(enroll_nodes acme 1)
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
VICTIM_JSON=$("$FLEETCTL" token issue --dir "$T/pki" --sub mallory --tenant acme --scope devices:read --json)
VICTIM=$(echo "$VICTIM_JSON" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token))')
VICTIM_JTI=$(echo "$VICTIM_JSON" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).jti))')
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

"$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$NODE" >"$T/node.log" 2>&1 &
NODE_PID=$!
track $NODE_PID
wait_for_line "$T/node.log" "^announced" 10 || fail "the node did not announce"
agent_sub() {  # agent_sub NAME USER TOKEN TOPIC
  mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u "$2" -P "$3" -t "$4" -F '%t [%p]' >"$T/$1.out" 2>&1 &
  track $!
  eval "${1}_PID=$!"
}
agent_sub status claude "$AGENT" "\$devices/$NODE/status"
agent_sub announce claude "$AGENT" "\$devices/$NODE/announce"
agent_sub victim mallory "$VICTIM" "\$devices/+/status"
wait_for_line "$T/announce.out" '"node_attestation"' 5 || fail "no announce before the revocation"
tools() {
  "$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" --command nodes |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const n=JSON.parse(s).nodes[0];console.log(n.state+" "+n.tools.length)})'
}
assert_eq "$(tools)" "online 3" "the node's three tools are listed before the revocation"

"$FLEETCTL" pki revoke --dir "$T/pki" "$NODE" "$VICTIM_JTI" >/dev/null
kill -HUP "$BROKER_PID"
wait_for_line "$T/broker.log" "fleetmcp: reloaded, 2 revocations" 5 || fail "no reload logged"
pass "SIGHUP reloads the revocation list"

wait_until 3 bash -c "! kill -0 $NODE_PID" || fail "the revoked node is still connected"
pass "the revoked node is kicked"
wait_for_line "$T/status.out" '"state":"revoked"' 3 || fail "status never said revoked: $(cat "$T/status.out")"
pass "its status says revoked"
wait_for_line "$T/announce.out" '/announce \[\]$' 3 || fail "no clearing announce: $(cat "$T/announce.out")"
pass "subscribers see its announce cleared"
if mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t "\$devices/$NODE/announce" -C 1 -W 2 \
     >/dev/null 2>&1; then
  fail "a new subscriber still gets the revoked node's announce"
fi
pass "new subscribers get no announce"
assert_eq "$(tools)" "revoked 0" "its tools are gone"
if "$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$NODE" --run-ms 500 >"$T/again.log" 2>&1; then
  fail "the revoked node could announce again"
fi
assert_contains "$(cat "$T/again.log")" "announce refused" "the revoked node cannot announce again"

wait_until 3 bash -c "! kill -0 $victim_PID" || fail "the revoked agent is still connected"
pass "an agent whose token was revoked is disconnected"
if mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u mallory -P "$VICTIM" -t '$devices/+/status' -C 1 -W 1 \
     >"$T/victim-again.out" 2>&1; then
  fail "the revoked token still logs in"
fi
assert_contains "$(cat "$T/victim-again.out")" "Not authorized" "the revoked token is refused at CONNECT"

# Issue 17: the list fails closed. A revocation file that goes missing (deleted, a volume not
# mounted) keeps the revocations the plugin holds; a broker cannot start without it.
mv "$T/pki/revoked.txt" "$T/revoked.moved"
kill -HUP "$BROKER_PID"
wait_for_line "$T/broker.log" "revocation list not reloaded, keeping the previous one: .*revoked.txt does not exist" 5 \
  || fail "no refusal to reload logged: $(tail -3 "$T/broker.log")"
if mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u mallory -P "$VICTIM" -t '$devices/+/status' -C 1 -W 1 \
     >"$T/victim-missing.out" 2>&1; then
  fail "the revoked token logs in once the revocation file is gone"
fi
assert_contains "$(cat "$T/victim-missing.out")" "Not authorized" "with the file gone, the revoked token is still refused"
stop_broker
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")
if timeout 10 mosquitto -c "$conf" >"$T/no-list.log" 2>&1; then fail "mosquitto ran without its revocation list"; fi
assert_contains "$(cat "$T/no-list.log")" "revoked.txt does not exist" "a broker whose revocation file is missing does not start"
