#!/bin/sh
# The virtual Pi's peripherals, made before fleetmcp-device starts:
#   I2C bus 1 (i2c-stub): a sensor at 0x48 with registers 0x00=0x1b, 0x01=0x2a (the rest 0). On
#   q35 the stub is bus 1 (bus 0 is the machine's SMBus); the arm64 virt machine has no I2C bus
#   of its own, so the stub is bus 0 and /dev/i2c-1 is made a link to it: the header's bus is 1
#   on a Pi, and the test's capability names bus 1 on both guests.
#   gpiochip0 (gpio-sim): 8 lines, line 2 named "relay", line 3 named "button"
set -eu
modprobe i2c-dev
modprobe i2c-stub chip_addr=0x48
bus=$(grep -l "SMBus stub" /sys/bus/i2c/devices/i2c-*/name | head -1 | xargs dirname | xargs basename)
i2cset -y "${bus#i2c-}" 0x48 0x00 0x1b
i2cset -y "${bus#i2c-}" 0x48 0x01 0x2a
[ "$bus" = i2c-1 ] || ln -sfn "$bus" /dev/i2c-1
modprobe gpio-sim
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
cfg=/sys/kernel/config/gpio-sim/pi
[ -d "$cfg" ] || {
  mkdir "$cfg" "$cfg/bank0" "$cfg/bank0/line2" "$cfg/bank0/line3"
  echo 8 >"$cfg/bank0/num_lines"
  echo relay >"$cfg/bank0/line2/name"
  echo button >"$cfg/bank0/line3/name"
  echo 1 >"$cfg/live"
}
echo "virtual-pi: $bus sensor 0x48, $(cat "$cfg/bank0/chip_name") from $(cat "$cfg/dev_name")"
