#!/usr/bin/env bash
# fleetmcp-device footprint and throughput against a local mosquitto (docs/protocol.md §10 budgets: one node
# <= 10 MiB RSS and <= 0.5 % CPU idle with 1 Hz telemetry; 1,000 simulated nodes <= 300 MiB).
# Prints figures; never run as a test.
#
#   bench/device_footprint.sh [IDLE_SECONDS (60)] [SIMULATED_NODES (1000)] [ECHO_CMDS (20000)]
#
# Uses $FLEETMCP_BINARY_DIR (default build/) for fleetmcp-device and fleetctl.
# lib.sh gives $T (removed at exit with every tracked process), the program paths, and free_port /
# wait_for_port, whose ports are claimed so that two benches or tests running at once never share one.
. "$(dirname "$0")/../tests/integration/lib.sh"

IDLE_S=${1:-60}
SIM_N=${2:-1000}
ECHO_N=${3:-20000}

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN{printf "%.1f MiB", k / 1024}'; }
# RSS split into private anonymous memory and file pages (shared libraries), and PSS.
rss_detail() {
  local anon file pss
  anon=$(awk '/^RssAnon/{print $2}' "/proc/$1/status")
  file=$(awk '/^RssFile/{print $2}' "/proc/$1/status")
  pss=$(awk '/^Pss:/{print $2}' "/proc/$1/smaps_rollup")
  echo "anon $(mib "$anon"), file-backed $(mib "$file"), PSS $(mib "$pss")"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

TLS=$(free_port)
PLAIN=$(free_port)
echo "setup: test PKI and $SIM_N enrolment bundles in $T"
"$FLEETCTL" pki init --dir "$T/pki" >/dev/null
"$FLEETCTL" pki enroll --dir "$T/pki" --tenant bench --count "$SIM_N" --broker "mqtts://127.0.0.1:$TLS" \
  >"$T/nodes.txt" 2>/dev/null
start_mosquitto "$(tls_broker_conf "$TLS" "$PLAIN" "log_type error" "max_queued_messages 100000")" mosquitto

NODE=$(head -1 "$T/nodes.txt")
BUNDLE=$T/pki/nodes/$NODE
sed -i -e 's/^telemetry_interval_ms = .*/telemetry_interval_ms = 1000/' "$BUNDLE/device.conf"

# ---- one node, idle, 1 Hz telemetry ------------------------------------------------------------
"$DEVICE" --config "$BUNDLE/device.conf" --log-level warn 2>"$T/node.log" &
NODE_PID=$!
track "$NODE_PID"
sleep 5  # connect, announce, settle
hz=$(getconf CLK_TCK)
t0=$(cpu_ticks "$NODE_PID")
start=$(date +%s%N)
mosquitto_sub -p "$PLAIN" -t "\$devices/$NODE/telemetry" -W "$IDLE_S" >"$T/telemetry.jsonl" 2>/dev/null || true
t1=$(cpu_ticks "$NODE_PID")
elapsed_ns=$(($(date +%s%N) - start))
rss=$(rss_kib "$NODE_PID")
hwm=$(awk '/^VmHWM/{print $2}' "/proc/$NODE_PID/status")
samples=$(wc -l <"$T/telemetry.jsonl")
cpu_pct=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v ns="$elapsed_ns" 'BEGIN{printf "%.3f", 100 * d / hz / (ns / 1e9)}')
echo
echo "one node, idle, 1 Hz telemetry, ${IDLE_S} s:"
echo "  RSS                 $(mib "$rss") (peak $(mib "$hwm"))   budget 10 MiB"
echo "                      $(rss_detail "$NODE_PID")"
echo "  CPU                 ${cpu_pct} %   ($((t1 - t0)) ticks of 1/${hz} s)   budget 0.5 %"
echo "  telemetry samples   ${samples} in ${IDLE_S} s"
echo "  threads             $(ps -o nlwp= -p "$NODE_PID" | tr -d ' ')"

# ---- echo throughput of that node ----------------------------------------------------------------
# Chunks of CHUNK cmds published back to back at QoS 1, the next chunk once every ack of the last
# is in: the node is kept busy without queueing more than a gateway with CHUNK calls in flight would.
CHUNK=500
kill "$NODE_PID"
wait "$NODE_PID" 2>/dev/null || true
# A chunk arrives faster than echo returns: let every cmd of it run rather than measure refusals.
sed -i 's/^capability.echo = .*/capability.echo = system.echo rate_limit_rps=50 max_concurrency=1000 deadline_ms_default=2000/' \
  "$BUNDLE/device.conf"
