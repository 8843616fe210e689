#!/usr/bin/env bash
# The node's packages for Debian 13 "trixie" (issue 38, docs/pi-image.md "Which packages"):
# scripts/release-build.sh trixie builds fleetmcp-device, fleetmcp-camera and fleetmcp-schemas
# inside a trixie root (amd64), so the device is compiled against libgpiod 2 (gpiod_line_v2.cc)
# and dpkg-shlibdeps names trixie's libraries. Checked: each Depends against trixie's list and
# none of bookworm's names; the +deb13 version; apt installs them into a fresh trixie root,
# where fleetmcp-device answers --help and --version and checks an enrolled node's bundle
# (--check-config); then that installed node, run in the root against a broker with the plugin on
# this machine, announces, answers an MCP call, and its GPIO backend (libgpiod 2) answers a pin
# on a chip this machine lacks with failed_precondition, as the libgpiod 1 one does.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "# needs root (mmdebstrap, chroot)"; exit 77; }
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing (scripts/install-deps.sh --vm)"
. "$SRC/scripts/lib/debian-root.sh"

start=$SECONDS
debs=$("$SRC/scripts/release-build.sh" trixie "$BIN/release-roots" 2>"$T/release-build.log") \
  || fail "scripts/release-build.sh trixie (see $T/release-build.log: $(tail -5 "$T/release-build.log"))"
echo "# built and packaged in a trixie root in $((SECONDS - start)) s"
deb() { grep "/$1_" <<<"$debs" || fail "no $1 .deb among: $debs"; }
field() { dpkg-deb -f "$(deb "$1")" "$2"; }

# ---- the control fields -----------------------------------------------------------------------
assert_eq "$(field fleetmcp-device Version)" "$(sed -n 's/^project(fleetmcp VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")+deb13" \
  "fleetmcp-device's version carries +deb13"
assert_eq "$(field fleetmcp-device Architecture)" amd64 "fleetmcp-device is built for amd64"
deb_depends_only "$(deb fleetmcp-device)" "$NODE_DEB_DEPENDS_TRIXIE"
deb_depends_only "$(deb fleetmcp-camera)" "$NODE_DEB_DEPENDS_TRIXIE fleetmcp-device libcamera0.4"
for lib in libgpiod3 libre2-11 libssl3t64 libpng16-16t64; do
  assert_contains "$(field fleetmcp-device Depends)" "$lib" "fleetmcp-device depends on trixie's $lib"
done
for lib in libgpiod2 libre2-9 libssl3 libpng16-16; do
  if deb_depends "$(deb fleetmcp-device)" | grep -qx "$lib"; then fail "fleetmcp-device depends on bookworm's $lib"; fi
done
pass "fleetmcp-device names none of bookworm's libraries"
assert_eq "$(cat <(dpkg-deb --fsys-tarfile "$(deb fleetmcp-device)" | tar -xO ./usr/share/fleetmcp-device/version))" \
  "$(field fleetmcp-device Version)" "share/fleetmcp-device/version is the package's version"

# ---- apt-installed into a fresh trixie root -----------------------------------------------------
root=$T/root
debs_hooks "$(dirname "$(deb fleetmcp-device)")"
mmdebstrap --quiet --variant=minbase "${DEBS_HOOKS[@]}" trixie "$root" http://deb.debian.org/debian \
  >"$T/install.log" 2>&1 || fail "mmdebstrap trixie with the packages (see $T/install.log: $(tail -5 "$T/install.log"))"
pass "apt installs fleetmcp-device and fleetmcp-schemas into a trixie root"
# in_root COMMAND…: COMMAND in the root, with /proc mounted in a mount namespace of its own (gone
# with it); the network is this machine's.
in_root() { unshare --mount --fork --kill-child sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"; }
assert_contains "$(in_root fleetmcp-device --help 2>&1)" "--check-config" "the installed fleetmcp-device answers --help"
assert_contains "$(in_root fleetmcp-device --version 2>&1)" "$(field fleetmcp-device Version)" \
  "the installed fleetmcp-device reports the package's version"

pki_init
PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
node=$(device_enroll 1 "$PORT_TLS")
echo "capability.relay = gpio.pin line=17 chip=gpiochip97" >>"$T/pki/nodes/$node/device.conf"
mkdir -p "$root/etc/fleetmcp/node" && cp "$T/pki/nodes/$node"/* "$root/etc/fleetmcp/node/"
out=$(in_root fleetmcp-device --check-config --config /etc/fleetmcp/node/device.conf 2>&1) \
  || fail "--check-config in the trixie root: $out"
assert_contains "$out" "node $node, tenant acme" "the installed fleetmcp-device checks an enrolled node's bundle"

run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
E2E_BASE=http://127.0.0.1:$(broker_http_port broker)
E2E_TOKEN=$(agent_token agent-trixie acme "devices:read tools:call:read_only")
in_root fleetmcp-device --config /etc/fleetmcp/node/device.conf >"$T/trixie-device.log" 2>&1 &
track $!
e2e_wait_online 1 60
pass "the trixie node's signed manifest is verified by the plugin and the node is online"
answer=$(echo_call "$node" "hello from trixie")
assert_eq "$(answer_status "$answer")" 200 "an MCP call reaches the trixie node"
assert_contains "$(answer_body "$answer")" "hello from trixie" "the trixie node's answer comes back"
answer=$(tools_call "gpio.$node.relay.get" '{}')
assert_eq "$(answer_body "$answer" | jq -c '[.code, .details.reason]')" '["E_BAD_REQUEST","failed_precondition"]' \
  "libgpiod 2: a pin on an absent chip is refused with failed_precondition, as on libgpiod 1"
