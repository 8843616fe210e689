#!/usr/bin/env bash
# Soak (issue 8): mosquitto + fleetmcp_plugin.so + its HTTP front + simulated nodes under mixed
# load for N minutes, then asserts what must hold after a long run:
#   - zero crashes (the broker is alive; no device process died of a signal we did not send),
#   - no growth of broker RSS after warm-up (the median of the last third of the samples after
#     warm-up is within max(2 MiB, 5 %) of the median of the first third; warm-up = first fifth),
#   - every call the driver made got exactly one answer, and the audit log has exactly one line
#     per call (counted per via, caller and tool) with as many "ok" as the driver saw.
# The load driver and fault injector is tests/node/soak_driver.mjs (see its header): unary calls
# (RFC-0009 and MCP, echo and metrics snapshot), metrics subscriptions (SSE and MCP progress),
# MCP session churn, node churn (kill -9 / SIGTERM and restart of device processes, whose short
# manifest_ttl_s also makes them re-announce on their own) and revocations (+ SIGHUP).
# Fleet: half the nodes in one "stable" process that is never disturbed (its calls must all
# succeed), the rest in 4 "churn" processes.
#
# Usage: bench/soak.sh [--minutes N (10)] [--nodes N (200)] [--rate CALLS_PER_S (40)]
#                      [--rss-every S (5)] [--churn-ttl S (20)] [--out DIR ($FLEETMCP_BINARY_DIR/soak)]
# The driver's periods can be changed through its environment (STREAM_EVERY_S, CHURN_EVERY_S,
# REVOKE_EVERY_S, SESSION_EVERY_S; see tests/node/soak_driver.mjs), e.g. to run one kind of load alone.
# Writes DIR/soak.md (the figures), rss.csv, calls.csv, events.csv, driver.json. Exit 0 when every
# check held. Uses $FLEETMCP_BINARY_DIR (default build/). Not a CTest test: run it by hand
# (`--minutes 1` takes about two minutes) or through bench/report.sh.
. "$(dirname "$0")/../tests/integration/lib.sh"

MINUTES=10 NODES=200 RATE=40 RSS_EVERY=5 CHURN_TTL=20 OUT=$BIN/soak
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) MINUTES=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --rss-every) RSS_EVERY=$2; shift 2 ;;
    --churn-ttl) CHURN_TTL=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) fail "unknown argument $1 (see --help)" ;;
  esac
done
DURATION_S=$(awk -v m="$MINUTES" 'BEGIN{printf "%d", m * 60}')
[ "$NODES" -ge 16 ] || fail "--nodes must be at least 16"
[ -d "$SRC/tests/node/node_modules/@modelcontextprotocol/sdk" ] || fail "the MCP SDK is missing: run npm ci in $SRC/tests/node"
mkdir -p "$OUT"
rm -f "$OUT"/{rss.csv,calls.csv,events.csv,driver.json,soak.md,device.pids,device-*.log}
OUT=$(cd "$OUT" && pwd)

# If the driver dies, the device processes it started are listed in device.pids.
soak_cleanup() {
  local rc=$?
  set +e
  [ -s "$OUT/device.pids" ] && xargs -r kill -9 <"$OUT/device.pids" 2>/dev/null
  (exit $rc)
  _cleanup
}
trap soak_cleanup EXIT

