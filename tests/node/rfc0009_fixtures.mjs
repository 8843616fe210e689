// RFC-0009 §9 fixtures 1 and 3 against POST /mcp/tools/call, with Node's own HTTP client and an
// SSE reader that checks the closed event set (metric, ping, close). Fixture 2 (a client that
// stops reading) needs a small TCP window and is run by fleetmcp-http-stalled-client.
//   node rfc0009_fixtures.mjs fixture1|fixture3
// env: BASE (http://127.0.0.1:PORT), TOKEN, NODE, CTL (the test host's command fifo),
//      SECONDS (fixture 1's reading time), INTERVAL_MS
import fs from 'node:fs';
import http from 'node:http';
import { ok, fail, check } from './check.mjs';

const { BASE, TOKEN, NODE, CTL } = process.env;
const SECONDS = Number(process.env.SECONDS ?? 6);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 1000);
const FRAME_KEYS = ['ts_ms', 'node_id', 'cpu_pct', 'mem_bytes', 'mem_total_bytes', 'disk_pct', 'load_1m', 'load_5m', 'load_15m'];


// Opens the stream; calls onEvent({event, data}) per SSE event; resolves with all events at the end.
function open(onEvent) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ tool: `sys.${NODE}.metrics.subscribe`, arguments: { interval_ms: INTERVAL_MS } });
    const req = http.request(`${BASE}/mcp/tools/call`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'text/event-stream', 'Content-Type': 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      if (!/^text\/event-stream/.test(res.headers['content-type'])) return reject(new Error('not an event stream'));
      const events = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let at;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
          if (!['metric', 'ping', 'close'].includes(event)) fail(`unexpected event type ${event}`);
          const e = { event, data: JSON.parse(data), at: Date.now() };
          events.push(e);
          onEvent(e, res);
        }
      });
      res.on('end', () => resolve(events));
      res.on('close', () => resolve(events));
    });
    req.end(body);
  });
}

async function fixture1() {
  const started = Date.now();
  const events = await open((e, res) => {
    // Read promptly for SECONDS, then close our side (a half-close: we still read the close frame).
    if (Date.now() - started >= SECONDS * 1000 && !res.closing) {
      res.closing = true;
      res.socket.end();
    }
  });
  const metrics = events.filter((e) => e.event === 'metric');
  const pings = events.filter((e) => e.event === 'ping');
  check(metrics.length >= SECONDS, `fixture 1: ${metrics.length} metric frames in ${SECONDS} s at ${INTERVAL_MS} ms`);
  check(metrics.every((m) => FRAME_KEYS.every((k) => k in m.data) && Object.keys(m.data).length === FRAME_KEYS.length),
        'fixture 1: every frame has exactly the §5.1 fields');
  check(pings.length >= 1 && pings.every((p) => Object.keys(p.data).length === 0), `fixture 1: ${pings.length} ping events with {}`);
  const last = events[events.length - 1];
  check(last.event === 'close' && last.data.code === 1000 && last.data.reason === 'normal', 'fixture 1: close 1000 normal after the client closed');
}

async function fixture3() {
  let metrics = 0;
  const events = await open((e) => {
    if (e.event === 'metric' && ++metrics === 2) fs.appendFileSync(CTL, `offline ${NODE}\n`);
  });
  const last = events[events.length - 1];
  check(metrics >= 2, 'fixture 3: frames flowed before the device went away');
  check(last.event === 'close' && last.data.code === 4503 && last.data.reason === 'device_offline', 'fixture 3: close 4503 device_offline');
  fs.appendFileSync(CTL, `online ${NODE}\n`);
}

const which = process.argv[2];
(which === 'fixture1' ? fixture1() : which === 'fixture3' ? fixture3() : Promise.reject(new Error('fixture1|fixture3')))
  .catch((e) => fail(String(e && e.stack || e)));
