#!/bin/sh
# The compose example agent: waits for the fleet, then does what an MCP client does over plain
# HTTP (initialize, tools/list, tools/call of every echo tool) and reads the announces over MQTT.
set -eu
url=${FLEETMCP_URL:-http://broker:8080/mcp} token=$(cat /agent/token)
until curl -fsS "${url%/mcp}/healthz" >/dev/null 2>&1; do sleep 1; done
h() { curl -sS -X POST "$url" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$@"; }
sid=$(h -D - -o /dev/null -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compose-agent","version":"1"}}}' \
      | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' | tr -d '\r')
h -H "Mcp-Session-Id: $sid" -o /dev/null -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
sleep "${AGENT_WAIT_S:-5}"
tools=$(h -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
        | grep -o '"name":"sysecho-[0-9a-z]*-echo-invoke"' | cut -d'"' -f4)
echo "agent: $(echo "$tools" | grep -c . || true) echo tools listed"
i=3
for t in $tools; do
  h -H "Mcp-Session-Id: $sid" -d "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"$t\",\"arguments\":{\"message\":\"hello\"}}}"
  echo; i=$((i + 1))
done
echo "agent: announces on \$devices/+/announce (MQTT, token auth):"
mosquitto_sub -V mqttv5 -h broker -p 1883 -u example-agent -P "$token" -t '$devices/+/announce' -W 3 -v | cut -c1-120 || true
