#!/usr/bin/env bash
# README command (1): a local fleet to try fleetmcp with.
#
#   ./scripts/local-fleet.sh [--nodes N] [--no-build]
#
# As root on Debian 12 it installs what is needed (scripts/install-deps.sh), builds (build/,
# Release), creates a test PKI, node bundles and an agent token under .fleet/, starts mosquitto
# with the fleetmcp plugin (config derived from the top-level mosquitto.conf: device mTLS
# listener, agent listener and the MCP HTTP front, all on 127.0.0.1) and N simulated nodes
# (RFC-0005's mock fleet: system.echo and system.metrics each), waits until every node is
# verified and online, calls one echo tool through the MCP endpoint, and prints the
# export FLEETMCP_URL / FLEETMCP_TOKEN / FLEETMCP_MQTT lines and an example call.
# It runs until Ctrl-C, then stops everything it started. Running it again reuses .fleet/pki.
#
#   --nodes N     simulated nodes (default 5)
#   --no-build    skip install-deps.sh and the build; use the binaries already built
#   -h, --help    this text
#
# Environment: FLEETMCP_BINARY_DIR (build dir, default build), FLEETMCP_FLEET_DIR (default .fleet),
# FLEETMCP_DEVICE_PORT (8883), FLEETMCP_AGENT_PORT (1883), FLEETMCP_HTTP_PORT (8080),
# FLEETMCP_TENANT (acme).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

nodes=5 build=1
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) [[ ${2:-} =~ ^[1-9][0-9]{0,4}$ ]] || { echo "local-fleet: --nodes needs a number from 1" >&2; exit 2; }
             nodes=$2; shift 2 ;;
    --nodes=*) set -- --nodes "${1#--nodes=}" "${@:2}" ;;
    --no-build) build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "local-fleet: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

bin=${FLEETMCP_BINARY_DIR:-$repo/build}
fleet=${FLEETMCP_FLEET_DIR:-$repo/.fleet}
device_port=${FLEETMCP_DEVICE_PORT:-8883}
agent_port=${FLEETMCP_AGENT_PORT:-1883}
http_port=${FLEETMCP_HTTP_PORT:-8080}
tenant=${FLEETMCP_TENANT:-acme}
fleetctl=$bin/tools/fleetctl/fleetctl
device=$bin/device_client/fleetmcp-device
plugin=$bin/broker_plugin/fleetmcp_plugin.so
export FLEETMCP_SCHEMAS=$repo/schemas
started=$SECONDS
step_no=0
step() { step_no=$((step_no + 1)); printf '[%d] %s\n' "$step_no" "$*"; }
say() { printf '    %s\n' "$*"; }
die() { printf 'local-fleet: %s\n' "$*" >&2; exit 1; }

# ---- stop everything we started, whatever happens --------------------------------------------
broker_pid="" devices_pid=""
stop_all() {
  local p
  for p in $devices_pid $broker_pid; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $devices_pid $broker_pid; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  devices_pid="" broker_pid=""
}
on_exit() { local rc=$?; trap - EXIT INT TERM; stop_all; exit "$rc"; }
# In a wait for a process to be ready: dies with the end of its log when it has exited, or when
# $SECONDS has reached the deadline (stop_all still reaps it).
still_starting() {  # pid log deadline name late-message
  kill -0 "$1" 2>/dev/null || { tail -20 "$2"; die "$4 exited (log: $2)"; }
  [ $SECONDS -lt "$3" ] || { tail -20 "$2"; die "$5"; }
}
trap on_exit EXIT
trap 'echo; step "stopping (Ctrl-C)"; stop_all; say "stopped; nothing left running"; trap - EXIT; exit 0' INT TERM HUP

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- 1. dependencies and build ------------------------------------------------------------------
if [ "$build" = 1 ]; then
  step "installing dependencies (scripts/install-deps.sh)"
  scripts/install-deps.sh | sed 's/^/    /'
  step "building fleetctl, fleetmcp-device and fleetmcp_plugin.so in $bin (Release)"
  t=$SECONDS
  cmake -S . -B "$bin" -DCMAKE_BUILD_TYPE=Release >"$bin.configure.log" 2>&1 \
    || { cat "$bin.configure.log"; die "cmake configure failed (log: $bin.configure.log)"; }
  cmake --build "$bin" -j"$(nproc)" --target fleetctl fleetmcp-device fleetmcp_plugin >"$bin.build.log" 2>&1 \
    || { grep -E -A5 "error:" "$bin.build.log" | head -40; die "build failed (log: $bin.build.log)"; }
  say "built in $((SECONDS - t)) s (log: $bin.build.log)"
else
  step "using the binaries in $bin (--no-build)"
