#!/usr/bin/env bash
# Issue 33 item 4: one devices:read token made 10,000 persistent sessions in 50 s (mosquitto keeps
# each, ~2 KB, for persistent_client_expiration, and writes it to mosquitto.db; the plugin forgot
# its claims past 128 per principal). Now a principal may leave at most
# plugin_opt_max_persistent_sessions_per_principal (default 32) clean-start-false sessions: past
# that a new one is refused at CONNECT (3.1.1 return code 5, MQTT 5 reason 0x87: BASIC_AUTH can
# answer nothing else, docs/platform-notes.md §M2) with an audit line; resuming its own sessions,
# clean sessions and other principals are not affected; the quota holds across a restart; the
# state file is not rewritten while nothing changes.
# Real clients: mosquitto_sub with -c (MQTT 3.1.1 clean session false, MQTT 5 clean start false).
. "$(dirname "$0")/lib.sh"

pki_init
READER=$(agent_token reader acme "devices:read")
OTHER=$(agent_token other acme "devices:read")
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)
mkdir -p "$T/data"
STATE=$T/data/fleetmcp-state.json
CONF=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "persistence true" "persistence_location $T/data/" \
  "persistent_client_expiration 1d" "plugin_opt_state_file $STATE")
run_broker "$CONF" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready"
CAP=32  # the default

# session USER TOKEN ID [mosquitto_sub args…]: connects, subscribes and leaves; its output (the
# refusal, if any) in $T/session.out.
session() {
  local user=$1 token=$2 id=$3; shift 3
  mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -u "$user" -P "$token" -i "$id" -q 1 -t "\$devices/+/status" -E "$@" \
    >"$T/session.out" 2>&1
}
refused_line() { jq -c "select(.caller == \"$1\" and .decision == \"refuse\" and .code == \"E_RATE_LIMITED\")" "$T/audit.log"; }

for i in $(seq 1 "$CAP"); do
  session reader "$READER" "reader-$i" -c || fail "persistent session $i of $CAP refused: $(cat "$T/session.out")"
done
pass "one token leaves $CAP persistent sessions"
if session reader "$READER" "reader-$((CAP + 1))" -c; then fail "persistent session $((CAP + 1)) accepted"; fi
assert_contains "$(cat "$T/session.out")" "not authorised" "the next persistent session (MQTT 3.1.1) is refused at CONNECT"
if session reader "$READER" "reader-v5" -c -V mqttv5 -x 3600; then fail "an MQTT 5 persistent session past the quota accepted"; fi
assert_contains "$(cat "$T/session.out")" "Not authorized" "an MQTT 5 one is refused with reason 0x87"
wait_for_line "$T/audit.log" '"caller":"reader".*"decision":"refuse".*"code":"E_RATE_LIMITED"' 3 \
  || fail "no audit line for the refusal"
assert_contains "$(refused_line reader | head -1)" "keeps $CAP persistent sessions (plugin_opt_max_persistent_sessions_per_principal)" \
  "the audit line names the quota"

session reader "$READER" "reader-1" -c || fail "resuming its own session refused: $(cat "$T/session.out")"
pass "the principal resumes its own sessions"
for i in 1 2 3; do
  session reader "$READER" "reader-clean-$i" || fail "clean session $i refused: $(cat "$T/session.out")"
  session reader "$READER" "reader-v5-clean-$i" -V mqttv5 || fail "MQTT 5 clean start $i refused: $(cat "$T/session.out")"
done
pass "sessions with a clean session or clean start are not counted"
session other "$OTHER" "other-1" -c || fail "another principal's persistent session refused: $(cat "$T/session.out")"
pass "another principal has its own quota"
session reader "$READER" "reader-2" || fail "reader-2 with a clean session refused: $(cat "$T/session.out")"
session reader "$READER" "reader-$((CAP + 1))" -c || fail "a persistent session after one was ended refused: $(cat "$T/session.out")"
pass "ending one (its id with a clean session) makes room for another"

# The state file holds the quota's claims, and is written only when they change: a connected
# persistent client and an idle broker leave it alone (the plugin used to rewrite every claim each 5 s).
mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -u reader -P "$READER" -i reader-3 -c -q 1 -t "\$devices/+/status" \
  >/dev/null 2>&1 &
track $!
wait_until 10 grep -q '"client_id":"reader-33"' "$STATE" || fail "the state file lacks the newest claim"
sleep 6  # the plugin saves at most every 5 s
written=$(stat -c %y "$STATE")
sleep 6
assert_eq "$(stat -c %y "$STATE")" "$written" "the state file is not rewritten while nothing changes"
assert_eq "$(jq '[.client_ids[] | select(.sub == "reader")] | length' "$STATE")" "$CAP" "the state file keeps the principal's $CAP claims"

# Across a restart mosquitto restores the sessions and the plugin their claims: the quota holds.
stop_broker
mv "$T/broker.log" "$T/broker-1.log"
run_broker "$CONF" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "plugin not ready after the restart"
if session reader "$READER" "reader-$((CAP + 2))" -c; then fail "a persistent session past the quota accepted after a restart"; fi
assert_contains "$(cat "$T/session.out")" "not authorised" "the quota holds across a restart"
session reader "$READER" "reader-4" -c || fail "resuming after the restart refused: $(cat "$T/session.out")"
pass "the principal resumes its sessions after the restart"
