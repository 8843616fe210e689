#!/usr/bin/env bash
# The Doc 05 catalogue on a simulated node (--simulate 1 --catalogue) against a real mosquitto
# without the plugin (the test plays the plugin's part over the plain listener): the announce
# carries every catalogue capability with its safety class and kind-default rate and verifies
# with fleetctl; every tool answers with a result valid against its output schema (Ajv); the
# device refuses an I2C address outside the allow-list (E_SAFETY_DENIED), a write to an
# unconfigured pin (failed_precondition) and arguments outside the input schema; a GPIO write
# with duration_ms reverts the pin; a camera photo lands under the generated path only. A second,
# non-simulated node configured for real hardware starts (backends open devices on first use) and
# answers each call on this machine, which has no such hardware, with failed_precondition.
. "$(dirname "$0")/lib.sh"

pki_init
TLS=$(free_port)
PLAIN=$(free_port)
mapfile -t NODES < <(device_enroll 2 "$TLS")
N=${NODES[0]}
R=${NODES[1]}   # the real-hardware node
start_mosquitto "$(tls_broker_conf "$TLS" "$PLAIN")"
ACKS=$T/acks.jsonl
device_monitor "$PLAIN" '$devices/+/cmd_ack' "$ACKS"
export TMPDIR=$T   # simulated photos go to $TMPDIR/fleetmcp-photos/<node_id>
device_start node --simulate 1 --bundle-dir "$T/pki" --catalogue
device_wait_log node "announce.published" 20
cat >>"$T/pki/nodes/$R/device.conf" <<CONF
capability.relay = gpio.pin line=17 chip=gpiochip0
capability.fan = gpio.pwm chip=0 channel=0
capability.sensors = i2c.bus bus=1 addresses=0x76
capability.camera0 = camera.still dir=$T/photos
capability.nginx = service.unit unit=nginx.service
capability.reboot = system.power action=reboot
capability.mgmt = manage.server update_unit=fleetmcp-update.service state_dir=$T/upd-state outcome_dir=$T/upd channels_dir=$T/channels
CONF
mkdir -p "$T/upd-state" "$T/channels"
out=$("$DEVICE" --check-config --config "$T/pki/nodes/$R/device.conf") || fail "--check-config refused real-hardware lines: $out"
assert_contains "$out" "node $R, tenant acme, 18 tools" "--check-config accepts a Pi configuration on a machine without the hardware"
device_start real --config "$T/pki/nodes/$R/device.conf"
device_wait_log real "announce.published" 20

# ---- the announce ---------------------------------------------------------------------------
announce=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$N/announce" -C 1 -W 5) || fail "no retained announce"
printf '%s' "$announce" | "$FLEETCTL" manifest verify --ca "$T/pki/ca.crt" >/dev/null || fail "the announce does not verify"
pass "the catalogue announce verifies against manifest@1.4.0"
assert_eq "$(jq -r '[.capabilities[].cap_id] | join(",")' <<<"$announce")" \
  "echo,metrics,info,health,net,procs,nginx,app,audit,gpio17,button,pwm0,i2c1,camera0,reboot,server" "every catalogue capability is announced"
assert_eq "$(jq -r '.capabilities[] | select(.cap_id=="gpio17") | "\(.safety_class) \(.constraints.rate_limit_rps) \(.verbs|join("/"))"' <<<"$announce")" \
  "physical_actuation 10 get/set/invoke" "gpio17: physical_actuation, 10 rps, get/set/invoke"
assert_eq "$(jq -r '.capabilities[] | select(.cap_id=="reboot") | "\(.safety_class) \(.constraints.rate_limit_rps)"' <<<"$announce")" \
  "physical_actuation 0.05" "reboot: physical_actuation, one call per 20 s"
assert_eq "$(jq -r '.capabilities[] | select(.cap_id=="nginx") | .safety_class' <<<"$announce")" "reversible" "services are reversible"
assert_eq "$(jq -r '.capabilities[] | select(.cap_id=="button") | .verbs | join(",")' <<<"$announce")" "get" \
  "a writable=false pin offers only get"
# Each capability says what it is on the device (manifest@1.4.0, docs/protocol.md D42), from the
# real-hardware node's own lines; the host name is the host's.
real=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$R/announce" -C 1 -W 5) || fail "no retained announce of the real-hardware node"
assert_eq "$(jq -r '[.capabilities[] | select(.label) | "\(.cap_id)=\(.label)"] | join(";")' <<<"$real")" \
  "relay=BCM 17, output;fan=BCM 18, pwmchip0 channel 0;sensors=bus 1, 0x76;camera0=camera 0;nginx=nginx.service;reboot=reboot" \
  "the real-hardware node labels its capabilities from its configuration lines"
