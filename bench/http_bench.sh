#!/usr/bin/env bash
# HTTP front figures (docs/protocol.md §10, issue 5), printed, never asserted. One broker, one run:
#   1. 1,000 concurrent metrics streams over the 100 nodes (RFC-0009, then MCP): open time,
#      jitter of the sample gaps against the 1 s interval, sample age, broker RSS per stream and
#      broker CPU (first, so the RSS is not blurred by the heap the call loads leave behind);
#   2. latency at a fixed rate (default 500 calls/s, open loop) over 100 simulated nodes:
#      - raw MQTT request/response (bench/mqtt_roundtrip.cc: two MQTT 5 clients, QoS 1 both
#        ways), twice: "mqtt" with both clients on the broker's plain listener, and "mqtt-tls"
#        with the responder on the mTLS device listener with a node certificate, as the devices
#        are (the requester stays on the plain listener, as the plugin's side of a call has no
#        network hop at all): the like-for-like baseline for the call rows;
#      - RFC-0009 POST /mcp/tools/call and MCP tools/call on /mcp (one session): HTTP -> front ->
#        broker thread -> device (mTLS) -> broker -> front -> HTTP;
#      - one call in flight: the same, raw MQTT, and the plugin's $CONTROL command path
#        (tests/programs/plugin_call.cc: MQTT -> plugin -> device -> plugin -> MQTT), no HTTP;
#   3. the highest sustained rate: closed loop with K keep-alive connections (and raw MQTT with
#      K requests in flight), then open loop at the docs/protocol.md §10 target rate;
#   4. the front alone: the same HTTP front in fleetmcp-http-testhost over its in-memory fleet
#      (no broker, no devices), at the fixed rate and closed loop.
# Call rows also give the CPU the broker (or test host) and the simulated fleet spent per call.
# The nodes' enrolment bundles get higher limits than fleetctl's defaults (echo rate_limit_rps
# 50, the manifest schema's maximum for system.echo, and max_concurrency 64; metrics
# rate_limit_rps 100) so the gateway's per-capability limits (docs/protocol.md §7) do not cap the 500/s
# run or the stream opening. 100 nodes x 50 rps = 5,000 calls/s is still the ceiling the policy
# sets on echo calls over 100 nodes: above it the front answers E_RATE_LIMITED (counted apart).
#
# Usage: FLEETMCP_BINARY_DIR=build bench/http_bench.sh [--nodes N] [--rate R] [--seconds S]
#                                                      [--streams M] [--stream-seconds S]
#                                                      [--target-rate R] [--quick] [--hold]
#                                                      [--broker-line LINE]... [--no-front-only]
#                                                      [--fleet-procs K]
#   --quick: 5 s per measurement, 200 streams for 10 s (a smoke run of the script)
#   --hold:  set up, print the ports, pid and token, and wait (for profiling by hand)
#   --broker-line LINE: an extra mosquitto.conf line, e.g. "plugin_opt_http_threads 1" (repeatable)
#   --no-front-only: skip section 4
#   --fleet-procs K: run the simulated fleet as K fleetmcp-device --simulate processes over disjoint
#            node sets (default 1). A real node is a process of its own; one process simulating
#            hundreds spends CPU per call that grows with its node count (Paho C's threads look at
#            every node's socket on each wake-up), and that CPU shares the cores with the broker.
#            "fleet us/call" is the sum over the K processes.
#   HTTP_BENCH_JSON=FILE also writes every result as one JSON line to FILE.
. "$(dirname "$0")/../tests/integration/lib.sh"

FRONT_ONLY=1 EXTRA_LINES=() HOLD= FLEET_PROCS=1 NODES=100 RATE=500 SECONDS_EACH=20 STREAMS=1000 STREAM_SECONDS=30 TARGET_RATE=5000
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) NODES=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --streams) STREAMS=$2; shift 2 ;;
    --stream-seconds) STREAM_SECONDS=$2; shift 2 ;;
    --target-rate) TARGET_RATE=$2; shift 2 ;;
    --quick) SECONDS_EACH=5 STREAMS=200 STREAM_SECONDS=10; shift ;;
    --hold) HOLD=1; shift ;;
    --broker-line) EXTRA_LINES+=("$2"); shift 2 ;;
    --no-front-only) FRONT_ONLY=; shift ;;
    --fleet-procs) FLEET_PROCS=$2; shift 2 ;;
    --help|-h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

