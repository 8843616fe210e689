#!/usr/bin/env bash
# An SD-card image for a Raspberry Pi 3 or 4 in arm64 (docs/pi-image.md, README "Install on a
# Pi"): Debian bookworm or trixie made by mmdebstrap, Debian's arm64 kernel, raspi-firmware from
# non-free-firmware (its hooks put the firmware, kernel, initrd, device trees, config.txt and
# cmdline.txt on the FAT partition), the fleetmcp-device and fleetmcp-schemas .debs installed with
# apt, DHCP on Ethernet (systemd-networkd), Wi-Fi from the boot partition's settings (netplan.io
# renders them for systemd-networkd and wpasupplicant; firmware-brcm80211 from non-free-firmware),
# NTP (systemd-timesyncd), no ssh server, and the first-boot enrolment from fleetmcp/ on the FAT
# partition (fleetmcp-enrol-boot.service).
#
#   scripts/pi-image.sh [--release R] [--debs DIR] [--out DIR]     prints the image's path
#
#   --release R bookworm (default) or trixie: the Debian release, its kernel and firmware
#   --debs DIR  the arm64 .debs of that release (default: built by scripts/cross-build.sh arm64
#               for bookworm, scripts/release-build.sh trixie arm64 for trixie)
#   --out DIR   where the image goes (default build/pi-image); it is cached there under a key of
#               its inputs (the .debs, these scripts and files): a second run returns at once
#
# The image (pi-image-R-arm64-KEY.img): an MBR, partition 1 FAT32 "RASPIFIRM" (512 MiB, mounted at
# /boot/firmware), partition 2 ext4 "RASPIROOT". Made without loop devices or mounts (mke2fs -d,
# mkfs.vfat + mcopy, sfdisk): runs as root for mmdebstrap and binfmt only. Needs
# scripts/install-deps.sh --vm arm64. PI_IMAGE_MIRROR (default http://deb.debian.org) is the
# Debian mirror. The Raspberry Pi 5 is not supported: bookworm's kernel (6.1) has no device tree
# for it, and neither bookworm's nor trixie's (6.12) has a driver for its RP1 (Ethernet, USB,
# GPIO): docs/pi-image.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/debian-root.sh"
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
release=bookworm debs= out=$here/../build/pi-image
while [ $# -gt 0 ]; do
  case "$1" in
    --release) release=${2:?--release bookworm|trixie}; shift 2 ;;
    --debs) debs=${2:?--debs DIR}; shift 2 ;;
    --out) out=${2:?--out DIR}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "pi-image.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for tool in mmdebstrap mkfs.vfat mcopy sfdisk mke2fs qemu-aarch64-static; do
  command -v "$tool" >/dev/null || { echo "pi-image.sh: needs $tool: run scripts/install-deps.sh --vm arm64" >&2; exit 1; }
done
case "$release" in
  bookworm) [ -n "$debs" ] || debs=$(dirname "$("$here/cross-build.sh" arm64 | head -n 1)") ;;
  trixie) [ -n "$debs" ] || debs=$(dirname "$("$here/release-build.sh" trixie arm64 | head -n 1)") ;;
  *) echo "pi-image.sh: --release bookworm or trixie, not '$release'" >&2; exit 2 ;;
