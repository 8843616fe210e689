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
# the hardware watchdog and bounds the journal. The node reaches the broker over Wi-Fi only: the
# guest's kernel (the image's own) simulates two radios (mac80211_hwsim); an access point
# (hostapd, WPA2-PSK) on one of them, in a network namespace with the guest's Ethernet bridged to
# it, is the test's (tests/programs/pi-image-ap/, added to the test's copy of the card, never in
# the image), and the image sets up the other from the boot partition. First boot: a wrong
# passphrase in fleetmcp/network.conf is reported on the console and the enrolment waits; second
# boot: Raspberry Pi Imager's network-config with the right key, and the node enrols and answers.
# Both boots start with the guest's clock years behind (QEMU's -rtc base=): the first shows the
# wait for NTP, the second the node connecting by itself once NTP answered; then a node stopped
# with SIGSTOP is restarted by systemd's watchdog and answers again (commands in the guest through
# the virtual Pi's command channel, on the test's copy of the card only).
# PI_RELEASE=trixie (integration.pi_image_trixie, issue 38): the Debian 13 image, of the arm64
# .debs that scripts/release-build.sh builds in a trixie root (<build>/release-roots), booted with
# trixie's kernel (6.12) and systemd (257); the same checks.
# Label `local`: in scripts/test.sh --all only, not in CI (on a clean clone the arm64 .debs, then
# the image, 364 s measured, would not fit CI's 35 minutes). The image is cached under the build
# directory (pi-image/), and the test's hostapd .deb beside it (test-debs/); with them cached the
# test took 617 s (two boots); with the clock and watchdog checks 519 s and 535 s.
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
# The Wi-Fi, first with a wrong passphrase (the lines a user adds to network.conf).
ssid='fleetmcp test AP' passphrase='right horse battery staple'
printf 'ntp = 10.0.2.2\r\nwifi_ssid = %s\r\nwifi_passphrase = wrong horse battery staple\r\nwifi_country = de\r\n' "$ssid" >"$T/network.conf"
mcopy -i "$(fat)" "$T/network.conf" ::/fleetmcp/network.conf || fail "mcopy network.conf onto the FAT partition"
start_ntp_server

# The test's access point, on this copy of the card only: ap.sh, its hostapd.conf and Debian's
# arm64 hostapd (its libraries are the image's wpasupplicant's) in fleetmcp-test/ on the FAT
# partition, and the unit that runs ap.sh written onto the root partition (debugfs).
ap_debs=$BIN/pi-image/test-debs
if ! ls "$ap_debs"/hostapd_*_arm64.deb >/dev/null 2>&1; then
  mkdir -p "$ap_debs"
  (cd "$ap_debs" && apt-get download hostapd:arm64) >"$T/apt.log" 2>&1 \
    || (apt-get update && cd "$ap_debs" && apt-get download hostapd:arm64) >>"$T/apt.log" 2>&1 \
    || fail "apt-get download hostapd:arm64 (see $T/apt.log)"
fi
printf 'interface=wlan1\nbridge=br0\ndriver=nl80211\nssid=%s\nhw_mode=g\nchannel=6\nwpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_passphrase=%s\n' \
  "$ssid" "$passphrase" >"$T/hostapd.conf"
mmd -i "$(fat)" ::/fleetmcp-test
mcopy -i "$(fat)" "$SRC/tests/programs/pi-image-ap/ap.sh" "$T/hostapd.conf" "$ap_debs"/hostapd_*_arm64.deb ::/fleetmcp-test/ \
  || fail "mcopy the test's access point onto the FAT partition"
