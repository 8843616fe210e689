#!/usr/bin/env bash
# Agents at fleet scale (issue 14) end to end: mosquitto with the plugin and its HTTP front in the
# tools mode the shipped mosquitto.conf sets (by_kind, docs/protocol.md D26), `fleetmcp-device --simulate 3 --catalogue` (the Doc 05 kinds), one acme
# node in its own process (killed to go offline), one node of tenant "other", and clients: the
# official MCP SDK (tests/node/agents_client.mjs: by_kind list and calls, fleet_read, two-phase
# GPIO, list_changed, tenant isolation), mcp-remote (the Claude Desktop stdio path) and the MCP
# Inspector CLI's --strict schema-portability check in every tools mode.
. "$(dirname "$0")/lib.sh"

N=3
# The shipped configuration's line, so the conformance rows this test stands for (docs/conformance.md:
# projected names, x-safety-class, result wrapping) are checked on what users run.
shipped=$(grep '^plugin_opt_http_tools_mode ' "$SRC/mosquitto.conf") || fail "mosquitto.conf sets no tools mode"
assert_eq "$shipped" "plugin_opt_http_tools_mode by_kind" "the shipped mosquitto.conf serves the by_kind tools mode"
E2E_BROKER_LINES=("$shipped")
e2e_start "$N" --catalogue
LONE=$(device_enroll 1 "$PORT_TLS")
mkdir -p "$T/lone" && ln -s "$T/pki/nodes/$LONE" "$T/lone/$LONE"  # --catalogue needs --simulate
# What its manifest tells people (manifest@1.4.0): fleet_find_nodes serves and filters by it.
printf 'hostname = pi-lone\nlabels = site=lab,lone\n' >>"$T/pki/nodes/$LONE/device.conf"
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
  TOKEN_READ=$(agent_token agent-reader acme "devices:read tools:call:read_only") \
  LATE_CMD="exec '$DEVICE' --config '$T/pki/nodes/$LATE/device.conf' >'$T/late.log' 2>&1" LATE_PIDFILE=$T/late.pid \
  timeout 120 node "$SRC/tests/node/agents_client.mjs" || {
  kill -9 "$(cat "$T/late.pid" 2>/dev/null)" 2>/dev/null || true
  fail "MCP SDK client (broker log: $T/broker.log)"
}
kill -9 "$(cat "$T/late.pid" 2>/dev/null)" 2>/dev/null || true

# Audit lines say which path confirmed each physical actuation.
for how in commit_token elicitation:accept elicitation:decline elicitation:cancel; do
  grep -q "\"reason\":\"$how\"" "$T/audit.log" || fail "no audit line with reason $how"
  pass "audit: a confirmation line with reason $how"
done

# RFC-0009's endpoint takes the names the default mode serves (docs/protocol.md D44,
# tools.call.request@1.1.0): a by_kind tool and fleet_read, answered by the real devices.
rfc0009() {
  curl -s -o "$T/rfc0009.json" -w '%{http_code}' -X POST "$E2E_BASE/mcp/tools/call" -H "Authorization: Bearer $E2E_TOKEN" \
    -H "Content-Type: application/json" -d "$1"
}
node0=${E2E_NODES[0]}
assert_eq "$(rfc0009 "{\"tool\":\"system_echo_ping\",\"arguments\":{\"node_id\":\"$node0\",\"arguments\":{\"message\":\"by kind\"}}}")" 200 \
  "RFC-0009: system_echo_ping (a by_kind name) answers 200"
assert_eq "$(jq -r '.message + " " + .node_id' "$T/rfc0009.json")" "by kind $node0" "RFC-0009: the by_kind call reached $node0"
assert_eq "$(rfc0009 '{"tool":"fleet_read","arguments":{"kind":"system.health"}}')" 200 "RFC-0009: fleet_read answers 200"
assert_eq "$(jq '[.results[] | select(.ok)] | length >= 3' "$T/rfc0009.json")" true "RFC-0009: fleet_read has every online node's health"
assert_eq "$(rfc0009 "{\"tool\":\"system_echo_ping\",\"arguments\":{\"node_id\":\"$node0\",\"arguments\":{}}}")" 400 \
  "RFC-0009: bad by_kind arguments are 400"
