#!/usr/bin/env bash
# The plugin with the real device client: fleetmcp-device nodes enrolled by fleetctl announce
# through the plugin (docs/protocol.md §5 interop of two independent implementations of the signing
# procedure), go online, answer calls through the command path, and go offline when stopped.
. "$(dirname "$0")/lib.sh"
[ -x "$DEVICE" ] || fail "fleetmcp-device is not built at $DEVICE"

pki_init
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
mapfile -t NODES < <("$FLEETCTL" pki enroll --dir "$T/pki" --tenant acme --count 3 \
  --broker "mqtts://127.0.0.1:$PORT_TLS" 2>>"$T/pki-enroll.log")
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

"$DEVICE" --simulate 3 --bundle-dir "$T/pki" >"$T/device.log" 2>&1 &
DEVICE_PID=$!
track $DEVICE_PID
for n in "${NODES[@]}"; do
  wait_for_line "$T/audit.log" "\"node_id\":\"$n\",\"decision\":\"accept\"" 15 || fail "node $n's announce not accepted"
done
pass "three fleetmcp-device nodes' manifests are accepted by the plugin"
if grep -q '"decision":"refuse"' "$T/audit.log"; then fail "a device announce was refused: $(grep refuse "$T/audit.log")"; fi

nodes=$("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" --command nodes)
online=$(echo "$nodes" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).nodes.filter(n=>n.state=="online"&&n.tools.length>0).length))')
assert_eq "$online" "3" "all three are online with their tools"

a=$("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" \
  --tool "sysecho.${NODES[0]}.echo.invoke" --message "hello device")
assert_contains "$a" '"ok":true' "an echo call to a fleetmcp-device node succeeds"
assert_contains "$a" "\"message\":\"hello device\"" "... and returns the message"
a=$("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" \
  --tool "sys.${NODES[1]}.metrics.snapshot" --arguments '{"include":["cpu","mem"]}')
assert_contains "$a" '"ok":true' "a metrics snapshot call to a fleetmcp-device node succeeds"
assert_contains "$a" "\"node_id\":\"${NODES[1]}\"" "a metrics snapshot passes the output schema check"

kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
status=$(mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u claude -P "$AGENT" -t "\$devices/${NODES[2]}/status" -C 1 -W 2)
assert_contains "$status" '"state":"offline"' "a stopped device's status turns offline"
