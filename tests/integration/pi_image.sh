#!/usr/bin/env bash
# The SD-card image for a Raspberry Pi (scripts/pi-image.sh, docs/pi-image.md), flashed and
# enrolled as a user would: the arm64 .debs of scripts/cross-build.sh in the image, a node bundle
# from `fleetctl pki enroll` copied into fleetmcp/ on its FAT partition (mtools, as a user's file
# manager would), and the image booted under QEMU. The guest is the `virt` machine booting the
# kernel, initrd and cmdline.txt from the image's own FAT partition, with the image as its only
# disk (docs/pi-image.md says why not `raspi3b`). Its Ethernet is QEMU's user network: DHCP from
# QEMU, and the broker on this host at 10.0.2.2, the address device.conf names (the broker's
# certificate carries it). Checks: the node announces to the broker with the plugin and answers
# MCP calls (system.info says the hostname is the node id), the bundle is gone from the FAT
# partition, the console showed the enrolment, and after power-off node.key on the root
# partition is 0640 root:fleetmcp and /etc/hostname the node id. Issue 39: the card is larger than
# the image and the root partition and file system grow to it at first boot; the Pi's clock comes
# from this host's chronyd named in fleetmcp/network.conf (the node waits for it); the image arms
# the hardware watchdog and bounds the journal.
# PI_RELEASE=trixie (integration.pi_image_trixie, issue 38): the Debian 13 image, of the arm64
# .debs that scripts/release-build.sh builds in a trixie root (<build>/release-roots), booted with
# trixie's kernel (6.12) and systemd (257); the same checks.
# Label `local`: in scripts/test.sh --all only, not in CI (on a clean clone the arm64 .debs, then
# the image, 364 s measured, would not fit CI's 35 minutes). The image is cached under the build
# directory (pi-image/); with it cached the test takes ~95 s.
. "$(dirname "$0")/lib.sh"

t0=$SECONDS
release=${PI_RELEASE:-bookworm}
"$SRC/scripts/install-deps.sh" --vm arm64 >"$T/install.log" 2>&1 || fail "install-deps --vm arm64 (see $T/install.log)"
start=$SECONDS
case "$release" in
  bookworm) debs=$(BUILD_DIR="${BIN%/}-arm64" "$SRC/scripts/cross-build.sh" arm64 2>"$T/cross.log") \
              || fail "scripts/cross-build.sh arm64 (see $T/cross.log)"
            os_version=12 kernel_series=6.1. systemd_version=252 ;;
  trixie) debs=$("$SRC/scripts/release-build.sh" trixie arm64 "$BIN/release-roots" 2>"$T/cross.log") \
              || fail "scripts/release-build.sh trixie arm64 (see $T/cross.log)"
            os_version=13 kernel_series=6.12. systemd_version=257 ;;
  *) fail "PI_RELEASE is bookworm or trixie, not '$release'" ;;
esac
debs=$(dirname "$(head -1 <<<"$debs")")
echo "# arm64 packages ($release) in $((SECONDS - start)) s"
start=$SECONDS
image=$("$SRC/scripts/pi-image.sh" --release "$release" --debs "$debs" --out "$BIN/pi-image" 2>"$T/image.log") \
  || fail "scripts/pi-image.sh --release $release (see $T/image.log)"
echo "# image ready in $((SECONDS - start)) s: $(basename "$image"), $(du -m "$image" | cut -f1) MiB used of $(($(stat -c %s "$image") / 1048576)) MiB"

# The partitions, as sfdisk reads the image's MBR: FAT first, ext4 root second.
read -r fat_start fat_type < <(sfdisk -d "$image" | awk -F'[=,]' '/^[^ ]*1 :/{print $2+0, $6}')
root_start=$(sfdisk -d "$image" | awk -F'[=,]' '/^[^ ]*2 :/{print $2+0}')
assert_eq "$fat_type" c "partition 1 is FAT32 (LBA), where the Pi's firmware looks"
fat() { echo "$T/sd.img@@$((fat_start * 512))"; }

# The user's copy of the image: an SD card, flashed; the card is 1 GiB larger than the image
# (the root grows to it at first boot).
cp --sparse=always "$image" "$T/sd.img"
truncate -s +1G "$T/sd.img"
for f in config.txt cmdline.txt bootcode.bin start.elf start4.elf bcm2837-rpi-3-b.dtb bcm2711-rpi-4-b.dtb fleetmcp/README.txt; do
  mdir -b -i "$(fat)" "::/$f" >/dev/null 2>&1 || fail "the FAT partition has no $f"
