#!/bin/sh
# Makes a runtime image of docker/Dockerfile: installs the .debs in /tmp/debs with apt (which
# pulls their Debian dependencies) and what the role's scripts use, then puts the scripts in
# /tmp/fleetmcp-docker (docker/ and scripts/broker-conf.sh) where the entrypoints are.
#   install-image.sh broker   mosquitto + plugin; pki-init, the healthcheck, the example agent
#   install-image.sh device   fleetmcp-device running simulated nodes from the bundle pool
set -eu
src=/tmp/fleetmcp-docker
case "$1" in
  broker) extra="curl mosquitto-clients ca-certificates" ;;
  device) extra="" ;;
  *) echo "install-image: broker or device" >&2; exit 2 ;;
esac
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends /tmp/debs/*.deb $extra
rm -rf /var/lib/apt/lists/* /tmp/debs
if [ "$1" = broker ]; then
  install -D -m 0755 "$src/broker-conf.sh" /usr/local/lib/fleetmcp/broker-conf.sh
  install -m 0755 "$src/broker-entrypoint.sh" /usr/local/bin/fleetmcp-broker-entrypoint
  install -m 0755 "$src/pki-init.sh" /usr/local/bin/fleetmcp-pki-init
  install -m 0755 "$src/agent-example.sh" /usr/local/bin/fleetmcp-agent-example
else
  install -m 0755 "$src/device-entrypoint.sh" /usr/local/bin/fleetmcp-device-entrypoint
fi
rm -rf "$src"
