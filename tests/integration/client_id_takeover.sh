#!/usr/bin/env bash
# Issue 17 item 1: a client id is a claim on a session (mosquitto disconnects whoever holds it when
# another client connects with it). An agent token, whatever its scopes, may connect only with a
# client id derived from its sub (docs/threat-model.md): never a node's, the waker's or another
# principal's. The node connected here must not flap when someone tries.
# Issue 24 item 2: a principal is (kind, tenant, sub), so the agent "agent" of another tenant is
# another principal; a session mosquitto keeps after its client left stays its owner's, also across
# a broker restart; an explicit "auto-…" id gets no pass.
. "$(dirname "$0")/lib.sh"

pki_init
NODE=$(enroll_nodes acme 1)
READER=$(agent_token claude acme "devices:read")
OPS=$(agent_token ops acme "devices:read")
OPS_A=$(agent_token ops-a acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
mkdir -p "$T/data"
CONF=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "persistence true" "persistence_location $T/data/" \
  "persistent_client_expiration 1d" "plugin_opt_state_file $T/data/fleetmcp-state.json" \
  "plugin_opt_audit_refusal_interval_ms 0")  # every refusal line: this test reads their reasons
run_broker "$CONF" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"
"$PLUGIN_TOOLS/plugin_test_node" $(broker_args) --node "$NODE" >"$T/node.log" 2>&1 &
track $!
wait_for_line "$T/node.log" "^announced" 10 || fail "the node did not announce"

# connects ID USER TOKEN [MQTT_VERSION]: the agent could CONNECT with that client id (it reads the
# node's retained status), else prints mosquitto_sub's refusal to $T/refused.out.
connects() {
  mosquitto_sub -V "${4:-mqttv311}" -h 127.0.0.1 -p "$PORT_PLAIN" ${1:+-i "$1"} -u "$2" -P "$3" \
    -t "\$devices/$NODE/status" -C 1 -W 3 >"$T/refused.out" 2>&1
}
connect_refused() {  # connect_refused LABEL ID USER TOKEN
  if connects "$2" "$3" "$4"; then fail "$1: accepted ($(cat "$T/refused.out"))"; fi
  assert_contains "$(cat "$T/refused.out")" "authori" "$1 is refused at CONNECT"
}

connect_refused "a devices:read agent with the node's id" "$NODE" claude "$READER"
connect_refused "the same with the node id in capitals" "${NODE^^}" claude "$READER"
connect_refused "an agent with the plugin waker's id" fleetmcp-plugin claude "$READER"
connect_refused "an agent with an id not derived from its sub" "mosq-1234" claude "$READER"
connects "claude-reader-1" claude "$READER" || fail "claude-reader-1 refused: $(cat "$T/refused.out")"
pass "an id <sub>-… is accepted"
connects "" claude "$READER" mqttv5 || fail "an MQTT 5 client without an id refused: $(cat "$T/refused.out")"
pass "an MQTT 5 client without an id gets mosquitto's auto- id and is accepted"

# ops-a holds its own id; the agent ops may not take it over, although "ops-a" starts with "ops-".
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i ops-a -u ops-a -P "$OPS_A" -t "\$devices/$NODE/status" >/dev/null 2>&1 &
HOLDER=$!
track $HOLDER
wait_for_line "$T/audit.log" '"caller":"ops-a".*"decision":"accept"' 5 || fail "ops-a never connected"
connect_refused "an agent taking another sub's connected id" ops-a ops "$OPS"
kill -0 "$HOLDER" || fail "ops-a lost its session"
pass "ops-a keeps its session"

# ---- issue 24: the same sub in two tenants ----------------------------------------------------
# Tokens issued with the same --sub in two tenants (fleetctl's old default sub was "agent" for all).
ACME=$(agent_token agent acme "devices:read")
BETA=$(agent_token agent beta "devices:read")
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i agent -u agent -P "$ACME" -t "\$devices/$NODE/status" >/dev/null 2>&1 &
ACME_HOLDER=$!
track $ACME_HOLDER
wait_for_line "$T/audit.log" '"caller":"agent","tenant":"acme".*"decision":"accept"' 5 || fail "acme's agent never connected"
for attempt in 1 2 3; do
  connect_refused "tenant beta's agent taking tenant acme's agent's id (attempt $attempt)" agent agent "$BETA"
done
kill -0 "$ACME_HOLDER" || fail "acme's agent lost its session to beta's"
pass "acme's agent keeps its session"
grep -q '"caller":"agent".*"decision":"refuse".*held by a connected client of another principal (agent agent of tenant acme)' \
  "$T/audit.log" || fail "the audit log does not say whose id it is"
