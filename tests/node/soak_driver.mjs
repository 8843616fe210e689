// The soak's load driver and fault injector (bench/soak.sh starts it against mosquitto + the plugin
// and its HTTP front). For DURATION_S it runs, concurrently:
//   - unary tools/call at RATE calls/s, round robin over the live nodes: echo and metrics
//     snapshot, through RFC-0009 POST /mcp/tools/call (fetch) and MCP (the official SDK client,
//     a small pool of sessions, one replaced every SESSION_EVERY_S with DELETE + a fresh
//     initialize and a full paginated tools/list);
//   - metrics subscriptions: an RFC-0009 SSE stream or an MCP subscribe (answered at once, samples
//     as notifications/message on the session's GET stream, then notifications/cancelled naming
//     the call) opened every STREAM_EVERY_S, held 2-6 s, closed by the client;
//   - node churn: every CHURN_EVERY_S one "churn" group (a fleetmcp-device --simulate process)
//     is killed (SIGKILL or SIGTERM, alternately) and started again 2-5 s later, so its nodes
//     reconnect and re-announce; their short manifest_ttl_s makes them re-announce on their own too;
//   - revocations: every REVOKE_EVERY_S one churn node is revoked (fleetctl pki revoke + SIGHUP
//     of the broker); 3 s later a call to it must be refused as an unknown tool.
// Then it checks what a user would see:
//   - every call got exactly one answer (no timeout, no duplicate JSON-RPC response);
//   - calls to the "stable" group (never disturbed) all succeeded;
//   - other calls ended ok or with an expected code (E_NODE_OFFLINE, E_MANIFEST_NOT_FOUND,
//     E_DEADLINE_EXCEEDED for a node killed mid-call);
//   - every non-revoked node is online again at the end, and /healthz counts the revoked ones;
//   - the audit log has exactly one line per call, per (via, caller, tool), and as many "ok".
// Writes OUT/calls.csv (t_ms,via,kind,latency_ms,outcome), OUT/events.csv and OUT/driver.json.
// Exit 0 when every check held, 1 otherwise (the failures are printed).
//
// Env: BASE (http://127.0.0.1:PORT of the front), FLEET (JSON: {groups:[{name, bundle_dir,
// nodes:[id…], churn:bool}]}), TOKENS (JSON: [{sub, token, use:"rfc0009"|"mcp"|"stream"}]),
// DEVICE, FLEETCTL, PKI_DIR, BROKER_PID, AUDIT_LOG, OUT, DURATION_S (600), RATE (40),
// STREAM_EVERY_S (2), CHURN_EVERY_S (20), REVOKE_EVERY_S (60), SESSION_EVERY_S (30).
import fs from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sentCalls } from './mcp_session.mjs';

const env = process.env;
const num = (name, dflt) => (env[name] === undefined || env[name] === '' ? dflt : Number(env[name]));
const DURATION_S = num('DURATION_S', 600);
const RATE = num('RATE', 40);
const STREAM_EVERY_S = num('STREAM_EVERY_S', 2);
const CHURN_EVERY_S = num('CHURN_EVERY_S', 20);
const REVOKE_EVERY_S = num('REVOKE_EVERY_S', 60);
const SESSION_EVERY_S = num('SESSION_EVERY_S', 30);
const ANSWER_TIMEOUT_MS = 20000;  // far past the gateway deadline (5 s): no answer by then = never
const FLEET = JSON.parse(fs.readFileSync(env.FLEET, 'utf8'));
const TOKENS = JSON.parse(fs.readFileSync(env.TOKENS, 'utf8'));
const OUT = env.OUT;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let running = true;
let stopLoops;
const loopsStopped = new Promise((r) => { stopLoops = r; });
// A sleep the end of the run cuts short, so no loop holds the run up for its whole period.
const pause = (ms) => Promise.race([sleep(ms), loopsStopped]);
const t0 = Date.now();
const elapsed = () => ((Date.now() - t0) / 1000).toFixed(0);
const failures = [];
function violation(what) {
  if (failures.length < 200) failures.push(what);
  console.error(`[${elapsed()} s] VIOLATION: ${what}`);
}

