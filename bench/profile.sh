#!/usr/bin/env bash
# Where the CPU goes: profiles the broker (with the plugin) during a tools/call load, or the device
# client during echo commands, and prints the top functions. Printed, never asserted (issue 15).
#
# Usage: FLEETMCP_BINARY_DIR=build bench/profile.sh broker [--callgrind] | calls [--callgrind] [--modes M] | device
#          [--nodes N] [--calls N] [--rate R] [--seconds S] [--top N] [--keep]
#   broker: mosquitto + plugin + HTTP front + N simulated nodes (default 20); `perf record`
#           (cpu-clock sampling with call graphs, so it works without hardware counters, e.g.
#           in a VM) on the broker while bench/http_load sends RFC-0009 tools/call at R calls/s
#           (default 150: the shipped echo limit is 10 calls/s per node, so keep R under 10 x N)
#           for S s (default 10); prints the broker's CPU per call, its time by library and
#           the top functions by self time.
#   broker --callgrind: the broker runs under callgrind instead (instrumentation switched on
#           only for the load): instructions per tools/call (every broker thread, the plugin's
#           tick and HTTP threads included; at a low rate, R 50 by default here, since the
#           broker runs ~50x slower) and the top functions. Compare runs of the same R and S.
#   calls: the broker's cost per call against its cost per raw MQTT request/response over the same
#           TLS listener (issue 15's targets are ratios of the two), in one run of one broker:
#           the same open-loop load (R per s, default 80; 40 with --callgrind; N nodes, default
#           10: keep R under 10 x N, the shipped echo limit) of RFC-0009
#           tools/call, MCP tools/call (one 2025-06-18 session), MCP tools/call at 2026-07-28 (mcp2026:
#           no session, _meta and headers on every request) and bench/mqtt_roundtrip with its responder
#           on the mTLS device listener (the "mqtt-tls" rows of bench/http_bench.sh). Prints the
#           broker CPU seconds per call from /proc (utime+stime) for each and their ratios.
#   calls --callgrind: the broker runs under callgrind and the same three loads give broker
#           INSTRUCTIONS per call, which do not depend on the machine's load:
#             instructions per call: rfc0009 X, mcp Y, raw mqtt-tls Z, ratio X/Z, Y/Z
#             instructions per MCP call: 2026-07-28 W, 2025-06-18 session Y, ratio W/Y
#           Each load runs twice (2 s and S s, default 10) and the figure is the difference
#           of the two runs' instructions over the difference of their calls, so the
#           connections, TLS handshakes and MCP session a load opens once do not count; from
#           that difference the broker's instructions in S - 2 s without load (measured once:
#           its timers, $SYS, the nodes' telemetry) are taken first, so they do not count as
#           calls either. Use --seconds 30 or more to compare two modes.
#   device: the same broker and one node run under `valgrind --tool=callgrind` with instrumentation
#           off; it is switched on (callgrind_control -i) for exactly N echo commands
#           (default 2000, one in flight, over the plugin's $CONTROL path: tests/programs/plugin_call)
#           and prints instructions per command and the top functions by inclusive and self
#           instruction counts. Instruction counts do not depend on the machine's load, so two
#           runs on a busy machine still compare (wall clock and CPU time do not).
#   calls also prints the broker's context switches and CPU time per call by thread
#           (/proc/PID/task/*/status and schedstat)
#           and, in a second run of each load under `perf trace -s`, its system calls per call by
#           thread and the most frequent ones per thread. --modes "rfc0009 mqtt-tls" runs only those;
#           --broker-line "plugin_opt_http_threads 1" adds a line to the broker's configuration.
#   --top N: how many functions to print (default 25).
# Outputs (perf.data / callgrind.out and the full annotation) stay in the printed directory
# with --keep (default: removed with the rest of the run's files).
# Needs: perf (Debian linux-perf) for broker, valgrind for device; a build of fleetmcp-device,
# fleetmcp_plugin, fleetctl, http_load, plugin_call (RelWithDebInfo names more inlined frames).
. "$(dirname "$0")/../tests/integration/lib.sh"

