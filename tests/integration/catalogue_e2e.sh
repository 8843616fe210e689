#!/usr/bin/env bash
# The Doc 05 catalogue end to end: mosquitto with the plugin and its HTTP front, two
# `fleetmcp-device --simulate --catalogue` nodes, and the official MCP SDK client. Every catalogue
# tool of a node is listed with its schemas and safety class and called; each result validates
# against the tool's outputSchema (Ajv). Refusals carry the right codes: a resource outside the
# allow-list (E_SAFETY_DENIED from the device), a tool that does not exist (-32602), a missing
# scope (HTTP 403 insufficient_scope), an unconfirmed actuation (E_SAFETY_DENIED with a commit
# token), the rate limit (E_RATE_LIMITED with retry_after_ms). A commit token works once only,
# a GPIO write with duration_ms reverts the pin, and a `format: png` photo decodes (pngjs) to the
# simulated camera's pixels. The device's command audit (logs.audit) pages back, by cursor, what
# the calls before it did, without their arguments. Every tool served as stable (Doc 05 §9.2) has
# answered a call with a valid result.
. "$(dirname "$0")/lib.sh"

export TMPDIR=$T   # simulated photos
e2e_start 2 --catalogue
READ_TOKEN=$(agent_token agent-reader acme "devices:read tools:call:read_only")
export E2E_URL E2E_TOKEN READ_TOKEN SRC NODE=${E2E_NODES[0]}

node --input-type=module - <<'JS' || fail "the MCP SDK checks failed"
import { createRequire } from 'node:module';
const require = createRequire(process.env.SRC + '/tests/node/package.json');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const Ajv2020 = require('ajv/dist/2020').default;
const { PNG } = require('pngjs');
const fs = require('node:fs');