// ---- the fleet: groups of nodes, each group one fleetmcp-device process -------------------------
const groups = FLEET.groups.map((g) => ({ ...g, proc: null, state: 'down', restarts: 0 }));
const groupOf = new Map();
for (const g of groups) for (const id of g.nodes) groupOf.set(id, g);
const revoked = new Map();  // node_id -> ms when the revocation was signalled
const total = groupOf.size;
const events = [];
function event(what) {
  events.push([Date.now() - t0, what]);
  console.log(`[${elapsed()} s] ${what}`);
}

function startGroup(g) {
  const log = fs.openSync(`${OUT}/device-${g.name}.log`, 'a');
  g.proc = spawn(env.DEVICE, ['--simulate', String(g.nodes.length), '--bundle-dir', g.bundle_dir, '--log-level', 'warn'],
                 { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const proc = g.proc;
  // Only stopGroup ends a device process: any other exit is a crash.
  proc.once('exit', (code, signal) => {
    if (!proc.stopping) violation(`device process ${g.name} exited by itself (code ${code}, signal ${signal})`);
  });
  g.state = 'up';
  g.upSince = Date.now();
  writePids();
}
function stopGroup(g, signal) {
  if (!g.proc) return Promise.resolve();
  const p = g.proc;
  g.state = 'down';
  p.stopping = true;
  const exited = new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', r)));
  p.kill(signal);
  return exited.then(() => { g.proc = null; writePids(); });
}
// bench/soak.sh kills whatever is listed here if the driver itself dies.
function writePids() {
  fs.writeFileSync(`${OUT}/device.pids`, groups.filter((g) => g.proc).map((g) => g.proc.pid).join('\n') + '\n');
}

async function health() {
  const r = await fetch(`${env.BASE}/healthz`, { signal: AbortSignal.timeout(5000) });
  const body = await r.json();
  // serving: online nodes whose announce is verified (a node is online from its CONNECT).
  return { ...(body.nodes ?? {}), serving: body.serving ?? 0 };
}
async function waitOnline(want, seconds) {
  const end = Date.now() + seconds * 1000;
  let nodes = {};
  while (Date.now() < end) {
    nodes = await health().catch(() => ({}));
    if ((nodes.online ?? 0) === want && nodes.serving === want) return nodes;
    await sleep(250);
  }
  return nodes;
}

// ---- calls and their bookkeeping ----------------------------------------------------------------
const calls = [];                 // [t_ms, via, kind, latency_ms, outcome]
const perKey = new Map();         // `${via}|${caller}|${tool}` -> { calls, ok }
const outcomes = new Map();       // `${via} ${kind} ${class} ${outcome}` -> count
let inFlight = 0;
let maxInFlight = 0;

// What a call to `node` may legitimately end with, decided when the call is made.
function expectation(node) {
  if (revoked.has(node)) return Date.now() - revoked.get(node) > 3000 ? 'revoked' : 'revoking';
  const g = groupOf.get(node);
  return g.churn ? 'churn' : 'stable';
}
// A churn node may be down (offline, or its manifest expired while it was), or die mid-call or
// just after a (re)start, before its first telemetry sample.
const CHURN_OUTCOMES = new Set(['ok', 'stream', 'stream_without_frames', 'E_NODE_OFFLINE', 'E_MANIFEST_NOT_FOUND',
                                'E_DEADLINE_EXCEEDED']);

function record(call, outcome, latencyMs) {
  const key = `${call.via}|${call.caller}|${call.tool}`;
  const k = perKey.get(key) ?? { calls: 0, ok: 0 };
  k.calls++;
  if (outcome === 'ok') k.ok++;
  perKey.set(key, k);
  calls.push([call.started - t0, call.via, call.kind, latencyMs.toFixed(3), outcome]);
  const cls = call.expect;
  const ck = `${call.via} ${call.kind} ${cls} ${outcome}`;
  outcomes.set(ck, (outcomes.get(ck) ?? 0) + 1);
  const fine = cls === 'stable' ? outcome === 'ok' || outcome === 'stream'
             : cls === 'revoked' ? outcome === 'E_MANIFEST_NOT_FOUND'
             : CHURN_OUTCOMES.has(outcome);
  if (!fine) violation(`${call.via} ${call.tool} (${cls} node) answered ${outcome}`);
}

// A call that must be answered exactly once: `run` resolves to the outcome string.
async function tracked(call, run) {
  call.started = Date.now();
  call.expect = expectation(call.node);
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const t = performance.now();
  let outcome;
  try {
    outcome = await run();
  } catch (e) {
    outcome = `NO_ANSWER(${String(e?.message ?? e).slice(0, 80)})`;
    violation(`${call.via} ${call.tool}: no answer: ${e?.message ?? e}`);
  }
  inFlight--;
  record(call, outcome, performance.now() - t);
}

const toolName = (kind, node) => (kind === 'echo' ? `sysecho.${node}.echo.invoke`
                                : kind === 'snapshot' ? `sys.${node}.metrics.snapshot`
                                : `sys.${node}.metrics.subscribe`);
const argumentsFor = (kind, i) => (kind === 'echo' ? { message: `soak ${i}` } : kind === 'snapshot' ? {} : { interval_ms: 1000 });

// RFC-0009 unary: the envelope's code, or ok (checked against what was asked).
async function rfcUnary(token, kind, node, i) {
  const r = await fetch(`${env.BASE}/mcp/tools/call`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ tool: toolName(kind, node), arguments: argumentsFor(kind, i) }),
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  });
  const body = await r.json();
  if (r.status !== 200) return body.code ?? `HTTP_${r.status}`;
  if (body.node_id !== node || (kind === 'echo' && body.message !== `soak ${i}`)) return 'WRONG_RESULT';
  return 'ok';
}

