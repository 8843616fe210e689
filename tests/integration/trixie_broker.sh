#!/usr/bin/env bash
# The broker plugin on Debian 13 "trixie"'s mosquitto 2.0.21 (issue 38 item 3, docs/plugin.md
# "mosquitto versions"): this build's fleetmcp_plugin.so loaded by the mosquitto of a trixie root
# (mmdebstrap, minbase and mosquitto, kept in <build>/release-roots), run chrooted through
# release_mosquitto with the libraries of this build the root lacks (libre2.so.9, which trixie
# names libre2.so.11, and libsodium.so.23, which mosquitto does not pull in) beside it, and
# the plugin's integration tests run against it unchanged. The plugin compiled on trixie, loaded
# by the packaged mosquitto there: trixie_packages.sh.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "# needs root (mmdebstrap, chroot)"; exit 77; }
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing (scripts/install-deps.sh --vm)"

root=$BIN/release-roots/trixie-mosquitto-root
if [ ! -x "$root/usr/sbin/mosquitto" ]; then
  start=$SECONDS
  rm -rf "$root.tmp" && mkdir -p "$(dirname "$root")"
  mmdebstrap --quiet --variant=minbase --include=mosquitto \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    trixie "$root.tmp" http://deb.debian.org/debian >"$T/mmdebstrap.log" 2>&1 \
    || fail "mmdebstrap trixie with mosquitto (see $T/mmdebstrap.log: $(tail -5 "$T/mmdebstrap.log"))"
  mv "$root.tmp" "$root"
  echo "# trixie root with mosquitto made in $((SECONDS - start)) s"
fi
# The plugin's libraries the root lacks, from this machine.
mkdir -p "$T/libs"
for lib in $(readelf -d "$PLUGIN" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  [ -e "$root/usr/lib/x86_64-linux-gnu/$lib" ] \
    || cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')" "$T/libs/$lib"
done
release_mosquitto "$root" "" "$T/libs"
assert_contains "$(mosquitto -h 2>&1 | head -1)" "mosquitto version 2.0.21" "mosquitto is trixie's 2.0.21"

for t in plugin_module plugin_acl plugin_announce plugin_calls plugin_device plugin_expiry plugin_revocation \
         plugin_restart persistent_sessions session_end e2e_mcp; do
  start=$SECONDS
  out=$(bash "$SRC/tests/integration/$t.sh" 2>&1) || fail "$t against mosquitto 2.0.21: $(grep '^FAIL' <<<"$out"; tail -15 <<<"$out")"
  pass "$t against mosquitto 2.0.21 ($(grep -c '^ok' <<<"$out") checks, $((SECONDS - start)) s)"
done
