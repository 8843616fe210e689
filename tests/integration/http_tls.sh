#!/usr/bin/env bash
# The HTTP front over TLS (plugin_opt_http_tls_cert / _key, docs/http-front.md): mosquitto with the
# plugin serving https with the broker's server certificate from the test PKI (Ed25519, SAN
# 127.0.0.1), two simulated nodes. Checked with curl and the official MCP TypeScript SDK, both
# trusting only the fleet CA: health, resource metadata naming https, the SDK's list and call, an
# RFC-0009 stream that the server ends with a clean TLS close, plain HTTP refused, and option
# errors that refuse to start the broker.
. "$(dirname "$0")/lib.sh"

E2E_SCHEME=https
E2E_BROKER_LINES=("plugin_opt_http_tls_cert $T/pki/server.crt" "plugin_opt_http_tls_key $T/pki/server.key")
e2e_start 2
CA=(--cacert "$T/pki/ca.crt")
pass "mosquitto + plugin serve MCP over https; both nodes online ($E2E_URL)"
assert_contains "$(grep -m1 'MCP endpoint' "$T/broker.log")" "https://127.0.0.1:$HTTP_PORT/mcp" "the broker log names the https endpoint"

assert_eq "$(curl -s "${CA[@]}" -o /dev/null -w '%{http_code}' "$E2E_BASE/healthz")" 200 "GET /healthz over TLS"
assert_eq "$(curl -s "${CA[@]}" "$E2E_BASE/.well-known/oauth-protected-resource" | jq -r .resource)" "$E2E_URL" \
  "the protected-resource metadata names the https URL"
tls=$(curl -s -v "${CA[@]}" -o /dev/null "$E2E_BASE/healthz" 2>&1 | grep -oE 'SSL connection using [^ ]+' || true)
assert_contains "$tls" "TLSv1.3" "TLS 1.3 with the fleet's Ed25519 certificate"
[ "$(curl -s -o /dev/null -w '%{http_code}' --tls-max 1.1 "${CA[@]}" "$E2E_BASE/healthz")" = 000 ] || fail "TLS 1.1 accepted"
pass "TLS 1.1 refused"
if curl -s -m 5 "http://127.0.0.1:$HTTP_PORT/healthz" -o /dev/null; then fail "plain HTTP answered on the TLS port"; fi
pass "plain HTTP on the TLS port gets no answer"

MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN NODE=${E2E_NODES[0]} NODE_EXTRA_CA_CERTS=$T/pki/ca.crt \
  node "$SRC/tests/node/tls_client.mjs" || fail "the MCP SDK client over TLS"

# A stream the server ends: the node goes offline, the RFC-0009 stream gets close 4503, and as the
# body runs until the connection closes, the server ends the TLS session with close_notify so the
# client can tell the end from a truncation. openssl s_client -msg shows the alert.
body="{\"tool\":\"sys.${E2E_NODES[0]}.metrics.subscribe\",\"arguments\":{\"interval_ms\":1000}}"
{ printf 'POST /mcp/tools/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n\r\n%s' \
    "$E2E_TOKEN" "${#body}" "$body"; sleep 30; } \
  | timeout 30 openssl s_client -connect "127.0.0.1:$HTTP_PORT" -CAfile "$T/pki/ca.crt" -msg -ign_eof >"$T/sse.txt" 2>&1 &
track $!
wait_until 10 grep -q "event: metric" "$T/sse.txt" || fail "no metric frame over TLS: $(tail -5 "$T/sse.txt")"
kill "$DEVICE_PID"
wait_until 10 grep -q '"code":4503' "$T/sse.txt" || fail "no close 4503: $(tail -5 "$T/sse.txt")"
pass "the stream closes with 4503 when the node goes offline"
wait_until 5 grep -q '<<< TLS 1.3, Alert .* close_notify' "$T/sse.txt" || fail "the server cut the TLS session without close_notify"
pass "and ends the TLS session with close_notify"
kill -0 "$BROKER_PID" || fail "the broker died"

# Configuration errors refuse to start the broker and name the option.
conf_refused() {  # conf_refused LINE... : mosquitto with these lines must exit, its log naming $want
  broker_refuses "$(plugin_broker_conf "$(free_port)" "$(free_port)" "$@")" "$want" "refused: $want"
}
want="plugin_opt_http_tls_key: is missing" conf_refused "plugin_opt_http_tls_cert $T/pki/server.crt"
want="plugin_opt_http_tls_key: $T/pki/ca.key is not the key of" \
  conf_refused "plugin_opt_http_tls_cert $T/pki/server.crt" "plugin_opt_http_tls_key $T/pki/ca.key"
want="plugin_opt_http_tls_cert: cannot use $T/pki/issuer.pub" \
  conf_refused "plugin_opt_http_tls_cert $T/pki/issuer.pub" "plugin_opt_http_tls_key $T/pki/server.key"
