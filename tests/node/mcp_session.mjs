// What every MCP test client opens and walks: the official SDK Client over its Streamable HTTP
// transport with a bearer token, the whole tools/list over every page (checking what pagination
// promises), and a call that must be refused.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, fail } from './check.mjs';

// An initialized session on `url` as `name`: { client, transport }. No token: no Authorization
// header. `options` are the Client's (capabilities).
export async function connect(url, token, name, options = {}) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name, version: '1.0.0' }, options);
  await client.connect(transport);
  return { client, transport };
}

// Every tool over every page: { tools, names, pages }. Fails when a nextCursor is empty or does not
// advance, or after 100 pages.
export async function listAll(client) {
  const tools = [];
  let cursor, pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages++;
    tools.push(...page.tools);
    if (page.nextCursor !== undefined && page.nextCursor === '') fail('nextCursor is never empty');
    if (page.nextCursor !== undefined && page.nextCursor === cursor) fail('nextCursor always advances');
    cursor = page.nextCursor;
    if (pages > 100) fail('pagination ends');
  } while (cursor);
  return { tools, names: tools.map((t) => t.name), pages };
}

// `promise` must reject with an error for which test(error) holds.
export async function expectError(promise, what, test) {
  try {
    await promise;
  } catch (e) {
    check(test(e), what, { code: e.code, message: e.message });
    return;
  }
  fail(what, 'no error');
}

// The tools/call requests `transport` sends from now on, in order ({id, params}): their ids are
// what a notifications/cancelled names to stop a metrics subscription after its call was answered.
export function sentCalls(transport) {
  const calls = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === 'tools/call') calls.push({ id: message.id, params: message.params });
    return send(message, options);
  };
  return calls;
}