rootfs="$T/sd.img?offset=$((root_start * 512))"
unit=fleetmcp-test-ap.service
debugfs -w -R "write $SRC/tests/programs/pi-image-ap/$unit /etc/systemd/system/$unit" "$rootfs" >"$T/debugfs.log" 2>&1
debugfs -w -R "symlink /etc/systemd/system/multi-user.target.wants/$unit /etc/systemd/system/$unit" "$rootfs" >>"$T/debugfs.log" 2>&1
[ "$(debugfs -R "stat /etc/systemd/system/multi-user.target.wants/$unit" "$rootfs" 2>/dev/null | grep -c 'Type: symlink')" = 1 ] \
  || fail "the test's access point unit is not on the card's root partition (see $T/debugfs.log)"
# The test's command channel into the guest, on this copy of the card only: the virtual Pi's
# (scripts/virtual-pi/guest/: a root shell on the virtio-serial port vpi.shell, which power_on
# adds), written onto the root partition the same way.
vpi=$SRC/scripts/virtual-pi/guest
debugfs -w -R "mkdir /usr/local/lib/virtual-pi" "$rootfs" >>"$T/debugfs.log" 2>&1
for f in /usr/local/lib/virtual-pi/shell.sh /usr/local/lib/virtual-pi/vport /etc/systemd/system/virtual-pi-shell.service; do
  debugfs -w -R "write $vpi$f $f" "$rootfs" >>"$T/debugfs.log" 2>&1
done
debugfs -w -R "symlink /etc/systemd/system/multi-user.target.wants/virtual-pi-shell.service /etc/systemd/system/virtual-pi-shell.service" "$rootfs" >>"$T/debugfs.log" 2>&1
[ "$(debugfs -R "stat /usr/local/lib/virtual-pi/shell.sh" "$rootfs" 2>/dev/null | grep -o 'Mode: *[0-7]*' | tr -s ' ')" = "Mode: 0755" ] \
  || fail "the test's command channel is not on the card's root partition (see $T/debugfs.log)"

# Boot: the image's own kernel, initrd and cmdline.txt (its console on the virt machine's UART).
mcopy -i "$(fat)" "::/$kernel" "$T/vmlinuz"
mcopy -i "$(fat)" "::/$initrd" "$T/initrd"
cmdline="$(sed -E 's/console=[^ ]+//g' "$T/cmdline.txt" | tr -s ' ') console=ttyAMA0"
# power_on CONSOLE_LOG: the Pi boots from the card (qemu=its pid), its real-time clock years
# behind (a Pi has none: it boots in the past until NTP answers); power_off: the power button
# (killed after 120 s).
power_on() {
  rm -f "$T/shell.sock"
  qemu-system-aarch64 -accel tcg -machine virt -cpu cortex-a72 -smp 2 -m 1024 -rtc base=2020-01-01T00:00:00 \
    -display none -monitor unix:"$T/monitor.sock",server=on,wait=off -serial file:"$1" \
    -kernel "$T/vmlinuz" -initrd "$T/initrd" -append "$cmdline" \
    -drive file="$T/sd.img",if=virtio,format=raw -nic user,model=virtio-net-pci \
    -device virtio-serial-pci -chardev socket,id=shell,path="$T/shell.sock",server=on,wait=off \
    -device virtserialport,chardev=shell,name=vpi.shell >>"$T/qemu.log" 2>&1 &
  qemu=$!
  track $qemu
  # The test's end of the command channel, connected from power-on: a guest end that opens the
  # port while nobody listens reads end-of-file, and its unit restarts until systemd gives up.
  wait_until 30 test -S "$T/shell.sock" || fail "QEMU made no command channel socket"
  coproc VPI { exec socat - UNIX-CONNECT:"$T/shell.sock"; }
}
power_off() {
  echo system_powerdown | socat - UNIX-CONNECT:"$T/monitor.sock" >/dev/null 2>&1 || true
  wait_until 120 sh -c "! kill -0 $qemu" || { echo "# no clean power-off in 120 s: QEMU stopped"; kill "$qemu"; }
  wait "$qemu" 2>/dev/null || true
  [ -z "${VPI_PID:-}" ] || wait "$VPI_PID" 2>/dev/null || true
}
# The command channel (as in virtual_pi.sh): guest COMMAND prints its output, returns its status;
# a random id per command, so a late answer to an earlier one is never taken for this one's.
guest_try() {
  local id=$RANDOM$RANDOM line
  printf '%s %s\n' "$id" "$*" >&"${VPI[1]}"
  while IFS= read -r -t "${GUEST_WAIT:-60}" line <&"${VPI[0]}"; do
    if [[ $line == "__VPI_END $id "* ]]; then return "${line##* }"; fi
    [[ $line == __VPI_END* ]] || printf '%s\n' "$line"
  done
  return 255
}
guest() { guest_try "$@"; local rc=$?; [ $rc != 255 ] || fail "no answer from the guest to: $*"; return $rc; }
shell_up() { GUEST_WAIT=5 guest_try true; }
serving() { [ "$(curl -s "$base/healthz" | jq -r '"\(.nodes.online) \(.serving)"')" = "1 1" ]; }