done
pass "the FAT partition has the Pi 3 and 4 firmware, device trees, config.txt, cmdline.txt and fleetmcp/README.txt"
mtype -i "$(fat)" ::/cmdline.txt >"$T/cmdline.txt"
mtype -i "$(fat)" ::/config.txt >"$T/config.txt"
assert_contains "$(cat "$T/cmdline.txt")" "root=LABEL=RASPIROOT" "cmdline.txt names the root by its label"
kernel=$(grep -o '^kernel=.*' "$T/config.txt" | cut -d= -f2) initrd=$(awk '$1 == "initramfs" {print $2}' "$T/config.txt")
assert_eq "$(grep -c -e '^arm_64bit=1' -e "^kernel=vmlinuz-" -e '^initramfs initrd.img-' "$T/config.txt")" 3 \
  "config.txt boots $kernel and $initrd in 64-bit mode"

# The broker on this host, reached from the guest at 10.0.2.2 (QEMU's user network).
"$FLEETCTL" pki init --dir "$T/pki" --san IP:10.0.2.2 >"$T/pki-init.log" 2>&1 || fail "fleetctl pki init (see $T/pki-init.log)"
PORT_TLS=$(free_port) PORT_PLAIN=$(free_port)
run_broker "$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")" broker
HTTP_PORT=$(broker_http_port broker)
base=http://127.0.0.1:$HTTP_PORT
node=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant acme --broker "mqtts://10.0.2.2:$PORT_TLS" 2>>"$T/enroll.log") \
  || fail "fleetctl pki enroll (see $T/enroll.log)"
echo 'capability.info = system.info' >>"$T/pki/nodes/$node/device.conf"
# The user copies the node's folder, nodes/<node_id>/, into fleetmcp/ on the boot partition.
mcopy -s -i "$(fat)" "$T/pki/nodes/$node" ::/fleetmcp/ || fail "mcopy the bundle onto the FAT partition"
# The Pi's NTP server (its node connects only once the clock is synchronised): this host's
# chronyd, named in fleetmcp/network.conf as a user on a LAN without Debian's pool would.
printf 'ntp = 10.0.2.2\r\n' >"$T/network.conf"
mcopy -i "$(fat)" "$T/network.conf" ::/fleetmcp/network.conf || fail "mcopy network.conf onto the FAT partition"
start_ntp_server

# Boot: the image's own kernel, initrd and cmdline.txt (its console on the virt machine's UART).
mcopy -i "$(fat)" "::/$kernel" "$T/vmlinuz"
mcopy -i "$(fat)" "::/$initrd" "$T/initrd"
cmdline="$(sed -E 's/console=[^ ]+//g' "$T/cmdline.txt" | tr -s ' ') console=ttyAMA0"
start=$SECONDS
qemu-system-aarch64 -accel tcg -machine virt -cpu cortex-a72 -smp 2 -m 1024 \
  -display none -monitor unix:"$T/monitor.sock",server=on,wait=off -serial file:"$T/console.log" \
  -kernel "$T/vmlinuz" -initrd "$T/initrd" -append "$cmdline" \
  -drive file="$T/sd.img",if=virtio,format=raw -nic user,model=virtio-net-pci >"$T/qemu.log" 2>&1 &
qemu=$!
track $qemu
serving() { [ "$(curl -s "$base/healthz" | jq -r '"\(.nodes.online) \(.serving)"')" = "1 1" ]; }
wait_until 1200 serving || { tail -40 "$T/console.log" >&2; fail "the Pi's node is not serving 1200 s after power-on"; }
echo "# booted to the node serving in $((SECONDS - start)) s"
pass "the image boots, enrols its node from the boot partition, and the node announces over Ethernet to the broker"

export MCP_URL=$base/mcp TOKEN
TOKEN=$(agent_token agent-pi acme "$E2E_SCOPES")
mcp() { node "$SRC/tests/node/mcp_call.mjs" "$@" | tee -a "$T/mcp.log"; }
assert_eq "$(mcp call "sysecho.$node.echo.invoke" '{"message":"flashed"}' | jq -r .message)" flashed "MCP: the node answers echo"
info=$(mcp call "sysinfo.$node.info.get")
assert_eq "$(jq -r .hostname <<<"$info")" "$node" "MCP system.info: the Pi's hostname is its node id"
assert_eq "$(jq -r .cpu_arch <<<"$info")" aarch64 "MCP system.info: an arm64 CPU, $(jq -r '"\(.os_name) \(.os_version), kernel \(.kernel_version)"' <<<"$info")"
assert_eq "$(jq -r .os_version <<<"$info")" "$os_version" "MCP system.info: Debian $os_version ($release)"
assert_contains "$(jq -r .kernel_version <<<"$info")" "$kernel_series" "MCP system.info: $release's kernel, $kernel_series*"
assert_eq "$(mdir -b -i "$(fat)" ::/fleetmcp/ | sed 's|.*/||' | paste -sd,)" README.txt \
  "the bundle (and network.conf, read before it) is gone from fleetmcp/ on the FAT partition (README.txt stays)"
