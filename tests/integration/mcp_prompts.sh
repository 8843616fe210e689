#!/usr/bin/env bash
# What MCP offers an agent besides tools (issue 37 item 9), on the real plugin in the shipped
# configuration (mosquitto.conf's by_kind tools mode) with `fleetmcp-device --simulate 2
# --catalogue` and one node of tenant "other":
#  - the official SDK clients v1 and v2 (tests/node/prompts_client.mjs): prompts/list, prompts/get
#    of the three fleet prompts naming only served tools, completion/complete of node ids, cap_ids
#    and kinds within the tenant, a camera.still result linking its photo and resources/read of it;
#  - the official conformance suite (@modelcontextprotocol/conformance, `server`), its scenarios
#    that apply to a server whose prompts are its own: prompts-list and completion-complete. The
#    CLI takes no headers, so it reaches the front through a forwarding proxy that adds the bearer
#    token (the suite's other prompts-get-* scenarios ask for test prompts by name: docs/conformance.md).
. "$(dirname "$0")/lib.sh"

shipped=$(grep '^plugin_opt_http_tools_mode ' "$SRC/mosquitto.conf") || fail "mosquitto.conf sets no tools mode"
E2E_BROKER_LINES=("$shipped")
e2e_start 2 --catalogue
OTHER=$("$FLEETCTL" pki enroll --dir "$T/pki" --tenant other --count 1 --broker "mqtts://127.0.0.1:$PORT_TLS" 2>>"$T/enroll.log") ||
  fail "enrolling a node of tenant other"
device_start other --config "$T/pki/nodes/$OTHER/device.conf"
e2e_wait_online 3 30
pass "3 nodes online (one of tenant other)"

MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN TOKEN_OTHER=$(agent_token agent-other other "$E2E_SCOPES") NODES="${E2E_NODES[*]}" \
  OTHER=$OTHER timeout 120 node "$SRC/tests/node/prompts_client.mjs" || fail "MCP SDK clients (broker log: $T/broker.log)"

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
for scenario in prompts-list completion-complete; do
  (cd "$T" && timeout 120 node "$SRC/tests/node/node20_conformance.mjs" server --url "http://127.0.0.1:$PROXY_PORT/mcp" \
    --scenario "$scenario" -o "$T/conformance-$scenario") >"$T/conformance-$scenario.log" 2>&1 ||
    fail "conformance scenario $scenario: $(tail -n 20 "$T/conformance-$scenario.log")"
  checks=$(find "$T/conformance-$scenario" -name checks.json | head -n 1)
  [ -n "$checks" ] || fail "conformance scenario $scenario wrote no checks.json"
  assert_eq "$(jq -r '[.[] | select(.status == "FAILURE")] | length' "$checks")" 0 "conformance $scenario: no failed check"
  assert_eq "$(jq -r --arg s "$scenario" '[.[] | select(.id == $s) | .status] | join(",")' "$checks")" SUCCESS \
    "conformance $scenario: its check succeeds"
done
