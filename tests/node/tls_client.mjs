// The official MCP TypeScript SDK client over HTTPS (plugin_opt_http_tls_*): connects, lists the
// tools and calls one echo tool, trusting only the fleet CA (NODE_EXTRA_CA_CERTS). Driven by
// tests/integration/http_tls.sh with MCP_URL, TOKEN and NODE in env. Prints "ok - …" per check.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { MCP_URL, TOKEN, NODE } = process.env;
function check(cond, what, detail) {
  if (!cond) {
    console.error(`FAIL: ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok - ${what}`);
}

const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
});
const client = new Client({ name: 'fleetmcp-tls-test', version: '1.0.0' });
await client.connect(transport);
check(MCP_URL.startsWith('https://'), 'the SDK client connected over https', MCP_URL);
const { tools } = await client.listTools();
const echo = tools.find((t) => [`sysecho.${NODE}.echo.invoke`, `sysecho-${NODE}-echo-invoke`].includes(t.name));
check(echo !== undefined, 'tools/list over TLS lists the node', tools.map((t) => t.name));
const result = await client.callTool({ name: echo.name, arguments: { message: 'over tls' } });
check(!result.isError && result.structuredContent?.message === 'over tls', 'tools/call over TLS', result);
await client.close();
