#!/bin/sh
# tests/integration/pi_image.sh's Wi-Fi access point, inside the QEMU guest (never in the image:
# the test copies this, hostapd.conf and Debian's arm64 hostapd .deb into fleetmcp-test/ on its own
# copy of the card, and fleetmcp-test-ap.service onto that card's root partition). The kernel's
# mac80211_hwsim gives the guest two radios. The second radio, the guest's Ethernet (QEMU's user
# network: DHCP, and the test's broker at 10.0.2.2) and a bridge between them go into the network
# namespace "ap", where hostapd (WPA2-PSK) runs: the Pi's root namespace keeps only the first
# radio, wlan0, which the image sets up from the boot partition's settings. A Wi-Fi client bridged
# to QEMU's network gets its address from QEMU's DHCP and reaches 10.0.2.2 directly.
set -eu
dir=$(dirname "$0")
say() { echo "fleetmcp-test-ap: $*" >&2; }
# The Ethernet: the interface with a device that is no radio (before the radios exist).
eth=
for n in /sys/class/net/*; do
  [ -e "$n/device" ] && [ ! -e "$n/phy80211" ] && eth=${n##*/} && break
done
[ -n "$eth" ] || { say "no Ethernet interface"; exit 1; }
modprobe mac80211_hwsim radios=2
for i in $(seq 50); do [ -e /sys/class/net/wlan1 ] && break; sleep 0.1; done
ap_phy=$(cat /sys/class/net/wlan1/phy80211/name)
ip netns add ap
iw phy "$ap_phy" set netns name ap
ip link set "$eth" netns ap
ip netns exec ap sh -c "
  ip link set lo up
  ip link add br0 type bridge
  ip link set $eth master br0
  ip link set $eth up
  ip link set br0 up"
# hostapd unpacked into a tmpfs of its own (/run is mounted noexec).
mkdir -p /run/fleetmcp-test-ap
mount -t tmpfs -o mode=0755 fleetmcp-test-ap /run/fleetmcp-test-ap
dpkg-deb -x "$dir"/hostapd_*.deb /run/fleetmcp-test-ap
# hostapd in the background of this unit (RemainAfterExit keeps it), its log on the console.
ip netns exec ap /run/fleetmcp-test-ap/usr/sbin/hostapd "$dir/hostapd.conf" &
for i in $(seq 100); do
  ip netns exec ap iw dev wlan1 info 2>/dev/null | grep -q 'type AP' && break
  sleep 0.2
done
ip netns exec ap iw dev wlan1 info | grep -q 'type AP' || { say "hostapd did not start"; exit 1; }
say "access point $(sed -n 's/^ssid=//p' "$dir/hostapd.conf") up on $ap_phy in namespace ap, bridged to Ethernet $eth; the root namespace's interfaces: $(ls /sys/class/net | paste -sd' ' -)"