// MCP: isError results carry the envelope in _meta; protocol errors carry it as error.data.
function mcpOutcome(result, kind, node, i) {
  if (result.isError) return result._meta?.['io.fleetmcp/error']?.code ?? 'TOOL_ERROR';
  const s = result.structuredContent;
  if (s?.node_id !== node || (kind === 'echo' && s.message !== `soak ${i}`)) return 'WRONG_RESULT';
  return 'ok';
}
function mcpErrorOutcome(e) {
  if (e?.code === -32001) throw e;  // the SDK's request timeout: unanswered
  return e?.data?.code ?? `RPC_${e?.code ?? 'ERROR'}`;
}

// ---- MCP sessions -------------------------------------------------------------------------------
const mcpTokens = TOKENS.filter((t) => t.use === 'mcp');
const sessions = [];
let duplicateAnswers = 0;
let listedTools = { pages: 0, tools: 0, ms: 0, lists: 0 };

async function openSession(tok) {
  const transport = new StreamableHTTPClientTransport(new URL(`${env.BASE}/mcp`),
                                                      { requestInit: { headers: { Authorization: `Bearer ${tok.token}` } } });
  const client = new Client({ name: 'fleetmcp-soak', version: '1.0.0' });
  // A second response to the same id reaches the SDK as "unknown message ID": a call answered twice.
  client.onerror = (e) => {
    if (/unknown message ID/i.test(String(e?.message))) { duplicateAnswers++; violation(`MCP: ${e.message}`); }
  };
  await client.connect(transport);
  const samples = new Map();  // node_id → metrics samples received on the GET stream
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
    if (params.logger === 'fleetmcp.metrics' && params.level === 'info') {
      samples.set(params.data.node_id, (samples.get(params.data.node_id) ?? 0) + 1);
    }
  });
  const calls = sentCalls(transport);
  const t = performance.now();
  let cursor, pages = 0, tools = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages++;
    tools += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor);
  listedTools = { pages, tools, ms: performance.now() - t, lists: listedTools.lists + 1 };
  return { tok, client, transport, samples, calls, busy: 0 };
}
async function closeSession(s) {
  await s.transport.terminateSession().catch((e) => violation(`MCP DELETE failed: ${e.message}`));
  await s.client.close();
}
async function replaceSession(index) {
  const old = sessions[index];
  sessions[index] = await openSession(old.tok);
  while (old.busy > 0) await sleep(100);
  await closeSession(old);
}

