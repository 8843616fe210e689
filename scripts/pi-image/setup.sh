#!/bin/sh
# Runs once in the Pi image's chroot (scripts/pi-image.sh), after the packages.
set -eu
# Enrolment from the boot partition; it enables fleetmcp-device once a bundle checks. The network
# (DHCP on Ethernet), its DNS, and the clock from NTP (a Pi has no real-time clock; TLS checks
# certificates' dates, the broker a manifest's: docs/protocol.md §6.1 check 4).
systemctl enable fleetmcp-enrol-boot.service systemd-networkd.service systemd-resolved.service \
  systemd-timesyncd.service
# wpasupplicant's own D-Bus service (for NetworkManager) is not used: netplan starts one
# wpa_supplicant per Wi-Fi interface it configures (docs/pi-image.md "Wi-Fi").
systemctl disable wpa_supplicant.service
# No ssh server is installed; nothing logs in with a password (root's is locked).
passwd -l root >/dev/null
