#!/usr/bin/env bash
# Fault: a device that stalls mid-call (SIGSTOP: connected, silent). The call fails at the
# deadline with E_DEADLINE_EXCEEDED; when the device wakes (SIGCONT) its late cmd_ack is audited
# as late and dropped, never delivered to anyone (issue 8).
#
# Issue 24: the woken device must not run what its caller was told had failed. It reads the cmd
# after ts_ms + deadline_ms and refuses it, not run (docs/protocol.md §4.3 step 5): a confirmed
# `gpio set high` sent while it was stopped leaves the pin low after SIGCONT, and the late ack says
# why. The caller of a call that acts is told the outcome is unknown and to read the state first.
# Cmds still queued in the broker behind the stopped node's in-flight window expire there
# (MQTT 5 message expiry) and never reach it.
. "$(dirname "$0")/lib.sh"

# One QoS 1 message in flight to each client, so that a second cmd to a stopped node waits in the
# broker's queue (the expiry part at the end).
E2E_BROKER_LINES=("max_inflight_messages 1")
e2e_start 1 --catalogue
NODE=${E2E_NODES[0]}
ECHO=sysecho.$NODE.echo.invoke
GPIO=gpio.$NODE.gpio17
# Two-phase confirmation (docs/protocol.md §7): refused with a commit token, repeated with it.
confirmed() {
  local first token
  first=$(tools_call "$1" "$2")
  token=$(answer_body "$first" | jq -r .suggested_fix | grep -oE 'commit_token="[^"]+"' | cut -d'"' -f2)
  [ -n "$token" ] || fail "no commit token for $1: $first"
  tools_call "$1" "$(jq -c --arg t "$token" '. + {commit_token: $t}' <<<"$2")"
}
count() { grep -c -- "$1" "$2" 2>/dev/null || true; }
# sleep_until START SECONDS: sleeps until SECONDS have passed since $SECONDS was START.
sleep_until() { local left=$(($2 - (SECONDS - $1))); [ "$left" -le 0 ] || sleep "$left"; }
NOT_RUN='the device did not run it'

# ---- a stalled read: its first cmd, timed by the node's status alone ------------------------
kill -STOP "$DEVICE_PID"
start_ms=$(date +%s%3N)
answer=$(tools_call "$ECHO" '{"message":"stalled"}')
took_ms=$(( $(date +%s%3N) - start_ms ))
kill -CONT "$DEVICE_PID"
refused "$answer" 504 E_DEADLINE_EXCEEDED "a call to a stalled device fails with E_DEADLINE_EXCEEDED, HTTP 504 (docs/protocol.md section 9)"
assert_contains "$(jq -r .suggested_fix <<<"$REFUSAL")" "retry later" "… and a read may simply be retried"
# deadline_ms_default is 2000: the answer comes at the deadline (plus the gateway's margin), not
# before it and not never.
[ "$took_ms" -ge 2000 ] || fail "the call ended after $took_ms ms, before its 2 s deadline"
pass "it failed at the deadline ($took_ms ms)"

# The device wakes and answers the cmd it was sent: that ack is late, and says it did not run.
wait_lines "$T/audit.log" 'late cmd_ack for a call that already finished' 1
line=$(grep 'late cmd_ack' "$T/audit.log" | head -n 1)
assert_eq "$(jq -r .decision <<<"$line")" drop "the late cmd_ack is audited and dropped"
assert_eq "$(jq -r .node_id <<<"$line")" "$NODE" "… naming the node that sent it"
assert_eq "$(jq -r .code <<<"$line")" E_DEADLINE_EXCEEDED "… the device refused the cmd it read after its deadline"
assert_contains "$(jq -r .reason <<<"$line")" "$NOT_RUN" "… and says it did not run it"
assert_eq "$(count "node=$NODE cmd.late" "$T/fleet.log")" 1 "the device logs it as cmd.late (the status gave it the plugin's clock)"

answer=$(tools_call "$ECHO" '{"message":"awake"}')
assert_eq "$(answer_body "$answer" | jq -r .message)" awake "the device answers again once it runs"

# ---- a stalled actuation (issue 24): the pin must not change --------------------------------
assert_eq "$(answer_body "$(confirmed "$GPIO.invoke" '{"mode":"output"}')" | jq -r .mode)" output "gpio17 configured as an output (two-phase)"
assert_eq "$(answer_body "$(tools_call "$GPIO.get" '{}')" | jq -r .value)" low "gpio17 reads low"
late_before=$(count 'late cmd_ack' "$T/audit.log")
kill -STOP "$DEVICE_PID"
stopped=$SECONDS
answer=$(confirmed "$GPIO.set" '{"value":"high"}')
refused "$answer" 504 E_DEADLINE_EXCEEDED "a confirmed gpio set to a stalled device fails with E_DEADLINE_EXCEEDED"
assert_contains "$(jq -r .message <<<"$REFUSAL")" "the outcome is unknown" "… saying the outcome is unknown (it acts: not a read)"
assert_contains "$(jq -r .suggested_fix <<<"$REFUSAL")" "read the current state first" "… and to read the state before retrying"
sleep_until "$stopped" 10  # the device stays stopped 10 s, as in the issue
kill -CONT "$DEVICE_PID"
wait_lines "$T/audit.log" 'late cmd_ack' $((late_before + 1))  # the woken device answered it
assert_eq "$(answer_body "$(tools_call "$GPIO.get" '{}')" | jq -r .value)" low "gpio17 is still low after SIGCONT: no late actuation"
line=$(grep 'late cmd_ack' "$T/audit.log" | tail -n 1)
assert_contains "$(jq -r .reason <<<"$line")" "$NOT_RUN" "the device's late ack says it did not run the gpio set"
assert_eq "$(answer_body "$(confirmed "$GPIO.set" '{"value":"high"}')" | jq -r .value)" high "a new confirmed set on the awake device drives it high"

# ---- cmds queued in the broker expire there ---------------------------------------------------
# With the node stopped the broker sends it one cmd (max_inflight_messages 1) and queues the next
# two. All three callers are answered at 5 s; the queued cmds expire (5 s, the gateway deadline)
# and are dropped when the woken node frees its window, so only the first one reaches it (the
# device logs each late cmd it reads; the audit log throttles lines alike within a second). A call
# made after SIGCONT queues behind them: once it is answered, the queue has been worked through.
late_before=$(count "node=$NODE cmd.late" "$T/fleet.log")
kill -STOP "$DEVICE_PID"
stopped=$SECONDS
pids=()
for i in 1 2 3; do
  tools_call "$ECHO" "{\"message\":\"queued $i\"}" >"$T/queued-$i.out" &
  pids+=($!)
  sleep 0.2
done
wait "${pids[@]}"
for i in 1 2 3; do
  assert_eq "$(answer_status "$(cat "$T/queued-$i.out")")" 504 "queued call $i: E_DEADLINE_EXCEEDED at the gateway deadline"
done
sleep_until "$stopped" 8  # past the 5 s expiry (mosquitto counts whole seconds)
kill -CONT "$DEVICE_PID"
answer=$(tools_call "$ECHO" '{"message":"after"}')
assert_eq "$(answer_body "$answer" | jq -r .message)" after "a call after SIGCONT is answered"
assert_eq "$(( $(count "node=$NODE cmd.late" "$T/fleet.log") - late_before ))" 1 \
  "only the cmd already sent to the stopped node reached it; the 2 queued in the broker expired there"
