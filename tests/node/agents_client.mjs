// Agents at fleet scale (issue 14), through the real chain with the official MCP TypeScript SDK
// client: the by_kind tools mode (typed, fleet-size independent), fleet_read, two-phase GPIO
// confirmation, RFC-0001 names in every mode, and tenant isolation in every discovery answer.
// Driven by tests/integration/agents_e2e.sh, which passes in env:
//   MCP_URL, TOKEN (acme, every scope), TOKEN_OTHER (tenant "other", every scope), TOKEN_READ (acme,
//   devices:read and tools:call:read_only),
//   NODES (space-separated acme node ids, simulated with --catalogue), OTHER (a node of tenant
//   "other"), LONE (an acme node in its own process, LONE_PID), LATE_CMD (starts one more acme
//   node; prints nothing), LATE_PIDFILE.
// Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema }
  from '@modelcontextprotocol/sdk/types.js';
import { ok, fail, check, sleep, envelope } from './check.mjs';
import { connect as open } from './mcp_session.mjs';

const env = process.env;
const NODES = env.NODES.split(' ');
const { OTHER, LONE } = env;


async function connect(token) {
  return (await open(env.MCP_URL, token, 'fleetmcp-agents')).client;
}

// Every property of every object schema says what it is: a type, an enum/const, or anyOf branches.
function untypedProperties(schema, at = '') {
  const bad = [];
  if (!schema || typeof schema !== 'object') return bad;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (sub.type === undefined && sub.enum === undefined && sub.const === undefined && sub.anyOf === undefined) bad.push(`${at}/${name}`);
    bad.push(...untypedProperties(sub, `${at}/${name}`));
  }
  for (const branch of schema.anyOf ?? []) bad.push(...untypedProperties(branch, at));
  if (schema.items) bad.push(...untypedProperties(schema.items, `${at}/items`));
  return bad;
}

const client = await connect(env.TOKEN);
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });

// ---- by_kind tools/list -------------------------------------------------------------------------
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
const listed = JSON.stringify(tools);
check(tools.length <= 40 && byName.system_echo_ping && byName.gpio_pin_set && byName.fleet_find_nodes && byName.fleet_read,
      `by_kind lists ${tools.length} tools (<= 40): one per (kind, verb) plus fleet_find_nodes and fleet_read`,
      tools.map((t) => t.name));
check(tools.every((t) => !NODES.some((n) => t.name.includes(n)) && /^[A-Za-z0-9_]+$/.test(t.name)),
      'no tool name carries a node id; names are [A-Za-z0-9_] only');
check(!listed.includes(OTHER), 'the other tenant\'s node appears nowhere in tools/list');
const untyped = tools.flatMap((t) => untypedProperties(t.inputSchema).map((p) => `${t.name}${p}`));
check(untyped.length === 0, 'every argument of every tool is typed', untyped);
const echoTool = byName.system_echo_ping;
check(JSON.stringify(echoTool.inputSchema.properties.node_id.enum?.slice().sort()) === JSON.stringify([...NODES, LONE].sort()),
      'node_id is an enum of exactly the tenant\'s nodes with the kind (small fleet)', echoTool.inputSchema.properties.node_id);
check(echoTool.outputSchema?.properties?.message && echoTool.inputSchema.properties.arguments.properties.message,
      'input (under arguments) and output schemas are the registry\'s');
check(echoTool.annotations.readOnlyHint === true && echoTool._meta['x-safety-class'] === 'read_only' &&
      byName.gpio_pin_set.annotations.destructiveHint === true && byName.gpio_pin_set._meta['x-safety-class'] === 'physical_actuation',
      'annotations and x-safety-class as per-node tools have them');
check(byName.gpio_pin_set.inputSchema.properties.arguments.properties.commit_token?.type === 'string',
      'the physical actuation tool advertises commit_token in its arguments');
check(!listed.includes('"type":["'), 'no type arrays in served schemas (nullable as anyOf)');
// Safety that matches the label (issue 37 item 6, docs/protocol.md D36): a read
// of a physical capability carries read_only; a stop and the self-update are destructive, and the
// self-update is judged as physical actuation (its scope and the confirmation).
check(byName.gpio_pin_get._meta['x-safety-class'] === 'read_only' && byName.gpio_pin_get.annotations.readOnlyHint === true,
      'a read verb of a physical_actuation capability carries x-safety-class read_only', byName.gpio_pin_get);
