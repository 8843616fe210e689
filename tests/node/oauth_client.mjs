// An MCP client that knows nothing but the MCP URL signs in through a real authorization server
// (tests/node/oauth_server.mjs, npm's oidc-provider) and calls a tool: the official SDK's OAuth
// client (@modelcontextprotocol/sdk v1) runs resource metadata -> authorization server metadata ->
// dynamic registration -> authorization code with PKCE -> a JWT access token for this resource;
// this script plays the browser (follows the redirects, signs in, consents). Then tokens made with
// the authorization server's own keys by Node's jose (an implementation independent of the
// plugin's OpenSSL code) check each refusal. Driven by tests/integration/oauth_e2e.sh; env:
//   MCP_URL, AS_URL, KEYS (the server's private JWKs), NODE_ID (a simulated node), PHASE:
//     flow     the whole sign-in and a tools/call; the accepted token is written to TOKEN_OUT
//     refusals each forged token refused with its reason (and the good ones accepted)
//     accepted TOKEN_IN still works (rotation, outage); FRESH_REFUSED: a never-seen token is refused
//     agent_token  an agent's token for devices:read through the server, to TOKEN_OUT
//     mint     a token signed by jose with the server's ES256 key, CLAIMS (JSON) over good ones, to TOKEN_OUT
// Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, auth as sdkAuth } from '@modelcontextprotocol/sdk/client/auth.js';
import { SignJWT, importJWK, base64url } from 'jose';
import { check, fail, ok } from './check.mjs';
import { TestClientAuth, browse } from './oauth_browser.mjs';

const env = process.env;
const callEcho = (client, message) =>
  client.callTool({ name: 'system_echo_ping', arguments: { node_id: env.NODE_ID, arguments: { message } } });

async function flow() {
  const auth = new TestClientAuth();
  const open = () => {
    const transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), { authProvider: auth });
    return { transport, client: new Client({ name: 'fleetmcp-oauth', version: '1.0.0' }) };
  };
  let { client, transport } = open();
  try {
    await client.connect(transport);
    fail('connecting without signing in should need authorization');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) fail('the first connect ends in UnauthorizedError', String(e));
  }
  check(auth.info?.client_id, 'the SDK found the authorization server through the resource metadata and registered (DCR)');
  const asked = new URL(auth.authorizationUrl);
  check(asked.origin === env.AS_URL && asked.searchParams.get('resource') === env.MCP_URL &&
        asked.searchParams.get('code_challenge_method') === 'S256',
        'the authorization request names this MCP resource (RFC 8707) with PKCE S256', String(asked));
  const code = (await browse(asked)).searchParams.get('code');
  await transport.finishAuth(code);
  const token = auth.tokens().access_token;
  const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(new TextDecoder().decode(base64url.decode(p))));
  check(payload.aud === env.MCP_URL && payload.iss === env.AS_URL && header.kid,
        `the access token is a JWT (${header.alg}) of the authorization server for this resource`, payload);
  ({ client, transport } = open());
  await client.connect(transport);
  const { tools } = await client.listTools();
  check(tools.some((t) => t.name === 'system_echo_ping'), `tools/list with the IdP's token (${tools.length} tools)`);
  const echoed = await callEcho(client, 'signed in');
  check(!echoed.isError && echoed.structuredContent?.message === 'signed in' &&
        echoed.structuredContent?.node_id === env.NODE_ID, 'tools/call answered by the device', echoed);
  await client.close();
  fs.writeFileSync(env.TOKEN_OUT, token);
}

// A raw POST of initialize with `token`: { status, challenge, body }.
async function post(token) {
  const res = await fetch(env.MCP_URL, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json',
               accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
                           params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.text() };
}

const keys = () => JSON.parse(fs.readFileSync(env.KEYS, 'utf8')).keys;
const now = () => Math.floor(Date.now() / 1000);
const goodClaims = () => ({ iss: env.AS_URL, sub: 'mallory', fleet_tenant: 'acme', aud: env.MCP_URL, scope: 'tools:call:read_only',
                            jti: `jose-${Math.random()}`, iat: now(), exp: now() + 300 });

// A token signed by jose with one of the server's keys (or `secret` for HMAC), header and claims as given.
async function forge(kid, claims = {}, header = {}, secret) {
  const jwk = keys().find((k) => k.kid === kid);
  const alg = header.alg ?? jwk.alg;
  const key = secret ?? await importJWK(jwk, jwk.alg);
  return new SignJWT({ ...goodClaims(), ...claims }).setProtectedHeader({ alg, kid, typ: 'at+jwt', ...header }).sign(key);
}

async function expectRefused(token, reason, what) {
  const r = await post(token);
  check(r.status === 401 && r.challenge.includes('error="invalid_token"') && r.challenge.includes(reason) &&
        r.body.includes(reason) && !r.body.includes(token) && !r.challenge.includes(token),
        `${what}: 401 invalid_token, "${reason}"`, r);
}