assert_eq "$(jq -r '.hostname' <<<"$real")" "$(cat /proc/sys/kernel/hostname)" "the announce carries the host's name"

# ---- calls ------------------------------------------------------------------------------------
echo 0 >"$T/seq"
# call_node NODE TOOL ARGS : sends NODE a cmd and prints the ack's payload. (Calls run in $(…)
# subshells, so the message counter lives in a file.) call TOOL ARGS: the same to the simulated node.
call_node() {
  local seq id
  seq=$(($(cat "$T/seq") + 1))
  echo "$seq" >"$T/seq"
  id=$(device_msg_id "$seq")
  device_send "$PLAIN" "$1" "$(device_cmd "$id" "$2" "$3" 20000)"
  device_wait_ack "$ACKS" "$id" 20 | jq -c .payload
}
call() { call_node "$N" "$1" "$2"; }
# ok TOOL ARGS OUTPUT_SCHEMA : the call succeeds and its result is valid; prints the result.
ok() {
  local p
  p=$(call "$1" "$2")
  [ "$(jq -r .ok <<<"$p")" = true ] || fail "$1 $2 failed: $p"
  device_validate "$3" "$(jq -c .result <<<"$p")"
  jq -c .result <<<"$p"
}
# ack_refused TOOL ARGS CODE MESSAGE_PREFIX : the device refuses the call in its cmd_ack
ack_refused() {
  local p
  p=$(call "$1" "$2")
  assert_eq "$(jq -r '.ok' <<<"$p")" false "$1 $2 is refused"
  device_validate mcp://schemas/error@1.1.0 "$(jq -c .error <<<"$p")"
  assert_eq "$(jq -r .error.code <<<"$p")" "$3" "... with $3"
  assert_contains "$(jq -r .error.message <<<"$p")" "$4" "... saying '$4'"
}
t() { printf '%s.%s.%s.%s' "$1" "$N" "$2" "$3"; }
S=mcp://schemas

r=$(ok "$(t sysinfo info get)" '{}' "$S/system.info.get.output@1.0.0");          pass "system.info: $(jq -r .model <<<"$r")"
r=$(ok "$(t health health snapshot)" '{}' "$S/system.health.snapshot.output@1.2.0"); pass "system.health: cpu $(jq .cpu_usage_percent <<<"$r") %"
assert_eq "$(jq -c '[(.network.interfaces | has("lo")), (.disk_io.devices | type), (.network.interval_ms >= 1000)]' <<<"$r")" '[true,"object",true]' \
  "system.health: network rates per interface (lo among them) and disk_io per disk, over at least a second"
ok "$(t net net get)" '{}' "$S/network.status.get.output@1.0.0" >/dev/null;      pass "network.status"
r=$(ok "$(t proc procs snapshot)" '{"sort_by":"memory_rss","sort_order":"desc","limit":3}' "$S/process.table.snapshot.output@1.1.0")
assert_eq "$(jq .returned_count <<<"$r")" 3 "process.table snapshot pages"
assert_eq "$(jq '.cpu_interval_ms >= 900 and .cpu_interval_ms <= 5000' <<<"$r")" true "process.table snapshot: cpu_percent over the last second"
# This test's own shell: the biggest processes of the snapshot may be gone a moment later.
r=$(ok "$(t proc procs get)" "{\"pid\":$$}" "$S/process.table.get.output@1.0.0")
assert_eq "$(jq .pid <<<"$r")" "$$" "process.table get"
r=$(ok "$(t svc nginx get)" '{}' "$S/service.unit.get.output@1.1.0")
assert_eq "$(jq -r .status <<<"$r")" active "service.unit get"
assert_eq "$(jq -r '[.preset, .user, .restart_policy] | join(" ")' <<<"$r")" "enabled www-data on-failure" "service.unit get: the configuration without secrets (D35)"
r=$(ok "$(t svc nginx invoke)" '{"action":"restart"}' "$S/service.unit.invoke.output@1.0.0")
assert_eq "$(jq -r .previous_status <<<"$r")/$(jq -r .status <<<"$r")" active/active "service.unit invoke restart"
r=$(ok "$(t svc nginx set)" '{"enabled":false}' "$S/service.unit.set.output@1.0.0")
assert_eq "$(jq -r .unit_file_state <<<"$r")" disabled "service.unit set enabled=false"
r=$(ok "$(t logs app get)" '{"level":"warning","limit":4}' "$S/logs.journal.get.output@1.0.0")
assert_eq "$(jq -r '[.entries[].level] | map(select(. == "info" or . == "debug" or . == "notice")) | length' <<<"$r")" 0 \
  "logs.journal get filters by level"