check(byName.service_unit_control.annotations.destructiveHint === true && byName.manage_server_update.annotations.destructiveHint === true &&
      byName.manage_server_update._meta['x-safety-class'] === 'physical_actuation' && byName.camera_still_capture.annotations.destructiveHint === false,
      'a service stop and the self-update are destructive, the self-update physical_actuation; a photo only adds',
      [byName.service_unit_control.annotations, byName.manage_server_update.annotations, byName.camera_still_capture.annotations]);

// ---- by_kind calls ------------------------------------------------------------------------------
const node = NODES[0];
const echoed = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: node, arguments: { message: 'by kind' } } });
check(!echoed.isError && echoed.structuredContent.node_id === node && echoed.structuredContent.message === 'by kind',
      'system_echo_ping with node_id answers from that device', echoed);
for (const [name, what] of [[`sysecho.${node}.echo.invoke`, 'dotted'], [`sysecho-${node}-echo-invoke`, 'dashed']]) {
  const r = await client.callTool({ name, arguments: { message: what } });
  check(!r.isError && r.structuredContent.message === what, `the RFC-0001 ${what} name still works in by_kind mode`, r);
}
const invalid = async (args, pointer, what, code = 'E_INVALID_ARGUMENTS') => {
  const r = await client.callTool({ name: 'system_echo_ping', arguments: args });
  const e = r.isError ? envelope(r) : {};
  check(e.code === code && e.message.includes(pointer), `${what}: ${code} naming ${pointer}`, r);
  return e;
};
await invalid({ node_id: node, arguments: { message: 42 } }, '/arguments/message', 'a mistyped argument');
await invalid({ arguments: { message: 'x' } }, '/node_id', 'no node_id');
await invalid({ node_id: node, message: 'x' }, '/message', 'an argument outside arguments');
// An unknown node is E_MANIFEST_NOT_FOUND (docs/protocol.md §9, D17), not an argument error (issue 37 item 5).
const foreign = await invalid({ node_id: OTHER, arguments: { message: 'x' } }, '/node_id', 'another tenant\'s node', 'E_MANIFEST_NOT_FOUND');
const missing = await invalid({ node_id: '01jzzzzzzzzzzzzzzzzzzzzzzz', arguments: { message: 'x' } }, '/node_id', 'a node that does not exist', 'E_MANIFEST_NOT_FOUND');
check(foreign.message.replace(OTHER, 'X') === missing.message.replace('01jzzzzzzzzzzzzzzzzzzzzzzz', 'X'),
      'another tenant\'s node gets exactly the answer of a node that does not exist');
// What the model reads for a misspelled property and a misspelled tool name (issue 37, item 5).
const extra = await invalid({ node_id: node, arguments: { messag: 'x' } }, '/arguments', 'a misspelled argument');
check(extra.message === "invalid arguments at /arguments: has unknown property 'messag' (allowed: message)" &&
      extra.suggested_fix === "remove 'messag' (did you mean 'message'?)",
      'an unknown property is named, with the allowed ones and the nearest as the fix', extra);
const misspelled = await client.callTool({ name: 'system_echo_pin', arguments: { node_id: node, arguments: { message: 'x' } } })
  .then((r) => r, (e) => e);
check(misspelled instanceof Error && misspelled.code === -32602 &&
      misspelled.message.includes('Unknown tool: system_echo_pin; did you mean system_echo_ping?') &&
      misspelled.data?.code === 'E_MANIFEST_NOT_FOUND' && misspelled.data.suggested_fix.startsWith('call one of system_echo_ping'),
      'an unknown tool name suggests the nearest names the token may call', misspelled);
const strangers = await client.callTool({ name: `sysecho.${OTHER}.echo.invok`, arguments: { message: 'x' } }).then((r) => r, (e) => e);
check(strangers instanceof Error && strangers.message.startsWith('MCP error -32602: Unknown tool') && !strangers.message.includes(`sysecho.${OTHER}.echo.invoke`),
      'the suggestions never name another tenant\'s tool', strangers.message);

