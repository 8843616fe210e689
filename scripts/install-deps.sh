#!/usr/bin/env bash
# Installs everything fleetmcp needs to build, run and test on Debian 12, as root.
# Idempotent: a second run only checks. Debian packages come from apt; the Node test
# clients (MCP SDK, canonicalize, @noble/curves) from npm into tests/node/node_modules.
#   scripts/install-deps.sh           build, run and test (README command (1))
#   scripts/install-deps.sh --build   compiling only: no test tools, no Node (docker/Dockerfile)
#   scripts/install-deps.sh --docker  also a Docker engine and mmdebstrap (tests/integration/docker_fleet.sh)
#   scripts/install-deps.sh --vm      also QEMU, Debian's kernel and headers, mmdebstrap, socat,
#                                     chrony (tests/integration/virtual_pi.sh)
#   scripts/install-deps.sh --vm arm64
#                                     also what the arm64 guest needs: qemu-system-aarch64, the
#                                     cross compiler (its modules), qemu-user-static + binfmt
#                                     + arch-test (mmdebstrap of an arm64 root), and what makes the
#                                     Pi's SD-card image without loop devices (scripts/pi-image.sh):
#                                     dosfstools, mtools, fdisk (sfdisk)
#   scripts/install-deps.sh --cross ARCH
#                                     the cross compilers and ARCH's libraries for the node's
#                                     packages (arm64, armhf: scripts/cross-build.sh), qemu-user
set -euo pipefail
mode=${1:-test}
cross_arch=${2:-}

here=$(cd "$(dirname "$0")/.." && pwd)

# What the node (device_client/, common/) links: for this machine, or for a cross build (--cross).
node_libraries=(libpaho-mqtt-dev libpaho-mqttpp-dev libsodium-dev libssl-dev libre2-dev
                libgpiod-dev libcamera-dev libsystemd-dev libturbojpeg0-dev libpng-dev)
packages=(
  build-essential cmake pkg-config git ca-certificates file   # cpack's shlibdeps needs file
  mosquitto-dev libmosquitto-dev
  libcurl4-openssl-dev   # the HTTP front fetches trusted issuers' keys (docs/authorization.md)
  rapidjson-dev openssl libvalijson-dev libboost-dev librust-blake3-dev   # header-only or sources
  "${node_libraries[@]}"
)
case "$mode" in
  --build) ;;
  --cross)
    case "$cross_arch" in arm64|armhf) ;; *) echo "install-deps: --cross arm64 or --cross armhf" >&2; exit 2 ;; esac
    packages+=(crossbuild-essential-"$cross_arch" qemu-user dpkg-dev "${node_libraries[@]/%/:$cross_arch}") ;;
  test|--docker|--vm)
    case "$mode $cross_arch" in "--vm arm64"|"$mode ") ;; *) echo "install-deps: --vm or --vm arm64" >&2; exit 2 ;; esac
    packages+=(
  mosquitto mosquitto-clients b3sum
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  curl jq procps iproute2 gdb   # gdb: lib.sh prints the threads of a broker that hangs on stop
  haproxy   # balanced_pair.sh: two fronts behind a plain round-robin balancer (issue 36)
  docker-compose   # compose.sh validates docker-compose.yml
  ) ;;
  *) echo "install-deps: unknown mode $mode (--build, --docker, --vm or --cross ARCH)" >&2; exit 2 ;;
esac
# The tests that run the product off the simulator install their own tools.
case "$mode" in
  --docker) packages+=(docker.io mmdebstrap) ;;
  --vm) packages+=(mmdebstrap qemu-system-x86 linux-image-amd64 linux-headers-amd64 linux-source-6.1
                   qemu-utils socat xz-utils e2fsprogs dpkg-dev  # dpkg-dev: update-repo.sh
                   chrony)  # the guest's NTP server on this host (virtual_pi.sh)
    [ "$cross_arch" != arm64 ] || packages+=(qemu-system-arm qemu-user-static binfmt-support arch-test crossbuild-essential-arm64
                                           dosfstools mtools fdisk) ;;
esac
# Node.js runs the independent test clients. Machines that already carry a Node with
# its own npm (as ours do) keep it: Debian's npm package conflicts with those builds.
if [ "$mode" != --build ] && [ "$mode" != --cross ]; then
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

# Installed for this machine (or for all), or for the architecture a name asks for (name:arm64):
# with a foreign architecture added, a plain name may be installed for both.
native=$(dpkg --print-architecture)
missing=()
for p in "${packages[@]}"; do
  want=$native; [[ "$p" == *:* ]] && want=${p#*:}
  dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null \
    | grep -qE "^install ok installed ($want|all)$" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${#missing[@]} Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: must run as root to install packages" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # The off-simulator tests run this beside each other (two apt-get updates at once fail).
  mkdir -p /run/lock && exec 9>/run/lock/fleetmcp-install-deps.lock
  flock -w 900 9
  if [ -n "$cross_arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$cross_arch"; then
    dpkg --add-architecture "$cross_arch"
  fi
  apt-get update -qq
  # ... and wait for a dpkg lock another apt holds instead of failing.
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
else
  echo "install-deps: all Debian packages present"
fi

# The broker package starts a system mosquitto on :1883; fleetmcp runs its own brokers.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet mosquitto 2>/dev/null; then
  systemctl stop mosquitto || true
  systemctl disable mosquitto >/dev/null 2>&1 || true
fi

# Node test clients, pinned by tests/node/package-lock.json. Installed again only when the lock
# file's content differs from the one the installed tree came from (a stamp inside it), not by
# file times: a fresh checkout is newer than a good tree, and npm ci would empty a tree that
# other checkouts share through a link.
if [ "$mode" != --build ] && [ "$mode" != --cross ] && [ -f "$here/tests/node/package.json" ]; then
  lock_sum=$(sha256sum "$here/tests/node/package-lock.json" | cut -d' ' -f1)
  stamp=$here/tests/node/node_modules/.fleetmcp-lock.sha256
  if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sum" ]; then
    echo "install-deps: installing Node test clients"
    (cd "$here/tests/node" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1 || npm install --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$lock_sum" >"$stamp"
  fi
fi
echo "install-deps: done"
