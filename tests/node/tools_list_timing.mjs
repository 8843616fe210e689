// How long an MCP client (the official SDK) takes to see the whole fleet (bench/scale.sh):
// initialize, then tools/list page by page until the cursor runs out; in compact mode
// (plugin_opt_http_tools_mode compact) also fleet_find_nodes page by page (limit 500).
// Env: MCP_URL, TOKEN, EXPECT_NODES. Prints one JSON line:
//   {"mode","tools","pages","list_ms","page_ms":{p50,p90,max},"page_bytes":{avg,max},
//    "find_nodes":{nodes,pages,ms}|null, "initialize_ms"}
// Exits 1 if the listing does not cover EXPECT_NODES nodes (3 tools each in per-node mode).
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = process.env;
const expectNodes = Number(env.EXPECT_NODES);
const pct = (a, p) => a[Math.min(a.length - 1, Math.floor(a.length * p))];

// Response sizes as they come off the wire (the SDK does not expose them).
let bytes = 0;
const countingFetch = async (url, init) => {
  const r = await fetch(url, init);
  const body = await r.arrayBuffer();
  bytes += body.byteLength;
  return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
};

async function main() {
  let t = performance.now();
  const transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${env.TOKEN}` } }, fetch: countingFetch,
  });
  const client = new Client({ name: 'fleetmcp-scale', version: '1.0.0' });
  await client.connect(transport);
  const initializeMs = performance.now() - t;

  const pageMs = [], pageBytes = [], names = new Set();
  let cursor;
  const start = performance.now();
  do {
    bytes = 0;
    t = performance.now();
    const page = await client.listTools(cursor ? { cursor } : {});
    pageMs.push(performance.now() - t);
    pageBytes.push(bytes);
    for (const tool of page.tools) names.add(tool.name);
    cursor = page.nextCursor;
  } while (cursor);
  const listMs = performance.now() - start;
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
  const out = {
    mode: compact ? 'compact' : 'per_node', tools: names.size, pages: pageMs.length, list_ms: Math.round(listMs),
    page_ms: { p50: +pct(sorted, 0.5).toFixed(1), p90: +pct(sorted, 0.9).toFixed(1), max: +sorted[sorted.length - 1].toFixed(1) },
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