fi
for f in "$fleetctl" "$device" "$plugin"; do [ -e "$f" ] || die "$f is missing: run without --no-build"; done
for c in mosquitto mosquitto_sub curl; do
  command -v "$c" >/dev/null || die "$c is not installed: run scripts/install-deps.sh as root"
done
for p in "$device_port" "$agent_port" "$http_port"; do
  port_busy "$p" && die "port $p on 127.0.0.1 is in use (a system mosquitto? systemctl stop mosquitto), or set FLEETMCP_DEVICE_PORT / FLEETMCP_AGENT_PORT / FLEETMCP_HTTP_PORT"
done

# ---- 2. PKI, node bundles, agent token ------------------------------------------------------
pki=$fleet/pki
mkdir -p "$fleet"
chmod 700 "$fleet"
if [ -f "$pki/ca.crt" ] && [ -f "$pki/issuer.pub" ] && [ -f "$pki/server.crt" ] \
   && openssl x509 -in "$pki/server.crt" -noout -checkend 3600 >/dev/null 2>&1; then
  step "reusing the test PKI in $pki"
else
  step "creating a test PKI in $pki (fleetctl pki init)"
  rm -rf "$pki"
  "$fleetctl" pki init --dir "$pki" >"$fleet/pki-init.log" 2>&1 || { cat "$fleet/pki-init.log"; die "fleetctl pki init failed"; }
fi
have=$(find "$pki/nodes" -mindepth 2 -maxdepth 2 -name device.conf 2>/dev/null | wc -l)
if [ "$have" -lt "$nodes" ]; then
  "$fleetctl" pki enroll --dir "$pki" --tenant "$tenant" --count $((nodes - have)) \
    --broker "mqtts://127.0.0.1:$device_port" >/dev/null 2>"$fleet/enroll.log" \
    || { cat "$fleet/enroll.log"; die "fleetctl pki enroll failed"; }
fi
# The first N bundles (fleetmcp-device --simulate takes them in node_id order) point at this run's port.
node_ids=$(find "$pki/nodes" -mindepth 2 -maxdepth 2 -name device.conf | sort | head -n "$nodes" | xargs -n1 dirname | xargs -n1 basename)
for id in $node_ids; do
  sed -i "s|^broker = .*|broker = mqtts://127.0.0.1:$device_port|" "$pki/nodes/$id/device.conf"
done
say "$nodes node bundles in $pki/nodes (tenant $tenant)"
token=$("$fleetctl" token issue --dir "$pki" --sub local-agent --tenant "$tenant" \
          --scope "devices:read tools:call:read_only" --ttl 1d 2>"$fleet/token.log") \
  || { cat "$fleet/token.log"; die "fleetctl token issue failed"; }
say "agent token for sub=local-agent, scopes devices:read tools:call:read_only, valid 1 day"
# mosquitto_sub reads default options from $XDG_CONFIG_HOME/mosquitto_sub: the printed command
# points there, so the token never appears on a command line (where `ps` shows it to every user).
mkdir -p "$fleet/mqtt-agent"
(umask 077 && printf -- '-u local-agent\n-P %s\n' "$token" >"$fleet/mqtt-agent/mosquitto_sub")

# ---- 3. broker -----------------------------------------------------------------------------------
step "starting mosquitto with fleetmcp_plugin.so (config derived from mosquitto.conf)"
# Runtime state starts fresh each run: announces and status of an earlier run are not carried over.
rm -rf "$fleet/data"
mkdir -p "$fleet/data"
scripts/broker-conf.sh --pki "$pki" --plugin "$plugin" --data "$fleet/data" \
  --device-port "$device_port" --agent-port "$agent_port" --http-port "$http_port" >"$fleet/mosquitto.conf"
mosquitto -c "$fleet/mosquitto.conf" >"$fleet/mosquitto.log" 2>&1 &
broker_pid=$!
deadline=$((SECONDS + 15))
until grep -q "fleetmcp: plugin ready" "$fleet/mosquitto.log" && port_busy "$device_port" && port_busy "$http_port"; do
  still_starting "$broker_pid" "$fleet/mosquitto.log" "$deadline" mosquitto "mosquitto not ready within 15 s"
  sleep 0.1
done
say "devices: mqtts://127.0.0.1:$device_port (mTLS)   agents: mqtt://127.0.0.1:$agent_port   MCP: http://127.0.0.1:$http_port/mcp"
say "log: $fleet/mosquitto.log   audit: $fleet/data/fleetmcp-audit.log"

# ---- 4. simulated nodes --------------------------------------------------------------------------
# --catalogue: every simulated node also offers the Doc 05 tools (GPIO, I2C, camera, services …)
# on simulated hardware (docs/catalogue.md).
step "starting $nodes simulated nodes (fleetmcp-device --simulate $nodes --catalogue)"
"$device" --simulate "$nodes" --catalogue --bundle-dir "$pki" >"$fleet/devices.log" 2>&1 &
devices_pid=$!

