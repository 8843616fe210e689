#!/usr/bin/env bash
# The node's packages built inside a root of a Debian release, so that dpkg-shlibdeps names that
# release's libraries (issue 38: trixie has libgpiod3, libre2-11, libssl3t64, libpng16-16t64 where
# bookworm has libgpiod2, libre2-9, libssl3, libpng16-16). docs/pi-image.md "Which packages".
#   scripts/release-build.sh trixie [CACHE_DIR]      default CACHE_DIR build/release-roots
#   → CACHE_DIR/trixie-packages/fleetmcp-{device,camera}_<v>+deb13_amd64.deb, fleetmcp-schemas_…_all.deb
#
# This machine's architecture (amd64), fleetmcp-device, fleetmcp-camera and fleetmcp-schemas; the
# broker's package and arm64 are not built this way yet. The build root (mmdebstrap, minbase, the
# release's compiler and -dev packages: ~4 min the first time) and the build tree inside it are
# kept in CACHE_DIR, keyed by the package list, so a second run only recompiles what changed.
# Runs as root (chroot). Prints the packages' paths, one per line; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

suite=${1:-}
case "$suite" in
  trixie) suffix=+deb13 ;;
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "release-build.sh: a release, trixie (bookworm's packages: the CTest build, scripts/cross-build.sh)" >&2; exit 2 ;;
esac
cache=${2:-build/release-roots}
mkdir -p "$cache" && cache=$(cd "$cache" && pwd)
log() { echo "release-build.sh: $*" >&2; }
command -v mmdebstrap >/dev/null || { log "mmdebstrap missing (scripts/install-deps.sh --vm)"; exit 1; }

# What the device's build needs (scripts/install-deps.sh's node libraries and header-only ones).
packages=build-essential,cmake,pkg-config,file,ca-certificates,ccache,libpaho-mqtt-dev,libpaho-mqttpp-dev,libsodium-dev,libssl-dev,libre2-dev,libgpiod-dev,libcamera-dev,libsystemd-dev,libturbojpeg0-dev,libpng-dev,rapidjson-dev,libvalijson-dev,libboost-dev,librust-blake3-dev,libgtest-dev
key=$(printf '%s %s' "$suite" "$packages" | sha256sum | cut -c1-12)
root=$cache/$suite-build-$key
if [ ! -x "$root/usr/bin/cmake" ]; then
  rm -rf "$cache/$suite-build-"*   # a root of another package list
  log "making the $suite build root $root (mmdebstrap)"
  start=$SECONDS
  mmdebstrap --quiet --variant=minbase --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    "$suite" "$root.tmp" http://deb.debian.org/debian >&2
  mv "$root.tmp" "$root"
  log "root made in $((SECONDS - start)) s"
fi

# The tracked sources, fresh each run; the build tree (/build) stays for the next run.
rm -rf "$root/src" && mkdir -p "$root/src"
git -C "$src" ls-files -z | tar -C "$src" --null -T - -cf - | tar -C "$root/src" -xf -
start=$SECONDS
log "building in $root/build (log: $cache/$suite-build.log)"
if ! chroot "$root" /bin/sh -ec "
    export CCACHE_DIR=/ccache
    cmake -S /src -B /build -DFLEETMCP_BUILD_BROKER=OFF -DCMAKE_BUILD_TYPE=Release -DFLEETMCP_WERROR=ON \
          -DCMAKE_INSTALL_PREFIX=/usr -DFLEETMCP_PACKAGE_VERSION_SUFFIX=$suffix
    nice -n 19 cmake --build /build -j2 --target fleetmcp-device fleetmcp-camera-still
    rm -rf /build/packages && cd /build && cpack -G DEB" >"$cache/$suite-build.log" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]|CMake Error" "$cache/$suite-build.log" | head -60 >&2
  log "build failed; full log in $cache/$suite-build.log"
  exit 1
fi
log "built and packaged in $((SECONDS - start)) s"
rm -rf "$cache/$suite-packages" && mkdir -p "$cache/$suite-packages"
cp "$root"/build/packages/*.deb "$cache/$suite-packages/"
ls "$cache/$suite-packages"/*.deb
