#!/usr/bin/env bash
# Fault: a device cut off without a TCP close (issue 8). The device runs in its own network
# namespace, joined to the root namespace (where the broker listens) by a veth pair. The link is
# taken down (`ip link set … down` on the broker's side): no FIN, no RST, packets just stop. The
# broker can only notice through MQTT keepalive (the device's keepalive_s = 5, its minimum, so
# mosquitto drops the session 1.5 × 5 s after the device's last packet, checking every 6 s).
# Measured and printed:
#   - keepalive detection time: from the cut to the plugin's retained status `offline`
#     (its since_ms); a call then fails E_NODE_OFFLINE; a call made at the cut ends too;
#   - the device's own detection (its keepalive), so it does not sit on a dead connection;
#   - reconnection: the link restored, the device comes back by itself and answers again.
# Needs root and network namespaces: otherwise it prints SKIP and exits 77 (CTest's SKIP_RETURN_CODE).
# The namespace and the veth pair are removed at exit, also on failure.

NS=fmcp-cut-$$
VETH_BROKER=fmcp$$b  # root namespace side (at most 15 characters)
VETH_DEVICE=fmcp$$d
# A /30 of 10.77.0.0/16 picked from the pid, so parallel runs do not collide.
block=$(( ($$ % 16384) * 4 ))
BROKER_IP=10.77.$((block / 256)).$((block % 256 + 1))
DEVICE_IP=10.77.$((block / 256)).$((block % 256 + 2))

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "no ip (iproute2)"
ip netns add "$NS" 2>/dev/null || skip "cannot create a network namespace (ip netns add)"
if ! ip link add "$VETH_BROKER" type veth peer name "$VETH_DEVICE" 2>/dev/null; then
  ip netns del "$NS"
  skip "cannot create a veth pair"
fi

. "$(dirname "$0")/lib.sh"

netns_cleanup() {
  set +e  # best effort: every step runs whatever the one before did
  # The device first: a namespace lives on while a process is in it.
  if [ -n "${DEVICE_PID:-}" ]; then kill "$DEVICE_PID" 2>/dev/null; wait "$DEVICE_PID" 2>/dev/null; fi
  ip netns del "$NS" 2>/dev/null
  ip link del "$VETH_BROKER" 2>/dev/null  # normally gone with its peer's namespace
}
# Before lib.sh's cleanup (which stops the other processes and keeps the exit status).
netns_cleanup_then_lib() {
  local rc=$?
  netns_cleanup
  (exit $rc)
  _cleanup
}
trap netns_cleanup_then_lib EXIT

ip link set "$VETH_DEVICE" netns "$NS"
ip addr add "$BROKER_IP/30" dev "$VETH_BROKER"
ip link set "$VETH_BROKER" up
ip -n "$NS" link set lo up
ip -n "$NS" addr add "$DEVICE_IP/30" dev "$VETH_DEVICE"
ip -n "$NS" link set "$VETH_DEVICE" up
pass "namespace $NS: device $DEVICE_IP <-> broker $BROKER_IP over veth"

# The broker's certificate must name the address the device dials.
"$FLEETCTL" pki init --dir "$T/pki" --san "IP:$BROKER_IP" >"$T/pki-init.log" 2>&1 || fail "fleetctl pki init (see $T/pki-init.log)"
PORT_TLS=$(free_port)
PORT_PLAIN=$(free_port)
NODE=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant acme --broker "mqtts://$BROKER_IP:$PORT_TLS" 2>>"$T/enroll.log") \
  || fail "fleetctl pki enroll (see $T/enroll.log)"
DEVICE_CONF=$T/pki/nodes/$NODE/device.conf
# Keepalive at its minimum so the test is short; a short reconnect backoff so a device that spent
# the outage failing to connect is back soon after the link is.
printf 'keepalive_s = 5\nreconnect_min_ms = 500\nreconnect_max_ms = 4000\n' >>"$DEVICE_CONF"

# The device listener on the veth address (lib.sh's config binds 127.0.0.1), the rest as usual.
conf=$(plugin_broker_conf "$PORT_TLS" "$PORT_PLAIN")
sed -i "s/^listener $PORT_TLS 127.0.0.1\$/listener $PORT_TLS $BROKER_IP/" "$conf"
grep -q "^listener $PORT_TLS $BROKER_IP\$" "$conf" || fail "could not move the device listener to $BROKER_IP"
mosquitto -c "$conf" >"$T/broker.log" 2>&1 &
BROKER_PID=$!
track "$BROKER_PID"
wait_for_port "$PORT_PLAIN" 10
HTTP_PORT=$(broker_http_port broker)
E2E_BASE=http://127.0.0.1:$HTTP_PORT
E2E_TOKEN=$(agent_token agent-e2e acme "$E2E_SCOPES")
OPS_TOKEN=$(agent_token ops acme "devices:read")