assert_eq "$(jq -r .code "$T/rfc0009.json")" E_MANIFEST_INVALID "RFC-0009 keeps E_MANIFEST_INVALID for bad arguments (D41)"

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

# Every mode over the real front with the in-memory fleet (fleetmcp-http-testhost): Inspector
# --strict finds nothing, the echo tool answers under the mode's own name, and the other tenant's node is absent from tools/list and from fleet_find_nodes.
"$HTTP_TESTHOST" --write-test-schemas "$SRC/schemas" "$T/schemas" >/dev/null || fail "writing the test schemas"
A=01hzx9k3m4p7q8r9s0t1v2w3xy B=01hzx9k3m4p7q8r9s0t1v2w3xz
cat >"$T/fleet.json" <<JSON
{"nodes":[
 {"tenant":"acme","node_id":"$A","capabilities":[
   {"cap_id":"echo","kind":"system.echo","verbs":["invoke"]},
   {"cap_id":"gpio17","kind":"gpio.pin","verbs":["get","set","invoke"],"safety_class":"physical_actuation"},
   {"cap_id":"mgmt","kind":"manage.server","verbs":["get","invoke"],"safety_class":"reversible"}]},
 {"tenant":"other","node_id":"$B","capabilities":[{"cap_id":"echo","kind":"system.echo","verbs":["invoke"]}]}]}
JSON
for mode in per_node compact by_kind; do
  start_http_testhost "host-$mode" "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" --set "http_tools_mode=$mode"
  url=http://127.0.0.1:$HTTP_PORT/mcp
  hinspect() {
    HOME=$T timeout 60 "$SRC/tests/node/node_modules/.bin/mcp-inspector" --cli "$url" --transport http \
      --header "Authorization: Bearer $E2E_TOKEN" "$@" 2>>"$T/inspector-$mode.log"
  }
  listed=$(hinspect --method tools/list --strict --format json) || fail "$mode: inspector --strict (see $T/inspector-$mode.log)"
  assert_eq "$(jq '.schemaFindings // [] | length' <<<"$listed")" 0 "$mode: MCP Inspector --strict finds 0 portability issues"
  [[ "$listed" != *"$B"* ]] || fail "$mode: the other tenant's node is in tools/list"
  pass "$mode: the other tenant's node is not in tools/list"
  case $mode in
    per_node) name=sysecho.$A.echo.invoke; args=(--tool-arg message=hi) ;;
    compact) name=fleet_call; args=(--tool-arg node_id=$A cap_id=echo verb=invoke 'arguments={"message":"hi"}') ;;
    by_kind) name=system_echo_ping; args=(--tool-arg node_id=$A 'arguments={"message":"hi"}') ;;
  esac
  # (The Inspector calls only listed names; the SDK client above calls the RFC-0001 names in by_kind.)
  answer=$(hinspect --method tools/call --tool-name "$name" "${args[@]}") || fail "$mode: tools/call $name (see $T/inspector-$mode.log)"
  assert_eq "$(jq -r '.structuredContent.message // (.content[0].text | fromjson | .message)' <<<"$answer")" hi "$mode: tools/call $name answers"
  if [ "$mode" != per_node ]; then
    found=$(hinspect --method tools/call --tool-name fleet_find_nodes) || fail "$mode: fleet_find_nodes"
    [[ "$found" == *"$A"* && "$found" != *"$B"* ]] || fail "$mode: fleet_find_nodes shows other tenants: $found"
    pass "$mode: fleet_find_nodes lists only the tenant's node"
  fi
done
