#!/usr/bin/env bash
# fleetmcp's packages for Debian 13 "trixie" and the Raspberry Pi OS built on it (issue 38,
# docs/pi-image.md "Which packages"): scripts/release-build.sh builds them inside a trixie root,
# amd64 (the broker's and the node's) and arm64 (the node's, for a Pi), so the device is compiled
# against libgpiod 2 (gpiod_line_v2.cc) and dpkg-shlibdeps names trixie's libraries. Checked: each
# Depends against trixie's list and none of bookworm's names; the +deb13 version; apt installs
# them into fresh trixie roots (the arm64 node into an arm64 root, as on a Pi);
# there the installed broker (trixie's mosquitto 2.0.21 with the packaged plugin) runs, the
# installed amd64 node announces and answers an MCP call, its GPIO backend (libgpiod 2) answers
# a pin on a chip this machine lacks with failed_precondition as the libgpiod 1 one does, and the
# installed arm64 node, run under qemu-user on the root's arm64 libraries, answers a call too.
#
# TRIXIE_PACKAGES=node (integration.trixie_node, CI's check; the full run above is `local`): the
# amd64 node's package alone (release-build.sh --node: a smaller root, one program compiled), its
# control fields, apt into a fresh trixie root, and the installed node answering a call through
# this build's broker; no arm64, no broker package, no trixie mosquitto (trixie_broker has that).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "# needs root (mmdebstrap, chroot)"; exit 77; }
full=1 archs="amd64 arm64" node_only=
[ "${TRIXIE_PACKAGES:-}" != node ] || full= archs=amd64 node_only=--node
# Its own tools, as virtual_pi installs them (mmdebstrap; for arm64 qemu-user and binfmt-support):
# in CI this test may be the first to need them.
vm_deps=(--vm); [ -z "$full" ] || vm_deps+=(arm64)
"$SRC/scripts/install-deps.sh" "${vm_deps[@]}" >"$T/install.log" 2>&1 || fail "install-deps ${vm_deps[*]} (see $T/install.log)"
if [ -n "$full" ]; then
  . "$SRC/scripts/lib/debian-root.sh"
  foreign_arch_ready arm64
fi
debs=
for arch in $archs; do
  start=$SECONDS
  debs+=$("$SRC/scripts/release-build.sh" $node_only trixie $arch "$BIN/release-roots" 2>"$T/release-build-$arch.log")$'\n' \
    || fail "scripts/release-build.sh trixie $arch (see $T/release-build-$arch.log: $(tail -5 "$T/release-build-$arch.log"))"
  sed -n 's/^release-build.sh: \(.* in [0-9]* s\)$/#   \1/p' "$T/release-build-$arch.log"   # its phases
  echo "# built and packaged for $arch in the trixie root in $((SECONDS - start)) s"
done
# deb NAME ARCH: the path of package NAME for ARCH.
deb() { grep "/$1_[^/]*_$2\.deb$" <<<"$debs" | head -1 | grep . || fail "no $1 $2 .deb among: $debs"; }
field() { dpkg-deb -f "$(deb "$1" "$2")" "$3"; }