// GPIO set with confirmation (no elicitation capability declared: the commit-token two-phase flow).
// The simulated pin starts as an input: configure it as an output (invoke), then drive it (set).
const gpio = byName.gpio_pin_set;
check(JSON.stringify(byName.gpio_pin_get.inputSchema.properties.cap_id?.enum) === JSON.stringify(['button', 'gpio17']) &&
      gpio.inputSchema.properties.cap_id === undefined,
      'cap_id is an enum where the tenant has several capabilities of the kind and verb, absent where one', gpio.inputSchema);
// Confirm what can run (issue 37 item 3): the pin is an input, so a set cannot work. The broker
// reads the pin first and refuses at once, saying what to call instead: no commit token, and a
// client that could ask its human is not asked.
const onInput = await client.callTool({ name: 'gpio_pin_set', arguments: { node_id: node, arguments: { value: 'high' } } });
const onInputError = onInput.isError ? envelope(onInput) : {};
check(onInputError.code === 'E_BAD_REQUEST' && onInputError.details?.reason === 'failed_precondition' &&
      /^pin 17 \(capability gpio17\) is configured as an input/.test(onInputError.message) &&
      onInputError.suggested_fix.includes(`gpio_pin_set_mode {"node_id":"${node}","cap_id":"gpio17","arguments":{"mode":"output"}}`) &&
      !onInputError.suggested_fix.includes('commit_token'),
      'gpio_pin_set on an input pin: refused before any confirmation, naming the pin and the call that configures it', onInput);
{
  const { client: asker } = await open(env.MCP_URL, env.TOKEN, 'fleetmcp-agents-asker', { capabilities: { elicitation: {} } });
  let questions = 0;
  asker.setRequestHandler(ElicitRequestSchema, async () => { questions++; return { action: 'accept' }; });
  await sleep(500);
  const r = await asker.callTool({ name: 'gpio_pin_set', arguments: { node_id: node, arguments: { value: 'high' } } });
  check(r.isError && envelope(r).details?.reason === 'failed_precondition' && questions === 0,
        'gpio_pin_set on an input pin: nobody is asked to confirm it', { r, questions });
  await asker.close();
}
async function confirmedCall(name, args, what) {
  const first = await client.callTool({ name, arguments: args });
  const fix = first.isError ? envelope(first) : {};
  const token = /commit_token="([^"]+)"/.exec(fix.suggested_fix ?? '')?.[1];
  check(fix.code === 'E_SAFETY_DENIED' && token, `${what}: the first call asks for confirmation with a commit_token`, first);
  check(/^ask the user whether to go ahead/.test(fix.suggested_fix), `${what}: the commit-token path tells the model to ask its user first`, fix);
  const second = await client.callTool({ name, arguments: { ...args, arguments: { ...args.arguments, commit_token: token } } });
  check(!second.isError, `${what}: repeated with the commit_token it runs`, second);
  return second;
}
await confirmedCall('gpio_pin_set_mode', { node_id: node, arguments: { mode: 'output' } }, 'gpio_pin_set_mode mode output');
const set = await confirmedCall('gpio_pin_set', { node_id: node, arguments: { value: 'high' } }, 'gpio_pin_set high');
check(set.structuredContent.value === 'high', 'the pin reads back high', set.structuredContent);
// The self-update needs a confirmation like physical actuation (issue 37 item 6).
const update = await client.callTool({ name: 'manage_server_update', arguments: { node_id: node, arguments: { channel: 'stable' } } });
check(update.isError && envelope(update).code === 'E_SAFETY_DENIED' && /commit_token="/.test(envelope(update).suggested_fix),
      'manage_server_update (the self-update) first asks for confirmation', update);
const ambiguous = await client.callTool({ name: 'gpio_pin_get', arguments: { node_id: node } });
check(ambiguous.isError && envelope(ambiguous).message.includes('/cap_id') && envelope(ambiguous).suggested_fix.includes('gpio17'),
      'without cap_id on a node with several pins: E_INVALID_ARGUMENTS at /cap_id listing them', ambiguous);

