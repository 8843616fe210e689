#!/usr/bin/env bash
# The local apt repository of the virtual Pi's self-update checks (docs/virtual-pi.md): from the
# fleetmcp-device and fleetmcp-schemas .debs of one build, without building anything again,
#   OUT/stable  the build's version V (x.y.z, or x.y.z+debNN), and V with its patch number + 1 (same files, only the
#               version differs: the control file, fleetmcp-schemas' pin, share/fleetmcp-device/version)
#   OUT/beta    V with its patch number + 2, whose preinst exits 1: a broken package
# each a flat repository indexed by dpkg-scanpackages (dpkg-dev), and OUT.tar holding both, the
# disk the guest reads them from.
#   scripts/virtual-pi/update-repo.sh DEBS_DIR OUT        prints "V NEXT BROKEN"
set -euo pipefail
debs=$1 out=$2
device=$(ls "$debs"/fleetmcp-device_*.deb) schemas=$(ls "$debs"/fleetmcp-schemas_*.deb)
version=$(dpkg-deb -f "$device" Version)
# A release suffix (+deb13: scripts/release-build.sh) stays on each version.
suffix=${version#"${version%%+*}"}
IFS=. read -r major minor patch <<<"${version%%+*}"
next=$major.$minor.$((patch + 1))$suffix broken=$major.$minor.$((patch + 2))$suffix
rm -rf "$out" && mkdir -p "$out/stable" "$out/beta"
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

# repack DEB VERSION DIR [preinst]: the same package at another version.
repack() {
  local tree=$work/tree
  rm -rf "$tree" && dpkg-deb -R "$1" "$tree"
  sed -i -e "s/^Version: .*/Version: $2/" -e "s/fleetmcp-schemas (= [^)]*)/fleetmcp-schemas (= $2)/" "$tree/DEBIAN/control"
  [ ! -f "$tree/usr/share/fleetmcp-device/version" ] || echo "$2" >"$tree/usr/share/fleetmcp-device/version"
  if [ -n "${4:-}" ]; then printf '#!/bin/sh\n%s\n' "$4" >"$tree/DEBIAN/preinst" && chmod 0755 "$tree/DEBIAN/preinst"; fi
  # The md5sums list the files: the version file changed.
  (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  dpkg-deb -Zgzip -z1 --root-owner-group -b "$tree" "$3/" >/dev/null
}
cp "$device" "$schemas" "$out/stable/"
repack "$device" "$next" "$out/stable"
repack "$schemas" "$next" "$out/stable"
repack "$device" "$broken" "$out/beta" 'echo "fleetmcp-device: this package is broken on purpose (virtual Pi test)" >&2; exit 1'
repack "$schemas" "$broken" "$out/beta"
for channel in stable beta; do
  (cd "$out/$channel" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)
done
tar -cf "$out.tar" -C "$out" stable beta
echo "$version $next $broken"
