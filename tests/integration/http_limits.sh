#!/usr/bin/env bash
# The HTTP front's limits and quotas (issue 17 items 4, 5, 6, 8; docs/http-front.md "Limits and
# quotas") with mosquitto, the plugin and fleetmcp-device nodes: connections past the caps while
# devices reconnect and calls work, authentication before the body, the body limit, MCP session
# quotas through the official SDK client, RFC-0009 stream quotas (4429), streams ended at their
# token's exp and on revocation, the batch cap, and throttled refusal audit lines.
. "$(dirname "$0")/lib.sh"

# mosquitto gets few file descriptors, as a small broker host would: without the connection caps
# the front's connections alone would exhaust them and no device could connect.
ulimit -Sn 160
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ] || { echo "skip: the hard descriptor limit is under 1024"; exit 77; }
N=3
E2E_BROKER_LINES=(
  "plugin_opt_http_max_connections 48"
  "plugin_opt_http_max_connections_per_address 24"
  "plugin_opt_http_max_sessions_per_caller 3"
  "plugin_opt_http_max_sessions_per_tenant 5"
  "plugin_opt_http_max_streams_per_caller 2"
  "plugin_opt_http_max_batch 4"
  "plugin_opt_http_header_timeout_ms 60000"  # the held connections below send nothing and must stay
)
e2e_start "$N"
NODE=${E2E_NODES[0]}
CALL_URL=$E2E_BASE/mcp/tools/call

echo "# connection caps (item 4)"
coproc HOLD { ulimit -Sn "$(ulimit -Hn)"; exec node "$SRC/tests/node/http_limits_client.mjs" hold "$E2E_BASE" 300 \
  127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6; }
track "$HOLD_PID"
read -r -t 60 line <&"${HOLD[0]}" || fail "the connection holder printed nothing"
held=$(awk '{print $2}' <<<"$line")
[ "$held" -le 48 ] || fail "connections held: $held, more than plugin_opt_http_max_connections 48 ($line)"
[ "$held" -ge 40 ] || fail "connections held: $held, expected close to 48 ($line)"
pass "300 connections from six addresses: $held held (cap 48), the rest refused"
# The held connections are unauthenticated and idle: a new connection takes the place of the one
# that waited longest (issue 24, item 7), and with the unauthenticated share (36 of 48) full, its
# request is served only with a valid token.
one=$(curl -s -m 5 --interface 127.0.0.7 -o /dev/null -w '%{http_code}' "$E2E_BASE/healthz")
assert_eq "$one" 503 "a request without a token while the front is full of unauthenticated connections: 503"
assert_eq "$(answer_status "$(echo_call "$NODE" hi -m 10)")" 200 "a call with a valid token while the front is full: served"
# The devices reconnect while the front is full (its /healthz cannot be reached now): mosquitto
# logs each new connection, a second time for each node.
kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
device_start fleet-again --simulate "$N" --bundle-dir "$T/pki"
reconnected() { [ "$(grep -c "New client connected.* as $1 " "$T/broker.log")" -ge 2 ]; }
for node in "${E2E_NODES[@]}"; do
  wait_until 60 reconnected "$node" ||
    fail "node $node did not reconnect while the front was full (see $T/broker.log)"
done
exec {HOLD[1]}>&-   # let go of the held connections
wait "$HOLD_PID" 2>/dev/null || true
e2e_wait_online "$N" 60
pass "every device reconnected while the front was at its connection cap"
assert_eq "$(answer_status "$(echo_call "$NODE" hi -m 10)")" 200 "a call works once the connections are gone"

echo "# authentication before the body, body limit (item 4)"
exec 3<>/dev/tcp/127.0.0.1/"$HTTP_PORT"
printf 'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n' >&3
status_line=$(timeout 5 head -n1 <&3 | tr -d '\r') || true
exec 3<&- 3>&-
assert_eq "$status_line" "HTTP/1.1 401 Unauthorized" "no token: 401 on the headers, before a 1 MB body is sent"
head -c 1500000 /dev/zero | tr '\0' ' ' >"$T/big.json"
big=$(curl -s -m 20 -o /dev/null -w '%{http_code}' -X POST "$CALL_URL" -H "Content-Type: application/json" \
  -H "Authorization: Bearer $E2E_TOKEN" --data-binary @"$T/big.json")
assert_eq "$big" 413 "a 1.5 MB body is over the default 1 MiB limit: 413"

echo "# MCP session quotas (item 5, official SDK client)"
MCP_URL=$E2E_URL PER_CALLER=3 PER_TENANT=5 \
  TOKEN_A=$(agent_token quota-a acme "$E2E_SCOPES") TOKEN_B=$(agent_token quota-b acme "$E2E_SCOPES") \
  TOKEN_C=$(agent_token quota-c acme "$E2E_SCOPES") \
  node "$SRC/tests/node/http_limits_client.mjs" sessions || fail "session quotas (broker log: $T/broker.log)"

echo "# RFC-0009 stream quota: 4429 (item 5)"
STREAM_TOKEN=$(agent_token streamer acme "$E2E_SCOPES")
sub_body="{\"tool\":\"sys.$NODE.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}"
open_stream() {  # open_stream TOKEN OUT SECONDS: an RFC-0009 stream into OUT, in the background
  curl -s -N -m "$3" -X POST "$CALL_URL" -H "Content-Type: application/json" -H "Accept: text/event-stream" \
    -H "Authorization: Bearer $1" -d "$sub_body" >"$2" &
  track $!
}
open_stream "$STREAM_TOKEN" "$T/s1.sse" 30
open_stream "$STREAM_TOKEN" "$T/s2.sse" 30
wait_for_line "$T/s1.sse" '^event: metric' 15 || fail "first stream: no metric frame"
wait_for_line "$T/s2.sse" '^event: metric' 15 || fail "second stream: no metric frame"
third=$(curl -s -N -m 10 -X POST "$CALL_URL" -H "Content-Type: application/json" -H "Accept: text/event-stream" \
  -H "Authorization: Bearer $STREAM_TOKEN" -d "$sub_body")
