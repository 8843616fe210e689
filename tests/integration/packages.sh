#!/usr/bin/env bash
# The .deb packages (cmake/Packaging.cmake): built with cpack from a /usr-prefixed build of the
# same sources (the CTest build itself when it is prefixed /usr), inspected with dpkg-deb --info/--contents, unpacked into a scratch root, and the
# unpacked programs run. The maintainer scripts are checked statically: the device postinst
# must not start or enable anything when the node is unconfigured.
. "$(dirname "$0")/lib.sh"

command -v cpack >/dev/null || fail "cpack missing (cmake package)"
command -v dpkg-deb >/dev/null || fail "dpkg-deb missing"

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BIN/CMakeCache.txt" 2>/dev/null; }
start=$SECONDS
if [ "$(cache_value CMAKE_INSTALL_PREFIX)" = /usr ]; then
  # The CTest build is already prefixed /usr (the programs look for /usr/share/fleetmcp/schemas):
  # package it as it is.
  pkgs=$T/packages
  (cd "$BIN" && cpack -G DEB -B "$pkgs") >"$T/cpack.log" 2>&1 || fail "cpack (see $T/cpack.log)"
  echo "# packaged the CTest build in $((SECONDS - start)) s"
else
  # Otherwise a /usr-prefixed build of the same sources, kept next to the CTest build dir so the
  # next run is incremental (and, at the same depth under the same parent, a ccache with
  # CCACHE_BASEDIR covering both reuses the objects; only fleetmcp_common differs). A cold one
  # takes minutes: configure CI with -DCMAKE_INSTALL_PREFIX=/usr to take the branch above.
  deb_build=${BIN%/}-deb
  launcher=$(cache_value CMAKE_CXX_COMPILER_LAUNCHER)
  [ -n "$launcher" ] || launcher=${CMAKE_CXX_COMPILER_LAUNCHER:-}
  [ -z "$launcher" ] && command -v ccache >/dev/null && launcher=ccache
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$BIN")}
  cmake -S "$SRC" -B "$deb_build" -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=Release \
    -DFLEETMCP_BUILD_TESTS=OFF -DFLEETMCP_BUILD_BENCH=OFF \
    -DFLEETMCP_WERROR="$(cache_value FLEETMCP_WERROR || echo OFF)" \
    ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher -DCMAKE_C_COMPILER_LAUNCHER=$launcher} \
    >"$T/configure.log" 2>&1 || fail "configure (see $T/configure.log)"
  cmake --build "$deb_build" -j"$(nproc)" --target fleetctl fleetmcp-device fleetmcp_plugin \
    >"$T/build.log" 2>&1 || fail "build (see $T/build.log)"
  pkgs=$T/packages
  (cd "$deb_build" && cpack -G DEB -B "$pkgs") >"$T/cpack.log" 2>&1 || fail "cpack (see $T/cpack.log)"
  echo "# configured, built ($deb_build) and packaged in $((SECONDS - start)) s"
fi
deb() { ls "$pkgs"/"$1"_*.deb 2>/dev/null | head -1; }
for p in fleetmcp-device fleetmcp-camera fleetmcp-broker fleetmcp-schemas; do [ -n "$(deb $p)" ] || fail "no $p .deb in $pkgs ($(ls "$pkgs"))"; done
pass "four packages: fleetmcp-device, fleetmcp-camera, fleetmcp-broker, fleetmcp-schemas"