# First boot: the access point refuses the passphrase of network.conf.
start=$SECONDS
power_on "$T/console-1.log"
wrong="fleetmcp-wifi: the passphrase for \"$ssid\" is wrong (wlan0: the access point refused it). Fix:"
wait_until 1200 grep -qF "$wrong" "$T/console-1.log" \
  || { tail -40 "$T/console-1.log" >&2; fail "no wrong-passphrase report 1200 s after power-on"; }
echo "# wrong passphrase reported $((SECONDS - start)) s after power-on"
pass "a wrong Wi-Fi passphrase is reported on the console: $(grep -oF "$wrong" "$T/console-1.log" | head -1) ..."
assert_contains "$(cat "$T/console-1.log")" "fleetmcp-test-ap: access point $ssid up on phy1 in namespace ap" \
  "the test's access point is up, with the guest's Ethernet in its namespace"
ap=$(grep -o 'fleetmcp-test-ap: access point .*' "$T/console-1.log" | head -1 | tr -d '\r')
eth=$(sed 's/.*bridged to Ethernet \([^;]*\);.*/\1/' <<<"$ap") own=$(sed 's/.*interfaces: //' <<<"$ap")
[[ " $own " == *" wlan0 "* && " $own " != *" $eth "* ]] || fail "the Pi's root namespace should have wlan0 and not $eth: [$ap]"
pass "the Pi's only way out is its Wi-Fi: its root namespace has $own, not the Ethernet $eth"
assert_contains "$(cat "$T/console-1.log")" "fleetmcp-boot-settings: network settings from /boot/firmware/fleetmcp/network.conf installed in /etc/netplan/50-fleetmcp-boot.yaml (Wi-Fi: $ssid)" \
  "network.conf's wifi_ lines were installed for netplan"
sleep 20   # nothing else breaks meanwhile: the enrolment waits for the clock (NTP), refusing nothing
serving && fail "a node is online though the Pi has no network"
assert_contains "$(cat "$T/console-1.log")" "the clock is not synchronised yet" "the enrolment waits for the clock, over a network it does not have yet"
grep -q "nothing was installed" "$T/console-1.log" && fail "the enrolment refused the bundle: $(grep -m1 fleetmcp-enrol-boot "$T/console-1.log")"
# The clock the Pi booted with: QEMU's real-time clock says 2020, systemd moves it up to its own
# build date at most; still before the node certificate's notBefore, so TLS would refuse it.
wait_until 120 shell_up || fail "no command channel into the guest"
guest_clock=$(guest 'date -u +%s') not_before=$(date -u -d "$(openssl x509 -in "$T/pki/nodes/$node/node.crt" -noout -startdate | cut -d= -f2)" +%s)
assert_eq "$((guest_clock < not_before))" 1 \
  "the Pi's clock ($(date -u -d "@$guest_clock" +%FT%TZ)) is before the node certificate's notBefore ($(date -u -d "@$not_before" +%FT%TZ))"