r=$(ok "$(t pwm pwm0 set)" '{"frequency_hz":1000,"duty_cycle_percent":25}' "$S/gpio.pwm.state@1.0.0")
assert_eq "$(jq -c . <<<"$r")" '{"pin":18,"frequency_hz":1000,"duty_cycle_percent":25,"enabled":true}' "gpio.pwm set"
ok "$(t pwm pwm0 get)" '{}' "$S/gpio.pwm.state@1.0.0" >/dev/null; pass "gpio.pwm get"
r=$(ok "$(t i2c i2c1 snapshot)" '{}' "$S/i2c.bus.snapshot.output@1.0.0")
assert_eq "$(jq -c .addresses <<<"$r")" "[72,118]" "i2c.bus snapshot probes only the allow-list"
ok "$(t i2c i2c1 set)" '{"address":118,"register":244,"data":[46]}' "$S/i2c.bus.set.output@1.0.0" >/dev/null
r=$(ok "$(t i2c i2c1 get)" '{"address":118,"register":244,"length":2}' "$S/i2c.bus.get.output@1.0.0")
assert_eq "$(jq -c .data <<<"$r")" "[46,107]" "i2c.bus get reads back what set wrote"
r=$(ok "$(t i2c i2c1 get)" '{"address":72,"length":1}' "$S/i2c.bus.get.output@1.0.0")
assert_eq "$(jq -c .register <<<"$r")" null "i2c.bus get without a register"
r=$(ok "$(t cam camera0 invoke)" '{"resolution":"640x480"}' "$S/camera.still.invoke.output@1.1.0")
photo=$(jq -r .file_path <<<"$r")
[[ "$photo" == "$T/fleetmcp-photos/$N/camera0-"*.jpg ]] || fail "photo path $photo is not generated under the photo directory"
assert_eq "$(stat -c %s "$photo")" "$(jq .size_bytes <<<"$r")" "camera.still stored the JPEG at the generated path"
jq -r .preview.data_base64 <<<"$r" | base64 -d >"$T/preview.jpg"
assert_eq "$(head -c 2 "$T/preview.jpg" | od -An -tx1 | tr -d ' ')" ffd8 "camera.still preview is an inline JPEG"
r=$(ok "$(t power reboot invoke)" '{"delay_seconds":60}' "$S/system.power.invoke.output@1.0.0")
assert_eq "$(jq -c . <<<"$r")" '{"scheduled":true,"effective_after_seconds":60,"action":"reboot"}' "system.power (simulated) schedules"
ok "$(t mgmt server get)" '{}' "$S/manage.server.get.output@1.1.0" >/dev/null; pass "manage.server get"
r=$(ok "$(t mgmt server invoke)" '{"channel":"beta","target_version":null}' "$S/manage.server.invoke.output@1.0.0")
assert_eq "$(jq -r .status.status <<<"$r")" pending "manage.server invoke queues the update unit"

# ---- GPIO: configure, refuse unconfigured writes, revert after duration_ms --------------------
ack_refused "$(t gpio gpio17 set)" '{"value":"high"}' E_BAD_REQUEST "failed_precondition: the pin is not configured as an output"
ok "$(t gpio gpio17 invoke)" '{"mode":"output"}' "$S/gpio.pin.state@1.1.0" >/dev/null
r=$(ok "$(t gpio gpio17 set)" '{"value":"high","duration_ms":400}' "$S/gpio.pin.state@1.1.0")
assert_eq "$(jq -r .value <<<"$r")" high "gpio.pin set drives the pin high"
[ "$(jq .revert_in_ms <<<"$r")" -gt 0 ] || fail "no pending revert reported: $r"
deadline=$((SECONDS + 10))
until [ "$(call "$(t gpio gpio17 get)" '{}' | jq -r .result.value)" = low ]; do
  [ $SECONDS -lt $deadline ] || fail "gpio17 did not revert to low after duration_ms"
  sleep 0.1
done
pass "duration_ms reverted the pin to low"
r=$(ok "$(t gpio button get)" '{}' "$S/gpio.pin.state@1.1.0")
assert_eq "$(jq -r .mode <<<"$r")" input "a writable=false pin reads"
assert_eq "$(jq -c .allowed_modes <<<"$r")" '["input"]' "a writable=false pin says it allows input only (Doc 05 list_pins, D28)"
assert_eq "$(call "$(t gpio gpio17 get)" '{}' | jq -c .result.allowed_modes)" '["input","output"]' "a writable pin allows output"

