#!/usr/bin/env bash
# Agents sign in the way MCP clients expect (docs/authorization.md): a real authorization server
# this project did not write (npm's oidc-provider, tests/node/oauth_server.mjs) on loopback, trusted
# by the plugin through plugin_opt_http_oauth.* lines; the official MCP SDK's OAuth client
# (tests/node/oauth_client.mjs) signs in knowing only the MCP URL and calls a simulated device; the
# MQTT agent listener takes the same token (mosquitto_sub as the agent).
# Then: each forged token refused with its reason, a key rotation, and the server's outage.
. "$(dirname "$0")/lib.sh"

AS_PORT=$(free_port)
AS_URL=http://127.0.0.1:$AS_PORT
# Keys last 10 s after the last fetch here (the shortest the option allows), refetched at most once a second.
E2E_BROKER_LINES=(
  "plugin_opt_http_oauth.test.issuer $AS_URL"
  "plugin_opt_http_oauth.test.tenant_claim fleet_tenant"
  "plugin_opt_http_oauth.test.key_lifetime_s 10"
  "plugin_opt_http_oauth.test.min_refresh_s 1"
  "plugin_opt_http_tools_mode by_kind"
  "plugin_opt_http_audit_log $T/front-audit.log"
  "plugin_opt_http_audit_refusal_interval_ms 0"
  "plugin_opt_audit_refusal_interval_ms 0"
)
e2e_start 1 --catalogue  # the Doc 05 catalogue: an actuation tool for the step-up
NODE=${E2E_NODES[0]}

start_as() {  # ALG: the authorization server with the keys in $T/keys.json, signing with ALG
  rm -f "$T/as.ready"
  (cd "$SRC/tests/node" && PORT=$AS_PORT RESOURCE=$E2E_URL KEYS=$T/keys.json ALG=$1 READY=$T/as.ready \
    exec node oauth_server.mjs >>"$T/as.log" 2>&1) &
  AS_PID=$!
  track "$AS_PID"
  wait_until 30 test -f "$T/as.ready" || fail "the authorization server did not start (see $T/as.log)"
}
client() {  # PHASE [VAR=value…]: tests/node/oauth_client.mjs
  local phase=$1; shift
  env MCP_URL="$E2E_URL" AS_URL="$AS_URL" KEYS="$T/keys.json" NODE_ID="$NODE" PHASE="$phase" "$@" \
    node "$SRC/tests/node/oauth_client.mjs" || fail "oauth_client.mjs $phase (broker log: $T/broker.log, $T/as.log)"
}

(cd "$SRC/tests/node" && node oauth_server.mjs keys "$T/keys.json" one) || fail "jose made no keys"
start_as ES256

metadata=$(curl -s "$E2E_BASE/.well-known/oauth-protected-resource/mcp")
assert_eq "$(jq -r '.authorization_servers | join(" ")' <<<"$metadata")" "$AS_URL" \
  "the resource metadata (path-suffixed well-known URI) names the trusted authorization server"
assert_eq "$(jq -r '.scopes_supported | join(" ")' <<<"$metadata")" \
  "devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation" \
  "its scopes are the four fleet scopes (no offline_access)"

client flow TOKEN_OUT="$T/token"

# What the SDKs run by themselves (tests/node/oauth_sdk_flows.mjs): the v2 client's sign-in, a
# refresh, a step-up from a read-only grant to actuation, and another tenant's user.
sdk() {  # PHASE [VAR=value…]
  local phase=$1; shift
  env MCP_URL="$E2E_URL" AS_URL="$AS_URL" KEYS="$T/keys.json" NODE_ID="$NODE" PHASE="$phase" "$@" \
    node "$SRC/tests/node/oauth_sdk_flows.mjs" || fail "oauth_sdk_flows.mjs $phase (broker log: $T/broker.log, $T/as.log)"
}
sdk v2
sdk refresh
sdk stepup ACT_TOOL=camera_still_capture ACT_ARGUMENTS="{\"node_id\":\"$NODE\",\"arguments\":{}}"
sdk tenant

