#!/usr/bin/env bash
# The node's packages for a Raspberry Pi's CPU, built on this machine (README "Install on a Pi"):
# Debian's cross compilers and the target's -dev packages (multiarch), then cpack:
#   <build>/packages/fleetmcp-device_<v>_<arch>.deb    the node client and its systemd unit
#   <build>/packages/fleetmcp-camera_<v>_<arch>.deb    the still-camera helper (libcamera)
#   <build>/packages/fleetmcp-schemas_<v>_all.deb      the schema bundle
#
#   scripts/cross-build.sh [arm64|armhf]        default arm64; build dir build-<arch> (BUILD_DIR)
#
# Installs what it needs with apt (as root; a second run only checks): `dpkg --add-architecture`,
# crossbuild-essential-<arch>, the target's libraries, and qemu-user to smoke-test the result.
# Prints the packages' paths, one per line, on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

arch=${1:-arm64}
case "$arch" in
  arm64|armhf) ;;
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "cross-build.sh: unknown architecture '$arch' (arm64 or armhf)" >&2; exit 2 ;;
esac
build=${BUILD_DIR:-build-$arch}
log() { echo "cross-build.sh: $*" >&2; }

scripts/install-deps.sh --cross "$arch" >&2

start=$SECONDS
if [ ! -f "$build/CMakeCache.txt" ]; then
  log "configuring $build for $arch"
  # Prefix /usr as the packages install (cmake/Packaging.cmake refuses any other).
  cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/linux-cross.cmake" \
        -DFLEETMCP_CROSS_ARCH="$arch" -DFLEETMCP_BUILD_BROKER=OFF -DCMAKE_BUILD_TYPE=Release \
        -DFLEETMCP_WERROR=ON -DCMAKE_INSTALL_PREFIX=/usr >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log" >&2; exit 1; }
fi
log "building fleetmcp-device and fleetmcp-camera-still (log: $build.build.log)"
if ! cmake --build "$build" -j"$(nproc)" --target fleetmcp-device fleetmcp-camera-still >"$build.build.log" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]" "$build.build.log" | head -60 >&2
  log "build failed; full log in $build.build.log"
  exit 1
fi
log "built in $((SECONDS - start)) s"
rm -rf "$build/packages"
# dpkg-shlibdeps finds the target's libraries through the host architecture dpkg-architecture reports.
(cd "$build" && DEB_HOST_ARCH=$arch cpack -G DEB) >"$build.cpack.log" 2>&1 \
  || { cat "$build.cpack.log" >&2; exit 1; }
ls "$(cd "$build" && pwd)"/packages/*.deb
