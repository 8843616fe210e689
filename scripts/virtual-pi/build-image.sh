#!/usr/bin/env bash
# The "virtual Pi" disk image (docs/virtual-pi.md): Debian bookworm made by mmdebstrap with
# systemd as PID 1, the fleetmcp-device and fleetmcp-schemas .debs of a build installed with apt
# as on a Pi, fleetmcp-device.service enabled, and the kernel objects the tools drive: i2c-stub,
# i2c-dev and gpio-sim. Debian's kernel has no CONFIG_GPIO_SIM (nor, on arm64, CONFIG_I2C_STUB):
# those are built out of tree from linux-source-6.1. The guest-side units are in
# scripts/virtual-pi/guest/.
#   scripts/virtual-pi/build-image.sh DEBS_DIR CACHE_DIR [amd64|arm64] [bookworm|trixie]
# prints the image path. ARCH (default amd64) is the guest's CPU; DEBS_DIR holds that
# architecture's .debs (of that release: for trixie, scripts/release-build.sh's).
#   amd64: the root has no kernel; the guest boots this machine's Debian kernel, whose modules it
#          needs are copied in.
#   arm64: the root is an arm64 Debian (its programs run under qemu-user through binfmt_misc
#          while mmdebstrap builds it) with Debian's linux-image-<abi>-arm64, whose initramfs
#          update-initramfs makes inside it; the modules are cross-built (aarch64-linux-gnu-)
#          against that kernel's linux-headers package.
#   trixie (amd64 only; issue 38): a Debian 13 root with trixie's own kernel (6.12, its initramfs
#          made inside the root as for arm64); gpio-sim is built in the root, against trixie's
#          linux-headers and linux-source-6.12, whose packages are removed again afterwards.
# Next to IMAGE (virtual-pi-ARCH-KEY.img) the kernel and initrd the guest boots directly
# (.vmlinuz, .initrd; scripts/virtual-pi/run.sh). They are cached in CACHE_DIR under a key of
# their inputs (the .debs, this script, the guest files, the kernel version, the architecture):
# a second call with the same inputs returns at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/debian-root.sh"
mkdir -p "$2"
debs=$(cd "$1" && pwd) cache=$(cd "$2" && pwd) arch=${3:-amd64} release=${4:-bookworm}
case "$arch" in amd64|arm64) ;; *) echo "build-image: architecture amd64 or arm64, not '$arch'" >&2; exit 2 ;; esac
case "$arch-$release" in *-bookworm|amd64-trixie) ;; *) echo "build-image: bookworm, or trixie on amd64, not '$release' ($arch)" >&2; exit 2 ;; esac
# The kernel ABI of this machine's headers package (install-deps.sh --vm); the arm64 guest runs the
# same kernel release built for arm64, so both guests run the same kernel source.
host_kver=$(cd /lib/modules && ls -d *-amd64 | sort -V | tail -1)
kver=${host_kver%-amd64}-$arch
[ -f "/boot/vmlinuz-$host_kver" ] && [ -d "/usr/src/linux-headers-$host_kver" ] \
  || { echo "build-image: needs linux-image-amd64 and linux-headers-amd64 ($host_kver)" >&2; exit 1; }
# The Pi image's own systemd settings (hardware watchdog) go into the guest as well.
pi_files=$here/../pi-image/root/etc/systemd/system.conf.d
key=$( { debs_key "$debs"; cat "$0" "$here/../lib/debian-root.sh"; find "$here/guest" "$pi_files" -type f | sort | xargs cat
         echo "$kver $arch"; [ "$release" = bookworm ] || echo "$release"; } | sha256sum | cut -c1-16)
