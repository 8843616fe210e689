// End to end through the real chain: the official MCP TypeScript SDK client → the plugin's HTTP
// front inside mosquitto → MQTT → fleetmcp-device (simulated nodes) and back. Driven by
// tests/integration/e2e_mcp.sh, which passes in env:
//   MCP_URL, METRICS_URL, TOKEN (acme, every scope), TOKEN_DEVICES_ONLY (acme, devices:read),
//   TOKEN_OTHER (tenant "other"), NODES (space-separated acme node ids, all simulated in one
//   process started with --test-hooks), LONE (an acme node running in its own process, LONE_PID),
//   EXTRA_CMD (starts one more acme node whose manifest lives 4 s; prints nothing), EXTRA_PIDFILE.
// Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ok, fail, check, sleep, envelope } from './check.mjs';
import { connect as open, listAll, expectError, sentCalls } from './mcp_session.mjs';

const env = process.env;
const NODES = env.NODES.split(' ');
const LONE = env.LONE;
const connect = (token) => open(env.MCP_URL, token, 'fleetmcp-e2e');

async function waitFor(cond, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (cond()) return true;
  return cond();
}

async function main() {
  await expectError(connect(undefined), 'no token: initialize is refused with 401', (e) => e.code === 401 || /401/.test(String(e.message)));
  const { client, transport } = await connect(env.TOKEN);
  check(['2025-11-25', '2025-06-18', '2025-03-26'].includes(transport.protocolVersion),
        `negotiated a supported revision (${transport.protocolVersion})`);
  const changed = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.push(Date.now()));

  const { tools, names, pages } = await listAll(client);
  const all = [...NODES, LONE];
  check(pages > 1, `tools/list paginates over the real fleet (${names.length} tools, ${pages} pages)`);
  check(new Set(names).size === names.length, 'no tool listed twice');
  check(all.every((n) => names.includes(`sysecho.${n}.echo.invoke`) && names.includes(`sys.${n}.metrics.snapshot`)),
        'every node lists its echo and metrics tools');
  const echo = tools.find((t) => t.name === `sysecho.${NODES[0]}.echo.invoke`);
  check(echo.inputSchema?.type === 'object' && echo.annotations?.readOnlyHint === true, 'tools carry schemas and annotations');

  for (const node of all) {
    const r = await client.callTool({ name: `sysecho.${node}.echo.invoke`, arguments: { message: `hi ${node}` } });
    if (r.isError || r.structuredContent.node_id !== node || r.structuredContent.message !== `hi ${node}`) {
      fail(`echo on ${node}`, r);
    }
  }
  ok(`echo answered by each of the ${all.length} devices with its own node_id`);

  const snap = await client.callTool({ name: `sys.${NODES[0]}.metrics.snapshot`, arguments: {} });
  check(!snap.isError && snap.structuredContent.node_id === NODES[0] && snap.structuredContent.cpu,
        'metrics snapshot from a real device, validated by the SDK against the outputSchema');

  const bad = await client.callTool({ name: `sysecho.${NODES[0]}.echo.invoke`, arguments: { message: 42 } });
  check(bad.isError && envelope(bad).code === 'E_INVALID_ARGUMENTS' && envelope(bad).message.includes('/message'),
        'bad arguments: isError with E_INVALID_ARGUMENTS naming the field');
  await expectError(client.callTool({ name: 'sysecho.01hzx9k3m4p7q8r9s0t1v2w3x0.echo.invoke', arguments: { message: 'x' } }),
                    'an unknown tool is -32602', (e) => e.code === -32602);

  const slow = await client.callTool({ name: `sysecho.${NODES[1]}.echo.invoke`, arguments: { message: 'sleep:4000' } });
  check(slow.isError && envelope(slow).code === 'E_DEADLINE_EXCEEDED', 'a device past its deadline gives E_DEADLINE_EXCEEDED');

  const burst = [];
  for (let i = 0; i < 12; i++) burst.push(await client.callTool({ name: `sys.${NODES[2]}.metrics.snapshot`, arguments: {} }));
  const limited = burst.find((r) => r.isError);
  check(limited && envelope(limited).code === 'E_RATE_LIMITED' && envelope(limited).retry_after_ms > 0,
        'the capability rate limit answers E_RATE_LIMITED with retry_after_ms');

  const other = await connect(env.TOKEN_OTHER);
  check((await listAll(other.client)).names.length === 0, "tenant 'other' sees none of acme's tools");
  await expectError(other.client.callTool({ name: `sysecho.${NODES[0]}.echo.invoke`, arguments: { message: 'x' } }),
                    "another tenant's tool is an unknown tool (-32602)", (e) => e.code === -32602);
  await other.client.close();
  const reader = await connect(env.TOKEN_DEVICES_ONLY);
  await expectError(reader.client.callTool({ name: `sysecho.${NODES[0]}.echo.invoke`, arguments: { message: 'x' } }),
                    'insufficient scope: HTTP 403', (e) => e.code === 403 || /403/.test(String(e.message)));
  await reader.client.close();

  // Subscribe: answered at once; samples on the GET stream; then cancel (issue 37, item 2).
  const samples = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.logger === 'fleetmcp.metrics' && n.params.level === 'info') samples.push(n.params.data);
  });
  const calls = sentCalls(transport);
  const sub = await client.callTool({ name: `sys.${NODES[3]}.metrics.subscribe`, arguments: { interval_ms: 1000 } });
  check(!sub.isError && sub.structuredContent.interval_ms === 1000, 'subscribe answers at once with the lease');
  for (let i = 0; i < 50 && samples.length < 2; i++) await sleep(100);
  check(samples.length >= 2 && samples[0].node_id === NODES[3],
        'subscribe: notifications/message on the GET stream carry the device telemetry samples');
  await client.notification({ method: 'notifications/cancelled', params: { requestId: calls.at(-1).id } });
  await sleep(300);
  check(/fleetmcp_sse_streams\{endpoint="mcp_call"\} 0/.test(await (await fetch(env.METRICS_URL)).text()),
        'cancelling a subscribe closes it on the server');
  const after = samples.length;
  await sleep(1500);
  check(samples.length === after, 'no sample arrives after the cancel');

  // The lone node's process dies: its calls fail at once, not at the deadline.
  process.kill(Number(env.LONE_PID), 'SIGKILL');
  await sleep(500);  // the broker sees the TCP connection close
  const t0 = Date.now();
  const off = await client.callTool({ name: `sysecho.${LONE}.echo.invoke`, arguments: { message: 'x' } });
  const took = Date.now() - t0;
  check(off.isError && envelope(off).code === 'E_NODE_OFFLINE' && took < 100,
        `a killed device's tool fails with E_NODE_OFFLINE in ${took} ms`);

  // A new node appears, then its 4 s manifest expires while its process is stopped.
  changed.length = 0;
  const extra = spawn('sh', ['-c', env.EXTRA_CMD], { stdio: 'ignore' });
  fs.writeFileSync(env.EXTRA_PIDFILE, String(extra.pid));
  check(await waitFor(() => changed.length > 0, 10000), 'notifications/tools/list_changed when a node appears');
  const grown = (await listAll(client)).names;
  check(grown.length === names.length + 3, 'the new node\'s tools are listed');
  changed.length = 0;
  process.kill(extra.pid, 'SIGSTOP');
  check(await waitFor(() => changed.length > 0, 10000), 'notifications/tools/list_changed when a manifest expires');
  check((await listAll(client)).names.length === names.length, "the expired node's tools are gone");
  process.kill(extra.pid, 'SIGKILL');

  await client.ping();
  await transport.terminateSession();
  ok('DELETE ends the session');
  await client.close();
}

main().catch((e) => fail('unexpected error', String(e && e.stack || e)));