online_count() {
  # Retained status of every node this agent may see, read once over the agent listener.
  timeout 5 mosquitto_sub -V mqttv5 -p "$agent_port" -u local-agent -P "$token" -q 1 -t "\$devices/+/status" \
    --retained-only -W 1 2>/dev/null | grep '"state":"online"' | grep -o '"node_id":"[0-9a-z]*"' | sort -u | grep -c . || true
}
deadline=$((SECONDS + 60))
while :; do
  n=$(online_count)
  [ "$n" -ge "$nodes" ] && break
  still_starting "$devices_pid" "$fleet/devices.log" "$deadline" fleetmcp-device \
    "only $n of $nodes nodes online after 60 s (logs: $fleet/devices.log, $fleet/mosquitto.log)"
  sleep 0.5
done
say "all $nodes nodes verified and online (their \$devices/<id>/status says so)"

# ---- 5. one echo call through MCP, as proof ---------------------------------------------------
step "calling an echo tool through the MCP endpoint"
url=http://127.0.0.1:$http_port/mcp
first=$(printf '%s\n' "$node_ids" | head -1)
mcp=(-s -X POST "$url" -H "Authorization: Bearer $token" -H "Content-Type: application/json"
     -H "Accept: application/json, text/event-stream")
session=$(curl "${mcp[@]}" -D - -o /dev/null \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"local-fleet","version":"1"}}}' \
  | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}' | tr -d '\r')
[ -n "$session" ] || die "MCP initialize returned no session (log: $fleet/mosquitto.log)"
mcp+=(-H "Mcp-Session-Id: $session" -H "MCP-Protocol-Version: 2025-06-18")
curl "${mcp[@]}" -o /dev/null -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
answer=$(curl "${mcp[@]}" -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"sysecho-$first-echo-invoke\",\"arguments\":{\"message\":\"hello from local-fleet\"}}}")
curl -s -o /dev/null -X DELETE "$url" -H "Authorization: Bearer $token" -H "Mcp-Session-Id: $session"
case $answer in
  *'"isError":true'*|*'"error":'*|'') die "the echo call failed: $answer" ;;
  *'hello from local-fleet'*"$first"*|*"$first"*'hello from local-fleet'*) ;;
  *) die "unexpected echo answer: $answer" ;;
esac
say "tools/call sysecho-$first-echo-invoke -> {\"message\":\"hello from local-fleet\",\"node_id\":\"$first\",…}"
say "ready in $((SECONDS - started)) s"

# ---- 6. what to paste ---------------------------------------------------------------------------
echo
echo "# The fleet is up. Paste these into another shell:"
echo "export FLEETMCP_URL=$url"
echo "export FLEETMCP_TOKEN=$token"
echo "export FLEETMCP_MQTT=mqtt://127.0.0.1:$agent_port"
echo
echo "# An echo call (RFC-0009 endpoint, one request):"
# The token goes to curl on its stdin (printf is a shell builtin), never in its arguments.
echo "printf 'Authorization: Bearer %s\\n' \"\$FLEETMCP_TOKEN\" | curl -s -X POST \"\$FLEETMCP_URL/tools/call\" -H @- -H 'Content-Type: application/json' -d '{\"tool\":\"sysecho.$first.echo.invoke\",\"arguments\":{\"message\":\"ping\"}}'"
echo "# The same with fleetctl (it reads FLEETMCP_URL, FLEETMCP_MQTT and FLEETMCP_TOKEN):"
echo "$fleetctl nodes"
echo "$fleetctl call sysecho.$first.echo.invoke '{\"message\":\"ping\"}'"
echo "# The fleet's announces over MQTT (user and token from $fleet/mqtt-agent/mosquitto_sub):"
echo "XDG_CONFIG_HOME=$fleet/mqtt-agent mosquitto_sub -V mqttv5 -p $agent_port -t '\$devices/+/announce' -C $nodes"
echo "# MCP clients (Claude Desktop, MCP Inspector): README.md, \"Connect agents\". Ctrl-C stops the fleet."

# ---- 7. run until Ctrl-C ------------------------------------------------------------------------
while :; do
  if ! kill -0 "$broker_pid" 2>/dev/null; then
    wait "$broker_pid" 2>/dev/null || true; broker_pid=""
    tail -20 "$fleet/mosquitto.log" >&2; die "mosquitto exited (log: $fleet/mosquitto.log)"
  fi
  if ! kill -0 "$devices_pid" 2>/dev/null; then
    wait "$devices_pid" 2>/dev/null || true; devices_pid=""
    tail -20 "$fleet/devices.log" >&2; die "fleetmcp-device exited (log: $fleet/devices.log)"
  fi
  sleep 1 & wait $! || true
done
