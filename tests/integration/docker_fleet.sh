#!/usr/bin/env bash
# The compose fleet in a real Docker engine (README "Containers", exactly as written there, with
# the .debs of this build): images built without compiling again, `up -d broker`, the device
# service scaled to 2 containers, /healthz serving every node, the example agent, the MCP SDK on
# the published /mcp (list, echo on every node, one metrics subscribe), a broker container
# restart the nodes come back from, and `down -v` leaving no container, network or volume.
# Installs docker.io and mmdebstrap (scripts/install-deps.sh --docker), starts dockerd if none
# runs, and makes the debian:12 base image if the engine has none (scripts/docker-base-image.sh).
# The host ports are free ones, so the test runs beside the others.
. "$(dirname "$0")/lib.sh"

t0=$SECONDS
"$SRC/scripts/install-deps.sh" --docker >"$T/install.log" 2>&1 || fail "install-deps --docker (see $T/install.log)"
echo "# tools installed in $((SECONDS - t0)) s"

if ! docker info >/dev/null 2>&1; then
  # Our own engine, stopped at exit; images stay in /var/lib/docker for the next run.
  dockerd >"$T/dockerd.log" 2>&1 &
  track $!
  wait_until 30 docker info || fail "dockerd did not start (see $T/dockerd.log)"
  echo "# started dockerd"
fi
"$SRC/scripts/docker-base-image.sh" >"$T/base.log" 2>&1 || fail "base image (see $T/base.log)"

# The .debs of this very build, where the Dockerfile's build argument DEBS finds them.
case "$BIN/" in "$SRC"/*) ;; *) fail "the build dir $BIN is not inside $SRC: the image build context cannot see its .debs" ;; esac
(cd "$BIN" && cpack -G DEB) >"$T/cpack.log" 2>&1 || fail "cpack (see $T/cpack.log)"
export DEBS=${BIN#"$SRC"/}/packages FLEETMCP_IMAGES=debs
export COMPOSE_PROJECT_NAME=fleetmcp-test-$$
export FLEETMCP_HTTP_PORT=$(free_port) FLEETMCP_MQTT_PORT=$(free_port) FLEETMCP_MQTTS_PORT=$(free_port)
compose() { (cd "$SRC" && docker-compose "$@"); }
down() { compose down -v --remove-orphans >>"$T/down.log" 2>&1; }
trap '_rc=$?; down; (exit $_rc); _cleanup' EXIT

start=$SECONDS
compose build >"$T/build.log" 2>&1 || fail "docker-compose build (see $T/build.log)"
grep -q 'Compiling\|cmake --build' "$T/build.log" && fail "the image build compiled the project again"
size() { docker image inspect -f '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1 / 1e6}'; }
echo "# images built in $((SECONDS - start)) s: fleetmcp-broker $(size fleetmcp-broker:local), fleetmcp-device $(size fleetmcp-device:local)"
pass "docker-compose build: images from the .debs of this build"

start=$SECONDS
compose up -d broker >"$T/up.log" 2>&1 || fail "up -d broker (see $T/up.log)"
compose up -d --scale device=2 device >>"$T/up.log" 2>&1 || fail "up -d --scale device=2 device (see $T/up.log)"
assert_eq "$(compose ps -q device | wc -l)" 2 "two device containers"
base=http://127.0.0.1:$FLEETMCP_HTTP_PORT
serving() { [ "$(curl -s "$base/healthz" | jq -r '"\(.nodes.online) \(.serving)"')" = "$1 $1" ]; }
wait_until 90 serving 10 || fail "/healthz: $(curl -s "$base/healthz"); 10 nodes serving expected"
echo "# up to 10 nodes serving in $((SECONDS - start)) s"
pass "/healthz: 2 containers x 5 nodes online and serving"

compose run --rm agent >"$T/agent.log" 2>&1 || fail "the agent service failed (see $T/agent.log)"
assert_contains "$(cat "$T/agent.log")" "agent: 10 nodes with an echo tool" "the agent service finds the 10 nodes with fleet_find_nodes"
assert_eq "$(grep -c '"message":"hello"' "$T/agent.log")" 10 "the agent's echo calls are answered by every node"

export MCP_URL=$base/mcp TOKEN
TOKEN=$(compose exec -T broker cat /agent/token)
node "$SRC/tests/node/mcp_call.mjs" fleet 10 || fail "MCP SDK on the published /mcp"

start=$SECONDS
compose restart broker >>"$T/up.log" 2>&1 || fail "restart broker"
wait_until 90 serving 10 || fail "after a broker restart /healthz: $(curl -s "$base/healthz")"
echo "# nodes back $((SECONDS - start)) s after the broker restart"
pass "broker container restarted: the 10 nodes reconnect and serve again"
node "$SRC/tests/node/mcp_call.mjs" fleet 10 >"$T/after-restart.log" || fail "MCP after the restart: $(cat "$T/after-restart.log")"
pass "MCP calls work after the restart"

compose down -v >"$T/down.log" 2>&1 || fail "down -v (see $T/down.log)"
label=label=com.docker.compose.project=$COMPOSE_PROJECT_NAME
assert_eq "$(docker ps -aq --filter "$label")" "" "down -v: no container left"
assert_eq "$(docker network ls -q --filter "$label")" "" "down -v: no network left"
assert_eq "$(docker volume ls -q --filter "$label")" "" "down -v: no volume left"
echo "# docker_fleet took $((SECONDS - t0)) s"