echo "== soak: $NODES nodes, $MINUTES min, $RATE calls/s, output in $OUT"
pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
mapfile -t ALL < <(device_enroll "$NODES" "$PORT_TLS")
[ ${#ALL[@]} -eq "$NODES" ] || fail "enrolment produced ${#ALL[@]} nodes"

# Groups: directories of symlinks to the enrolment bundles, one fleetmcp-device process each.
stable=$((NODES / 2)) per_churn=$(((NODES - NODES / 2) / 4))
group_json=()
make_group() {  # make_group NAME CHURN FIRST COUNT
  local dir=$T/groups/$1 ids=() i
  mkdir -p "$dir/nodes"
  for ((i = $3; i < $3 + $4; i++)); do
    ln -s "$T/pki/nodes/${ALL[$i]}" "$dir/nodes/${ALL[$i]}"
    ids+=("${ALL[$i]}")
    # Churn nodes' manifests live CHURN_TTL s: they re-sign and re-announce every 3/4 of it.
    [ "$2" = true ] && sed -i "s/^manifest_ttl_s = .*/manifest_ttl_s = $CHURN_TTL/" "$T/pki/nodes/${ALL[$i]}/device.conf"
  done
  group_json+=("$(jq -n --arg name "$1" --arg dir "$dir" --argjson churn "$2" '{name:$name, bundle_dir:$dir, churn:$churn, nodes:$ARGS.positional}' --args "${ids[@]}")")
}
make_group stable false 0 "$stable"
for g in 0 1 2 3; do
  count=$per_churn
  [ $g -eq 3 ] && count=$((NODES - stable - 3 * per_churn))
  make_group "churn$g" true $((stable + g * per_churn)) "$count"
done
printf '%s\n' "${group_json[@]}" | jq -s '{groups: .}' >"$T/fleet.json"
echo "fleet: $stable stable nodes, 4 churn processes of ~$per_churn (manifest_ttl_s $CHURN_TTL)"

run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
HTTP_PORT=$(broker_http_port broker)
tokens=()
for who in soak-rfc-0:rfc0009 soak-rfc-1:rfc0009 soak-mcp-0:mcp soak-mcp-1:mcp soak-mcp-2:mcp soak-stream:stream; do
  tok=$(agent_token "${who%%:*}" acme "$E2E_SCOPES")
  tokens+=("$(jq -n --arg sub "${who%%:*}" --arg token "$tok" --arg use "${who##*:}" '{sub:$sub, token:$token, use:$use}')")
done
printf '%s\n' "${tokens[@]}" | jq -s . >"$T/tokens.json"

# Broker memory every RSS_EVERY seconds: VmRSS, RssAnon, threads, open fds, nodes online.
rss_sampler() {
  local start=$SECONDS
  echo "t_s,rss_kib,anon_kib,threads,fds,online"
  while kill -0 "$BROKER_PID" 2>/dev/null; do
    printf '%s,%s,%s,%s,%s,%s\n' $((SECONDS - start)) \
      "$(awk '/^VmRSS/{print $2}' "/proc/$BROKER_PID/status")" "$(awk '/^RssAnon/{print $2}' "/proc/$BROKER_PID/status")" \
      "$(awk '/^Threads/{print $2}' "/proc/$BROKER_PID/status")" "$(ls "/proc/$BROKER_PID/fd" | wc -l)" \
      "$(curl -s -m 2 "http://127.0.0.1:$HTTP_PORT/healthz" | jq -r '.nodes.online // 0' 2>/dev/null || echo "")"
    sleep "$RSS_EVERY"
  done
}
rss_sampler >"$OUT/rss.csv" &
track $!

echo "== driver: $DURATION_S s of load (progress every 30 s)"
driver_rc=0
BASE=http://127.0.0.1:$HTTP_PORT FLEET=$T/fleet.json TOKENS=$T/tokens.json DEVICE=$DEVICE FLEETCTL=$FLEETCTL \
  PKI_DIR=$T/pki BROKER_PID=$BROKER_PID AUDIT_LOG=$T/audit.log OUT=$OUT DURATION_S=$DURATION_S RATE=$RATE \
  node "$SRC/tests/node/soak_driver.mjs" || driver_rc=$?

# ---- the checks ---------------------------------------------------------------------------------
failed=0
check() {  # check WHAT COMMAND… : records a failure instead of stopping, so every check is reported
  local what=$1; shift
  if "$@"; then echo "ok - $what"; else echo "FAIL: $what" >&2; failed=1; fi
}
no_crash_report() { ! grep -qiE 'segmentation|terminate called|abort|AddressSanitizer' "$T/broker.log"; }
check "the broker is still running (zero crashes)" kill -0 "$BROKER_PID"
check "no crash report in the broker log" no_crash_report
check "the driver's checks: one answer per call, stable nodes always answered, audit one line per call" \
  test "$driver_rc" -eq 0

# RSS after warm-up: the first fifth of the run is warm-up; compare the medians of the first and
# last thirds of the rest.
warmup_s=$((DURATION_S / 5))
read -r rss_first rss_last rss_max slope < <(awk -F, -v w="$warmup_s" '
  NR > 1 && $1 >= w && $2 != "" { t[n] = $1; r[n++] = $2 }
  function median(lo, hi,   k, i, j, tmp, a) { k = 0; for (i = lo; i < hi; i++) a[k++] = r[i]
    for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return a[int(k / 2)] }
  END { third = int(n / 3); if (third < 1) third = 1
    for (i = 0; i < n; i++) { if (r[i] > max) max = r[i]; st += t[i]; sr += r[i] }
    mt = st / n; mr = sr / n; for (i = 0; i < n; i++) { num += (t[i] - mt) * (r[i] - mr); den += (t[i] - mt) ^ 2 }
    printf "%d %d %d %.1f\n", median(0, third), median(n - third, n), max, den ? num / den * 60 : 0 }' "$OUT/rss.csv")
growth=$((rss_last - rss_first))
tolerance=$(awk -v a="$rss_first" 'BEGIN{t = a * 0.05; printf "%d", (t > 2048 ? t : 2048)}')
check "broker RSS after warm-up: $rss_first KiB -> $rss_last KiB (median of first/last third; growth $growth KiB, tolerance $tolerance KiB; slope $slope KiB/min; max $rss_max KiB)" \
  test "$growth" -le "$tolerance"

# ---- the figures --------------------------------------------------------------------------------
pct() {  # pct VIA KIND : p50 p90 p99 max of the latencies (ms) of the calls that succeeded
  awk -F, -v via="$1" -v kind="$2" 'NR > 1 && $2 == via && $3 == kind && $5 == "ok" {print $4}' "$OUT/calls.csv" | sort -g |
    awk '{a[n++] = $1} END { if (!n) { print "- - - - 0"; exit }
      printf "%.2f %.2f %.2f %.2f %d\n", a[int(n * .5)], a[int(n * .9)], a[int(n * .99)], a[n - 1], n }'
}
{
  echo "# Soak: $MINUTES min, $NODES nodes, $RATE calls/s"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "devices, broker and driver on the same machine. Command: \`bench/soak.sh --minutes $MINUTES --nodes $NODES --rate $RATE\`."
  echo
  echo "| check | result |"
  echo "|---|---|"
  echo "| broker alive at the end | $(kill -0 "$BROKER_PID" 2>/dev/null && echo yes || echo NO) |"
  echo "| driver violations (unanswered, answered twice, unexpected outcome, audit mismatch) | $(jq '.failures | length' "$OUT/driver.json" 2>/dev/null || echo "driver failed") |"
  echo "| calls made / audit call lines | $(jq -r '"\(.calls) / \(.audit.lines) (\(.audit.mismatches) mismatching keys)"' "$OUT/driver.json" 2>/dev/null) |"
  echo "| broker RSS after warm-up ($warmup_s s): first third → last third (median) | $rss_first → $rss_last KiB ($growth KiB; tolerance $tolerance) |"
  echo "| RSS slope after warm-up / max | $slope KiB/min / $rss_max KiB |"
  echo "| node churn (restarts per churn process) | $(jq -c '.restarts' "$OUT/driver.json" 2>/dev/null) |"
  echo "| revocations | $(jq '.revoked' "$OUT/driver.json" 2>/dev/null) |"
  echo "| re-announces verified (audit \`accept\` of announces) | $(grep '/announce"' "$T/audit.log" | grep -c '"decision":"accept"' || true) |"
  echo "| metrics streams opened / frames received | $(jq -r '"\(.streams.opened) / \(.streams.frames)"' "$OUT/driver.json" 2>/dev/null) |"
  echo "| MCP tools/list (last session opened) | $(jq -r '"\(.tools_list.tools) tools, \(.tools_list.pages) pages, \(.tools_list.ms | floor) ms; \(.tools_list.lists) full listings"' "$OUT/driver.json" 2>/dev/null) |"
  echo
  echo "Latency of the calls that succeeded (ms, measured by the driver: Node fetch / MCP SDK, loopback):"
  echo
  echo "| via | tool | p50 | p90 | p99 | max | calls |"
  echo "|---|---|---|---|---|---|---|"
  for via in rfc0009 mcp; do for kind in echo snapshot; do
    read -r p50 p90 p99 max n < <(pct "$via" "$kind")
    echo "| $via | $kind | $p50 | $p90 | $p99 | $max | $n |"
  done; done
  echo
  echo "Outcomes (via, tool, class of node when called, outcome: count):"
  echo
  echo '```'
  jq -r '.outcomes | to_entries[] | "\(.key): \(.value)"' "$OUT/driver.json" 2>/dev/null
  echo '```'
} >"$OUT/soak.md"
cat "$OUT/soak.md"
[ $failed -eq 0 ] || fail "the soak failed (see above and $OUT)"
echo "soak passed"
