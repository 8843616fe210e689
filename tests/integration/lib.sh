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
  for p in "${_pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${_pids[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  if [ $rc -ne 0 ] && [ -z "${KEEP_TMP:-}" ]; then
    echo "---- logs of the failed test ($T) ----" >&2
    for f in "$T"/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 40 "$f" >&2; }; done
  fi
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

# A free TCP port on 127.0.0.1 (bind to 0, read it back, release).
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
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

# tls_broker_conf TLS_PORT PLAIN_PORT : a broker config with an mTLS device listener as DESIGN §2
# and a plain loopback listener, no plugin. Prints the file name.
tls_broker_conf() {
  local conf=$T/mosquitto-$1.conf
  cat >"$conf" <<CONF
per_listener_settings false
user root
set_tcp_nodelay true
check_retain_source true
allow_anonymous true
persistence false
log_dest stdout
listener $1 127.0.0.1
cafile $T/pki/ca.crt
certfile $T/pki/server.crt
keyfile $T/pki/server.key
require_certificate true
use_identity_as_username true
use_username_as_clientid true
listener $2 127.0.0.1
CONF
  echo "$conf"
}
