#!/bin/sh
# The compose example agent: waits for the fleet, then does what an MCP client does over plain
# HTTP (initialize, tools/list, fleet_find_nodes, the echo tool on every node) and reads the announces over MQTT.
set -eu
url=${FLEETMCP_URL:-http://broker:8080/mcp} token=$(cat /agent/token)
until curl -fsS "${url%/mcp}/healthz" >/dev/null 2>&1; do sleep 1; done
h() { curl -sS -X POST "$url" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$@"; }
sid=$(h -D - -o /dev/null -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compose-agent","version":"1"}}}' \
      | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' | tr -d '\r')
h -H "Mcp-Session-Id: $sid" -o /dev/null -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
sleep "${AGENT_WAIT_S:-5}"
# The default tools mode (by_kind) offers one echo tool for the whole fleet, system_echo_ping,
# and fleet_find_nodes to learn which nodes have it.
call() {  # call ID TOOL ARGUMENTS_JSON
  h -H "Mcp-Session-Id: $sid" -d "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}"
}
h -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | grep -q '"name":"system_echo_ping"' \
  || { echo "agent: no system_echo_ping tool listed (is plugin_opt_http_tools_mode by_kind?)" >&2; exit 1; }
nodes=$(call 3 fleet_find_nodes '{"kind":"system.echo","state":"online"}' \
        | grep -o '\\\?"node_id\\\?":\\\?"[0-9a-z]\{26\}' | grep -o '[0-9a-z]\{26\}' | sort -u)
count=$(echo "$nodes" | grep -c . || true)
echo "agent: $count nodes with an echo tool"
i=4
for n in $nodes; do
  call $i system_echo_ping "{\"node_id\":\"$n\",\"arguments\":{\"message\":\"hello\"}}"
  echo; i=$((i + 1))
done
echo "agent: announces on \$devices/+/announce (MQTT, token auth):"
# One retained announce per node: stop after those (-W only if one is missing).
mosquitto_sub -V mqttv5 -h broker -p 1883 -u example-agent -P "$token" -t '$devices/+/announce' -C "$count" -W 10 -v \
  | cut -c1-120 || true