esac
debs=$(cd "$debs" && pwd)
ls "$debs"/fleetmcp-device_*_arm64.deb "$debs"/fleetmcp-schemas_*.deb >/dev/null \
  || { echo "pi-image.sh: no arm64 fleetmcp-device and fleetmcp-schemas .debs in $debs" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
mirror=${PI_IMAGE_MIRROR:-http://deb.debian.org}
key=$( { debs_key "$debs"; cat "$0" "$here/lib/debian-root.sh"; find "$here/pi-image" -type f | sort | xargs cat
         echo "$mirror $release"; } | sha256sum | cut -c1-16)
image=$out/pi-image-$release-arm64-$key.img
if [ -f "$image" ]; then echo "$image"; exit 0; fi
rm -f "$out"/pi-image-"$release"-arm64-*.img   # an older image of other inputs
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
foreign_arch_ready arm64
start=$SECONDS

# The root: the image's files (fstab, network, raspi-firmware's settings, the initramfs's modules)
# before the packages, so the kernel's install runs raspi-firmware's hooks with them; the .debs;
# systemd-resolved after them (it points /etc/resolv.conf at its stub, which does not run in the
# chroot: apt could not resolve the mirror any more); then setup.sh.
components="main non-free-firmware"
debs_hooks "$debs"
mmdebstrap --quiet --variant=minbase --architectures=arm64 \
  --include=systemd,systemd-sysv,udev,kmod,dbus,systemd-timesyncd,iproute2,e2fsprogs,initramfs-tools,raspi-firmware,linux-image-arm64,cloud-guest-utils,netplan.io,wpasupplicant,iw,wireless-regdb,firmware-brcm80211 \
  --essential-hook="mkdir -p \"\$1/boot/firmware\" && cp -R $here/pi-image/root/. \"\$1/\"" \
  --dpkgopt=force-confold "${DEBS_HOOKS[@]}" \
  --customize-hook='chroot "$1" apt-get install -y --no-install-recommends systemd-resolved' \
  --customize-hook="cp $here/pi-image/setup.sh \"\$1/tmp/\" && chroot \"\$1\" sh /tmp/setup.sh && rm \"\$1/tmp/setup.sh\"" \
  "$release" "$work/root" \
  "deb $mirror/debian $release $components" "deb $mirror/debian $release-updates $components" \
  "deb $mirror/debian-security $release-security $components" \
  >"$work/mmdebstrap.log" 2>&1 || { tail -30 "$work/mmdebstrap.log" >&2; exit 1; }
echo "pi-image.sh: root made in $((SECONDS - start)) s" >&2
root=$work/root
# What mmdebstrap leaves of the build machine: its resolver and name; and the build's machine id,
# which every Pi would share (systemd-networkd's DHCP client id derives from it: one address for
# all of them). Empty, each Pi makes its own at first boot.
ln -sf ../run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id" "$root/var/lib/systemd/random-seed"
echo fleetmcp-pi >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfleetmcp-pi\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
for f in config.txt cmdline.txt start.elf start4.elf bootcode.bin; do
  [ -s "$root/boot/firmware/$f" ] || { echo "pi-image.sh: raspi-firmware left no $f in /boot/firmware" >&2; exit 1; }
done
ls "$root"/boot/firmware/vmlinuz-* "$root"/boot/firmware/initrd.img-* "$root"/boot/firmware/bcm2837-rpi-3-b.dtb \
   "$root"/boot/firmware/bcm2711-rpi-4-b.dtb >/dev/null

# Partition 1: FAT32 with /boot/firmware's files and the enrolment folder with its README.
fat_mib=512
mkfs.vfat -F 32 -n RASPIFIRM -C "$work/fat.img" $((fat_mib * 1024)) >/dev/null
mcopy -s -i "$work/fat.img" "$root"/boot/firmware/* ::/
mcopy -s -i "$work/fat.img" "$here/pi-image/boot/fleetmcp" ::/
rm -rf "${root:?}"/boot/firmware/*
# Partition 2: the root with 512 MiB free (logs, the journal), in whole 64 MiB.
root_mib=$(( ($(du -sm "$root" | cut -f1) + 512 + 63) / 64 * 64 ))
# (mke2fs says "Creating regular file" on stdout even with -q: stdout is the image path only.)
mke2fs -q -t ext4 -L RASPIROOT -d "$root" "$work/root.img" "${root_mib}M" >&2
# The MBR: FAT32 (LBA) first, where the Pi's firmware looks, from 4 MiB; the root after it.
fat_start=8192 fat_sectors=$((fat_mib * 2048)) root_sectors=$((root_mib * 2048))
root_start=$((fat_start + fat_sectors))
truncate -s $(( (root_start + root_sectors) * 512 )) "$work/image"
printf 'label: dos\nstart=%d, size=%d, type=c, bootable\nstart=%d, size=%d, type=83\n' \
  "$fat_start" "$fat_sectors" "$root_start" "$root_sectors" | sfdisk -q "$work/image"
dd if="$work/fat.img" of="$work/image" bs=1M seek=$((fat_start / 2048)) conv=notrunc,sparse status=none
dd if="$work/root.img" of="$work/image" bs=1M seek=$((root_start / 2048)) conv=notrunc,sparse status=none
mv "$work/image" "$image"
echo "pi-image.sh: $(basename "$image"): $(( (root_start + root_sectors) / 2048 )) MiB, $(du -m "$image" | cut -f1) MiB used, made in $((SECONDS - start)) s" >&2
echo "$image"
