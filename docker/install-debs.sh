#!/bin/sh
# Installs the .debs in /tmp/debs with apt (which pulls their Debian dependencies) and what the
# image's scripts use besides: `broker` (pki-init, healthcheck, example agent) or `device`.
set -eu
case "$1" in
  broker) extra="curl mosquitto-clients ca-certificates" ;;
  device) extra="" ;;
  *) echo "install-debs: broker or device" >&2; exit 2 ;;
esac
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends /tmp/debs/*.deb $extra
rm -rf /var/lib/apt/lists/* /tmp/debs
