#!/usr/bin/env bash
# fleetmcp's packages built inside a root of a Debian release, so that dpkg-shlibdeps names that
# release's libraries (issue 38: trixie has libgpiod3, libre2-11, libssl3t64, libpng16-16t64 where
# bookworm has libgpiod2, libre2-9, libssl3, libpng16-16). docs/pi-image.md "Which packages".
#   scripts/release-build.sh trixie amd64 [CACHE_DIR]   the broker's and the node's packages
#   scripts/release-build.sh trixie arm64 [CACHE_DIR]   the node's, for a Pi (cross-compiled)
#   → CACHE_DIR/trixie-packages-<arch>/fleetmcp-*_<v>+deb13_<arch>.deb and fleetmcp-schemas_…_all.deb
#   scripts/release-build.sh --node trixie amd64 [CACHE_DIR]   fleetmcp-device and fleetmcp-schemas
#   alone, in a root with only what they need (CI's trixie check, integration.trixie_node: no
#   mosquitto, libcurl or Boost, one program compiled) → CACHE_DIR/trixie-node-packages-amd64/
#
# One root per release and architecture (mmdebstrap, minbase, the release's compiler and -dev
# packages; arm64's libraries through multiarch for the cross build) kept in CACHE_DIR (default
# build/release-roots, never committed) with its build trees: a run installs only what the root
# lacks and recompiles only what changed. The .debs a root was made from stay in
# CACHE_DIR/apt-archives for the next root (tests/integration/trixie_packages.sh installs from
# there too). Runs as root (chroot). Prints the packages' paths, one per line; progress and each
# phase's seconds go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

node_only=
if [ "${1:-}" = --node ]; then node_only=node-; shift; fi
suite=${1:-}
case "$suite" in
  trixie) suffix=+deb13 ;;
  -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "release-build.sh: a release, trixie (bookworm's packages: the CTest build, scripts/cross-build.sh)" >&2; exit 2 ;;
esac
arch=${2:-amd64}
case "$arch" in amd64|arm64) ;; *) echo "release-build.sh: amd64 or arm64, not '$arch'" >&2; exit 2 ;; esac
cache=${3:-build/release-roots}
mkdir -p "$cache" && cache=$(cd "$cache" && pwd)
log() { echo "release-build.sh: $*" >&2; }
command -v mmdebstrap >/dev/null || { log "mmdebstrap missing (scripts/install-deps.sh --vm)"; exit 1; }

# What the builds need (scripts/install-deps.sh's lists): the tools and header-only libraries;
# for amd64 the node's libraries, the broker's mosquitto and libcurl (and mosquitto itself, which
# tests/integration/trixie_broker.sh runs); for arm64 the cross compiler and the node's libraries
# for arm64 (multiarch; libcamera-dev is not co-installable for two architectures, hence a root
# per architecture).
node_libraries="libpaho-mqtt-dev libpaho-mqttpp-dev libsodium-dev libssl-dev libre2-dev libgpiod-dev libcamera-dev libsystemd-dev libturbojpeg0-dev libpng-dev"
wanted="build-essential cmake pkg-config file ca-certificates ccache dpkg-dev rapidjson-dev libboost-dev"
# Used for files alone, so unpacked without their dependencies: valijson's headers (trixie's
# libvalijson-dev depends on Qt 5, Poco, yaml-cpp… for adapters we do not use: half the root,
# Mesa and LLVM included) and BLAKE3's C sources (a dozen Rust crates' sources with them).
sources_only="libvalijson-dev librust-blake3-dev"
if [ -n "$node_only" ]; then
  [ "$arch" = amd64 ] || { echo "release-build.sh: --node builds amd64 only" >&2; exit 2; }
  wanted="${wanted/ libboost-dev/} $node_libraries" archs=amd64
elif [ "$arch" = amd64 ]; then
  wanted="$wanted $node_libraries mosquitto mosquitto-dev libmosquitto-dev libcurl4-openssl-dev" archs=amd64
else
  wanted="$wanted crossbuild-essential-$arch $(printf '%s:'"$arch"' ' $node_libraries)" archs=amd64,$arch
