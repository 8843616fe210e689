#!/usr/bin/env bash
# What MCP offers an agent besides tools (issue 37 item 9), on the real plugin in the shipped
# configuration (mosquitto.conf's by_kind tools mode) with `fleetmcp-device --simulate 2
# --catalogue` and one node of tenant "other":
#  - the official SDK clients v1 and v2 (tests/node/prompts_client.mjs): prompts/list, prompts/get
#    of the three fleet prompts naming only served tools, completion/complete of node ids, cap_ids
#    and kinds within the tenant, a camera.still result linking its photo and resources/read of it;
#  - MCP revision 2026-07-28 beside the 2025 ones (issue 36, tests/node/stateless_client.mjs): the
#    v2 client pinned to 2026-07-28 and in `auto` mode, and the v1 client, each listing, calling,
#    reading with fleet_read and reading resources; a header/body mismatch; tenants apart; a call
#    whose client closes its response cancelled (one "cancel" audit line);
#  - the official conformance suite (@modelcontextprotocol/conformance, `server`), its scenarios
#    that apply to a server whose prompts and tools are its own: prompts-list and
#    completion-complete at 2025-11-25; dns-rebinding-protection and server-sse-multiple-streams
#    at both 2025-11-25 and 2026-07-28; and at 2026-07-28 server-stateless, caching,
#    http-header-validation, tools-list, prompts-list, resources-list, completion-complete and
#    input-required-result-unsupported-methods
#    (docs/http-front.md, "Revisions", says which do not apply and why). The CLI takes no headers,
#    so it reaches the front through a forwarding proxy that adds the bearer token (the suite's
#    other prompts-get-* scenarios ask for test prompts by name: docs/conformance.md). The proxy
#    names the front in Host, so dns-rebinding-protection's evil Host is not seen: its evil Origin
#    is what the front refuses (403).
. "$(dirname "$0")/lib.sh"

shipped=$(grep '^plugin_opt_http_tools_mode ' "$SRC/mosquitto.conf") || fail "mosquitto.conf sets no tools mode"
E2E_BROKER_LINES=("$shipped")
# --test-hooks: the echo handler holds a call on "sleep:<ms>", so a 2026 client can abort one in flight.
e2e_start 2 --catalogue --test-hooks
OTHER=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant other --count 1 --broker "mqtts://127.0.0.1:$PORT_TLS" 2>>"$T/enroll.log") ||
  fail "enrolling a node of tenant other"
device_start other --config "$T/pki/nodes/$OTHER/device.conf"
e2e_wait_online 3 30
pass "3 nodes online (one of tenant other)"

MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN TOKEN_OTHER=$(agent_token agent-other other "$E2E_SCOPES") NODES="${E2E_NODES[*]}" \
  OTHER=$OTHER timeout 120 node "$SRC/tests/node/prompts_client.mjs" || fail "MCP SDK clients (broker log: $T/broker.log)"
MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN TOKEN_OTHER=$(agent_token agent-other other "$E2E_SCOPES") NODES="${E2E_NODES[*]}" \
  OTHER=$OTHER timeout 120 node "$SRC/tests/node/stateless_client.mjs" ||
  fail "MCP SDK clients on 2026-07-28 (broker log: $T/broker.log)"
# The aborted call (stateless_client.mjs): closing its response cancelled it on the front, one audit line.
assert_eq "$(grep '"via":"mcp"' "$T/audit.log" | grep -c '"decision":"cancel"')" 1 \
  "audit: the call whose 2026 client closed its response is cancelled"
for how in input_required:accept input_required:decline; do
  grep -q "\"reason\":\"$how\"" "$T/audit.log" || fail "no audit line with reason $how"
  pass "audit: a confirmation line with reason $how"
done

# The conformance CLI through a proxy that adds the Authorization header (and nothing else).
PROXY_PORT=$(free_port)
PROXY_PORT=$PROXY_PORT UPSTREAM_PORT=$HTTP_PORT TOKEN=$E2E_TOKEN node --input-type=module - >"$T/proxy.log" 2>&1 <<'JS' &
import http from 'node:http';
const { PROXY_PORT, UPSTREAM_PORT, TOKEN } = process.env;
http.createServer((req, res) => {
  const headers = { ...req.headers, host: `127.0.0.1:${UPSTREAM_PORT}`, authorization: `Bearer ${TOKEN}` };
  const up = http.request({ host: '127.0.0.1', port: UPSTREAM_PORT, path: req.url, method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
}).listen(Number(PROXY_PORT), '127.0.0.1', () => console.log('listening'));
JS
track $!
wait_for_port "$PROXY_PORT"
# "revision scenario": the 2026-07-28 scenarios run at that revision's wire (no initialize).
for run in "2025-11-25 prompts-list" "2025-11-25 completion-complete" "2025-11-25 dns-rebinding-protection" \
  "2025-11-25 server-sse-multiple-streams" "2026-07-28 dns-rebinding-protection" "2026-07-28 server-sse-multiple-streams" \
  "2026-07-28 server-stateless" "2026-07-28 caching" \
  "2026-07-28 http-header-validation" "2026-07-28 tools-list" "2026-07-28 prompts-list" "2026-07-28 resources-list" \
  "2026-07-28 completion-complete" "2026-07-28 input-required-result-unsupported-methods"; do
  read -r revision scenario <<<"$run"
  out="$T/conformance-$revision-$scenario"
  # Its exit status counts the untestable checks too: checks.json is judged below.
  (cd "$T" && timeout 120 node "$SRC/tests/node/node20_conformance.mjs" server --url "http://127.0.0.1:$PROXY_PORT/mcp" \
    --scenario "$scenario" --spec-version "$revision" -o "$out") >"$out.log" 2>&1 || true
  checks=$(find "$out" -name checks.json | head -n 1)
  [ -n "$checks" ] || fail "conformance scenario $scenario at $revision wrote no checks.json: $(tail -n 20 "$out.log")"
  jq -r '.[] | select(.status != "SUCCESS") | "  \(.status) \(.id): \(.errorMessage // "")"' "$checks" | cut -c1-300
  # The only failures allowed are the checks that need the suite's own diagnostic tools
  # (test_missing_capability, test_streaming_elicitation, test_logging_tool), which a fleet has not:
  # "Not testable", or, for the undeclared-capability check, the isError result (E_MANIFEST_NOT_FOUND)
  # by_kind answers an unknown tool with, which the suite takes for "executed".
  assert_eq "$(jq -r '[.[] | select(.status == "FAILURE") |
      select((.errorMessage // "") | startswith("Not testable: server does not list the diagnostic tool") | not) |
      select(.id == "sep-2575-server-rejects-undeclared-capability" and .details.response.result.isError == true | not)
    ] | length' "$checks")" 0 \
    "conformance $scenario at $revision: no failed check but the untestable ones"
  assert_eq "$(jq -r '[.[] | select(.status == "SUCCESS")] | length > 0' "$checks")" true \
    "conformance $scenario at $revision: checks succeed"
done
