// Two fronts behind a plain round-robin balancer (issue 36): the v2 SDK client pinned to 2026-07-28
// talks to the balancer only, so its requests alternate between the fronts of two bridged brokers.
// The balancer names the front that answered in X-Fleet-Front, which a fetch wrapper records.
// Checks: tools/list gives the same answer on both fronts; every echo call is answered once, with
// its own message; a confirmation (input_required) begun on one front is finished on the other,
// accepted (the call runs) and declined (E_SAFETY_DENIED); another tenant's node is invisible on
// both; a subscriptions/listen stream gets notifications/tools/list_changed and
// notifications/resources/list_changed when a node enrols
// (the script starts one when this prints "# listening"). Driven by tests/integration/balanced_pair.sh, which passes in env: MCP_URL (the balancer),
// TOKEN, NODE (acme's node), OTHER (tenant other's node), CALLS (echo calls to make).
// Prints "ok - …" per check, and "# accept finished on <front>" for the script's audit checks.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { check, envelope, sleep } from './check.mjs';

const { MCP_URL, TOKEN, NODE, OTHER } = process.env;
const CALLS = Number(process.env.CALLS ?? 10);

const served = [];  // the front of every response, in order
const recording = async (url, init) => {
  const response = await fetch(url, init);
  served.push(response.headers.get('x-fleet-front'));
  return response;
};
const answers = [];
const client = new Client({ name: 'fleetmcp-balanced', version: '1.0.0' },
                          { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } });
client.setRequestHandler('elicitation/create', async () => ({ action: answers.shift() }));
await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL),
  { fetch: recording, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
check(client.getNegotiatedProtocolVersion() === '2026-07-28', 'the client speaks 2026-07-28 through the balancer');

// What the requests since `mark` were answered by.
const since = (mark) => served.slice(mark);
const text = (r) => r.content.map((c) => c.text ?? '').join('\n');

// tools/list, four times: two answers from each front, all the same.
let mark = served.length;
const lists = [];
// cacheMode refresh: the client would answer from its cache within the list's ttlMs.
for (let i = 0; i < 4; i++) lists.push(JSON.stringify(await client.listTools(undefined, { cacheMode: 'refresh' })));
const listFronts = new Set(since(mark));
check(listFronts.has('a') && listFronts.has('b'), 'tools/list was answered by both fronts', since(mark));
check(lists.every((l) => l === lists[0]) && lists[0].includes('system_echo_ping'),
      `tools/list gives the same answer on both fronts (${JSON.parse(lists[0]).tools.length} tools)`);

// Echo calls, each with its own message: each answered once, with that message.
mark = served.length;
for (let i = 0; i < CALLS; i++) {
  const r = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: NODE, arguments: { message: `balanced ${i}` } } });
  check(!r.isError && text(r).includes(`"balanced ${i}"`), `echo call ${i} answered by front ${served.at(-1)} with its own message`, r);
}
const callFronts = since(mark);
check(callFronts.filter((f) => f === 'a').length >= CALLS / 2 - 1 && callFronts.filter((f) => f === 'b').length >= CALLS / 2 - 1,
      `the ${CALLS} calls alternated between the fronts`, callFronts);

// Another tenant's node, on both fronts (two requests of each kind in a row: one per front).
mark = served.length;
for (let i = 0; i < 2; i++) {
  const found = await client.callTool({ name: 'fleet_find_nodes', arguments: {} });
  const ids = (found.structuredContent?.nodes ?? []).map((n) => n.node_id);
  check(ids.includes(NODE) && !ids.includes(OTHER), `fleet_find_nodes on front ${served.at(-1)}: acme's node, not the other tenant's`, ids);
}
for (let i = 0; i < 2; i++) {
  const foreign = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: OTHER, arguments: { message: 'x' } } })
    .catch((e) => ({ isError: true, thrown: e.message }));
  check(foreign.isError, `front ${served.at(-1)}: the other tenant's node cannot be called`, foreign);
}
check(new Set(since(mark).slice(0, 2)).size === 2 && new Set(since(mark).slice(2)).size === 2,
      'both fronts were asked both questions about the other tenant', since(mark));

// A confirmation: the first round (input_required) and its repeat go to different fronts.
const confirm = async (action) => {
  answers.push(action);
  const start = served.length;
  const r = await client.callTool({ name: 'gpio_pin_set_mode', arguments: { node_id: NODE, arguments: { mode: 'output' } } });
  const rounds = served.slice(start);
  check(rounds.length === 2 && rounds[0] !== rounds[1],
        `${action}: the confirmation began on front ${rounds[0]} and finished on front ${rounds[1]}`, rounds);
  return { r, finished: rounds[1] };
};
const accepted = await confirm('accept');
check(!accepted.r.isError, 'accept: the call ran on the other front', accepted.r);
console.log(`# accept finished on ${accepted.finished}`);
const declined = await confirm('decline');
check(declined.r.isError && envelope(declined.r).code === 'E_SAFETY_DENIED', 'decline: E_SAFETY_DENIED', declined.r);
console.log(`# decline finished on ${declined.finished}`);

// Tool- and resource-list changes on 2026-07-28: a subscriptions/listen stream, on whichever front
// it reaches.
const listed = (await client.listResources()).resources;
const resourcesBefore = listed.length;
const changed = new Promise((resolve) => client.setNotificationHandler('notifications/tools/list_changed', resolve));
const resourcesChanged = new Promise((resolve) => client.setNotificationHandler('notifications/resources/list_changed', resolve));
const watched = listed[0].uri;
const listening = await client.listen({ toolsListChanged: true, resourcesListChanged: true,
                                        resourceSubscriptions: [watched, 'fleetmcp://nodes/nope/manifest'] });
check(listening.honoredFilter?.toolsListChanged === true && listening.honoredFilter?.resourcesListChanged === true,
      `subscriptions/listen on front ${served.at(-1)} acknowledges toolsListChanged and resourcesListChanged`,
      listening.honoredFilter);
check(JSON.stringify(listening.honoredFilter?.resourceSubscriptions) === JSON.stringify([watched]),
      '... and resourceSubscriptions: the tenant\'s resource, not the unknown one', listening.honoredFilter);
console.log('# listening');
const heard = await Promise.race([changed, sleep(30000).then(() => null)]);
check(heard !== null, 'a node enrolled meanwhile: notifications/tools/list_changed arrived on the listen stream');
const heardResources = await Promise.race([resourcesChanged, sleep(5000).then(() => null)]);
check(heardResources !== null, '... and notifications/resources/list_changed');
const resourcesAfter = (await client.listResources()).resources.length;
check(resourcesAfter === resourcesBefore + 1, `resources/list then shows the new node (${resourcesBefore} -> ${resourcesAfter})`);
await listening.close();
await client.close();