async function mcpUnary(session, kind, node, i) {
  session.busy++;
  try {
    const r = await session.client.callTool({ name: toolName(kind, node), arguments: argumentsFor(kind, i) }, undefined,
                                            { timeout: ANSWER_TIMEOUT_MS });
    return mcpOutcome(r, kind, node, i);
  } catch (e) {
    return mcpErrorOutcome(e);
  } finally {
    session.busy--;
  }
}

// ---- metrics subscriptions ----------------------------------------------------------------------
const streamStats = { opened: 0, frames: 0, emptyStable: 0 };
const streamTokens = TOKENS.filter((t) => t.use === 'stream');

async function rfcStream(token, node, holdMs) {
  const abort = new AbortController();
  const r = await fetch(`${env.BASE}/mcp/tools/call`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ tool: toolName('subscribe', node), arguments: { interval_ms: 1000 } }),
    signal: AbortSignal.any([abort.signal, AbortSignal.timeout(ANSWER_TIMEOUT_MS)]),
  });
  if (r.status !== 200) return (await r.json()).code ?? `HTTP_${r.status}`;
  streamStats.opened++;
  let frames = 0, text = '';
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  const until = Date.now() + holdMs;
  let closedBy = null;
  const timer = setTimeout(() => abort.abort('held long enough'), holdMs);
  try {
    while (Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = text.indexOf('\n\n')) >= 0) {
        const ev = text.slice(0, cut);
        text = text.slice(cut + 2);
        if (ev.startsWith('event: metric')) frames++;
        if (ev.startsWith('event: close')) closedBy = JSON.parse(ev.slice(ev.indexOf('data: ') + 6)).reason;
      }
    }
  } catch (e) {
    if (!abort.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    abort.abort('done');
  }
  streamStats.frames += frames;
  if (closedBy === 'device_offline') return 'E_NODE_OFFLINE';
  return frames > 0 || holdMs < 4000 ? 'stream' : 'stream_without_frames';
}

async function mcpStream(session, node, holdMs) {
  session.busy++;
  try {
    const before = session.samples.get(node) ?? 0;
    const r = await session.client.callTool({ name: toolName('subscribe', node), arguments: { interval_ms: 1000 } }, undefined,
                                            { timeout: ANSWER_TIMEOUT_MS });
    if (r.isError) return r._meta?.['io.fleetmcp/error']?.code ?? 'TOOL_ERROR';
    const id = session.calls.findLast((c) => c.params.name === toolName('subscribe', node) &&
                                             JSON.stringify(c.params.arguments).includes(node)).id;
    await sleep(holdMs);
    await session.client.notification({ method: 'notifications/cancelled', params: { requestId: id } });
    const frames = (session.samples.get(node) ?? 0) - before;  // other streams of the node count too: a lower bound is all we need
    streamStats.opened++;
    streamStats.frames += frames;
    return frames > 0 || holdMs < 4000 ? 'stream' : 'stream_without_frames';
  } catch (e) {
    return mcpErrorOutcome(e);
  } finally {
    session.busy--;
  }
}

// ---- the schedulers -----------------------------------------------------------------------------
const pending = new Set();
function launch(promise) {
  pending.add(promise);
  promise.finally(() => pending.delete(promise));
}

// Round robin over a shuffled list of callable nodes, so each node sees RATE/N calls per second
// (far below its rate limits) and no node is picked twice in a row.
let order = [];
function nextNode() {
  for (let tries = 0; tries < 2; tries++) {
    while (order.length) {
      const n = order.pop();
      if (!revoked.has(n)) return n;
    }
    order = [...groupOf.keys()].sort(() => Math.random() - 0.5);
  }
  return null;
}