field() { dpkg-deb -f "$(deb "$1")" "$2"; }
assert_eq "$(field fleetmcp-device Package)" fleetmcp-device "device package name"
assert_contains "$(field fleetmcp-device Depends)" "fleetmcp-schemas" "device depends on the schema bundle"
assert_contains "$(field fleetmcp-device Depends)" "libpaho-mqtt" "device depends on Paho (shlibdeps)"
assert_contains "$(field fleetmcp-device Depends)" "adduser" "device depends on adduser (postinst)"
assert_contains "$(field fleetmcp-broker Depends)" "mosquitto (>= 2.0.11)" "broker depends on mosquitto 2.0"
assert_contains "$(field fleetmcp-broker Depends)" "fleetmcp-schemas" "broker depends on the schema bundle"
assert_eq "$(field fleetmcp-schemas Architecture)" all "schemas are architecture independent"
assert_eq "$(field fleetmcp-device Architecture)" "$(dpkg --print-architecture)" "device package is for this architecture"
# Every dependency on a list: a new library cannot slip into a package unseen.
deb_depends_only "$(deb fleetmcp-device)" "$NODE_DEB_DEPENDS"
deb_depends_only "$(deb fleetmcp-camera)" "$NODE_DEB_DEPENDS fleetmcp-device libcamera0.0.3"
deb_depends_only "$(deb fleetmcp-broker)" "mosquitto libmosquitto1 fleetmcp-schemas libc6 libgcc-s1 libstdc++6 libssl3 libsodium23 libre2-9 libcurl4
libpaho-mqtt1.3 libpaho-mqttpp3-1"
info=$(dpkg-deb --info "$(deb fleetmcp-device)")
for f in postinst prerm postrm conffiles; do assert_contains "$info" " $f" "device control has $f"; done

contents() { dpkg-deb --contents "$(deb "$1")" | awk '{print $NF}' | sed 's|^\./|/|'; }
has() { contents "$1" | grep -x -- "$2" >/dev/null || fail "$1 lacks $2"; pass "$1 has $2"; }
has fleetmcp-device /usr/bin/fleetmcp-device
has fleetmcp-camera /usr/bin/fleetmcp-camera-still
has fleetmcp-device /usr/lib/systemd/system/fleetmcp-device.service
has fleetmcp-device /etc/fleetmcp/device.conf.example
has fleetmcp-device /usr/lib/udev/rules.d/60-fleetmcp-device.rules
# The self-update (docs/device-client.md, "Self-update"): its unit, script, polkit rule, version.
has fleetmcp-device /usr/lib/systemd/system/fleetmcp-update.service
has fleetmcp-device /usr/libexec/fleetmcp/fleetmcp-update
has fleetmcp-device /usr/share/polkit-1/rules.d/60-fleetmcp-update.rules
# check_for_updates (docs/protocol.md D45): the daily read of the channels.
has fleetmcp-device /usr/lib/systemd/system/fleetmcp-update-check.service
has fleetmcp-device /usr/lib/systemd/system/fleetmcp-update-check.timer
has fleetmcp-device /usr/share/fleetmcp-device/version
has fleetmcp-device /usr/lib/systemd/system/fleetmcp-enrol-boot.service
has fleetmcp-device /usr/libexec/fleetmcp/fleetmcp-enrol-boot
has fleetmcp-broker /usr/lib/fleetmcp/fleetmcp_plugin.so
has fleetmcp-broker /usr/bin/fleetctl
has fleetmcp-broker /usr/share/fleetmcp/acl/fleetmcp.acl
has fleetmcp-broker /usr/share/fleetmcp/acl/README.md
has fleetmcp-broker /etc/fleetmcp/mosquitto.conf
has fleetmcp-broker /usr/lib/systemd/system/fleetmcp-broker.service
has fleetmcp-schemas /usr/share/fleetmcp/schemas/index.json
has fleetmcp-schemas /usr/share/fleetmcp/schemas/kinds.json
# No file is in two packages (dpkg would refuse to install both on one machine).
dups=$(for p in fleetmcp-device fleetmcp-camera fleetmcp-broker fleetmcp-schemas; do contents $p | grep -v '/$'; done | sort | uniq -d)
assert_eq "$dups" "" "no file shipped by two packages"
if contents fleetmcp-broker | grep -E '\.(key|pem)$|revoked\.txt' >/dev/null; then fail "a key or PKI file is packaged"; fi
pass "no keys or PKI files in the packages"