assert_contains "$(cat "$T/console.log")" "fleetmcp-boot-settings: NTP servers from /boot/firmware/fleetmcp/network.conf: 10.0.2.2" \
  "the console showed the NTP server taken from fleetmcp/network.conf"
assert_contains "$(cat "$T/console.log")" "fleetmcp-grow-root: partition 2 of /dev/vda grown to the end of the card" \
  "the console showed the root partition grown to the card"
assert_contains "$(cat "$T/console.log")" "fleetmcp-enrol-boot: installed node $node" "the console showed the enrolment"
assert_contains "$(cat "$T/console.log")" "systemd $systemd_version." "the console showed $release's systemd $systemd_version starting"

# Power off (the power button; killed after 120 s), then the root partition as the card has it.
echo system_powerdown | socat - UNIX-CONNECT:"$T/monitor.sock" >/dev/null 2>&1 || true
wait_until 120 sh -c "! kill -0 $qemu" || { echo "# no clean power-off in 120 s: QEMU stopped"; kill "$qemu"; }
wait "$qemu" 2>/dev/null || true
root_sectors=$(sfdisk -d "$T/sd.img" | awk -F'[=,]' '/^[^ ]*2 :/{print $4+0}')
# (growpart leaves the last 33 sectors free: room for a GPT's backup header, measured 16,896 bytes.)
left=$(( $(stat -c %s "$T/sd.img") - (root_start + root_sectors) * 512 ))
assert_eq "$((left >= 0 && left < 1048576))" 1 "the root partition ends at the end of the card ($left bytes left after it)"
dd if="$T/sd.img" of="$T/root.img" bs=512 skip="$root_start" count="$root_sectors" conv=sparse status=none
e2fsck -fy "$T/root.img" >"$T/e2fsck.log" 2>&1 || [ $? -le 1 ] || fail "the root partition does not check (see $T/e2fsck.log)"
gid=$(debugfs -R 'cat /etc/group' "$T/root.img" 2>/dev/null | awk -F: '$1 == "fleetmcp" {print $3}')
key=$(debugfs -R 'stat /etc/fleetmcp/node.key' "$T/root.img" 2>/dev/null | grep -o 'Mode: *[0-7]*\|User: *[0-9]*\|Group: *[0-9]*' | tr -s ' ' | paste -sd' ')
assert_eq "$key" "Mode: 0640 User: 0 Group: $gid" "/etc/fleetmcp/node.key is 0640 root:fleetmcp (gid $gid)"
assert_eq "$(debugfs -R 'cat /etc/hostname' "$T/root.img" 2>/dev/null)" "$node" "/etc/hostname is the node id"
fs_bytes=$(dumpe2fs -h "$T/root.img" 2>/dev/null | awk -F: '/^Block count/{c=$2} /^Block size/{b=$2} END {printf "%.0f", c * b}')
assert_eq "$((root_sectors * 512 - fs_bytes < 4 * 1048576))" 1 "the root file system fills its grown partition ($((fs_bytes / 1048576)) MiB)"
assert_contains "$(debugfs -R 'cat /etc/systemd/system.conf.d/50-fleetmcp-watchdog.conf' "$T/root.img" 2>/dev/null)" "RuntimeWatchdogSec=15s" \
  "systemd arms the hardware watchdog (RuntimeWatchdogSec=15s)"
assert_contains "$(debugfs -R 'cat /etc/systemd/journald.conf.d/50-fleetmcp.conf' "$T/root.img" 2>/dev/null)" "SystemMaxUse=48M" \
  "the journal is bounded to 48 MiB of the card"
debugfs -R 'ls /var/log/journal' "$T/root.img" 2>/dev/null | grep -q '[0-9a-f]\{32\}' || fail "no persistent journal in /var/log/journal"
pass "the journal was kept on the card (/var/log/journal/<machine-id>)"
assert_eq "$(debugfs -R 'cat /etc/fleetmcp/device.conf' "$T/root.img" 2>/dev/null | grep -c "^node_id = $node")" 1 \
  "/etc/fleetmcp/device.conf is the bundle's"
echo "# pi_image took $((SECONDS - t0)) s"