async function unaryLoop() {
  const rfcTokens = TOKENS.filter((t) => t.use === 'rfc0009');
  let i = 0;
  const start = performance.now();
  while (running) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (!running) break;
    const node = nextNode();
    const kind = i % 3 === 2 ? 'snapshot' : 'echo';
    const n = i++;
    if (n % 2 === 0) {
      const tok = rfcTokens[n % rfcTokens.length];
      const call = { via: 'rfc0009', caller: tok.sub, kind, node, tool: toolName(kind, node) };
      launch(tracked(call, () => rfcUnary(tok.token, kind, node, n)));
    } else {
      const s = sessions[n % sessions.length];
      const call = { via: 'mcp', caller: s.tok.sub, kind, node, tool: toolName(kind, node) };
      launch(tracked(call, () => mcpUnary(s, kind, node, n)));
    }
  }
}

async function streamLoop() {
  let i = 0;
  while (running) {
    await pause(STREAM_EVERY_S * 1000);
    if (!running) break;
    const node = nextNode();
    const hold = 2000 + Math.random() * 4000;
    if (i++ % 2 === 0) {
      const tok = streamTokens[0];
      const call = { via: 'rfc0009', caller: tok.sub, kind: 'subscribe', node, tool: toolName('subscribe', node) };
      launch(tracked(call, () => rfcStream(tok.token, node, hold)));
    } else {
      const s = sessions[i % sessions.length];
      const call = { via: 'mcp', caller: s.tok.sub, kind: 'subscribe', node, tool: toolName('subscribe', node) };
      launch(tracked(call, () => mcpStream(s, node, hold)));
    }
  }
}

async function churnLoop() {
  const churnGroups = groups.filter((g) => g.churn);
  let i = 0;
  while (running && churnGroups.length) {
    await pause(CHURN_EVERY_S * 1000);
    if (!running) break;
    const g = churnGroups[i % churnGroups.length];
    const signal = i++ % 2 === 0 ? 'SIGKILL' : 'SIGTERM';
    await stopGroup(g, signal);
    event(`churn: ${g.name} (${g.nodes.length} nodes) stopped with ${signal}`);
    await sleep(2000 + Math.random() * 3000);
    startGroup(g);
    g.restarts++;
    event(`churn: ${g.name} started again`);
  }
}

async function revokeLoop() {
  const candidates = groups.filter((g) => g.churn).flatMap((g) => g.nodes).sort(() => Math.random() - 0.5);
  while (running && candidates.length) {
    await pause(REVOKE_EVERY_S * 1000);
    if (!running) break;
    const node = candidates.pop();
    revoked.set(node, Date.now());
    execFileSync(env.FLEETCTL, ['pki', 'revoke', '--dir', env.PKI_DIR, node], { stdio: 'ignore' });
    process.kill(Number(env.BROKER_PID), 'SIGHUP');
    event(`revoke: ${node} (group ${groupOf.get(node).name}); SIGHUP to the broker`);
    await sleep(3500);
    // The probe: a revoked node's tools are gone for every caller.
    const tok = TOKENS.find((t) => t.use === 'rfc0009');
    const call = { via: 'rfc0009', caller: tok.sub, kind: 'echo', node, tool: toolName('echo', node) };
    launch(tracked(call, () => rfcUnary(tok.token, 'echo', node, -1)));
  }
}

async function sessionLoop() {
  let i = 0;
  while (running) {
    await pause(SESSION_EVERY_S * 1000);
    if (!running) break;
    await replaceSession(i++ % sessions.length).catch((e) => violation(`MCP session replacement failed: ${e.message}`));
  }
}

async function progressLoop() {
  let last = 0;
  while (running) {
    await pause(30000);
    if (!running) break;
    const nodes = await health().catch(() => ({}));
    const ok = [...outcomes].filter(([k]) => k.endsWith(' ok') || k.endsWith(' stream')).reduce((a, [, v]) => a + v, 0);
    console.log(`[${elapsed()} s] ${calls.length} calls answered (+${calls.length - last}), ${ok} ok, ${inFlight} in flight, ` +
                `${streamStats.opened} streams, nodes ${JSON.stringify(nodes)}, ${failures.length} violations`);
    last = calls.length;
  }
}