WHAT= NODES= CALLS=2000 RATE= PROFILE_SECONDS=10 TOP=25 KEEP= CALLGRIND= CALL_MODES="rfc0009 mcp mcp2026 mqtt-tls"
EXTRA_BROKER_LINES=()
while [ $# -gt 0 ]; do
  case $1 in
    broker|calls|device) WHAT=$1; shift ;;
    --nodes) NODES=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --seconds) PROFILE_SECONDS=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --modes) CALL_MODES=$2; shift 2 ;;
    --broker-line) EXTRA_BROKER_LINES+=("$2"); shift 2 ;;
    --keep) KEEP=1; shift ;;
    --callgrind) CALLGRIND=1; shift ;;
    --help|-h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$WHAT" ] || { echo "say what to profile: broker or device (see --help)" >&2; exit 2; }
[ -z "$KEEP" ] || KEEP_TMP=1  # lib.sh keeps $T at exit

profile_broker() {
  [ -z "$CALLGRIND" ] || { profile_broker_callgrind; return; }
  RATE=${RATE:-150}
  command -v perf >/dev/null || fail "perf is not installed (apt-get install linux-perf)"
  e2e_start "${NODES:-20}" --log-level warn
  printf "%s\n" "${E2E_NODES[@]}" >"$T/nodes.txt"
  "$BIN/bench/http_load" rate --port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --rate 200 --seconds 2 \
    --warmup 1 >/dev/null || fail "warm-up load failed"
  perf record -e cpu-clock -F 4999 -g -p "$BROKER_PID" -o "$T/perf.data" -- sleep "$((PROFILE_SECONDS + 2))" \
    2>"$T/perf-record.log" &
  local perf_pid=$!
  sleep 0.5
  "$BIN/bench/http_load" rate --port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --rate "$RATE" \
    --seconds "$PROFILE_SECONDS" --warmup 0 --watch "broker=$BROKER_PID,fleet=$DEVICE_PID" --json >"$T/load.json" \
    || fail "load failed"
  wait "$perf_pid" || fail "perf record failed (see $T/perf-record.log; perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid))"
  echo "== broker during $RATE RFC-0009 tools/call per s over ${NODES:-20} nodes, ${PROFILE_SECONDS} s"
  jq -r '"  \(.ok) calls ok, \(.failed) failed (E_RATE_LIMITED above 10/s per node), CPU per call: broker \(.cpu_us_per_call.broker|floor) us, fleet \(.cpu_us_per_call.fleet|floor) us"' "$T/load.json"
  echo "== broker time by library (perf report --sort dso)"
  perf_table --sort dso | head -n 12 || true
  echo "== top $TOP functions by self time (perf report --no-children)"
  perf_table --sort dso,symbol | head -n "$TOP" || true
  echo "(with --keep: perf report -i $T/perf.data --children for the call graphs)"
}

# callgrind_report OUT UNITS WHAT: instructions per unit and the top functions of a callgrind dump.
callgrind_report() {
  local out=$1 units=$2 what=$3 total
  callgrind_annotate --inclusive=yes "$out" >"$T/inclusive.txt" 2>/dev/null
  callgrind_annotate "$out" >"$T/self.txt" 2>/dev/null
  total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$T/self.txt")
  echo "  $total instructions in all, $((total / units)) per $what"
  echo "== top $TOP functions by inclusive instructions"
  grep -E '^ *[0-9,]+ ' "$T/inclusive.txt" | head -n "$TOP" || true
  echo "== top $TOP functions by self instructions"
  grep -E '^ *[0-9,]+ ' "$T/self.txt" | head -n "$TOP" || true
  echo "(with --keep: callgrind_annotate --tree=calling $out, or kcachegrind, for the call graph)"
}

# mosquitto_under_callgrind: lib.sh starts `mosquitto`; put one first on PATH that is mosquitto
# under callgrind with instrumentation off (exec, so BROKER_PID is the profiled process).
mosquitto_under_callgrind() {
  command -v valgrind >/dev/null || fail "valgrind is not installed"
  mkdir -p "$T/bin"
  printf '#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=%s %s "$@"\n' \
    "$T/callgrind.out" "$(command -v mosquitto)" >"$T/bin/mosquitto"
  chmod +x "$T/bin/mosquitto"
  BROKER_START_SECONDS=120  # valgrind's start, slower still on a loaded machine
  PATH=$T/bin:$PATH
}