# ---- unpacked into a scratch root ------------------------------------------------------------
root=$T/root
for p in fleetmcp-device fleetmcp-broker fleetmcp-schemas; do dpkg-deb -x "$(deb $p)" "$root"; done
unit=$root/usr/lib/systemd/system/fleetmcp-device.service
assert_contains "$(grep '^ExecStart=' "$unit")" "ExecStart=/usr/bin/fleetmcp-device --config /etc/fleetmcp/device.conf" "unit runs /usr/bin/fleetmcp-device"
assert_contains "$(grep '^SupplementaryGroups=' "$unit")" "gpio i2c video systemd-journal" "unit has the gpio/i2c/video/systemd-journal groups"
assert_eq "$(grep '^User=' "$unit")" "User=fleetmcp" "unit runs as fleetmcp"
assert_eq "$(grep '^StateDirectory=' "$unit")" "StateDirectory=fleetmcp" "unit may write /var/lib/fleetmcp (the self-update's state)"
assert_eq "$(grep '^ExecStart=' "$root/usr/lib/systemd/system/fleetmcp-update.service")" \
  "ExecStart=/usr/libexec/fleetmcp/fleetmcp-update" "the update unit runs the packaged script"
assert_eq "$(grep '^ExecStart=' "$root/usr/lib/systemd/system/fleetmcp-update-check.service")" \
  "ExecStart=/usr/libexec/fleetmcp/fleetmcp-update --check" "the check unit runs the packaged script with --check"
sh -n "$root/usr/libexec/fleetmcp/fleetmcp-update" || fail "the update script does not parse"
assert_eq "$(cat "$root/usr/share/fleetmcp-device/version")" "$(dpkg-deb -f "$(deb fleetmcp-device)" Version)" \
  "share/fleetmcp-device/version is the package's version"
assert_eq "$(grep '^ExecStart=' "$root/usr/lib/systemd/system/fleetmcp-broker.service")" \
  "ExecStart=/usr/sbin/mosquitto -c /etc/fleetmcp/mosquitto.conf" "broker unit runs the packaged config"
cmp -s "$root/etc/fleetmcp/mosquitto.conf" "$SRC/mosquitto.conf" || fail "packaged mosquitto.conf differs from the repository's"
pass "packaged mosquitto.conf is the top-level one"
grep -qx "plugin /usr/lib/fleetmcp/fleetmcp_plugin.so" "$root/etc/fleetmcp/mosquitto.conf" || fail "config names another plugin path"
grep -qx "plugin_opt_acl_file /usr/share/fleetmcp/acl/fleetmcp.acl" "$root/etc/fleetmcp/mosquitto.conf" || fail "config names another policy path"
grep -qx "plugin_opt_schemas_dir /usr/share/fleetmcp/schemas" "$root/etc/fleetmcp/mosquitto.conf" || fail "config names another schemas path"
pass "the packaged config names the packaged plugin, policy and schemas"

# The update script's refusals, before apt: what it takes from the node's request, and what the
# node plants in its own directory (/var/lib/fleetmcp, "state" here), the one root reads the
# request from: root writes nothing there and follows no link of it; its state is in its own
# directory ("work" here) (docs/threat-model.md).
upd=$T/update && mkdir -p "$upd/state" "$upd/channels" "$upd/victim-dir" && echo untouched >"$upd/victim"
run_update() {  # REQUEST (printf %b text), or "" to leave update-request as planted
  [ -z "$1" ] || { rm -rf "$upd/state/update-request"; printf '%b' "$1" >"$upd/state/update-request"; }
  rm -f "$upd/work/update-state"
  # Bounded in time and memory: a request read without bounds (a link to /dev/zero) would hang or
  # grow past the limit, and fail here.
  (ulimit -v 262144; FLEETMCP_STATE_DIR=$upd/state FLEETMCP_CHANNELS_DIR=$upd/channels FLEETMCP_UPDATE_WORK=$upd/work \
    timeout 20 sh "$root/usr/libexec/fleetmcp/fleetmcp-update" 2>"$upd/stderr") && fail "the update script accepted: $1"
  sed -n 's/^reason=//p' "$upd/work/update-state"
}
assert_eq "$(run_update 'channel=stable\ntarget_version=\n')" failed_precondition "update script: a channel without a source"
assert_eq "$(run_update 'channel=../../etc/x\ntarget_version=\n')" invalid_argument "update script: a channel that is not stable or beta"
assert_eq "$(run_update 'channel=beta\ntarget_version=1.2.3; reboot\n')" invalid_argument "update script: a target_version that is not x.y.z"
assert_eq "$(run_update "channel=stable\\ntarget_version=\\n#$(printf '%600s' '')\\n")" invalid_argument \
  "update script: a request over 512 bytes is refused"