# ---- the control fields -----------------------------------------------------------------------
version=$(sed -n 's/^project(fleetmcp VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")+deb13
for arch in $archs; do
  assert_eq "$(field fleetmcp-device $arch Version)" "$version" "fleetmcp-device $arch's version carries +deb13"
  deb_depends_only "$(deb fleetmcp-device $arch)" "$NODE_DEB_DEPENDS_TRIXIE"
  [ -z "$full" ] || deb_depends_only "$(deb fleetmcp-camera $arch)" "$NODE_DEB_DEPENDS_TRIXIE fleetmcp-device libcamera0.4"
  for lib in libgpiod3 libssl3t64 libpng16-16t64 libre2-11-absl20240722; do
    assert_contains "$(field fleetmcp-device $arch Depends)" "$lib" "fleetmcp-device $arch depends on trixie's $lib"
  done
  for lib in libgpiod2 libre2-9 libssl3 libpng16-16; do
    if deb_depends "$(deb fleetmcp-device $arch)" | grep -qx "$lib"; then fail "fleetmcp-device $arch depends on bookworm's $lib"; fi
  done
  pass "fleetmcp-device $arch names none of bookworm's libraries"
done
if [ -n "$full" ]; then
  dpkg-deb -x "$(deb fleetmcp-device arm64)" "$T/device-arm64"
  assert_contains "$(file -b "$T/device-arm64/usr/bin/fleetmcp-device")" "ARM aarch64" "the arm64 fleetmcp-device is ARM code"
  assert_eq "$(field fleetmcp-broker amd64 Version)" "$version" "fleetmcp-broker's version carries +deb13"
  deb_depends_only "$(deb fleetmcp-broker amd64)" "$BROKER_DEB_DEPENDS_TRIXIE"
  assert_contains "$(field fleetmcp-broker amd64 Depends)" "mosquitto (>= 2.0.11)" "fleetmcp-broker depends on mosquitto 2.0"
fi
assert_eq "$(dpkg-deb --fsys-tarfile "$(deb fleetmcp-device amd64)" | tar -xO ./usr/share/fleetmcp-device/version)" \
  "$version" "share/fleetmcp-device/version is the package's version"

# ---- apt-installed into fresh trixie roots -----------------------------------------------------
# trixie_root DIR ARCHITECTURES DEB…: a fresh trixie root (minbase; amd64 first, so programs run
# natively) in DIR where apt installs DEBs as on a Pi (README "Install on a Pi"). The .debs come
# from release-build.sh's cache where it has them (its build roots downloaded the same
# libraries); dpkg runs under eatmydata (after the install hook: its customize script unwraps dpkg).
trixie_root() {
  local dir=$1 archs=$2 start=$SECONDS cached=$BIN/release-roots/apt-archives/.; shift 2
  mkdir -p "$cached"
  mmdebstrap --quiet --variant=minbase --architectures="$archs" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && cp -al \"$cached\" \"\$1/var/cache/apt/archives/\" 2>/dev/null || cp -a \"$cached\" \"\$1/var/cache/apt/archives/\"" \
    --customize-hook="mkdir -p \"\$1/tmp/debs\" && cp $* \"\$1/tmp/debs/\"" \
    --customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends /tmp/debs/*.deb" && rm -rf "$1/tmp/debs"' \
    --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
    trixie "$dir" http://deb.debian.org/debian >"$dir.log" 2>&1 \
    || fail "mmdebstrap trixie with $(basename -a "$@" | tr '\n' ' ')(see $dir.log: $(tail -8 "$dir.log"))"
  pass "apt installs $(basename -a "$@" | tr '\n' ' ')into a trixie root ($((SECONDS - start)) s)"
}
schemas=$(grep '/fleetmcp-schemas_' <<<"$debs" | head -1)
root=$T/root
if [ -n "$full" ]; then
  trixie_root "$root" amd64 "$(deb fleetmcp-broker amd64)" "$(deb fleetmcp-device amd64)" "$schemas"
  # The Pi's node in an arm64 root, its programs run by qemu-user through binfmt_misc. (Not
  # multiarch on an amd64 root: there fleetmcp-schemas, Architecture all, counts as amd64 and
  # cannot satisfy the arm64 node's dependency on it; CPack cannot write Multi-Arch: foreign.)
  arm_root=$T/root-arm64
  trixie_root "$arm_root" arm64 "$(deb fleetmcp-device arm64)" "$schemas"
  assert_contains "$(chroot "$arm_root" dpkg-query -W -f '${Architecture} ${Version}' fleetmcp-device)" "arm64 $version" \
    "the installed fleetmcp-device is the arm64 one"
else
  trixie_root "$root" amd64 "$(deb fleetmcp-device amd64)" "$schemas"
fi
# A booted machine has a machine id (systemd makes one at first boot; mmdebstrap leaves the file
# empty): the node's hardware fingerprint reads it.
tr -d - </proc/sys/kernel/random/uuid >"$root/etc/machine-id"

# in_root COMMAND…: COMMAND in the root, with /proc mounted in a mount namespace of its own (gone
# with it) and the installed schema bundle (lib.sh points FLEETMCP_SCHEMAS at the source tree's);
# the network is this machine's.
in_root() {
  FLEETMCP_SCHEMAS=/usr/share/fleetmcp/schemas \
    unshare --mount --fork --kill-child sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}
assert_contains "$(in_root fleetmcp-device --help 2>&1)" "--check-config" "the installed fleetmcp-device answers --help"
# --version is the program's (the project's, no release suffix); the package's is in
# share/fleetmcp-device/version, checked above.
assert_contains "$(in_root fleetmcp-device --version 2>&1)" "fleetmcp-device ${version%+deb13} " \
  "the installed fleetmcp-device runs and reports the program's version"
[ -z "$full" ] || assert_contains "$(in_root fleetctl --help 2>&1)" "pki" "the installed fleetctl answers --help"

pki_init
PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
nodes=($(device_enroll 2 "$PORT_TLS"))
node=${nodes[0]} arm_node=${nodes[1]}
echo "capability.relay = gpio.pin line=17 chip=gpiochip97" >>"$T/pki/nodes/$node/device.conf"
mkdir -p "$root/etc/fleetmcp/node" && cp "$T/pki/nodes/$node"/* "$root/etc/fleetmcp/node/"
out=$(in_root fleetmcp-device --check-config --config /etc/fleetmcp/node/device.conf 2>&1) \
  || fail "--check-config in the trixie root: $out"
assert_contains "$out" "node $node, tenant acme" "the installed fleetmcp-device checks an enrolled node's bundle"

# The installed broker: the root's mosquitto 2.0.21 loads the packaged plugin (node only: this
# build's broker).
if [ -n "$full" ]; then
  release_mosquitto "$root"
  PLUGIN=/usr/lib/fleetmcp/fleetmcp_plugin.so
fi
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
[ -z "$full" ] || assert_contains "$(cat "$T/broker.log")" "mosquitto version 2.0.21" "the installed broker is trixie's mosquitto 2.0.21"
E2E_BASE=http://127.0.0.1:$(broker_http_port broker)
E2E_TOKEN=$(agent_token agent-trixie acme "devices:read tools:call:read_only")
in_root fleetmcp-device --config /etc/fleetmcp/node/device.conf >"$T/trixie-device.log" 2>&1 &
track $!
e2e_wait_online 1 60
pass "the trixie node's signed manifest is verified by the plugin and the node is online"
echo_answered "$node" "trixie"
answer=$(tools_call "gpio.$node.relay.get" '{}')
assert_eq "$(answer_body "$answer" | jq -c '[.code, .details.reason]')" '["E_BAD_REQUEST","failed_precondition"]' \
  "libgpiod 2: a pin on an absent chip is refused with failed_precondition, as on libgpiod 1"

[ -n "$full" ] || exit 0
# The arm64 node, its program from the package and its libraries the root's arm64 ones (qemu-user
# looks up the loader and the libraries under -L first).
FLEETMCP_SCHEMAS=$arm_root/usr/share/fleetmcp/schemas qemu-aarch64-static -L "$arm_root" "$arm_root/usr/bin/fleetmcp-device" \
  --config "$T/pki/nodes/$arm_node/device.conf" >"$T/arm64-device.log" 2>&1 &
track $!
e2e_wait_online 2 120
pass "the trixie arm64 node is online"
echo_answered "$arm_node" "trixie arm64"
