#!/usr/bin/env bash
# What an attack on the HTTP front found (issue 24, items 5, 7, 8, 9), as clients see it, on
# fleetmcp-http-testhost (the real front and server over the in-memory fleet) with curl, raw
# sockets, Node's net and the MCP SDK client:
#   - Host (item 8): a DNS-rebinding page's Host is answered 421 on /healthz, /metrics and /mcp;
#     loopback names, the listen address and configured names are served.
#   - malformed requests (item 9): a 9 KB token gets 431, bad framing and obs-fold 400, with
#     the status before the close; a batch that uses one id twice is refused, nothing of it run.
#   - slowloris (item 7): a trickled head is cut after the header timeout; an agent gets
#     initialize and tools/call through hundreds of trickling connections from six /24s; the
#     per-prefix cap refuses; the reserve keeps room for requests with a valid token.
#   - tenant share (item 5): one tenant's streams take at most its share of the connections,
#     and another tenant is served meanwhile.
. "$(dirname "$0")/lib.sh"
trap '' PIPE  # a write to a connection the server closed fails (and is reported) instead of killing the test

NODE=01hzx9k3m4p7q8r9s0t1v2w3xy
NODE_B=01hzx9k3m4p7q8r9s0t1v2w3xz
LATE_MS=5000  # a loaded machine may be late; the timeouts must not be early

pki_init
TOKEN=$(agent_token alice acme "tools:call:read_only")
TOKEN_B=$(agent_token bob beta "tools:call:read_only")
"$HTTP_TESTHOST" --write-test-schemas "$SRC/schemas" "$T/schemas" >/dev/null || fail "writing the test schemas"
cat >"$T/fleet.json" <<JSON
{"nodes":[
 {"tenant":"acme","node_id":"$NODE","capabilities":[
  {"cap_id":"echo","kind":"system.echo","verbs":["invoke"],"constraints":{"rate_limit_rps":1000,"max_concurrency":100}},
  {"cap_id":"metrics","kind":"system.metrics","verbs":["subscribe"],"constraints":{"rate_limit_rps":1000,"max_concurrency":100}}]},
 {"tenant":"beta","node_id":"$NODE_B","capabilities":[
  {"cap_id":"echo","kind":"system.echo","verbs":["invoke"]}]}]}
JSON
ECHO_A="sysecho.$NODE.echo.invoke"
ECHO_B="sysecho.$NODE_B.echo.invoke"

code() { curl -s -m 10 -o /dev/null -w '%{http_code}' "$@" || true; }
# raw REQUEST: sends REQUEST (printf escapes) on a new connection, prints the whole answer.
raw() {
  exec 4<>"/dev/tcp/127.0.0.1/$HTTP_PORT"
  printf "$1" >&4
  timeout 5 cat <&4 | tr -d '\r' || true
  exec 4<&- 4>&-
}
status_line() { head -n1 <<<"$1"; }
# mcp_call TOKEN TOOL MESSAGE: initialize + tools/call with the MCP SDK client; prints the result.
mcp_call() {
  MCP_URL="http://127.0.0.1:$HTTP_PORT/mcp" TOKEN=$1 \
    node "$SRC/tests/node/mcp_call.mjs" call "$2" "{\"message\":\"$3\"}" 2>&1 || true
}

echo "# Host (item 8): only the names the front serves"
start_http_testhost front "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_allowed_hosts=fleet.example --set http_audit_log="$T/audit.log"
BASE=http://127.0.0.1:$HTTP_PORT
assert_eq "$(code -H 'Host: evil.example' "$BASE/healthz")" 421 "a DNS-rebinding page's Host (evil.example): /healthz answers 421"
assert_eq "$(code -H "Host: evil.example:$HTTP_PORT" "$BASE/metrics")" 421 "... /metrics answers 421"
assert_eq "$(code -X POST -H "Host: evil.example:$HTTP_PORT" -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' -d "{\"tool\":\"$ECHO_A\",\"arguments\":{\"message\":\"x\"}}" "$BASE/mcp/tools/call")" 421 \
  "... a tools/call with a valid token answers 421"
