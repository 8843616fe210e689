#!/usr/bin/env bash
# The HTTP front at HTTP level: the real Beast server, MCP layer and RFC-0009 endpoint running in
# fleetmcp-http-testhost over the in-memory FleetView (a double of the plugin core; the end-to-end
# test with mosquitto, the plugin and fleetmcp-device replaces it once the adapter is wired).
# Driven by the official MCP TypeScript SDK client (tests/node/mcp_sdk_client.mjs), curl, Node's
# HTTP client for RFC-0009 §9 fixtures 1 and 3, and fleetmcp-http-stalled-client for fixture 2
# and the §6 backpressure close. Timers are options so the fixtures take seconds.
. "$(dirname "$0")/lib.sh"

NODE=01hzx9k3m4p7q8r9s0t1v2w3xy
NODE2=01hzx9k3m4p7q8r9s0t1v2w3xa
OTHER=01hzx9k3m4p7q8r9s0t1v2w3xz

pki_init
TOKEN=$("$FLEETCTL" token issue --dir "$T/pki" --tenant acme --sub alice \
  --scope "devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation")
TOKEN_READ=$("$FLEETCTL" token issue --dir "$T/pki" --tenant acme --sub reader --scope "tools:call:read_only")
TOKEN_OTHER=$("$FLEETCTL" token issue --dir "$T/pki" --tenant other --sub olga --scope "tools:call:read_only")
"$HTTP_TESTHOST" --write-test-schemas "$SRC/schemas" "$T/schemas" >/dev/null || fail "writing the test schemas"
cat >"$T/fleet.json" <<JSON
{"nodes":[
 {"tenant":"acme","node_id":"$NODE","capabilities":[
   {"cap_id":"echo","kind":"system.echo","verbs":["invoke"],"constraints":{"rate_limit_rps":10,"max_concurrency":4,"deadline_ms_default":2000}},
   {"cap_id":"metrics","kind":"system.metrics","verbs":["snapshot","subscribe"],"constraints":{"rate_limit_rps":5,"max_concurrency":2,"deadline_ms_default":2000}},
   {"cap_id":"relay0","kind":"test.relay","verbs":["set","get"],"safety_class":"physical_actuation","constraints":{"rate_limit_rps":2,"max_concurrency":1,"deadline_ms_default":2000}}]},
 {"tenant":"acme","node_id":"$NODE2","capabilities":[
   {"cap_id":"echo","kind":"system.echo","verbs":["invoke"]},
   {"cap_id":"metrics","kind":"system.metrics","verbs":["subscribe"]}]},
 {"tenant":"other","node_id":"$OTHER","capabilities":[{"cap_id":"echo","kind":"system.echo","verbs":["invoke"]}]}
]}
JSON

start_http_testhost front "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_page_size=2 --set http_sse_ping_ms=1000 --set http_sse_idle_timeout_ms=2000 \
  --set http_mcp_max_stream_ms=4000 --set http_mcp_keepalive_ms=1000 --set http_audit_log="$T/audit.log"
BASE=http://127.0.0.1:$HTTP_PORT
MCP=$BASE/mcp
JSON_ACCEPT=(-H "Content-Type: application/json" -H "Accept: application/json, text/event-stream")
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

# status METHOD URL [curl args...] : the HTTP status only.
status() { local m=$1 u=$2; shift 2; curl -s -o /dev/null -w '%{http_code}' -X "$m" "$u" "$@"; }

echo "# authorization and transport (curl)"
headers=$(curl -s -D - -o /dev/null -X POST "$MCP" "${JSON_ACCEPT[@]}" -d "$INIT")
assert_contains "$headers" "401" "no token: 401"
assert_contains "$headers" "resource_metadata=\"$BASE/.well-known/oauth-protected-resource/mcp\"" "401 names the resource metadata"
meta=$(curl -s "$BASE/.well-known/oauth-protected-resource/mcp")
assert_eq "$(echo "$meta" | jq -r .resource)" "$MCP" "RFC 9728 metadata names the resource"
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Origin: https://evil.example" -d "$INIT")" 403 "foreign Origin: 403"
assert_eq "$(status POST "$MCP" -H "Content-Type: application/json" -H "Accept: application/json" -H "Authorization: Bearer $TOKEN" -d "$INIT")" 406 "Accept without text/event-stream: 406"
sid=$(curl -s -D - -o /dev/null -X POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -d "$INIT" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' | tr -d '\r')
[ -n "$sid" ] || fail "initialize returned no Mcp-Session-Id"
pass "initialize returns Mcp-Session-Id"
PING='{"jsonrpc":"2.0","id":2,"method":"ping"}'
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -d "$PING")" 400 "no session header: 400"
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: nope" -d "$PING")" 404 "unknown session: 404"
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: 1999-01-01" -d "$PING")" 400 "unsupported MCP-Protocol-Version: 400"
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}')" 202 "notification: 202"
assert_eq "$(curl -s -X POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $sid" -d "$PING" | jq -c .result)" "{}" "ping"
assert_eq "$(status DELETE "$MCP" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $sid")" 200 "DELETE ends the session"
assert_eq "$(status POST "$MCP" "${JSON_ACCEPT[@]}" -H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $sid" -d "$PING")" 404 "a deleted session is 404"

