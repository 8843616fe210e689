#!/usr/bin/env bash
# Agents at fleet scale (issue 14): what an MCP agent pays to use the fleet in each tools mode.
# For each fleet size and mode: mosquitto + fleetmcp_plugin.so + HTTP front in that mode, and
# `fleetmcp-device --simulate N --catalogue` (every node offers the Doc 05 catalogue: 25 tools);
# then tests/node/agents_bench.mjs (official MCP SDK client) measures the whole tools/list (tools,
# bytes, tokens with gpt-tokenizer o200k_base, median latency of 3) and three scripted agent
# tasks (echo one named node; health of all nodes; set a GPIO with confirmation): MCP round trips
# and tokens the agent must read. Prints a table; asserts nothing but that every node came online.
#
# Usage: bench/agents_bench.sh [--sizes "5 100 1000"] [--modes "by_kind per_node compact"]
. "$(dirname "$0")/../tests/integration/lib.sh"

SIZES="5 100 1000" MODES="by_kind per_node compact"
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) SIZES=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    -h|--help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) fail "unknown argument $1 (see --help)" ;;
  esac
done
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
ulimit -n "$(ulimit -Hn)"

pki_init
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
echo "enrolling $max nodes ..."
mapfile -t ALL < <(device_enroll "$max" "$PORT_TLS")
TOKEN=$(agent_token agent-bench acme "$E2E_SCOPES")

rows=()
for n in $SIZES; do
  for mode in $MODES; do
    run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "plugin_opt_http_tools_mode $mode")" "broker-$n-$mode"
    wait_for_line "$T/broker-$n-$mode.log" "fleetmcp: first tick" 10 || fail "plugin not ready"
    HTTP_PORT=$(broker_http_port "broker-$n-$mode")
    E2E_BASE=http://127.0.0.1:$HTTP_PORT
    # --simulate N takes the first N bundles in node_id order.
    device_start "fleet-$n-$mode" --simulate "$n" --catalogue --bundle-dir "$T/pki" --log-level warn
    fleet_pid=$DEVICE_PID
    e2e_wait_online "$n" 300
    row=$(MCP_URL=$E2E_BASE/mcp TOKEN=$TOKEN MODE=$mode NODES=$n node "$SRC/tests/node/agents_bench.mjs") ||
      fail "agents_bench.mjs ($n nodes, $mode)"
    echo "$row"
    rows+=("$row")
    kill "$fleet_pid"; wait "$fleet_pid" 2>/dev/null || true
    stop_broker
  done
done

echo
echo "| nodes | mode | tools | tools/list bytes | tokens | list ms | echo: trips / tokens | health of all: trips / tokens | GPIO set: trips / tokens |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}" | jq -r '"| \(.nodes) | \(.mode) | \(.tools) | \(.bytes) | \(.tokens) | \(.list_ms_median) | \(.echo.round_trips) / \(.echo.tokens) | \(.health.round_trips) / \(.health.tokens) (\(.health.healthy) ok) | \(.gpio.round_trips) / \(.gpio.tokens) |"'
