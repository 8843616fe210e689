#!/usr/bin/env bash
# The broker plugin on Debian 13 "trixie"'s mosquitto 2.0.21 (issue 38 item 3, docs/plugin.md
# "mosquitto versions"): fleetmcp_plugin.so built in the trixie root of scripts/release-build.sh
# (trixie's compiler and libraries), loaded by that root's own mosquitto, run chrooted
# (release_mosquitto), and the plugin's integration tests run against it unchanged: identity and
# ACLs, announces, calls, expiry, revocation, restarts, sessions, the MCP front.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "# needs root (mmdebstrap, chroot)"; exit 77; }
command -v mmdebstrap >/dev/null || fail "mmdebstrap missing (scripts/install-deps.sh --vm)"

start=$SECONDS
"$SRC/scripts/release-build.sh" trixie amd64 "$BIN/release-roots" >/dev/null 2>"$T/release-build.log" \
  || fail "scripts/release-build.sh trixie amd64 (see $T/release-build.log: $(tail -5 "$T/release-build.log"))"
echo "# built in the trixie root in $((SECONDS - start)) s"
root=$BIN/release-roots/trixie-amd64-root
release_mosquitto "$root" /build-amd64/broker_plugin/fleetmcp_plugin.so
assert_contains "$(mosquitto -h 2>&1 | head -1)" "mosquitto version 2.0.21" "mosquitto is trixie's 2.0.21"

for t in plugin_acl plugin_announce plugin_calls plugin_device plugin_expiry plugin_revocation plugin_restart \
         persistent_sessions session_end e2e_mcp; do
  start=$SECONDS
  out=$(bash "$SRC/tests/integration/$t.sh" 2>&1) || fail "$t against mosquitto 2.0.21: $(tail -15 <<<"$out")"
  pass "$t against mosquitto 2.0.21 and the plugin built on trixie ($(grep -c '^ok' <<<"$out") checks, $((SECONDS - start)) s)"
done