# The MQTT agent listener takes the same tokens as a fleetctl one: username = the token's sub,
# password = the token. An agent signs in through the server for devices:read (the SDK's auth())
# and the node's retained announce comes back to it on $devices/+/announce.
client agent_token TOKEN_OUT="$T/agent-token"
sub=$(node -e 'console.log(JSON.parse(Buffer.from(process.argv[1].split(".")[1], "base64url")).sub)' "$(cat "$T/agent-token")")
mqtt_agent() {  # USER TOKEN_FILE OUT: one announce, or a refusal within 10 s
  mosquitto_sub -h 127.0.0.1 -p "$PORT_PLAIN" -i "$1-mqtt" -u "$1" -P "$(cat "$2")" -t '$devices/+/announce' \
    -C 1 -W 10 -v >"$3" 2>"$3.err"
}
mqtt_agent "$sub" "$T/agent-token" "$T/mqtt-announce" || fail "mosquitto_sub with the IdP's token: $(cat "$T/mqtt-announce.err" "$T/audit.log")"
assert_eq "$(cut -d' ' -f1 "$T/mqtt-announce")" "\$devices/$NODE/announce" \
  "an agent signs in on the MQTT listener with the IdP's token (user $sub) and sees the node's announce"
client mint TOKEN_OUT="$T/wrong-aud" CLAIMS='{"aud":"https://other.example/mcp"}'
! mqtt_agent mallory "$T/wrong-aud" "$T/mqtt-wrong" || fail "the MQTT listener took a token for another resource"
grep -q '"caller":"mallory".*access token refused: the audience (aud) does not name this resource' "$T/audit.log" ||
  fail "the audit log names the failed check of the MQTT refusal ($(grep mallory "$T/audit.log"))"
pass "the MQTT listener refuses a wrong-audience token, the audit log saying why"
client refusals
grep -q 'access token refused: alg none is not accepted' "$T/front-audit.log" || fail "the audit log names the failed check"
! grep -qF "$(tail -c 40 "$T/token")" "$T"/*.log || fail "a token was written to a log"
pass "each refusal is in the audit log with its reason, no token in any log"

# Rotation: the server signs with new keys and still publishes the old ones.
kill "$AS_PID"; wait "$AS_PID" 2>/dev/null || true
(cd "$SRC/tests/node" && node oauth_server.mjs keys "$T/keys.json" two keep) || fail "jose made no keys"
start_as RS256
# The first token with a new kid is refused and asks for a fetch (or the half-lifetime refresh
# finds the keys first); within a few seconds tokens of the new key are accepted.
rotated() {
  env MCP_URL="$E2E_URL" AS_URL="$AS_URL" KEYS="$T/keys.json" PHASE=accepted TOKEN_IN="$T/token" WHAT=rotation \
    FRESH_ACCEPTED=two-rs node "$SRC/tests/node/oauth_client.mjs"
}
wait_until 20 rotated || fail "no token of the rotated key accepted within 20 s (see $T/broker.log)"
pass "after a key rotation, tokens of the new key are accepted once the keys are fetched again"
client accepted TOKEN_IN="$T/token" WHAT="after a key rotation" FRESH_ACCEPTED=one-es

# Outage: tokens already accepted keep working; once the keys' 10 s lifetime is over, nothing else.
kill "$AS_PID"; wait "$AS_PID" 2>/dev/null || true
client accepted TOKEN_IN="$T/token" WHAT="the authorization server down"
sleep 11
client accepted TOKEN_IN="$T/token" WHAT="the server down past the keys' lifetime" FRESH_KID=two-es \
  FRESH_REFUSED="are not available"
grep -q "oauth issuer test: GET" "$T/broker.log" || fail "the broker log says why the keys cannot be fetched"
pass "the broker log says the issuer's keys cannot be fetched"