// ---- the audit log against what the driver did -------------------------------------------------
function auditCheck() {
  const audit = new Map();
  let lines = 0;
  for (const line of fs.readFileSync(env.AUDIT_LOG, 'utf8').split('\n')) {
    if (!line.includes('"via"')) continue;
    const a = JSON.parse(line);
    const key = `${a.via}|${a.caller}|${a.tool}`;
    const k = audit.get(key) ?? { lines: 0, ok: 0 };
    k.lines++;
    if (a.decision === 'ok') k.ok++;
    audit.set(key, k);
    lines++;
  }
  let mismatches = 0;
  for (const key of new Set([...perKey.keys(), ...audit.keys()])) {
    const d = perKey.get(key) ?? { calls: 0, ok: 0 };
    const a = audit.get(key) ?? { lines: 0, ok: 0 };
    if (d.calls !== a.lines || d.ok !== a.ok) {
      if (mismatches++ < 10) violation(`audit: ${key}: driver ${d.calls} calls (${d.ok} ok), audit ${a.lines} lines (${a.ok} ok)`);
    }
  }
  return { lines, keys: audit.size, mismatches };
}

// ---- main ---------------------------------------------------------------------------------------
async function main() {
  for (const g of groups) startGroup(g);
  event(`started ${groups.length} device processes, ${total} nodes`);
  const t = Date.now();
  const first = await waitOnline(total, 120);
  if ((first.online ?? 0) !== total) throw new Error(`only ${first.online} of ${total} nodes online after 120 s`);
  event(`all ${total} nodes online after ${Date.now() - t} ms`);
  for (const tok of mcpTokens) sessions.push(await openSession(tok));
  event(`${sessions.length} MCP sessions; tools/list: ${listedTools.tools} tools in ${listedTools.pages} pages`);

  const loops = [unaryLoop(), streamLoop(), churnLoop(), revokeLoop(), sessionLoop(), progressLoop()];
  await sleep(DURATION_S * 1000);
  running = false;
  stopLoops();
  event('load stopped; waiting for the calls in flight');
  await Promise.all(loops);
  await Promise.all([...pending]);

  for (const g of groups) if (!g.proc) startGroup(g);
  const want = total - revoked.size;
  const end = await waitOnline(want, 120);
  if ((end.online ?? 0) !== want) violation(`/healthz: ${end.online} nodes online at the end, ${want} expected`);
  if ((end.revoked ?? 0) !== revoked.size) violation(`/healthz: ${end.revoked ?? 0} revoked, ${revoked.size} expected`);
  event(`end: nodes ${JSON.stringify(end)}`);
  for (const s of sessions) await closeSession(s);
  await sleep(3000);  // stream ends are audited when the server sees the connection go
  const audit = auditCheck();
  event(`audit: ${audit.lines} call lines over ${audit.keys} (via, caller, tool) keys, ${audit.mismatches} mismatches`);

  for (const g of groups) await stopGroup(g, 'SIGTERM');

  fs.writeFileSync(`${OUT}/calls.csv`, 't_ms,via,kind,latency_ms,outcome\n' + calls.map((c) => c.join(',')).join('\n') + '\n');
  fs.writeFileSync(`${OUT}/events.csv`, 't_ms,event\n' + events.map(([t, e]) => `${t},"${e}"`).join('\n') + '\n');
  const summary = {
    duration_s: DURATION_S, rate: RATE, nodes: total, calls: calls.length, max_in_flight: maxInFlight,
    outcomes: Object.fromEntries([...outcomes].sort()), streams: streamStats, duplicate_answers: duplicateAnswers,
    revoked: revoked.size, restarts: Object.fromEntries(groups.map((g) => [g.name, g.restarts])),
    tools_list: listedTools, audit, failures,
  };
  fs.writeFileSync(`${OUT}/driver.json`, JSON.stringify(summary, null, 2) + '\n');
  console.log(`driver: ${calls.length} calls, ${failures.length} violations`);
  return failures.length === 0;
}

process.on('SIGTERM', () => { for (const g of groups) g.proc?.kill('SIGKILL'); process.exit(1); });
main().then((ok) => process.exit(ok ? 0 : 1), (e) => {
  console.error(`driver failed: ${e?.stack ?? e}`);
  for (const g of groups) g.proc?.kill('SIGKILL');
  process.exit(1);
});
