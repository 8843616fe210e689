#!/usr/bin/env bash
# docs/protocol.md §5 on a real broker: a node's announce is accepted; over thirty broken or hostile ones
# are refused, each explained on $devices/<id>/rejected with its code and etag, counted and
# audit-logged, while the retained announce agents see stays the last accepted one
# (tests/programs/plugin_announce_cases.cc).
. "$(dirname "$0")/lib.sh"

pki_init
mapfile -t NODES < <(enroll_nodes acme 3)
NODE=${NODES[0]}; OTHER=${NODES[1]}; REVOKED=${NODES[2]}
"$FLEETCTL" pki revoke --dir "$T/pki" "$REVOKED" >/dev/null
AGENT=$(agent_token claude acme "devices:read tools:call:read_only")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
# Every refusal line, not one per kind and second (tests/integration/audit_throttle.sh tests that):
# each refusal is asserted by its own audit line.
start_mosquitto "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_audit_refusal_interval_ms 0")" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"

"$PLUGIN_TOOLS/plugin_announce_cases" $(broker_args) --node "$NODE" --other "$OTHER" --revoked "$REVOKED" \
  --agent-token "$AGENT" | tee "$T/cases.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "announce cases: $(grep -c '^not ok' "$T/cases.log") failed"
refusals=$(grep -c '^ok - refused:' "$T/cases.log")
[ "$refusals" -ge 30 ] || fail "only $refusals refusals asserted"
pass "$refusals refusals, each with its expected code on the rejected topic"

# Counted and audit-logged, never with the payload.
counters=$("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub claude --token "$AGENT" --command counters)
refused=$(echo "$counters" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).counters.announces_refused))')
[ "$refused" -ge "$refusals" ] || fail "announces_refused counter is $refused"
pass "the refusals are counted ($refused)"
audited=$(grep -c '"decision":"refuse","code":"E_' "$T/audit.log")
[ "$audited" -ge "$refusals" ] || fail "only $audited refusals audit-logged"
pass "the refusals are audit-logged ($audited lines)"
if grep -q '"capabilities"' "$T/audit.log"; then fail "a manifest payload reached the audit log"; fi
pass "no payload in the audit log"