const { E2E_URL, E2E_TOKEN, READ_TOKEN, NODE } = process.env;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const ok = (what) => console.log(`ok - ${what}`);
function fail(what, detail) {
  console.error(`FAIL: ${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  process.exit(1);
}
const check = (cond, what, detail) => (cond ? ok(what) : fail(what, detail));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function connect(token) {
  const transport = new StreamableHTTPClientTransport(new URL(E2E_URL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'fleetmcp-catalogue-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
const envelope = (r) => r.structuredContent?.code ? r.structuredContent
  : (r._meta?.['io.fleetmcp/error'] ?? JSON.parse(r.content[0].text));

const client = await connect(E2E_TOKEN);
const tools = new Map();
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  for (const t of page.tools) tools.set(t.name, t);
  cursor = page.nextCursor;
} while (cursor);

// The listing may present names dotted or dashed (docs/protocol.md D9); find each by its tokens.
function tool(kindShort, cap, verb) {
  for (const [name, t] of tools) {
    const parts = name.split(/[.-]/);
    if (parts[0] === kindShort && parts[1] === NODE && parts[2] === cap && parts[3] === verb) return t;
  }
  fail(`tools/list has ${kindShort}.${NODE}.${cap}.${verb}`, [...tools.keys()].filter((n) => n.includes(NODE)));
}
const mine = [...tools.keys()].filter((n) => n.includes(NODE));
check(mine.length === 26, `node ${NODE} lists 26 tools (echo, metrics and the 23 of the catalogue)`, mine.length);
check(mine.every((n) => n.length <= 64), 'every projected name is at most 64 characters');

const safety = (t) => t['x-safety-class'] ?? t._meta?.['x-safety-class'] ?? t.annotations?.['x-safety-class'];
const gpioSet = tool('gpio', 'gpio17', 'set');
check(gpioSet.outputSchema && gpioSet.inputSchema.properties.duration_ms, 'gpio set carries its input and output schemas');
check(safety(gpioSet) === 'physical_actuation', 'gpio set is physical_actuation', gpioSet);
check(safety(tool('svc', 'nginx', 'invoke')) === 'reversible', 'service invoke is reversible');
check(safety(tool('cam', 'camera0', 'invoke')) === 'reversible', 'camera invoke is reversible');
check(safety(tool('logs', 'app', 'get')) === 'read_only', 'logs get is read_only');
check(gpioSet.annotations?.destructiveHint === true, 'gpio set is annotated destructive');
check(tool('gpio', 'gpio17', 'get').annotations?.readOnlyHint === true, 'gpio get is annotated read-only');

async function call(t, args, c = client) { return c.callTool({ name: t.name, arguments: args }); }
// As a well-behaved agent does: wait out E_RATE_LIMITED (services allow 1 call/s, the camera 0.5).
async function paced(t, args, c = client) {
  for (let i = 0; ; i++) {
    const r = await call(t, args, c);
    if (!r.isError || envelope(r).code !== 'E_RATE_LIMITED' || i === 5) return r;
    await sleep(envelope(r).retry_after_ms);
  }
}
const answered = new Set();  // tools that gave a valid result
async function expectResult(t, args, what, c = client) {
  const r = await paced(t, args, c);
  if (r.isError) fail(what, envelope(r));
  answered.add(t.name);
  // Several verbs share one output schema ($id): compile each once.
  const validate = (t.outputSchema.$id && ajv.getSchema(t.outputSchema.$id)) || ajv.compile(t.outputSchema);
  check(validate(r.structuredContent), `${what}: result valid against outputSchema`, validate.errors);
  return r.structuredContent;
}
async function expectRefusal(t, args, code, what, c = client) {
  const r = await paced(t, args, c);
  check(r.isError && envelope(r).code === code, what, r);
  return envelope(r);
}
// Two-phase (docs/protocol.md §7): the first call is refused with a commit token, the repeat executes.
async function confirmed(t, args, what) {
  const first = await expectRefusal(t, args, 'E_SAFETY_DENIED', `${what}: the first call asks for confirmation`);
  const token = /commit_token="([^"]+)"/.exec(first.suggested_fix)?.[1];
  check(token, `${what}: the refusal carries a commit token`, first);
  const out = await expectResult(t, { ...args, commit_token: token }, `${what}: confirmed`);
  return { out, token };
}

// ---- read-only tools -------------------------------------------------------------------
await expectResult(tool('sysinfo', 'info', 'get'), {}, 'system.info get');
await expectResult(tool('sys', 'metrics', 'snapshot'), { include: ['cpu', 'mem'] }, 'system.metrics snapshot');
// Doc 05 §4.1 get_realtime_metrics answers the HealthSnapshot: the health snapshot tool (D31). The
// metrics snapshot keeps RFC-0001's MetricsSample and tells an agent where the HealthSnapshot is.
const health = await expectResult(tool('health', 'health', 'snapshot'), {}, 'system.health snapshot');
const doc05Health = ['timestamp', 'cpu_usage_percent', 'memory_used_bytes', 'memory_total_bytes', 'disk_used_bytes', 'disk_total_bytes'];
check(doc05Health.every((f) => f in health), 'the health snapshot carries the HealthSnapshot fields of Doc 05 section 3.2', health);
check(/health snapshot tool \(kind system\.health\)/.test(tool('sys', 'metrics', 'snapshot').description),
      'the metrics snapshot description sends an agent to the health snapshot for the HealthSnapshot',
      tool('sys', 'metrics', 'snapshot').description);
await expectResult(tool('net', 'net', 'get'), {}, 'network.status get');
const procs = await expectResult(tool('proc', 'procs', 'snapshot'), { limit: 5, sort_by: 'memory_rss', sort_order: 'desc' }, 'process.table snapshot');
check(procs.cpu_interval_ms >= 900, 'process.table snapshot: cpu_percent over a recent window (cpu_interval_ms)', procs);
await expectResult(tool('proc', 'procs', 'get'), { pid: procs.processes[0].pid }, 'process.table get');
await expectResult(tool('logs', 'app', 'get'), { level: 'err', limit: 10 }, 'logs.journal get');
const unit = await expectResult(tool('svc', 'nginx', 'get'), {}, 'service.unit get');
check(unit.user === 'www-data' && unit.restart_policy === 'on-failure', 'service.unit get: the configuration without secrets (D35)', unit);
const button = await expectResult(tool('gpio', 'button', 'get'), {}, 'gpio.pin get (read-only pin)');
check(JSON.stringify(button.allowed_modes) === '["input"]', 'gpio.pin get: a writable=false pin allows input only (D28)', button);
await expectResult(tool('pwm', 'pwm0', 'get'), {}, 'gpio.pwm get');
const scan = await expectResult(tool('i2c', 'i2c1', 'snapshot'), {}, 'i2c.bus snapshot');
check(JSON.stringify(scan.addresses) === '[72,118]', 'the scan reports the allow-listed devices that answer', scan);
await expectResult(tool('i2c', 'i2c1', 'get'), { address: 72, register: 0x10, length: 4 }, 'i2c.bus get');
await expectResult(tool('mgmt', 'server', 'get'), {}, 'manage.server get');

// ---- reversible tools --------------------------------------------------------------------
const restarted = await expectResult(tool('svc', 'nginx', 'invoke'), { action: 'stop' }, 'service.unit invoke');
check(restarted.status === 'inactive', 'the service stopped', restarted);
await expectResult(tool('svc', 'nginx', 'set'), { enabled: true }, 'service.unit set');
const photo = await expectResult(tool('cam', 'camera0', 'invoke'), { resolution: '640x480' }, 'camera.still invoke');
check(photo.file_path.includes(`/fleetmcp-photos/${NODE}/camera0-`) && photo.preview.data_base64.startsWith('/9j/'),
      'the photo is stored under a generated path, with an inline JPEG preview', photo.file_path);
// format png (Doc 05 §7.1): the file is a PNG that pngjs, a decoder independent of libpng, reads
// back pixel for pixel: the simulated camera's colour bars, lossless.
const png = await expectResult(tool('cam', 'camera0', 'invoke'), { resolution: '640x480', format: 'png' }, 'camera.still invoke, format png');
check(png.format === 'png' && png.file_path.endsWith('.png') && fs.statSync(png.file_path).size === png.size_bytes,
      'the png photo is stored as .png with its size', png);
const decoded = PNG.sync.read(fs.readFileSync(png.file_path));
const pixel = (x, y) => [...decoded.data.subarray((y * decoded.width + x) * 4, (y * decoded.width + x) * 4 + 3)];
check(decoded.width === 640 && decoded.height === 480, 'the PNG decodes to 640x480', [decoded.width, decoded.height]);
check(JSON.stringify([pixel(0, 0), pixel(100, 10), pixel(639, 0)]) === '[[235,235,235],[235,235,16],[16,16,16]]',
      'the PNG holds the colour bars exactly (lossless)', [pixel(0, 0), pixel(100, 10), pixel(639, 0)]);
// The self-update is judged as physical actuation (docs/protocol.md D36): confirmed.
await confirmed(tool('mgmt', 'server', 'invoke'), { channel: 'stable' }, 'manage.server invoke');

// ---- physical actuation: two-phase, once only ----------------------------------------------
const configure = tool('gpio', 'gpio17', 'invoke');
const { token } = await confirmed(configure, { mode: 'output' }, 'gpio.pin invoke');
await expectRefusal(configure, { mode: 'output', commit_token: token }, 'E_SAFETY_DENIED', 'a commit token works only once');
const high = await confirmed(gpioSet, { value: 'high', duration_ms: 600 }, 'gpio.pin set with duration_ms');
check(high.out.value === 'high' && high.out.revert_in_ms > 0, 'the pin is high with a revert pending', high.out);
let value = 'high';
for (let i = 0; i < 50 && value !== 'low'; i++) {
  await sleep(100);
  const r = await call(tool('gpio', 'gpio17', 'get'), {});
  if (!r.isError) value = r.structuredContent.value;
}
check(value === 'low', 'duration_ms reverted the pin to low');
await confirmed(tool('pwm', 'pwm0', 'set'), { frequency_hz: 1000, duty_cycle_percent: 50 }, 'gpio.pwm set');
await confirmed(tool('i2c', 'i2c1', 'set'), { address: 118, register: 1, data: [1, 2] }, 'i2c.bus set');
await confirmed(tool('power', 'reboot', 'invoke'), { delay_seconds: 60 }, 'system.power invoke (simulated)');

// ---- refusals ------------------------------------------------------------------------------
// The gateway templates the message of a device-side error (docs/protocol.md §9: never device strings), so
// only the code travels.
const denied = await expectRefusal(tool('i2c', 'i2c1', 'get'), { address: 80, length: 1 }, 'E_SAFETY_DENIED',
                                   'an I2C address outside the allow-list is refused by the device');
check(/^[0-9A-HJKMNP-TV-Z]{26}$/.test(denied.correlation_id ?? ''), 'the envelope carries the call\'s msg_id as correlation_id (RFC-0001 section 4)', denied);
try {
  await client.callTool({ name: `svc.${NODE}.sshd.get`, arguments: {} });
  fail('a unit that is not allow-listed has no tool', 'no error');
} catch (e) {
  check(e.code === -32602, 'a unit that is not allow-listed has no tool (-32602)', { code: e.code, message: e.message });
}
// ---- the device's own command audit (Doc 05 §2.2 logs.get_recent_audit_logs) ---------------
const marker = 'argument-value-7f3a';
await expectResult(tool('sysecho', 'echo', 'invoke'), { message: marker }, 'system.echo invoke with a marker argument');
const auditGet = tool('audit', 'audit', 'get');
check(safety(auditGet) === 'read_only', 'logs.audit get is read_only');
const audit = [];
let auditCursor;
for (let pages = 0; pages < 50; pages++) {
  const page = await expectResult(auditGet, auditCursor ? { limit: 7, cursor: auditCursor } : { limit: 7 }, `logs.audit get page ${pages + 1}`);
  audit.push(...page.entries);
  auditCursor = page.next_cursor;
  if (!auditCursor) break;
}
const seqs = audit.map((e) => e.seq);
check(seqs.every((q, i) => i === 0 || q === seqs[i - 1] - 1) && seqs.at(-1) === 1,
      'the pages run newest first from the newest entry down to seq 1, none twice, none missed', seqs);
check(audit.some((e) => e.msg_id === denied.correlation_id && e.cap_id === 'i2c1' && e.verb === 'get' && e.outcome === 'E_SAFETY_DENIED'),
      'the audit records the refused I2C read with its outcome, under the correlation_id its caller got', audit.filter((e) => e.cap_id === 'i2c1'));
check(audit.some((e) => e.cap_id === 'camera0' && e.verb === 'invoke' && e.outcome === 'ok'), 'the audit records the photos');
check(audit[0].cap_id === 'echo' && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(audit[0].msg_id) && !JSON.stringify(audit).includes(marker),
      'the newest entry is the echo call, named by its msg_id, without its argument', audit[0]);

const reader = await connect(READ_TOKEN);
await expectResult(tool('gpio', 'gpio17', 'get'), {}, 'a read-only token may read a physical_actuation pin', reader);
try {
  const r = await call(tool('svc', 'nginx', 'invoke'), { action: 'start' }, reader);
  check(r.isError && envelope(r).code === 'E_SAFETY_DENIED', 'a read-only token cannot restart a service', r);
} catch (e) {
  check(/403|scope/.test(String(e.message)) || e.code === -32600, 'a read-only token cannot restart a service (403 insufficient_scope)', e.message);
}
const cam = tool('cam', 'camera0', 'invoke');
let limited;
for (let i = 0; i < 3 && !limited; i++) {
  const r = await call(cam, { resolution: '640x480' });
  if (r.isError && envelope(r).code === 'E_RATE_LIMITED') limited = envelope(r);
}
check(limited && limited.retry_after_ms > 0, 'the camera rate limit (0.5/s) refuses with E_RATE_LIMITED and retry_after_ms', limited);

// Doc 05 §9.2 asks CI to hold stable tools to a stricter coverage: every tool the node serves as
// stable has answered a call with a result valid against its outputSchema above.
// metrics subscribe answers over MCP at once and sends its samples on the GET stream:
// e2e_mcp_client.mjs and metrics_subscribe_client.mjs check it.
const stable = mine.filter((n) => tools.get(n)._meta?.['io.fleetmcp/stability'] === 'stable' && !n.endsWith('subscribe'));
const untested = stable.filter((n) => !answered.has(n));
check(stable.length >= 20 && untested.length === 0, `each of the node's ${stable.length} stable tools answered a call with a valid result`,
      { untested, stable: stable.length });
process.exit(0);
JS
pass "the catalogue end to end through the MCP front"
