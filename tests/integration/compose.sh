#!/usr/bin/env bash
# docker-compose.yml and docker/: no Docker engine runs here, so this validates what can be
# validated without one: `docker-compose config` (Debian's docker-compose 1.29) accepts the file
# and resolves the four services; the Dockerfile targets, copies and entrypoints it names exist;
# the build stage uses scripts/install-deps.sh; and the container scripts do their job natively:
# the broker's derived config differs from mosquitto.conf only in what it opens to the compose
# network; pki-init makes a CA, a server certificate for "broker", a pool of bundles without
# private CA material and a read-only agent token, idempotently; and device containers claim
# disjoint node bundles (and their own again on restart).
. "$(dirname "$0")/lib.sh"

command -v docker-compose >/dev/null || fail "docker-compose missing: run scripts/install-deps.sh"
cd "$SRC"
docker-compose config -q 2>"$T/config.log" || fail "docker-compose config: $(cat "$T/config.log")"
pass "docker-compose config accepts docker-compose.yml"
assert_eq "$(docker-compose config --services | sort | tr '\n' ' ')" "agent broker device pki-init " "four services"
assert_eq "$(NODES_PER_DEVICE=7 docker-compose config | awk '/^  device:/{d=1} d && /^    command:/{getline; print; exit}')" "    - '7'" \
  "NODES_PER_DEVICE reaches the device command"
resolved=$(docker-compose config)
# A service scaled with --scale must not pin a container name or a host port.
device_block=$(printf '%s\n' "$resolved" | awk '/^  device:/{d=1; print; next} d && /^  [a-z]/{exit} d')
if grep -qE 'container_name|ports:' <<<"$device_block"; then fail "device pins a name or port: $device_block"; fi
pass "device service is scalable (no container_name, no host ports)"
ports=$(printf '%s\n' "$resolved" | awk '/^    ports:/{p=1; next} p && /^    - /{print $2; next} p{p=0}' | sort | tr '\n' ' ')
assert_eq "$ports" "127.0.0.1:1883:1883/tcp 127.0.0.1:8080:8080/tcp 127.0.0.1:8883:8883/tcp " "published ports"
pass "broker publishes 8883, 1883, 8080 on 127.0.0.1 only"

# The Dockerfile: targets the compose file names, the install script, every COPY source.
df=docker/Dockerfile
for images in source debs; do
  for target in $(FLEETMCP_IMAGES=$images docker-compose config | awk '$1=="target:"{print $2}' | sort -u); do
    grep -qE "^FROM .* AS $target\$" "$df" || fail "no stage $target in $df"
  done
done
pass "every compose build target (FLEETMCP_IMAGES=source or debs) is a stage of $df"
grep -q '^RUN scripts/install-deps.sh --build' "$df" || fail "the build stage does not run scripts/install-deps.sh --build"
pass "the build stage installs what compiling needs with scripts/install-deps.sh --build"
grep -q 'cpack -G DEB' "$df" && grep -q 'apt-get install .*/tmp/debs/\*.deb' docker/install-image.sh || fail "images do not install the .debs"
pass "runtime images install the packages"
awk '$1=="COPY" && $2 !~ /^--from/ { for (i = 2; i < NF; i++) print $i }' "$df" | while read -r src; do
  # ${DEBS}/…: the .debs of a build (FLEETMCP_IMAGES=debs), not sources.
  [ "$src" = . ] || [ "${src#\${DEBS\}}" != "$src" ] || compgen -G "$src" >/dev/null || fail "COPY source $src does not exist"
done
pass "every COPY source exists"
for e in $(grep -oE '/usr/local/bin/fleetmcp-[a-z-]+' docker-compose.yml "$df" | cut -d: -f2 | sort -u); do
  grep -qE "^  install -m 0755 \"\\\$src/[a-z-]+\.sh\" $e\$" docker/install-image.sh || fail "$e is not installed by docker/install-image.sh"