# Every status the plugin publishes for the node, one payload per line.
mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT_PLAIN" -u ops -P "$OPS_TOKEN" -t "\$devices/$NODE/status" \
  >"$T/status.log" 2>>"$T/monitor.log" &
track $!

ip netns exec "$NS" "$DEVICE" --config "$DEVICE_CONF" >"$T/device.log" 2>&1 &
DEVICE_PID=$!
track "$DEVICE_PID"
e2e_wait_online 1 30
pass "the device in the namespace is online through $BROKER_IP:$PORT_TLS"

call() { echo_call "$NODE" "$1" --max-time 30; }  # call MESSAGE: an echo of the node behind the veth
assert_eq "$(call before | head -n 1 | jq -r .message)" before "the device answers before the cut"
status_seen() { grep -q "\"state\":\"$1\"" "$T/status.log"; }
wait_until 10 status_seen online || fail "no online status (see $T/status.log)"

echo "# cut the link (no TCP close)"
cut_ms=$(date +%s%3N)
ip link set "$VETH_BROKER" down
call "sent at the cut" >"$T/at-cut.answer" &
AT_CUT_PID=$!
wait_until 30 status_seen offline || fail "the broker never marked the node offline (see $T/status.log, $T/broker.log)"
offline_since=$(grep '"state":"offline"' "$T/status.log" | tail -n 1 | jq -r .since_ms)
detect_ms=$((offline_since - cut_ms))
grep -q "Client $NODE has exceeded timeout, disconnecting" "$T/broker.log" \
  || fail "the session did not end by keepalive (see $T/broker.log)"
pass "mosquitto ended the session by keepalive (\"exceeded timeout\")"
echo "  keepalive detection: offline ${detect_ms} ms after the cut"
# mosquitto 2.0.11 drops a session more than 1.5 x keepalive (whole seconds) after the client's
# last packet, but looks only every 6 s: with keepalive_s 5 and the device's last packet at most
# 5 s before the cut, offline comes 3 to 14 s after it. Loose bounds: not a TCP close (that would
# be immediate), and not long after what keepalive allows.
[ "$detect_ms" -ge 1000 ] || fail "offline only $detect_ms ms after the cut: the connection was closed, not cut"
[ "$detect_ms" -le 20000 ] || fail "offline $detect_ms ms after the cut: beyond what keepalive_s 5 allows"
pass "the node went offline by keepalive, $detect_ms ms after the cut"

refused "$(call "after detection")" 503 E_NODE_OFFLINE "a call to the cut-off node fails with E_NODE_OFFLINE, HTTP 503"
wait "$AT_CUT_PID" || fail "the call sent at the cut failed in curl (see $T/at-cut.answer)"
at_cut=$(head -n 1 "$T/at-cut.answer" | jq -r .code)
[ "$at_cut" = E_DEADLINE_EXCEEDED ] || [ "$at_cut" = E_NODE_OFFLINE ] \
  || fail "the call sent at the cut ended with [$(cat "$T/at-cut.answer")]"
pass "the call sent at the cut ended with $at_cut, HTTP $(tail -n 1 "$T/at-cut.answer")"
# The device must notice too (Paho's keepalive: a PINGREQ unanswered), or it would sit on a dead
# connection until TCP gives up, many minutes later.
wait_until 30 grep -q 'connection lost' "$T/device.log" || fail "the device did not notice the cut within 30 s (see $T/device.log)"
device_lost=$(grep -m1 'connection lost' "$T/device.log" | cut -d' ' -f1)
pass "the device noticed the dead connection itself, $(( $(date -d "$device_lost" +%s%3N) - cut_ms )) ms after the cut"

echo "# restore the link"
restore_ms=$(date +%s%3N)
ip link set "$VETH_BROKER" up
online_again() {  # an online status newer than the offline one
  [ "$(grep '"state":"online"' "$T/status.log" | tail -n 1 | jq -r .since_ms)" -gt "$offline_since" ]
}
wait_until 30 online_again || fail "the device did not come back within 30 s of the restore (see $T/device.log)"
online_since=$(grep '"state":"online"' "$T/status.log" | tail -n 1 | jq -r .since_ms)
echo "  reconnected: online again $((online_since - restore_ms)) ms after the link came back"
e2e_wait_online 1 10
assert_eq "$(call after | head -n 1 | jq -r .message)" after "the device answers again after the link is restored"