pass "the refusal names the holder in the audit log"
acme_sub=$("$FLEETCTL" token issue --dir "$T/pki" --tenant acme --scope devices:read --json | jq -r .sub)
beta_sub=$("$FLEETCTL" token issue --dir "$T/pki" --tenant beta --scope devices:read --json | jq -r .sub)
[ "$acme_sub" != "$beta_sub" ] || fail "fleetctl gives two tenants the same default sub ($acme_sub)"
assert_eq "$acme_sub $beta_sub" "acme.agent beta.agent" "fleetctl's default sub names the tenant"

# ---- a persistent session its client left ----------------------------------------------------
# acme's agent leaves a clean-session-false session behind; beta's "agent" may not pick it up (it
# would get its subscriptions and queued messages), acme's agent may.
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i agent-durable -c -q 1 -u agent -P "$ACME" -t "\$devices/+/status" \
  -C 1 -W 5 >/dev/null 2>"$T/durable.log" || fail "acme's durable session: $(cat "$T/durable.log")"
connect_refused "tenant beta's agent taking the session acme's agent left" agent-durable agent "$BETA"
grep -q '"caller":"agent".*belongs to a session another principal (agent agent of tenant acme) left' "$T/audit.log" \
  || fail "no audit line for the ended session's refusal"
pass "the refusal says the session is another principal's"
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i agent-durable -c -q 1 -u agent -P "$ACME" -t "\$devices/+/status" \
  -C 1 -W 5 >/dev/null 2>"$T/durable.log" || fail "acme's agent could not resume its session: $(cat "$T/durable.log")"
pass "acme's agent resumes its own session"

# ---- explicit auto- ids ----------------------------------------------------------------------
# An MQTT 5 client without an id gets mosquitto's auto-<UUID>, and with a session expiry its
# session outlives it. Another principal sending that id explicitly is refused, while it is
# connected and after it left.
mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -x 3600 -u agent -P "$ACME" -t "\$devices/$NODE/status" \
  >/dev/null 2>&1 &
AUTO_HOLDER=$!
track $AUTO_HOLDER
wait_for_line "$T/broker.log" "New client connected from .* as auto-[0-9A-F-]{36} .*u'agent'" 5 || fail "no auto- id assigned"
AUTO_ID=$(grep -oE "as auto-[0-9A-F-]{36} .*u'agent'" "$T/broker.log" | tail -1 | awk '{print $2}')
connects_v5() { connects "$1" "$2" "$3" mqttv5; }
if connects_v5 "$AUTO_ID" agent "$BETA"; then fail "beta's agent took acme's assigned id $AUTO_ID while connected"; fi
assert_contains "$(cat "$T/refused.out")" "authori" "beta's agent sending acme's assigned id (connected) is refused"
kill -0 "$AUTO_HOLDER" || fail "acme's agent lost its auto- session"
kill "$AUTO_HOLDER"; wait "$AUTO_HOLDER" 2>/dev/null || true
if connects_v5 "$AUTO_ID" agent "$BETA"; then fail "beta's agent took the session acme's auto- client left"; fi
assert_contains "$(cat "$T/refused.out")" "authori" "beta's agent sending acme's assigned id (session left) is refused"
connect_refused "an explicit auto- id in lowercase (mosquitto makes uppercase)" auto-0000000a-0000-0000-0000-00000000000b agent "$BETA"
if mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i auto-00000000-0000-0000-0000-000000000000 -c -u agent -P "$BETA" \
    -t "\$devices/$NODE/status" -C 1 -W 3 >"$T/refused.out" 2>&1; then
  fail "an MQTT 3.1.1 clean-session-false client with an auto- id was accepted"
fi
assert_contains "$(cat "$T/refused.out")" "authori" "an auto- id mosquitto could not have assigned (3.1.1, clean session false) is refused"

# ---- across a broker restart -----------------------------------------------------------------
# mosquitto restores agent-durable from its persistence file; the plugin its owner from its state file.
kill "$ACME_HOLDER" "$HOLDER"; wait "$ACME_HOLDER" "$HOLDER" 2>/dev/null || true
stop_broker
grep -q '"client_id":"agent-durable"' "$T/data/fleetmcp-state.json" || fail "the state file does not remember agent-durable"
mv "$T/broker.log" "$T/broker-1.log"
run_broker "$CONF" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready after the restart"
connect_refused "tenant beta's agent taking the restored session of acme's agent" agent-durable agent "$BETA"
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i agent-durable -c -q 1 -u agent -P "$ACME" -t "\$devices/+/status" \
  -C 1 -W 5 >/dev/null 2>"$T/durable.log" || fail "acme's agent could not resume after the restart: $(cat "$T/durable.log")"
pass "acme's agent resumes its session after the restart"
cat "$T/broker-1.log" "$T/broker.log" >"$T/broker-all.log"

# The node never lost its session: mosquitto logs every takeover it performs.
if grep -q "already connected, closing old connection" "$T/broker-all.log"; then
  fail "a session was taken over: $(grep 'already connected' "$T/broker-all.log")"
fi
assert_eq "$(grep -c "New client connected.* as $NODE" "$T/broker-1.log")" 1 "the node connected once and was never kicked"
