#!/usr/bin/env bash
# Scale (issue 8, docs/protocol.md §10: 10 000 simulated nodes connect and announce within 60 s; plugin
# memory <= 10 KiB per node). Prints and writes figures; asserts nothing but that every node
# came online.
#
#   1. enrolment: `fleetctl pki enroll --count N` (timed, and excluded from the connect figure);
#   2. per_node: mosquitto + fleetmcp_plugin.so + HTTP front; P `fleetmcp-device --simulate` processes
#      start together; time until /healthz counts all N online (every announce verified), with
#      the curve of nodes online and announces accepted (audit log) over time; broker RSS before and
#      after, per node; broker and device CPU seconds; then an MCP client (official SDK) pages
#      through tools/list for the whole fleet (each page's time split into server and client, and
#      the broker's and the client's CPU per page);
#   3. compact: the same with plugin_opt_http_tools_mode compact (tools/list is 3 tools; the
#      fleet is paged with fleet_find_nodes);
#   4. baseline: the same broker and listeners without the plugin, the same devices: mosquitto's
#      own memory per connection (TLS session, retained announce), to separate it from the plugin's.
# Devices, broker and client share this machine's cores: the connect time is an upper bound of
# what the broker alone needs.
#
# Usage: bench/scale.sh [--nodes N (10000)] [--procs P (5)] [--out DIR ($FLEETMCP_BINARY_DIR/scale)]
#                       [--phases "per_node compact baseline"] [--limit-s S (300)] [--profile]
# Writes DIR/scale.md, DIR/scale.json, DIR/connect-<phase>.csv (t_ms,online,accepted).
# --profile: `perf record` (cpu-clock, call graphs) on the broker during each connect phase, into
# DIR/perf-<phase>.data, and prints the broker's time by library; compare the phases, then
# `perf report -i DIR/perf-per_node.data` for the functions (where the plugin's share went).
. "$(dirname "$0")/../tests/integration/lib.sh"

NODES=10000 PROCS=5 OUT=$BIN/scale PHASES="per_node compact baseline" LIMIT_S=300 PROFILE=
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) NODES=$2; shift 2 ;;
    --procs) PROCS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --phases) PHASES=$2; shift 2 ;;
    --limit-s) LIMIT_S=$2; shift 2 ;;
    --profile) PROFILE=1; shift ;;
    -h|--help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) fail "unknown argument $1 (see --help)" ;;
  esac
done
[ -z "$PROFILE" ] || command -v perf >/dev/null || fail "perf is not installed (apt-get install linux-perf)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/connect-*.csv "$OUT"/scale.md "$OUT"/scale.json

# Every node is one TLS connection: the broker needs N descriptors, each device process N/P.
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge $((NODES + 1024)) ] || fail "ulimit -n is $(ulimit -n); $((NODES + 1024)) needed (raise the hard limit)"
[ "$(cat /proc/sys/fs/file-max)" -ge $((3 * NODES)) ] || fail "fs.file-max $(cat /proc/sys/fs/file-max) is too low for $NODES nodes"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== scale: $NODES nodes in $PROCS device processes; $(nproc) cores shared by broker, devices and client; ulimit -n $(ulimit -n)"

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
anon_kib() { awk '/^RssAnon/{print $2}' "/proc/$1/status"; }
cpu_s() {  # cpu_s PID... : user + system CPU seconds of the processes
  local p ticks=0
  for p in "$@"; do ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.1f", t / hz}'
}
now_ms() { date +%s%3N; }

pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
echo "enrolling $NODES nodes (fleetctl pki enroll --count $NODES) ..."
t=$(now_ms)
mapfile -t ALL < <(device_enroll "$NODES" "$PORT_TLS")
enroll_ms=$(($(now_ms) - t))
[ ${#ALL[@]} -eq "$NODES" ] || fail "enrolment produced ${#ALL[@]} nodes"
echo "enrolment: $enroll_ms ms ($(awk -v ms="$enroll_ms" -v n="$NODES" 'BEGIN{printf "%.2f", ms / n}') ms per node)"

# One directory of bundle symlinks per device process.
for ((p = 0; p < PROCS; p++)); do mkdir -p "$T/groups/$p/nodes"; done
for ((i = 0; i < NODES; i++)); do ln -s "$T/pki/nodes/${ALL[$i]}" "$T/groups/$((i % PROCS))/nodes/${ALL[$i]}"; done
TOKEN=$(agent_token agent-scale acme "$E2E_SCOPES")

# online_count PHASE: nodes online with their announce verified (the plugin's /healthz `serving`),
# or connected clients ($SYS) without the plugin.
online_count() {
  if [ "$1" = baseline ]; then
    mosquitto_sub -p "$PORT_PLAIN" -t '$SYS/broker/clients/connected' -C 1 -W 3 2>/dev/null || echo 0
  else
    curl -s -m 3 "http://127.0.0.1:$HTTP_PORT/healthz" | jq -r '.serving // 0' 2>/dev/null || echo 0
  fi
}

results=()
run_phase() {  # run_phase per_node|compact|baseline
  local phase=$1 conf
  if [ "$phase" = baseline ]; then
    conf=$(tls_broker_conf "$PORT_TLS" "$PORT_PLAIN")
    echo "sys_interval 1" >>"$conf"
  elif [ "$phase" = compact ]; then
    conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_http_tools_mode compact")
  else
    conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")
  fi
  : >"$T/audit.log"
  run_broker "$conf" "broker-$phase"
  if [ "$phase" != baseline ]; then
    wait_for_line "$T/broker-$phase.log" "fleetmcp: first tick" 10 || fail "plugin not ready"
    HTTP_PORT=$(broker_http_port "broker-$phase")
  fi
  sleep 2
  local rss0 anon0 cpu0
  rss0=$(rss_kib "$BROKER_PID") anon0=$(anon_kib "$BROKER_PID") cpu0=$(cpu_s "$BROKER_PID")
  echo "== $phase: broker idle RSS $rss0 KiB; starting $PROCS device processes"

  local start pids=() online=0 accepted=0 elapsed perf_pid=
  if [ -n "$PROFILE" ]; then
    perf record -e cpu-clock -F 999 -g -p "$BROKER_PID" -o "$OUT/perf-$phase.data" 2>"$T/perf-$phase.log" &
    perf_pid=$!
  fi
  start=$(now_ms)
  for ((p = 0; p < PROCS; p++)); do
    device_start "dev-$phase-$p" --simulate $(ls "$T/groups/$p/nodes" | wc -l) --bundle-dir "$T/groups/$p" --log-level warn
    pids+=("$DEVICE_PID")
  done
  echo "t_ms,online,accepted" >"$OUT/connect-$phase.csv"
  local last_print=0
  while :; do
    elapsed=$(($(now_ms) - start))
    online=$(online_count "$phase")
    accepted=$(grep -c '/announce".*"decision":"accept"' "$T/audit.log" || true)
    echo "$elapsed,$online,$accepted" >>"$OUT/connect-$phase.csv"
    if [ $((elapsed - last_print)) -ge 5000 ]; then
      echo "  $((elapsed / 1000)) s: $online online, $accepted announces accepted"
      last_print=$elapsed
    fi
    [ "$online" = "$NODES" ] && break
    [ "$elapsed" -lt $((LIMIT_S * 1000)) ] || fail "$phase: only $online of $NODES nodes online after $LIMIT_S s"
    sleep 0.5
  done
  local connect_ms=$elapsed cpu_connect
  cpu_connect=$(awk -v a="$(cpu_s "$BROKER_PID")" -v b="$cpu0" 'BEGIN{printf "%.1f", a - b}')
  local dev_cpu retries
  dev_cpu=$(cpu_s "${pids[@]}")
  # Connect attempts that failed and were retried (timeouts while the broker was saturated).
  retries=$(cat "$T"/dev-"$phase"-*.log | grep -c 'mqtt.reconnect_scheduled' || true)
  echo "  all $NODES online after $connect_ms ms (broker CPU $cpu_connect s, devices CPU $dev_cpu s, $retries connect retries)"
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" || true
    echo "  broker time by library during the connect phase ($OUT/perf-$phase.data):"
    perf report -i "$OUT/perf-$phase.data" --no-children --sort dso --stdio 2>/dev/null |
      grep '%' | grep -v -e '^#' -e '^ *|' -e '--' | head -n 8 | sed 's/^/   /' || true
  fi
  sleep 10  # let the HTTP front's snapshot and any lazy state settle
  local rss1 anon1 dev_rss=0 p
  rss1=$(rss_kib "$BROKER_PID") anon1=$(anon_kib "$BROKER_PID")
  for p in "${pids[@]}"; do dev_rss=$((dev_rss + $(rss_kib "$p"))); done
  local per_node
  per_node=$(awk -v a="$rss1" -v b="$rss0" -v n="$NODES" 'BEGIN{printf "%.2f", (a - b) / n}')
  echo "  broker RSS $rss0 -> $rss1 KiB: $per_node KiB per node (anon $anon0 -> $anon1 KiB); devices $dev_rss KiB in all"

  local listing=null
  if [ "$phase" != baseline ]; then
    listing=$(MCP_URL="http://127.0.0.1:$HTTP_PORT/mcp" TOKEN=$TOKEN EXPECT_NODES=$NODES BROKER_PID=$BROKER_PID \
      node "$SRC/tests/node/tools_list_timing.mjs") || fail "$phase: tools/list did not cover the fleet"
    echo "  MCP listing: $listing"
  fi
  results+=("$(jq -n --arg phase "$phase" --argjson connect_ms "$connect_ms" --argjson rss0 "$rss0" --argjson rss1 "$rss1" \
    --argjson anon0 "$anon0" --argjson anon1 "$anon1" --argjson per_node "$per_node" --argjson broker_cpu_s "$cpu_connect" \
    --argjson devices_cpu_s "$dev_cpu" --argjson retries "$retries" --argjson devices_rss_kib "$dev_rss" --argjson accepted "$accepted" --argjson listing "$listing" \
    '{phase:$phase, connect_ms:$connect_ms, broker_rss_kib:[$rss0,$rss1], broker_anon_kib:[$anon0,$anon1], kib_per_node:$per_node,
      broker_cpu_s:$broker_cpu_s, devices_cpu_s:$devices_cpu_s, connect_retries:$retries, devices_rss_kib:$devices_rss_kib, announces_accepted:$accepted,
      listing:$listing}')")

  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  stop_broker
}

for phase in $PHASES; do run_phase "$phase"; done

printf '%s\n' "${results[@]}" | jq -s --argjson nodes "$NODES" --argjson procs "$PROCS" --argjson enroll_ms "$enroll_ms" \
  '{nodes:$nodes, procs:$procs, enroll_ms:$enroll_ms, phases:.}' >"$OUT/scale.json"

{
  echo "# Scale: $NODES simulated nodes"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "broker, $PROCS \`fleetmcp-device --simulate\` processes and the MCP client on the same machine."
  echo "Command: \`bench/scale.sh --nodes $NODES --procs $PROCS\`."
  echo
  echo "Enrolment (\`fleetctl pki enroll --count $NODES\`, not part of the connect time): $enroll_ms ms."
  echo "Load average before the run: $LOAD_BEFORE (other work on this machine slows everything here)."
  echo "Broker CPU is what the broker itself spent (mosquitto is single-threaded: on a core of its own"
  echo "it could not connect the fleet faster than that); devices CPU is the simulation's cost, which a"
  echo "real fleet spreads over its devices."
  echo
  echo "| broker | all online after | broker CPU | devices CPU | connect retries | broker RSS idle → all online | per node | devices RSS |"
  echo "|---|---|---|---|---|---|---|---|"
  jq -r '.phases[] | "| \(.phase) | \(.connect_ms / 1000) s | \(.broker_cpu_s) s | \(.devices_cpu_s) s | \(.connect_retries) | \(.broker_rss_kib[0]) → \(.broker_rss_kib[1]) KiB | \(.kib_per_node) KiB | \(.devices_rss_kib / 1024 | floor) MiB |"' "$OUT/scale.json"
  plugin=$(jq -r '[.phases[] | select(.phase == "per_node")][0].kib_per_node // empty' "$OUT/scale.json")
  base=$(jq -r '[.phases[] | select(.phase == "baseline")][0].kib_per_node // empty' "$OUT/scale.json")
  if [ -n "$plugin" ] && [ -n "$base" ]; then
    echo
    echo "Plugin memory per node (per_node minus baseline): $(awk -v a="$plugin" -v b="$base" 'BEGIN{printf "%.2f", a - b}') KiB (target ≤ 10 KiB)."
  fi
  echo
  echo "A page's time is the server's (request sent → last byte in, loopback included) plus the client's"
  echo "(the SDK parsing and checking it, compiling Ajv validators for output schemas); CPU per page is"
  echo "the broker's (all threads) and the client's own."
  echo
  echo "| listing over MCP | tools | pages | total | page p50 / p90 / max | page p50: server + client | CPU per page: broker / client | Ajv compiling (all pages) | bytes per page (avg / max) | fleet_find_nodes |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  jq -r '.phases[] | select(.listing != null) | .listing as $l | "| \(.phase) | \($l.tools) | \($l.pages) | \($l.list_ms) ms | \($l.page_ms.p50) / \($l.page_ms.p90) / \($l.page_ms.max) ms | \($l.server_ms.p50) + \($l.client_ms.p50) ms | \($l.cpu_ms_per_page.broker) / \($l.cpu_ms_per_page.client) ms | \($l.validator_ms) ms | \($l.page_bytes.avg) / \($l.page_bytes.max) | \(if $l.find_nodes then "\($l.find_nodes.nodes) nodes, \($l.find_nodes.pages) pages, \($l.find_nodes.ms) ms" else "-" end) |"' "$OUT/scale.json"
} >"$OUT/scale.md"
echo
cat "$OUT/scale.md"