assert_contains "$(curl -s -H 'Host: evil.example' "$BASE/healthz")" "plugin_opt_http_allowed_hosts" "... naming the option"
for host in "127.0.0.1:$HTTP_PORT" "localhost:$HTTP_PORT" localhost LOCALHOST "[::1]:$HTTP_PORT" fleet.example:8443; do
  assert_eq "$(code -H "Host: $host" "$BASE/healthz")" 200 "Host: $host is served"
done
answer=$(raw 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /metrics HTTP/1.1\r\nHost: evil.example\r\n\r\n')
assert_eq "$(grep -o 'HTTP/1.1 [0-9]*' <<<"$answer" | tr '\n' ';')" "HTTP/1.1 200;HTTP/1.1 421;" \
  "each request of a kept-alive connection is checked: localhost then evil.example get 200 then 421"
assert_eq "$(status_line "$(raw 'GET /healthz HTTP/1.1\r\n\r\n')")" "HTTP/1.1 400 Bad Request" "an HTTP/1.1 request without Host: 400"
assert_eq "$(status_line "$(raw 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n')")" "HTTP/1.1 400 Bad Request" \
  "two Host headers: 400"
assert_eq "$(status_line "$(raw 'GET /healthz HTTP/1.0\r\n\r\n')")" "HTTP/1.1 200 OK" "an HTTP/1.0 request without Host is served (no browser sends one)"

echo "# malformed requests get a status before the close (item 9)"
big_token=$(head -c 9000 /dev/zero | tr '\0' 'a')
rc=0
answer=$(curl -s -m 10 -w ' %{http_code}' -X POST -H "Authorization: Bearer $big_token" -H 'Content-Type: application/json' \
  -d '{}' "$BASE/mcp/tools/call") || rc=$?
assert_eq "$rc" 0 "a 9 KB token: curl gets an answer, not a closed connection"
assert_contains "$answer" " 431" "... 431 Request Header Fields Too Large"
assert_contains "$answer" "plugin_opt_http_max_header_bytes" "... whose envelope says what to change"
answer=$(raw 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 12abc\r\n\r\n')
assert_eq "$(status_line "$answer")" "HTTP/1.1 400 Bad Request" "a bad Content-Length: 400"
assert_contains "$answer" '"code":"E_BAD_REQUEST"' "... with the error envelope"
assert_eq "$(status_line "$(raw 'HELLO THERE\r\n\r\n')")" "HTTP/1.1 400 Bad Request" "a request line that is not HTTP: 400"
answer=$(raw "POST /mcp/tools/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer $TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
assert_eq "$(status_line "$answer")" "HTTP/1.1 400 Bad Request" "a chunked body with a bad chunk size: 400"
answer=$(raw 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Folded: one\r\n two\r\n\r\n')
assert_eq "$(status_line "$answer")" "HTTP/1.1 400 Bad Request" "a header folded over two lines (obs-fold): 400"
assert_contains "$answer" "obs-fold" "... saying why"

echo "# a JSON-RPC batch that uses one id twice (item 9)"
MCP_H=(-H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -H "Authorization: Bearer $TOKEN")
INIT_OLD='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
sid=$(curl -s -D - -o /dev/null -X POST "$BASE/mcp" "${MCP_H[@]}" -d "$INIT_OLD" | tr -d '\r' |
  awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
[ -n "$sid" ] || fail "initialize (2025-03-26) returned no session"
call() { echo "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$ECHO_A\",\"arguments\":{\"message\":\"$2\"}}}"; }
calls_before=$(grep -c '"via":"mcp"' "$T/audit.log" || true)
answer=$(curl -s -w ' %{http_code}' -X POST "$BASE/mcp" "${MCP_H[@]}" -H "Mcp-Session-Id: $sid" -d "[$(call 7 one),$(call 7 two)]")
assert_contains "$answer" " 400" "a batch of two tools/call with id 7: 400"
assert_contains "$answer" '"code":-32600' "... -32600 Invalid Request"
assert_contains "$answer" "the id 7 is used by more than one request" "... naming the id"
sleep 0.5
assert_eq "$(grep -c '"via":"mcp"' "$T/audit.log" || true)" "$calls_before" "... and neither call ran (no audit line)"
answer=$(curl -s -X POST "$BASE/mcp" "${MCP_H[@]}" -H "Mcp-Session-Id: $sid" -d "[$(call 7 one),$(call 8 two)]")
assert_eq "$(jq -c '[.[].id] | sort' <<<"$answer")" "[7,8]" "the same batch with ids 7 and 8 is answered"

echo "# slowloris (item 7): the header timeout"
# A 2 s header timeout, the default 60 s read timeout, 64 connections (16 kept for tokens).
start_http_testhost loris "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_max_connections=64 --set http_header_timeout_ms=2000 --set http_audit_log=
BASE=http://127.0.0.1:$HTTP_PORT
open_connection
trickle_head 40
closed_after_ms "$OPENED_MS"
in_range "$CLOSED_MS" 1900 $LATE_MS "a head trickled a line every 300 ms is cut after the header timeout (2 s), not the read timeout (60 s)"
[ ! -s "$T/conn.out" ] || fail "the trickled request was answered: $(head -1 "$T/conn.out")"

# A kept-alive connection may idle longer than the header timeout (the read timeout bounds
# that), but its next head, once begun, must be whole within the header timeout.
open_connection
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n' >&3
sleep 3
FIRST_BYTE_MS=$(now_ms)
trickle_head 40
closed_after_ms "$FIRST_BYTE_MS"
assert_eq "$(grep -c 'HTTP/1.1 200' "$T/conn.out")" 1 "a kept-alive connection idle for 3 s (over the header timeout) is still open for its next request"
in_range "$CLOSED_MS" 1900 $LATE_MS "... whose trickled head is cut after the header timeout from its first byte"

# The header timeout is for the head only: a body may take up to the read timeout.
body="{\"tool\":\"$ECHO_A\",\"arguments\":{\"message\":\"slow body\"}}"
exec 4<>"/dev/tcp/127.0.0.1/$HTTP_PORT"
printf 'POST /mcp/tools/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' \
  "$TOKEN" "${#body}" >&4
for part in "${body:0:10}" "${body:10:10}" "${body:20}"; do sleep 1.2; printf '%s' "$part" >&4; done
answer=$(timeout 5 head -n1 <&4 | tr -d '\r' || true)
exec 4<&- 4>&-
assert_eq "$answer" "HTTP/1.1 200 OK" "a body sent over 3.6 s after its head (past the header timeout) is read and answered"

echo "# slowloris (item 7): an agent gets through 100 trickling connections from six /24 prefixes"
coproc LORIS { exec node "$SRC/tests/node/http_abuse_client.mjs" trickle "$BASE" 100 25 \
  $(for p in 1 2 3 4 5 6; do for h in 1 2 3 4 5; do echo "127.0.$p.$h"; done; done); }
track "$LORIS_PID"
read -r -t 30 line <&"${LORIS[0]}" || fail "the trickler printed nothing"
[ "$line" = ready ] || fail "the trickler: $line"
sleep 1
for round in 1 2 3; do
  answer=$(mcp_call "$TOKEN" "$ECHO_A" "through the attack $round")
  assert_contains "$answer" "through the attack $round" "round $round: the MCP SDK agent initializes and calls echo during the attack"
  sleep 2
done
assert_eq "$(code -H "Authorization: Bearer $TOKEN" "$BASE/healthz")" 200 "a request with a valid token on a new connection: 200"
read -r -t 40 line <&"${LORIS[0]}" || fail "the trickler printed no summary"
echo "# trickler: $line"
[ "$(jq .cut <<<"$line")" -gt 0 ] || fail "the front cut no trickling connection in 25 s: $line"
[ "$(jq .longest_cut_ms <<<"$line")" -le $((2000 + LATE_MS)) ] || fail "a trickler lived longer than the header timeout allows: $line"
pass "the front kept cutting the tricklers, none lived much past the header timeout ($(jq .cut <<<"$line") cut)"

echo "# the reserve for authenticated callers (item 7)"
# 64 connections, 16 of them a reserve: once 48 unauthenticated connections are open, a new
# connection's first request must carry a valid token. The holder's connections send nothing
# (a 30 s header timeout keeps them); at the cap, the one that waited longest makes room.
start_http_testhost reserve "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_max_connections=64 --set http_header_timeout_ms=30000 --set http_audit_log=
BASE=http://127.0.0.1:$HTTP_PORT
coproc HOLD { exec node "$SRC/tests/node/http_limits_client.mjs" hold "$BASE" 64 127.0.1.1 127.0.2.1 127.0.3.1 127.0.4.1; }
track "$HOLD_PID"
read -r -t 60 line <&"${HOLD[0]}" || fail "the connection holder printed nothing"
assert_eq "$line" "held 64 refused 0" "64 idle unauthenticated connections fill the front"
answer=$(curl -s -m 10 -w ' %{http_code}' "$BASE/healthz")
assert_contains "$answer" " 503" "a request without a token on a new connection: 503"
assert_contains "$answer" "plugin_opt_http_reserved_connections" "... naming the reserve"
assert_eq "$(code -H "Authorization: Bearer $TOKEN" "$BASE/healthz")" 200 "a request with a valid token on a new connection: served"
answer=$(mcp_call "$TOKEN_B" "$ECHO_B" "reserved")
assert_contains "$answer" "reserved" "the MCP SDK agent initializes and calls echo with the front full"
exec {HOLD[1]}>&-
wait "$HOLD_PID" 2>/dev/null || true

echo "# the per-prefix cap (item 7)"
start_http_testhost prefix "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_max_connections_per_prefix=16 --set http_header_timeout_ms=30000 --set http_audit_log=
BASE=http://127.0.0.1:$HTTP_PORT
coproc HOLD { exec node "$SRC/tests/node/http_limits_client.mjs" hold "$BASE" 30 $(for h in $(seq 1 30); do echo "127.0.9.$h"; done); }
track "$HOLD_PID"
read -r -t 60 line <&"${HOLD[0]}" || fail "the connection holder printed nothing"
assert_eq "$line" "held 16 refused 14" "30 connections from 30 addresses of 127.0.9.0/24: 16 held (the prefix cap), 14 refused"
assert_eq "$(code --interface 127.0.9.99 "$BASE/healthz")" 503 "another address of that /24: 503"
assert_eq "$(code --interface 127.0.10.1 "$BASE/healthz")" 200 "an address of another /24: served"
exec {HOLD[1]}>&-
wait "$HOLD_PID" 2>/dev/null || true

echo "# a tenant's share of the connections (item 5)"
# 32 connections, 8 per tenant; streams quotas lifted so that only the connection share limits.
start_http_testhost tenants "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" --set http_max_connections=32 \
  --set http_max_connections_per_tenant=8 --set http_max_streams_per_caller=100 --set http_max_streams_per_tenant=100 \
  --set http_audit_log=
BASE=http://127.0.0.1:$HTTP_PORT
sub_body="{\"tool\":\"sys.$NODE.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}"
for i in $(seq 1 32); do
  curl -s -N -m 40 -o "$T/stream$i.out" -w '%{http_code}' -X POST "$BASE/mcp/tools/call" -H "Content-Type: application/json" \
    -H "Accept: text/event-stream" -H "Authorization: Bearer $TOKEN" -d "$sub_body" >"$T/stream$i.code" &
  track $!
done
refused_429() { grep -l '^429$' "$T"/stream*.code 2>/dev/null | wc -l; }
streaming() { grep -l '^event: metric' "$T"/stream*.out 2>/dev/null | wc -l; }
all_refused() { [ "$(refused_429)" -ge 24 ]; }
all_streaming() { [ "$(streaming)" -ge 8 ]; }
wait_until 20 all_refused || fail "acme's streams past its share: $(refused_429) refused with 429, 24 expected"
wait_until 20 all_streaming || fail "acme's streams within its share: $(streaming) streaming, 8 expected"
assert_eq "$(refused_429) $(streaming)" "24 8" "one tenant asking for 32 streams gets 8 (its share), the other 24 are refused with 429"
assert_contains "$(cat "$(grep -l '^429$' "$T"/stream*.code | head -1 | sed 's/code$/out/')")" \
  "plugin_opt_http_max_connections_per_tenant" "... naming the option"
answer=$(mcp_call "$TOKEN_B" "$ECHO_B" "still served")
assert_contains "$answer" "still served" "another tenant's MCP SDK agent initializes and calls echo meanwhile"
assert_eq "$(code "$BASE/healthz")" 200 "/healthz is served meanwhile"