profile_broker_callgrind() {
  RATE=${RATE:-50}
  mosquitto_under_callgrind
  e2e_start "${NODES:-10}" --log-level warn
  printf "%s\n" "${E2E_NODES[@]}" >"$T/nodes.txt"
  local load=("$BIN/bench/http_load" rate --port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --json)
  "${load[@]}" --rate 20 --seconds 2 --warmup 1 >/dev/null || fail "warm-up load failed"
  callgrind_control -z "$BROKER_PID" >/dev/null
  callgrind_control -i on "$BROKER_PID" >/dev/null
  "${load[@]}" --rate "$RATE" --seconds "$PROFILE_SECONDS" --warmup 0 >"$T/load.json" || fail "load failed"
  callgrind_control -i off "$BROKER_PID" >/dev/null
  callgrind_control -d "$BROKER_PID" >/dev/null
  local calls
  calls=$(jq -r '.ok + .failed' "$T/load.json")
  echo "== broker (mosquitto + plugin + front) under callgrind during $RATE RFC-0009 tools/call per s, ${PROFILE_SECONDS} s"
  jq -r '"  \(.ok) calls ok, \(.failed) failed, p50 \(.p50_ms) ms under valgrind"' "$T/load.json"
  callgrind_report "$(ls -t "$T"/callgrind.out* | head -1)" "$calls" "tools/call"
}

# perf_table ARGS...: perf report's table rows (no comments, no call graph lines).
perf_table() {
  perf report -i "$T/perf.data" --no-children "$@" --stdio 2>/dev/null | grep '%' | grep -v -e '^#' -e '^ *|' -e '--' || true
}

profile_device() {
  command -v valgrind >/dev/null || fail "valgrind is not installed"
  pki_init
  PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
  mapfile -t E2E_NODES < <(device_enroll 1 "$PORT_TLS")
  run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
  HTTP_PORT=$(broker_http_port broker)
  E2E_BASE=http://127.0.0.1:$HTTP_PORT
  E2E_TOKEN=$(agent_token agent-e2e acme "$E2E_SCOPES")
  local node=${E2E_NODES[0]}
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$T/callgrind.out" \
    "$DEVICE" --config "$T/pki/nodes/$node/device.conf" --log-level warn >"$T/device.log" 2>&1 &
  DEVICE_PID=$!
  track "$DEVICE_PID"
  e2e_wait_online 1 120
  local call=("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub agent-e2e --token "$E2E_TOKEN"
              --tool "sysecho.$node.echo.invoke")
  "${call[@]}" --count 50 >/dev/null || fail "warm-up calls failed"
  callgrind_control -z "$DEVICE_PID" >/dev/null
  callgrind_control -i on "$DEVICE_PID" >/dev/null
  local latencies
  latencies=$("${call[@]}" --count "$CALLS") || fail "calls failed"
  callgrind_control -i off "$DEVICE_PID" >/dev/null
  callgrind_control -d "$DEVICE_PID" >/dev/null
  echo "== fleetmcp-device (one node, mTLS) during $CALLS echo commands, one in flight ($latencies under valgrind)"
  echo "  (every thread counts: Paho, TLS, parse, dispatch, ack)"
  callgrind_report "$(ls -t "$T"/callgrind.out* | head -1)" "$CALLS" "echo command"
}

# ---- calls: the broker's cost per tools/call against raw MQTT over TLS ------------------------------

# calls_load MODE SECONDS: one open-loop load of MODE (rfc0009, mcp, mcp2026, mqtt-tls) at $RATE per s, its
# JSON line on stdout.
calls_load() {
  local mode=$1 seconds=$2
  local watch=(--watch "broker=$BROKER_PID")
  case $mode in
    rfc0009|mcp|mcp2026)
      "$BIN/bench/http_load" rate --api "$mode" --port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --json \
        "${watch[@]}" --rate "$RATE" --seconds "$seconds" --warmup 0 ;;
    mqtt-tls)
      "$BIN/bench/mqtt_roundtrip" --port "$PORT_PLAIN" --username agent-e2e --password "$E2E_TOKEN" \
        --topics "${#E2E_NODES[@]}" --tls-port "$PORT_TLS" --ca "$T/pki/ca.crt" --responder-bundle "$T/bench-responder" \
        --json "${watch[@]}" --rate "$RATE" --seconds "$seconds" --warmup 0 ;;
  esac
}