echo "# RFC-0009 unary calls and Accept negotiation (curl)"
CALL=(-H "Content-Type: application/json" -H "Authorization: Bearer $TOKEN")
echo_body="{\"tool\":\"sysecho.$NODE.echo.invoke\",\"arguments\":{\"message\":\"hello\"}}"
assert_eq "$(curl -s -X POST "$BASE/mcp/tools/call" "${CALL[@]}" -d "$echo_body" | jq -r .message)" hello "unary echo returns the result"
assert_eq "$(curl -s -X POST "$BASE/mcp/tools/call" "${CALL[@]}" -d "{\"tool\":\"sysecho-$NODE-echo-invoke\",\"arguments\":{\"message\":\"dashed\"}}" | jq -r .message)" dashed "the dashed name calls too"
# The front writes an answer's head itself (http_connection.cc): the connection stays open for
# the next request unless the client asks to close it, and Content-Length is the body's.
assert_eq "$(curl -s -o /dev/null -o /dev/null -w '%{num_connects} ' -X POST "$BASE/mcp/tools/call" "$BASE/mcp/tools/call" \
  "${CALL[@]}" -d "$echo_body")" "1 0 " "two calls on one kept-alive connection"
head_of_close=$(curl -s -D - -o "$T/close.body" -X POST "$BASE/mcp/tools/call" "${CALL[@]}" -H "Connection: close" -d "$echo_body" | tr -d '\r')
assert_contains "$head_of_close" "Connection: close" "Connection: close asked, Connection: close answered"
assert_contains "$head_of_close" "Content-Length: $(stat -c %s "$T/close.body")" "Content-Length is the body's length"
assert_contains "$head_of_close" "HTTP/1.1 200 OK" "status line"
# How a request arrives (http_connection.cc reads into a 4 KiB buffer and parses a body that came
# with its header at once): two requests in one write, a body sent after its header, and a header
# larger than the buffer, all on one connection, each answered in order. Unknown tools named in
# the bodies (one, two…), so no rate limit interferes: each 404 names its request's tool.
exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT"
raw_call() {  # raw_call CAP [EXTRA_HEADER_LINES]: the request's text
  local body="{\"tool\":\"sysecho.$NODE2.$1.invoke\",\"arguments\":{}}"
  printf 'POST /mcp/tools/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s' \
    "$TOKEN" "${2:-}" "${#body}" "$body"
}
printf '%s%s' "$(raw_call one)" "$(raw_call two)" >&3
late=$(raw_call three)
printf '%s' "${late%%\{*}" >&3  # the header only; the body 300 ms later
sleep 0.3
printf '{%s' "${late#*\{}" >&3
printf '%s' "$(raw_call four "X-Padding: $(head -c 6000 /dev/zero | tr '\0' x)"$'\r\n'"Connection: close"$'\r\n')" >&3
raw_out=$(timeout 20 cat <&3 | tr -d '\r')
exec 3>&-
assert_eq "$(grep -o 'HTTP/1.1 404 Not Found' <<<"$raw_out" | wc -l)" 4 "four requests on one connection: four answers"
assert_eq "$(grep -o "Unknown tool: sysecho.$NODE2.[a-z]*" <<<"$raw_out" | sed 's/.*\.//' | tr '\n' ' ')" "one two three four " \
  "pipelined, late-bodied and oversized requests are answered in order"
