#!/usr/bin/env bash
# What one echo command costs the device in CPU time, thread wake-ups and system calls: one node
# (mTLS, as on a Pi) against a plain local mosquitto, echo commands published straight on its cmd
# topic. Load-independent figures, so two runs on a busy machine still compare (issue 15):
#   CPU per command    utime and stime of the process (/proc/PID/stat) over the run / commands
#   context switches   voluntary and involuntary, summed over every thread (/proc/PID/task/*/status),
#                      and by thread name (Paho's MQTTAsync_rcv and MQTTAsync_send, the device's own)
#   system calls       counted by `perf stat` tracepoints (all, futex, poll, read, write) during the
#                      run when perf can attach (cheap, but it adds a few µs per command: compare
#                      runs made the same way); with --strace also a pass under `strace -c -f`
#                      (every call by name, but strace serialises the threads: its futex counts
#                      are inflated)
#   CPU by library     with --perf, a pass under `perf record -e cpu-clock` (kernel vs each library)
# Two loads: "sporadic" (one command in flight: the next is sent once the last ack is in, so every
# command wakes an idle process, as on a node that gets a call now and then) and "burst" (chunks
# of 500 back to back, as bench/device_footprint.sh sends). Printed, never asserted.
#
#   bench/device_cmd_cost.sh [--sporadic N (2000)] [--burst N (20000)] [--cpu N] [--strace] [--perf] [--keep]
#
# --cpu N runs the device pinned to CPU N (taskset): every hand-off between its threads then stays
# on one CPU, so no wake-up has to rouse another (halted) vCPU. Compare with a run without it.
#
# Uses $FLEETMCP_BINARY_DIR (default build/) for fleetmcp-device and fleetctl; FLEETMCP_DEVICE names
# another fleetmcp-device binary (A/B runs of two builds in the same minutes).
. "$(dirname "$0")/../tests/integration/lib.sh"
DEVICE=${FLEETMCP_DEVICE:-$DEVICE}  # FLEETMCP_DEVICE: another build, for A/B runs
SPORADIC=2000 BURST=20000 STRACE= PERF= PIN=()
while [ $# -gt 0 ]; do
  case $1 in
    --sporadic) SPORADIC=$2; shift 2 ;;
    --burst) BURST=$2; shift 2 ;;
    --cpu) PIN=(taskset -c "$2"); shift 2 ;;
    --strace) STRACE=1; shift ;;
    --perf) PERF=1; shift ;;
    --keep) KEEP_TMP=1; shift ;;
    --help|-h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

# utime stime in clock ticks, for the whole process.
cpu_ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }
# voluntary involuntary context switches, summed over the process's threads.
ctx_switches() {
  cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt/ { v += $2 } /^nonvoluntary_ctxt/ { n += $2 } END { print v, n }'
}
# "thread-name voluntary involuntary", summed by thread name (Paho C names its two threads
# MQTTAsync_send and MQTTAsync_rcv; the device's own keep the program's name).
thread_switches() {
  cat /proc/"$1"/task/*/status | awk '/^Name:/ { name = $2 } /^voluntary_ctxt/ { v[name] += $2 }
    /^nonvoluntary_ctxt/ { n[name] += $2 } END { for (t in v) print t, v[t], n[t] }'
}
# switches_by_thread BEFORE AFTER COMMANDS: "name voluntary/involuntary" per command, by thread name.
switches_by_thread() {
  awk -v n="$3" 'FNR == NR { v[$1] -= $2; i[$1] -= $3; next } { v[$1] += $2; i[$1] += $3 }
    END { for (t in v) if (v[t] + i[t] > 0) line = line sprintf(", %s %.2f/%.2f", t, v[t] / n, i[t] / n)
          print substr(line, 3) }' "$1" "$2"
}
SYSCALL_EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_futex,syscalls:sys_enter_poll,syscalls:sys_enter_read,syscalls:sys_enter_write

pki_init
TLS=$(free_port)
PLAIN=$(free_port)
NODE=$(device_enroll 1 "$TLS")
BUNDLE=$T/pki/nodes/$NODE
# The device does not rate-limit (the broker does); a burst needs more than 4 running at once.
sed -i 's/^capability.echo = .*/capability.echo = system.echo rate_limit_rps=50 max_concurrency=1000 deadline_ms_default=2000/' \
  "$BUNDLE/device.conf"
start_mosquitto "$(tls_broker_conf "$TLS" "$PLAIN")" broker

# cmds FIRST COUNT: COUNT echo cmd envelopes, one a line, msg_ids numbered from FIRST.
cmds() {
  awk -v first="$1" -v n="$2" -v node="$NODE" -v now="$(date +%s%3N)" 'BEGIN {
    for (i = first; i < first + n; i++)
      printf "{\"type\":\"cmd\",\"msg_id\":\"01JE%022d\",\"ts_ms\":%s,\"deadline_ms\":5000,\"payload\":{\"tool\":\"sysecho.%s.echo.invoke\",\"arguments\":{\"message\":\"ping\"}}}\n", i, now, node
  }'
}

