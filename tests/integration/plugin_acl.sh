#!/usr/bin/env bash
# docs/protocol.md §3's ACL matrix on a real broker: every topic of a node × {owner node, other node, agent
# of the same tenant, agent of another tenant, anonymous} × {publish, subscribe, receive, Will}
# (tests/programs/plugin_acl_matrix.cc asserts each cell).
. "$(dirname "$0")/lib.sh"

pki_init
mapfile -t NODES < <(enroll_nodes acme 2)
OWNER=${NODES[0]}; OTHER=${NODES[1]}
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
STRANGER=$(agent_token eve other "devices:read tools:call:read_only")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
# Every refusal line, not one per kind and second (tests/integration/audit_throttle.sh tests that):
# each denied Will is asserted by its own audit line.
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_audit_refusal_interval_ms 0")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

"$PLUGIN_TOOLS/plugin_acl_matrix" $(broker_args) --owner "$OWNER" --other "$OTHER" \
  --agent-token "$AGENT" --stranger-token "$STRANGER" --audit "$T/audit.log" | tee "$T/matrix.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "ACL matrix: $(grep -c '^not ok' "$T/matrix.log") cells failed"
cells=$(grep -cE '^ok - (owner node|other node|agent same tenant|agent other tenant|anonymous) (publish|subscribe|receive|Will on)' "$T/matrix.log")
[ "$cells" -ge 120 ] || fail "only $cells matrix cells asserted"
pass "all $cells ACL matrix cells hold"
