#!/usr/bin/env bash
# Derives a runnable broker configuration from the top-level mosquitto.conf (the one truth) by
# substituting its install paths and ports. Used by scripts/local-fleet.sh and the integration
# tests; every substitution must match, so an edit of mosquitto.conf that breaks the derivation
# fails here instead of silently leaving /etc/fleetmcp paths in a local config.
#
#   scripts/broker-conf.sh --pki DIR --plugin SO --data DIR [options] > broker.conf
#
#   --pki DIR          replaces /etc/fleetmcp/pki            (fleetctl pki init --dir DIR)
#   --plugin FILE      replaces /usr/lib/fleetmcp/fleetmcp_plugin.so
#   --data DIR         replaces /var/lib/mosquitto/ (persistence, plugin state)
#   --logs DIR         replaces /var/log/mosquitto/ (the audit log)   (default: the --data DIR)
#   --acl FILE         replaces /usr/share/fleetmcp/acl/fleetmcp.acl   (default: <repo>/acl/fleetmcp.acl)
#   --schemas DIR      replaces /usr/share/fleetmcp/schemas          (default: <repo>/schemas)
#   --device-port N    device (mTLS) listener port, bound to 127.0.0.1 (default 8883, all addresses)
#   --agent-port N     agent listener and plugin_opt_loopback_port     (default 1883)
#   --http-port N      plugin_opt_http_listen 127.0.0.1:N              (default 8080)
#   --agent-bind ADDR  address of the agent listener (default 127.0.0.1; the plugin's waker
#                      connects to 127.0.0.1, so ADDR must include it: 127.0.0.1 or 0.0.0.0)
#   --http-bind ADDR   address of the HTTP front                       (default 127.0.0.1)
#   --user NAME        the user mosquitto drops to                     (default: the caller)
#   --set KEY VALUE    replace the KEY line (e.g. plugin_opt_control_api), or append it
#   --source FILE      the configuration to derive from (default: <repo>/mosquitto.conf)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source_conf=$repo/mosquitto.conf
pki="" plugin="" data="" logs=""
acl=$repo/acl/fleetmcp.acl schemas=$repo/schemas
device_port="" agent_port=1883 http_port=8080 user=$(id -un) agent_bind=127.0.0.1 http_bind=127.0.0.1
sets=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "broker-conf: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --pki) pki=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --acl) acl=$2; shift 2 ;;
    --schemas) schemas=$2; shift 2 ;;
    --device-port) device_port=$2; shift 2 ;;
    --agent-port) agent_port=$2; shift 2 ;;
    --http-port) http_port=$2; shift 2 ;;
    --agent-bind) agent_bind=$2; shift 2 ;;
    --http-bind) http_bind=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --set) [ $# -ge 3 ] || die "--set needs KEY VALUE"; sets+=("$2" "$3"); shift 3 ;;
    --source) source_conf=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[ -n "$pki" ] && [ -n "$plugin" ] && [ -n "$data" ] || die "--pki, --plugin and --data are required (see --help)"
[ -f "$source_conf" ] || die "no $source_conf"
logs=${logs:-$data}

# sed edits "s|pattern|replacement|"; each pattern must match a line of the source (an identity
# edit, e.g. --pki /etc/fleetmcp/pki in a container, is fine).
edits=(
  "s|/etc/fleetmcp/pki/|${pki%/}/|g"
  "s|/usr/lib/fleetmcp/fleetmcp_plugin\\.so|$plugin|g"
  "s|/usr/share/fleetmcp/acl/fleetmcp\\.acl|$acl|g"
  "s|/usr/share/fleetmcp/schemas|${schemas%/}|g"
  "s|/var/lib/mosquitto/|${data%/}/|g"
  "s|/var/log/mosquitto/|${logs%/}/|g"
  "s|^user mosquitto\$|user $user|"
  "s|^listener 1883 127\\.0\\.0\\.1\$|listener $agent_port $agent_bind|"
  "s|^plugin_opt_loopback_port 1883\$|plugin_opt_loopback_port $agent_port|"
  "s|^plugin_opt_http_listen 127\\.0\\.0\\.1:8080\$|plugin_opt_http_listen $http_bind:$http_port|"
)
if [ -n "$device_port" ]; then edits+=("s|^listener 8883\$|listener $device_port 127.0.0.1|"); fi

text=$(cat "$source_conf")
for e in "${edits[@]}"; do
  pattern=${e#s|}; pattern=${pattern%%|*}
  grep -q -- "$pattern" <<<"$text" || die "'$pattern' matches nothing in $source_conf: update scripts/broker-conf.sh with it"
  text=$(printf '%s\n' "$text" | sed -e "$e")
done

# --set KEY VALUE: replace the first KEY line (keeping it where the file has it), else append.
i=0
while [ $i -lt ${#sets[@]} ]; do
  key=${sets[$i]} value=${sets[$((i + 1))]}
  if grep -q "^$key " <<<"$text"; then
    text=$(printf '%s\n' "$text" | awk -v k="$key" -v v="$value" '$1 == k && !done { print k " " v; done = 1; next } { print }')
  else
    text=$(printf '%s\n%s %s' "$text" "$key" "$value")
  fi
  i=$((i + 2))
done

printf '# Derived from %s by scripts/broker-conf.sh; edit that file, not this one.\n%s\n' "$source_conf" "$text"
