#!/usr/bin/env bash
# --simulate 50: fifty enrolled nodes in one process, each with its own TLS session, signed
# manifest (distinct hardware fingerprint) and handlers; every node answers echo with its own
# node_id.
. "$(dirname "$0")/lib.sh"

N=50
pki_init
TLS=$(free_port)
PLAIN=$(free_port)
mapfile -t NODES < <(device_enroll "$N" "$TLS")
[ ${#NODES[@]} -eq $N ] || fail "enrolment produced ${#NODES[@]} nodes"
start_mosquitto "$(tls_broker_conf "$TLS" "$PLAIN")"

device_start fleet --simulate "$N" --bundle-dir "$T/pki"
device_wait_log fleet "announce.published" 60 "$N"
pass "$N nodes connected and announced"

announced() { mosquitto_sub -p "$PLAIN" -t '$devices/+/announce' -W 2 2>/dev/null || true; }
announced >"$T/announces.jsonl"
assert_eq "$(jq -r .node_id "$T/announces.jsonl" | sort -u | wc -l)" "$N" "$N retained announces, one per node"
assert_eq "$(jq -r .hw_fingerprint.value "$T/announces.jsonl" | sort -u | wc -l)" "$N" \
  "each simulated node has its own hw_fingerprint"
verified=0
while read -r announce; do
  printf '%s' "$announce" | "$FLEETCTL" manifest verify --ca "$T/pki/ca.crt" >/dev/null && verified=$((verified + 1))
done <"$T/announces.jsonl"
assert_eq "$verified" "$N" "every announce verifies"
# RFC-0005 §9: every device announces exactly the seed's echo capability object.
want='{"cap_id":"echo","constraints":{"deadline_ms_default":2000,"max_concurrency":4,"rate_limit_rps":10},"kind":"system.echo","safety_class":"read_only","schema_ref":"mcp://schemas/system.echo.invoke.input@1.0.0","verbs":["invoke"]}'
assert_eq "$(jq -cS '.capabilities[] | select(.kind == "system.echo")' "$T/announces.jsonl" | sort -u)" "$want" \
  "every retained announce carries RFC-0005 section 9's echo capability (schema_ref system.echo.invoke.input@1.0.0)"

ACKS=$T/acks.jsonl
device_monitor "$PLAIN" '$devices/+/cmd_ack' "$ACKS"
i=0
for node in "${NODES[@]}"; do
  i=$((i + 1))
  device_send "$PLAIN" "$node" "$(device_cmd "$(device_msg_id "$i")" "sysecho.$node.echo.invoke" '{"message":"hello"}')"
done
i=0
for node in "${NODES[@]}"; do
  i=$((i + 1))
  ack=$(device_wait_ack "$ACKS" "$(device_msg_id "$i")" 20)
  [ "$(jq -r .payload.result.node_id <<<"$ack")" == "$node" ] || fail "node $node answered as $(jq -r .payload.result.node_id <<<"$ack")"
done
pass "all $N nodes answered echo with their own node_id"
assert_eq "$(grep -c '"in_reply_to"' "$ACKS")" "$N" "exactly one ack each"
assert_eq "$(ps -o nlwp= -p "$DEVICE_PID" | tr -d ' ')" 12 \
  "threads are shared: 1 main + 1 timer + 8 workers + Paho's 2, not per node"
