#!/bin/sh
# The compose pki-init job: a test PKI in the pki volume (broker certificate valid for the
# compose host name "broker"), a pool of node bundles in the bundles volume (without any CA or
# issuer key), and an agent token in the agent volume. Idempotent: an existing PKI is kept.
set -eu
# FLEET_PKI, FLEET_BUNDLES and FLEET_AGENT exist for tests/integration/compose.sh.
pki=${FLEET_PKI:-/etc/fleetmcp/pki} bundles=${FLEET_BUNDLES:-/bundles} agent=${FLEET_AGENT:-/agent}
tenant=${FLEET_TENANT:-acme} pool=${FLEET_NODE_POOL:-50}
if [ ! -f "$pki/ca.crt" ]; then
  fleetctl pki init --dir "$pki" --san "DNS:broker${FLEET_SERVER_SAN:+,$FLEET_SERVER_SAN}"
fi
have=$(find "$pki/nodes" -mindepth 2 -maxdepth 2 -name device.conf 2>/dev/null | wc -l)
if [ "$have" -lt "$pool" ]; then
  fleetctl pki enroll --dir "$pki" --tenant "$tenant" --count $((pool - have)) --broker mqtts://broker:8883 >/dev/null
fi
mkdir -p "$bundles/nodes" "$agent"
cp -R "$pki"/nodes/. "$bundles/nodes/"
# mosquitto (uid of its package user) reads the broker's files; the device image's user reads bundles.
chgrp -R mosquitto "$pki" && chmod 0750 "$pki" && chmod 0640 "$pki/server.key"
chmod -R a+rX "$bundles" && mkdir -p "$bundles/claims" && chmod 1777 "$bundles/claims"
fleetctl token issue --dir "$pki" --sub example-agent --tenant "$tenant" \
  --scope "devices:read tools:call:read_only" --ttl 30d >"$agent/token"
chmod 0644 "$agent/token"
echo "pki-init: PKI in $pki, $pool node bundles, agent token in $agent/token"
