// Clients for tests/integration/confirmation_abuse.sh (issue 33, items 2 and 5), on the official
// MCP TypeScript SDK. Env: MCP_URL, NODES (space-separated acme node ids, simulated with
// --catalogue; gpio17 is rate-limited to RATE calls/s), and per mode:
//   node confirmation_abuse_client.mjs ended   TOKEN (every scope), SESSIONS
//       (plugin_opt_http_max_sessions_per_caller): a gpio17 set waits for the user's
//       confirmation (the client declares elicitation and never answers); the session is then
//       ended by DELETE, and again by the token's SESSIONS+1st initialize: each time the call is
//       answered at once (isError, E_NODE_OFFLINE, "the MCP session ended", nothing sent to the
//       device), not after the 120 s elicitation timeout.
//   node confirmation_abuse_client.mjs flood   TOKEN_A (read-only), TOKEN_B (every scope), RATE,
//       SETS: A floods gpio17's get from six loops; B's SETS confirmed sets (commit token) and five
//       sets confirmed by elicitation all run; then, without the flood, B spends the bucket itself
//       and a set by elicitation is refused E_RATE_LIMITED before the human is asked.
// Prints "ok - …" per check; exits 1 on the first failure.
import { setMaxListeners } from 'node:events';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { fail, check, sleep, envelope } from './check.mjs';
import { connect as open } from './mcp_session.mjs';

// The flood's thousands of requests add an abort listener each to the SDK transport's signal.
setMaxListeners(0);
const env = process.env;
const NODES = env.NODES.split(' ');
const gpio = (node, verb) => `gpio.${node}.gpio17.${verb}`;

// A session whose client declares elicitation; `reply(message)` answers each question (a promise
// that never settles leaves it unanswered). { client, transport, questions }.
async function human(token, reply) {
  const session = await open(env.MCP_URL, token, 'fleetmcp-confirmation-abuse', { capabilities: { elicitation: {} } });
  const questions = [];
  session.client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    return reply(request.params.message);
  });
  return { ...session, questions };
}

// The question goes on the session's GET stream, which the SDK opens right after initialize;
// until it is open the front falls back to the commit token. Calls `call()` until a question was
// asked (or the call was answered otherwise than by that fallback): { call, asked }.
async function untilAsked(session, call) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const before = session.questions.length;
    const pending = call();
    pending.catch(() => {});  // awaited by the caller
    let asked;
    const question = new Promise((resolve) => { asked = setInterval(() => session.questions.length > before && resolve('asked'), 10); });
    const first = await Promise.race([question, pending]);
    clearInterval(asked);
    if (first === 'asked' || session.questions.length > before) return { call: pending, asked: true };
    const e = first.isError ? envelope(first) : {};
    if (e.code !== 'E_SAFETY_DENIED' || !/commit_token=/.test(e.suggested_fix)) return { call: pending, asked: false };
    await sleep(100);
  }
  fail('the elicitation question never reached the client');
}

// ---- item 2 -----------------------------------------------------------------------------------

async function waiting(node) {
  // An input pin's set is refused before anyone is asked (docs/protocol.md D38): make it an output.
  const plain = (await open(env.MCP_URL, env.TOKEN, 'fleetmcp-configurer')).client;
  const output = await confirmed(plain, gpio(node, 'invoke'), { mode: 'output' });
  if (output.isError) fail('gpio17 is an output (a confirmed invoke)', output);
  await sleep(1000);  // the invoke spent gpio17's rate token (RATE calls/s)
  await plain.close();
  const session = await human(env.TOKEN, () => new Promise(() => {}));  // the user never decides
  const { call, asked } = await untilAsked(session, () =>
    session.client.callTool({ name: gpio(node, 'set'), arguments: { value: 'high' } }, undefined, { timeout: 20000 }));
  if (!asked) fail('the set waits for the user', await call);
  return { ...session, call };
}

async function answeredAtOnce(call, what, says, since) {
  let r;
  try {
    r = await call;
  } catch (e) {
    fail(`${what}: the waiting call is answered`, String(e));  // the SDK's own timeout: it hung
  }
  const took = Date.now() - since;
  const e = r.isError ? envelope(r) : null;
  check(e && e.code === 'E_NODE_OFFLINE' && e.message.includes('the MCP session ended') && e.message.includes(says) &&
    e.message.includes('nothing was sent to the device') && /new session/.test(e.suggested_fix) && took < 2000,
  `${what}: the waiting call is answered at once, isError E_NODE_OFFLINE "the MCP session ended … ${says} … nothing was sent to the device" (${took} ms)`,
  { r, took });
}

async function ended() {
  const node = NODES[1];
  const deleted = await waiting(node);
  let since = Date.now();
  await deleted.transport.terminateSession();
  await answeredAtOnce(deleted.call, 'DELETE of the session', 'DELETE', since);

  const evicted = await waiting(node);
  for (let i = 0; i < Number(env.SESSIONS); i++) await open(env.MCP_URL, env.TOKEN, 'fleetmcp-confirmation-abuse');
  since = Date.now();
  await answeredAtOnce(evicted.call, `initialize number ${Number(env.SESSIONS) + 1} of the token`,
    'plugin_opt_http_max_sessions_per_caller', since);
  process.exit(0);
}