assert_eq "$(guest 'timedatectl show -p NTPSynchronized --value')" no "timedatectl: the clock is not synchronised"
power_off
assert_eq "$(mtype -i "$(fat)" ::/fleetmcp/network.conf | tr -d '\r')" "ntp = 10.0.2.2" \
  "the passphrase is gone from network.conf on the FAT partition (its wifi_ lines deleted, ntp kept)"
mdir -b -i "$(fat)" ::/fleetmcp/ | grep -q "/$node/\?$" || fail "the bundle left fleetmcp/ though the node could not enrol"
pass "the bundle waits on the card for the next boot"

# Second boot: the user writes the right key as Raspberry Pi Imager does (network-config beside
# config.txt: netplan YAML, the PSK as 64 hex digits of PBKDF2(passphrase, SSID)).
psk=$(openssl kdf -keylen 32 -kdfopt digest:SHA1 -kdfopt "pass:$passphrase" -kdfopt "salt:$ssid" -kdfopt iter:4096 PBKDF2 | tr -d ':\n' | tr A-F a-f)
printf 'network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: true\n      dhcp6: true\n      optional: true\n  wifis:\n    wlan0:\n      dhcp4: true\n      regulatory-domain: "DE"\n      access-points:\n        "%s":\n          password: "%s"\n      optional: true\n' \
  "$ssid" "$psk" >"$T/network-config"
mcopy -i "$(fat)" "$T/network-config" ::/network-config || fail "mcopy network-config onto the FAT partition"
start=$SECONDS
power_on "$T/console.log"
wait_until 1200 serving || { tail -40 "$T/console.log" >&2; fail "the Pi's node is not serving 1200 s after the second power-on"; }
echo "# booted to the node serving in $((SECONDS - start)) s"
pass "the image boots, enrols its node from the boot partition, and the node announces over Wi-Fi to the broker"
wait_until 120 shell_up || fail "no command channel into the guest"
# This boot too began with the clock behind (the time saved at the first boot's power-off).
booted_at=$(guest 'journalctl -b -o short-unix --no-pager | head -1 | cut -d. -f1')
assert_eq "$((booted_at < not_before))" 1 \
  "the second boot began with the clock at $(date -u -d "@$booted_at" +%FT%TZ), before the certificate's notBefore"
# timesyncd's first synchronisation, then the node's connection, with no restart between them.
# Between them: the enrolment, and the node's unit waits for network-online.target, which in this
# guest comes only at systemd-networkd-wait-online's 120 s timeout (measured 147 s in all).
read_clock_to_connection
echo "# clock: the node connected $clock_s s after timesyncd's first synchronisation (enrolment included)"
assert_eq "$(awk -v d="$clock_s" 'BEGIN { print (d >= 0 && d <= 300) ? "yes" : "no" }')" yes \
  "the Pi enrolled and its node connected by itself within 300 s of NTP answering ($clock_s s)"
assert_eq "$(guest 'systemctl show -p NRestarts --value fleetmcp-device.service')" 0 "… without the node being restarted"

export MCP_URL=$base/mcp TOKEN
TOKEN=$(agent_token agent-pi acme "$E2E_SCOPES")
mcp() { node "$SRC/tests/node/mcp_call.mjs" "$@" | tee -a "$T/mcp.log"; }
assert_eq "$(mcp call "sysecho.$node.echo.invoke" '{"message":"flashed"}' | jq -r .message)" flashed "MCP: the node answers echo"
info=$(mcp call "sysinfo.$node.info.get")
assert_eq "$(jq -r .hostname <<<"$info")" "$node" "MCP system.info: the Pi's hostname is its node id"
assert_eq "$(jq -r .cpu_arch <<<"$info")" aarch64 "MCP system.info: an arm64 CPU, $(jq -r '"\(.os_name) \(.os_version), kernel \(.kernel_version)"' <<<"$info")"
assert_eq "$(jq -r .os_version <<<"$info")" "$os_version" "MCP system.info: Debian $os_version ($release)"
assert_contains "$(jq -r .kernel_version <<<"$info")" "$kernel_series" "MCP system.info: $release's kernel, $kernel_series*"

