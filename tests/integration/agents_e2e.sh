#!/usr/bin/env bash
# Agents at fleet scale (issue 14) end to end: mosquitto with the plugin and its HTTP front in the
# by_kind tools mode, `fleetmcp-device --simulate 3 --catalogue` (the Doc 05 kinds), one acme
# node in its own process (killed to go offline), one node of tenant "other", and clients: the
# official MCP SDK (tests/node/agents_client.mjs: by_kind list and calls, fleet_read, two-phase
# GPIO, list_changed, tenant isolation), mcp-remote (the Claude Desktop stdio path) and the MCP
# Inspector CLI's --strict schema-portability check in every tools mode.
. "$(dirname "$0")/lib.sh"

N=3
E2E_BROKER_LINES=("plugin_opt_http_tools_mode by_kind")
e2e_start "$N" --catalogue
LONE=$(device_enroll 1 "$PORT_TLS")
mkdir -p "$T/lone" && ln -s "$T/pki/nodes/$LONE" "$T/lone/$LONE"  # --catalogue needs --simulate
device_start lone --simulate 1 --bundle-dir "$T/lone" --catalogue
LONE_PID=$DEVICE_PID
OTHER=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant other --count 1 --broker "mqtts://127.0.0.1:$PORT_TLS" 2>>"$T/enroll.log") ||
  fail "enrolling a node of tenant other"
device_start other --config "$T/pki/nodes/$OTHER/device.conf"
e2e_wait_online $((N + 2)) 30
LATE=$(device_enroll 1 "$PORT_TLS")
pass "$((N + 2)) nodes online (one of tenant other)"

NODES="${E2E_NODES[*]}" LONE=$LONE LONE_PID=$LONE_PID OTHER=$OTHER \
  MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN TOKEN_OTHER=$(agent_token agent-other other "$E2E_SCOPES") \
  LATE_CMD="exec '$DEVICE' --config '$T/pki/nodes/$LATE/device.conf' >'$T/late.log' 2>&1" LATE_PIDFILE=$T/late.pid \
  timeout 120 node "$SRC/tests/node/agents_client.mjs" || {
  kill -9 "$(cat "$T/late.pid" 2>/dev/null)" 2>/dev/null || true
  fail "MCP SDK client (broker log: $T/broker.log)"
}
kill -9 "$(cat "$T/late.pid" 2>/dev/null)" 2>/dev/null || true

# The MCP Inspector CLI: --strict reports schema-portability findings (JSON: schemaFindings).
inspector() {
  HOME=$T timeout 60 "$SRC/tests/node/node_modules/.bin/mcp-inspector" --cli "$E2E_URL" --transport http \
    --header "Authorization: Bearer $E2E_TOKEN" "$@" 2>>"$T/inspector.log"
}
listed=$(inspector --method tools/list --strict --format json) || fail "inspector --strict (see $T/inspector.log)"
assert_eq "$(jq '.schemaFindings // [] | length' <<<"$listed")" 0 "MCP Inspector --strict: 0 schema-portability findings (by_kind)"
assert_eq "$(grep -c 'Schema portability' "$T/inspector.log" || true)" 0 "MCP Inspector reports no portability summary"

# mcp-remote: the stdio bridge Claude Desktop runs, driven by the SDK's stdio client.
MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN NODE=${E2E_NODES[0]} HOME=$T \
  timeout 60 node "$SRC/tests/node/agents_remote_client.mjs" 2>"$T/mcp-remote.log" || fail "mcp-remote (see $T/mcp-remote.log)"