# per_call_names CALLS: callgrind_annotate's lines on stdin as "instructions-per-call name", with
# template arguments, the argument list and the library path cut so that a name fits on a line.
# (The whole run's instructions over its calls: the load's connections count in, a little.)
per_call_names() {
  CALLS=$1 perl -ne '
    next unless /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/;
    my ($n, $f) = ($1, $2);
    $n =~ s/,//g;
    1 while $f =~ s/<[^<>]*>//g;
    $f =~ s/ \[\/[^\]]*\]$//;
    $f =~ s/^\?\?\?://;
    $f =~ s/ \[clone [^\]]*\]//g;
    $f =~ s/\((?:[^()]|\([^()]*\))*\)(?: const)?(\x27\d+)?$/$1/;
    printf "%9d  %s\n", $n / $ENV{CALLS}, substr($f, 0, 140);'
}

# callgrind_total FILE: the instructions a callgrind dump counts.
callgrind_total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'; }

# calls_callgrind MODE SECONDS: runs the load with instrumentation on; prints "CALLS INSTRUCTIONS".
calls_callgrind() {
  local mode=$1 seconds=$2 line dump
  callgrind_control -z "$BROKER_PID" >/dev/null
  callgrind_control -i on "$BROKER_PID" >/dev/null
  line=$(calls_load "$mode" "$seconds") || fail "$mode load failed"
  callgrind_control -i off "$BROKER_PID" >/dev/null
  callgrind_control -d "$BROKER_PID" >/dev/null
  dump=$(ls -t "$T"/callgrind.out* | head -1)
  mv "$dump" "$T/callgrind.$mode.${seconds}s"
  echo "$(jq -r '.ok + .failed' <<<"$line") $(callgrind_total "$T/callgrind.$mode.${seconds}s")"
}

# idle_callgrind SECONDS: the broker's instructions in SECONDS with no load (what a load's
# figure must not count: timers, $SYS, the nodes' telemetry and announces).
idle_callgrind() {
  local dump
  callgrind_control -z "$BROKER_PID" >/dev/null
  callgrind_control -i on "$BROKER_PID" >/dev/null
  sleep "$1"
  callgrind_control -i off "$BROKER_PID" >/dev/null
  callgrind_control -d "$BROKER_PID" >/dev/null
  dump=$(ls -t "$T"/callgrind.out* | head -1)
  mv "$dump" "$T/callgrind.idle.${1}s"
  echo "$(callgrind_total "$T/callgrind.idle.${1}s")"  # its pipe ends early (awk's exit): not this function's status
}

