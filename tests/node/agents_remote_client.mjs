// The Claude Desktop path: the official SDK's stdio client drives mcp-remote (the stdio ↔
// Streamable HTTP bridge Claude Desktop and Cursor users run), which talks to the front. Lists
// the by_kind tools and calls system_echo_ping on NODE. Env: MCP_URL, TOKEN, NODE.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { check } from './check.mjs';

const env = process.env;
const here = path.dirname(fileURLToPath(import.meta.url));

const transport = new StdioClientTransport({
  command: path.join(here, 'node_modules/.bin/mcp-remote'),
  // The token in the environment, not the argument list (mcp-remote expands ${VAR} in headers).
  args: [env.MCP_URL, '--transport', 'http-only', '--header', 'Authorization:Bearer ${FLEETMCP_TOKEN}'],
  env: { ...process.env, FLEETMCP_TOKEN: env.TOKEN },
  stderr: 'inherit',
});
const client = new Client({ name: 'fleetmcp-remote-check', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
check(tools.length <= 40 && tools.some((t) => t.name === 'system_echo_ping'),
      `mcp-remote: tools/list through the stdio bridge (${tools.length} by_kind tools)`, tools.map((t) => t.name));
const r = await client.callTool({ name: 'system_echo_ping', arguments: { node_id: env.NODE, arguments: { message: 'via mcp-remote' } } });
check(!r.isError && r.structuredContent?.message === 'via mcp-remote', 'mcp-remote: system_echo_ping answers from the device', r);
await client.close();
process.exit(0);
