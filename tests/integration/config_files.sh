#!/usr/bin/env bash
# The top-level mosquitto.conf: production-shaped (docs/protocol.md §2, §6), and mosquitto really starts
# with it once its paths and ports are substituted (scripts/broker-conf.sh, the derivation the
# local fleet uses): the plugin loads, the mTLS device listener takes an enrolled node, the agent
# listener takes a token, the HTTP front answers. A wrong option refuses to start the broker with
# a message naming it.
. "$(dirname "$0")/lib.sh"

CONF=$SRC/mosquitto.conf
setting() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$CONF"; }

# ---- the file itself ------------------------------------------------------------------------
assert_eq "$(setting per_listener_settings)" false "per_listener_settings false"
assert_eq "$(setting check_retain_source)" true "check_retain_source true"
assert_eq "$(setting set_tcp_nodelay)" true "set_tcp_nodelay true"
assert_eq "$(setting allow_anonymous)" false "allow_anonymous false"
assert_eq "$(setting max_packet_size)" 266240 "max_packet_size: the largest fleet message and its headers (issue 24)"
assert_eq "$(setting persistence)" true "persistence true"
assert_eq "$(setting require_certificate)" true "device listener requires a certificate"
assert_eq "$(setting use_identity_as_username)" true "use_identity_as_username true"
assert_eq "$(setting use_username_as_clientid)" true "use_username_as_clientid true"
assert_eq "$(setting listener | tr '\n' ';')" "8883;1883 127.0.0.1;" "listeners: 8883 (devices), 1883 on loopback (agents)"
assert_eq "$(setting cafile)" /etc/fleetmcp/pki/ca.crt "device CA under /etc/fleetmcp/pki"
assert_eq "$(setting plugin_opt_loopback_port)" 1883 "the waker uses the loopback agent listener"
assert_eq "$(setting plugin_opt_http_listen)" 127.0.0.1:8080 "HTTP front on loopback"
assert_eq "$(setting plugin_opt_control_api)" false "no test driver in production"
# Every plugin_opt_ line comes after the plugin line (mosquitto gives a plugin only those).
plugin_line=$(grep -n '^plugin ' "$CONF" | cut -d: -f1)
first_opt=$(grep -n '^plugin_opt_' "$CONF" | head -1 | cut -d: -f1)
[ "$plugin_line" -lt "$first_opt" ] || fail "plugin_opt_ lines before the plugin line"
pass "plugin options follow the plugin line"
# Every core option it sets is one the plugin knows (docs/plugin.md table).
for key in $(awk '$1 ~ /^plugin_opt_/ && $1 !~ /^plugin_opt_http_/ { sub(/^plugin_opt_/, "", $1); print $1 }' "$CONF"); do
  grep -q "{\"$key\"," "$SRC/broker_plugin/core/plugin_options.cc" || fail "plugin_opt_$key is not a plugin option"
done
pass "every plugin_opt_ key is one plugin_options.cc parses"

# ---- derived and started ----------------------------------------------------------------------
pki_init
mkdir -p "$T/data"
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port); HTTP_PORT=$(free_port)
derive() {
  "$SRC/scripts/broker-conf.sh" --pki "$T/pki" --plugin "$PLUGIN" --data "$T/data" \
    --device-port "$PORT_TLS" --agent-port "$PORT_PLAIN" --http-port "$HTTP_PORT" "$@"
}
derive >"$T/broker.conf" || fail "scripts/broker-conf.sh"
grep -v "^#" "$T/broker.conf" | grep /etc/fleetmcp && fail "derived config still names /etc/fleetmcp"
grep -v "^#" "$T/broker.conf" | grep /usr/lib/fleetmcp && fail "derived config still names /usr/lib/fleetmcp"
pass "derived config has no install paths left"
run_broker "$T/broker.conf" broker
wait_for_line "$T/broker.log" "fleetmcp: plugin ready" 10 || fail "plugin not ready (see $T/broker.log)"
pass "mosquitto starts with mosquitto.conf and the plugin"

wait_for_port "$HTTP_PORT" 10
health=$(curl -sS "http://127.0.0.1:$HTTP_PORT/healthz")
assert_contains "$health" '"status":"ok"' "HTTP front answers /healthz"

# An enrolled node over the mTLS device listener shows up online for an agent on the agent
# listener (username = sub, password = token).
node=$(enroll_nodes acme 1)
sed -i "s|^broker = .*|broker = mqtts://127.0.0.1:$PORT_TLS|" "$T/pki/nodes/$node/device.conf"
token=$(agent_token reader acme "devices:read")
mosquitto_sub -V mqttv5 -p "$PORT_PLAIN" -u reader -P "$token" -q 1 -t "\$devices/+/status" >"$T/status.out" 2>"$T/status.log" &
track $!
device_start node --config "$T/pki/nodes/$node/device.conf"
wait_for_line "$T/status.out" "\"node_id\":\"$node\".*\"state\":\"online\"" 15 \
  || fail "node $node never online (see $T/node.log, $T/broker.log)"
pass "enrolled node verified and online through the device listener; agent reads its status"

# Anonymous clients are refused.
if mosquitto_pub -p "$PORT_PLAIN" -t probe -m x 2>"$T/anon.log"; then fail "anonymous publish accepted"; fi
pass "anonymous client refused"

kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
stop_broker
[ -s "$T/data/fleetmcp-state.json" ] || fail "no plugin state file in the persistence dir"
[ -s "$T/data/fleetmcp-audit.log" ] || fail "no audit log in the log dir"
pass "state file and audit log land where mosquitto.conf puts them"

# ---- refused configurations ------------------------------------------------------------------
# conf_refused NAME EXPECTED_MESSAGE --set KEY VALUE... : mosquitto exits non-zero and says why.
conf_refused() {
  derive "${@:3}" >"$T/$1.conf"
  broker_refuses "$T/$1.conf" "$2" "$1 refused: $2"
}
# The refusal names the file and line of the option (mosquitto gives the plugin no lines: it reads
# the file the broker was started with, common/base/options.h).
line_of() { grep -n "^$2 " "$T/$1.conf" | head -1 | cut -d: -f1; }
conf_refused misspelt ": plugin_opt_ca_fille: unknown option" --set plugin_opt_ca_fille /x
assert_contains "$(cat "$T/misspelt.log")" \
  "fleetmcp: refusing to start: $T/misspelt.conf:$(line_of misspelt plugin_opt_ca_fille): plugin_opt_ca_fille: unknown option" \
  "the unknown option's file and line are named"
conf_refused missing_ca "plugin_opt_ca_file: cannot read /nonexistent/ca.crt" --set plugin_opt_ca_file /nonexistent/ca.crt
assert_contains "$(cat "$T/missing_ca.log")" "$T/missing_ca.conf:$(line_of missing_ca plugin_opt_ca_file): plugin_opt_ca_file:" \
  "the unreadable CA's line is named"
conf_refused bad_http ": plugin_opt_http_listen: 'nowhere' is not host:port" --set plugin_opt_http_listen nowhere
assert_contains "$(cat "$T/bad_http.log")" \
  "fleetmcp: refusing to start: $T/bad_http.conf:$(line_of bad_http plugin_opt_http_listen): plugin_opt_http_listen: 'nowhere' is not host:port" \
  "the HTTP front's option is named with its line"
conf_refused per_listener "per_listener_settings must be false" --set per_listener_settings true
