// Clients for tests/integration/session_end.sh (issue 24, items 4 and 5), on the official MCP
// TypeScript SDK. Env: MCP_URL, BASE (http://127.0.0.1:PORT), NODES (space-separated acme node
// ids, simulated with --test-hooks), and per mode:
//   node session_end_client.mjs quota      TOKEN_A, TOKEN_A2 (two subjects of acme), TOKEN_OTHER
//       (tenant beta), PER_CALLER, PER_TENANT (the broker's stream quotas), ATTEMPTS: token A asks
//       for ATTEMPTS metrics streams; PER_CALLER stream and the rest are refused (E_RATE_LIMITED,
//       the stream quota); A2 gets what is left of the tenant's quota; the other tenant's
//       initialize and /healthz work meanwhile; a cancelled stream gives its place back.
//   node session_end_client.mjs evict      TOKEN, SESSIONS (plugin_opt_http_max_sessions_per_caller):
//       a call in flight (the device holds it 4.5 s) and a metrics subscription in a session that
//       the token's SESSIONS+1st initialize ends: the call is answered (isError, E_NODE_OFFLINE,
//       "the MCP session ended"), at once, not cut off, and the subscription ends with the session.
//   node session_end_client.mjs shutdown   TOKEN, READY (a file): a call in flight and a metrics
//       subscription, then "ready" in READY; the script stops the broker (SIGTERM): the call is
//       answered (isError, E_NODE_OFFLINE, "shutting down").
// Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { fail, check, sleep, envelope } from './check.mjs';
import { connect as open, sentCalls } from './mcp_session.mjs';

const env = process.env;
const NODES = env.NODES.split(' ');
const QUOTA = /quota of metrics streams/;

async function connect(token, url = env.MCP_URL) {
  const { client, transport } = await open(url, token, 'fleetmcp-session-end-test');
  client.calls = sentCalls(transport);
  return client;
}

// A metrics subscribe on NODE (answered at once, issue 37 item 2). `first` is 'streaming' when
// the call answered with the lease, else its result (or error); cancel() sends
// notifications/cancelled naming the call, which ends the subscription.
function subscribe(client, node) {
  const sent = client.calls.length;  // this call's place among the client's tools/call requests
  const call = client.callTool({ name: `sys.${node}.metrics.subscribe`, arguments: { interval_ms: 1000 } });
  const first = call.then((r) => (r.isError ? r : 'streaming'), (e) => e);
  const cancel = () => client.notification({ method: 'notifications/cancelled', params: { requestId: client.calls[sent].id } });
  return { cancel, first, call };
}

// How many MCP metrics subscriptions the front holds (/metrics).
async function subscriptions() {
  return Number(/fleetmcp_sse_streams\{endpoint="mcp_call"\} (\d+)/.exec(await (await fetch(`${env.BASE}/metrics`)).text())[1]);
}

// A subscribe that waits out the capability's own rate limit (5 calls/s), which answers
// E_RATE_LIMITED too, but not for the stream quota.
async function openStream(client, node) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const s = subscribe(client, node);
    const first = await s.first;
    if (first === 'streaming' || first instanceof Error || !first.isError) return { ...s, first };
    const e = envelope(first);
    if (e.code !== 'E_RATE_LIMITED' || QUOTA.test(e.message)) return { ...s, first };
    await sleep(e.retry_after_ms);
  }
  fail('the capability rate limit never let a subscribe through');
}

const refusedByQuota = (s) => s.first !== 'streaming' && !(s.first instanceof Error) && s.first.isError &&
  envelope(s.first).code === 'E_RATE_LIMITED' && QUOTA.test(envelope(s.first).message) &&
  envelope(s.first).retry_after_ms > 0;
const describe = (s) => (s.first === 'streaming' ? 'streaming' : s.first instanceof Error ? String(s.first) : envelope(s.first));

// The SDK client opens its session's GET stream once initialized: it counts in the quotas too.
async function getStreams(n) {
  const open = async () => /fleetmcp_sse_streams\{endpoint="mcp_get"\} (\d+)/.exec(await (await fetch(`${env.BASE}/metrics`)).text())[1];
  for (let i = 0; i < 100 && Number(await open()) !== n; i++) await sleep(50);
  if (Number(await open()) !== n) fail(`${n} GET streams open`, await open());
}

