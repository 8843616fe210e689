#!/usr/bin/env bash
# Fault: a device that stalls mid-call (SIGSTOP: connected, silent). The call fails at the
# deadline with E_DEADLINE_EXCEEDED; when the device wakes (SIGCONT) its late cmd_ack is audited
# as late and dropped, never delivered to anyone (issue 8).
. "$(dirname "$0")/lib.sh"

e2e_start 1
NODE=${E2E_NODES[0]}
call() {  # RFC-0009 POST /mcp/tools/call: body, then the HTTP status on the last line
  curl -s -o - -w '\n%{http_code}' -X POST "$E2E_BASE/mcp/tools/call" \
    -H "Authorization: Bearer $E2E_TOKEN" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d "{\"tool\":\"sysecho.$NODE.echo.invoke\",\"arguments\":{\"message\":\"$1\"}}"
}

kill -STOP "$DEVICE_PID"
start_ms=$(date +%s%3N)
answer=$(call stalled)
took_ms=$(( $(date +%s%3N) - start_ms ))
kill -CONT "$DEVICE_PID"
assert_eq "$(jq -r .code <<<"$(head -n -1 <<<"$answer")")" E_DEADLINE_EXCEEDED "a call to a stalled device fails with E_DEADLINE_EXCEEDED"
assert_eq "$(tail -n 1 <<<"$answer")" 504 "… with HTTP 504 (docs/protocol.md section 9)"
# deadline_ms_default is 2000: the answer comes at the deadline (plus the gateway's margin), not
# before it and not never.
[ "$took_ms" -ge 2000 ] || fail "the call ended after $took_ms ms, before its 2 s deadline"
pass "it failed at the deadline ($took_ms ms)"

# The device wakes, handles the cmd it was sent and answers: that ack is late.
deadline=$((SECONDS + 20))
until grep -q 'late cmd_ack for a call that already finished' "$T/audit.log" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "no late cmd_ack in the audit log (see $T/audit.log, $T/fleet.log)"
  sleep 0.2
done
line=$(grep 'late cmd_ack' "$T/audit.log" | head -n 1)
assert_eq "$(jq -r .decision <<<"$line")" drop "the late cmd_ack is audited and dropped"
assert_eq "$(jq -r .node_id <<<"$line")" "$NODE" "… naming the node that sent it"

answer=$(call awake)
assert_eq "$(jq -r .message <<<"$(head -n -1 <<<"$answer")")" awake "the device answers again once it runs"