# A hung node (issue 39, docs/pi-image.md "Recovery"): a stopped event loop (SIGSTOP) misses its
# WATCHDOG=1 pings; systemd aborts it after WatchdogSec and starts it again (Restart=on-failure),
# and the new process answers a call.
assert_eq "$(guest 'systemctl show -p Type,WatchdogUSec --value fleetmcp-device.service | paste -sd,')" notify,30s \
  "fleetmcp-device.service is Type=notify with WatchdogSec=30s"
assert_eq "$(guest 'systemctl show -p RuntimeWatchdogUSec --value')" 15s "systemd's RuntimeWatchdogSec is the image's 15 s"
hang_node_until_watchdog_restarts 120
answers() { [ "$(mcp call "sysinfo.$node.info.get" | jq -r .hostname)" = "$node" ]; }
wait_until 300 answers || fail "the restarted node never answered system.info"
echo "# watchdog: the restarted node answered a call $((SECONDS - stopped)) s after SIGSTOP"
pass "a hung node (SIGSTOP) is restarted by systemd's watchdog and answers again"
assert_eq "$(mdir -b -i "$(fat)" ::/fleetmcp/ | sed 's|.*/||' | paste -sd,)" README.txt \
  "the bundle (and network.conf, read before it) is gone from fleetmcp/ on the FAT partition (README.txt stays)"
assert_contains "$(cat "$T/console-1.log")" "fleetmcp-boot-settings: NTP servers from /boot/firmware/fleetmcp/network.conf: 10.0.2.2" \
  "the console showed the NTP server taken from fleetmcp/network.conf"
assert_contains "$(cat "$T/console-1.log")" "fleetmcp-grow-root: partition 2 of /dev/vda grown to the end of the card" \
  "the console showed the root partition grown to the card"
assert_contains "$(cat "$T/console.log")" "fleetmcp-boot-settings: network settings from /boot/firmware/network-config installed in /etc/netplan/50-fleetmcp-boot.yaml (Wi-Fi: $ssid)" \
  "the console showed network-config installed for netplan"
assert_contains "$(cat "$T/console.log")" "fleetmcp-wifi: wlan0 is on \"$ssid\", address 10.0.2." "the console showed the Wi-Fi up, with an address of QEMU's DHCP"
assert_contains "$(cat "$T/console.log")" "fleetmcp-enrol-boot: installed node $node" "the console showed the enrolment"
assert_contains "$(cat "$T/console.log")" "systemd $systemd_version." "the console showed $release's systemd $systemd_version starting"
mdir -b -i "$(fat)" ::/network-config >/dev/null 2>&1 && fail "network-config (the Wi-Fi key) is still on the FAT partition"
pass "network-config (the Wi-Fi key) is gone from the FAT partition"

# Power off, then the root partition as the card has it.
power_off
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
wifi=$(debugfs -R 'stat /etc/netplan/50-fleetmcp-boot.yaml' "$T/root.img" 2>/dev/null | grep -o 'Mode: *[0-7]*\|User: *[0-9]*\|Group: *[0-9]*' | tr -s ' ' | paste -sd' ')
assert_eq "$wifi" "Mode: 0600 User: 0 Group: 0" "the Wi-Fi settings are on the root partition, readable by root only"
assert_contains "$(debugfs -R 'cat /etc/netplan/50-fleetmcp-boot.yaml' "$T/root.img" 2>/dev/null)" "password: \"$psk\"" \
  "/etc/netplan/50-fleetmcp-boot.yaml holds network-config's key"
echo "# pi_image took $((SECONDS - t0)) s"
