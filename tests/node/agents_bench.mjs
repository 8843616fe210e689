// What an agent pays to use the fleet in one tools mode (bench/agents_bench.sh, issue 14): the whole
// tools/list (tools, bytes, tokens, latency) and three scripted agent tasks (echo one named node;
// health of all nodes; set a GPIO with confirmation), counting MCP round trips and the tokens the
// agent must read (tools/list plus the text content of every answer; the model sees `content`).
// Tokens are counted with gpt-tokenizer (o200k_base, the GPT-4o/o-series tokenizer), not bytes/4.
// Env: MCP_URL, TOKEN, MODE (per_node|by_kind|compact), NODES (count). Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { encode } from 'gpt-tokenizer';
import { connect as open } from './mcp_session.mjs';

const env = process.env;
const mode = env.MODE;
const tokens = (text) => encode(text).length;
const { client } = await open(env.MCP_URL, env.TOKEN, 'fleetmcp-agents-bench');

// One agent task: round trips and tokens read.
class Task {
  constructor() { this.trips = 0; this.tokens = 0; }
  async list() {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      this.trips++;
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.tokens += listTokens ?? tokens(JSON.stringify(tools));
    return tools;
  }
  async call(name, args) {
    const r = await client.callTool({ name, arguments: args });
    this.trips++;
    this.tokens += tokens(r.content.map((c) => c.text ?? '').join('\n'));
    return r;
  }
  figures() { return { round_trips: this.trips, tokens: this.tokens }; }
}
const structured = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);
const commitToken = (r) => /commit_token="([^"]+)"/.exec((r._meta?.['io.fleetmcp/error'] ?? JSON.parse(r.content[0].text)).suggested_fix)?.[1];

// ---- the whole tools/list ---------------------------------------------------------------------
let listTokens = null;
const times = [];
let tools;
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  tools = await new Task().list();
  times.push(performance.now() - t);
}
const listText = JSON.stringify(tools);
listTokens = tokens(listText);
times.sort((a, b) => a - b);
const list = { tools: tools.length, bytes: Buffer.byteLength(listText), tokens: listTokens, list_ms_median: Math.round(times[1]) };
const untyped = tools.filter((t) => JSON.stringify(t.inputSchema).includes('"arguments":{"type":"object","description"')).length;

// The nodes, as an agent would learn them (untimed: the tasks below count their own discovery).
const findAll = async (task, kind) => {
  const ids = [];
  let cursor;
  do {
    const r = await task.call('fleet_find_nodes', { kind, limit: 500, ...(cursor ? { cursor } : {}) });
    ids.push(...structured(r).nodes.map((n) => n.node_id));
    cursor = structured(r).next_cursor;
  } while (cursor);
  return ids;
};
const nodeIds = [...new Set(tools.filter((t) => t.name.startsWith('sysecho')).map((t) => t._meta['io.fleetmcp/canonical_name'].split('.')[1]))];
const scratch = new Task();
const allNodes = nodeIds.length ? nodeIds : await findAll(scratch, 'system.echo');
const named = allNodes[0];

// ---- task 1: echo one named node ----------------------------------------------------------------
const echo = new Task();
await echo.list();
if (mode === 'per_node') await echo.call(`sysecho.${named}.echo.invoke`, { message: 'hello' });
else if (mode === 'by_kind') await echo.call('system_echo_ping', { node_id: named, arguments: { message: 'hello' } });
else {
  await echo.call('fleet_describe_node', { node_id: named });
  await echo.call('fleet_call', { node_id: named, cap_id: 'echo', verb: 'invoke', arguments: { message: 'hello' } });
}

// ---- task 2: health of all nodes ------------------------------------------------------------------
const health = new Task();
const healthTools = await health.list();
let healthy = 0;
if (mode === 'per_node') {
  for (const t of healthTools.filter((t) => t.name.startsWith('health.'))) {
    const r = await health.call(t.name, {});
    if (!r.isError) healthy++;
  }
} else if (mode === 'by_kind') {
  const ids = allNodes.length <= 100 ? null : await findAll(health, 'system.health');
  for (let i = 0; i < (ids ? ids.length : 1); i += 100) {
    const r = await health.call('fleet_read', { kind: 'system.health', ...(ids ? { node_ids: ids.slice(i, i + 100) } : {}) });
    healthy += structured(r).ok_count;
  }
} else {
  const ids = await findAll(health, 'system.health');
  await health.call('fleet_describe_node', { node_id: ids[0] });
  for (const id of ids) {
    const r = await health.call('fleet_call', { node_id: id, cap_id: 'health', verb: 'snapshot', arguments: {} });
    if (!r.isError) healthy++;
  }
}

// ---- task 3: set a GPIO with confirmation (the pin is configured as an output beforehand) ----
const pinName = (verb) => `gpio.${named}.gpio17.${verb}`;
const first = await client.callTool({ name: pinName('invoke'), arguments: { mode: 'output' } });
await client.callTool({ name: pinName('invoke'), arguments: { mode: 'output', commit_token: commitToken(first) } });
const gpio = new Task();
await gpio.list();
const setCall = mode === 'per_node' ? [pinName('set'), { value: 'high' }]
  : mode === 'by_kind' ? ['gpio_pin_set', { node_id: named, arguments: { value: 'high' } }]
  : ['fleet_call', { node_id: named, cap_id: 'gpio17', verb: 'set', arguments: { value: 'high' } }];
if (mode === 'compact') await gpio.call('fleet_describe_node', { node_id: named });
const refused = await gpio.call(...setCall);
const token = commitToken(refused);
const again = JSON.parse(JSON.stringify(setCall[1]));
(mode === 'per_node' ? again : again.arguments).commit_token = token;
const set = await gpio.call(setCall[0], again);

// ---- by_kind: the busiest node in one shaped fleet_read (issue 37 item 8), against all health ----
let busiest;
if (mode === 'by_kind' && allNodes.length <= 100) {
  const busy = new Task();
  await busy.list();
  const r = await busy.call('fleet_read', { kind: 'system.health', fields: ['/cpu_usage_percent', '/cpu_temperature_celsius'],
    sort_by: '/cpu_usage_percent', top: 1 });
  busiest = { ...busy.figures(), answer_tokens: busy.tokens - listTokens, ok: !r.isError };
}

console.log(JSON.stringify({
  mode, nodes: Number(env.NODES), ...list, untyped_tools: untyped,
  echo: echo.figures(),
  health: { ...health.figures(), answer_tokens: health.tokens - listTokens, healthy },
  ...(busiest ? { busiest } : {}),
  gpio: { ...gpio.figures(), ok: !set.isError },
}));
await client.close();
process.exit(0);
