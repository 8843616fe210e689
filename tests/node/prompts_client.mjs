// MCP prompts, completion/complete and the photo resource link (issue 37 item 9) through both
// official SDK clients (v1 @modelcontextprotocol/sdk, v2 @modelcontextprotocol/client) on the
// shipped configuration: the three fleet prompts name only tools tools/list serves, in the order
// the workflow needs; completion offers the caller's tenant's node ids, cap_ids and kinds, never
// another tenant's; a camera.still result shows its preview once (image content, not base64 in the
// text) and links the photo, which resources/read returns, to its tenant only.
// Driven by tests/integration/mcp_prompts.sh, which passes in env: MCP_URL, TOKEN, TOKEN_OTHER
// (tenant "other"), NODES (acme's node ids, space-separated), OTHER (other's node id).
// Prints "ok - …" per check; exits 1 on the first failure.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { check, envelope, sleep } from './check.mjs';
import { listAll } from './mcp_session.mjs';

const { MCP_URL, TOKEN, TOKEN_OTHER, OTHER } = process.env;
const NODES = process.env.NODES.split(' ').sort();
const NODE = NODES[0];

const sdks = {
  v1: (token) => [new ClientV1({ name: 'fleetmcp-prompts-v1', version: '1.0.0' }),
                  new TransportV1(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })],
  v2: (token) => [new ClientV2({ name: 'fleetmcp-prompts-v2', version: '1.0.0' }),
                  new TransportV2(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })],
};

async function open(sdk, token) {
  const [client, transport] = sdks[sdk](token);
  await client.connect(transport);
  return client;
}

async function rejects(promise) {
  try { await promise; } catch (e) { return e; }
  return null;
}

// The tool names a prompt's text tells the model to call: every `backticked` word.
const namedTools = (text) => [...text.matchAll(/`([A-Za-z0-9_.-]+)`/g)].map((m) => m[1]);
const textOf = (prompt) => prompt.messages.map((m) => m.content.text).join('\n');

