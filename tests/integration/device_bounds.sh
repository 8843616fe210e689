#!/usr/bin/env bash
# Issue 33 items 3 and 6 on a live fleet: mosquitto with the plugin, max_packet_size as the shipped
# mosquitto.conf sets it, and one `fleetmcp-device --simulate --catalogue` node whose journal holds
# lines of 2,048 bytes (sim_message_bytes) and whose audit keeps 10 entries per ring.
#   3. logs get limit=500 asks for ~1 MB, four times what a cmd_ack may carry. The node answers a
#      page that fits, with has_more, and offset=returned_count gets the next; it stays connected.
#      (Before: the broker disconnected the node for the oversized packet and the call failed.)
#   6. a service restart, then more reads than the audit keeps: logs.audit get still shows who
#      restarted it. (Before: one ring of 10, and the reads pushed the restart out.)
. "$(dirname "$0")/lib.sh"

E2E_BROKER_LINES=("max_packet_size 266240")
E2E_NODE_LINES=("capability.app = logs.journal units=fleetmcp-device.service sim_message_bytes=2048 deadline_ms_default=5000"
                "capability.audit = logs.audit max_entries=10")
e2e_start 1 --catalogue
N=${E2E_NODES[0]}

# ---- item 3: a result too big to send --------------------------------------------------------
answer=$(tools_call "logs.$N.app.get" '{"limit":500}' --max-time 30)
assert_eq "$(answer_status "$answer")" 200 "logs get of 500 lines of 2,048 bytes answers (it used to drop the node)"
page=$(answer_body "$answer")
returned=$(jq -r .returned_count <<<"$page")
[ "$returned" -gt 100 ] && [ "$returned" -lt 500 ] || fail "the page holds $returned entries; a budget-sized page expected"
assert_eq "$(jq -r '"\(.has_more) \(.entries | length) \(.entries[0].message | length)"' <<<"$page")" \
  "true $returned 2048" "the page stops at the cmd_ack's budget with has_more ($returned entries of 2,048 bytes)"
device_validate mcp://schemas/logs.journal.get.output@1.0.0 "$page"
# The journal grows meanwhile: `until` pins the window the offset counts in.
until=$(jq -r '.entries[0].timestamp' <<<"$page")
next=$(answer_body "$(tools_call "logs.$N.app.get" "{\"limit\":500,\"until\":\"$until\",\"offset\":$returned}" --max-time 30)")
[ "$(jq -r '.entries[0].timestamp' <<<"$next")" \< "$(jq -r '.entries[-1].timestamp' <<<"$page")" ] \
  || fail "offset=returned_count does not continue where the page ended: $(jq -c '.entries[0] | del(.message)' <<<"$next")"
pass "offset=returned_count gets the next, older page"
assert_eq "$(answer_body "$(echo_call "$N" still-here)" | jq -r .message)" still-here "the node answers"
assert_eq "$(grep -c 'mqtt.connected' "$T/fleet.log")" 1 "the node kept its first connection"

# ---- item 6: the audit keeps actuations apart from reads -------------------------------------
restart=$(tools_call "svc.$N.nginx.invoke" '{"action":"restart"}')
assert_eq "$(answer_status "$restart")" 200 "a service restart (reversible) is run"
for i in $(seq 1 15); do
  answer=$(echo_call "$N" "read-$i")
  [ "$(answer_status "$answer")" = 200 ] || fail "read $i: $answer"
  sleep 0.12  # under echo's 10 calls per second
done
audit=$(answer_body "$(tools_call "audit.$N.audit.get" '{"limit":200}')")
device_validate mcp://schemas/logs.audit.get.output@1.0.0 "$audit"
assert_eq "$(jq -r '[.entries[] | select(.cap_id == "nginx")] | map("\(.verb) \(.outcome)") | join(",")' <<<"$audit")" \
  "invoke ok" "after 15 reads the audit of 10 still shows the restart"
assert_eq "$(jq -r '[.entries[] | select(.cap_id == "echo")] | length' <<<"$audit")" 10 "and the 10 newest reads"
assert_eq "$(jq -r '[.entries[].seq] == ([.entries[].seq] | sort | reverse)' <<<"$audit")" true "newest first across both"
pass "results are bounded by bytes and actuations outlive read floods"