// ---- human confirmation by elicitation (a client that declares the capability) -----------------
const { client: human } = await open(env.MCP_URL, env.TOKEN, 'fleetmcp-agents-human', { capabilities: { elicitation: {} } });
const asked = [];
const replies = ['accept', 'decline', 'cancel'];
human.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return { action: replies[asked.length - 1] };
});
await sleep(500);  // the SDK opens its GET stream right after initialize
const pinSet = (value) => human.callTool({ name: 'gpio_pin_set', arguments: { node_id: node, arguments: { value } } });
const accepted = await pinSet('low');
check(!accepted.isError && accepted.structuredContent.value === 'low' && asked.length === 1,
      'elicitation accept: one question to the human, then the pin is set without a commit_token round trip', accepted);
check(asked[0].includes(node) && asked[0].includes('gpio.pin set') && asked[0].includes('"value":"low"'),
      'the question says what will happen, on which node, with which arguments', asked[0]);
for (const action of ['decline', 'cancel']) {
  const r = await pinSet('high');
  check(r.isError && envelope(r).code === 'E_SAFETY_DENIED' && envelope(r).message.includes(action),
        `elicitation ${action}: E_SAFETY_DENIED, nothing sent to the device`, r);
}
await human.close();

// ---- discovery --------------------------------------------------------------------------------
const found = await client.callTool({ name: 'fleet_find_nodes', arguments: { kind: 'gpio.pin' } });
const foundIds = found.structuredContent.nodes.map((n) => n.node_id).sort();
check(JSON.stringify(foundIds) === JSON.stringify([...NODES, LONE].sort()) && !JSON.stringify(found).includes(OTHER),
      'fleet_find_nodes lists the tenant\'s nodes of a kind, not the other tenant\'s', foundIds);
// The fleet overview (issue 37 item 8): manifest expiry and each node's cap_ids by kind, filtered
// by cap_id and by how soon the manifest expires.
const overview = found.structuredContent.nodes.find((n) => n.node_id === NODES[0]);
check(overview.manifest_expires_at_ms > Date.now() && overview.state_since_ms <= Date.now() &&
      overview.capabilities['gpio.pin']?.length > 0 && overview.capabilities['system.health']?.length === 1,
      'fleet_find_nodes answers each node\'s manifest expiry, since when it is in its state, and its cap_ids by kind', overview);
const pinCap = overview.capabilities['gpio.pin'][0];
const byCap = await client.callTool({ name: 'fleet_find_nodes', arguments: { cap_id: pinCap } });
check(!byCap.isError && byCap.structuredContent.nodes.every((n) => n.capabilities['gpio.pin']?.includes(pinCap)) &&
      byCap.structuredContent.nodes.length >= NODES.length, `fleet_find_nodes filters by cap_id (${pinCap})`, byCap);
const soon = await client.callTool({ name: 'fleet_find_nodes', arguments: { expiring_within_s: 0 } });
const withinADay = await client.callTool({ name: 'fleet_find_nodes', arguments: { expiring_within_s: 86400 } });
check(soon.structuredContent.nodes.length === 0 && withinADay.structuredContent.nodes.length >= NODES.length,
      'fleet_find_nodes filters by expiring_within_s (none expire now, all within a day)', [soon, withinADay]);
// Which device each node is and what its capabilities are (issue 37 items 4, 8; manifest@1.4.0):
// the device fills the hostname, the operator's labels and each capability's label.
check(overview.hostname === `sim-${NODES[0].slice(-6)}` && overview.cap_labels?.gpio17 === 'BCM 17, output' &&
      overview.cap_labels?.button === 'BCM 27, input' && overview.cap_labels?.nginx === 'nginx.service' &&
      overview.cap_labels?.reboot === 'reboot' && !('health' in overview.cap_labels),
      'fleet_find_nodes answers each node\'s hostname and what each cap_id is (BCM 17, output; nginx.service; reboot)', overview);
const byLabel = await client.callTool({ name: 'fleet_find_nodes', arguments: { label: 'lone' } });
check(!byLabel.isError && byLabel.structuredContent.nodes.length === 1 && byLabel.structuredContent.nodes[0].node_id === LONE &&
      byLabel.structuredContent.nodes[0].hostname === 'pi-lone' &&
      JSON.stringify(byLabel.structuredContent.nodes[0].labels) === JSON.stringify(['site=lab', 'lone']),
      'fleet_find_nodes filters by a node label from device.conf and answers its hostname and labels', byLabel);