# What the node may plant at each name in its directory: a link to a directory root would move
# its file into (update-state: the name the script used to rename its state to), a link to a
# regular file, to /dev/zero, a FIFO, a directory (update-request).
printf 'channel=beta\ntarget_version=\n' >"$upd/victim-request"
rm -rf "$upd/state/update-state" && ln -s "$upd/victim-dir" "$upd/state/update-state"
for plant in "link-file:ln -s $upd/victim-request" "link-zero:ln -s /dev/zero" "fifo:mkfifo" "dir:mkdir"; do
  rm -rf "$upd/state/update-request"
  ${plant#*:} "$upd/state/update-request"
  assert_eq "$(run_update '')" invalid_argument "update script: update-request planted as ${plant%%:*}: refused unread, recorded as failed"
  assert_contains "$(cat "$upd/stderr")" "not a regular file" "… saying it is not a regular file"
  assert_eq "$(sed -n 's/^status=//p' "$upd/work/update-state")" failed "… in root's own update-state"
done
assert_eq "$(ls -A "$upd/victim-dir")" "" "update script: nothing written through the update-state link to a directory"
assert_eq "$(cat "$upd/victim") $(cat "$upd/victim-request" | head -c 12)" "untouched channel=beta" "… nor through any other planted link"
assert_eq "$(ls -A "$upd/state" | paste -sd,) $(readlink "$upd/state/update-state")" "update-request,update-state $upd/victim-dir" \
  "update script: writes nothing in the node's directory, the planted link left as it was"
rm -rf "$upd/state/update-request" "$upd/state/update-state"

# The unpacked programs run, and find the schema bundle where the package put it.
"$root/usr/bin/fleetmcp-device" --version >/dev/null || fail "unpacked fleetmcp-device does not run"
"$root/usr/bin/fleetctl" pki init --dir "$T/pki" >/dev/null 2>&1 || fail "unpacked fleetctl does not run"
node=$("$root/usr/bin/fleetctl" pki enroll --dir "$T/pki" --tenant acme 2>/dev/null)
FLEETMCP_SCHEMAS=$root/usr/share/fleetmcp/schemas "$root/usr/bin/fleetmcp-device" --check-config \
  --config "$T/pki/nodes/$node/device.conf" >"$T/check.log" 2>&1 || fail "check-config with the packaged schemas: $(cat "$T/check.log")"
pass "unpacked fleetctl enrols a node; fleetmcp-device --check-config accepts it with the packaged schemas"
strings "$root/usr/bin/fleetmcp-device" | grep -x /usr/share/fleetmcp/schemas >/dev/null || fail "fleetmcp-device does not look in /usr/share/fleetmcp/schemas"
pass "fleetmcp-device compiled for /usr/share/fleetmcp/schemas"

# ---- maintainer scripts ---------------------------------------------------------------------
ctl=$T/ctl
mkdir -p "$ctl" && dpkg-deb -e "$(deb fleetmcp-device)" "$ctl"
sh -n "$ctl/postinst" && sh -n "$ctl/prerm" && sh -n "$ctl/postrm" || fail "maintainer script syntax"
grep -q "adduser --system" "$ctl/postinst" || fail "postinst creates no system user"
# The node's service is the operator's to enable; the daily check_for_updates timer (D45) installs nothing.
if grep -v '^ *echo ' "$ctl/postinst" | grep -v "fleetmcp-update-check.timer" | grep -E "systemctl (enable|start|restart)"; then
  fail "device postinst enables or starts the service"
fi
grep -q "systemctl enable --now fleetmcp-update-check.timer" "$ctl/postinst" || fail "device postinst does not enable the update-check timer"
pass "device postinst creates the user, enables only the update-check timer and only try-restarts an already configured node"
assert_eq "$(cat "$ctl/conffiles")" "/etc/fleetmcp/device.conf.example" "device conffiles"
# Run the device postinst with recording stand-ins for the commands it calls: a host with the
# gpio and video groups but no i2c group, no fleetmcp user yet, and no device.conf.
stubs=$T/stubs
mkdir -p "$stubs"
for c in adduser addgroup install systemctl udevadm; do printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$T/calls" >"$stubs/$c"; done
# addgroup's stand-in also records the group, so getent finds it afterwards.
printf 'gpio\nvideo\n' >"$T/groups"
printf '#!/bin/sh\necho "addgroup $*" >>"%s"\necho "$2" >>"%s"\n' "$T/calls" "$T/groups" >"$stubs/addgroup"
printf '#!/bin/sh\necho "getent $*" >>"%s"\n[ "$1" = group ] && grep -qx "$2" "%s"\n' "$T/calls" "$T/groups" >"$stubs/getent"
chmod +x "$stubs"/*
[ ! -e /etc/fleetmcp/device.conf ] || fail "this host has /etc/fleetmcp/device.conf; cannot run the unconfigured case"
said=$(PATH=$stubs:$PATH sh "$ctl/postinst" configure) || fail "postinst configure failed"
calls=$(cat "$T/calls")
assert_contains "$calls" "adduser --system --group --no-create-home --home /nonexistent --shell /usr/sbin/nologin" "postinst creates the system user fleetmcp"
assert_contains "$calls" "adduser fleetmcp gpio" "postinst adds fleetmcp to gpio"
assert_contains "$calls" "adduser fleetmcp video" "postinst adds fleetmcp to video"
# The unit's SupplementaryGroups= must all exist or systemd refuses to start it (216/GROUP).
assert_contains "$calls" "addgroup --system i2c" "postinst creates the missing i2c group"
assert_contains "$calls" "adduser fleetmcp i2c" "postinst adds fleetmcp to i2c"
if grep -q "addgroup --system gpio" "$T/calls"; then fail "postinst recreated the existing gpio group"; fi
pass "postinst keeps the existing gpio group"
if grep -E "systemctl (enable|start|restart|try-restart)" "$T/calls"; then fail "postinst touched the unconfigured service"; fi
pass "postinst does not start an unconfigured node"
assert_contains "$said" "not configured yet" "postinst tells the admin what to do next"

# ---- enrolment from a Pi's boot partition (fleetmcp-enrol-boot, docs/pi-image.md) ------------
# The unpacked script on bundles in a scratch "fleetmcp/" folder, writing under FLEETMCP_ROOT,
# with the unpacked fleetmcp-device checking them and stand-ins recording chown and systemctl (and
# a getent that knows group fleetmcp). tests/integration/pi_image.sh runs it for real on a booted image.
enrol=$root/usr/libexec/fleetmcp/fleetmcp-enrol-boot
sh -n "$enrol" || fail "fleetmcp-enrol-boot syntax"
estubs=$T/enrol-stubs sys=$T/enrol-root boot=$T/boot/fleetmcp
mkdir -p "$estubs" "$sys/etc" "$boot"
for c in chown systemctl; do printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$T/enrol-calls" >"$estubs/$c"; done
# No NTP client runs here ("systemctl is-active" answers inactive, unrecorded): the check does
# not wait for the clock (pi_image.sh enrols with one running).
sed -i '2i [ "$1" = is-active ] \&\& exit 3' "$estubs/systemctl"
# sync: records how many node.key the boot partition still holds when it is called, then syncs.
printf '#!/bin/sh\necho "sync $# keys-on-card=$(find "%s" -name node.key | wc -l)" >>"%s"\nexec /bin/sync "$@"\n' \
  "$boot" "$T/enrol-calls" >"$estubs/sync"
printf '#!/bin/sh\n[ "$1 $2" = "group fleetmcp" ]\n' >"$estubs/getent"
chmod +x "$estubs"/*
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfleetmcp-pi\n' >"$sys/etc/hosts"
echo "the image's instructions" >"$boot/README.txt"
run_enrol() {
  : >"$T/enrol-calls"
  PATH=$estubs:$root/usr/bin:$PATH FLEETMCP_ROOT=$sys FLEETMCP_SCHEMAS=$root/usr/share/fleetmcp/schemas \
    sh "$enrol" "$boot" >"$T/enrol.out" 2>&1
}
nothing_done() {
  [ ! -e "$sys/etc/fleetmcp/device.conf" ] && [ ! -e "$sys/etc/fleetmcp/node.key" ] && [ ! -e "$sys/etc/hostname" ] \
    && ! grep -q systemctl "$T/enrol-calls" && [ -z "$(ls -A "$sys/etc/fleetmcp" 2>/dev/null)" ]
}
bundle=$T/pki/nodes/$node
other=$("$root/usr/bin/fleetctl" pki enroll --dir "$T/pki" --tenant acme 2>/dev/null)
if run_enrol; then fail "enrolment without a bundle succeeded: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "no node bundle in $boot" "fleetmcp-enrol-boot: no bundle and not enrolled is refused, saying where to copy one"
# A partial bundle: the key not copied.
cp "$bundle/device.conf" "$bundle/node.crt" "$bundle/ca.crt" "$boot/"
if run_enrol; then fail "a bundle without node.key was installed: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "lacks: node.key" "fleetmcp-enrol-boot: a bundle without node.key is refused, naming it"
assert_contains "$(cat "$T/enrol.out")" "fleetmcp-device was not started" "… and says the node was not started"
nothing_done || fail "a refused bundle left files or started the node: $(ls -A "$sys/etc" "$sys/etc/fleetmcp" 2>&1; cat "$T/enrol-calls")"
pass "fleetmcp-enrol-boot: the partial bundle installed nothing, started nothing"
# A bundle whose certificate belongs to another node: --check-config refuses it.
cp "$bundle/node.key" "$boot/" && cp "$T/pki/nodes/$other/node.crt" "$boot/node.crt"
if run_enrol; then fail "a bundle with another node's certificate was installed: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "does not check" "fleetmcp-enrol-boot: a key and certificate that do not match are refused (fleetmcp-device --check-config)"
nothing_done || fail "a bundle that does not check left files or started the node"
[ -e "$boot/node.key" ] || fail "a refused bundle was deleted from the boot partition"
pass "fleetmcp-enrol-boot: the bad bundle stays on the boot partition, nothing installed"
# A folder named node.key (a copy gone wrong): a reason and a fix, not cp's error.
cp "$bundle/node.crt" "$boot/node.crt" && rm -f "$boot/node.key" && mkdir "$boot/node.key"
if run_enrol; then fail "a bundle with a folder node.key was installed: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "$boot/node.key is not a file" "fleetmcp-enrol-boot: a folder named node.key is refused, naming it"
assert_contains "$(cat "$T/enrol.out")" "Fix: delete it and copy the file node.key" "… with the fix"
nothing_done || fail "a bundle with a folder node.key left files or started the node"
# key = an absolute path into the boot partition: --check-config would pass, the key then be
# deleted with the bundle. Refused; so is another setting naming the boot partition.
rmdir "$boot/node.key" && cp "$bundle/node.key" "$boot/"
sed -i "s|^key = .*|key = $boot/node.key|" "$boot/device.conf"
if run_enrol; then fail "a device.conf with key = $boot/node.key was installed: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "has key = '$boot/node.key', not node.key" "fleetmcp-enrol-boot: key = an absolute path on the boot partition is refused"
nothing_done || fail "a device.conf with an absolute key path left files or started the node"
[ -e "$boot/node.key" ] || fail "the bundle of a refused device.conf was deleted"
pass "… the bundle stays, nothing installed"
cp "$bundle/device.conf" "$boot/" && echo "schema_dir = $(dirname "$boot")/schemas" >>"$boot/device.conf"
if run_enrol; then fail "a device.conf naming the boot partition was installed: $(cat "$T/enrol.out")"; fi
assert_contains "$(cat "$T/enrol.out")" "names a path on the boot partition" "fleetmcp-enrol-boot: another setting naming the boot partition is refused"
nothing_done || fail "a device.conf naming the boot partition left files or started the node"
# The node's folder copied whole, as nodes/<node_id>/.
rm -f "$boot"/device.conf "$boot"/node.* "$boot"/ca.crt && cp -r "$bundle" "$boot/"
run_enrol || fail "fleetmcp-enrol-boot refused a good bundle: $(cat "$T/enrol.out")"
assert_eq "$(grep '^sync' "$T/enrol-calls" | head -n 1)" "sync 5 keys-on-card=1" \
  "fleetmcp-enrol-boot: the installed files and /etc/fleetmcp are synced while the bundle is still on the card"
for f in device.conf node.key node.crt ca.crt; do cmp -s "$bundle/$f" "$sys/etc/fleetmcp/$f" || fail "$f not installed"; done
assert_eq "$(stat -c %a "$sys/etc/fleetmcp/node.key") $(stat -c %a "$sys/etc/fleetmcp/device.conf")" "640 644" "fleetmcp-enrol-boot: node.key 0640, device.conf 0644"
assert_contains "$(cat "$T/enrol-calls")" "chown root:fleetmcp $sys/etc/fleetmcp/.enrol." "… node.key owned root:fleetmcp"
assert_eq "$(ls -A "$boot")" README.txt "fleetmcp-enrol-boot: the bundle is deleted from the boot partition, README.txt stays"
assert_eq "$(cat "$sys/etc/hostname") $(grep -c "^127.0.1.1.$node\$" "$sys/etc/hosts")" "$node 1" "fleetmcp-enrol-boot: hostname and /etc/hosts name the node id"
assert_eq "$(grep systemctl "$T/enrol-calls" | paste -sd,)" \
  "systemctl enable fleetmcp-device.service,systemctl restart --no-block fleetmcp-device.service" "fleetmcp-enrol-boot: enables and starts fleetmcp-device"
run_enrol || fail "fleetmcp-enrol-boot failed on an enrolled node with no new bundle: $(cat "$T/enrol.out")"
assert_eq "$(cat "$T/enrol.out" "$T/enrol-calls")" "" "fleetmcp-enrol-boot: an enrolled node with no new bundle: nothing to do, nothing said"
# Enrolled again: the same node (a new certificate) keeps /var/lib/fleetmcp; another node empties
# it (the old identity's audit must not be served as the new one's).
mkdir -p "$sys/var/lib/fleetmcp" && echo "$node's history" >"$sys/var/lib/fleetmcp/audit.jsonl"
cp -r "$bundle" "$boot/" && run_enrol || fail "re-enrolling the same node failed: $(cat "$T/enrol.out")"
assert_eq "$(cat "$sys/var/lib/fleetmcp/audit.jsonl")" "$node's history" "fleetmcp-enrol-boot: the same node enrolled again keeps its state"
cp -r "$T/pki/nodes/$other" "$boot/" && run_enrol || fail "re-enrolling as another node failed: $(cat "$T/enrol.out")"
assert_eq "$(cat "$sys/etc/hostname") $(ls -A "$sys/var/lib/fleetmcp")" "$other " \
  "fleetmcp-enrol-boot: enrolled as another node, the old node's state is emptied"
assert_contains "$(cat "$T/enrol.out")" "emptied $sys/var/lib/fleetmcp" "… and says so"

# A cpack from a build not prefixed /usr is refused (its programs would look for /usr/local schemas).
if [ -f "$BIN/CPackConfig.cmake" ] && [ "$(cache_value CMAKE_INSTALL_PREFIX)" != /usr ]; then
  if (cd "$BIN" && cpack -G DEB -B "$T/refused") >"$T/refused.log" 2>&1; then
    fail "cpack of a $(cache_value CMAKE_INSTALL_PREFIX) build made packages"
  fi
  grep -q "the .debs need -DCMAKE_INSTALL_PREFIX=/usr" "$T/refused.log" || fail "no explanation in $(cat "$T/refused.log")"
  pass "cpack of a build with another prefix is refused with an explanation"
fi
