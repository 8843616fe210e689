# Shared helpers for integration tests: real mosquitto on loopback, real clients, temp dirs.
# Source it:  . "$(dirname "$0")/lib.sh"
# Each test gets $T (a temp dir removed at exit with every process it started) and the paths of
# the built programs. Nothing here mocks anything.
set -euo pipefail

SRC=${FLEETMCP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=${FLEETMCP_BINARY_DIR:-$SRC/build}
FLEETCTL=$BIN/tools/fleetctl/fleetctl
DEVICE=$BIN/device_client/fleetmcp-device
PLUGIN=$BIN/broker_plugin/fleetmcp_plugin.so
export FLEETMCP_SCHEMAS=${FLEETMCP_SCHEMAS:-$SRC/schemas}

T=$(mktemp -d /tmp/fleetmcp-test.XXXXXX)
_pids=()
_cleanup() {
  local rc=$?
  # SIGCONT after SIGTERM: a process a test stopped (SIGSTOP) acts on the SIGTERM only once it runs.
  for p in "${_pids[@]:-}"; do [ -n "$p" ] && { kill "$p"; kill -CONT "$p"; } 2>/dev/null || true; done
  # What has not exited 30 s after SIGTERM hangs (a user's systemctl stop would too): name it,
  # kill it and fail, rather than wait for ctest's timeout.
  local deadline=$((SECONDS + 30)) running
  while :; do
    running=()
    for p in "${_pids[@]:-}"; do
      [ -n "$p" ] && [ -e "/proc/$p" ] && ! grep -qs '^State:.*Z' "/proc/$p/status" && running+=("$p")
    done
    [ ${#running[@]} -eq 0 ] || [ $SECONDS -ge $deadline ] && break
    sleep 0.1
  done
  for p in "${running[@]}"; do
    echo "FAIL: $(cat "/proc/$p/comm" 2>/dev/null) (pid $p) did not exit within 30 s of SIGTERM" >&2
    kill -9 "$p" 2>/dev/null
    rc=1
  done
  for p in "${_pids[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  if [ $rc -ne 0 ] && [ -z "${KEEP_TMP:-}" ]; then
    echo "---- logs of the failed test ($T) ----" >&2
    for f in "$T"/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 40 "$f" >&2; }; done
  fi
  _release_ports
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$T"
  exit $rc
}
trap _cleanup EXIT

# Remember a background process so it is stopped at exit.
track() { _pids+=("$1"); }

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok - $*"; }

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() { [ "$1" == "$2" ] || fail "$3: expected [$2], got [$1]"; pass "$3"; }
# assert_contains HAYSTACK NEEDLE WHAT
assert_contains() { [[ "$1" == *"$2"* ]] || fail "$3: [$2] not in [$1]"; pass "$3"; }

# A free TCP port on 127.0.0.1 that no other running test holds. Ports come from 20000-32767, below
# the kernel's ephemeral range (32768-60999), so an outgoing connection's source port cannot take
# one between this call and the broker's bind. Each port is claimed with an atomic mkdir under
# $_PORT_CLAIMS (shared by the tests running side by side) and released when this test exits:
# two calls in one test, or two tests at once, never get the same port. Claims left by a test that
# died without cleaning up are taken back once their owner's temp dir is gone.
_PORT_CLAIMS=/tmp/fleetmcp-port-claims
free_port() {
  mkdir -p "$_PORT_CLAIMS" && chmod 1777 "$_PORT_CLAIMS" 2>/dev/null || true
  local port claim tries=0
  while :; do
    [ $((tries += 1)) -le 200 ] || fail "free_port: no free port found in 200 tries"
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 12768))
    claim=$_PORT_CLAIMS/$port
    if ! mkdir "$claim" 2>/dev/null; then
      local owner; owner=$(cat "$claim/owner" 2>/dev/null || true)
      [ -n "$owner" ] && [ ! -d "$owner" ] && rm -rf "$claim"   # stale: its test is gone
      continue
    fi
    echo "$T" >"$claim/owner"
    if node -e 'const s=require("net").createServer();s.on("error",()=>process.exit(1));
                s.listen(+process.argv[1],"127.0.0.1",()=>s.close())' "$port"; then
      echo "$port"; return 0
    fi
    echo "$T" >"$claim/busy"   # bound by something outside the tests; keep it claimed
  done
}
_release_ports() {
  local c
  for c in "$_PORT_CLAIMS"/*/owner; do
    [ -f "$c" ] && [ "$(cat "$c" 2>/dev/null)" == "$T" ] && rm -rf "$(dirname "$c")"
  done
  return 0
}

# wait_for_port PORT [SECONDS]
wait_for_port() {
  local port=$1 deadline=$((SECONDS + ${2:-10}))
  until (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "nothing listening on 127.0.0.1:$port"
    sleep 0.05
  done
}

# wait_until SECONDS COMMAND... : polls COMMAND until it succeeds.
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

# pki_init: a fresh test PKI in $T/pki (CA, issuer key, broker server cert).
pki_init() {
  "$FLEETCTL" pki init --dir "$T/pki" >"$T/pki-init.log" 2>&1 || fail "fleetctl pki init (see $T/pki-init.log)"
}

# start_mosquitto CONF_FILE NAME : runs mosquitto in the foreground of a tracked background job
# and waits for every "listener PORT" in CONF_FILE to accept connections.
start_mosquitto() {
  local conf=$1 name=${2:-mosquitto}
  mosquitto -c "$conf" >"$T/$name.log" 2>&1 &
  track $!
  local port
  for port in $(awk '$1=="listener"{print $2}' "$conf"); do wait_for_port "$port" 10; done
}

# broker_listeners TLS_PORT PLAIN_PORT : the listener lines every test broker has: an mTLS device
# listener as docs/protocol.md §2 (the test PKI's server certificate, identity = CN) and a plain
# loopback listener for agents.
broker_listeners() {
  cat <<CONF
listener $1 127.0.0.1
cafile $T/pki/ca.crt
certfile $T/pki/server.crt
keyfile $T/pki/server.key
require_certificate true
use_identity_as_username true
use_username_as_clientid true
listener $2 127.0.0.1
CONF
}

# tls_broker_conf TLS_PORT PLAIN_PORT [LINE…] : a broker config with broker_listeners, no plugin;
# extra LINEs go at the end. Prints the file name.
tls_broker_conf() {
  local conf=$T/mosquitto-$1.conf line
  cat >"$conf" <<CONF
per_listener_settings false
user root
set_tcp_nodelay true
check_retain_source true
allow_anonymous true
persistence false
log_dest stdout
$(broker_listeners "$1" "$2")
CONF
  for line in "${@:3}"; do echo "$line" >>"$conf"; done
  echo "$conf"
}

# ---- packages (tests/integration/packages.sh, cross_packages.sh) ----------------------------

# The packages a node's .debs may depend on, whatever the architecture: a library that is not on
# this list got linked in unseen (README "Install on a Pi": a Pi must be able to install them).
NODE_DEB_DEPENDS="adduser fleetmcp-schemas libc6 libgcc-s1 libstdc++6 libpaho-mqtt1.3 libpaho-mqttpp3-1
libssl3 libsodium23 libre2-9 libgpiod2 libsystemd0 libturbojpeg0 libpng16-16"
# The same for the trixie build (scripts/release-build.sh trixie, tests/integration/trixie_packages.sh):
# trixie's names of those libraries (libgpiod 2's soname, the 64-bit time_t rebuilds, re2 by the
# abseil ABI its libre2-11 provides: libre2-11-absl20240722).
NODE_DEB_DEPENDS_TRIXIE="adduser fleetmcp-schemas libc6 libgcc-s1 libstdc++6 libpaho-mqtt1.3 libpaho-mqttpp3-1
libssl3t64 libsodium23 libre2-11-absl20240722 libgpiod3 libsystemd0 libturbojpeg0 libpng16-16t64"

# The broker's package on trixie (trixie_packages.sh): mosquitto and the libraries the plugin links
# (libcurl fetches trusted issuers' keys, docs/authorization.md).
BROKER_DEB_DEPENDS_TRIXIE="mosquitto libmosquitto1 fleetmcp-schemas libc6 libgcc-s1 libstdc++6 libssl3t64 libsodium23 libcurl4t64
libre2-11-absl20240722 libpaho-mqtt1.3 libpaho-mqttpp3-1"

# deb_depends DEB: the package names of DEB's Depends, alternatives included, one per line.
deb_depends() {
  dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | sed -E 's/\(.*\)//; s/^ +//; s/ +$//' | grep -v '^$' | sort -u
}
# deb_depends_only DEB "NAMES…": every package DEB depends on is one of NAMES; fails naming any other.
deb_depends_only() {
  local name
  for name in $(deb_depends "$1"); do
    [[ " $(tr '\n' ' ' <<<"$2") " == *" $name "* ]] \
      || fail "$(basename "$1") depends on $name, which is not on its list (Depends: $(dpkg-deb -f "$1" Depends))"
  done
  pass "$(basename "$1") depends only on: $(deb_depends "$1" | tr '\n' ' ')"
}

# ---- fleetmcp-device helpers (tests/integration/device_*.sh) ---------------------------------

# device_enroll COUNT TLS_PORT : enrols COUNT nodes in $T/pki for mqtts://127.0.0.1:TLS_PORT and
# prints their node_ids, one per line.
device_enroll() {
  "$FLEETCTL" pki enroll --dir "$T/pki" --tenant acme --count "$1" --broker "mqtts://127.0.0.1:$2" \
    2>>"$T/enroll.log" || fail "fleetctl pki enroll (see $T/enroll.log)"
}

# device_start NAME ARGS... : runs fleetmcp-device ARGS in the background, logging to $T/NAME.log.
# Sets DEVICE_PID.
device_start() {
  local name=$1; shift
  "$DEVICE" "$@" >"$T/$name.log" 2>&1 &
  DEVICE_PID=$!
  track "$DEVICE_PID"
}

# device_wait_log NAME PATTERN [SECONDS] [COUNT] : waits until $T/NAME.log has COUNT (default 1)
# lines matching the grep -E PATTERN.
device_wait_log() {
  local deadline=$((SECONDS + ${3:-15})) want=${4:-1}
  until [ "$(grep -c -E "$2" "$T/$1.log" 2>/dev/null)" -ge "$want" ]; do
    [ $SECONDS -lt $deadline ] || fail "$1: no ${want}x '$2' in $T/$1.log within ${3:-15} s"
    sleep 0.1
  done
}

# device_monitor PORT TOPIC_FILTER FILE : records every message on TOPIC_FILTER (one payload per
# line) into FILE from the plain listener, and returns once the subscription is live (a probe
# message published after it is seen in FILE). The probe line is {"probe":"<filter>"}.
device_monitor() {
  local port=$1 filter=$2 file=$3 probe_topic
  mosquitto_sub -p "$port" -q 1 -t "$filter" >"$file" 2>>"$T/monitor.log" &
  track $!
  probe_topic=${filter//+/probe}
  local deadline=$((SECONDS + 10))
  until grep -q '"probe"' "$file" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "monitor on $filter never saw its probe"
    mosquitto_pub -p "$port" -t "$probe_topic" -m "{\"probe\":\"$filter\"}"
    sleep 0.2
  done
}

# device_msg_id N : a valid uppercase ULID for test message N.
device_msg_id() { printf '01JD000000000000000%07d' "$1"; }

# device_cmd MSG_ID TOOL ARGUMENTS_JSON [DEADLINE_MS] : a docs/protocol.md §4 cmd envelope.
device_cmd() {
  printf '{"type":"cmd","msg_id":"%s","ts_ms":%s,"deadline_ms":%s,"payload":{"tool":"%s","arguments":%s}}' \
    "$1" "$(date +%s%3N)" "${4:-2000}" "$2" "$3"
}

# device_send PORT NODE_ID PAYLOAD : publishes PAYLOAD (QoS 1) on $devices/NODE_ID/cmd through the
# plain listener (no plugin, so no ACL: the test plays the plugin's part).
device_send() {
  printf '%s' "$3" | mosquitto_pub -p "$1" -q 1 -t "\$devices/$2/cmd" -s
}

# device_wait_ack FILE MSG_ID [SECONDS] : waits for the cmd_ack answering MSG_ID and prints it.
device_wait_ack() {
  local deadline=$((SECONDS + ${3:-10}))
  until grep -q "\"in_reply_to\":\"$2\"" "$1" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "no cmd_ack for $2 within ${3:-10} s"
    sleep 0.05
  done
  grep -m1 "\"in_reply_to\":\"$2\"" "$1"
}

# device_ack_count FILE MSG_ID : how many cmd_acks answered MSG_ID.
device_ack_count() { grep -c "\"in_reply_to\":\"$2\"" "$1" || true; }

# device_validate SCHEMA_ID JSON : validates JSON against $SRC/schemas/<name>@<version>.json with
# Ajv (draft 2020-12), an implementation independent of the C++ side's valijson. Prints the
# errors and fails the test when invalid.
device_validate() {
  local file=$SRC/schemas/${1#mcp://schemas/}.json
  [ -f "$file" ] || fail "no schema file $file"
  [ -d "$SRC/tests/node/node_modules/ajv" ] || fail "Ajv missing: run npm ci in $SRC/tests/node"
  printf '%s' "$2" | node --input-type=module -e '
    import { createRequire } from "node:module";
    import { readFileSync } from "node:fs";
    const require = createRequire(process.argv[1] + "/tests/node/package.json");
    const Ajv2020 = require("ajv/dist/2020").default;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const schema = JSON.parse(readFileSync(process.argv[2], "utf8"));
    const data = JSON.parse(readFileSync(0, "utf8"));
    if (!ajv.validate(schema, data)) { console.error(JSON.stringify(ajv.errors)); process.exit(1); }
  ' "$SRC" "$file" || fail "not valid against $1: $2"
}

# ---- broker plugin (fleetmcp_plugin.so) --------------------------------------------------------
PLUGIN_TOOLS=$BIN/tests/programs

# plugin_broker_conf TLS_PORT PLAIN_PORT [LINE…]: a broker as docs/protocol.md §2/§6 want it: the mTLS
# device listener, a plain 127.0.0.1 listener for agents and the plugin's loopback waker, and
# fleetmcp_plugin.so with the shipped policy, the test PKI, the $CONTROL driver, an audit log
# in $T/audit.log and the HTTP front on a free port (broker_http_port tells which; pass a
# plugin_opt_http_listen LINE to choose). Extra LINEs go at the end (plugin_opt_* lines apply to
# the plugin). Prints the file name.
plugin_broker_conf() {
  local tls=$1 plain=$2; shift 2
  local conf=$T/mosquitto-plugin-$tls.conf
  cat >"$conf" <<CONF
per_listener_settings false
user root
set_tcp_nodelay true
check_retain_source true
allow_anonymous false
persistence false
log_dest stderr
log_type error
log_type warning
log_type notice
log_type information
$(broker_listeners "$tls" "$plain")
plugin $PLUGIN
plugin_opt_ca_file $T/pki/ca.crt
plugin_opt_issuer_public_key $T/pki/issuer.pub
plugin_opt_acl_file $SRC/acl/fleetmcp.acl
plugin_opt_schemas_dir $SRC/schemas
plugin_opt_loopback_port $plain
plugin_opt_revocation_file $T/pki/revoked.txt
plugin_opt_audit_log $T/audit.log
plugin_opt_control_api true
CONF
  local line
  for line in "$@"; do echo "$line" >>"$conf"; done
  grep -q '^plugin_opt_http_listen ' "$conf" || echo "plugin_opt_http_listen 127.0.0.1:0" >>"$conf"
  # The tests were written against the per-node projection; the by_kind default is asked for by name.
  grep -q '^plugin_opt_http_tools_mode ' "$conf" || echo "plugin_opt_http_tools_mode per_node" >>"$conf"
  echo "$conf"
}

# broker_http_port LOGNAME: the port of the HTTP front of the broker logging to $T/LOGNAME.log,
# from its "MCP endpoint http://…:PORT/mcp" notice.
broker_http_port() {
  wait_for_line "$T/$1.log" 'MCP endpoint https?://[^ ]+:[0-9]+/mcp' 10 || fail "no MCP endpoint in $T/$1.log"
  grep -m1 -oE 'MCP endpoint https?://[^ ]+:[0-9]+/mcp' "$T/$1.log" | sed -E 's#.*:([0-9]+)/mcp#\1#'
}

# enroll_nodes TENANT [COUNT]: enrols nodes in $T/pki, prints their node_ids.
enroll_nodes() {
  "$FLEETCTL" pki enroll --dir "$T/pki" --tenant "$1" --count "${2:-1}" 2>>"$T/pki-enroll.log" \
    || fail "fleetctl pki enroll (see $T/pki-enroll.log)"
}

# Bridged brokers (docs/sharding.md; bridge_pair.sh, balanced_pair.sh).
# bridged_broker_conf NAME TLS PLAIN HTTP [--set KEY VALUE]... : a config derived from mosquitto.conf
# in $T/NAME.conf with its own data dir ($T/NAME-data, its audit log there). Every one holds the
# enrolled certificates (here the PKI's nodes/ directory; in production, copies of node.crt).
bridged_broker_conf() {
  local name=$1 tls=$2 plain=$3 http=$4; shift 4
  mkdir -p "$T/$name-data"
  "$SRC/scripts/broker-conf.sh" --pki "$T/pki" --plugin "$PLUGIN" --data "$T/$name-data" \
    --device-port "$tls" --agent-port "$plain" --http-port "$http" \
    --set plugin_opt_enrolled_certs_dir "$T/pki/nodes" "$@" >"$T/$name.conf"
}
# bridge_listener CONF PORT : the bridge listener docs/sharding.md configures, mutual TLS without
# use_identity_as_username (the plugin reads the token at BASIC_AUTH, the certificate beside it).
bridge_listener() {
  cat >>"$1" <<CONF
listener $2 127.0.0.1
cafile $T/pki/ca.crt
certfile $T/pki/server.crt
keyfile $T/pki/server.key
require_certificate true
CONF
}
# bridge_section CONF NAME PORT SUB UPSTREAM_DIRECTION: appends a bridge (after the plugin_opt_
# lines) to the bridge listener on PORT, as a client holding a fleet:bridge token of sub SUB and
# the certificate of `fleetctl pki bridge --sub SUB`.
# UPSTREAM_DIRECTION is how announce, status, telemetry and cmd_ack travel (in: from the other
# broker to this one; out: from this one to the other); cmd always goes the other way.
bridge_section() {
  local up=$5 down=in
  [ "$up" = in ] && down=out
  cat >>"$1" <<CONF
connection $2
address 127.0.0.1:$3
remote_clientid $4-$2
remote_username $4
remote_password $("$FLEETCTL" token issue --dir "$T/pki" --sub "$4" --tenant acme --scope fleet:bridge)
bridge_cafile $T/pki/ca.crt
bridge_certfile $("$FLEETCTL" pki bridge --dir "$T/pki" --sub "$4")/bridge.crt
bridge_keyfile $T/pki/bridges/$4/bridge.key
bridge_protocol_version mqttv50
cleansession true
try_private false
notifications false
restart_timeout 1 2
topic \$devices/+/announce $up 1
topic \$devices/+/status $up 1
topic \$devices/+/telemetry $up 0
topic \$devices/+/cmd_ack $up 1
topic \$devices/+/cmd $down 1
CONF
}

# agent_token SUB TENANT "SCOPES…": an agent token from the test issuer.
agent_token() {
  "$FLEETCTL" token issue --dir "$T/pki" --sub "$1" --tenant "$2" --scope "$3" 2>>"$T/token.log" \
    || fail "fleetctl token issue (see $T/token.log)"
}

# wait_for_line FILE PATTERN [SECONDS]: until a line of FILE matches the grep -E PATTERN.
wait_for_line() {
  wait_until "${3:-10}" grep -qE -- "$2" "$1"
}

# wait_lines FILE PATTERN COUNT [SECONDS]: until COUNT lines of FILE match the grep -E PATTERN;
# fails after SECONDS (default 20).
wait_lines() {
  local deadline=$((SECONDS + ${4:-20})) n
  until n=$(grep -cE -- "$2" "$1" 2>/dev/null); [ "${n:-0}" -ge "$3" ]; do
    [ $SECONDS -lt $deadline ] || fail "not ${3}x '$2' in $1 after ${4:-20} s (${n:-0})"
    sleep 0.2
  done
}

# broker_args: the ports and PKI the plugin test programs take, for PORT_TLS/PORT_PLAIN.
broker_args() {
  echo --pki "$T/pki" --tls-port "$PORT_TLS" --plain-port "$PORT_PLAIN"
}

# release_mosquitto ROOT [ROOT_PLUGIN [LIB_DIR]]: from here on `mosquitto` is ROOT's (a root of
# another Debian release: mmdebstrap, scripts/release-build.sh), chrooted in a mount namespace of
# its own where /tmp, $SRC and $BIN are this machine's at the same paths, so a test's
# configuration, PKI and clients work unchanged. ROOT_PLUGIN (a file in ROOT) stands there for
# $PLUGIN; LIB_DIR (a folder of this machine under those paths) goes on its LD_LIBRARY_PATH.
# Through PATH, so the tests a script runs get it too (trixie_broker.sh, trixie_packages.sh).
release_mosquitto() {
  local root=$1 plugin=${2:-} libs=${3:-} dir mounts
  mounts="mount -t proc proc $root/proc && mount --rbind /dev $root/dev"
  for dir in /tmp "$SRC" "$BIN"; do mkdir -p "$root$dir"; mounts+=" && mount --bind $dir $root$dir"; done
  [ -z "$plugin" ] || mounts+=" && mount --bind $root$plugin $root$PLUGIN"
  mkdir -p "$T/release-bin"
  # unshare and chroot exec: the pid run_broker keeps is mosquitto's, for SIGHUP and SIGTERM.
  # /usr/sbin/mosquitto by path: PATH (and /tmp with this very script) reaches into the chroot.
  printf '#!/bin/sh\nexec unshare --mount sh -c '\''%s && exec env LD_LIBRARY_PATH=%s chroot %s /usr/sbin/mosquitto "$@"'\'' mosquitto "$@"\n' \
    "$mounts" "$libs" "$root" >"$T/release-bin/mosquitto"
  chmod +x "$T/release-bin/mosquitto"
  export PATH=$T/release-bin:$PATH
}

# run_broker CONF NAME: starts mosquitto like start_mosquitto, but keeps its pid in BROKER_PID so a
# test can signal it (SIGHUP) or stop and restart it. BROKER_START_SECONDS (default 10): how long
# its listeners may take (bench/profile.sh's broker under callgrind on a loaded machine takes longer).
run_broker() {
  mosquitto -c "$1" >"$T/$2.log" 2>&1 &
  BROKER_PID=$!
  track "$BROKER_PID"
  local port
  for port in $(awk '$1=="listener"{print $2}' "$1"); do wait_for_port "$port" "${BROKER_START_SECONDS:-10}"; done
}
# stop_broker: SIGTERM, as systemctl stop does, and wait for mosquitto to exit. A broker that is
# still running 20 s later (the plugin's cleanup stops the HTTP front in <= 2 s) is a hang: its
# threads' stacks go to the log (gdb, when installed) and the test fails at once, instead of
# waiting for ctest's timeout.
stop_broker() {
  kill "$BROKER_PID" 2>/dev/null || return 0
  local deadline=$((SECONDS + 20))
  while kill -0 "$BROKER_PID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if kill -0 "$BROKER_PID" 2>/dev/null && ! grep -qs '^State:.*Z' "/proc/$BROKER_PID/status"; then
    if command -v gdb >/dev/null; then
      gdb -p "$BROKER_PID" -batch -ex 'thread apply all bt' >"$T/broker-hang.txt" 2>&1 || true
      echo "--- the broker's threads (gdb):" >&2; grep -E '^(Thread|#)' "$T/broker-hang.txt" | head -80 >&2
    fi
    kill -9 "$BROKER_PID" 2>/dev/null
    wait "$BROKER_PID" 2>/dev/null || true
    fail "mosquitto did not exit within 20 s of SIGTERM (pid $BROKER_PID)"
  fi
  wait "$BROKER_PID" 2>/dev/null || true
}

# ---- HTTP front (broker_plugin/http) ----------------------------------------------------------
HTTP_TESTHOST=$BIN/tests/programs/fleetmcp-http-testhost
HTTP_STALLED_CLIENT=$BIN/tests/programs/fleetmcp-http-stalled-client

# start_http_testhost NAME SCHEMAS ISSUER_PUB FLEET_JSON [--set http_KEY=VALUE]... : runs the real
# HTTP front over the in-memory FleetView (tests/programs/front_testhost.cc) on a free
# loopback port. Sets HTTP_PORT and HTTP_CTL (a fifo: write "offline <id>" etc. to it).
start_http_testhost() {
  local name=$1 schemas=$2 issuer=$3 fleet=$4; shift 4
  # The tests were written against the per-node projection; other modes are asked for by name.
  local mode="--set http_tools_mode=per_node"
  [[ " $* " == *" http_tools_mode="* ]] && mode=""
  [ -x "$HTTP_TESTHOST" ] || fail "$HTTP_TESTHOST is not built (cmake --build ... --target fleetmcp-http-testhost)"
  HTTP_CTL=$T/$name.ctl
  rm -f "$HTTP_CTL"; mkfifo "$HTTP_CTL"
  sleep 100000 >"$HTTP_CTL" &   # holds the fifo open so the host never sees end of input
  track $!
  "$HTTP_TESTHOST" --schemas "$schemas" --issuer-pub "$issuer" --fleet "$fleet" \
    --set http_listen=127.0.0.1:0 $mode "$@" <"$HTTP_CTL" >"$T/$name.out" 2>"$T/$name.log" &
  track $!
  local deadline=$((SECONDS + 10))
  until grep -q '^port ' "$T/$name.out" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "$name did not start (see $T/$name.log)"
    sleep 0.05
  done
  HTTP_PORT=$(awk '/^port /{print $2; exit}' "$T/$name.out")
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# in_range VALUE LO HI WHAT: passes when LO <= VALUE <= HI (a time in ms).
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: $1 ms, expected $2..$3 ms"; pass "$4 ($1 ms)"; }

# open_connection: a TCP connection to the front (127.0.0.1:$HTTP_PORT) on descriptor 3, read into
# $T/conn.out by a background cat that writes the time the server closed the connection to
# $T/conn.closed. Sets OPENED_MS.
open_connection() {
  rm -f "$T/conn.out" "$T/conn.closed"
  exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT"
  OPENED_MS=$(now_ms)
  { cat <&3 >"$T/conn.out" 2>/dev/null || true; now_ms >"$T/conn.closed"; } &
  track $!
}
# trickle_head LINES: in the background, sends a request line and then LINES header lines, one
# every 300 ms, on the connection of open_connection (a slowloris client: the head never ends).
trickle_head() {
  { printf 'GET /healthz HTTP/1.1\r\n'; for i in $(seq 1 "$1"); do printf 'X-Slow-%d: x\r\n' "$i"; sleep 0.3; done; } >&3 2>/dev/null &
  track $!
}
# closed_after_ms SINCE_MS: waits (at most 10 s) for the server to close the connection of
# open_connection; sets CLOSED_MS to the time from SINCE_MS.
closed_after_ms() {
  wait_until 10 test -s "$T/conn.closed" || fail "the server kept the connection open for 10 s"
  CLOSED_MS=$(($(cat "$T/conn.closed") - $1))
  exec 3>&-
}

# ---- end to end: mosquitto + plugin + HTTP front + simulated devices ---------------------------

E2E_SCOPES="devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation"

# e2e_start NODES [fleetmcp-device ARGS…]: a test PKI (tenant acme), mosquitto with the plugin and
# its HTTP front (plus the broker lines in the array E2E_BROKER_LINES, if set; E2E_SCHEME=https
# when those lines turn on the front's TLS), and `fleetmcp-device --simulate NODES` (extra ARGS
# passed on; the lines in the array E2E_NODE_LINES, if set, end each node's device.conf), then waits until
# the front lists every node online. Sets PORT_TLS, PORT_PLAIN, HTTP_PORT, BROKER_PID, DEVICE_PID,
# E2E_NODES (array), E2E_URL (the /mcp URL), E2E_BASE (http://127.0.0.1:HTTP_PORT) and
# E2E_TOKEN (an agent token of tenant acme with every call scope and devices:read).
e2e_start() {
  local n=$1; shift
  pki_init
  PORT_TLS=$(free_port)
  PORT_PLAIN=$(free_port)
  mapfile -t E2E_NODES < <(device_enroll "$n" "$PORT_TLS")
  [ ${#E2E_NODES[@]} -eq "$n" ] || fail "enrolment produced ${#E2E_NODES[@]} nodes"
  local node line
  for node in "${E2E_NODES[@]}"; do
    for line in "${E2E_NODE_LINES[@]}"; do echo "$line" >>"$T/pki/nodes/$node/device.conf"; done
  done
  run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN" "${E2E_BROKER_LINES[@]}")" broker
  HTTP_PORT=$(broker_http_port broker)
  E2E_BASE=${E2E_SCHEME:-http}://127.0.0.1:$HTTP_PORT
  E2E_URL=$E2E_BASE/mcp
  E2E_TOKEN=$(agent_token agent-e2e acme "$E2E_SCOPES")
  device_start fleet --simulate "$n" --bundle-dir "$T/pki" "$@"
  e2e_wait_online "$n" 60
}

# e2e_online_count: how many nodes the front counts online (GET /healthz).
e2e_online_count() { curl -s --cacert "$T/pki/ca.crt" "$E2E_BASE/healthz" | jq -r '.nodes.online // 0'; }

# e2e_wait_online N [SECONDS]: until /healthz counts N nodes online and N serving tools. A node is
# online from its CONNECT; its tools can be called once its announce is verified (serving).
e2e_wait_online() {
  local deadline=$((SECONDS + ${2:-30})) health
  until health=$(curl -s --cacert "$T/pki/ca.crt" "$E2E_BASE/healthz") &&
        [ "$(jq -r '"\(.nodes.online // 0) \(.serving // 0)"' <<<"$health")" = "$1 $1" ]; do
    [ $SECONDS -lt $deadline ] || fail "/healthz after ${2:-30} s: $health; $1 nodes online and serving expected (see $T/broker.log, $T/fleet.log)"
    sleep 0.2
  done
}

# broker_refuses CONF WANT WHAT: mosquitto -c CONF refuses to start (exits non-zero within 10 s),
# its output naming WANT (a fixed string); the output is kept in CONF's name with .log.
broker_refuses() {
  local log=${1%.conf}.log rc=0
  timeout 10 mosquitto -c "$1" >"$log" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$3: mosquitto did not refuse (rc $rc, see $log)"
  grep -qF -- "$2" "$log" || fail "$3: no '$2' in $(tail -3 "$log")"
  pass "$3"
}

# ---- tools/call over RFC-0009, and refusals ------------------------------------------------------

# tools_call TOOL ARGUMENTS_JSON [CURL_ARGS…]: POST /mcp/tools/call (RFC-0009) of the front at
# $E2E_BASE with $E2E_TOKEN (TOOLS_CALL_BASE / TOOLS_CALL_TOKEN name another front or token);
# prints the answer: the body, then the HTTP status on a line of its own (000: no answer). CURL_ARGS
# go before the body (--max-time 30, --cacert …). answer_body / answer_status split the answer.
tools_call() {
  local tool=$1 arguments=$2; shift 2
  curl -s -o - -w '\n%{http_code}' -X POST "${TOOLS_CALL_BASE:-$E2E_BASE}/mcp/tools/call" \
    -H "Authorization: Bearer ${TOOLS_CALL_TOKEN:-$E2E_TOKEN}" -H 'Content-Type: application/json' \
    -H 'Accept: application/json' "$@" -d "{\"tool\":\"$tool\",\"arguments\":$arguments}"
}
# echo_call NODE MESSAGE [CURL_ARGS…]: tools_call of NODE's echo (sysecho.NODE.echo.invoke).
echo_call() {
  local node=$1 message=$2; shift 2
  tools_call "sysecho.$node.echo.invoke" "{\"message\":\"$message\"}" "$@"
}
answer_body() { head -n -1 <<<"$1"; }
# echo_answered NODE WHAT: an MCP echo call through the front reaches NODE (WHAT names it in the
# checks' words) and its answer comes back (the packaged nodes: cross_packages, trixie_packages).
echo_answered() {
  local answer
  answer=$(echo_call "$1" "hello from $2")
  assert_eq "$(answer_status "$answer")" 200 "an MCP call reaches the $2 node"
  assert_contains "$(answer_body "$answer")" "hello from $2" "the $2 node's answer comes back"
}
answer_status() { tail -n 1 <<<"$1"; }

# refused ANSWER STATUS CODE WHAT: ANSWER (a body, then a status line: tools_call's answer, or an
# envelope and a CLI's exit code) is a refusal: that status and an RFC-0001 error envelope of CODE
# with a suggested_fix. Sets REFUSAL to the envelope, for further checks of its text.
refused() {
  local body status code
  body=$(answer_body "$1")
  status=$(answer_status "$1")
  [ "$status" = "$2" ] || fail "$4: status $status, $2 expected ($body)"
  code=$(jq -r '.code // empty' <<<"$body" 2>/dev/null) || true
  [ "$code" = "$3" ] || fail "$4: $body; $3 expected"
  [ -n "$(jq -r '.suggested_fix // empty' <<<"$body")" ] || fail "$4: no suggested_fix in $body"
  REFUSAL=$body
  pass "$4"
}

# An NTP server for a QEMU guest's user network: chronyd on 127.0.0.1:123 (the guest's 10.0.2.2),
# serving this host's clock at stratum 8 and never setting it (-x). Port 123 is fixed (the guest's
# timesyncd asks no other): the tests that use it are the guest tests, which never run at once
# (ctest RESOURCE_LOCK virtual-pi). Logs to $T/chronyd.log; stopped at exit.
start_ntp_server() {
  printf 'bindaddress 127.0.0.1\nport 123\nallow 127.0.0.1\nlocal stratum 8\ncmdport 0\npidfile %s/chronyd.pid\n' "$T" >"$T/chrony.conf"
  chronyd -d -x -u root -f "$T/chrony.conf" >"$T/chronyd.log" 2>&1 &
  track $!
}

# Sets clock_s: the seconds from systemd-timesyncd's first synchronisation in this boot to the
# node's first connection, read in the guest's journal (the test's guest()) in monotonic time,
# since the clock itself jumped. bookworm's systemd says "Contacted time server" where trixie's
# says "Initial clock synchronization".
read_clock_to_connection() {
  local synced_at connected_at
  synced_at=$(guest "journalctl -b -u systemd-timesyncd -o short-monotonic --no-pager | grep -m1 -E 'Initial clock synchronization|Contacted time server' | tr -d '[]' | awk '{print \$1}'")
  connected_at=$(guest "journalctl -b -u fleetmcp-device -o short-monotonic --no-pager | grep -m1 mqtt.connected | tr -d '[]' | awk '{print \$1}'")
  [ -n "$synced_at" ] && [ -n "$connected_at" ] || fail "no timesyncd synchronisation ($synced_at) or node connection ($connected_at) in the guest's journal"
  clock_s=$(awk -v a="$synced_at" -v b="$connected_at" 'BEGIN { printf "%.1f", b - a }')
}

# The guest tests' hung node: SIGSTOP fleetmcp-device in the guest (the test's guest()); systemd's
# watchdog must replace the process within $1 s and say so in its journal. Sets stopped ($SECONDS
# at the SIGSTOP).
hang_node_until_watchdog_restarts() {
  local within=$1 hung
  hung=$(guest 'pidof fleetmcp-device')
  guest "kill -STOP $hung" || fail "SIGSTOP the node in the guest"
  stopped=$SECONDS
  replaced() { local now; now=$(guest 'pidof fleetmcp-device; true'); [ -n "$now" ] && [ "$now" != "$hung" ]; }
  wait_until "$within" replaced || fail "systemd did not restart the stopped node within $within s"
  echo "# watchdog: the stopped node replaced by systemd $((SECONDS - stopped)) s after SIGSTOP"
  assert_contains "$(guest 'journalctl -u fleetmcp-device -o cat --no-pager | grep -i "watchdog timeout"')" "limit 30s" \
    "systemd's journal: fleetmcp-device.service: Watchdog timeout (limit 30s)"
}