async function quota() {
  const attempts = Number(env.ATTEMPTS);
  // Each token's session holds its GET stream: the quotas leave one place fewer for metrics.
  const perCaller = Number(env.PER_CALLER) - 1, perTenant = Number(env.PER_TENANT) - 2;
  const a = await connect(env.TOKEN_A);
  const a2 = await connect(env.TOKEN_A2);
  await getStreams(2);
  const mine = [];
  for (let i = 0; i < attempts; i++) mine.push(await openStream(a, NODES[i % NODES.length]));
  const streaming = mine.filter((s) => s.first === 'streaming');
  check(streaming.length === perCaller && mine.slice(0, perCaller).every((s) => s.first === 'streaming'),
    `one token asked for ${attempts} MCP metrics streams: ${perCaller} stream (its quota, with its GET stream)`, mine.map(describe));
  check(mine.slice(perCaller).every(refusedByQuota),
    `... the other ${attempts - perCaller} are answered at once: isError, E_RATE_LIMITED, the stream quota, retry_after_ms`,
    mine.slice(perCaller).map(describe));

  const other = await connect(env.TOKEN_OTHER);
  await other.listTools();
  check(true, "another tenant's initialize and tools/list work while the token holds its streams");
  const health = await fetch(`${env.BASE}/healthz`);
  check(health.status === 200, '... and /healthz answers 200', health.status);

  const theirs = [];
  for (let i = 0; i <= perTenant - perCaller; i++) theirs.push(await openStream(a2, NODES[i % NODES.length]));
  check(theirs.slice(0, perTenant - perCaller).every((s) => s.first === 'streaming') && refusedByQuota(theirs.at(-1)),
    `a second subject of the tenant gets what is left of the tenant's quota (${perTenant - perCaller}), then E_RATE_LIMITED`,
    theirs.map(describe));

  await streaming[0].cancel();  // notifications/cancelled: the subscription ends and frees its place
  let again;
  for (let i = 0; i < 20; i++) {
    again = await openStream(a, NODES[0]);
    if (again.first === 'streaming' || !refusedByQuota(again)) break;
    await sleep(200);  // the cancel reaches the front after the client has moved on
  }
  check(again.first === 'streaming', 'a cancelled stream gives its place back: the token opens another', describe(again));
  // A subscription outlives its call (issue 37, item 2): the sessions' end (DELETE) ends them and
  // gives the tenant's quota back for the next modes.
  for (const c of [a, a2, other]) await c.transport.terminateSession();
  for (let i = 0; i < 40 && (await subscriptions()) !== 0; i++) await sleep(50);
  check((await subscriptions()) === 0, "ending the sessions ended their subscriptions");
  process.exit(0);
}

// `call` must be answered with an isError result whose envelope is E_NODE_OFFLINE and whose
// message contains `says`, within `ms` of `since` (long before the device's answer, 4.5 s after
// the call).
async function answered(call, what, says, since, ms) {
  let outcome;
  try {
    outcome = await call;
  } catch (e) {
    fail(`${what}: answered, not cut off`, String(e));
  }
  const took = Date.now() - since;
  const e = outcome.isError ? envelope(outcome) : null;
  check(e && e.code === 'E_NODE_OFFLINE' && e.message.includes(says) && took < ms,
    `${what}: answered isError, E_NODE_OFFLINE "${says}" (${took} ms)`, { outcome, took });
  return e;
}

async function inFlight(client) {
  const echo = client.callTool({ name: `sysecho.${NODES[0]}.echo.invoke`, arguments: { message: 'sleep:4500' } },
    undefined, { timeout: 30000 });
  echo.catch(() => {});  // awaited later (answered()); not an unhandled rejection meanwhile
  const stream = subscribe(client, NODES[1]);
  if ((await stream.first) !== 'streaming') fail('the metrics stream started', describe(stream));
  return { echo, stream };
}

async function evict() {
  const first = await connect(env.TOKEN);
  const { echo } = await inFlight(first);
  const held = await subscriptions();  // with the quota mode's, still running
  for (let i = 0; i < Number(env.SESSIONS); i++) await connect(env.TOKEN);
  const evicted = Date.now();
  check(true, `the same token started ${env.SESSIONS} more sessions: the first is the oldest past the quota`);
  const e = await answered(echo, 'the call in flight in the ended session', 'the MCP session ended', evicted, 2000);
  check(/plugin_opt_http_max_sessions_per_caller/.test(e.message) && /new session/.test(e.suggested_fix),
    '... naming the quota that ended it, and saying to call again in a new session', e);
  for (let i = 0; i < 40 && (await subscriptions()) !== held - 1; i++) await sleep(50);
  check((await subscriptions()) === held - 1, '... and its metrics subscription ended with the session');
  process.exit(0);
}

async function shutdown() {
  const client = await connect(env.TOKEN);
  const { echo } = await inFlight(client);
  fs.writeFileSync(env.READY, 'ready\n');
  const since = Date.now();
  const e = await answered(echo, 'the call in flight at SIGTERM', 'shutting down', since, 4000);
  check(/once the broker is back/.test(e.suggested_fix), '... saying to call again once the broker is back', e);
  process.exit(0);
}

const modes = { quota, evict, shutdown };
if (!modes[process.argv[2]]) fail(`unknown mode ${process.argv[2]}`);
modes[process.argv[2]]().catch((e) => fail('unexpected error', String(e?.stack ?? e)));
