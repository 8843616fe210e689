#!/usr/bin/env bash
# The whole chain as an agent meets it: mosquitto with fleetmcp_plugin.so and its HTTP front,
# fleetmcp-device nodes over mTLS, and the official MCP TypeScript SDK client
# (tests/node/e2e_mcp_client.mjs): list, paginate, call every node, snapshot, subscribe and
# cancel, every refusal, a killed device, and list_changed as nodes appear and expire.
. "$(dirname "$0")/lib.sh"

N=4
E2E_BROKER_LINES=("plugin_opt_http_page_size 4")
e2e_start "$N" --test-hooks
pass "$N simulated nodes verified and online behind the MCP endpoint"

# One node in its own process (the test kills it), and one whose manifest lives 4 s.
LONE=$(device_enroll 1 "$PORT_TLS")
device_start lone --config "$T/pki/nodes/$LONE/device.conf"
LONE_PID=$DEVICE_PID
e2e_wait_online $((N + 1)) 30
EXTRA=$(device_enroll 1 "$PORT_TLS")
sed -i "s/^manifest_ttl_s = .*/manifest_ttl_s = 4/" "$T/pki/nodes/$EXTRA/device.conf"

NODES="${E2E_NODES[*]}" LONE=$LONE LONE_PID=$LONE_PID \
  MCP_URL=$E2E_URL METRICS_URL=$E2E_BASE/metrics TOKEN=$E2E_TOKEN \
  TOKEN_DEVICES_ONLY=$(agent_token agent-devices acme "devices:read") \
  TOKEN_OTHER=$(agent_token agent-other other "$E2E_SCOPES") \
  EXTRA_CMD="exec '$DEVICE' --config '$T/pki/nodes/$EXTRA/device.conf' >'$T/extra.log' 2>&1" \
  EXTRA_PIDFILE=$T/extra.pid \
  node "$SRC/tests/node/e2e_mcp_client.mjs" || {
  kill -9 "$(cat "$T/extra.pid" 2>/dev/null)" 2>/dev/null || true
  fail "MCP SDK client (broker log: $T/broker.log)"
}
kill -9 "$(cat "$T/extra.pid" 2>/dev/null)" 2>/dev/null || true

# The MCP Inspector's CLI, a second independent client.
inspector() {
  HOME=$T "$SRC/tests/node/node_modules/.bin/mcp-inspector" --cli "$E2E_URL" --transport http \
    --header "Authorization: Bearer $E2E_TOKEN" "$@" 2>>"$T/inspector.log"
}
listed=$(inspector --method tools/list) || fail "inspector tools/list (see $T/inspector.log)"
assert_eq "$(jq '.tools | length' <<<"$listed")" $((3 * (N + 1))) \
  "MCP Inspector CLI: tools/list follows the cursors to every tool of the $((N + 1)) nodes"
node=${E2E_NODES[0]}
answer=$(inspector --method tools/call --tool-name "sysecho.$node.echo.invoke" --tool-arg message=inspected) ||
  fail "inspector tools/call (see $T/inspector.log)"
assert_eq "$(jq -r '.structuredContent.node_id + " " + .structuredContent.message' <<<"$answer")" "$node inspected" \
  "MCP Inspector CLI: tools/call echo answers from the device"

# One audit line per call, written by the front (via "mcp"), none duplicated by the core.
calls=$(grep -c '"via":"mcp"' "$T/audit.log" || true)
[ "$calls" -gt 20 ] || fail "audit: only $calls call lines from the front"
dups=$(grep '"tool":' "$T/audit.log" | grep -vc '"via"' || true)
assert_eq "$dups" 0 "every tool call is audited once, by the front"
grep -q '"decision":"expire"' "$T/audit.log" || fail "the expired manifest is audited"
pass "the expiry is audited"
