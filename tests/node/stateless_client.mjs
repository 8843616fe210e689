// MCP revision 2026-07-28 beside the 2025 ones on one /mcp (issue 36): the v2 SDK client
// (@modelcontextprotocol/client) pinned to 2026-07-28 and in its `auto` mode, and the v1 SDK client
// (2025-11-25 sessions) as before, each: tools/list, a call, fleet_read, resources; a raw 2026
// request whose Mcp-Name header disagrees with its body (400, -32020, nothing run); another
// tenant's node invisible; the confirmation of an actuation as an input_required result (accept,
// decline through the v2 client's elicitation handler; a tampered requestState); a call its
// client aborts (closing the response) is cancelled. Driven by tests/integration/mcp_prompts.sh, which passes in env: MCP_URL,
// TOKEN, TOKEN_OTHER (tenant "other"), NODES (acme's node ids, space-separated), OTHER (other's node).
// Prints "ok - …" per check; exits 1 on the first failure.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { check, envelope } from './check.mjs';
import { connect, listAll } from './mcp_session.mjs';

const { MCP_URL, TOKEN, TOKEN_OTHER, OTHER } = process.env;
const NODES = process.env.NODES.split(' ').sort();

const modes = {
  pin: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  auto: { versionNegotiation: { mode: 'auto' } },
};

async function open(mode, token) {
  if (mode === 'v1') return (await connect(MCP_URL, token, 'fleetmcp-stateless-v1')).client;
  const client = new ClientV2({ name: `fleetmcp-stateless-${mode}`, version: '1.0.0' }, modes[mode]);
  await client.connect(new TransportV2(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const text = (r) => r.content.map((c) => c.text ?? '').join('\n');

for (const mode of ['pin', 'auto', 'v1']) {
  const client = await open(mode, TOKEN);
  const version = mode === 'v1' ? '2025-11-25' : '2026-07-28';
  if (mode !== 'v1') {
    check(client.getNegotiatedProtocolVersion?.() === version, `${mode}: the client speaks ${version}`,
          client.getNegotiatedProtocolVersion?.());
  }
  const { tools, names } = await listAll(client);
  check(names.includes('fleet_find_nodes') && names.includes('fleet_read') && names.includes('system_echo_ping'),
        `${mode}: tools/list serves ${tools.length} tools, fleet_find_nodes, fleet_read and system_echo_ping among them`, names);
  check(JSON.stringify(names) === JSON.stringify((await listAll(client)).names), `${mode}: tools/list gives the same order twice`);

  const found = await client.callTool({ name: 'fleet_find_nodes', arguments: {} });
  const foundIds = (found.structuredContent?.nodes ?? []).map((n) => n.node_id).sort();
  check(!found.isError && NODES.every((n) => foundIds.includes(n)) && !foundIds.includes(OTHER),
        `${mode}: fleet_find_nodes lists acme's ${NODES.length} nodes, not the other tenant's`, foundIds);

  const echo = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: NODES[0], arguments: { message: `hi ${mode}` } } });
  check(!echo.isError && text(echo).includes(`hi ${mode}`), `${mode}: system_echo_ping answers from ${NODES[0]}`, echo);

  const read = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.health' } });
  const rows = read.structuredContent?.results ?? [];
  check(!read.isError && rows.length >= NODES.length, `${mode}: fleet_read of system.health answers for every node`, read.structuredContent);

  const foreign = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: OTHER, arguments: { message: 'x' } } })
    .catch((e) => ({ isError: true, thrown: e.message }));
  check(foreign.isError, `${mode}: the other tenant's node cannot be called`, foreign);

  const { resources } = await client.listResources();
  const mine = resources.filter((r) => r.uri.includes(NODES[0]));
  check(mine.length > 0 && !resources.some((r) => r.uri.includes(OTHER)), `${mode}: resources/list shows acme's nodes only`,
        resources.map((r) => r.uri));
  const contents = await client.readResource({ uri: mine[0].uri });
  check(contents.contents.length > 0, `${mode}: resources/read of ${mine[0].uri}`);
  await client.close();
}

// A 2026 client of the other tenant sees none of acme's nodes.
const other = await open('pin', TOKEN_OTHER);
const otherFound = await other.callTool({ name: 'fleet_find_nodes', arguments: {} });
const otherIds = (otherFound.structuredContent?.nodes ?? []).map((n) => n.node_id);
check(otherIds.includes(OTHER) && !NODES.some((n) => otherIds.includes(n)), 'pin: tenant other finds its node and none of acme\'s', otherIds);
await other.close();

