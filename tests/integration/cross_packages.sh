#!/usr/bin/env bash
# The node's packages for a Pi's CPU (issue 27, README "Install on a Pi"): scripts/cross-build.sh
# arm64 builds fleetmcp-device, fleetmcp-camera and fleetmcp-schemas with Debian's cross compiler
# and multiarch libraries. Checked as a user would meet them: the Architecture fields, the
# Depends lines against the list of libraries a node may pull in (a new one fails here, named),
# libcamera only in the camera package, ARM code inside; then the packaged arm64 fleetmcp-device
# runs under qemu-user against a broker with the plugin on this machine, announces, is verified
# and answers an MCP call. (The whole node on an ARM kernel: tests/integration/virtual_pi.sh.)
. "$(dirname "$0")/lib.sh"

arch=${FLEETMCP_CROSS_ARCH:-arm64}
case "$arch" in
  arm64) qemu=qemu-aarch64 machine="ARM aarch64" ;;
  armhf) qemu=qemu-arm machine="ARM, EABI5" ;;
esac
start=$SECONDS
# Next to the CTest build, so a second run is incremental.
debs=$(BUILD_DIR="${BIN%/}-$arch" "$SRC/scripts/cross-build.sh" "$arch" 2>"$T/cross.log") \
  || fail "scripts/cross-build.sh $arch (see $T/cross.log)"
echo "# cross-built and packaged for $arch in $((SECONDS - start)) s"
deb() { grep "/$1_" <<<"$debs" || fail "no $1 .deb among: $debs"; }
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
for p in fleetmcp-device fleetmcp-camera; do
  assert_eq "$(field $p Architecture)" "$arch" "$p is built for $arch"
done
assert_eq "$(field fleetmcp-schemas Architecture)" all "fleetmcp-schemas is architecture independent"

deb_depends_only "$(deb fleetmcp-device)" "$NODE_DEB_DEPENDS"
deb_depends_only "$(deb fleetmcp-camera)" "$NODE_DEB_DEPENDS fleetmcp-device libcamera0.0.3"
assert_contains "$(field fleetmcp-camera Depends)" "libcamera" "the camera helper's package carries the libcamera dependency"
assert_contains "$(field fleetmcp-device Depends)" "libpaho-mqttpp3" "the device package depends on Paho C++ (shlibdeps ran on the $arch binary)"
[ -z "$(field fleetmcp-schemas Depends)" ] || fail "fleetmcp-schemas depends on $(field fleetmcp-schemas Depends)"
pass "fleetmcp-schemas depends on nothing"

root=$T/root
for p in fleetmcp-device fleetmcp-camera fleetmcp-schemas; do dpkg-deb -x "$(deb $p)" "$root"; done
for f in usr/bin/fleetmcp-device usr/bin/fleetmcp-camera-still; do
  assert_contains "$(file -b "$root/$f")" "$machine" "$f is $machine code"
done
if dpkg-deb --contents "$(deb fleetmcp-device)" | grep -q 'fleetmcp-camera-still'; then
  fail "fleetmcp-device still carries the camera helper"
fi
pass "fleetmcp-device carries no libcamera program"

# The packaged binary on the instruction set it was built for (qemu-user, the target's
# libraries from multiarch), talking to a broker with the plugin on this machine.
command -v "$qemu" >/dev/null || fail "$qemu missing (scripts/install-deps.sh --cross $arch installs qemu-user)"
version=$("$qemu" "$root/usr/bin/fleetmcp-device" --version 2>&1) || fail "$arch fleetmcp-device --version: $version"
assert_contains "$version" "$(field fleetmcp-device Version)" "the $arch fleetmcp-device runs and reports the package's version"
pki_init
PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
E2E_BASE=http://127.0.0.1:$(broker_http_port broker)
E2E_TOKEN=$(agent_token agent-arm acme "devices:read tools:call:read_only")
node=$(device_enroll 1 "$PORT_TLS")
FLEETMCP_SCHEMAS=$root/usr/share/fleetmcp/schemas "$qemu" "$root/usr/bin/fleetmcp-device" \
  --config "$T/pki/nodes/$node/device.conf" >"$T/arm-device.log" 2>&1 &
track $!
e2e_wait_online 1 90
pass "the $arch node's signed manifest is verified by the plugin and the node is online"
echo_answered "$node" "$arch"