for (const sdk of ['v1', 'v2']) {
  const client = await open(sdk, TOKEN);
  const caps = client.getServerCapabilities();
  check(caps.prompts && caps.completions, `${sdk}: initialize announces prompts and completions`, caps);

  const { tools, names } = await listAll(client);
  const served = new Set(names);
  const toolOf = (kind, verb) => tools.find((t) => t._meta?.['io.fleetmcp/kind'] === kind && t._meta?.['io.fleetmcp/verb'] === verb)?.name;

  const { prompts } = await client.listPrompts();
  check(JSON.stringify(prompts.map((p) => p.name).sort()) === '["diagnose_node","fleet_health_report","safe_actuation"]',
        `${sdk}: prompts/list offers diagnose_node, fleet_health_report, safe_actuation`, prompts);

  // Diagnose: fleet_find_nodes first, then the node's reads with health first, all served names.
  const diagnose = textOf(await client.getPrompt({ name: 'diagnose_node', arguments: { node_id: NODE } }));
  const dn = namedTools(diagnose);
  const health = toolOf('system.health', 'snapshot');
  check(dn[0] === 'fleet_find_nodes' && dn[1] === health && dn.length > 3 && dn.every((n) => served.has(n)),
        `${sdk}: diagnose_node names served tools only: fleet_find_nodes, then ${health}, then the other reads (${dn.length})`, dn);
  check(diagnose.includes(NODE) && !dn.includes(toolOf('gpio.pin', 'set')), `${sdk}: diagnose_node reads and never acts`, dn);

  const report = textOf(await client.getPrompt({ name: 'fleet_health_report', arguments: {} }));
  const rn = namedTools(report);
  check(rn[0] === 'fleet_find_nodes' && rn[1] === 'fleet_read' && report.includes('kind "system.health"') &&
        rn.every((n) => served.has(n)), `${sdk}: fleet_health_report: fleet_find_nodes, then fleet_read of system.health`, rn);

  // Safe actuation: read, act, read back, with the served names of the capability's verbs.
  const act = textOf(await client.getPrompt({ name: 'safe_actuation',
                                               arguments: { node_id: NODE, cap_id: 'gpio17', state: '{"value": 1}' } }));
  const an = namedTools(act);
  const read = toolOf('gpio.pin', 'get'), set = toolOf('gpio.pin', 'set');
  check(an[0] === read && an.includes(set) && an.at(-1) === read && an.indexOf(set) > 0 && an.every((n) => served.has(n)) &&
        act.includes('{"value": 1}') && /yes/.test(act),
        `${sdk}: safe_actuation reads with ${read}, acts with ${set} after the user's yes, reads back with ${read}`, an);

  const unknown = await rejects(client.getPrompt({ name: 'diagnose_node', arguments: { node_id: OTHER } }));
  check(unknown?.code === -32602 && /no node of yours/.test(unknown.message) && !unknown.message.includes(OTHER.slice(0, 26) + ' ('),
        `${sdk}: another tenant's node is unknown to prompts/get (-32602)`, unknown?.message);
  const readOnly = await rejects(client.getPrompt({ name: 'safe_actuation', arguments: { node_id: NODE, cap_id: 'health', state: 'x' } }));
  check(readOnly?.code === -32602 && /only reads/.test(readOnly.message), `${sdk}: safe_actuation on a read-only capability is refused`, readOnly?.message);

  // completion/complete: node ids of the tenant, cap_ids of the node in context, kinds.
  const complete = (ref, name, value, context) => client.complete({ ref, argument: { name, value }, ...(context ? { context } : {}) });
  const all = (await complete({ type: 'ref/prompt', name: 'diagnose_node' }, 'node_id', '')).completion;
  check(JSON.stringify(all.values) === JSON.stringify(NODES) && all.total === NODES.length && !all.values.includes(OTHER),
        `${sdk}: node_id completes to the tenant's ${NODES.length} nodes, not another tenant's`, all);
  const prefixed = (await complete({ type: 'ref/prompt', name: 'safe_actuation' }, 'node_id', NODE.slice(0, 26))).completion;
  check(prefixed.values.length === 1 && prefixed.values[0] === NODE, `${sdk}: a typed node id completes to the one node`, prefixed);
  const capIds = (await complete({ type: 'ref/prompt', name: 'safe_actuation' }, 'cap_id', 'gp', { arguments: { node_id: NODE } })).completion;
  check(JSON.stringify(capIds.values) === '["gpio17"]', `${sdk}: cap_id completes with the node's cap_ids ("gp" → gpio17)`, capIds);
  const kinds = (await complete({ type: 'ref/prompt', name: 'fleet_health_report' }, 'kind', 'system.')).completion;
  check(kinds.values.includes('system.health') && kinds.values.every((k) => k.startsWith('system.')),
        `${sdk}: kind completes to the kinds present`, kinds);
  const resource = (await complete({ type: 'ref/resource', uri: 'fleetmcp://nodes/{node_id}/manifest' }, 'node_id', '')).completion;
  check(JSON.stringify(resource.values) === JSON.stringify(NODES), `${sdk}: the manifest template's node_id completes too`, resource);

  // The photo: the preview shown once, linked, and readable by its tenant only.
  const camera = toolOf('camera.still', 'invoke');
  // A camera takes one photo at a time and a few a minute (its rate limit): wait as told.
  let shot = await client.callTool({ name: camera, arguments: { node_id: NODE, arguments: {} } });
  for (let i = 0; i < 10 && shot.isError && envelope(shot).retry_after_ms; i++) {
    await sleep(envelope(shot).retry_after_ms);
    shot = await client.callTool({ name: camera, arguments: { node_id: NODE, arguments: {} } });
  }
  const images = shot.content.filter((c) => c.type === 'image');
  const links = shot.content.filter((c) => c.type === 'resource_link');
  const text = shot.content.find((c) => c.type === 'text').text;
  check(!shot.isError && images.length === 1 && images[0].data.length > 100 && !text.includes(images[0].data.slice(0, 64)),
        `${sdk}: ${camera}: the preview is image content once, not base64 in the text`, shot.content);
  check(links.length === 1 && links[0].uri.startsWith(`fleetmcp://nodes/${NODE}/photos/`) && links[0].mimeType === 'image/jpeg',
        `${sdk}: the result links the photo (${links[0]?.uri})`, links);
  const photo = await client.readResource({ uri: links[0].uri });
  check(photo.contents.length === 1 && photo.contents[0].blob === images[0].data && photo.contents[0].mimeType === 'image/jpeg',
        `${sdk}: resources/read returns the linked photo`, photo.contents.map((c) => c.uri));
  const other = await open(sdk, TOKEN_OTHER);
  const stolen = await rejects(other.readResource({ uri: links[0].uri }));
  check(stolen?.code === -32002, `${sdk}: another tenant cannot read the photo (-32002)`, stolen?.message);
  const otherNodes = (await other.complete({ ref: { type: 'ref/prompt', name: 'diagnose_node' }, argument: { name: 'node_id', value: '' } })).completion;
  check(JSON.stringify(otherNodes.values) === JSON.stringify([OTHER]), `${sdk}: the other tenant completes to its own node only`, otherNodes);
  await other.close();
  await client.close();
}
