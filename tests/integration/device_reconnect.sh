#!/usr/bin/env bash
# After a broker restart (no persistence: the retained announce is gone with it), fleetmcp-device
# reconnects on its own with jittered backoff, subscribes again and re-announces; cmds work again.
. "$(dirname "$0")/lib.sh"

pki_init
TLS=$(free_port)
PLAIN=$(free_port)
NODE=$(device_enroll 1 "$TLS")
CONF=$(tls_broker_conf "$TLS" "$PLAIN")
start_mosquitto "$CONF"
BROKER_PID=${_pids[-1]}

device_start node --config "$T/pki/nodes/$NODE/device.conf"
device_wait_log node "announce.published"
first=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$NODE/announce" -C 1 -W 5 | jq .issued_at_ms)

kill "$BROKER_PID"
wait "$BROKER_PID" 2>/dev/null || true
device_wait_log node "mqtt.reconnect_scheduled" 10
pass "the node notices the broker is gone and schedules a reconnect"
sleep 1
start_mosquitto "$CONF" mosquitto-restarted

device_wait_log node "mqtt.connected" 40 2
device_wait_log node "announce.published" 10 2
second=$(mosquitto_sub -p "$PLAIN" -t "\$devices/$NODE/announce" -C 1 -W 5 | jq .issued_at_ms) \
  || fail "no retained announce after the restart"
[ "$second" -gt "$first" ] || fail "the retained announce is not a fresh one ($second <= $first)"
pass "reconnected and re-announced (issued_at_ms $first -> $second)"

ACKS=$T/acks.jsonl
device_monitor "$PLAIN" "\$devices/$NODE/cmd_ack" "$ACKS"
id=$(device_msg_id 1)
device_send "$PLAIN" "$NODE" "$(device_cmd "$id" "sysecho.$NODE.echo.invoke" '{"message":"back"}')"
assert_eq "$(device_wait_ack "$ACKS" "$id" | jq -r .payload.result.message)" back \
  "cmd subscription is restored after the reconnect"
