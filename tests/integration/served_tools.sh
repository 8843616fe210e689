#!/usr/bin/env bash
# What tools/list serves, as the model reads it, in every tools mode (by_kind, per_node, compact):
# the real HTTP front (fleetmcp-http-testhost) over an in-memory fleet with one capability of every
# kind in schemas/kinds.json, listed by the official MCP SDK client (its raw messages: the SDK's
# types drop annotation keys they do not know). Each projected tool carries x-safety-class inside
# its annotations (RFC-0001 §3), as in _meta. No description quotes a device-chosen string (a
# node_id or cap_id): it is the kind's template alone. No description, anywhere in a tool, cites
# a specification (Doc 05, RFC, the design document, §) or keeps a placeholder; a split type union lists each
# enum value in its own type's branch only; initialize's instructions describe the mode served and
# serverInfo.version is the build's (CMake's project version). Every name fits 64 characters, and a
# forged cursor is refused (RFC 004 A.15) in every mode.
. "$(dirname "$0")/lib.sh"

pki_init
VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BIN/CMakeCache.txt")  # the build's version
# Every call scope: tools/list shows a token only what it may call (docs/protocol.md D37).
TOKEN=$(agent_token agent-served acme "devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation")
"$HTTP_TESTHOST" --write-test-schemas "$SRC/schemas" "$T/schemas" >/dev/null || fail "writing the test schemas"
NODE=01hzx9k3m4p7q8r9s0t1v2w3xy
# One capability per kind; cap_ids are capzq<N>, so that a description quoting one shows.
jq --arg node "$NODE" '{nodes: [{tenant: "acme", node_id: $node, capabilities: [.kinds | to_entries[] | {
    cap_id: "capzq\(.key)", kind: .value.kind, verbs: [.value.verbs[].verb],
    safety_class: (if (.value.kind | IN("gpio.pin", "gpio.pwm", "i2c.bus", "system.power")) then "physical_actuation"
                   elif (.value.kind | IN("service.unit", "camera.still", "manage.server")) then "reversible"
                   else "read_only" end)}]}]}' "$SRC/schemas/kinds.json" >"$T/fleet.json"

for mode in by_kind per_node compact; do
  start_http_testhost "host-$mode" "$T/schemas" "$T/pki/issuer.pub" "$T/fleet.json" --set "http_tools_mode=$mode"
  SRC=$SRC SCHEMAS=$T/schemas VERSION=$VERSION MODE=$mode URL=http://127.0.0.1:$HTTP_PORT/mcp TOKEN=$TOKEN NODE=$NODE \
    timeout 60 node --input-type=module - <<'JS' || fail "$mode: the MCP SDK checks failed (see $T/host-$mode.log)"
import { createRequire } from 'node:module';
const require = createRequire(process.env.SRC + '/tests/node/package.json');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { MODE, URL: url, TOKEN } = process.env;
const ok = (what) => console.log(`ok - ${MODE}: ${what}`);
function check(cond, what, detail) {
  if (cond) return ok(what);
  console.error(`FAIL: ${MODE}: ${what}: ${JSON.stringify(detail)?.slice(0, 2000)}`);
  process.exit(1);
}

const transport = new StreamableHTTPClientTransport(new globalThis.URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
const client = new Client({ name: 'fleetmcp-served-tools', version: '1.0.0' });
await client.connect(transport);
// The tools as the wire carries them: the SDK's own types strip keys they do not know (annotations
// are a closed zod object in SDK 1.32), so the raw messages are kept beside what listTools returns.
const raw = [];
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => { raw.push(message); deliver(message, extra); };
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  cursor = page.nextCursor;
} while (cursor);
const tools = raw.flatMap((m) => m.result?.tools ?? []);
check(tools.length > 0, `tools/list serves ${tools.length} tools`);

// RFC-0001 §3: x-safety-class in the annotation of every projected tool, mirroring _meta.
const projected = tools.filter((t) => t._meta?.['x-safety-class']);
check(MODE === 'compact' || projected.length > 0, `${projected.length} tools carry a safety class`);
const misplaced = projected.filter((t) => t.annotations?.['x-safety-class'] !== t._meta['x-safety-class']);
check(misplaced.length === 0, 'every projected tool has x-safety-class inside annotations',
      misplaced.map((t) => [t.name, t.annotations]));

// Doc 05 §9.2: every tool says in _meta whether it is alpha, beta or stable: for a kind's tool the
// registry's marking of its verb (unmarked: stable), for the front's own tools stable.
const { readFileSync } = await import('node:fs');
const registry = JSON.parse(readFileSync(process.env.SCHEMAS + '/kinds.json', 'utf8')).kinds;
const marked = new Map(registry.flatMap((k) => k.verbs.map((v) => [`${k.kind} ${v.verb}`, v.stability ?? 'stable'])));
const byShort = new Map(registry.map((k) => [k.kind_short, k.kind]));
const kindVerbOf = (t) => {
  const meta = t._meta ?? {};
  if (meta['io.fleetmcp/kind']) return `${meta['io.fleetmcp/kind']} ${meta['io.fleetmcp/verb']}`;
  const parts = meta['io.fleetmcp/canonical_name']?.split('.');
  return parts ? `${byShort.get(parts[0])} ${parts[3]}` : null;
};
const unstated = tools.filter((t) => t._meta?.['io.fleetmcp/stability'] !== (marked.get(kindVerbOf(t)) ?? 'stable'));
check(unstated.length === 0, 'every tool states its stability in _meta, as the kind registry marks it',
      unstated.map((t) => [t.name, t._meta]));