assert_eq "$(status POST "$BASE/mcp/tools/call" "${CALL[@]}" -d "{\"tool\":\"sysecho.$OTHER.echo.invoke\",\"arguments\":{\"message\":\"x\"}}")" 404 "another tenant's tool: 404"
sub_body="{\"tool\":\"sys.$NODE.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}"
r=$(curl -s -w ' %{http_code}' -X POST "$BASE/mcp/tools/call" "${CALL[@]}" -H "Accept: application/json" -d "$sub_body")
assert_contains "$r" '"code":"E_BAD_REQUEST"' "subscribe without Accept: text/event-stream is E_BAD_REQUEST"
assert_contains "$r" ' 400' "... with 400"
get_body="{\"tool\":\"relay.$NODE.relay0.get\",\"arguments\":{}}"
# Three calls from one curl over one connection (--next), so they land within the 2/s budget
# even on a loaded machine, where separate curl processes took ~250 ms each; every answer's
# headers are kept, so Retry-After is read from the 429 itself.
one=(-s -D - -o /dev/null -X POST "$BASE/mcp/tools/call" "${CALL[@]}" -d "$get_body")
headers=$(curl "${one[@]}" --next "${one[@]}" --next "${one[@]}" | tr -d '\r')
codes=$(awk '/^HTTP\//{printf "%s ", $2}' <<<"$headers")
assert_contains "$codes" "429" "a third call within the rate limit is 429 ($codes)"
retry=$(awk -F': ' 'tolower($1)=="retry-after"{print $2}' <<<"$headers")
[ -n "$retry" ] && pass "429 carries Retry-After ($retry s)" || fail "no Retry-After on 429"

echo "# schema registry, health, metrics (curl)"
file=$T/schemas/system.echo.invoke.input@1.0.0.json
curl -s -D "$T/schema.h" -o "$T/schema.body" "$BASE/schemas/system.echo.invoke.input@1.0.0"
cmp -s "$file" "$T/schema.body" && pass "GET /schemas/<id> serves the exact bytes" || fail "schema bytes differ"
assert_contains "$(cat "$T/schema.h")" "\"$(sha256sum "$file" | cut -d' ' -f1)\"" "its ETag is the SHA-256"
assert_contains "$(cat "$T/schema.h")" "immutable" "and it is cached as immutable"
assert_eq "$(curl -s "$BASE/schemas" | jq -r '.schemas[0].hash_alg')" "sha-256" "GET /schemas lists descriptors"
assert_eq "$(curl -s "$BASE/healthz" | jq -r .status)" ok "/healthz"
assert_contains "$(curl -s "$BASE/metrics")" 'fleetmcp_tool_calls_total{kind="system.echo",outcome="ok"}' "/metrics counts calls"

echo "# the MCP TypeScript SDK client"
MCP_URL=$MCP TOKEN=$TOKEN TOKEN_READ=$TOKEN_READ TOKEN_OTHER=$TOKEN_OTHER CTL=$HTTP_CTL NODE=$NODE NODE2=$NODE2 OTHER=$OTHER \
  METRICS_URL=$BASE/metrics node "$SRC/tests/node/mcp_sdk_client.mjs" || fail "the SDK client checks (above)"

echo "# RFC-0009 §9 fixtures"
BASE=$BASE TOKEN=$TOKEN NODE=$NODE CTL=$HTTP_CTL SECONDS=6 INTERVAL_MS=1000 node "$SRC/tests/node/rfc0009_fixtures.mjs" fixture1 || fail "fixture 1"
"$HTTP_STALLED_CLIENT" --port "$HTTP_PORT" --token "$TOKEN" --tool "sys.$NODE.metrics.subscribe" --interval-ms 1000 \
  --read-frames 1 --stall-ms 9000 >"$T/stalled.out" 2>"$T/stalled.log" || fail "stalled client (see $T/stalled.log)"
assert_contains "$(cat "$T/stalled.out")" 'data: {"code":4408,"reason":"idle_timeout"}' "fixture 2: a client that stops reading gets close 4408"
BASE=$BASE TOKEN=$TOKEN NODE=$NODE CTL=$HTTP_CTL node "$SRC/tests/node/rfc0009_fixtures.mjs" fixture3 || fail "fixture 3"

echo "# RFC-0009 §6 backpressure (a front with a long idle timeout)"
start_http_testhost slow "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" --set http_sse_idle_timeout_ms=60000 --set http_audit_log=
"$HTTP_STALLED_CLIENT" --port "$HTTP_PORT" --token "$TOKEN" --tool "sys.$NODE.metrics.subscribe" --interval-ms 1000 \
  --read-frames 1 --stall-ms 14000 >"$T/stalled2.out" 2>"$T/stalled2.log" || fail "stalled client (see $T/stalled2.log)"
assert_contains "$(cat "$T/stalled2.out")" 'data: {"code":4413,"reason":"backpressure"}' "a client more than 3 frames behind gets close 4413"

echo "# audit"
grep -q '"decision":"refuse"' "$T/audit.log" && pass "refusals are audited" || fail "no refusal in the audit log"
grep -q 'hello' "$T/audit.log" && fail "arguments leaked into the audit log" || pass "no arguments in the audit log"
