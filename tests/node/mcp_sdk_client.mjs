// The official MCP TypeScript SDK client (Client + StreamableHTTPClientTransport) against the
// fleetmcp HTTP front: every path an agent takes, checked the way the SDK reports it.
// Driven by tests/integration/http_front.sh, which starts the front and passes, in env:
//   MCP_URL, TOKEN (acme, all scopes), TOKEN_READ (acme, tools:call:read_only), TOKEN_OTHER
//   (tenant "other"), CTL (the test host's command fifo), NODE, NODE2 (acme), OTHER (other's node),
//   METRICS_URL. Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { ToolListChangedNotificationSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ok, fail, check, sleep, envelope } from './check.mjs';
import { connect as open, listAll, expectError, sentCalls } from './mcp_session.mjs';

const env = process.env;
const { MCP_URL, TOKEN, TOKEN_READ, TOKEN_OTHER, CTL, NODE, NODE2, OTHER, METRICS_URL } = env;

const ctl = (line) => fs.appendFileSync(CTL, line + '\n');
const connect = (token, options) => open(MCP_URL, token, 'fleetmcp-sdk-test', options);

async function main() {
  await expectError(connect(undefined), 'no token: initialize is refused with 401', (e) => /401/.test(String(e.message)) || e.code === 401);

  const { client, transport } = await connect(TOKEN);
  const version = transport.protocolVersion;
  check(['2025-11-25', '2025-06-18', '2025-03-26'].includes(version), `negotiated a supported revision (${version})`);

  const changed = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.push(Date.now()));
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));

  const { names, pages } = await listAll(client);
  check(pages > 1, `tools/list paginates (${pages} pages)`);
  check(new Set(names).size === names.length, 'no tool listed twice');
  check(names.every((n) => /^[A-Za-z0-9_.-]{1,64}$/.test(n)), 'every name is a valid MCP tool name');
  check(!names.some((n) => n.includes(OTHER)), "another tenant's tools are not listed");
  const echoTools = names.filter((n) => n.startsWith('sysecho.'));
  check(echoTools.length === 2, 'one echo tool per acme node');

  for (const name of echoTools) {
    const r = await client.callTool({ name, arguments: { message: 'ping' } });
    check(!r.isError && r.structuredContent.message === 'ping' && name.includes(r.structuredContent.node_id),
          `echo on ${name} returns structuredContent`);
    check(JSON.parse(r.content[0].text).message === 'ping', 'the result is also a text block');
  }
  const snap = await client.callTool({ name: `sys.${NODE}.metrics.snapshot`, arguments: {} });
  check(!snap.isError && snap.structuredContent.node_id === NODE && snap.structuredContent.cpu, 'metrics snapshot');

  await expectError(client.callTool({ name: `sysecho.${OTHER}.echo.invoke`, arguments: { message: 'x' } }),
                    "another tenant's tool is an unknown tool (-32602)", (e) => e.code === -32602);
  await expectError(client.callTool({ name: `sysecho.01hzx9k3m4p7q8r9s0t1v2w3x0.echo.invoke`, arguments: { message: 'x' } }),
                    'an unknown tool is -32602', (e) => e.code === -32602);

  const bad = await client.callTool({ name: `sysecho.${NODE}.echo.invoke`, arguments: { message: 42 } });
  check(bad.isError && envelope(bad).code === 'E_INVALID_ARGUMENTS' && envelope(bad).message.includes('/message'),
        'bad arguments: isError with E_INVALID_ARGUMENTS naming the field');

  ctl(`offline ${NODE2}`);
  await sleep(200);
  const t0 = Date.now();
  const off = await client.callTool({ name: `sysecho.${NODE2}.echo.invoke`, arguments: { message: 'x' } });
  check(off.isError && envelope(off).code === 'E_NODE_OFFLINE' && Date.now() - t0 < 100, 'offline node fails fast with E_NODE_OFFLINE');
  ctl(`online ${NODE2}`);

  ctl(`silent ${NODE} on`);
  await sleep(100);
  const slow = await client.callTool({ name: `sysecho.${NODE}.echo.invoke`, arguments: { message: 'x' } });
  check(slow.isError && envelope(slow).code === 'E_DEADLINE_EXCEEDED', 'a device past its deadline gives E_DEADLINE_EXCEEDED');
  ctl(`silent ${NODE} off`);
  await sleep(100);

  const get = { name: `relay.${NODE}.relay0.get`, arguments: {} };
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await client.callTool(get));
  const limited = results.find((r) => r.isError);
  check(limited && envelope(limited).code === 'E_RATE_LIMITED' && envelope(limited).retry_after_ms > 0,
        'rate limit: E_RATE_LIMITED with retry_after_ms');
  await sleep(1100);

  const set = { name: `relay.${NODE}.relay0.set`, arguments: { on: true } };
  const first = await client.callTool(set);
  const fix = envelope(first).suggested_fix;
  const token = /commit_token="([^"]+)"/.exec(fix)?.[1];
  check(first.isError && envelope(first).code === 'E_SAFETY_DENIED' && token, 'physical actuation: first call returns a commit token');
  const second = await client.callTool({ ...set, arguments: { on: true, commit_token: token } });
  check(!second.isError && second.structuredContent.on === true, 'the same call with the commit token executes');

  const reader = await connect(TOKEN_READ);
  await expectError(reader.client.callTool(set), 'insufficient scope: HTTP 403', (e) => /403/.test(String(e.message)) || e.code === 403);
  await reader.client.close();

  const other = await connect(TOKEN_OTHER);
  const otherNames = (await listAll(other.client)).names;
  check(otherNames.length === 1 && otherNames[0].includes(OTHER), "tenant 'other' sees only its own node");
  await other.client.close();

  // Subscribe: answered at once with the lease; samples arrive on the GET stream (issue 37, item 2).
  const calls = sentCalls(transport);
  const metricsLogs = (level, node) => logs.filter((l) => l.logger === 'fleetmcp.metrics' && l.level === level &&
                                                          l.data.node_id === node);
  const sub = await client.callTool({ name: `sys.${NODE}.metrics.subscribe`, arguments: { interval_ms: 1000 } });
  check(!sub.isError && sub.structuredContent.interval_ms === 1000 && sub.structuredContent.lease_expires_at_ms > Date.now(),
        'subscribe answers at once with the lease as structuredContent');
  for (let i = 0; i < 50 && metricsLogs('info', NODE).length < 3; i++) await sleep(100);
  check(metricsLogs('info', NODE).length >= 3, 'samples arrive as notifications/message on the GET stream');
  // notifications/cancelled naming the call's request id stops it.
  await client.notification({ method: 'notifications/cancelled', params: { requestId: calls.at(-1).id } });
  await sleep(300);
  let metrics = await (await fetch(METRICS_URL)).text();
  check(/fleetmcp_sse_streams\{endpoint="mcp_call"\} 0/.test(metrics), 'the cancelled subscription is closed on the server');

  // Subscribe until the maximum stream time (4 s here): a last message says it ended.
  const lease = await client.callTool({ name: `sys.${NODE}.metrics.subscribe`, arguments: { interval_ms: 1000 } });
  check(!lease.isError && lease.structuredContent.lease_expires_at_ms <= Date.now() + 4000,
        'the lease ends at the maximum stream time');
  for (let i = 0; i < 60 && metricsLogs('warning', NODE).length === 0; i++) await sleep(100);
  check(metricsLogs('warning', NODE)[0]?.data.ended.code === 'E_DEADLINE_EXCEEDED',
        'at the maximum stream time a last notifications/message says the subscription ended');

  // Offline mid-subscription ends it with a last message: E_NODE_OFFLINE.
  const live = await client.callTool({ name: `sys.${NODE2}.metrics.subscribe`, arguments: { interval_ms: 1000 } });
  check(!live.isError, 'a subscribe on the second node');
  await sleep(500);
  ctl(`offline ${NODE2}`);
  for (let i = 0; i < 50 && metricsLogs('warning', NODE2).length === 0; i++) await sleep(100);
  check(metricsLogs('warning', NODE2)[0]?.data.ended.code === 'E_NODE_OFFLINE',
        'a node going offline ends its subscription with a last message: E_NODE_OFFLINE');
  ctl(`online ${NODE2}`);
  metrics = await (await fetch(METRICS_URL)).text();
  check(/fleetmcp_sse_streams\{endpoint="mcp_call"\} 0/.test(metrics), 'no subscription is left open');

  // list_changed on a new node and on expiry.
  changed.length = 0;
  ctl(`add {"tenant":"acme","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xc","capabilities":[{"cap_id":"echo","kind":"system.echo","verbs":["invoke"]}]}`);
  for (let i = 0; i < 40 && changed.length === 0; i++) await sleep(50);
  check(changed.length >= 1, 'notifications/tools/list_changed when a node appears');
  check((await listAll(client)).names.includes('sysecho.01hzx9k3m4p7q8r9s0t1v2w3xc.echo.invoke'), 'the new tool is listed');
  changed.length = 0;
  ctl(`expire 01hzx9k3m4p7q8r9s0t1v2w3xc`);
  for (let i = 0; i < 40 && changed.length === 0; i++) await sleep(50);
  check(changed.length >= 1, 'notifications/tools/list_changed when a manifest expires');
  changed.length = 0;
  ctl(`add {"tenant":"other","node_id":"01hzx9k3m4p7q8r9s0t1v2w3xd","capabilities":[{"cap_id":"echo","kind":"system.echo","verbs":["invoke"]}]}`);
  await sleep(500);
  check(changed.length === 0, "no list_changed for another tenant's change");

  await client.ping();
  await transport.terminateSession();
  ok('DELETE ends the session');
  await client.close();
}

main().catch((e) => fail('unexpected error', String(e && e.stack || e)));
