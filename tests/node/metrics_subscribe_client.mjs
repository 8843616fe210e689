// Issue 37, item 2: system_metrics_subscribe answers an agent's first try. Both official SDK
// clients (v1 @modelcontextprotocol/sdk, v2 @modelcontextprotocol/client), each with its default
// request timeout (60 s; TIMEOUT_MS overrides it, to show a failure quickly), call the tool as
// tools/list serves it on the shipped configuration and must get a result naming the lease, then
// the samples where the result says they arrive: notifications/message on the session's GET stream.
// Then the v2 client pinned to MCP 2026-07-28, which has no session stream (issue 36): the same
// call answers with the lease and the node's metrics resource URI; a subscriptions/listen naming it
// gets the samples as notifications/resources/updated with the sample in _meta, resources/read of
// it reads one; the client prints "# stop the node", the script stops the node, and the last
// update carries the E_NODE_OFFLINE envelope.
// Driven by tests/integration/metrics_subscribe.sh, which passes in env: MCP_URL, TOKEN, NODE.
// Prints "ok - …" per check; exits 1 on the first failure.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { check, sleep } from './check.mjs';

const { MCP_URL, TOKEN, NODE } = process.env;
const options = process.env.TIMEOUT_MS ? { timeout: Number(process.env.TIMEOUT_MS) } : undefined;

const sdks = {
  v1: {
    open: () => [new ClientV1({ name: 'fleetmcp-subscribe-v1', version: '1.0.0' }),
                 new TransportV1(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } })],
    onLog: (client, fn) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => fn(n.params)),
  },
  v2: {
    open: () => [new ClientV2({ name: 'fleetmcp-subscribe-v2', version: '1.0.0' }),
                 new TransportV2(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } })],
    onLog: (client, fn) => client.setNotificationHandler('notifications/message', (n) => fn(n.params)),
  },
};

for (const [sdk, { open, onLog }] of Object.entries(sdks)) {
  const [client, transport] = open();
  const samples = [];
  const ended = [];
  onLog(client, (p) => {
    if (p.logger !== 'fleetmcp.metrics') return;
    (p.level === 'info' ? samples : ended).push(p.data);
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'system_metrics_subscribe');
  check(tool && tool.inputSchema.properties.node_id, `${sdk}: tools/list serves system_metrics_subscribe`);

  const asked = Date.now();
  const r = await client.callTool({ name: tool.name, arguments: { node_id: NODE, arguments: { interval_ms: 1000 } } },
                                  undefined, options);
  const took = Date.now() - asked;
  const text = r.content?.[0]?.text ?? '';
  check(!r.isError && r.structuredContent.interval_ms === 1000 && r.structuredContent.lease_expires_at_ms > Date.now(),
        `${sdk}: the call answers at once with the lease (${took} ms): interval_ms and when it ends`, r);
  check(/notifications\/message/.test(text) && /GET stream/.test(text) && /fleetmcp\.metrics/.test(text),
        `${sdk}: the result says where samples arrive`, text);

  for (let i = 0; i < 100 && samples.length < 2; i++) await sleep(100);
  check(samples.length >= 2 && samples.every((s) => s.node_id === NODE && s.ts_ms > 0),
        `${sdk}: samples of the node arrive as notifications/message on the GET stream`, samples);
  check(ended.length === 0, `${sdk}: nothing says the subscription ended`, ended);
  await transport.terminateSession();  // DELETE: the session's end ends its subscription
  await client.close();
}

{
  const client = new ClientV2({ name: 'fleetmcp-subscribe-2026', version: '1.0.0' },
                              { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(MCP_URL), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  check(client.getNegotiatedProtocolVersion() === '2026-07-28', '2026: the v2 client pinned to 2026-07-28 speaks it');
  const r = await client.callTool({ name: 'system_metrics_subscribe', arguments: { node_id: NODE, arguments: { interval_ms: 1000 } } },
                                  undefined, options);
  const text = r.content?.[0]?.text ?? '';
  check(!r.isError && r.structuredContent.interval_ms === 1000 && r.structuredContent.lease_expires_at_ms > Date.now(),
        '2026: the subscribe call answers with the lease', r);
  const uri = text.match(/fleetmcp:\/\/nodes\/\S+\/metrics\?\S+/)?.[0];
  check(uri === `fleetmcp://nodes/${NODE}/metrics?interval_ms=1000` && /subscriptions\/listen/.test(text) &&
        /notifications\/resources\/updated/.test(text), `2026: ... and names the resource to listen to: ${uri}`, text);

  const updates = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => { if (n.params.uri === uri) updates.push(n.params); });
  const listening = await client.listen({ resourceSubscriptions: [uri] });
  check(JSON.stringify(listening.honoredFilter?.resourceSubscriptions) === JSON.stringify([uri]),
        '2026: subscriptions/listen acknowledges the resource', listening.honoredFilter);
  const samples = () => updates.map((u) => u._meta?.['io.fleetmcp/sample']).filter(Boolean);
  for (let i = 0; i < 100 && samples().length < 2; i++) await sleep(100);
  check(samples().length >= 2 && samples().every((s) => s.node_id === NODE && s.ts_ms > 0) &&
        samples()[1].ts_ms > samples()[0].ts_ms,
        `2026: samples of the node arrive as notifications/resources/updated with the sample in _meta (${samples().length})`,
        updates);
  const read = await client.readResource({ uri });
  const one = JSON.parse(read.contents?.[0]?.text ?? '{}');
  check(one.node_id === NODE && one.ts_ms > 0 && read.contents[0].mimeType === 'application/json',
        '2026: resources/read of the URI reads one sample', read);

  console.log('# stop the node');
  const ended = () => updates.map((u) => u._meta?.['io.fleetmcp/error']).find(Boolean);
  for (let i = 0; i < 300 && !ended(); i++) await sleep(100);
  check(ended()?.code === 'E_NODE_OFFLINE' && ended().suggested_fix,
        '2026: the node stopped: the last update carries the E_NODE_OFFLINE envelope', ended() ?? updates.at(-1));
  const after = updates.length;
  await sleep(2500);
  check(updates.length === after, '2026: ... and nothing follows it', updates.slice(after));
  await listening.close();
  await client.close();
}
process.exit(0);