// ---- item 5 -----------------------------------------------------------------------------------

// A two-phase call by commit token: the first call's refusal carries the token, the second runs.
// A first call refused otherwise (E_RATE_LIMITED) is the answer.
async function confirmed(client, name, args) {
  const first = await client.callTool({ name, arguments: args });
  const token = first.isError ? /commit_token="([^"]+)"/.exec(envelope(first).suggested_fix ?? '')?.[1] : undefined;
  if (!token) return first;
  return client.callTool({ name, arguments: { ...args, commit_token: token } });
}

const describe = (r) => (r.isError ? `${envelope(r).code}: ${envelope(r).message} (${envelope(r).retry_after_ms} ms)` : 'ok');

async function flood() {
  const node = NODES[0];
  const interval = Math.ceil(1250 / Number(env.RATE));  // B acts at 80 % of the capability's rate
  const b = (await open(env.MCP_URL, env.TOKEN_B, 'fleetmcp-actor')).client;
  const output = await confirmed(b, gpio(node, 'invoke'), { mode: 'output' });
  check(!output.isError, 'gpio17 is an output (a confirmed invoke)', output);

  const a = (await open(env.MCP_URL, env.TOKEN_A, 'fleetmcp-flooder')).client;
  const reads = { ok: 0, limited: 0, other: [] };
  let flooding = true;
  const loops = Array.from({ length: 6 }, async () => {
    while (flooding) {
      const r = await a.callTool({ name: gpio(node, 'get'), arguments: {} });
      if (!r.isError) reads.ok++;
      else if (envelope(r).code === 'E_RATE_LIMITED') reads.limited++;
      else reads.other.push(envelope(r));
    }
  });
  await sleep(1000);  // the flood has the bucket

  const sets = [];
  for (let i = 0; i < Number(env.SETS); i++) {
    sets.push(describe(await confirmed(b, gpio(node, 'set'), { value: i % 2 ? 'low' : 'high' })));
    await sleep(interval);
  }
  check(sets.every((s) => s === 'ok'), `while a read-only token floods gpio17 get, another caller's ${sets.length} confirmed sets all run`, sets);

  const accepting = await human(env.TOKEN_B, async () => ({ action: 'accept' }));
  const byHuman = [];
  for (let i = 0; i < 5; i++) {
    const { call } = await untilAsked(accepting, () =>
      accepting.client.callTool({ name: gpio(node, 'set'), arguments: { value: i % 2 ? 'low' : 'high' } }));
    byHuman.push(describe(await call));
    await sleep(interval);
  }
  check(byHuman.every((s) => s === 'ok') && accepting.questions.length === 5,
    '... and five sets the user accepts (elicitation) run: no accept fails with E_RATE_LIMITED', { byHuman, questions: accepting.questions.length });

  flooding = false;
  await Promise.all(loops);
  check(reads.limited > 100 && reads.ok > 0 && reads.other.length === 0,
    `the flood was one: ${reads.limited} reads refused E_RATE_LIMITED, ${reads.ok} served`, reads);

  // B spends the bucket itself; the next set would be refused, so nobody is asked to confirm it.
  await sleep(2000);
  let spent;
  for (let i = 0; i < 10 && !spent; i++) {
    const r = await confirmed(b, gpio(node, 'set'), { value: 'low' });
    if (r.isError && envelope(r).code === 'E_RATE_LIMITED') spent = envelope(r);
  }
  check(spent && spent.retry_after_ms > 0, 'B spends the bucket with its own sets: E_RATE_LIMITED, retry_after_ms', spent);
  const asked = accepting.questions.length;
  const limited = await accepting.client.callTool({ name: gpio(node, 'set'), arguments: { value: 'high' } });
  check(limited.isError && envelope(limited).code === 'E_RATE_LIMITED' && envelope(limited).retry_after_ms > 0 &&
    accepting.questions.length === asked,
  'a set the limiter would refuse is refused E_RATE_LIMITED with retry_after_ms before the user is asked', { limited, asked: accepting.questions.length - asked });
  await sleep(envelope(limited).retry_after_ms);
  const { call: later } = await untilAsked(accepting, () =>
    accepting.client.callTool({ name: gpio(node, 'set'), arguments: { value: 'high' } }));
  check(describe(await later) === 'ok' && accepting.questions.length === asked + 1,
    '... and after retry_after_ms the user is asked and the set runs', accepting.questions.length - asked);
  process.exit(0);
}

const modes = { ended, flood };
if (!modes[process.argv[2]]) fail(`unknown mode ${process.argv[2]}`);
modes[process.argv[2]]().catch((e) => fail('unexpected error', String(e?.stack ?? e)));