LOAD=$BIN/bench/http_load
MQTT_RT=$BIN/bench/mqtt_roundtrip
for program in "$LOAD" "$MQTT_RT" "$PLUGIN_TOOLS/plugin_call" "$DEVICE" "$PLUGIN"; do
  [ -x "$program" ] || [ -f "$program" ] || fail "$program is not built (cmake --build $BIN)"
done
ulimit -n "$(ulimit -Hn)"  # 1,000 streams need 1,000 descriptors in the broker and in http_load
RESULTS=$T/results.jsonl
: >"$RESULTS"

# ---- setup: mosquitto + plugin + HTTP front + fleetmcp-device --simulate N ----------------------
echo "== setup: $NODES simulated nodes (machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
# The raw MQTT baseline's topics: the shipped policy grants agents nothing outside $devices/ but
# the $CONTROL driver, and the plugin defers there, so mosquitto's own acl_file decides.
printf 'pattern readwrite bench/#\n' >"$T/bench.acl"
# One load generator, one address and one token hold all the connections and streams measured
# here: lift the front's per-client limits (docs/http-front.md "Limits and quotas") above them.
BENCH_LIMITS=(max_connections max_connections_per_address max_connections_per_prefix max_connections_per_tenant
  max_streams_per_caller max_streams_per_tenant)
E2E_BROKER_LINES=("acl_file $T/bench.acl")
FRONT_LIMITS=()
for limit in "${BENCH_LIMITS[@]}"; do
  E2E_BROKER_LINES+=("plugin_opt_http_$limit 8192")
  FRONT_LIMITS+=(--set "http_$limit=8192")
done
E2E_BROKER_LINES+=("${EXTRA_LINES[@]}")
e2e_start "$NODES" --log-level warn
verified() { curl -s "$E2E_BASE/metrics" | awk -F' ' '/^fleetmcp_announces_total\{result="verified"\}/{print $2}'; }
before=$(verified)
# Restart the fleet with higher limits (see the top of this file), and wait for the new manifests.
kill "$DEVICE_PID"; wait "$DEVICE_PID" 2>/dev/null || true
fleet_offline() { [ "$(e2e_online_count)" = 0 ]; }
wait_until 30 fleet_offline || fail "nodes still online after the fleet stopped"
for conf in "$T"/pki/nodes/*/device.conf; do
  sed -i -e 's/^capability.echo = .*/capability.echo = system.echo rate_limit_rps=50 max_concurrency=64 deadline_ms_default=2000/' \
    -e 's/^capability.metrics = .*/capability.metrics = system.metrics rate_limit_rps=100 max_concurrency=2 deadline_ms_default=2000/' \
    "$conf"