check(byName.fleet_find_nodes.description.includes('3/4'), 'fleet_find_nodes says once that devices re-sign at 3/4 of the lifetime');
// A near miss of a kind ("camera" for camera.still) is refused, listing the kinds present, instead
// of an empty list the model reads as "no node has a camera" (issue 37 item 1).
const kindEnum = byName.fleet_find_nodes.inputSchema.properties.kind.enum ?? [];
check(kindEnum.includes('camera.still') && kindEnum.includes('gpio.pin') && JSON.stringify(kindEnum) === JSON.stringify([...kindEnum].sort()),
      'fleet_find_nodes: kind is an enum of the kinds the tenant\'s nodes have', kindEnum);
const nearMiss = await client.callTool({ name: 'fleet_find_nodes', arguments: { kind: 'camera' } });
const nearMissError = nearMiss.isError ? envelope(nearMiss) : {};
check(nearMissError.code === 'E_INVALID_ARGUMENTS' && nearMissError.message.includes('/kind') &&
      kindEnum.every((k) => nearMissError.message.includes(k)) && nearMissError.suggested_fix.includes('"camera.still" (the nearest)'),
      'fleet_find_nodes with an unknown kind: isError naming /kind, listing the kinds present and the nearest', nearMiss);
const readNearMiss = await client.callTool({ name: 'fleet_read', arguments: { kind: 'camera' } });
check(readNearMiss.isError && envelope(readNearMiss).suggested_fix.includes('"camera.still"'),
      'fleet_read with an unknown kind: one isError result naming the nearest kind', readNearMiss);

// ---- manifests as resources ------------------------------------------------------------------
const manifestUri = (id) => `fleetmcp://nodes/${id}/manifest`;
const templates = await client.listResourceTemplates();
check(templates.resourceTemplates.some((t) => t.uriTemplate === 'fleetmcp://nodes/{node_id}/manifest'),
      'resources/templates/list offers the node manifest URI template');
const resources = (await client.listResources()).resources.map((r) => r.uri);
check(resources.includes(manifestUri(node)) && !JSON.stringify(resources).includes(OTHER), 'resources/list: the tenant\'s nodes only');
const manifest = JSON.parse((await client.readResource({ uri: manifestUri(node) })).contents[0].text);
check(manifest.node_id === node && manifest.state === 'online' && manifest.capabilities.some((c) => c.kind === 'gpio.pin'),
      'resources/read returns the node\'s verified manifest view', manifest);
const readError = async (uri) => { try { await client.readResource({ uri }); } catch (e) { return `${e.code} ${e.message.replace(uri, 'U')}`; } return 'read'; };
const otherErr = await readError(manifestUri(OTHER));
check(otherErr.startsWith('-32002') && otherErr === await readError(manifestUri('01jzzzzzzzzzzzzzzzzzzzzzzz')),
      'another tenant\'s manifest is "Resource not found", exactly like a node that does not exist', otherErr);
let subscribeOther = 'ok';
try { await client.subscribeResource({ uri: manifestUri(OTHER) }); } catch (e) { subscribeOther = e.code; }
check(subscribeOther === -32002, 'subscribing to another tenant\'s manifest is refused the same way');
const updated = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updated.push(n.params.uri); });
await client.subscribeResource({ uri: manifestUri(LONE) });

// ---- the journal of one unit (issue 37 item 4; logs.journal.get.input@1.1.0) --------------------
const nginxLines = await client.callTool({ name: 'logs_journal_get', arguments: { node_id: NODES[0], arguments: { unit: 'nginx.service', limit: 5 } } });
const nginxEntries = nginxLines.structuredContent?.entries ?? [];
check(!nginxLines.isError && nginxEntries.length === 5 && nginxEntries.every((e) => e.unit === 'nginx.service'),
      'logs_journal_get with unit: the device answers that unit\'s lines only', nginxLines);
const sshdLines = await client.callTool({ name: 'logs_journal_get', arguments: { node_id: NODES[0], arguments: { unit: 'sshd.service' } } });
check(sshdLines.isError && envelope(sshdLines).details?.reason === 'permission_denied',
      'logs_journal_get with a unit the capability does not read: isError, outside the allow-list (its units are in cap_labels)', sshdLines);

