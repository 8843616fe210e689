#!/bin/sh
# The compose broker: /etc/fleetmcp/mosquitto.conf (the packaged top-level mosquitto.conf) with
# the agent listener and the HTTP front opened to the compose network instead of loopback, and
# the front answering to the compose service name (the agent container reaches it as
# http://broker:8080; loopback names are always served). Derived by the same script as the
# local fleet; nothing else changes.
set -eu
conf=/run/fleetmcp-mosquitto.conf
/usr/local/lib/fleetmcp/broker-conf.sh --source /etc/fleetmcp/mosquitto.conf \
  --pki /etc/fleetmcp/pki --plugin /usr/lib/fleetmcp/fleetmcp_plugin.so \
  --data /var/lib/mosquitto --logs /var/log/mosquitto \
  --acl /usr/share/fleetmcp/acl/fleetmcp.acl --schemas /usr/share/fleetmcp/schemas \
  --user mosquitto --agent-bind 0.0.0.0 --http-bind 0.0.0.0 \
  --set plugin_opt_http_resource_url "${FLEETMCP_RESOURCE_URL:-http://localhost:8080/mcp}" \
  --set plugin_opt_http_allowed_hosts broker >"$conf"
install -d -o mosquitto /var/lib/mosquitto /var/log/mosquitto
exec /usr/sbin/mosquitto -c "$conf"
