#!/usr/bin/env bash
# Boots the virtual Pi (docs/virtual-pi.md) and links its node to a broker on this host.
#   scripts/virtual-pi/run.sh IMAGE BUNDLE_TAR RUN_DIR BROKER_TLS_PORT
# IMAGE from build-image.sh (virtual-pi-ARCH-KEY.img) stays untouched (the guest writes to
# RUN_DIR/disk.qcow2 over it); the guest boots the kernel and initrd beside it (.vmlinuz, .initrd):
# amd64 on qemu-system-x86_64 (q35), arm64 on qemu-system-aarch64 (virt, a Cortex-A72 as in a
# Pi 4, always TCG).
# BUNDLE_TAR is the node's enrolment bundle (device.conf, node.key, node.crt, ca.crt), a second
# disk the guest unpacks into /etc/fleetmcp on its first boot. The guest's network (QEMU's user
# network) reaches only this host, for NTP at 10.0.2.2 (the test's chronyd on 127.0.0.1:123): its node dials 127.0.0.1:8883 in the guest, carried over the virtio-serial port vpi.mqtt to
# RUN_DIR/mqtt.sock, which socat here connects to 127.0.0.1:BROKER_TLS_PORT (a new broker
# connection for each guest connection). RUN_DIR/shell.sock is the test's command channel
# (scripts/virtual-pi/guest/usr/local/lib/virtual-pi/shell.sh); RUN_DIR/console.log the serial console.
# Runs until the guest powers off or this script is stopped. VPI_ACCEL=tcg|kvm skips the probe;
# VPI_APPEND adds kernel arguments (systemd.journald.forward_to_console=1 shows the journal);
# VPI_DISK names a file the guest gets as a third read-only disk, /dev/vdc (the self-update
# checks' apt repository, scripts/virtual-pi/update-repo.sh). VPI_RTC_BASE sets the guest's
# real-time clock (QEMU's -rtc base=, e.g. 2020-01-01).
set -euo pipefail
image=$1 bundle=$2 run=$3 broker_port=$4
kernel=${image%.img}.vmlinuz initrd=${image%.img}.initrd
arch=$(basename "$image" | cut -d- -f3)
mkdir -p "$run"
qemu-img create -q -f qcow2 -b "$(realpath "$image")" -F raw "$run/disk.qcow2"

case "$arch" in
  amd64)
    # KVM only when a probe boot with it reaches the kernel's first lines and ends by itself: on
    # some hosts a KVM guest hangs ("failed to set MSR"); TCG always works.
    accel=${VPI_ACCEL:-}
    if [ -z "$accel" ]; then
      accel=tcg
      if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -display none -no-reboot \
           -serial file:"$run/kvm-probe.log" -kernel "$kernel" \
           -append "console=ttyS0 panic=-1 rdinit=/probe-ends-here" >/dev/null 2>&1 &&
         grep -q "Kernel panic" "$run/kvm-probe.log"; then
        accel=kvm
      fi
    fi
    cpu=max; [ "$accel" = kvm ] && cpu=host
    # An Intel 6300ESB watchdog: the hardware watchdog systemd arms (the Pi's is bcm2835-wdt).
    machine=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -machine q35 -device i6300esb)
    console=ttyS0 ;;
  arm64)
    accel=tcg
    # The virt machine's own GPIO controller (a PL061, built into Debian's kernel) would take
    # gpiochip0, the number the header's chip has on a Pi: it is kept off, so gpio-sim gets it.
    machine=(qemu-system-aarch64 -accel tcg -cpu cortex-a72 -machine virt)
    console="ttyAMA0 initcall_blacklist=pl061_gpio_driver_init" ;;
  *) echo "run.sh: no architecture in the image's name: $image" >&2; exit 2 ;;
esac
echo "virtual-pi: $arch, accel $accel" >"$run/accel"

extra=()
[ -z "${VPI_DISK:-}" ] || extra=(-drive file="$VPI_DISK",if=virtio,format=raw,readonly=on)
# The guest's real-time clock, e.g. years behind as a Pi's clock is before NTP answers.
[ -z "${VPI_RTC_BASE:-}" ] || extra+=(-rtc base="$VPI_RTC_BASE")

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
trap 'exit 143' TERM INT
# The host end of the MQTT link: one broker connection per guest connection. When the guest's
# connection ends, the broker drops the stale TLS stream at the next bytes and socat starts over.
( while :; do
    [ -S "$run/mqtt.sock" ] && socat UNIX-CONNECT:"$run/mqtt.sock" TCP:127.0.0.1:"$broker_port" 2>/dev/null
    sleep 0.2
  done ) &
pids+=($!)

"${machine[@]}" -smp 2 -m 512 \
  -display none -monitor none -serial file:"$run/console.log" \
  -nic user,model=virtio-net-pci \
  -kernel "$kernel" -initrd "$initrd" \
  -append "root=/dev/vda rw console=$console quiet systemd.show_status=0 ${VPI_APPEND:-}" \
  -drive file="$run/disk.qcow2",if=virtio,format=qcow2 \
  -drive file="$bundle",if=virtio,format=raw,readonly=on "${extra[@]}" \
  -device virtio-serial-pci \
  -chardev socket,id=mqtt,path="$run/mqtt.sock",server=on,wait=off \
  -device virtserialport,chardev=mqtt,name=vpi.mqtt \
  -chardev socket,id=shell,path="$run/shell.sock",server=on,wait=off \
  -device virtserialport,chardev=shell,name=vpi.shell &
pids+=($!)
wait "${pids[-1]}"