async function refusals() {
  const kids = keys().map((k) => k.kid).slice(0, 3);
  for (const kid of kids) {
    const r = await post(await forge(kid));
    check(r.status === 200, `a token signed by jose with the IdP's ${kid} key is accepted (independent crypto)`, r);
  }
  const [rs, es] = kids;
  await expectRefused(await forge(es, { aud: 'https://other.example/mcp' }), 'does not name this resource', 'wrong audience');
  await expectRefused(await forge(es, { aud: [env.MCP_URL.replace('/mcp', '/other')] }), 'does not name this resource',
                      'another resource of the same server');
  await expectRefused(await forge(es, { iss: 'http://127.0.0.1:1' }), 'its issuer (iss) is not one this resource trusts',
                      'wrong issuer');
  await expectRefused(await forge(es, { exp: now() - 120, iat: now() - 600 }), 'expired (exp)', 'expired');
  await expectRefused(await forge(es, { nbf: now() + 600 }), 'not valid yet (nbf)', 'not yet valid');
  const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', kid: es }))}.${base64url.encode(JSON.stringify(goodClaims()))}.`;
  await expectRefused(unsigned, 'alg none is not accepted', 'alg none');
  // HMAC keyed with the RSA key's public JWK text: the classic confusion attack.
  const rsaPublic = keys().find((k) => k.kid === rs);
  const publicText = new TextEncoder().encode(JSON.stringify({ kty: 'RSA', n: rsaPublic.n, e: rsaPublic.e }));
  await expectRefused(await forge(rs, {}, { alg: 'HS256' }, publicText), 'alg HS256 is not the algorithm of the issuer',
                      'HS256 keyed with the public key');
  await expectRefused(await forge(es, {}, { jku: `${env.AS_URL}/jwks` }), 'the header names a key (jku)', 'a jku header');
  await expectRefused(await forge(es, {}, { kid: 'nobody' }), 'key id (kid) is not among', 'an unknown kid');
  // Too small a scope: 403 insufficient_scope naming every scope the call needs.
  const auth = new TestClientAuth();
  auth.saved = { access_token: await forge(es, { scope: 'devices:read' }), token_type: 'Bearer' };
  const transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${auth.saved.access_token}` } } });
  const client = new Client({ name: 'fleetmcp-oauth-small', version: '1.0.0' });
  await client.connect(transport);
  const res = await fetch(env.MCP_URL, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth.saved.access_token}`, 'content-type': 'application/json',
               accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId,
               'mcp-protocol-version': transport.protocolVersion },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call',
                           params: { name: 'system_echo_ping', arguments: { node_id: env.NODE_ID, arguments: { message: 'x' } } } }),
  });
  const challenge = res.headers.get('www-authenticate') ?? '';
  check(res.status === 403 && challenge.includes('error="insufficient_scope"') &&
        challenge.includes('scope="devices:read tools:call:read_only"'),
        '403 insufficient_scope names every scope the call needs (held and missing)', { status: res.status, challenge });
  await client.close();
}

async function accepted() {
  const r = await post(fs.readFileSync(env.TOKEN_IN, 'utf8'));
  check(r.status === 200, `${env.WHAT}: the token accepted before still works`, r);
  if (env.FRESH_REFUSED) {
    await expectRefused(await forge(env.FRESH_KID), env.FRESH_REFUSED, `${env.WHAT}: a token never seen before`);
  }
  if (env.FRESH_ACCEPTED) {
    const fresh = await post(await forge(env.FRESH_ACCEPTED));
    check(fresh.status === 200, `${env.WHAT}: a token signed with key ${env.FRESH_ACCEPTED} is accepted`, fresh);
  }
}

// An agent that is not an MCP client (an MQTT subscriber) signs in through the same server with
// the SDK's auth(), asking for devices:read; its access token goes to TOKEN_OUT.
async function agentToken() {
  const provider = new TestClientAuth();
  const first = await sdkAuth(provider, { serverUrl: env.MCP_URL, scope: 'devices:read' });
  check(first === 'REDIRECT', 'the SDK sends the agent to the authorization server for devices:read');
  const code = (await browse(provider.authorizationUrl)).searchParams.get('code');
  check(await sdkAuth(provider, { serverUrl: env.MCP_URL, authorizationCode: code }) === 'AUTHORIZED', 'the code is redeemed');
  fs.writeFileSync(env.TOKEN_OUT, provider.tokens().access_token);
}

async function mint() {
  fs.writeFileSync(env.TOKEN_OUT, await forge(keys()[1].kid, JSON.parse(env.CLAIMS ?? '{}')));
}

const phases = { flow, refusals, accepted, mint, agent_token: agentToken };
await phases[env.PHASE]();
ok(`phase ${env.PHASE} done`);
