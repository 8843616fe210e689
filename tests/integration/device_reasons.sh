#!/usr/bin/env bash
# Doc 05's reasons reach the agent (Doc 05 §9.1.1): mosquitto with the plugin and its HTTP front,
# one `fleetmcp-device --simulate --catalogue` node, one node with the real systemd backend, and the
# official MCP SDK client. Each refusal carries its closed-enum reason in details.reason, with a
# message and suggested_fix templated for that reason by the plugin, never the device's own text:
#   invalid_argument     logs get with since after until
#   not_found            process get of a pid that does not exist
#   permission_denied    an I2C address outside the allow-list
#   failed_precondition  reload of a unit without ExecReload
#   unavailable          a service unit on a machine without the D-Bus system bus (skipped with one)
# (resource_exhausted and internal have no trigger here: the DeviceError unit tests cover their
# templates.) The RFC-0009 endpoint carries the same envelope.
. "$(dirname "$0")/lib.sh"

e2e_start 1 --catalogue
NODE=${E2E_NODES[0]}
REAL=$(device_enroll 1 "$PORT_TLS")
echo "capability.nginx = service.unit unit=nginx.service" >>"$T/pki/nodes/$REAL/device.conf"
device_start real --config "$T/pki/nodes/$REAL/device.conf"
e2e_wait_online 2 30
NO_DBUS=$([ -S /run/dbus/system_bus_socket ] || echo 1)

SRC=$SRC MCP_URL=$E2E_URL TOKEN=$E2E_TOKEN NODE=$NODE REAL=$REAL NO_DBUS=$NO_DBUS timeout 120 node --input-type=module - <<'JS' || fail "the MCP SDK checks failed (broker log: $T/broker.log)"
import { createRequire } from 'node:module';
const require = createRequire(process.env.SRC + '/tests/node/package.json');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { MCP_URL, TOKEN, NODE, REAL, NO_DBUS } = process.env;
function check(cond, what, detail) {
  if (cond) return console.log(`ok - ${what}`);
  console.error(`FAIL: ${what}: ${JSON.stringify(detail)}`);
  process.exit(1);
}
const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
const client = new Client({ name: 'fleetmcp-device-reasons', version: '1.0.0' });
await client.connect(transport);

// The device's own words for each case (device_client/): none may reach the agent.
const cases = [
  ['invalid_argument', 'E_BAD_REQUEST', `logs.${NODE}.app.get`,
   { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'since is after until'],
  ['not_found', 'E_BAD_REQUEST', `proc.${NODE}.procs.get`, { pid: 4194304 }, 'no process'],
  ['permission_denied', 'E_SAFETY_DENIED', `i2c.${NODE}.i2c1.get`, { address: 80, length: 1 }, 'address 80'],
  ['failed_precondition', 'E_BAD_REQUEST', `svc.${NODE}.nginx.invoke`, { action: 'reload' }, 'reload'],
];
if (NO_DBUS) cases.push(['unavailable', 'E_INTERNAL', `svc.${REAL}.nginx.get`, {}, 'D-Bus']);
const told = new Map();
for (const [reason, code, tool, args, deviceWords] of cases) {
  const r = await client.callTool({ name: tool, arguments: args });
  const e = r._meta?.['io.fleetmcp/error'];
  check(r.isError && e?.code === code && e?.details?.reason === reason,
        `${reason}: ${tool} is refused with ${code} and details.reason ${reason}`, r);
  check(e.message.length > 0 && e.suggested_fix.length > 0 && !JSON.stringify(e).includes(deviceWords)
        && !e.message.includes(reason),
        `${reason}: the message and suggested_fix are the plugin's, not the device's`, e);
  told.set(reason, `${e.message} | ${e.suggested_fix}`);
}
check(new Set(told.values()).size === cases.length, 'each reason reads differently', [...told]);
process.exit(0);
JS

# The RFC-0009 endpoint: the same envelope, with its HTTP status.
refused "$(tools_call "proc.$NODE.procs.get" '{"pid":4194304}')" 400 E_BAD_REQUEST "RFC-0009: not_found is a 400 E_BAD_REQUEST"
assert_eq "$(jq -r .details.reason <<<"$REFUSAL")" not_found "RFC-0009: the envelope carries details.reason"
pass "Doc 05 reasons reach the agent, templated per reason"