fi
root=$cache/$suite-$arch-${node_only}root
if [ ! -x "$root/usr/bin/cmake" ]; then
  rm -rf "$root.tmp"
  log "making the $suite build root $root (mmdebstrap)"
  start=$SECONDS
  # eatmydata: no fsync in dpkg (a root that is lost is made again); CACHE_DIR/apt-archives: the
  # .debs downloaded once for every root of the cache (tests/integration/trixie_packages.sh's
  # install roots too); no manuals, docs or translations.
  mkdir -p "$cache/apt-archives"
  unpack_sources="cd /tmp && apt-get download -q $sources_only && for d in ./*.deb; do dpkg-deb -x \"\$d\" / && rm \"\$d\"; done"
  mmdebstrap --quiet --variant=minbase --architectures="$archs" --include="$(echo $wanted | tr ' ' ,)" \
    --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata --skip=essential/unlink \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && cp -al \"$cache/apt-archives/.\" \"\$1/var/cache/apt/archives/\"" \
    --customize-hook="chroot \"\$1\" sh -ec '$unpack_sources'" \
    --customize-hook="cp -al -n \"\$1/var/cache/apt/archives/\"*.deb \"$cache/apt-archives/\"" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    "$suite" "$root.tmp" http://deb.debian.org/debian >&2
  mv "$root.tmp" "$root"
  log "root made in $((SECONDS - start)) s"
fi
# in_root COMMAND…: COMMAND in the root, /proc and /dev mounted in a mount namespace of its own.
in_root() {
  unshare --mount sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$root" "$@"
}
# What the root lacks of this build's packages, added with apt (mmdebstrap leaves no package lists).
missing=$(in_root dpkg-query -W -f '${Package}:${Architecture} ${db:Status-Status}\n' 2>/dev/null \
  | awk '$2 == "installed" { sub(/:(amd64|all)$/, "", $1); print $1 }' \
  | sort | comm -13 - <(printf '%s\n' $wanted | sed "s/:amd64$//" | sort))
if [ -n "$missing" ]; then
  start=$SECONDS
  log "adding to the $suite root: $(echo $missing)"
  [ "$arch" = amd64 ] || in_root dpkg --add-architecture "$arch"
  in_root sh -ec "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(echo $missing)" \
    >"$cache/$suite-$arch-${node_only}apt.log" 2>&1 || { tail -20 "$cache/$suite-$arch-${node_only}apt.log" >&2; exit 1; }
  log "added in $((SECONDS - start)) s"
fi

# The tracked sources, fresh each run; the build tree (/build-<arch>) stays for the next run.
rm -rf "$root/src" && mkdir -p "$root/src"
git -C "$src" ls-files -z | tar -C "$src" --null -T - -cf - | tar -C "$root/src" -xf -
components=
if [ -n "$node_only" ]; then
  configure="-DFLEETMCP_BUILD_BROKER=OFF"
  targets="fleetmcp-device" components="-D 'CPACK_COMPONENTS_ALL=device;schemas'"
elif [ "$arch" = amd64 ]; then
  configure="-DFLEETMCP_BUILD_BROKER=ON -DFLEETMCP_BUILD_TESTS=OFF -DFLEETMCP_BUILD_BENCH=OFF"
  targets="fleetmcp-device fleetmcp-camera-still fleetmcp_plugin fleetctl"
else
  configure="-DCMAKE_TOOLCHAIN_FILE=/src/cmake/toolchains/linux-cross.cmake -DFLEETMCP_CROSS_ARCH=$arch -DFLEETMCP_BUILD_BROKER=OFF"
  targets="fleetmcp-device fleetmcp-camera-still"
fi
start=$SECONDS
blog=$cache/$suite-${node_only}build-$arch.log
log "building in $root/build-$arch (log: $blog)"
if ! in_root /bin/sh -ec "
    export CCACHE_DIR=/ccache
    cmake -S /src -B /build-$arch $configure -DCMAKE_BUILD_TYPE=Release -DFLEETMCP_WERROR=ON \
          -DCMAKE_INSTALL_PREFIX=/usr -DFLEETMCP_PACKAGE_VERSION_SUFFIX=$suffix
    cmake --build /build-$arch -j2 --target $targets
    rm -rf /build-$arch/packages && cd /build-$arch && DEB_HOST_ARCH=$arch cpack -G DEB $components" >"$blog" 2>&1; then
  grep -E -B2 -A6 "error:|Error [0-9]|CMake Error" "$blog" | head -60 >&2
  log "build failed; full log in $blog"
  exit 1
fi
log "built and packaged in $((SECONDS - start)) s"
out=$cache/$suite-${node_only}packages-$arch
rm -rf "$out" && mkdir -p "$out"
cp "$root/build-$arch"/packages/*.deb "$out/"
ls "$out"/*.deb
