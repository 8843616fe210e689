#!/usr/bin/env bash
# The HTTP front's read timeout (plugin_opt_http_read_timeout_ms, docs/http-front.md), as a client
# sees it, with a 1 s timeout on fleetmcp-http-testhost: a connection that sends nothing, half a
# request or a request trickled a line at a time is closed about 1 s after it opened; a kept-alive
# connection is closed about 1 s after its last request, however long it lived before; a request
# whose answer takes longer (a tool call held by a silent node) still gets its answer, and an
# RFC-0009 stream outlives the timeout. Over TLS: a client that never starts the handshake is cut
# after the timeout, and an idle TLS session is ended with close_notify.
. "$(dirname "$0")/lib.sh"
trap '' PIPE  # a write to a connection the server closed fails (and is reported) instead of killing the test

NODE=01hzx9k3m4p7q8r9s0t1v2w3xy
TIMEOUT_MS=1000
LATE_MS=4000  # a loaded machine may be late; the timeout must not be early

pki_init
TOKEN=$("$FLEETCTL" token issue --dir "$T/pki" --tenant acme --sub alice --scope "tools:call:read_only")
"$HTTP_TESTHOST" --write-test-schemas "$SRC/schemas" "$T/schemas" >/dev/null || fail "writing the test schemas"
cat >"$T/fleet.json" <<JSON
{"nodes":[{"tenant":"acme","node_id":"$NODE","capabilities":[
  {"cap_id":"echo","kind":"system.echo","verbs":["invoke"]},
  {"cap_id":"metrics","kind":"system.metrics","verbs":["subscribe"]}]}]}
JSON

start_http_testhost front "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" \
  --set http_read_timeout_ms=$TIMEOUT_MS --set http_audit_log=
BASE=http://127.0.0.1:$HTTP_PORT

echo "# a connection that does not send a whole request in time is closed"
open_connection
closed_after_ms "$OPENED_MS"
in_range "$CLOSED_MS" 900 $LATE_MS "a connection that sends nothing is closed after the timeout"

open_connection
printf 'POST /mcp/tools/call HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tool":' >&3
closed_after_ms "$OPENED_MS"
in_range "$CLOSED_MS" 900 $LATE_MS "a connection that sends half a request is closed after the timeout"

# Header lines keep coming, one every 300 ms: the timeout is for the whole request, not per read.
open_connection
trickle_head 20
closed_after_ms "$OPENED_MS"
in_range "$CLOSED_MS" 900 $LATE_MS "a request trickled a header line at a time is closed after the timeout"
[ ! -s "$T/conn.out" ] || fail "the trickled request was answered: $(head -1 "$T/conn.out")"

echo "# a kept-alive connection is closed after the timeout from its last request"
# Three requests 600 ms apart: the connection lives past 1 s since it opened, and is closed 1 s
# after the last answer.
open_connection
for i in 1 2 3; do
  [ "$i" = 1 ] || sleep 0.6
  LAST_MS=$(now_ms)
  printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n' >&3 2>/dev/null || break  # closed early: counted below
done
closed_after_ms "$LAST_MS"
assert_eq "$(grep -o 'HTTP/1.1 200' "$T/conn.out" | wc -l)" 3 "three requests over 1.2 s on one connection are all answered"
in_range "$CLOSED_MS" 900 $LATE_MS "the idle kept-alive connection is closed after the timeout from its last request"

echo "# a request being handled and a stream are not cut"
# A silent node holds the call; it is answered (E_NODE_OFFLINE) when the node goes offline, 2.5 s on.
echo "silent $NODE on" >"$HTTP_CTL"
wait_for_line "$T/front.out" "ok silent"
start=$(now_ms)
curl -s -m 20 -o "$T/held.body" -w '%{http_code}' -X POST "$BASE/mcp/tools/call" -H "Content-Type: application/json" \
  -H "Authorization: Bearer $TOKEN" -d "{\"tool\":\"sysecho.$NODE.echo.invoke\",\"arguments\":{\"message\":\"x\"}}" \
  >"$T/held.code" 2>&1 &
held=$!
sleep 2.5
echo "offline $NODE" >"$HTTP_CTL"
wait "$held" || fail "the held call got no answer (curl: $(cat "$T/held.code"))"
elapsed=$(($(now_ms) - start))
assert_contains "$(cat "$T/held.body")" "E_NODE_OFFLINE" "a call held for $elapsed ms (over the timeout) gets its answer"
[ "$elapsed" -ge 2000 ] || fail "the call was not held past the timeout ($elapsed ms)"
echo "online $NODE" >"$HTTP_CTL"
echo "silent $NODE off" >"$HTTP_CTL"

rc=0
curl -s -N -m 3.5 -o "$T/stream.txt" -X POST "$BASE/mcp/tools/call" -H "Content-Type: application/json" \
  -H "Accept: text/event-stream" -H "Authorization: Bearer $TOKEN" \
  -d "{\"tool\":\"sys.$NODE.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}" || rc=$?
assert_eq "$rc" 28 "an RFC-0009 stream is still open after 3.5 s (curl's own time limit ended it)"
frames=$(grep -c '^event: metric' "$T/stream.txt" || true)
[ "$frames" -ge 2 ] || fail "the stream sent $frames metric frames in 3.5 s"
pass "and kept sending frames ($frames)"

echo "# over TLS"
start_http_testhost tls "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" --set http_read_timeout_ms=$TIMEOUT_MS \
  --set http_tls_cert="$T/pki/server.crt" --set http_tls_key="$T/pki/server.key" --set http_audit_log=
open_connection
closed_after_ms "$OPENED_MS"
in_range "$CLOSED_MS" 900 $LATE_MS "a client that never starts the TLS handshake is cut after the timeout"

start=$(now_ms)
rc=0
# -ign_eof: the end of its (empty) input does not end s_client; only the server's close does.
timeout 10 openssl s_client -connect "127.0.0.1:$HTTP_PORT" -CAfile "$T/pki/ca.crt" -msg -ign_eof </dev/null \
  >"$T/tls_idle.txt" 2>&1 || rc=$?
elapsed=$(($(now_ms) - start))
grep -q 'Verification: OK\|Verify return code: 0' "$T/tls_idle.txt" || fail "no TLS session: $(tail -5 "$T/tls_idle.txt")"
[ "$rc" != 124 ] || fail "an idle TLS session was kept open for 10 s"
in_range "$elapsed" 900 $LATE_MS "an idle TLS session is ended after the timeout"
grep -q '<<< TLS 1.3, Alert .* close_notify' "$T/tls_idle.txt" || fail "the idle TLS session was cut without close_notify"
pass "with close_notify"