// Closing the response is 2026-07-28's cancel: a call the device would hold 3 s (the echo test hook),
// aborted by its client after 300 ms, ends at once for the client; the script then finds the
// front's "cancel" audit line for it (without the cancel the call runs on and is audited as answered).
{
  const client = await open('pin', TOKEN);
  const abort = new AbortController();
  const started = Date.now();
  const held = client.callTool({ name: 'system_echo_ping', arguments: { node_id: NODES[1], arguments: { message: 'sleep:3000' } } },
                               { signal: abort.signal }).then(() => 'answered', (e) => e);
  setTimeout(() => abort.abort(new Error('the user stopped it')), 300);
  const outcome = await held;
  check(outcome !== 'answered' && Date.now() - started < 2000, 'pin: a call its client aborts ends at once for the client',
        String(outcome));
  await new Promise((resolve) => setTimeout(resolve, 300));  // the front sees the close
  await client.close();
}

// Raw 2026 requests: no session is handed out, and a header that disagrees with the body is refused.
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const post = (headers, body) => fetch(MCP_URL, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${TOKEN}`,
             'MCP-Protocol-Version': '2026-07-28', ...headers },
  body: JSON.stringify(body),
});
const call = { jsonrpc: '2.0', id: 9, method: 'tools/call',
               params: { name: 'system_echo_ping', arguments: { node_id: NODES[0], arguments: { message: 'raw' } }, _meta: meta } };
const good = await post({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'system_echo_ping' }, call);
const goodBody = await good.json();
check(good.status === 200 && !good.headers.get('mcp-session-id') && goodBody.result?.resultType === 'complete',
      'raw: a 2026 tools/call is answered, resultType complete, without an Mcp-Session-Id', goodBody);
const bad = await post({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'fleet_read' }, call);
const badBody = await bad.json();
check(bad.status === 400 && badBody.error?.code === -32020 && badBody.id === 9,
      'raw: an Mcp-Name that disagrees with params.name is 400 with -32020 (HeaderMismatch)', badBody);
const ping = await post({ 'Mcp-Method': 'ping' }, { jsonrpc: '2.0', id: 10, method: 'ping', params: { _meta: meta } });
check(ping.status === 404 && (await ping.json()).error?.code === -32601, 'raw: ping, which 2026-07-28 removed, is 404 with -32601');

// Confirmation as an input_required result: the pinned v2 client declares elicitation and answers
// the question through its handler, then repeats the call with the answer and the requestState.
const answers = [];
const asked = [];
const human = new ClientV2({ name: 'fleetmcp-stateless-human', version: '1.0.0' }, { ...modes.pin, capabilities: { elicitation: {} } });
human.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params.message);
  return { action: answers.shift() };
});
await human.connect(new TransportV2(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
const setMode = { name: 'gpio_pin_set_mode', arguments: { node_id: NODES[0], arguments: { mode: 'output' } } };
answers.push('accept');
const accepted = await human.callTool(setMode);
check(!accepted.isError && asked.length === 1 && asked[0].includes(NODES[0]) && asked[0].includes('"mode":"output"'),
      'pin: input_required accept: one question naming the node and arguments, then the call runs', { accepted, asked });
answers.push('decline');
const declined = await human.callTool(setMode);
check(declined.isError && envelope(declined).code === 'E_SAFETY_DENIED' && asked.length === 2,
      'pin: input_required decline: E_SAFETY_DENIED, nothing sent', declined);
await human.close();

const confirmMeta = { ...meta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const setModeCall = (id, extra = {}) => post({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'gpio_pin_set_mode' },
  { jsonrpc: '2.0', id, method: 'tools/call', params: { ...setMode, ...extra, _meta: confirmMeta } });
const asking = await (await setModeCall(12)).json();
const state = asking.result?.requestState;
check(asking.result?.resultType === 'input_required' && asking.result.inputRequests?.confirm?.method === 'elicitation/create' &&
      typeof state === 'string', 'raw: the first call of an actuation is an input_required result with a requestState', asking);
const tampered = (state[0] === 'A' ? 'B' : 'A') + state.slice(1);
const forged = await (await setModeCall(13, { requestState: tampered, inputResponses: { confirm: { action: 'accept' } } })).json();
check(forged.result?.isError && JSON.stringify(forged.result).includes('E_SAFETY_DENIED'),
      'raw: an accept carrying an altered requestState is E_SAFETY_DENIED, nothing sent', forged);