"$DEVICE" --config "$BUNDLE/device.conf" --log-level warn 2>"$T/node-echo.log" &
NODE_PID=$!
track "$NODE_PID"
sleep 3
now=$(date +%s%3N)
awk -v n="$ECHO_N" -v node="$NODE" -v now="$now" 'BEGIN {
  for (i = 1; i <= n; i++)
    printf "{\"type\":\"cmd\",\"msg_id\":\"01JE%022d\",\"ts_ms\":%s,\"deadline_ms\":5000,\"payload\":{\"tool\":\"sysecho.%s.echo.invoke\",\"arguments\":{\"message\":\"ping\"}}}\n", i, now, node
}' >"$T/cmds.jsonl"
split -l "$CHUNK" "$T/cmds.jsonl" "$T/chunk."
mosquitto_sub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd_ack" >"$T/acks.jsonl" 2>/dev/null &
track $!
sleep 0.5
t0=$(cpu_ticks "$NODE_PID")
start=$(date +%s%N)
sent=0
for chunk in "$T"/chunk.*; do
  mosquitto_pub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd" -l <"$chunk"
  sent=$((sent + $(wc -l <"$chunk")))
  deadline=$((SECONDS + 30))
  until [ "$(wc -l <"$T/acks.jsonl")" -ge "$sent" ] || [ $SECONDS -ge $deadline ]; do sleep 0.01; done
done
elapsed_ns=$(($(date +%s%N) - start))
t1=$(cpu_ticks "$NODE_PID")
acks=$(wc -l <"$T/acks.jsonl")
ok=$(grep -c '"ok":true' "$T/acks.jsonl" || true)
echo
echo "echo throughput of one node (${ECHO_N} cmds in chunks of ${CHUNK}, QoS 1, through mosquitto):"
echo "  cmd_acks            ${acks} (${ok} ok)"
awk -v n="$acks" -v ns="$elapsed_ns" 'BEGIN{printf "  throughput          %.0f cmds/s   (%.2f s)\n", n / (ns / 1e9), ns / 1e9}'
awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$acks" 'BEGIN{printf "  device CPU          %.0f us per cmd\n", 1e6 * d / hz / n}'
echo "  RSS after           $(($(rss_kib "$NODE_PID") / 1024)) MiB"
kill "$NODE_PID"
wait "$NODE_PID" 2>/dev/null || true

# ---- simulated fleet -----------------------------------------------------------------------------
start=$(date +%s%N)
"$DEVICE" --simulate "$SIM_N" --bundle-dir "$T/pki" --log-level info 2>"$T/fleet.log" &
FLEET_PID=$!
track "$FLEET_PID"
wait_lines "$T/fleet.log" "announce.published" "$SIM_N" 300
up_ns=$(($(date +%s%N) - start))
sleep 10
t0=$(cpu_ticks "$FLEET_PID")
sleep 30
t1=$(cpu_ticks "$FLEET_PID")
rss=$(rss_kib "$FLEET_PID")
echo
echo "--simulate ${SIM_N} (5 s base telemetry each):"
awk -v ns="$up_ns" 'BEGIN{printf "  all announced in    %.1f s\n", ns / 1e9}'
echo "  RSS                 $(mib "$rss") ($((rss / SIM_N)) KiB per node)   budget 300 MiB"
echo "                      $(rss_detail "$FLEET_PID")"
awk -v d=$((t1 - t0)) -v hz="$hz" 'BEGIN{printf "  CPU                 %.1f %% of one core (30 s)\n", 100 * d / hz / 30}'
echo "  threads             $(ps -o nlwp= -p "$FLEET_PID" | tr -d ' ')"
start=$(date +%s%N)
kill "$FLEET_PID"
wait "$FLEET_PID" || echo "  (exit status $?)"
awk -v ns=$(($(date +%s%N) - start)) 'BEGIN{printf "  SIGTERM to exit     %.2f s (every session disconnected cleanly)\n", ns / 1e9}'
