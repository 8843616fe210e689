#!/usr/bin/env bash
# The command path end to end (docs/protocol.md §4) through the plugin's $CONTROL/fleetmcp/v1 test driver:
# a node answers; a silent node hits the gateway deadline; a node that drops mid-call fails at
# once; a result naming another node is refused; a late ack is dropped and audited; calls across
# tenants or without the scope never reach a node.
. "$(dirname "$0")/lib.sh"

pki_init
mapfile -t NODES < <(enroll_nodes acme 5)
ECHO=${NODES[0]}; SILENT=${NODES[1]}; VANISH=${NODES[2]}; WRONG=${NODES[3]}; LATE=${NODES[4]}
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
STRANGER=$(agent_token eve other "devices:read tools:call:read_only")
READER=$(agent_token reader acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

node_up() {  # node_up ID MODE [ARGS…]
  local id=$1 mode=$2; shift 2
  "$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$id" --mode "$mode" "$@" >"$T/node-$mode.log" 2>&1 &
  track $!
  wait_for_line "$T/node-$mode.log" "^announced" 10 || fail "node $mode did not announce"
}
node_up "$ECHO" echo
node_up "$SILENT" silent
node_up "$VANISH" vanish
node_up "$WRONG" wrong-node
node_up "$LATE" late --late-ms 5600

call() {  # call SUB TOKEN NODE [MESSAGE]: prints the driver's answer
  "$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub "$1" --token "$2" \
    --tool "sysecho.$3.echo.invoke" --message "${4:-hello}"
}
field() {  # field JSON PATH: a value of the answer, e.g. field "$a" error.code
  node -e 'const v=process.argv[2].split(".").reduce((o,k)=>o==null?o:o[k],JSON.parse(process.argv[1]));console.log(v)' "$1" "$2"
}

# The slow cases run in the background while the quick ones are checked.
(start=$SECONDS; a=$(call claude "$AGENT" "$SILENT"); echo "$((SECONDS - start)) $a" >"$T/silent.answer") &
slow=($!)
(call claude "$AGENT" "$LATE" >"$T/late.answer") &
slow+=($!)

a=$(call claude "$AGENT" "$ECHO" "hello fleet")
assert_eq "$(field "$a" ok)/$(field "$a" result.message)/$(field "$a" result.node_id)" "true/hello fleet/$ECHO" \
  "an echo call returns the node's result"

start=$SECONDS
a=$(call claude "$AGENT" "$VANISH")
assert_eq "$(field "$a" error.code)" "E_NODE_OFFLINE" "a node that drops mid-call fails the call"
[ $((SECONDS - start)) -le 2 ] || fail "the failure took $((SECONDS - start)) s, not at once"
pass "... at once, not at the deadline"
a=$(call claude "$AGENT" "$VANISH")
assert_eq "$(field "$a" error.code)" "E_NODE_OFFLINE" "a call to an offline node fails at once"

a=$(call claude "$AGENT" "$WRONG")
assert_eq "$(field "$a" error.code)" "E_ATTESTATION_FAILED" "a result naming another node is refused"
a=$(call eve "$STRANGER" "$ECHO")
assert_eq "$(field "$a" error.code)" "E_MANIFEST_NOT_FOUND" "another tenant's agent cannot see the node"
a=$(call reader "$READER" "$ECHO")
assert_eq "$(field "$a" error.code)" "E_SAFETY_DENIED" "a token without tools:call:read_only cannot call"

wait "${slow[@]}"
read -r took a <"$T/silent.answer"
assert_eq "$(field "$a" error.code)" "E_DEADLINE_EXCEEDED" "a silent node hits the gateway deadline"
[ "$took" -ge 4 ] && [ "$took" -le 7 ] || fail "the deadline fired after $took s, not ~5 s"
pass "... after the 5 s gateway deadline ($took s)"
assert_eq "$(field "$(cat "$T/late.answer")" error.code)" "E_DEADLINE_EXCEEDED" "a late node's call fails at the deadline"
wait_for_line "$T/audit.log" "\"node_id\":\"$LATE\",\"decision\":\"drop\",\"reason\":\"late cmd_ack" 3 \
  || fail "the late ack was not audit-logged"
pass "the late ack is dropped and audit-logged"
grep -q '"decision":"ok".*"latency_ms"' "$T/audit.log" || fail "calls are not audit-logged with latency"
if grep -q 'hello fleet' "$T/audit.log"; then fail "call arguments reached the audit log"; fi
pass "calls are audit-logged with latency, without arguments or results"

"$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" \
  --tool "sysecho.$ECHO.echo.invoke" --count 200 | tee "$T/latency.out"
pass "round trips: $(cat "$T/latency.out")"