// ---- fleet_read: online, offline, rate-limited, foreign --------------------------------------
const health = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.health' } });
const hs = health.structuredContent;
check(!health.isError && hs.ok_count === NODES.length + 1 && hs.results.every((r) => r.ok && r.result.cpu_usage_percent !== undefined),
      `fleet_read system.health: every node's health in one answer (${hs.ok_count} nodes)`, hs);
// A reading a device cannot take is named with why, never silently left out (issue 37 item 4;
// system.health.snapshot.output@1.2.0): each node has a temperature or says why it has none.
check(hs.results.every((r) => r.result.cpu_temperature_celsius !== undefined ||
                              r.result.unavailable?.cpu_temperature_celsius === 'no_sensor'),
      'system.health: each node answers its temperature or names it unavailable (no_sensor)', hs.results.map((r) => r.result.unavailable));
// "The hottest node" in one call: sorted by a field, the top one, only the fields asked for.
const hottest = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.health',
  fields: ['/cpu_usage_percent', '/cpu_temperature_celsius'], sort_by: '/cpu_usage_percent', top: 1 } });
const top = hottest.structuredContent;
check(!hottest.isError && top.results.length === 1 && top.ok_count === NODES.length + 1 && top.results[0].result === undefined &&
      JSON.stringify(Object.keys(top.results[0].values)) === JSON.stringify(['/cpu_usage_percent', '/cpu_temperature_celsius']),
      `fleet_read sort_by/top/fields: the busiest node in one answer (${JSON.stringify(top).length} bytes, all health: ${JSON.stringify(hs).length})`, top);
const sorted = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.health', fields: ['/cpu_usage_percent'],
  sort_by: '/cpu_usage_percent', order: 'asc' } });
const usage = sorted.structuredContent.results.map((r) => r.values['/cpu_usage_percent']);
check(usage.length === NODES.length + 1 && usage.every((u, i) => i === 0 || usage[i - 1] <= u),
      'fleet_read order asc sorts every node by the field', usage);
process.kill(Number(env.LONE_PID), 'SIGKILL');
await sleep(1500);  // the broker notices the killed node
// Rate-limit NODES[1]'s metrics with a burst and read the metrics of everyone in the same breath
// (sent last, while the burst has the bucket empty; a 10/s bucket refills one call per 100 ms).
const readAll = () => client.callTool({ name: 'fleet_read', arguments: { kind: 'system.metrics', verb: 'snapshot', state: 'any',
  arguments: { include: ['uptime'] } } });
// On a loaded machine (sanitizers) the bucket can refill before fleet_read reaches NODES[1]: a
// round whose read found it not limited is tried again, at most five times.
let burst = [];
let mixed;
for (let round = 0; round < 5; round++) {
  const all = await Promise.all([...Array.from({ length: 40 }, () =>
    client.callTool({ name: `sys.${NODES[1]}.metrics.snapshot`, arguments: {} })), readAll()]);
  burst = all.slice(0, 40);
  mixed = all[40];
  if (mixed.structuredContent.results.find((r) => r.node_id === NODES[1])?.error?.code === 'E_RATE_LIMITED') break;
}
check(burst.some((r) => r.isError && envelope(r).code === 'E_RATE_LIMITED'), 'a burst puts one node at its rate limit');
check(updated.includes(manifestUri(LONE)) && !updated.includes(manifestUri(node)),
      'resources/subscribe: notifications/resources/updated when the node goes offline, for that node only', updated);
const entry = (id) => mixed.structuredContent.results.find((r) => r.node_id === id);
check(entry(NODES[0]).ok && entry(LONE)?.error?.code === 'E_NODE_OFFLINE',
      'fleet_read with state any: online nodes answer, the offline one is E_NODE_OFFLINE', mixed.structuredContent);
const limited = mixed.structuredContent.results.filter((r) => r.error?.code === 'E_RATE_LIMITED');
check(entry(NODES[1]).error?.code === 'E_RATE_LIMITED' && entry(NODES[1]).error.retry_after_ms > 0 && limited.length === 1,
      'the rate-limited node answers E_RATE_LIMITED with retry_after_ms, the others still run', mixed.structuredContent);