assert_contains "$third" '"code":4429' "a third stream of the same token is closed with 4429"
[[ "$third" != *"event: metric"* ]] || fail "the refused stream carried metric frames"
pass "... before any metric frame"

echo "# streams end with their token (item 6)"
SHORT=$("$FLEETCTL" token issue --dir "$T/pki" --sub short --tenant acme --scope "$E2E_SCOPES" --ttl 4s)
open_stream "$SHORT" "$T/short.sse" 30
wait_for_line "$T/short.sse" '"code":1000' 15 || fail "the stream of a 4 s token was not closed at its exp"
pass "an RFC-0009 stream is closed (1000) when its token expires"
claims=$("$FLEETCTL" token issue --dir "$T/pki" --sub revokee --tenant acme --scope "$E2E_SCOPES" --json)
REVOKEE=$(jq -r .token <<<"$claims")
open_stream "$REVOKEE" "$T/revokee.sse" 40
wait_for_line "$T/revokee.sse" '^event: metric' 15 || fail "revokee stream: no metric frame"
"$FLEETCTL" pki revoke --dir "$T/pki" "$(jq -r .jti <<<"$claims")" >/dev/null
kill -HUP "$BROKER_PID"
wait_for_line "$T/revokee.sse" '"code":1000' 10 || fail "the stream of a revoked token was not closed after SIGHUP"
pass "an RFC-0009 stream is closed when its token is revoked (SIGHUP)"
GET_TOKEN=$("$FLEETCTL" token issue --dir "$T/pki" --sub getter --tenant beta --scope "$E2E_SCOPES" --ttl 5s)  # acme holds its session quota by now
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
sid=$(curl -s -D - -o /dev/null -X POST "$E2E_URL" -H "Content-Type: application/json" \
  -H "Accept: application/json, text/event-stream" -H "Authorization: Bearer $GET_TOKEN" -d "$INIT" | tr -d '\r' |
  awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
[ -n "$sid" ] || fail "initialize returned no session"
start=$SECONDS
curl -s -N -m 30 "$E2E_URL" -H "Accept: text/event-stream" -H "Authorization: Bearer $GET_TOKEN" \
  -H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: 2025-11-25" >/dev/null || true
[ $((SECONDS - start)) -lt 15 ] || fail "the MCP GET stream outlived its 5 s token ($((SECONDS - start)) s)"
pass "an MCP GET stream ends when its token expires"

echo "# batch cap (item 8)"
INIT_OLD='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
BATCH_TOKEN=$(agent_token batcher beta "$E2E_SCOPES")  # acme holds its session quota by now
MCP_H=(-H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -H "Authorization: Bearer $BATCH_TOKEN")
sid=$(curl -s -D - -o /dev/null -X POST "$E2E_URL" "${MCP_H[@]}" -d "$INIT_OLD" | tr -d '\r' |
  awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
pings() { local i out="["; for ((i = 1; i <= $1; i++)); do out+="{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"ping\"},"; done; echo "${out%,}]"; }
assert_eq "$(curl -s -X POST "$E2E_URL" "${MCP_H[@]}" -H "Mcp-Session-Id: $sid" -d "$(pings 4)" | jq length)" 4 \
  "a batch of 4 (the cap) is answered"
r=$(curl -s -w ' %{http_code}' -X POST "$E2E_URL" "${MCP_H[@]}" -H "Mcp-Session-Id: $sid" -d "$(pings 5)")
assert_contains "$r" ' 400' "a batch of 5 is refused: 400"
assert_contains "$r" 'plugin_opt_http_max_batch' "... naming the option"

echo "# refusal audit lines are throttled, not lost (item 8)"
before=$(grep -c '"code":"E_SAFETY_DENIED"' "$T/audit.log" || true)
started=$(date +%s%N)
for _ in $(seq 30); do curl -s -o /dev/null -X POST "$CALL_URL" -H "Authorization: Bearer not-a-token" -d '{}'; done
sleep 1.2
curl -s -o /dev/null -X POST "$CALL_URL" -H "Authorization: Bearer not-a-token" -d '{}'
allowed=$(( ($(date +%s%N) - started) / 1000000000 + 2 ))  # one a second, and the first
lines=$(grep '"decision":"refuse"' "$T/audit.log" | grep '"via":"rfc0009"' | grep -c '"code":"E_SAFETY_DENIED"' || true)
[ $((lines - before)) -le "$allowed" ] || fail "31 refused requests wrote $((lines - before)) audit lines (at most $allowed expected)"
grep '"code":"E_SAFETY_DENIED"' "$T/audit.log" | grep -q 'more refusals like this since the previous line' ||
  fail "no audit line counts the refusals it stands for"
pass "31 refusals: $((lines - before)) audit lines (one a second), the last counting the others"
metrics=$(curl -s "$E2E_BASE/metrics")
[[ "$metrics" != *acme* ]] || fail "/metrics names a tenant"
pass "/metrics carries fleet-wide aggregates only (no tenant)"

! grep -q "over half the broker's file descriptor limit" "$T/broker.log" || fail "a warning for the cap of 48 under 160"
pass "no descriptor warning for a connection cap of 48 under a limit of 160"
# Out of descriptors, the acceptor backs off: tests/integration/http_accept_backoff.sh (on the
# Release build only: under the sanitizers their own pipe() gets EMFILE first).
