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

# Every call wakes the broker at once (the loopback waker's publish, written by the HTTP thread
# that submits the call; a call finding others queued rides on their wake). Without a wake a call
# waits for the broker's next idle tick (every 100 ms), so the median would be ~50 ms; with it, a
# few ms even on a loaded machine. Sequential calls on one connection, then 8 at once (coalesced).
echo_urls() {  # N: N RFC-0009 echo calls, round robin over the nodes, as curl arguments
  local i node
  for ((i = 0; i < $1; i++)); do
    node=${E2E_NODES[$((i % N))]}
    printf '%s\0' --next -s -o "$T/woken.$2.$i" -w '%{http_code} %{time_starttransfer}\n' -X POST "$E2E_BASE/mcp/tools/call" \
      -H "Authorization: Bearer $E2E_TOKEN" -H "Content-Type: application/json" \
      -d "{\"tool\":\"sysecho.$node.echo.invoke\",\"arguments\":{\"message\":\"woken $i\"}}"
  done
}
# curl -Z reports the same time_total for every transfer of a batch, so time to the first byte.
median_ms() { awk '{ print $2 * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { print int(v[int((NR + 1) / 2)]) }'; }
sleep 1  # the SDK client's calls used up part of each node's rate bucket
mapfile -d '' args < <(echo_urls 24 seq)
times=$(curl "${args[@]}") || fail "sequential calls"
assert_eq "$(grep -c '^200 ' <<<"$times")" 24 "24 sequential calls answered 200"
ms=$(median_ms <<<"$times")
[ "$ms" -lt 25 ] || fail "sequential calls: median $ms ms, as if they waited for the broker's idle tick"
pass "sequential calls are answered without waiting for the broker's tick (median $ms ms)"
sleep 1
mapfile -d '' args < <(echo_urls 8 par)
times=$(curl -Z --parallel-max 8 "${args[@]}") || fail "parallel calls"
assert_eq "$(grep -c '^200 ' <<<"$times")" 8 "8 calls at once answered 200"
assert_eq "$(cat "$T"/woken.par.* | jq -r '.result.message // .message' | sort | tr '\n' ' ')" \
  "woken 0 woken 1 woken 2 woken 3 woken 4 woken 5 woken 6 woken 7 " "each of the 8 got its own echo"
ms=$(median_ms <<<"$times")
[ "$ms" -lt 25 ] || fail "calls at once: median $ms ms, as if they waited for the broker's idle tick: $(tr "\n" " " <<<"$times")"
pass "calls submitted together are all answered promptly (median $ms ms)"