image=$cache/virtual-pi-$arch-$key.img
if [ -f "$image" ]; then echo "$image"; exit 0; fi
rm -f "$cache/virtual-pi-$arch"-*   # an older image of other inputs
work=$(mktemp -d "$cache/work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The kernel build tree the modules are built against: this machine's headers for amd64; for
# arm64 Debian's linux-headers-<abi>-arm64 unpacked (not installed: its kbuild programs would be
# arm64 ones), with the common headers and this machine's kbuild programs (the same release).
kbuild=(-C "/lib/modules/$kver/build")
if [ "$arch" = arm64 ]; then
  command -v aarch64-linux-gnu-gcc >/dev/null || { echo "build-image: needs crossbuild-essential-arm64 (install-deps.sh --vm arm64)" >&2; exit 1; }
  foreign_arch_ready "$arch"
  (cd "$work" && apt-get download -q "linux-headers-$kver:arm64" >"$work/headers.log" 2>&1) \
    || { cat "$work/headers.log" >&2; echo "build-image: no linux-headers-$kver for arm64 (apt-get update; install-deps.sh --vm)" >&2; exit 1; }
  dpkg-deb -x "$work"/linux-headers-"$kver"_*.deb "$work/headers"
  mkdir -p "$work/headers/usr/lib"
  ln -s "/usr/lib/linux-kbuild-${kver%%.0-*}" "$work/headers/usr/lib/"
  kbuild=(-C "$work/headers/usr/src/linux-headers-$kver" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
fi

# gpio_sim_sources TARBALL DIR: gpio-sim.ko's sources (and i2c-stub's, when $modules names it)
# from the kernel's source tarball into DIR, with their Makefile: drivers/gpio/gpio-sim.c with kernel/irq/irq_sim.c linked in (the kernel lacks
# CONFIG_IRQ_SIM too). irq_sim.c calls the unexported irq_to_desc(); generic_handle_irq() is the
# exported call that runs the same handler. i2c-stub.ko only where the kernel lacks it (arm64).
modules=(gpio-sim)
[ "$arch" = amd64 ] || modules+=(i2c-stub)
gpio_sim_sources() {
  local top sources=(drivers/gpio/gpio-sim.c drivers/gpio/gpiolib.h kernel/irq/irq_sim.c)
  top=$(basename "$1" .tar.xz)
  [[ " ${modules[*]} " != *" i2c-stub "* ]] || sources+=(drivers/i2c/i2c-stub.c)
  mkdir -p "$2"
  tar -xJf "$1" -C "$2" --strip-components=3 "${sources[@]/#/$top/}"
  mv "$2/gpio-sim.c" "$2/gpio-sim-main.c"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$2/irq_sim.c"
  printf 'obj-m := %s\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' "${modules[*]/%/.o}" >"$2/Makefile"
}
if [ "$release" = bookworm ]; then
  gpio_sim_sources /usr/src/linux-source-6.1.tar.xz "$work/modules"
  make -s "${kbuild[@]}" M="$work/modules" modules >"$work/modules.log" 2>&1 \
    || { cat "$work/modules.log" >&2; exit 1; }
fi

# The root filesystem, with the files of guest/ in it before the packages (the arm64 kernel's
# initramfs is made with guest/etc/initramfs-tools). amd64: only the modules the guest needs, copied from this machine's package
# of the same kernel (the initrd of that package mounts the root disk). arm64: the kernel package
# itself, and its vmlinuz and initrd copied out for run.sh.
extra="install -D -m 0644 -t \"\$1/lib/modules/$kver/extra\" $(printf "$work/modules/%s.ko " "${modules[@]}")"
options=() mirror=()
if [ "$release" = trixie ]; then
  # In the root (a customize hook, so $1 is the root): the sources from trixie's linux-source,
  # built with its kernel's headers, then the build's packages purged (the image keeps the kernel).
  build_pkgs="linux-headers-amd64 linux-source-6.12 make"
  include=,linux-image-amd64,initramfs-tools,${build_pkgs// /,}
  declare -f gpio_sim_sources >"$work/gpio-sim-sources.sh"
  kernel_hook="bash -ec '. $work/gpio-sim-sources.sh; modules=(${modules[*]}); gpio_sim_sources \"\$1\"/usr/src/linux-source-6.12.tar.xz \"\$1/tmp/modules\"' sh \"\$1\" &&
    kv=\$(ls \"\$1/lib/modules\") && chroot \"\$1\" make -s -C /lib/modules/\$kv/build M=/tmp/modules modules >$work/modules.log 2>&1 &&
    install -D -m 0644 -t \"\$1/lib/modules/\$kv/extra\" \"\$1\"/tmp/modules/*.ko && rm -rf \"\$1/tmp/modules\" && chroot \"\$1\" depmod \$kv &&
    chroot \"\$1\" apt-get purge -y -q --autoremove $build_pkgs >>$work/modules.log 2>&1"
  boot_hook="cp \"\$1\"/boot/vmlinuz-* $work/vmlinuz && cp \"\$1\"/boot/initrd.img-* $work/initrd"
  # No fsync in dpkg (eatmydata, as release-build.sh's roots): a lost root is made again.
  options=(--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata) mirror=(http://deb.debian.org/debian)
elif [ "$arch" = amd64 ]; then
  include=
  mods="kernel/drivers/i2c/i2c-stub.ko kernel/drivers/i2c/i2c-dev.ko kernel/drivers/char/virtio_console.ko kernel/fs/configfs/configfs.ko kernel/drivers/watchdog/watchdog.ko kernel/drivers/watchdog/i6300esb.ko kernel/drivers/net/virtio_net.ko kernel/drivers/net/net_failover.ko kernel/net/core/failover.ko"
  kernel_hook="for m in $mods; do install -D -m 0644 /lib/modules/$kver/\$m \"\$1/lib/modules/$kver/\$m\"; done; cp /lib/modules/$kver/modules.order /lib/modules/$kver/modules.builtin* \"\$1/lib/modules/$kver/\"; $extra; depmod -b \"\$1\" $kver"
  boot_hook="cp /boot/vmlinuz-$kver $work/vmlinuz && cp /boot/initrd.img-$kver $work/initrd"
else
  include=,linux-image-$kver
  kernel_hook="$extra; depmod -b \"\$1\" $kver"
  boot_hook="cp \"\$1/boot/vmlinuz-$kver\" $work/vmlinuz && cp \"\$1/boot/initrd.img-$kver\" $work/initrd"
fi
mkdir "$work/root"
debs_hooks "$debs"
mmdebstrap --quiet --variant=minbase --architectures="$arch" \
  --include=systemd,systemd-sysv,systemd-timesyncd,udev,kmod,dbus,polkitd,libpam-systemd,socat,procps,iproute2,i2c-tools,gpiod$include \
  --essential-hook="cp -R $here/guest/. \"\$1/\" && mkdir -p \"\$1/etc/systemd\" && cp -R $pi_files \"\$1/etc/systemd/\"" "${DEBS_HOOKS[@]}" \
  --customize-hook="$kernel_hook" --customize-hook="$boot_hook" \
  --customize-hook='chroot "$1" sh /usr/local/lib/virtual-pi/setup.sh' \
  "${options[@]}" "$release" "$work/root" "${mirror[@]}" >"$work/mmdebstrap.log" 2>&1 \
  || { tail -30 "$work/mmdebstrap.log" >&2; [ ! -f "$work/modules.log" ] || tail -30 "$work/modules.log" >&2; exit 1; }
# arm64 and trixie: the kernel package brings all of its modules (350 MB).
size=1G; [ "$arch-$release" = amd64-bookworm ] || size=2G
mkfs.ext4 -q -L virtual-pi -d "$work/root" "$work/image" "$size" >/dev/null
mv "$work/vmlinuz" "${image%.img}.vmlinuz"
mv "$work/initrd" "${image%.img}.initrd"
mv "$work/image" "$image"
echo "$image"