# task_switches: "thread-name voluntary nonvoluntary cpu-ns" for every thread of the broker (the
# plugin's threads are named: fleetmcp-http, fleetmcp-waker; mosquitto's own thread is
# "mosquitto"). cpu-ns is the first field of schedstat: time on a CPU, in nanoseconds (utime and
# stime come in 10 ms ticks, too coarse for a few hundred milliseconds of load).
task_switches() {
  local task
  for task in /proc/"$BROKER_PID"/task/*; do
    awk -v name="$(cat "$task/comm" 2>/dev/null)" -v ns="$(cut -d' ' -f1 "$task/schedstat" 2>/dev/null)" \
      '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
      END { print name, v, n, ns + 0 }' "$task/status" 2>/dev/null
  done
}

# switches_per_call BEFORE AFTER CALLS: the broker's context switches and CPU time per call, by
# thread name: which thread a call's cost is in (a raw MQTT request/response has only mosquitto's).
switches_per_call() {
  awk -v calls="$3" '
    FNR == NR { v[$1] -= $2; n[$1] -= $3; ns[$1] -= $4; next }
    { v[$1] += $2; n[$1] += $3; ns[$1] += $4 }
    END {
      line = ""; cpu = ""
      for (t in v) {
        tv += v[t]; tn += n[t]
        line = line sprintf(", %s %.2f", t, (v[t] + n[t]) / calls)
        cpu = cpu sprintf(", %s %.0f", t, ns[t] / 1000 / calls)
      }
      printf "    context switches per call: %.2f (voluntary %.2f, involuntary %.2f; by thread%s)\n",
        (tv + tn) / calls, tv / calls, tn / calls, substr(line, 2)
      printf "    CPU per call by thread (schedstat, us):%s\n", substr(cpu, 2)
    }' "$1" "$2"
}

# syscalls_per_call MODE: the same load again under `perf trace -s`; system calls per call by
# thread name and the most frequent ones.
syscalls_per_call() {
  local mode=$1 line trace_pid calls
  perf trace -s -p "$BROKER_PID" -o "$T/trace.$mode" 2>/dev/null &
  trace_pid=$!
  sleep 1
  line=$(calls_load "$mode" "$PROFILE_SECONDS") || fail "$mode load failed"
  kill -INT "$trace_pid"
  wait "$trace_pid" || true
  calls=$(jq -r '.ok + .failed' <<<"$line")
  # perf trace -s: a " name (tid), N events, ..." line per thread, then a row per system call
  # whose first two columns are its name and its count.
  awk '/^ .* \([0-9]+\), [0-9]+ events/ { thread = $0; sub(/ \([0-9]+\), .*/, "", thread); sub(/^ +/, "", thread); next }
    thread != "" && $1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ { print thread, $1, $2 }' "$T/trace.$mode" >"$T/trace.$mode.rows"
  awk -v calls="$calls" -v mode="$mode" '{ by_thread[$1] += $3; total += $3 }
    END {
      for (t in by_thread) line = line sprintf(", %s %.1f", t, by_thread[t] / calls)
      printf "  %s: %.1f system calls per call (by thread%s)\n", mode, total / calls, substr(line, 2)
    }' "$T/trace.$mode.rows"
  awk -v calls="$calls" '{ n[$1 " " $2] += $3 } END { for (k in n) printf "%s %.2f\n", k, n[k] / calls }' \
    "$T/trace.$mode.rows" | sort -k1,1 -k3,3nr | awk '
      $1 != thread { if (line != "") print line; thread = $1; line = "    " thread ":"; shown = 0 }
      shown < 8 && $3 >= 0.05 { line = line sprintf(" %s %s", $2, $3); shown++ }
      END { if (line != "") print line }' | grep -v ':$' || true
}

