#!/usr/bin/env bash
# The "virtual Pi" disk image (docs/virtual-pi.md): Debian bookworm made by mmdebstrap with
# systemd as PID 1, the fleetmcp-device and fleetmcp-schemas .debs of a build installed with apt
# as on a Pi, fleetmcp-device.service enabled, and the kernel objects the tools drive:
# i2c-stub + i2c-dev (Debian's modules) and gpio-sim, built out of tree from linux-source-6.1
# (Debian's kernel has no CONFIG_GPIO_SIM). The guest-side units are in scripts/virtual-pi/guest/.
#   scripts/virtual-pi/build-image.sh DEBS_DIR CACHE_DIR     prints the image path
# The image is cached in CACHE_DIR under a key of its inputs (the .debs, this script, the guest
# files, the kernel version): a second call with the same inputs returns at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
debs=$(cd "$1" && pwd) cache=$2
kver=$(cd /lib/modules && ls -d *-amd64 | sort -V | tail -1)
[ -f "/boot/vmlinuz-$kver" ] && [ -d "/usr/src/linux-headers-$kver" ] \
  || { echo "build-image: needs linux-image-amd64 and linux-headers-amd64 ($kver)" >&2; exit 1; }
mkdir -p "$cache"
# The .debs by what they install (cpack stamps each build's archives with new times).
deb_content() { dpkg-deb -f "$1"; dpkg-deb --fsys-tarfile "$1" | tar -xO; }
key=$( { for d in "$debs"/fleetmcp-device_*.deb "$debs"/fleetmcp-schemas_*.deb; do deb_content "$d"; done
         cat "$0"; find "$here/guest" -type f | sort | xargs cat; echo "$kver"; } | sha256sum | cut -c1-16)
image=$cache/virtual-pi-$key.img
if [ -f "$image" ]; then echo "$image"; exit 0; fi
rm -f "$cache"/virtual-pi-*.img   # an older image of other inputs
work=$(mktemp -d "$cache/work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# gpio-sim.ko: drivers/gpio/gpio-sim.c with kernel/irq/irq_sim.c linked in (the kernel lacks
# CONFIG_IRQ_SIM too). irq_sim.c calls the unexported irq_to_desc(); generic_handle_irq() is the
# exported call that runs the same handler.
mkdir "$work/gpio-sim"
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$work/gpio-sim" --strip-components=3 \
  linux-source-6.1/drivers/gpio/gpio-sim.c linux-source-6.1/drivers/gpio/gpiolib.h linux-source-6.1/kernel/irq/irq_sim.c
mv "$work/gpio-sim/gpio-sim.c" "$work/gpio-sim/gpio-sim-main.c"
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$work/gpio-sim/irq_sim.c"
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$work/gpio-sim/Makefile"
make -s -C "/lib/modules/$kver/build" M="$work/gpio-sim" modules >"$work/gpio-sim.log" 2>&1 \
  || { cat "$work/gpio-sim.log" >&2; exit 1; }

# The root filesystem. Only the modules the guest needs are copied from the host's package of
# the same kernel (the initrd of that package mounts the root disk).
mods="kernel/drivers/i2c/i2c-stub.ko kernel/drivers/i2c/i2c-dev.ko kernel/drivers/char/virtio_console.ko kernel/fs/configfs/configfs.ko"
mkdir "$work/root"
mmdebstrap --quiet --variant=minbase \
  --include=systemd,systemd-sysv,udev,kmod,dbus,polkitd,libpam-systemd,socat,procps,iproute2,i2c-tools,gpiod \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="mkdir -p \"\$1/tmp/debs\" && cp $debs/fleetmcp-device_*.deb $debs/fleetmcp-schemas_*.deb \"\$1/tmp/debs/\"" \
  --customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends /tmp/debs/*.deb" && rm -rf "$1/tmp/debs"' \
  --customize-hook="for m in $mods; do install -D -m 0644 /lib/modules/$kver/\$m \"\$1/lib/modules/$kver/\$m\"; done; install -D -m 0644 $work/gpio-sim/gpio-sim.ko \"\$1/lib/modules/$kver/extra/gpio-sim.ko\"; cp /lib/modules/$kver/modules.order /lib/modules/$kver/modules.builtin* \"\$1/lib/modules/$kver/\"; depmod -b \"\$1\" $kver" \
  --customize-hook="cp -R $here/guest/. \"\$1/\"" \
  --customize-hook='chroot "$1" sh /usr/local/lib/virtual-pi/setup.sh' \
  bookworm "$work/root" >"$work/mmdebstrap.log" 2>&1 || { tail -30 "$work/mmdebstrap.log" >&2; exit 1; }
mkfs.ext4 -q -L virtual-pi -d "$work/root" "$work/image" 1G >/dev/null
mv "$work/image" "$image"
echo "$image"
