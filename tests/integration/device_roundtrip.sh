#!/usr/bin/env bash
# fleetmcp-device against a real mosquitto (mTLS device listener, plain loopback listener, no
# plugin): the retained announce verifies with `fleetctl manifest verify`; the device listens on no
# port; echo, snapshot and
# subscribe round-trip with exact results valid against their schemas; every bad cmd gets the
# right cmd_ack (or, without a msg_id, none) and nothing else happens; a repeated msg_id replays
# the identical ack without a second run; max_concurrency and the handler deadline answer
# E_RATE_LIMITED and E_DEADLINE_EXCEEDED; --check-config and --deregister do what they say.
. "$(dirname "$0")/lib.sh"

pki_init
TLS=$(free_port)
PLAIN=$(free_port)
mapfile -t NODES < <(device_enroll 2 "$TLS")
[ ${#NODES[@]} -eq 2 ] || fail "enrolment produced ${#NODES[@]} nodes (see $T/enroll.log)"
A=${NODES[0]}   # default configuration
B=${NODES[1]}   # test hooks on: echo max_concurrency=1, deadline 1000 ms, manifest TTL 8 s
start_mosquitto "$(tls_broker_conf "$TLS" "$PLAIN")"

ACKS=$T/acks.jsonl
device_monitor "$PLAIN" '$devices/+/cmd_ack' "$ACKS"
device_monitor "$PLAIN" "\$devices/$B/announce" "$T/announces-b.jsonl"

# ---- configuration checks ------------------------------------------------------------------
check_config() {
  local out
  out=$("$DEVICE" --check-config --config "$T/pki/nodes/$A/device.conf") || fail "--check-config refused a fresh bundle"
  assert_contains "$out" "node $A, tenant acme, 3 tools" "--check-config summarises the node"

  cp -r "$T/pki/nodes/$A" "$T/broken"
  sed -i 's/^telemetry_interval_ms = .*/telemetry_interval_ms = soon/' "$T/broken/device.conf"
  local line rc=0
  line=$(grep -n '^telemetry_interval_ms' "$T/broken/device.conf" | cut -d: -f1)
  out=$("$DEVICE" --check-config --config "$T/broken/device.conf" 2>&1) || rc=$?
  assert_eq "$rc" 1 "--check-config exits 1 on a bad value"
  assert_contains "$out" "$T/broken/device.conf:$line: telemetry_interval_ms: 'soon' is not an integer from 1000 to 3600000" \
    "the error names file, line and key"

  cp "$T/pki/nodes/$B/node.crt" "$T/broken/node.crt"
  rc=0
  out=$("$DEVICE" --check-config --config "$T/broken/device.conf" 2>&1) || rc=$?
  assert_eq "$rc" 1 "--check-config exits 1 when the certificate is another node's"
}

# ---- start both nodes ------------------------------------------------------------------------
start_nodes() {
  device_start node-a --config "$T/pki/nodes/$A/device.conf"
  PID_A=$DEVICE_PID
  sed -i -e 's/^capability.echo = .*/capability.echo = system.echo rate_limit_rps=10 max_concurrency=1 deadline_ms_default=1000/' \
         -e 's/^manifest_ttl_s = .*/manifest_ttl_s = 8/' "$T/pki/nodes/$B/device.conf"
  device_start node-b --config "$T/pki/nodes/$B/device.conf" --test-hooks
  device_wait_log node-a "announce.published"
  device_wait_log node-b "announce.published"
}

# ---- the retained announce verifies ------------------------------------------------------------
check_announce() {
  local announce etag
  announce=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$A/announce" -C 1 -W 5) || fail "no retained announce for $A"
  etag=$(printf '%s' "$announce" | "$FLEETCTL" manifest verify --ca "$T/pki/ca.crt" --topic-node "$A" --publisher "$A") \
    || fail "fleetctl manifest verify refused the announce: $etag"
  [[ "$etag" =~ ^[0-9a-f]{64}$ ]] || fail "verify printed no etag: $etag"
  assert_contains "$(grep announce.published "$T/node-a.log")" "etag=$etag" "the retained announce verifies (etag $etag)"
  assert_eq "$(printf '%s' "$announce" | jq -r '[.capabilities[].cap_id] | join(",")')" "echo,metrics" \
    "the manifest lists the configured capabilities"
  assert_eq "$(printf '%s' "$announce" | jq -r '.hw_fingerprint.sources | join(",")' | grep -c machine_id)" 1 \
    "hw_fingerprint uses /etc/machine-id"
}

# ---- RFC-0001 decision #2: nothing connects to a node ---------------------------------------
check_no_listener() {
  # ss sees the device's own sockets (its MQTT connection), so an empty listening list means something.
  [ -n "$(ss -Htnp state established | grep -F "pid=$PID_A,")" ] || fail "ss shows no connection of the device (pid $PID_A)"
  assert_eq "$(ss -Hltunp | grep -F "pid=$PID_A," || true)" "" "the device listens on no TCP or UDP port"
}

# ---- happy paths ---------------------------------------------------------------------------
check_echo() {
  local id before ack
  id=$(device_msg_id 1)
  before=$(date +%s%3N)
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sysecho.$A.echo.invoke" '{"message":"ping"}')"
  ack=$(device_wait_ack "$ACKS" "$id")
  device_validate mcp://schemas/cmd_ack@1.0.0 "$ack"
  assert_eq "$(jq -c '.payload.result | del(.received_at_ms)' <<<"$ack")" "{\"message\":\"ping\",\"node_id\":\"$A\"}" \
    "echo returns the message and the node_id"
  local at
  at=$(jq '.payload.result.received_at_ms' <<<"$ack")
  [ "$at" -ge "$before" ] && [ "$at" -le "$(date +%s%3N)" ] || fail "received_at_ms $at outside the call"
  device_validate mcp://schemas/system.echo.invoke.output@1.1.0 "$(jq -c .payload.result <<<"$ack")"
  pass "echo result is valid system.echo.invoke.output@1.1.0, received_at_ms within the call"
}

check_snapshot() {
  local id ack result
  id=$(device_msg_id 2)
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sys.$A.metrics.snapshot" '{}')"
  ack=$(device_wait_ack "$ACKS" "$id")
  result=$(jq -c .payload.result <<<"$ack")
  device_validate mcp://schemas/system.metrics.sample@1.0.0 "$result"
  assert_eq "$(jq -r '.node_id' <<<"$result")" "$A" "snapshot carries the node_id"
  assert_eq "$(jq -r '[has("cpu"),has("mem"),has("load"),has("disk")] | all' <<<"$result")" true \
    "snapshot has cpu, mem, load and disk"
  assert_eq "$(jq -r '.mem.used_bytes == .mem.total_bytes - .mem.available_bytes' <<<"$result")" true \
    "used = total - available (D10)"
  assert_eq "$(jq -r '.cpu.cores' <<<"$result")" "$(grep -c '^cpu[0-9]' /proc/stat)" "cores match /proc/stat"

  id=$(device_msg_id 3)
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sys.$A.metrics.snapshot" '{"include":["load"]}')"
  result=$(device_wait_ack "$ACKS" "$id" | jq -c .payload.result)
  assert_eq "$(jq -r 'keys | join(",")' <<<"$result")" "load,node_id,ts_ms,uptime_s" "snapshot honours include"
}

check_subscribe() {
  local id ack now
  device_monitor "$PLAIN" "\$devices/$A/telemetry" "$T/telemetry-a.jsonl"
  id=$(device_msg_id 4)
  now=$(date +%s%3N)
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sys.$A.metrics.subscribe" '{"interval_ms":1000}')"
  ack=$(device_wait_ack "$ACKS" "$id")
  device_validate mcp://schemas/system.metrics.subscribe.output@1.0.0 "$(jq -c .payload.result <<<"$ack")"
  assert_eq "$(jq '.payload.result.interval_ms' <<<"$ack")" 1000 "subscribe grants the interval"
  [ "$(jq '.payload.result.lease_expires_at_ms' <<<"$ack")" -ge $((now + 25000)) ] || fail "lease shorter than 25 s"
  # Base cadence is 5 s; under the lease samples come every second.
  sleep 4.5
  local samples
  samples=$(grep -c '"node_id"' "$T/telemetry-a.jsonl" || true)
  [ "$samples" -ge 4 ] || fail "only $samples telemetry samples in 4.5 s under a 1000 ms lease"
  device_validate mcp://schemas/system.metrics.sample@1.0.0 "$(grep '"node_id"' "$T/telemetry-a.jsonl" | tail -1)"
  pass "telemetry follows the lease ($samples samples in 4.5 s), each a valid MetricsSample"
}

# ---- bad cmds: the right ack and nothing else ------------------------------------------------
# expect_error N NODE PAYLOAD CODE MESSAGE_PART WHAT
expect_error() {
  local id=$1 node=$2 payload=$3 code=$4 part=$5 what=$6 ack
  device_send "$PLAIN" "$node" "$payload"
  ack=$(device_wait_ack "$ACKS" "$id")
  device_validate mcp://schemas/cmd_ack@1.0.0 "$ack"
  assert_eq "$(jq -r '.payload.error.code' <<<"$ack")" "$code" "$what: $code"
  assert_contains "$(jq -r '.payload.error.message' <<<"$ack")" "$part" "$what: message"
}

check_bad_cmds() {
  local id
  id=$(device_msg_id 10)
  expect_error "$id" "$A" "$(device_cmd "$id" "sysecho.$A.nope.invoke" '{"message":"x"}')" \
    E_BAD_REQUEST "not one of this node's tools" "unknown tool"
  id=$(device_msg_id 11)
  expect_error "$id" "$A" "$(device_cmd "$id" "sysecho.$B.echo.invoke" '{"message":"x"}')" \
    E_BAD_REQUEST "belongs to another node" "another node's tool"
  id=$(device_msg_id 12)
  expect_error "$id" "$A" "$(device_cmd "$id" "sys.$A.metrics.invoke" '{}')" \
    E_VERB_UNSUPPORTED "no such verb" "a verb the capability lacks"
  id=$(device_msg_id 13)
  expect_error "$id" "$A" "$(device_cmd "$id" "sysecho.$A.echo.invoke" '{"message":5}')" \
    E_MANIFEST_INVALID "arguments do not match mcp://schemas/system.echo.invoke.input@1.0.0" "bad arguments"
  id=$(device_msg_id 14)
  expect_error "$id" "$A" "$(device_cmd "$id" "sys.$A.metrics.subscribe" '{"interval_ms":10}')" \
    E_MANIFEST_INVALID "system.metrics.subscribe.input@1.1.0" "interval below the schema's minimum"
  id=$(device_msg_id 15)
  local big
  big=$(head -c 70000 /dev/zero | tr '\0' a)
  expect_error "$id" "$A" "$(device_cmd "$id" "sysecho.$A.echo.invoke" "{\"message\":\"$big\"}")" \
    E_BAD_REQUEST "exceeds the device limit of 65536 bytes" "oversize cmd"
  id=$(device_msg_id 16)
  expect_error "$id" "$A" "{\"type\":\"cmd\",\"msg_id\":\"$id\",\"payload\":{}}" \
    E_BAD_REQUEST "cmd envelope: ts_ms" "envelope without ts_ms"

  # Nothing to answer: logged and dropped.
  local dropped
  dropped=$(grep -c cmd.dropped "$T/node-a.log" || true)
  device_send "$PLAIN" "$A" 'this is not JSON'
  device_send "$PLAIN" "$A" '{"type":"cmd","msg_id":"not-a-ulid","payload":{}}'
  device_wait_log node-a "cmd.dropped" 5 $((dropped + 2))
  pass "non-JSON and msg_id-less cmds are logged and dropped"
}

check_duplicates() {
  local id first second
  id=$(device_msg_id 20)
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sysecho.$A.echo.invoke" '{"message":"once"}')"
  first=$(device_wait_ack "$ACKS" "$id")
  device_send "$PLAIN" "$A" "$(device_cmd "$id" "sysecho.$A.echo.invoke" '{"message":"once"}')"
  device_wait_log node-a "cmd.duplicate.*$id" 5
  local deadline=$((SECONDS + 5))
  until [ "$(device_ack_count "$ACKS" "$id")" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "the repeated cmd got no ack"
    sleep 0.05
  done
  second=$(grep "\"in_reply_to\":\"$id\"" "$ACKS" | tail -1)
  assert_eq "$second" "$first" "a repeated msg_id gets the identical cached ack (same ack msg_id, same received_at_ms)"

  # A repeat while the first is still running: one execution, both answered with the same ack.
  id=$(device_msg_id 21)
  local cmd
  cmd=$(device_cmd "$id" "sysecho.$B.echo.invoke" '{"message":"sleep:600"}')
  device_send "$PLAIN" "$B" "$cmd"
  device_send "$PLAIN" "$B" "$cmd"
  device_wait_ack "$ACKS" "$id" >/dev/null
  deadline=$((SECONDS + 5))
  until [ "$(device_ack_count "$ACKS" "$id")" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "the in-flight repeat got no ack"
    sleep 0.05
  done
  assert_eq "$(grep "\"in_reply_to\":\"$id\"" "$ACKS" | sort -u | wc -l)" 1 "an in-flight repeat gets the same ack"
  assert_contains "$(grep "$id" "$T/node-b.log")" "still running" "and is not run a second time"
}

check_concurrency_and_deadline() {
  local slow busy ack late
  slow=$(device_msg_id 30)
  busy=$(device_msg_id 31)
  device_send "$PLAIN" "$B" "$(device_cmd "$slow" "sysecho.$B.echo.invoke" '{"message":"sleep:700"}' 5000)"
  sleep 0.2
  device_send "$PLAIN" "$B" "$(device_cmd "$busy" "sysecho.$B.echo.invoke" '{"message":"now"}')"
  ack=$(device_wait_ack "$ACKS" "$busy")
  device_validate mcp://schemas/cmd_ack@1.0.0 "$ack"
  assert_eq "$(jq -r .payload.error.code <<<"$ack")" E_RATE_LIMITED "over max_concurrency: E_RATE_LIMITED"
  [ "$(jq '.payload.error.retry_after_ms' <<<"$ack")" -gt 0 ] || fail "E_RATE_LIMITED without retry_after_ms"
  pass "E_RATE_LIMITED carries retry_after_ms"
  assert_eq "$(device_wait_ack "$ACKS" "$slow" | jq -r .payload.result.message)" "sleep:700" "the running call still completes"

  late=$(device_msg_id 32)
  device_send "$PLAIN" "$B" "$(device_cmd "$late" "sysecho.$B.echo.invoke" '{"message":"sleep:2500"}' 5000)"
  ack=$(device_wait_ack "$ACKS" "$late")
  assert_eq "$(jq -r .payload.error.code <<<"$ack")" E_DEADLINE_EXCEEDED "handler past deadline_ms_default: E_DEADLINE_EXCEEDED"
  assert_contains "$(jq -r .payload.error.message <<<"$ack")" "deadline of 1000 ms" "the deadline is the capability's"
  device_wait_log node-b "cmd.late_result_dropped.*$late" 10
  assert_eq "$(device_ack_count "$ACKS" "$late")" 1 "the late result is dropped, not sent"
}

# ---- a burst: every cmd answered, none lost or stalled ------------------------------------------
check_burst() {
  # 300 cmds at once: most are refused (echo has max_concurrency=4), each still gets its ack. More
  # acks than the broker's Receive Maximum (mosquitto: 20) are in flight; before the session kept
  # its own QoS 1 window, Paho parked them and they drained at ~30 per second (> 10 s here).
  local i start
  for i in $(seq 100 399); do
    device_cmd "$(device_msg_id "$i")" "sysecho.$A.echo.invoke" '{"message":"burst"}'
    echo
  done >"$T/burst.jsonl"
  start=$SECONDS
  mosquitto_pub -p "$PLAIN" -q 1 -t "\$devices/$A/cmd" -l <"$T/burst.jsonl"
  local deadline=$((SECONDS + 5)) burst_acks='"in_reply_to":"01JD0000000000000000000[1-3][0-9]{2}"'
  until [ "$(grep -c -E "$burst_acks" "$ACKS")" -ge 300 ]; do
    [ $SECONDS -lt $deadline ] || fail "only $(grep -c -E "$burst_acks" "$ACKS") of 300 burst acks within 5 s"
    sleep 0.1
  done
  for i in 100 250 399; do
    assert_eq "$(device_ack_count "$ACKS" "$(device_msg_id "$i")")" 1 "burst cmd $i answered once"
  done
  pass "a burst of 300 cmds: 300 acks in $((SECONDS - start)) s"
}

# ---- manifest refresh before expiry ------------------------------------------------------------
check_refresh() {
  # Node B's TTL is 8 s: it must re-sign with a quarter (2 s) left, i.e. about 6 s after each announce.
  local deadline=$((SECONDS + 15))
  until [ "$(grep -c '"issued_at_ms"' "$T/announces-b.jsonl")" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "node B never re-announced"
    sleep 0.2
  done
  local gap ttl
  # (jq -s reads every line: no `head` in these pipelines, whose early exit would SIGPIPE grep
  # and, with pipefail, end the test without a word)
  gap=$(grep '"issued_at_ms"' "$T/announces-b.jsonl" | jq -s '.[1].issued_at_ms - .[0].issued_at_ms')
  ttl=$(grep '"issued_at_ms"' "$T/announces-b.jsonl" | jq -s '.[0].expires_at_ms - .[0].issued_at_ms')
  assert_eq "$ttl" 8000 "manifest_ttl_s sets expires_at_ms"
  [ "$gap" -ge 5000 ] && [ "$gap" -lt 8000 ] || fail "refresh after $gap ms, not before expiry (TTL 8000)"
  pass "refreshed $gap ms after issue, before the 8000 ms expiry"
  grep '"issued_at_ms"' "$T/announces-b.jsonl" | tail -1 | "$FLEETCTL" manifest verify --ca "$T/pki/ca.crt" >/dev/null \
    || fail "the refreshed announce does not verify"
  pass "the refreshed announce verifies"
}

# ---- every ack accounted for -------------------------------------------------------------------
check_nothing_else() {
  local n total expected=0
  for n in 1 2 3 4 10 11 12 13 14 15 16 30 31 32; do
    assert_eq "$(device_ack_count "$ACKS" "$(device_msg_id "$n")")" 1 "exactly one ack for cmd $n"
    expected=$((expected + 1))
  done
  expected=$((expected + 4))    # two each for the repeated msg_ids 20 and 21
  expected=$((expected + 300))  # the burst
  total=$(grep -c '"in_reply_to"' "$ACKS")
  assert_eq "$total" "$expected" "no ack beyond those (the dropped cmds got none)"
  kill -0 "$PID_A" || fail "node A died"
}

# ---- graceful stop, then --deregister ----------------------------------------------------------
check_stop_and_deregister() {
  kill -TERM "$PID_A"
  wait "$PID_A" || fail "node A exited non-zero on SIGTERM"
  assert_contains "$(tail -2 "$T/node-a.log")" "fleet.stopped 1 session(s) disconnected" "SIGTERM disconnects cleanly"
  "$DEVICE" --deregister --config "$T/pki/nodes/$A/device.conf" >"$T/deregister.log" 2>&1 || fail "--deregister failed"
  local left
  left=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$A/announce" -C 1 -W 2 2>/dev/null || true)
  assert_eq "$left" "" "--deregister clears the retained announce"
}

check_config
start_nodes
check_announce
check_no_listener
check_echo
check_snapshot
check_subscribe
check_bad_cmds
check_duplicates
check_concurrency_and_deadline
check_burst
check_refresh
check_nothing_else
check_stop_and_deregister
