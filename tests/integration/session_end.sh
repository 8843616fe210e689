#!/usr/bin/env bash
# What a caller gets when its MCP session ends under a call, and the stream quotas of MCP metrics
# streams (issue 24, items 4 and 5), with mosquitto, the plugin, fleetmcp-device nodes, the
# official MCP SDK client (tests/node/session_end_client.mjs) and curl:
#   - one token asks for more MCP metrics streams than its quota: the rest are refused (isError,
#     E_RATE_LIMITED), a second subject gets what is left of the tenant's quota, and another
#     tenant's initialize and /healthz work meanwhile (a small connection cap shows what the
#     streams would otherwise take; the tenant's connection share, item 5's other half, is
#     lifted to that cap so that what is hit is the stream quota);
#   - a call in flight and a metrics stream in a session that the token's 33rd initialize ends
#     are answered (isError, E_NODE_OFFLINE, "the MCP session ended"), not cut off;
#   - at SIGTERM of the broker: the same over MCP ("shutting down"), REST still 503, and an
#     RFC-0009 stream ends with close 1000, RFC-0009 section 7's code for a graceful shutdown.
# Before the fix: the 19th stream of one token found the connection cap full (503), the calls
# got an empty reply ("fetch failed: other side closed") and the metrics streams no response.
. "$(dirname "$0")/lib.sh"

N=3
PER_CALLER=4
PER_TENANT=6
pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
mapfile -t E2E_NODES < <(device_enroll "$N" "$PORT_TLS")
# The echo handler may hold a call 5 s (its test hook "sleep:<ms>"), so a 4.5 s call is in flight.
sed -i 's/deadline_ms_default=[0-9]*/deadline_ms_default=5000/' "$T"/pki/nodes/*/device.conf
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" \
  "plugin_opt_http_max_connections 20" \
  "plugin_opt_http_max_connections_per_tenant 20" \
  "plugin_opt_http_max_streams_per_caller $PER_CALLER" \
  "plugin_opt_http_max_streams_per_tenant $PER_TENANT")" broker
HTTP_PORT=$(broker_http_port broker)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
E2E_URL=$E2E_BASE/mcp
device_start fleet --simulate "$N" --bundle-dir "$T/pki" --test-hooks
e2e_wait_online "$N" 60
pass "$N simulated nodes online"
client() {  # client MODE [VAR=VALUE…]: session_end_client.mjs MODE with the common env
  local mode=$1; shift
  env MCP_URL="$E2E_URL" BASE="$E2E_BASE" NODES="${E2E_NODES[*]}" "$@" \
    node "$SRC/tests/node/session_end_client.mjs" "$mode"
}

echo "# MCP metrics streams count in the stream quotas (item 5)"
client quota TOKEN_A="$(agent_token streamer acme "tools:call:read_only")" \
  TOKEN_A2="$(agent_token streamer-2 acme "tools:call:read_only")" \
  TOKEN_OTHER="$(agent_token other-tenant beta "$E2E_SCOPES")" \
  PER_CALLER=$PER_CALLER PER_TENANT=$PER_TENANT ATTEMPTS=24 || fail "stream quotas (broker log: $T/broker.log)"
grep '"via":"mcp"' "$T/audit.log" | grep '"decision":"refuse"' | grep -q '"code":"E_RATE_LIMITED"' ||
  fail "no refused MCP metrics stream in the audit log"
pass "the refused streams are audited"

echo "# a session ended by its token's 33rd initialize answers its call and its stream (item 4)"
client evict TOKEN="$(agent_token evictee acme "$E2E_SCOPES")" SESSIONS=32 || fail "eviction (broker log: $T/broker.log)"

echo "# broker SIGTERM with calls and streams in flight (item 4)"
NODE=${E2E_NODES[2]}
curl -s -N -m 30 -X POST "$E2E_BASE/mcp/tools/call" -H "Content-Type: application/json" -H "Accept: text/event-stream" \
  -H "Authorization: Bearer $(agent_token rfc0009 acme "tools:call:read_only")" \
  -d "{\"tool\":\"sys.$NODE.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}" >"$T/rfc0009.sse" &
SSE_PID=$!
track "$SSE_PID"
client shutdown TOKEN="$(agent_token shutdown acme "$E2E_SCOPES")" READY="$T/ready" >"$T/shutdown-client.log" 2>&1 &
CLIENT_PID=$!
track "$CLIENT_PID"
wait_for_line "$T/ready" ready 20 || { cat "$T/shutdown-client.log"; fail "the MCP client never got its call and stream going"; }
wait_for_line "$T/rfc0009.sse" '^event: metric' 15 || fail "the RFC-0009 stream: no metric frame"
REST_TOKEN=$(agent_token rest acme "tools:call:read_only")
TOOLS_CALL_TOKEN=$REST_TOKEN echo_call "${E2E_NODES[0]}" sleep:4500 -m 30 >"$T/rest.answer" &
REST_PID=$!
track "$REST_PID"
sleep 0.5  # the REST call reaches the device
stop_broker
client_rc=0
wait "$CLIENT_PID" || client_rc=$?
cat "$T/shutdown-client.log"
[ "$client_rc" = 0 ] || fail "the MCP client at SIGTERM (broker log: $T/broker.log)"
wait "$REST_PID" || true
refused "$(cat "$T/rest.answer")" 503 E_NODE_OFFLINE "REST: the call in flight is still answered 503 E_NODE_OFFLINE"
wait "$SSE_PID" || true
last=$(grep -A1 '^event: close' "$T/rfc0009.sse" | sed -n 's/^data: //p' | tail -n 1)
assert_eq "$last" '{"code":1000,"reason":"normal"}' "RFC-0009: the stream ends with close 1000 (RFC-0009 section 7: graceful shutdown)"
assert_eq "$(tail -n 3 "$T/rfc0009.sse" | grep -c '^event: close')" 1 "... as its last event"
