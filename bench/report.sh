#!/usr/bin/env bash
# One report with every figure the README claims (issue 8), so anyone can reproduce them:
# runs the benchmarks (bench/manifest_verify_bench, bench/plugin_bench.sh, bench/device_footprint.sh,
# bench/http_bench.sh when it exists) and the reliability runs (bench/soak.sh, bench/scale.sh,
# optionally the fault tests), then writes OUT/REPORT.md with their output and gnuplot plots:
# the latency histogram of the soak's calls, broker memory over the soak, nodes online over time
# in the scale run.
#
# Usage: bench/report.sh [--out DIR ($FLEETMCP_BINARY_DIR/report)] [--soak-minutes N (10)]
#                        [--scale-nodes N (10000)] [--skip "NAME…"] [--faults]
#   NAME: verify plugin device http soak scale. --faults also runs ctest -R integration.fault_.
# Takes about 40 minutes with the defaults (`--soak-minutes 1 --scale-nodes 2000` about 8).
# Needs a Release build in $FLEETMCP_BINARY_DIR (default build/) and npm ci in tests/node. Plots
# need gnuplot: when it is missing and this runs as root with apt-get, the script installs
# gnuplot-nox (and says so); otherwise the report is written without plots.
# bench/report/ holds a checked-in sample of the report (date and machine in its header; the
# soak's and scale run's raw CSV files are left out).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${FLEETMCP_BINARY_DIR:-$SRC/build}
export FLEETMCP_BINARY_DIR=$BIN
OUT=$BIN/report SOAK_MINUTES=10 SCALE_NODES=10000 SKIP="" FAULTS=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --soak-minutes) SOAK_MINUTES=$2; shift 2 ;;
    --scale-nodes) SCALE_NODES=$2; shift 2 ;;
    --skip) SKIP=$2; shift 2 ;;
    --faults) FAULTS=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
skipped() { [[ " $SKIP " == *" $1 "* ]]; }
step() { echo; echo "==== [$(date +%H:%M:%S)] $*"; }
status=()  # "name: ok|FAILED (exit N)|skipped …" for the summary

# run NAME LOGFILE COMMAND… : runs a step, output to the terminal and LOGFILE; never stops the report.
run() {
  local name=$1 log=$2; shift 2
  local start=$SECONDS rc=0
  "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then status+=("$name: ok ($((SECONDS - start)) s)"); else status+=("$name: FAILED (exit $rc, $((SECONDS - start)) s)"); fi
}

for f in "$BIN/bench/manifest_verify_bench" "$BIN/broker_plugin/fleetmcp_plugin.so" "$BIN/device_client/fleetmcp-device"; do
  [ -e "$f" ] || { echo "$f is missing: build first (cmake --build $BIN)" >&2; exit 1; }
done
if ! command -v gnuplot >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "gnuplot is missing: installing gnuplot-nox with apt-get for the plots"
    DEBIAN_FRONTEND=noninteractive apt-get install -y gnuplot-nox >"$OUT/gnuplot-install.log" 2>&1 ||
      echo "could not install gnuplot-nox (see $OUT/gnuplot-install.log); no plots" >&2
  else
    echo "gnuplot is missing (apt-get install gnuplot-nox): the report will have no plots" >&2
  fi
fi

if ! skipped verify; then
  step "manifest verification (bench/manifest_verify_bench)"
  run "manifest_verify_bench" "$OUT/manifest_verify.txt" "$BIN/bench/manifest_verify_bench"
fi
if ! skipped plugin; then
  step "broker plugin (bench/plugin_bench.sh)"
  run "plugin_bench.sh" "$OUT/plugin_bench.txt" bash "$SRC/bench/plugin_bench.sh"
fi
if ! skipped device; then
  step "device client footprint (bench/device_footprint.sh 60 1000 20000)"
  run "device_footprint.sh" "$OUT/device_footprint.txt" bash "$SRC/bench/device_footprint.sh" 60 1000 20000
fi
if ! skipped http; then
  if [ -x "$SRC/bench/http_bench.sh" ] || [ -f "$SRC/bench/http_bench.sh" ]; then
    step "HTTP front (bench/http_bench.sh)"
    run "http_bench.sh" "$OUT/http_bench.txt" bash "$SRC/bench/http_bench.sh"
  else
    status+=("http_bench.sh: skipped (not in this tree yet)")
  fi
fi
if ! skipped soak; then
  step "soak (bench/soak.sh --minutes $SOAK_MINUTES)"
  run "soak.sh" "$OUT/soak.txt" bash "$SRC/bench/soak.sh" --minutes "$SOAK_MINUTES" --out "$OUT/soak"
fi
if ! skipped scale; then
  step "scale (bench/scale.sh --nodes $SCALE_NODES)"
  run "scale.sh" "$OUT/scale.txt" bash "$SRC/bench/scale.sh" --nodes "$SCALE_NODES" --out "$OUT/scale"
fi
if [ "$FAULTS" = 1 ]; then
  step "fault tests (ctest -R integration.fault_)"
  run "fault tests" "$OUT/faults.txt" ctest --test-dir "$BIN" -R 'integration\.fault_' --output-on-failure
fi

# ---- plots --------------------------------------------------------------------------------------
plots=()
if command -v gnuplot >/dev/null; then
  step "plots"
  if [ -s "$OUT/soak/calls.csv" ]; then
    # Latency histogram of the unary calls that succeeded, log-spaced bins (10 per decade).
    awk -F, 'NR > 1 && $5 == "ok" && $3 != "subscribe" && $4 > 0 {
        b = int(log($4) / log(10) * 10 + 1000) - 1000; n[$2, b]++; if (b < lo || !seen) lo = b; if (b > hi) hi = b; seen = 1 }
      END { for (b = lo; b <= hi; b++) printf "%g %d %d\n", 10 ^ ((b + 0.5) / 10), n["rfc0009", b], n["mcp", b] }' \
      "$OUT/soak/calls.csv" >"$OUT/latency-hist.dat"
    gnuplot <<GP
