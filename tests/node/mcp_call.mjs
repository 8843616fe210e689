// A small MCP client on the official TypeScript SDK for the tests that run the product off the
// simulator (tests/integration/docker_fleet.sh, virtual_pi.sh). Env: MCP_URL, TOKEN.
//   node mcp_call.mjs list                  every tool name, one per line (all pages)
//   node mcp_call.mjs call TOOL [ARGS_JSON] the result: structuredContent, or the error envelope
//                                           (an isError result), as one JSON line; exit 0 either way.
//                                           E_RATE_LIMITED is waited out as an agent does
//   node mcp_call.mjs confirm TOOL ARGS     two-phase (physical_actuation): the first call must be
//                                           refused with a commit token, the repeat's outcome printed
//   node mcp_call.mjs fleet N               the fleet checks (by_kind tools): N online echo nodes,
//                                           echo answered by every node with its own node_id,
//                                           one metrics subscribe giving two samples. "ok - …" lines
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fail, check, sleep } from './check.mjs';
import { connect as open, listAll } from './mcp_session.mjs';

const { MCP_URL, TOKEN } = process.env;
const [mode, ...rest] = process.argv.slice(2);

async function connect() {
  return (await open(MCP_URL, TOKEN, 'fleetmcp-offsim-test')).client;
}

function outcome(r) {
  if (r.isError) return r._meta?.['io.fleetmcp/error'] ?? JSON.parse(r.content[0].text);
  return r.structuredContent ?? JSON.parse(r.content[0].text);
}

// The default tools mode (by_kind): one typed tool per (kind, verb) whatever the fleet size, the
// node named by node_id, fleet_find_nodes to learn the node ids.
async function fleet(client, want) {
  const { names } = await listAll(client);
  check(['system_echo_ping', 'system_metrics_snapshot', 'system_metrics_subscribe', 'fleet_find_nodes'].every((n) => names.includes(n)),
        `tools/list: the by_kind echo, metrics and discovery tools (${names.length} tools for the fleet)`, names);
  const found = outcome(await client.callTool({ name: 'fleet_find_nodes', arguments: { kind: 'system.echo', state: 'online' } }));
  const nodes = (found.nodes ?? []).map((n) => n.node_id);
  check(nodes.length === want, `fleet_find_nodes: ${want} online nodes with an echo tool (${nodes.length})`, found);
  for (const node of nodes) {
    const r = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: node, arguments: { message: `hi ${node}` } } });
    if (r.isError || r.structuredContent.node_id !== node || r.structuredContent.message !== `hi ${node}`) fail(`echo on ${node}`, r);
  }
  console.log(`ok - echo answered by each of the ${nodes.length} nodes with its own node_id`);
  const samples = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
    if (params.logger === 'fleetmcp.metrics' && params.level === 'info') samples.push(params.data);
  });
  const sub = await client.callTool({ name: 'system_metrics_subscribe', arguments: { node_id: nodes[0], arguments: { interval_ms: 1000 } } });
  check(!sub.isError, 'metrics subscribe: answered at once with the lease', sub);
  for (let i = 0; i < 300 && samples.length < 2; i++) await sleep(100);  // up to 30 s on a loaded host
  check(samples.length >= 2 && samples.every((s) => s.node_id === nodes[0]),
        'metrics subscribe: two telemetry samples of the node as notifications/message', samples);
}

async function paced(client, name, args) {
  for (let i = 0; ; i++) {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    const out = outcome(r);
    if (!r.isError || out.code !== 'E_RATE_LIMITED' || i === 10) return out;
    await sleep(out.retry_after_ms);
  }
}

async function confirm(client, name, args) {
  const first = await paced(client, name, args);
  const token = /commit_token="([^"]+)"/.exec(first.suggested_fix ?? '')?.[1];
  if (first.code !== 'E_SAFETY_DENIED' || !token) fail(`${name}: the first call asks for confirmation`, first);
  return paced(client, name, { ...args, commit_token: token });
}

async function main() {
  const client = await connect();
  if (mode === 'list') console.log((await listAll(client)).names.join('\n'));
  else if (mode === 'call') {
    console.log(JSON.stringify(await paced(client, rest[0], JSON.parse(rest[1] ?? '{}'))));
  } else if (mode === 'confirm') {
    console.log(JSON.stringify(await confirm(client, rest[0], JSON.parse(rest[1] ?? '{}'))));
  } else if (mode === 'fleet') await fleet(client, Number(rest[0]));
  else fail(`unknown mode ${mode}`);
  await client.close();
}
main().then(() => process.exit(0), (e) => fail('unexpected error', String(e?.stack ?? e)));