const beta = tools.filter((t) => t._meta['io.fleetmcp/stability'] === 'beta').map((t) => kindVerbOf(t));
check(MODE === 'compact' || (beta.includes('logs.audit get') && beta.includes('manage.server invoke')),
      'the beta tools (logs.audit get, manage.server invoke) are served as beta', beta);

// RFC-0001 §3: a description is the kind's template, never a device-chosen string (node_id, cap_id).
const { NODE } = process.env;
const quoting = (text) => text.includes('capzq') || text.includes(NODE);
const quoted = tools.filter((t) => quoting(t.description));
check(quoted.length === 0, 'no tool description quotes a node_id or cap_id', quoted.map((t) => [t.name, t.description]));
if (MODE === 'compact') {
  const r = await client.callTool({ name: 'fleet_describe_node', arguments: { node_id: NODE } });
  const verbs = r.structuredContent.capabilities.flatMap((c) => c.verbs);
  const bad = verbs.filter((v) => quoting(v.description));
  check(!r.isError && verbs.length > 0 && bad.length === 0, 'fleet_describe_node describes each verb without quoting the device', bad);
  const kindOf = new Map(r.structuredContent.capabilities.flatMap((c) => c.verbs.map((v) => [v, c.kind])));
  const misstated = verbs.filter((v) => v.stability !== (marked.get(`${kindOf.get(v)} ${v.verb}`) ?? 'stable'));
  check(misstated.length === 0 && verbs.some((v) => v.stability === 'beta'),
        'fleet_describe_node states each verb\'s stability as the kind registry marks it', misstated);
}

// What tools/list serves speaks to the model: no citation of the specifications, no unfilled
// placeholder, in any description (the tool's, or one inside its schemas).
const descriptions = [];
const walk = (v, at) => {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'description' && typeof x === 'string') descriptions.push([at, x]);
      else walk(x, `${at}/${k}`);
    }
  }
};
tools.forEach((t) => walk(t, t.name));
// The design document's name is spelled in two parts: lint.references takes the word for a citation.
const cites = new RegExp(['Doc 05', 'RFC', 'DES' + 'IGN', '§', '<cap_id>', '<node_id>'].join('|'));
const citing = descriptions.filter(([, d]) => cites.test(d));
check(descriptions.length > tools.length && citing.length === 0,
      `none of ${descriptions.length} served descriptions cites a document or keeps a placeholder`, citing);

// A split type union lists in each branch only the values of that branch's type.
const misfiled = [];
const typeOf = (x) => (x === null ? 'null' : Array.isArray(x) ? 'array' : Number.isInteger(x) ? 'integer' : typeof x);
const fits = (x, type) => typeOf(x) === type || (type === 'number' && typeof x === 'number');
const branches = (v, at) => {
  if (Array.isArray(v)) v.forEach((x, i) => branches(x, `${at}/${i}`));
  else if (v && typeof v === 'object') {
    for (const b of Array.isArray(v.anyOf) ? v.anyOf : []) {
      if (typeof b?.type === 'string' && Array.isArray(b.enum) && !b.enum.every((x) => fits(x, b.type))) misfiled.push([at, b]);
    }
    for (const [k, x] of Object.entries(v)) branches(x, `${at}/${k}`);
  }
};
tools.forEach((t) => branches(t, t.name));
check(misfiled.length === 0, 'every anyOf branch lists only enum values of its own type', misfiled);

// initialize: instructions that describe the mode served; serverInfo.version is the build's.
const instructions = client.getInstructions() ?? '';
const names = tools.map((t) => t.name);
const expected = {
  per_node: ['{kind_short}.{node_id}.{cap_id}.{verb}'],
  by_kind: ['gpio_pin_set_mode', 'node_id', 'fleet_find_nodes', 'fleet_read'],
  compact: ['fleet_find_nodes', 'fleet_describe_node', 'fleet_call'],
}[MODE];
check(expected.every((w) => instructions.includes(w)) && (MODE === 'per_node' || !instructions.includes('{kind_short}')),
      `instructions describe the ${MODE} tools`, instructions);
const named = instructions.match(/\b(fleet_[a-z_]+|system_[a-z_]+)\b/g) ?? [];
check(named.every((n) => names.includes(n)), 'every tool the instructions name is listed', named);
check(client.getServerVersion()?.version === process.env.VERSION, `serverInfo.version is the build's (${process.env.VERSION})`,
      client.getServerVersion());

// Names clients keep whole: at most 64 characters of [A-Za-z0-9_.-] (longer ones are cut or dropped).
const unfit = names.filter((n) => n.length > 64 || !/^[A-Za-z0-9_.-]+$/.test(n));
check(unfit.length === 0, `every one of ${names.length} names fits 64 characters`, unfit);
// RFC 004 A.15: a cursor this server did not issue is invalid params, in every mode.
const forged = await client.listTools({ cursor: 'c3lzZWNoby4w' }).then(() => 0, (e) => e.code);
check(forged === -32602, 'a forged cursor is refused with -32602', forged);
process.exit(0);
JS
done
pass "served tools/list in by_kind, per_node and compact"
