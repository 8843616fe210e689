#!/usr/bin/env bash
# Broker plugin figures (docs/protocol.md §10), printed, never asserted:
#   - in-process: ACL READ cost per delivery, telemetry WRITE, verification with/without the cache
#   - through mosquitto: verified announces/s, known-etag re-announces/s, the $CONTROL command
#     round trip, and telemetry throughput with the plugin against the same broker without it,
#     in the same run (target ratio >= 0.85).
# Usage: FLEETMCP_BINARY_DIR=build bench/plugin_bench.sh
. "$(dirname "$0")/../tests/integration/lib.sh"

BENCH=$PLUGIN_TOOLS
echo "== in-process (bench/plugin_core.cc)"
"$BENCH/plugin_core" 1000000

pki_init
mapfile -t NODES < <(enroll_nodes acme 4)
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "max_queued_messages 200000")" plugin-broker
wait_for_line "$T/plugin-broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

# The same broker without the plugin: identical listeners, anonymous agents.
BASE_TLS=$(free_port); BASE_PLAIN=$(free_port)
tls_conf=$(tls_broker_conf "$BASE_TLS" "$BASE_PLAIN")
sed -i 's/^log_dest stdout/log_dest stderr/' "$tls_conf"
echo "max_queued_messages 200000" >>"$tls_conf"
start_mosquitto "$tls_conf" base-broker

with=(--pki "$T/pki" --tls-port "$PORT_TLS" --plain-port "$PORT_PLAIN")
without=(--pki "$T/pki" --tls-port "$BASE_TLS" --plain-port "$BASE_PLAIN")

echo "== through mosquitto 2.0.11 with fleetmcp_plugin.so"
"$BENCH/plugin_broker" announces "${with[@]}" --node "${NODES[0]}" --count 3000
"$BENCH/plugin_broker" reannounces "${with[@]}" --node "${NODES[1]}" --count 20000
"$PLUGIN_TOOLS/plugin_test_node" "${with[@]}" --node "${NODES[2]}" >"$T/echo-node.log" 2>&1 &
track $!
wait_for_line "$T/echo-node.log" "^announced" 10 || fail "echo node did not announce"
echo -n "command round trip (\$CONTROL driver -> plugin -> node -> plugin): "
"$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" \
  --tool "sysecho.${NODES[2]}.echo.invoke" --count 2000

echo "== telemetry throughput, same run, alternating (4 subscribers each)"
ratios=()
for round in 1 2 3 4 5; do
  w=$("$BENCH/plugin_broker" telemetry "${with[@]}" --node "${NODES[3]}" --token "$AGENT" --count 40000 --subscribers 4)
  b=$("$BENCH/plugin_broker" telemetry "${without[@]}" --node "${NODES[3]}" --token "$AGENT" --count 40000 --subscribers 4)
  echo "round $round with plugin:    $w"
  echo "round $round without plugin: $b"
  rw=$(echo "$w" | sed -E 's/.* ([0-9]+) delivered\/s.*/\1/'); rb=$(echo "$b" | sed -E 's/.* ([0-9]+) delivered\/s.*/\1/')
  ratios+=("$(awk -v a="$rw" -v b="$rb" 'BEGIN{printf "%.3f", a/b}')")
done
echo "telemetry ratio with/without plugin per round: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 3p)"
