#!/usr/bin/env bash
# README command (1), scripts/local-fleet.sh, against the already-built tree (--no-build) on free
# ports: it becomes ready, the export lines it prints work (a tools/call with the printed token
# through the printed URL, an MQTT read through the printed agent listener), SIGINT stops
# everything it started, and a second run (reusing the PKI) works too.
. "$(dirname "$0")/lib.sh"

export FLEETMCP_BINARY_DIR=$BIN FLEETMCP_FLEET_DIR=$T/fleet
export FLEETMCP_DEVICE_PORT=$(free_port) FLEETMCP_AGENT_PORT=$(free_port) FLEETMCP_HTTP_PORT=$(free_port)

# What is left of a run: processes whose command line names this fleet dir.
leftovers() { pgrep -af -- "$T/fleet" | grep -v pgrep || true; }

# run_fleet NAME ARGS... : starts local-fleet.sh in its own process group (job control, so SIGINT
# is not ignored as it is for a plain background job) and waits for the example call line.
run_fleet() {
  local name=$1; shift
  set -m
  "$SRC/scripts/local-fleet.sh" --no-build "$@" >"$T/$name.out" 2>"$T/$name.log" &
  FLEET_PID=$!
  set +m
  track "$FLEET_PID"
  local deadline=$((SECONDS + 90))
  until grep -q '^# MCP clients' "$T/$name.out"; do
    kill -0 "$FLEET_PID" 2>/dev/null || { cat "$T/$name.out" >&2; fail "$name: local-fleet.sh exited before ready"; }
    [ $SECONDS -lt $deadline ] || { cat "$T/$name.out" >&2; fail "$name: not ready within 90 s"; }
    sleep 0.2
  done
}

# stop_fleet NAME : SIGINT to the script alone; it must stop its broker and nodes and exit 0.
stop_fleet() {
  kill -INT "$FLEET_PID"
  local rc=0
  timeout 20 tail --pid="$FLEET_PID" -f /dev/null || fail "$1: still running 20 s after SIGINT"
  wait "$FLEET_PID" || rc=$?
  assert_eq "$rc" 0 "$1: exits 0 on SIGINT"
  assert_eq "$(leftovers)" "" "$1: no process left running"
  for p in "$FLEETMCP_DEVICE_PORT" "$FLEETMCP_AGENT_PORT" "$FLEETMCP_HTTP_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fail "$1: port $p still open"; fi
  done
  pass "$1: every port released"
}

"$SRC/scripts/local-fleet.sh" --help | grep -- '--nodes N' >/dev/null || fail "--help lists --nodes"
pass "--help"
rc=0; "$SRC/scripts/local-fleet.sh" --bogus >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "an unknown option is a usage error"

start=$SECONDS
run_fleet first
echo "# ready in $((SECONDS - start)) s from a built tree"
out=$(cat "$T/first.out")
for step in "creating a test PKI" "starting mosquitto" "starting 5 simulated nodes" "all 5 nodes verified and online" "calling an echo tool"; do
  assert_contains "$out" "$step" "progress: $step"
done

# The three export lines, each on its own line, then an example call.
exports=$(grep '^export FLEETMCP_' "$T/first.out")
assert_eq "$(printf '%s\n' "$exports" | cut -d= -f1 | tr '\n' ' ')" \
  "export FLEETMCP_URL export FLEETMCP_TOKEN export FLEETMCP_MQTT " "three export lines in order"
eval "$exports"
assert_eq "$FLEETMCP_URL" "http://127.0.0.1:$FLEETMCP_HTTP_PORT/mcp" "FLEETMCP_URL is the /mcp URL"
assert_eq "$FLEETMCP_MQTT" "mqtt://127.0.0.1:$FLEETMCP_AGENT_PORT" "FLEETMCP_MQTT is the agent listener"

# The printed example call, pasted as is.
example=$(grep -A1 '^# An echo call' "$T/first.out" | tail -1)
assert_contains "$example" 'curl ' "an example curl call is printed"
answer=$(bash -c "$example")
assert_contains "$answer" '"message":"ping"' "the printed example call works"
# Issue 17: no printed command hands the token to a program's arguments (`ps` shows them).
[ -z "$(grep -v '^export ' "$T/first.out" | grep -F -e "$FLEETMCP_TOKEN" -e '-P "$FLEETMCP_TOKEN"' -e 'Bearer $FLEETMCP_TOKEN"')" ] \
  || fail "a printed command puts the token on a command line: $(grep -e '-P ' -e 'Bearer' "$T/first.out")"
pass "no printed command puts the token on a command line"
mqtt_example=$(grep -A1 "^# The fleet's announces over MQTT" "$T/first.out" | tail -1)
got=$(timeout 10 bash -c "$mqtt_example -W 8" | grep -c '"node_attestation"')
assert_eq "$got" 5 "the printed mosquitto_sub command reads the five announces"

# The MCP endpoint with the printed token, through the official SDK client: list every page (the
# nodes offer the whole catalogue), then call the echo tool of each of the five nodes.
[ -d "$SRC/tests/node/node_modules/@modelcontextprotocol/sdk" ] || fail "MCP SDK missing: npm ci in tests/node"
listed=$(node --input-type=module -e '
  import { createRequire } from "node:module";
  const require = createRequire(process.argv[1] + "/tests/node/package.json");
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(new URL(process.env.FLEETMCP_URL),
    { requestInit: { headers: { Authorization: "Bearer " + process.env.FLEETMCP_TOKEN } } });
  const client = new Client({ name: "local-fleet-test", version: "1" });
  await client.connect(transport);
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  // by_kind (mosquitto.conf): one system_echo_ping whose node_id enum names the five nodes.
  const nodes = tools.find(t => t.name === "system_echo_ping").inputSchema.properties.node_id.enum;
  for (const node_id of nodes) {
    const r = await client.callTool({ name: "system_echo_ping", arguments: { node_id, arguments: { message: "sdk" } } });
    if (r.isError || r.structuredContent?.message !== "sdk") throw new Error(JSON.stringify(r));
  }
  console.log(nodes.length);
  await client.close();
' "$SRC" 2>"$T/sdk.log") || fail "MCP SDK client failed: $(cat "$T/sdk.log")"
assert_eq "$listed" 5 "the SDK client lists system_echo_ping for five nodes with the printed token and calls each"

# The printed MQTT URL with the printed token (username = the token's sub) reads the announces.
port=${FLEETMCP_MQTT##*:}
got=$(timeout 10 mosquitto_sub -V mqttv5 -p "$port" -u local-agent -P "$FLEETMCP_TOKEN" -t '$devices/+/announce' -C 5 -W 8 | grep -c '"node_attestation"')
assert_eq "$got" 5 "the printed MQTT URL and token read the five announces"

stop_fleet first

# A second run reuses .fleet/pki (same node ids) and works as well.
ids_before=$(ls "$T/fleet/pki/nodes" | sort | tr '\n' ' ')
run_fleet second --nodes 2
assert_contains "$(cat "$T/second.out")" "reusing the test PKI" "second run reuses the PKI"
assert_eq "$(ls "$T/fleet/pki/nodes" | sort | tr '\n' ' ')" "$ids_before" "no new enrolments for fewer nodes"
eval "$(grep '^export FLEETMCP_' "$T/second.out")"
answer=$(bash -c "$(grep -A1 '^# An echo call' "$T/second.out" | tail -1)")
assert_contains "$answer" '"message":"ping"' "second run: the example call works"
stop_fleet second
