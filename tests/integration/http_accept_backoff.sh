#!/usr/bin/env bash
# Out of file descriptors, the HTTP front's acceptor backs off (issue 17 item 4; docs/http-front.md
# "Limits and quotas"): a broker whose connection caps are above its descriptor limit warns at
# start, and when accept() fails with EMFILE it retries once a second instead of spinning.
# Runs on the Release build only (label release): under the sanitizers UBSan's vptr check probes
# memory through a pipe(), which gets EMFILE first and stops the broker with a false "invalid vptr".
. "$(dirname "$0")/lib.sh"

# Few descriptors, as a small broker host has.
ulimit -Sn 160
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ] || { echo "skip: the hard descriptor limit is under 1024"; exit 77; }
pki_init
PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_http_max_connections 100000" \
  "plugin_opt_http_max_connections_per_address 100000" "plugin_opt_http_max_connections_per_prefix 100000")" broker
HTTP_PORT=$(broker_http_port broker)
grep -q "max_connections 100000 is over half the broker's file descriptor limit" "$T/broker.log" ||
  fail "no warning about a connection cap over half the descriptor limit"
pass "a connection cap over half the descriptor limit is warned about at start"

coproc HOLD { ulimit -Sn "$(ulimit -Hn)"; exec node "$SRC/tests/node/http_limits_client.mjs" hold "http://127.0.0.1:$HTTP_PORT" 300 127.0.0.1; }
track "$HOLD_PID"
read -r -t 60 line <&"${HOLD[0]}" || fail "the connection holder printed nothing"
wait_for_line "$T/broker.log" "accept failed .*retrying every second" 20 || fail "no accept back-off logged (see $T/broker.log)"
cpu() { awk '{print $14 + $15}' "/proc/$BROKER_PID/stat"; }
before=$(cpu); sleep 3; used=$(($(cpu) - before))
[ "$used" -lt 100 ] || fail "the broker used $used clock ticks in 3 s while out of descriptors: accept is spinning"
pass "out of descriptors, the acceptor backs off (broker CPU: $used ticks in 3 s)"
exec {HOLD[1]}>&-
wait "$HOLD_PID" 2>/dev/null || true
