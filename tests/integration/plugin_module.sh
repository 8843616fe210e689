#!/usr/bin/env bash
# fleetmcp_plugin.so as a module: only the three plugin entry points are exported, and a wrong
# configuration refuses to start the broker with a log line naming what is wrong.
. "$(dirname "$0")/lib.sh"

exports=$(nm -D --defined-only "$PLUGIN" | awk '{print $3}' | sort | tr '\n' ' ')
assert_eq "$exports" "mosquitto_plugin_cleanup mosquitto_plugin_init mosquitto_plugin_version " \
  "the module exports only the three plugin entry points"

pki_init
PORT_TLS=$(free_port); PORT_PLAIN=$(free_port)


conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_ca_fille $T/pki/ca.crt")
broker_refuses "$conf" "plugin_opt_ca_fille: unknown option" "a misspelt option is named"

# The broker refuses the plugin's configuration with one sed edit, naming what is wrong.
refuses_edited() {  # sed-edit expected-line description
  local conf
  conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")
  sed -i "$1" "$conf"
  broker_refuses "$conf" "$2" "$3"
}

refuses_edited '/plugin_opt_loopback_port/d' "plugin_opt_loopback_port: is required" "a missing required option is named"
refuses_edited "s|plugin_opt_ca_file .*|plugin_opt_ca_file $T/pki/issuer.pub|" "plugin_opt_ca_file: " \
  "a CA file that is not a certificate is named"

echo "allow = node publish \$devices/{node_id}/announce retain=maybe" >"$T/bad.acl"
refuses_edited "s|plugin_opt_acl_file .*|plugin_opt_acl_file $T/bad.acl|" \
  "plugin_opt_acl_file: $T/bad.acl:1: allow: retain takes yes or no" "a malformed policy line is named by file and line"
refuses_edited '/check_retain_source/d' "check_retain_source must be true" "a broker without check_retain_source is refused"
refuses_edited 's/set_tcp_nodelay true/set_tcp_nodelay false/' "set_tcp_nodelay must be true" \
  "a broker without set_tcp_nodelay is refused"

conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")
start_mosquitto "$conf" broker
wait_for_line "$T/broker.log" "fleetmcp: first tick" 5 || fail "no first tick"
pass "a correct configuration starts, and MOSQ_EVT_TICK arrives"
wait_for_line "$T/audit.log" '"caller":"fleetmcp-plugin","decision":"accept"' 5 || fail "the waker did not connect"
pass "the loopback waker logs in with its secret"
if mosquitto_pub -h 127.0.0.1 -p "$PORT_PLAIN" -u fleetmcp-plugin -P guess -t x -m y 2>/dev/null; then
  fail "the waker's user with a guessed secret was accepted"
fi
pass "the waker's user with a guessed secret is refused"