done
# fleet_start_procs K: the nodes of $T/pki/nodes split over K processes (bundle directories of
# symbolic links), their pids in FLEET_PIDS.
fleet_start_procs() {
  local k=$1 i n dirs per
  mapfile -t dirs < <(ls -d "$T"/pki/nodes/*/)
  per=$(((${#dirs[@]} + k - 1) / k))
  FLEET_PIDS=()
  for ((i = 0; i < k; i++)); do
    [ $((i * per)) -lt ${#dirs[@]} ] || break
    mkdir -p "$T/fleet$i/nodes"
    for d in "${dirs[@]:i*per:per}"; do ln -s "$d" "$T/fleet$i/nodes/$(basename "$d")"; done
    n=$(find "$T/fleet$i/nodes" -mindepth 1 -maxdepth 1 | wc -l)
    device_start "fleet-bench$i" --simulate "$n" --bundle-dir "$T/fleet$i" --log-level warn
    FLEET_PIDS+=("$DEVICE_PID")
  done
}
fleet_start_procs "$FLEET_PROCS"
e2e_wait_online "$NODES" 60
reverified() { [ "$(verified)" -ge $((before + NODES)) ]; }
wait_until 60 reverified || fail "the re-announced manifests were not all verified"
sleep 1  # let the front's snapshot (rebuilt at most every 250 ms) carry the new limits
printf "%s\n" "${E2E_NODES[@]}" >"$T/nodes.txt"
# The TLS baseline's responder: a node of its own (a client id is its node_id), kept out of the
# fleet's bundle directory.
bench_node=$(device_enroll 1 "$PORT_TLS")
mv "$T/pki/nodes/$bench_node" "$T/bench-responder"
echo "broker pid $BROKER_PID, HTTP front $E2E_BASE, fleet pid(s) ${FLEET_PIDS[*]} (${#FLEET_PIDS[@]} process(es))"

if [ -n "$HOLD" ]; then
  echo "holding (Ctrl-C ends): $LOAD rate --port $HTTP_PORT --token $E2E_TOKEN --nodes $T/nodes.txt --rate $RATE"
  echo "  MQTT plain port $PORT_PLAIN (agent-e2e, same token), broker pid $BROKER_PID, fleet pid(s) ${FLEET_PIDS[*]}"
  while :; do sleep 60; done
fi

fleet_watch=
for i in "${!FLEET_PIDS[@]}"; do fleet_watch+=",fleet$i=${FLEET_PIDS[$i]}"; done
watch=(--watch "broker=$BROKER_PID$fleet_watch")
common=(--port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --json)
mqtt=(--port "$PORT_PLAIN" --username agent-e2e --password "$E2E_TOKEN" --topics "$NODES" --json "${watch[@]}")
mqtt_tls=("${mqtt[@]}" --tls-port "$PORT_TLS" --ca "$T/pki/ca.crt" --responder-bundle "$T/bench-responder")
# record NAME COMMAND...: runs a load program, keeps its JSON line (with the row name) and shows it.
record() {
  local name=$1; shift
  local line
  line=$("$@") || fail "$name: $* failed"
  line=$(jq -c --arg name "$name" '. + {name: $name}' <<<"$line")
  echo "$line" >>"$RESULTS"
  jq -r '"  \(.name): \(.ok) ok, \(.failed) failed, \(.ok_per_s | floor)/s, p50 \(.p50_ms*1000|floor/1000) ms, p99 \(.p99_ms*1000|floor/1000) ms, max \(.max_ms*1000|floor/1000) ms"' <<<"$line"
}

# Streams first: the broker's RSS per stream is measured before the call loads grow its heap.
echo "== 1. $STREAMS concurrent metrics streams over $NODES nodes at 1 s, ${STREAM_SECONDS} s held"
for api in rfc0009 mcp; do
  line=$("$LOAD" streams "${common[@]}" --api "$api" --count "$STREAMS" --interval-ms 1000 --seconds "$STREAM_SECONDS" \
    --watch-pid "$BROKER_PID") || fail "streams ($api) failed"
  echo "$line" | jq -c --arg name "$api streams" '. + {name: $name}' >>"$RESULTS"
  echo "$line" | jq -r '"  \(.api): \(.opened) of \(.asked) open in \(.all_answered_ms|floor) ms (refused: \(.open_failures)), all sampled in \(.all_first_sample_ms|floor) ms
    \(.samples) samples in \(.hold_s*10|floor/10) s (\(.min_samples)..\(.max_samples) per stream, \(.expected_per_stream*10|floor/10) expected), \(.long_gaps) gaps > 1.5 s, ended early: \(.ended_early)
    |gap - 1000 ms|: p50 \(.jitter.p50_ms*10|floor/10) ms, p99 \(.jitter.p99_ms*10|floor/10) ms, max \(.jitter.max_ms*10|floor/10) ms; sample age p50 \(.age.p50_ms*10|floor/10) ms, p99 \(.age.p99_ms*10|floor/10) ms
    broker RSS \(.rss_before_kib) KiB -> \(.rss_held_kib) KiB held (\((.rss_held_kib - .rss_before_kib) / (if .opened > 0 then .opened else 1 end) * 10 | floor / 10) KiB per stream) -> \(.rss_after_close_kib) KiB 2 s after close
    broker CPU \(.cpu_idle_pct*10|floor/10) % of a core before, \(.cpu_held_pct*10|floor/10) % while streaming"'
  sleep 3  # let the leases of the closed streams lapse before the next set
done

echo "== warm-up (not recorded)"
"$LOAD" rate "${common[@]}" --rate 200 --seconds 2 --warmup 1 >/dev/null
"$LOAD" rate "${common[@]}" --api mcp --rate 200 --seconds 2 --warmup 1 >/dev/null

echo "== 2. round trip at $RATE calls/s over $NODES nodes, open loop, ${SECONDS_EACH} s each"
record "mqtt @$RATE" "$MQTT_RT" "${mqtt[@]}" --rate "$RATE" --seconds "$SECONDS_EACH"
record "mqtt-tls @$RATE" "$MQTT_RT" "${mqtt_tls[@]}" --rate "$RATE" --seconds "$SECONDS_EACH"
record "rfc0009 @$RATE" "$LOAD" rate "${common[@]}" "${watch[@]}" --rate "$RATE" --seconds "$SECONDS_EACH"
record "mcp @$RATE" "$LOAD" rate "${common[@]}" "${watch[@]}" --api mcp --rate "$RATE" --seconds "$SECONDS_EACH"
echo "== 2b. one call in flight: HTTP front against the plugin's \$CONTROL command path"
record "mqtt x1" "$MQTT_RT" "${mqtt[@]}" --inflight 1 --seconds 5
record "mqtt-tls x1" "$MQTT_RT" "${mqtt_tls[@]}" --inflight 1 --seconds 5
record "rfc0009 x1" "$LOAD" closed "${common[@]}" "${watch[@]}" --connections 1 --seconds 5
control=$("$PLUGIN_TOOLS/plugin_call" --plain-port "$PORT_PLAIN" --sub agent-e2e --token "$E2E_TOKEN" \
  --tool "sysecho.${E2E_NODES[0]}.echo.invoke" --count 3000)
echo "  \$CONTROL x1 (plugin_call, one node): $control"
jq -nc --arg line "$control" '($line | [scan("[a-z0-9_]+=[0-9.]+")] | map(split("=") | {(.[0]): (.[1] | tonumber)}) | add)
  | {name: "$CONTROL x1", api: "control", mode: "closed-loop", ok: .calls, failed: 0, p50_ms, p90_ms, p99_ms, max_ms}' >>"$RESULTS"

echo "== 3. highest sustained rate: closed loop, K connections (K requests in flight for MQTT), ${SECONDS_EACH} s each"
for k in 4 16 64; do
  record "mqtt x$k" "$MQTT_RT" "${mqtt[@]}" --inflight "$k" --seconds "$SECONDS_EACH"
  record "mqtt-tls x$k" "$MQTT_RT" "${mqtt_tls[@]}" --inflight "$k" --seconds "$SECONDS_EACH"
  record "rfc0009 x$k" "$LOAD" closed "${common[@]}" "${watch[@]}" --connections "$k" --seconds "$SECONDS_EACH"
  record "mcp x$k" "$LOAD" closed "${common[@]}" "${watch[@]}" --api mcp --connections "$k" --seconds "$SECONDS_EACH"
done
echo "== 3b. open loop at the target rate ($TARGET_RATE calls/s)"
record "rfc0009 @$TARGET_RATE" "$LOAD" rate "${common[@]}" "${watch[@]}" --rate "$TARGET_RATE" --seconds "$SECONDS_EACH" --max-connections 512

echo "broker RSS after the call loads: $(awk '/^VmRSS/{print $2, $3}' "/proc/$BROKER_PID/status") (finished calls' msg_ids are kept 2 min, at most 65,536)"

if [ -n "$FRONT_ONLY" ]; then
  # The in-memory fleet is not held to the manifest schema: its echo allows 1,000 calls/s per node,
  # so the gateway's rate limit does not cap what the front alone can do.
  echo "== 4. the front alone: fleetmcp-http-testhost (the same HTTP front over the in-memory fleet, no broker), $NODES nodes"
  jq -n --rawfile ids "$T/nodes.txt" '{nodes: ($ids | split("\n") | map(select(length > 0)) | map({tenant: "acme", node_id: .,
    capabilities: [{cap_id: "echo", kind: "system.echo", verbs: ["invoke"],
                    constraints: {rate_limit_rps: 1000, max_concurrency: 64, deadline_ms_default: 2000}}]}))}' >"$T/fleet-memory.json"
  start_http_testhost front-only "$SRC/schemas" "$T/pki/issuer.pub" "$T/fleet-memory.json" --set http_audit_log="$T/front-only-audit.log" \
    "${FRONT_LIMITS[@]}"
  FRONT_PID=$(pgrep -f -- "--fleet $T/fleet-memory.json")
  front=(--port "$HTTP_PORT" --token "$E2E_TOKEN" --nodes "$T/nodes.txt" --json --watch "front=$FRONT_PID")
  record "front-only rfc0009 @$RATE" "$LOAD" rate "${front[@]}" --rate "$RATE" --seconds "$SECONDS_EACH"
  record "front-only rfc0009 x16" "$LOAD" closed "${front[@]}" --connections 16 --seconds "$SECONDS_EACH"
  record "front-only mcp x16" "$LOAD" closed "${front[@]}" --api mcp --connections 16 --seconds "$SECONDS_EACH"
fi

# ---- the table ------------------------------------------------------------------------------------
echo
echo "== figures (ratios against raw MQTT in the same run, on the plain listener (mqtt) and with the"
echo "   responder on the mTLS device listener (tls): p50 latency HTTP / MQTT, rate HTTP / MQTT,"
echo "   broker CPU per call HTTP / MQTT (tls only: the like-for-like one);"
echo "   server us/call: CPU of the broker process (of fleetmcp-http-testhost for front-only rows) per call;"
echo "   fleet us/call: CPU of the fleetmcp-device --simulate process(es) per call, $FLEET_PROCS process(es))"
jq -rs '
  def f: if . == null then "-" else (. * 1000 | round / 1000 | tostring) end;
  def r: if . == null then "-" else (. * 100 | round / 100 | tostring) + "x" end;
  def baseline($prefix): map(select(.api == "mqtt" and (.name | startswith($prefix + " "))))
    | map({key: (.name | sub("^[^ ]+ "; "")), value: .}) | from_entries;
  baseline("mqtt") as $mqtt | baseline("mqtt-tls") as $tls
  | ["row", "ok/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "failed", "p50 vs mqtt", "rate vs mqtt", "p50 vs tls",
     "rate vs tls", "cpu vs tls", "server us/call", "fleet us/call"],
    (.[] | select(.mode != "streams")
     | (.name | sub("^[^ ]+ "; "")) as $key
     | (if .api == "mqtt" then null else $mqtt[$key] end) as $m
     | (if .api == "mqtt" then null else $tls[$key] end) as $t
     | [.name, (.ok_per_s // null | if . == null then "-" else floor | tostring end), (.p50_ms|f), (.p90_ms|f), (.p99_ms|f),
        (.max_ms|f), (.failed | tostring),
        (if $m == null then "-" else (.p50_ms / $m.p50_ms | r) end),
        (if $m == null or .mode == "open-loop" or .ok_per_s == null then "-" else (.ok_per_s / $m.ok_per_s | r) end),
        (if $t == null then "-" else (.p50_ms / $t.p50_ms | r) end),
        (if $t == null or .mode == "open-loop" or .ok_per_s == null then "-" else (.ok_per_s / $t.ok_per_s | r) end),
        (if $t == null or .cpu_us_per_call.broker == null or ($t.cpu_us_per_call.broker // 0) <= 0 then "-"
         else (.cpu_us_per_call.broker / $t.cpu_us_per_call.broker | r) end),
        (.cpu_us_per_call.broker // .cpu_us_per_call.front // null | if . == null then "-" else round | tostring end),
        ([.cpu_us_per_call // {} | to_entries[] | select(.key | startswith("fleet")) | .value]
         | if length == 0 then "-" else add | round | tostring end)])
  | @tsv' "$RESULTS" | column -t -s $'\t'
echo
# Echo's manifest limit (rate_limit_rps <= 50 per node, the schema's maximum) caps the fleet at
# NODES x 50 calls/s; a closed loop above it measures the policy, not the gateway.
capped=$(jq -rs 'map(select(.mode == "closed-loop" and .api != "mqtt" and .failed > 0) | .name) | join(", ")' "$RESULTS")
if [ -n "$capped" ]; then
  echo "note: $capped hit the policy ceiling of $NODES nodes x 50 calls/s = $((NODES * 50))/s (the failed calls are"
  echo "      E_RATE_LIMITED): their rate ratios measure the policy. For the gateway's own ceiling run"
  echo "      --nodes 200 or more (the figures in docs/http-front.md were taken so)."
fi
echo "docs/protocol.md §10 targets: tools/call p50 <= 1 ms, p99 <= 5 ms at $RATE/s over $NODES nodes; >= 5000 calls/s sustained."
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the machine: compare rows of one run)"
[ -z "${HTTP_BENCH_JSON:-}" ] || cp "$RESULTS" "$HTTP_BENCH_JSON"