set terminal pngcairo size 900,450 font ",10"
set termoption noenhanced
set output "$OUT/soak-latency.png"
set title "Soak: tools/call latency (echo + metrics snapshot that succeeded; log-spaced bins)"
set logscale x
set xlabel "latency (ms, client side)"
set ylabel "calls"
set grid
set style fill transparent solid 0.5
plot "$OUT/latency-hist.dat" using 1:2 with steps lw 2 title "RFC-0009 POST /mcp/tools/call", \
     "" using 1:3 with steps lw 2 title "MCP tools/call (SDK client)"
GP
    plots+=("soak-latency.png")
  fi
  if [ -s "$OUT/soak/rss.csv" ]; then
    awk -F, 'NR > 1 && /churn:.*stopped/ {print $1 / 1000}' "$OUT/soak/events.csv" >"$OUT/churn-times.dat" 2>/dev/null || true
    awk -F, 'NR > 1 && /revoke:/ {print $1 / 1000}' "$OUT/soak/events.csv" >"$OUT/revoke-times.dat" 2>/dev/null || true
    gnuplot <<GP
set terminal pngcairo size 900,450 font ",10"
set termoption noenhanced
set output "$OUT/soak-rss.png"
set title "Soak: broker (mosquitto + fleetmcp_plugin.so) resident memory"
set xlabel "time since the broker started (s)"
set ylabel "MiB"
set y2label "nodes online"
set y2tics
set ytics nomirror
set grid
set datafile separator ","
plot "$OUT/soak/rss.csv" using 1:(\$2 / 1024) with lines lw 2 title "VmRSS", \
     "" using 1:(\$3 / 1024) with lines lw 1 title "RssAnon", \
     "" using 1:6 axes x1y2 with lines lw 1 lc rgb "#999999" title "nodes online (/healthz)"
GP
    plots+=("soak-rss.png")
  fi
  if ls "$OUT"/scale/connect-*.csv >/dev/null 2>&1; then
    series=""
    for f in "$OUT"/scale/connect-*.csv; do
      phase=$(basename "$f" .csv); phase=${phase#connect-}
      series+="${series:+, }\"$f\" using (\$1 / 1000):2 with lines lw 2 title \"$phase: online\""
      [ "$phase" = baseline ] || series+=", \"$f\" using (\$1 / 1000):3 with lines dt 2 title \"$phase: announces verified\""
    done
    gnuplot <<GP
set terminal pngcairo size 900,450 font ",10"
set termoption noenhanced
set output "$OUT/scale-connect.png"
set title "Scale: simulated nodes online after their processes start"
set xlabel "s"
set ylabel "nodes"
set key bottom right
set grid
set datafile separator ","
plot $series
GP
    plots+=("scale-connect.png")
  fi
fi

# ---- the report ---------------------------------------------------------------------------------
step "writing $OUT/REPORT.md"
section() {  # section TITLE FILE : the file as a code block, if it exists
  [ -s "$2" ] || return 0
  printf '\n## %s\n\n```\n' "$1"
  sed -e 's/\x1b\[[0-9;]*m//g' "$2"
  printf '```\n'
}
{
  echo "# fleetmcp benchmark and reliability report"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| commit | $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$SRC" diff --quiet 2>/dev/null || echo ' (modified)') |"
  echo "| machine | $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/{printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, Linux $(uname -r) |"
  echo "| load average at the end | $(cut -d' ' -f1-3 /proc/loadavg) (other work on this machine makes the figures lower bounds) |"
  echo "| mosquitto | $( (mosquitto -h 2>/dev/null || true) | head -1 | sed 's/^mosquitto version //') |"
  echo "| command | \`bench/report.sh --soak-minutes $SOAK_MINUTES --scale-nodes $SCALE_NODES${SKIP:+ --skip \"$SKIP\"}\` |"
  echo
  echo "Everything runs on one machine: broker, simulated devices and clients share its cores."
  echo
  echo "## Steps"
  echo
  for s in "${status[@]}"; do echo "- $s"; done
  if [ -s "$OUT/soak/soak.md" ]; then
    echo
    sed -e 's/^# /## /' "$OUT/soak/soak.md"
    for p in soak-latency.png soak-rss.png; do [[ " ${plots[*]} " == *" $p "* ]] && printf '\n![%s](%s)\n' "$p" "$p"; done
  fi
  if [ -s "$OUT/scale/scale.md" ]; then
    echo
    sed -e 's/^# /## /' "$OUT/scale/scale.md"
    [[ " ${plots[*]} " == *" scale-connect.png "* ]] && printf '\n![%s](%s)\n' scale-connect.png scale-connect.png
  fi
  section "Manifest verification (bench/manifest_verify_bench)" "$OUT/manifest_verify.txt"
  section "Broker plugin (bench/plugin_bench.sh)" "$OUT/plugin_bench.txt"
  section "Device client (bench/device_footprint.sh 60 1000 20000)" "$OUT/device_footprint.txt"
  section "HTTP front (bench/http_bench.sh)" "$OUT/http_bench.txt"
  section "Fault tests" "$OUT/faults.txt"
} >"$OUT/REPORT.md"
echo "report: $OUT/REPORT.md"
printf '%s\n' "${status[@]}"
[[ " ${status[*]} " != *FAILED* ]]