# sporadic FIRST COUNT: one command in flight.
sporadic() {
  mkfifo "$T/in.$1" "$T/out.$1"
  mosquitto_sub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd_ack" >"$T/out.$1" 2>/dev/null &
  track $!
  exec {acks}<"$T/out.$1"
  mosquitto_pub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd" -l <"$T/in.$1" 2>/dev/null &
  track $!
  exec {out}>"$T/in.$1"
  sleep 0.5  # both clients connected and subscribed
  local line ack
  while IFS= read -r line; do
    printf '%s\n' "$line" >&"$out"
    IFS= read -r -t 10 ack <&"$acks" || fail "no cmd_ack within 10 s"
  done < <(cmds "$1" "$2")
  exec {out}>&- {acks}<&-
}

# burst FIRST COUNT: chunks of 500 back to back, the next once every ack of the last is in.
burst() {
  cmds "$1" "$2" | split -l 500 - "$T/chunk.$1."
  mosquitto_sub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd_ack" >"$T/acks.$1" 2>/dev/null &
  track $!
  sleep 0.5
  local sent=0 chunk deadline
  for chunk in "$T"/chunk."$1".*; do
    mosquitto_pub -p "$PLAIN" -q 1 -t "\$devices/$NODE/cmd" -l <"$chunk"
    sent=$((sent + $(wc -l <"$chunk")))
    deadline=$((SECONDS + 30))
    until [ "$(wc -l <"$T/acks.$1")" -ge "$sent" ] || [ $SECONDS -ge $deadline ]; do sleep 0.01; done
  done
  [ "$(grep -c '"ok":true' "$T/acks.$1")" -ge "$2" ] || fail "only $(grep -c '"ok":true' "$T/acks.$1") ok acks of $2"
}

# measure NAME FIRST COUNT: runs load NAME against the node and prints its cost per command.
measure() {
  local name=$1 first=$2 n=$3 hz u0 s0 v0 i0 u1 s1 v1 i1 start
  hz=$(getconf CLK_TCK)
  read -r u0 s0 < <(cpu_ticks "$NODE_PID")
  read -r v0 i0 < <(ctx_switches "$NODE_PID")
  thread_switches "$NODE_PID" >"$T/threads.$name.before"
  start=$(date +%s%N)
  local perf_pid=
  if command -v perf >/dev/null; then
    perf stat -x, -o "$T/stat.$name" -p "$NODE_PID" -e "$SYSCALL_EVENTS" 2>/dev/null &
    perf_pid=$!
    sleep 0.2
  fi
  "$name" "$first" "$n"
  read -r u1 s1 < <(cpu_ticks "$NODE_PID")
  read -r v1 i1 < <(ctx_switches "$NODE_PID")
  thread_switches "$NODE_PID" >"$T/threads.$name.after"
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  fi
  awk -v name="$name" -v n="$n" -v hz="$hz" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v v=$((v1 - v0)) -v i=$((i1 - i0)) \
      -v ns=$(($(date +%s%N) - start)) 'BEGIN {
    printf "%-9s %6d cmds in %5.1f s: device CPU %6.1f us per cmd (user %.1f, system %.1f; %d ticks of 1/%d s)\n",
           name, n, ns / 1e9, 1e6 * (u + s) / hz / n, 1e6 * u / hz / n, 1e6 * s / hz / n, u + s, hz
    printf "%-9s context switches per cmd: %.2f voluntary, %.2f involuntary\n", "", v / n, i / n
  }'
  printf "%-9s by thread (voluntary/involuntary per cmd): %s\n" "" \
    "$(switches_by_thread "$T/threads.$name.before" "$T/threads.$name.after" "$n")"
  [ -z "$perf_pid" ] || awk -F, -v n="$n" '$3 ~ /sys_enter/ {
      name = $3; sub(/.*:(sys_enter_)?/, "", name); if (name == "sys_enter") name = "all"
      line = line sprintf(" %s %.2f,", name, $1 / n) }
    END { if (line != "") { sub(/,$/, "", line); printf "%-9s system calls per cmd (perf stat):%s\n", "", line } }' "$T/stat.$name"
}