done
pass "every entrypoint is installed"
for s in docker/*.sh; do sh -n "$s" || fail "$s: syntax"; done
pass "container scripts parse with sh"

# broker-entrypoint: its derivation, run on the repository's mosquitto.conf.
args=$(sed -n '/broker-conf.sh --source/,/>"\$conf"/p' docker/broker-entrypoint.sh | tr -d '\\\n' \
       | sed 's|.*broker-conf.sh --source /etc/fleetmcp/mosquitto.conf||; s|>"\$conf".*||; s|"\${FLEETMCP_RESOURCE_URL:-\([^}]*\)}"|\1|')
eval "set -- $args"
"$SRC/scripts/broker-conf.sh" --source "$SRC/mosquitto.conf" "$@" >"$T/compose-broker.conf" || fail "broker-entrypoint's derivation"
changed=$( (diff "$SRC/mosquitto.conf" "$T/compose-broker.conf" || true) | grep "^>" | grep -v "^> # Derived" | sort | tr "\n" ";")
assert_eq "$changed" "> listener 1883 0.0.0.0;> plugin_opt_http_allowed_hosts broker;> plugin_opt_http_listen 0.0.0.0:8080;> plugin_opt_http_resource_url http://localhost:8080/mcp;" \
  "compose broker = mosquitto.conf with agent listener and HTTP front opened to the compose network (and its service name)"

# pki-init: run natively with the built fleetctl, into temp dirs instead of the volumes.
mkdir -p "$T/path" && ln -s "$FLEETCTL" "$T/path/fleetctl"
pki_job() {
  PATH=$T/path:$PATH FLEET_PKI=$T/vol-pki FLEET_BUNDLES=$T/bundles FLEET_AGENT=$T/agent FLEET_NODE_POOL=6 \
    sh docker/pki-init.sh >>"$T/pki-job.log" 2>&1 || fail "pki-init.sh: $(cat "$T/pki-job.log")"
}
pki_job
assert_eq "$(ls "$T/bundles/nodes" | wc -l)" 6 "pki-init enrols the node pool"
san=$(openssl x509 -in "$T/vol-pki/server.crt" -noout -ext subjectAltName)
assert_contains "$san" "DNS:broker" "broker certificate names the compose host broker"
one=$(ls "$T/bundles/nodes" | head -1)
assert_eq "$(grep '^broker = ' "$T/bundles/nodes/$one/device.conf")" "broker = mqtts://broker:8883" "bundles dial broker:8883"
if find "$T/bundles" -name 'ca.key' -o -name 'issuer.key' | grep .; then fail "a CA or issuer key reached the bundles volume"; fi
pass "no CA or issuer key in the bundles volume"
assert_eq "$(stat -c %G "$T/vol-pki/server.key") $(stat -c %a "$T/vol-pki/server.key")" "mosquitto 640" "server.key readable by group mosquitto only"
assert_eq "$(stat -c %a "$T/vol-pki/ca.key")" 600 "ca.key stays private"
"$FLEETCTL" token verify --pub "$T/vol-pki/issuer.pub" <"$T/agent/token" >"$T/claims.json" || fail "the agent token does not verify"
assert_contains "$(cat "$T/claims.json")" '"scope":"devices:read tools:call:read_only"' "agent token with read-only scopes"
ca_before=$(openssl x509 -in "$T/vol-pki/ca.crt" -noout -fingerprint -sha256)
pki_job
assert_eq "$(openssl x509 -in "$T/vol-pki/ca.crt" -noout -fingerprint -sha256)" "$ca_before" "a second pki-init keeps the CA"
assert_eq "$(ls "$T/bundles/nodes" | wc -l)" 6 "and enrols no more nodes"

# device-entrypoint: claims from that pool.
claim() {  # claim CONTAINER N : prints the node_ids the container would run
  FLEET_BUNDLES=$T/bundles FLEET_WORK=$T/work-$1 FLEET_CLAIMANT=$1 FLEETMCP_DEVICE=echo \
    sh docker/device-entrypoint.sh "$2" >/dev/null
  ls "$T/work-$1/nodes" | sort | tr '\n' ' '
}
a=$(claim a 3); b=$(claim b 3)
assert_eq "$(printf '%s%s' "$a" "$b" | tr ' ' '\n' | grep -c .)" 6 "two containers claim 3 nodes each"
assert_eq "$(printf '%s%s' "$a" "$b" | tr ' ' '\n' | grep . | sort -u | grep -c .)" 6 "their nodes are disjoint"
assert_eq "$(claim a 3)" "$a" "a restarted container gets its own nodes back"
rc=0; FLEET_BUNDLES=$T/bundles FLEET_WORK=$T/work-c FLEET_CLAIMANT=c FLEETMCP_DEVICE=echo sh docker/device-entrypoint.sh 1 2>"$T/c.log" || rc=$?
assert_eq "$rc" 1 "a container finding no free bundle exits 1"
assert_contains "$(cat "$T/c.log")" "raise FLEET_NODE_POOL" "and says what to do"