const picked = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.info', node_ids: [NODES[0], OTHER] } });
const pr = picked.structuredContent.results;
check(pr.find((r) => r.node_id === NODES[0]).ok && pr.find((r) => r.node_id === OTHER).error.code === 'E_MANIFEST_NOT_FOUND',
      'fleet_read by node_ids: another tenant\'s node is not found', pr);
const bounded = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.info', limit: 1 } });
check(bounded.structuredContent.results.length === 1 && bounded.structuredContent.truncated === true,
      'fleet_read honours limit and says the answer is truncated');
// Arguments the kind's input schema refuses are refused once for the call, naming the argument,
// not once per node inside a result that is no error (issue 37 item 1).
const badRead = await client.callTool({ name: 'fleet_read', arguments: { kind: 'system.metrics', verb: 'snapshot',
  arguments: { include: 'uptime' } } });
const badReadError = badRead.isError ? envelope(badRead) : {};
check(badReadError.code === 'E_INVALID_ARGUMENTS' && badReadError.message.includes('/arguments/include') &&
      badReadError.suggested_fix.includes('no node was called') && badRead.structuredContent?.results === undefined,
      'fleet_read with a bad argument: one isError result naming /arguments/include, no per-node errors', badRead);
const writer = await client.callTool({ name: 'fleet_read', arguments: { kind: 'gpio.pin', verb: 'set' } });
check(writer.isError && envelope(writer).code === 'E_SAFETY_DENIED',
      'fleet_read refuses a verb that changes devices', writer);

// ---- list_changed: only when what the list describes changes -----------------------------------
listChanged = 0;
const late = spawn('sh', ['-c', env.LATE_CMD], { stdio: 'ignore', detached: true });
late.unref();  // the test script stops it
fs.writeFileSync(env.LATE_PIDFILE, String(late.pid));
for (let i = 0; i < 100 && listChanged === 0; i++) await sleep(100);
check(listChanged > 0, 'a new node joins the node_id enum: list_changed');
const after = await client.listTools();
check(after.tools.length === tools.length, 'the number of tools is the same with one more node');

// ---- the other tenant -------------------------------------------------------------------------
const other = await connect(env.TOKEN_OTHER);
const otherList = JSON.stringify((await other.listTools()).tools);
check(!NODES.some((n) => otherList.includes(n)) && otherList.includes(OTHER), 'the other tenant sees only its own node');
const otherRead = await other.callTool({ name: 'fleet_read', arguments: { kind: 'system.metrics', verb: 'snapshot' } });
check(otherRead.structuredContent.results.length === 1 && otherRead.structuredContent.results[0].node_id === OTHER,
      'fleet_read of the other tenant reaches only its node');
await other.close();

// ---- a read-only token (issue 37 item 7) ----------------------------------------------------------
// tools/list shows only what the token may call, and the instructions say so and where a scope
// failure goes.
const { client: reader } = await open(env.MCP_URL, env.TOKEN_READ, 'fleetmcp-agents-reader');
const readerTools = (await reader.listTools()).tools;
const readerNames = readerTools.map((t) => t.name);
check(readerNames.includes('gpio_pin_get') && readerNames.includes('fleet_read') && readerNames.includes('fleet_find_nodes') &&
      !readerNames.includes('gpio_pin_set') && !readerNames.includes('service_unit_control') && !readerNames.includes('manage_server_update') &&
      readerTools.every((t) => (t._meta?.['x-safety-class'] ?? 'read_only') === 'read_only'),
      `a read-only token lists only the ${readerNames.length} tools it may call`, readerNames);
check(readerTools.length < tools.length, `... fewer than the ${tools.length} every scope lists`);
check(/only the tools your token may call/.test(reader.getInstructions()) && /HTTP 403 insufficient_scope/.test(reader.getInstructions()),
      'the instructions say tools/list is filtered by scope and where a scope failure goes', reader.getInstructions());
const readerGet = await reader.callTool({ name: 'gpio_pin_get', arguments: { node_id: node, cap_id: 'gpio17' } });
check(!readerGet.isError && readerGet.structuredContent.pin === 17, 'a read-only token reads a physical_actuation pin', readerGet);
await reader.close();
await client.close();
process.exit(0);
