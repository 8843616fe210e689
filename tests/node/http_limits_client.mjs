// Clients for tests/integration/http_limits.sh (issue 17: the HTTP front's limits and quotas).
//   node http_limits_client.mjs hold URL COUNT ADDR...   opens COUNT TCP connections to URL's
//       host:port, spread over the local ADDRs (all of 127.0.0.0/8 is loopback), prints
//       "held H refused R" once every connection has been answered or has stayed open 2 s, and
//       keeps the held ones open until stdin closes.
//   node http_limits_client.mjs sessions                 the MCP session quotas through the
//       official SDK client; env MCP_URL, TOKEN_A, TOKEN_B, TOKEN_C (three subs of one tenant),
//       PER_CALLER, PER_TENANT (the broker's options). Prints "ok - …"; exits 1 on a failure.
import net from 'node:net';
import { fail, check } from './check.mjs';
import { connect as open } from './mcp_session.mjs';


async function hold(url, count, addrs) {
  const { hostname, port } = new URL(url);
  const results = await Promise.all(Array.from({ length: count }, (_, i) => new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: addrs[i % addrs.length] });
    let settled = false;
    const settle = (held) => { if (!settled) { settled = true; resolve({ socket, held }); } };
    socket.on('data', () => settle(false));  // the front's 503: past a cap
    socket.on('error', () => settle(false));
    socket.on('close', () => settle(false));
    socket.on('connect', () => setTimeout(() => settle(true), 2000));
  })));
  const held = results.filter((r) => r.held).length;
  console.log(`held ${held} refused ${count - held}`);
  process.stdin.resume();
  process.stdin.on('end', () => { for (const r of results) r.socket.destroy(); process.exit(0); });
}

async function connect(token) {
  return (await open(process.env.MCP_URL, token, 'fleetmcp-limits-test')).client;
}

async function sessions() {
  const { TOKEN_A, TOKEN_B, TOKEN_C } = process.env;
  const perCaller = Number(process.env.PER_CALLER), perTenant = Number(process.env.PER_TENANT);
  const mine = [];
  for (let i = 0; i <= perCaller; i++) mine.push(await connect(TOKEN_A));
  check(true, `one token opened ${perCaller + 1} sessions with a quota of ${perCaller}`);
  let evicted = null;
  try { await mine[0].listTools(); } catch (e) { evicted = e; }
  check(evicted !== null && /404|not found/i.test(String(evicted.message)),
    'its oldest session was ended to make room (404 on its next request)', evicted && evicted.message);
  for (const c of mine.slice(1)) await c.listTools();
  check(true, 'its newer sessions still work');
  for (let i = perCaller; i < perTenant; i++) await connect(TOKEN_B);
  check(true, 'a second subject of the tenant fills the tenant quota');
  let refused = null;
  try { await connect(TOKEN_C); } catch (e) { refused = e; }
  check(refused !== null && /429|quota/i.test(String(refused.message)),
    'a third subject with no session of its own is refused once the tenant is full (429)', refused && refused.message);
  const again = await connect(TOKEN_A);
  await again.listTools();
  check(true, 'a subject that holds sessions may still start a new one (its oldest goes)');
  process.exit(0);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'hold') await hold(rest[0], Number(rest[1]), rest.slice(2));
else if (mode === 'sessions') await sessions();
else fail(`unknown mode ${mode}`);
