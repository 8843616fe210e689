#!/bin/sh
# A compose device container: claims N unclaimed bundles of the shared pool (an atomic mkdir per
# node_id, named after this container, so a restart gets the same nodes back) and runs them with
# fleetmcp-device --simulate N. `docker-compose up --scale device=3` gives 3 × N distinct nodes.
set -eu
# FLEET_BUNDLES, FLEET_WORK, FLEET_CLAIMANT and FLEETMCP_DEVICE exist for tests/integration/compose.sh.
want=${1:-5} pool=${FLEET_BUNDLES:-/bundles} mine=${FLEET_WORK:-/tmp/fleet} me=${FLEET_CLAIMANT:-$(hostname)}
claims=$pool/claims
mkdir -p "$mine/nodes"
count=0
for dir in "$pool"/nodes/*/; do
  [ "$count" -lt "$want" ] || break
  id=$(basename "$dir")
  if mkdir "$claims/$id" 2>/dev/null; then echo "$me" >"$claims/$id/owner"
  elif [ "$(cat "$claims/$id/owner" 2>/dev/null)" != "$me" ]; then continue
  fi
  rm -rf "$mine/nodes/$id" && cp -R "$dir" "$mine/nodes/$id"
  chmod 0600 "$mine/nodes/$id/node.key"
  count=$((count + 1))
done
[ "$count" -eq "$want" ] || { echo "device: only $count free bundles for $want nodes: raise FLEET_NODE_POOL" >&2; exit 1; }
exec "${FLEETMCP_DEVICE:-fleetmcp-device}" --simulate "$want" --bundle-dir "$mine"
