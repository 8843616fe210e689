// How long an MCP client (the official SDK) takes to see the whole fleet (bench/scale.sh):
// initialize, then tools/list page by page until the cursor runs out; in compact mode
// (plugin_opt_http_tools_mode compact) also fleet_find_nodes page by page (limit 500).
// Each page's time is split into the server's part (`server_ms`: from sending the request to the
// last byte of the response, loopback network included) and the client's (`client_ms`: the rest,
// the SDK parsing and checking the page and compiling an Ajv validator per outputSchema, of which
// `validator_ms` is the compiling); CPU per page of the broker (BROKER_PID, all its threads) and
// of this client are the load-independent figures.
// Env: MCP_URL, TOKEN, EXPECT_NODES, BROKER_PID (optional). Prints one JSON line:
//   {"mode","tools","pages","list_ms","page_ms":{p50,p90,max},"server_ms":{p50,p90},"client_ms":{p50,p90},
//    "validator_ms","cpu_ms_per_page":{broker|null,client},"page_bytes":{avg,max},
//    "find_nodes":{nodes,pages,ms}|null, "initialize_ms"}
// Exits 1 if the listing does not cover EXPECT_NODES nodes (3 tools each in per-node mode).
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const env = process.env;
const expectNodes = Number(env.EXPECT_NODES);
const pct = (a, p) => a[Math.min(a.length - 1, Math.floor(a.length * p))];

// Response sizes and times as they come off the wire (the SDK does not expose them).
let bytes = 0, serverMs = 0;
const countingFetch = async (url, init) => {
  const t = performance.now();
  const r = await fetch(url, init);
  const body = await r.arrayBuffer();
  serverMs += performance.now() - t;
  bytes += body.byteLength;
  return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
};

// The SDK's own validator (its default), timed: listTools compiles one per listed outputSchema
// that has no $id it compiled before.
let validatorMs = 0;
const ajv = new AjvJsonSchemaValidator();
const timedValidator = {
  getValidator(schema) {
    const t = performance.now();
    try { return ajv.getValidator(schema); } finally { validatorMs += performance.now() - t; }
  },
};

// CPU milliseconds so far: the broker's (every thread, from /proc) and this process's.
const brokerCpuMs = () => {
  if (!env.BROKER_PID) return 0;
  const dir = `/proc/${env.BROKER_PID}/task`;
  let ns = 0;
  for (const t of readdirSync(dir)) ns += Number(readFileSync(`${dir}/${t}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
};
const clientCpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

async function main() {
  let t = performance.now();
  const transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${env.TOKEN}` } }, fetch: countingFetch,
  });
  const client = new Client({ name: 'fleetmcp-scale', version: '1.0.0' }, { jsonSchemaValidator: timedValidator });
  await client.connect(transport);
  const initializeMs = performance.now() - t;

  const pageMs = [], pageServerMs = [], pageClientMs = [], pageBytes = [], names = new Set();
  let cursor;
  validatorMs = 0;
  const start = performance.now(), broker0 = brokerCpuMs(), client0 = clientCpuMs();
  do {
    bytes = 0;
    serverMs = 0;
    t = performance.now();
    const page = await client.listTools(cursor ? { cursor } : {});
    const ms = performance.now() - t;
    pageMs.push(ms);
    pageServerMs.push(serverMs);
    pageClientMs.push(ms - serverMs);
    pageBytes.push(bytes);
    for (const tool of page.tools) names.add(tool.name);
    cursor = page.nextCursor;
  } while (cursor);
  const listMs = performance.now() - start;
  const brokerPerPage = (brokerCpuMs() - broker0) / pageMs.length, clientPerPage = (clientCpuMs() - client0) / pageMs.length;
  const compact = names.has('fleet_find_nodes');

  let findNodes = null;
  if (compact) {
    const seen = new Set();
    let pages = 0, next;
    const t1 = performance.now();
    do {
      const r = await client.callTool({ name: 'fleet_find_nodes', arguments: next ? { limit: 500, cursor: next } : { limit: 500 } });
      if (r.isError) throw new Error(`fleet_find_nodes: ${JSON.stringify(r.content)}`);
      pages++;
      for (const n of r.structuredContent.nodes) seen.add(n.node_id);
      next = r.structuredContent.next_cursor;
    } while (next);
    findNodes = { nodes: seen.size, pages, ms: Math.round(performance.now() - t1) };
  }
  await transport.terminateSession();
  await client.close();

  const sorted = [...pageMs].sort((a, b) => a - b);
  const p50p90 = (a) => { const s = [...a].sort((x, y) => x - y); return { p50: +pct(s, 0.5).toFixed(1), p90: +pct(s, 0.9).toFixed(1) }; };
  const out = {
    mode: compact ? 'compact' : 'per_node', tools: names.size, pages: pageMs.length, list_ms: Math.round(listMs),
    page_ms: { p50: +pct(sorted, 0.5).toFixed(1), p90: +pct(sorted, 0.9).toFixed(1), max: +sorted[sorted.length - 1].toFixed(1) },
    server_ms: p50p90(pageServerMs), client_ms: p50p90(pageClientMs), validator_ms: Math.round(validatorMs),
    cpu_ms_per_page: { broker: env.BROKER_PID ? +brokerPerPage.toFixed(2) : null, client: +clientPerPage.toFixed(2) },
    page_bytes: { avg: Math.round(pageBytes.reduce((a, b) => a + b, 0) / pageBytes.length), max: Math.max(...pageBytes) },
    find_nodes: findNodes, initialize_ms: Math.round(initializeMs),
  };
  console.log(JSON.stringify(out));
  const covered = compact ? findNodes.nodes : names.size / 3;
  if (covered !== expectNodes) {
    console.error(`the listing covers ${covered} nodes, ${expectNodes} expected`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(`tools_list_timing: ${e?.stack ?? e}`); process.exit(1); });