profile_calls() {
  local nodes=${NODES:-10}
  if [ -n "$CALLGRIND" ]; then
    RATE=${RATE:-40}
    mosquitto_under_callgrind
  fi
  RATE=${RATE:-80}  # under the shipped echo limit of 10 calls/s per node over the 10 nodes
  # The raw baseline's topics (as in bench/http_bench.sh): the shipped policy defers them to
  # mosquitto's acl_file.
  printf 'pattern readwrite bench/#\n' >"$T/bench.acl"
  E2E_BROKER_LINES=("acl_file $T/bench.acl" "${EXTRA_BROKER_LINES[@]}")
  e2e_start "$nodes" --log-level warn
  printf "%s\n" "${E2E_NODES[@]}" >"$T/nodes.txt"
  local responder
  responder=$(device_enroll 1 "$PORT_TLS")
  mv "$T/pki/nodes/$responder" "$T/bench-responder"
  local modes mode
  read -r -a modes <<<"$CALL_MODES"
  for mode in "${modes[@]}"; do  # warm-up: caches, allocator, TLS session state
    RATE=$((RATE < 20 ? RATE : 20)) calls_load "$mode" 2 >/dev/null || fail "$mode warm-up failed"
  done
  if [ -z "$CALLGRIND" ]; then
    echo "== broker CPU and context switches per call (/proc), $RATE calls/s open loop over $nodes nodes, ${PROFILE_SECONDS} s each"
    declare -A cpu
    for mode in "${modes[@]}"; do
      local line
      task_switches >"$T/switches.before"
      line=$(calls_load "$mode" "$PROFILE_SECONDS") || fail "$mode load failed"
      task_switches >"$T/switches.after"
      cpu[$mode]=$(jq -r '.cpu_us_per_call.broker' <<<"$line")
      jq -r --arg m "$mode" '"  \($m): \(.ok) ok, \(.failed) failed, p50 \(.p50_ms*1000|floor/1000) ms, broker \(.cpu_us_per_call.broker|floor) us CPU per call"' <<<"$line"
      switches_per_call "$T/switches.before" "$T/switches.after" "$(jq -r '.ok + .failed' <<<"$line")"
    done
    [ "${#cpu[@]}" -lt 3 ] || awk -v x="${cpu[rfc0009]}" -v y="${cpu[mcp]}" -v z="${cpu[mqtt-tls]}" \
      'BEGIN { printf "broker CPU per call: rfc0009 %.0f us, mcp %.0f us, raw mqtt-tls %.0f us, ratio %.2f, %.2f (target <= 1.5)\n", x, y, z, x / z, y / z }'
    echo "(wall-clock CPU: noisy on a shared machine; --callgrind gives instructions, which are not)"
    if command -v perf >/dev/null; then
      echo "== broker system calls per call (perf trace -s, a second run of each load: tracing slows the broker)"
      for mode in "${modes[@]}"; do syscalls_per_call "$mode"; done
    fi
    return
  fi
  echo "== broker (mosquitto + plugin + front) instructions per call under callgrind, $RATE calls/s open loop over $nodes nodes"
  declare -A per_call calls_in_long_run
  local idle
  idle=$(idle_callgrind "$((PROFILE_SECONDS - 2))")
  echo "  no load: $idle instructions in $((PROFILE_SECONDS - 2)) s"
  for mode in "${modes[@]}"; do
    local short long
    read -r -a short <<<"$(calls_callgrind "$mode" 2)"
    read -r -a long <<<"$(calls_callgrind "$mode" "$PROFILE_SECONDS")"
    [ "${long[0]}" -gt "${short[0]}" ] || fail "$mode: no more calls in ${PROFILE_SECONDS} s than in 2 s"
    per_call[$mode]=$(((long[1] - short[1] - idle) / (long[0] - short[0])))
    calls_in_long_run[$mode]=${long[0]}
    echo "  $mode: ${short[0]} calls in 2 s = ${short[1]} instructions, ${long[0]} calls in ${PROFILE_SECONDS} s = ${long[1]}: ${per_call[$mode]} per call"
  done
  [ "${#per_call[@]}" -lt 3 ] || awk -v x="${per_call[rfc0009]}" -v y="${per_call[mcp]}" -v z="${per_call[mqtt-tls]}" \
    'BEGIN { printf "instructions per call: rfc0009 %d, mcp %d, raw mqtt-tls %d, ratio %.2f, %.2f (rfc0009/mqtt-tls, mcp/mqtt-tls)\n", x, y, z, x / z, y / z }'
  [ -z "${per_call[mcp2026]:-}" ] || [ -z "${per_call[mcp]:-}" ] || awk -v x="${per_call[mcp2026]}" -v y="${per_call[mcp]}" \
    'BEGIN { printf "instructions per MCP call: 2026-07-28 %d, 2025-06-18 session %d, ratio %.3f\n", x, y, x / y }'
  for mode in "${modes[@]}"; do
    [ "$mode" != mqtt-tls ] || continue
    echo "== $mode: top $TOP functions by inclusive instructions per call (the ${PROFILE_SECONDS} s run; template arguments cut)"
    callgrind_annotate --inclusive=yes "$T/callgrind.$mode.${PROFILE_SECONDS}s" 2>/dev/null |
      per_call_names "${calls_in_long_run[$mode]}" | head -n "$TOP" || true  # head closes the pipe early
  done
  echo "(with --keep: callgrind_annotate [--inclusive=yes] [--tree=calling] $T/callgrind.<mode>.<seconds>s for each run)"
}

case $WHAT in
  broker) profile_broker ;;
  calls) profile_calls ;;
  device) profile_device ;;
esac
if [ -n "$KEEP" ]; then echo "kept: $T"; fi
