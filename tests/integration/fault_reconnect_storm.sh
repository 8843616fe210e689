#!/usr/bin/env bash
# Fault: a reconnect storm (issue 8). STORM_NODES simulated nodes (default 2000, one
# fleetmcp-device process) connect and announce at once; then the process is killed and started
# again, so every node reconnects and re-announces together. Reports the time until the front
# counts them all online both times; fails past STORM_LIMIT_S (default 120 s) each.
. "$(dirname "$0")/lib.sh"

n=${STORM_NODES:-2000}
limit=${STORM_LIMIT_S:-120}
# e2e_start (lib.sh) step by step: its own wait allows 60 s, a storm on a loaded machine more.
pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
mapfile -t E2E_NODES < <(device_enroll "$n" "$PORT_TLS")
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
HTTP_PORT=$(broker_http_port broker)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
e2e_start_begin=$(date +%s%3N)
device_start fleet --simulate "$n" --bundle-dir "$T/pki"
e2e_wait_online "$n" "$limit"
pass "first connection: all $n nodes verified and online after $(( $(date +%s%3N) - e2e_start_begin )) ms"

kill -9 "$DEVICE_PID"
deadline=$((SECONDS + 30))
until [ "$(e2e_online_count)" = 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "$(e2e_online_count) nodes still online 30 s after their process was killed"
  sleep 0.2
done
pass "all $n nodes seen offline after the kill"

storm_begin=$(date +%s%3N)
device_start fleet2 --simulate "$n" --bundle-dir "$T/pki"
e2e_wait_online "$n" "$limit"
pass "reconnect storm: all $n nodes re-verified and online after $(( $(date +%s%3N) - storm_begin )) ms"
grep -c '"decision":"accept"' "$T/audit.log" | { read -r accepted
  [ "$accepted" -ge $((2 * n)) ] || fail "only $accepted accepted announces in the audit log for 2 x $n"; }
pass "every announce of both rounds was verified (audit log)"