# ---- device-side refusals ----------------------------------------------------------------------
ack_refused "$(t i2c i2c1 get)" '{"address":80,"length":1}' E_SAFETY_DENIED "permission_denied: address 80 is not in this capability's allow-list"
ack_refused "$(t i2c i2c1 get)" '{"address":72,"length":33}' E_MANIFEST_INVALID "i2c.bus.get.input"
ack_refused "$(t cam camera0 invoke)" '{"file_path":"/etc/passwd"}' E_MANIFEST_INVALID "camera.still.invoke.input"
ack_refused "$(t gpio button set)" '{"value":"high"}' E_VERB_UNSUPPORTED ""
ack_refused "$(t svc sshd get)" '{}' E_BAD_REQUEST ""

# ---- real backends without the hardware ----------------------------------------------------------
real_refused() {
  local p
  p=$(call_node "$R" "$1" "$2")
  local code=${REAL_CODE:-E_BAD_REQUEST} reason=${REAL_REASON:-failed_precondition}
  assert_eq "$(jq -r .error.code <<<"$p")" "$code" "real $1: refused with $code"
  assert_contains "$(jq -r .error.message <<<"$p")" "$reason: $3" "... saying '$reason: $3'"
  [ -n "$(jq -r .error.suggested_fix <<<"$p")" ] || fail "no suggested_fix: $p"
}
r() { printf '%s.%s.%s.%s' "$1" "$R" "$2" "$3"; }
real_refused "$(r gpio relay get)" '{}' "no GPIO chip 'gpiochip0' on this device"
real_refused "$(r pwm fan get)" '{}' "no PWM chip at /sys/class/pwm/pwmchip0"
real_refused "$(r i2c sensors snapshot)" '{}' "cannot open /dev/i2c-1"
real_refused "$(r cam camera0 invoke)" '{}' "no camera 0 on this device"
if [ ! -S /run/dbus/system_bus_socket ]; then  # Doc 05 §9.1.1 unavailable: E_INTERNAL
  REAL_CODE=E_INTERNAL REAL_REASON=unavailable real_refused "$(r svc nginx get)" '{}' "systemd is not reachable over D-Bus"
  REAL_CODE=E_INTERNAL REAL_REASON=unavailable real_refused "$(r power reboot invoke)" '{"delay_seconds":600}' \
    "logind is not reachable over D-Bus"
fi

# ---- check_for_updates (docs/protocol.md D45) on the real node ------------------------------------
# The packaged script's --check reads the configured channel (a flat apt repository in a file: URI
# offering fleetmcp-device 9.9.9) without installing anything, as its daily timer runs it; the real
# node's manage.server get then reports what the channel offers. No root: apt's lists are the
# script's own directory.
mkdir -p "$T/repo"
printf 'Package: fleetmcp-device\nVersion: 9.9.9\nArchitecture: all\nMaintainer: t <t@example.org>\nFilename: fleetmcp-device_9.9.9_all.deb\nSize: 1\nMD5sum: 00000000000000000000000000000000\nDescription: test\n\n' >"$T/repo/Packages"
printf 'Types: deb\nURIs: file:%s/repo\nSuites: ./\nTrusted: yes\n' "$T" >"$T/channels/stable.sources"
before=$(call_node "$R" "$(r mgmt mgmt get)" '{}')
assert_eq "$(jq -c '.result.update_check // .' <<<"$before")" \
  '[{"channel":"stable","latest_version":null,"update_available":null,"last_checked":null}]' \
  "real manage.server get: a channel not read yet offers nothing known"
FLEETMCP_CHANNELS_DIR=$T/channels FLEETMCP_UPDATE_WORK=$T/upd FLEETMCP_STATE_DIR=$T/upd-state \
  sh "$SRC/cmake/packaging/device/fleetmcp-update" --check || fail "fleetmcp-update --check (see $T/upd/apt.log)"
[ ! -e "$T/upd/update-state" ] || fail "fleetmcp-update --check recorded an update"
pass "fleetmcp-update --check installs nothing"
after=$(call_node "$R" "$(r mgmt mgmt get)" '{}')
device_validate "$S/manage.server.get.output@1.1.0" "$(jq -c .result <<<"$after")"
assert_eq "$(jq -r '.result.update_check[0] | "\(.channel) \(.latest_version) \(.update_available) \(.last_checked != null)"' <<<"$after")" \
  "stable 9.9.9 true true" "real manage.server get: the stable channel offers 9.9.9, an update is available"

