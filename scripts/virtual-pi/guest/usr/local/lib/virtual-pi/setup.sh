#!/bin/sh
# Runs once in the image's chroot (build-image.sh): what an operator does on a fresh Pi, plus
# the virtual Pi's own units (the MQTT link and the test's command channel to the host).
set -eu
echo virtual-pi >/etc/hostname
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >/etc/fstab
passwd -d root >/dev/null
systemctl enable virtual-pi-hardware.service virtual-pi-mqtt.service virtual-pi-shell.service \
  virtual-pi-enrol.service fleetmcp-demo.service fleetmcp-device.service \
  systemd-networkd.service systemd-timesyncd.service
# The guest's network carries NTP only (etc/systemd/network/): nothing waits for it.
systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1 || true
# The journal on disk, as on Raspberry Pi OS, so it survives the power test's reboot.
mkdir -p /var/log/journal
