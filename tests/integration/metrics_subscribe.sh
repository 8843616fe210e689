#!/usr/bin/env bash
# Issue 37, item 2: system_metrics_subscribe answers an agent's first try. mosquitto with the
# plugin and its HTTP front in the tools mode the shipped mosquitto.conf sets, one simulated node,
# and both official MCP SDK clients (v1 and v2) with their default request timeout
# (tests/node/metrics_subscribe_client.mjs): the call returns the lease at once and the samples
# arrive where it says, as notifications/message on the session's GET stream; then the v2 client
# pinned to 2026-07-28 subscribes to the node's metrics resource the call names through
# subscriptions/listen, gets samples as notifications/resources/updated, and, once the script
# stops the node, a last update carrying E_NODE_OFFLINE.
. "$(dirname "$0")/lib.sh"

mapfile -t E2E_BROKER_LINES < <(grep -E '^plugin_opt_http_tool(s_mode|_names) ' "$SRC/mosquitto.conf")
[ ${#E2E_BROKER_LINES[@]} -eq 2 ] || fail "mosquitto.conf sets no tools mode or tool names"
e2e_start 1
pass "1 node online, the front in the shipped tools mode and names (${E2E_BROKER_LINES[*]})"

MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN NODE=${E2E_NODES[0]} \
  timeout 150 node "$SRC/tests/node/metrics_subscribe_client.mjs" >"$T/client.log" 2>&1 &
client=$!
track $client
# The 2026-07-28 client asks for its node to stop once its samples arrived (the last update then
# says why they stopped).
asks_stop() { grep -q '^# stop the node' "$T/client.log" || ! kill -0 "$client" 2>/dev/null; }
wait_until 120 asks_stop || { cat "$T/client.log"; fail "the client never asked to stop the node"; }
kill "$DEVICE_PID" 2>/dev/null; wait "$DEVICE_PID" 2>/dev/null || true
rc=0
wait "$client" || rc=$?
cat "$T/client.log"
[ "$rc" -eq 0 ] || fail "MCP SDK clients (broker log: $T/broker.log)"

# The clients ended their sessions (DELETE): the subscriptions ended with them.
for _ in $(seq 50); do
  curl -s "$E2E_BASE/metrics" | grep -q 'fleetmcp_sse_streams{endpoint="mcp_call"} 0' && break
  sleep 0.1
done
curl -s "$E2E_BASE/metrics" | grep -q 'fleetmcp_sse_streams{endpoint="mcp_call"} 0' ||
  fail "metrics subscriptions still open after their sessions ended"
pass "the sessions' end closed their subscriptions"
