#!/usr/bin/env bash
# Confirmed physical actuation under abuse (issue 33, items 2 and 5), with mosquitto, the plugin,
# `fleetmcp-device --simulate 2 --catalogue` and the official MCP SDK client
# (tests/node/confirmation_abuse_client.mjs):
#   - a tools/call waiting for the user's confirmation (elicitation) when its session ends, by
#     DELETE or by the caller's 33rd initialize, is answered at once (isError, E_NODE_OFFLINE, "the
#     MCP session ended", nothing sent to the device), not after the 120 s elicitation timeout;
#   - a read-only token flooding a GPIO pin's `get` does not make another caller's confirmed `set`
#     fail, by commit token or by elicitation; a call the limiter would refuse is refused
#     (E_RATE_LIMITED) before anyone is asked to confirm it.
# Before the fixes: the waiting calls hung until the client's own timeout, and the flood made the
# confirmed sets fail with E_RATE_LIMITED (19 of 20 on the live fleet); the human was asked, and
# the accept then failed with E_RATE_LIMITED.
. "$(dirname "$0")/lib.sh"

N=2
RATE=2  # gpio17's rate_limit_rps: a slow bucket makes the flood's effect and the refill clear
# Two slots, so that reads leave one to the sets (call_limiter.h). With the default of one, a set
# can still meet a read in flight for its round trip: about 1 set in 20 did under this flood
# (docs/http-front.md "Rate limits").
MAX_CONCURRENCY=2
pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
mapfile -t E2E_NODES < <(device_enroll "$N" "$PORT_TLS")
# The node's own gpio17 line takes the place of the catalogue's (simulated_catalogue.cc).
for conf in "$T"/pki/nodes/*/device.conf; do
  echo "capability.gpio17 = gpio.pin line=17 rate_limit_rps=$RATE max_concurrency=$MAX_CONCURRENCY" >>"$conf"
done
# Every refusal audited (not one line a second per kind), for the audit checks below.
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_http_audit_refusal_interval_ms 0")" broker
HTTP_PORT=$(broker_http_port broker)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
E2E_URL=$E2E_BASE/mcp
device_start fleet --simulate "$N" --bundle-dir "$T/pki" --catalogue
e2e_wait_online "$N" 60
pass "$N simulated nodes online"
client() {  # client MODE [VAR=VALUE…]: confirmation_abuse_client.mjs MODE with the common env
  local mode=$1; shift
  env MCP_URL="$E2E_URL" NODES="${E2E_NODES[*]}" "$@" \
    timeout 180 node "$SRC/tests/node/confirmation_abuse_client.mjs" "$mode"
}

echo "# a call waiting for the user's confirmation when its session ends (item 2)"
client ended TOKEN="$(agent_token waiter acme "$E2E_SCOPES")" SESSIONS=32 ||
  fail "session end during elicitation (broker log: $T/broker.log)"
# (The waiter configures the pin as an output first, and each set's first phase reads the pin,
# docs/protocol.md D38: those calls are dispatched; the sets are not.)
assert_eq "$(grep '"caller":"waiter"' "$T/audit.log" | grep 'gpio17\.set' | grep -cE '"decision":"(ok|error)"' || true)" 0 \
  "audit: none of the waiting calls was dispatched"
assert_eq "$(grep '"caller":"waiter"' "$T/audit.log" | grep '"decision":"refuse"' | grep -c '"code":"E_NODE_OFFLINE"' || true)" 2 \
  "audit: both are refusals, E_NODE_OFFLINE"

echo "# a read flood by one token and another caller's confirmed sets (item 5)"
client flood TOKEN_A="$(agent_token flooder acme "tools:call:read_only")" \
  TOKEN_B="$(agent_token actor acme "$E2E_SCOPES")" RATE=$RATE SETS=20 ||
  fail "read flood against confirmed sets (broker log: $T/broker.log)"
