#!/usr/bin/env bash
# Issue 36: two bridged brokers (docs/sharding.md), each mosquitto + fleetmcp_plugin.so with its HTTP
# front, behind Debian's haproxy doing plain round robin (no affinity, no retries), the shape
# docs/http-front.md "Behind a load balancer" describes: both fronts read one request-state key
# file. The nodes are connected to A; B bridges in from A. The v2 SDK client pinned to 2026-07-28
# (tests/node/balanced_client.mjs) talks to the balancer only: the same tools/list on both fronts,
# every call answered exactly once, a confirmation begun on one front finished on the other,
# another tenant's node invisible on both; a subscriptions/listen stream told of a node enrolling.
. "$(dirname "$0")/lib.sh"
command -v haproxy >/dev/null || { echo "SKIP: haproxy is not installed (scripts/install-deps.sh)"; exit 77; }

pki_init
A_TLS=$(free_port) A_PLAIN=$(free_port) A_HTTP=$(free_port) A_BRIDGE=$(free_port)
B_TLS=$(free_port) B_PLAIN=$(free_port) B_HTTP=$(free_port)
LB=$(free_port)
mapfile -t nodes < <(device_enroll 1 "$A_TLS")
node=${nodes[0]}
openssl rand -hex 32 >"$T/request-state.key"
for b in a b; do
  eval "tls=\$${b^^}_TLS plain=\$${b^^}_PLAIN http=\$${b^^}_HTTP"
  bridged_broker_conf "$b" "$tls" "$plain" "$http" --set plugin_opt_http_request_state_key_file "$T/request-state.key"
done
bridge_listener "$T/a.conf" "$A_BRIDGE"
bridge_section "$T/b.conf" to-a "$A_BRIDGE" bridge-b in
run_broker "$T/a.conf" a
start_mosquitto "$T/b.conf" b
for b in a b; do wait_for_line "$T/$b.log" "fleetmcp: plugin ready" 10 || fail "$b not ready"; done
wait_for_line "$T/a-data/fleetmcp-audit.log" '"caller":"bridge-b".*"decision":"accept".*"reason":"bridge"' 10 \
  || fail "A never accepted B's bridge (A audit: $(tail -3 "$T/a-data/fleetmcp-audit.log"))"
pass "two brokers with the plugin, B bridged in from A, one request-state key file"

device_start fleet --simulate 1 --bundle-dir "$T/pki" --catalogue
other=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant other --count 1 --broker "mqtts://127.0.0.1:$A_TLS" 2>>"$T/enroll.log") ||
  fail "enrolling a node of tenant other"
device_start other --config "$T/pki/nodes/$other/device.conf"
serving() {  # serving HTTP_PORT : that front counts both nodes online and serving
  [ "$(curl -s "http://127.0.0.1:$1/healthz" | jq -r '"\(.nodes.online // 0) \(.serving // 0)"')" = "2 2" ]
}
wait_until 30 serving "$A_HTTP" || fail "A's front does not serve both nodes ($(curl -s "http://127.0.0.1:$A_HTTP/healthz"))"
wait_until 15 serving "$B_HTTP" || fail "B's front does not serve the bridged nodes ($(curl -s "http://127.0.0.1:$B_HTTP/healthz"))"
pass "both fronts serve acme's node and tenant other's, connected to A"

# Plain round robin, per request (HTTP mode), no stickiness, no retries or redispatch (a request
# is sent once); it names the front that answered.
cat >"$T/haproxy.cfg" <<CFG
global
  maxconn 64
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 0
frontend mcp
  bind 127.0.0.1:$LB
  default_backend fronts
backend fronts
  balance roundrobin
  # haproxy keeps a client's server connection for its next request unless told otherwise: close
  # it after each answer, so that every request is balanced on its own.
  option http-server-close
  http-response set-header X-Fleet-Front %s
  server a 127.0.0.1:$A_HTTP
  server b 127.0.0.1:$B_HTTP
CFG
haproxy -f "$T/haproxy.cfg" -db >"$T/haproxy.log" 2>&1 &
track $!
wait_for_port "$LB"

calls=10
started=$SECONDS
MCP_URL=http://127.0.0.1:$LB/mcp TOKEN=$(agent_token agent-lb acme "$E2E_SCOPES") \
  NODE=$node OTHER=$other CALLS=$calls timeout 120 node "$SRC/tests/node/balanced_client.mjs" >"$T/client.log" 2>&1 &
client=$!
track $client
# While the client listens, a new node of acme enrols on A: its tools change acme's list.
listening() { grep -q '^# listening' "$T/client.log" || ! kill -0 "$client" 2>/dev/null; }
wait_until 90 listening || { cat "$T/client.log"; fail "the client never listened"; }
mapfile -t late < <(device_enroll 1 "$A_TLS")
device_start late --config "$T/pki/nodes/${late[0]}/device.conf"
rc=0
wait "$client" || rc=$?
cat "$T/client.log"
[ "$rc" -eq 0 ] || fail "the v2 client through the balancer (logs: $T/a.log $T/b.log $T/haproxy.log)"
echo "# the client's checks took $((SECONDS - started)) s"

# Exactly once, counted where the calls are audited: each front audits the calls it answered.
echo_ok() { grep -c "sysecho.$node.*\"decision\":\"ok\"" "$T/$1-data/fleetmcp-audit.log" || true; }
a=$(echo_ok a) b=$(echo_ok b)
assert_eq "$((a + b))" "$calls" "the $calls echo calls are audited once each, over both fronts ($a on A, $b on B)"
finished=$(sed -n 's/^# accept finished on //p' "$T/client.log")
assert_eq "$(cat "$T"/{a,b}-data/fleetmcp-audit.log | grep -c '"reason":"input_required:accept"')" 1 "one audit line for the accept"
grep -q '"reason":"input_required:accept"' "$T/$finished-data/fleetmcp-audit.log" || fail "the accept is not audited on front $finished"
pass "on the front that finished it ($finished)"
assert_eq "$(cat "$T"/{a,b}-data/fleetmcp-audit.log | grep -c '"reason":"input_required:decline"')" 1 "one audit line for the decline"