start_device() {
  # taskset execs the device, so $! is the device's PID either way.
  "${PIN[@]}" "$DEVICE" --config "$BUNDLE/device.conf" --log-level warn 2>"$T/node.log" &
  NODE_PID=$!
  track "$NODE_PID"
  local deadline=$((SECONDS + 20))
  until [ -n "$(timeout 1 mosquitto_sub -p "$PLAIN" -t "\$devices/$NODE/announce" -C 1 2>/dev/null)" ]; do
    kill -0 "$NODE_PID" 2>/dev/null && [ $SECONDS -lt $deadline ] || fail "the node never announced (see $T/node.log)"
  done
}

start_device
echo "fleetmcp-device, one node over mTLS, echo commands on its cmd topic (threads: $(ps -o nlwp= -p "$NODE_PID" | tr -d ' ')${PIN[*]:+; ${PIN[*]}})"
sporadic 0 50  # warm-up: connections, caches
next=100
if [ "$SPORADIC" -gt 0 ]; then measure sporadic "$next" "$SPORADIC"; next=$((next + SPORADIC)); fi
if [ "$BURST" -gt 0 ]; then measure burst "$next" "$BURST"; next=$((next + BURST)); fi

# profiled LOAD N TOOL ARGS...: runs TOOL ARGS (a profiler attached to the node) in the background
# while LOAD sends N more commands, then stops it with SIGINT so it writes its report.
profiled() {
  local load=$1 n=$2 tool_pid; shift 2
  "$@" &
  tool_pid=$!
  sleep 1
  "$load" "$next" "$n"
  next=$((next + n))
  kill -INT "$tool_pid"; wait "$tool_pid" 2>/dev/null || true
}

for load in sporadic burst; do
  n=$([ $load = sporadic ] && echo 1000 || echo 5000)
  if [ -n "$STRACE" ]; then
    profiled "$load" "$n" strace -c -f -p "$NODE_PID" -o "$T/strace.$load" 2>/dev/null
    echo "== system calls per cmd, $load ($n cmds under strace -c -f; includes the idle ticks of that time)"
    awk -v n="$n" '$1 ~ /^[0-9.]+$/ && NF >= 5 { printf "  %-16s %6.2f\n", $NF, $4 / n }' "$T/strace.$load"
  fi
  if [ -n "$PERF" ]; then
    profiled "$load" "$n" perf record -e cpu-clock -F 4999 -p "$NODE_PID" -o "$T/perf.$load" 2>/dev/null
    echo "== device CPU by library, $load ($n cmds under perf record -e cpu-clock; [kernel.kallsyms] is system time)"
    perf report -i "$T/perf.$load" --sort dso --stdio 2>/dev/null | grep '%' | grep -v '^#' | head -n 12 || true
    echo "== top functions, $load"
    perf report -i "$T/perf.$load" --sort dso,sym --stdio 2>/dev/null | grep '%' | grep -v '^#' | head -n 25 || true
  fi
done
if [ -n "${KEEP_TMP:-}" ]; then echo "kept: $T"; fi
