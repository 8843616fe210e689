// What the official MCP SDKs' OAuth clients run by themselves against a real authorization server
// (tests/node/oauth_server.mjs, npm's oidc-provider), beyond oauth_client.mjs's v1 sign-in: this
// script only plays the user's browser (tests/node/oauth_browser.mjs). Driven by
// tests/integration/oauth_e2e.sh; env MCP_URL, AS_URL, KEYS (the server's private JWKs), NODE_ID
// (a simulated node of tenant acme, with the Doc 05 catalogue), PHASE:
//   v2       the v2 client (@modelcontextprotocol/client) signs in knowing only the MCP URL
//            (metadata, dynamic registration, PKCE, resource), lists tools and calls one
//   refresh  the v2 client asks for a refresh token (offline_access, which it adds by itself when
//            the server offers it); its access token is replaced by an expired one, and the SDK
//            refreshes on the 401 without the browser
//   stepup   the v1 client (pre-registered) signs in with the read-only grant the 401 asks for, calls an actuation
//            tool, gets 403 insufficient_scope and re-authorises with the accumulated scopes;
//            then the call succeeds
//   tenant   user bob, whom the server maps to tenant globex (claim fleet_tenant): acme's node is
//            refused to him
// Prints "ok - …" per check; exits 1 on the first failure.
import fs from 'node:fs';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError } from '@modelcontextprotocol/client';
import { SignJWT, importJWK } from 'jose';
import { check, fail, ok } from './check.mjs';
import { TestClientAuth, browse } from './oauth_browser.mjs';

const env = process.env;
const claimsOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url'));
const echo = (client, message) =>
  client.callTool({ name: 'system_echo_ping', arguments: { node_id: env.NODE_ID, arguments: { message } } });

// Signs in with the v2 client as `login`: the first connect needs authorization, the browser
// consents, finishAuth redeems the code (checking the callback's iss, RFC 9207); returns a
// connected client.
async function signInV2(auth, login = 'alice') {
  const open = () => new TransportV2(new URL(env.MCP_URL), { authProvider: auth });
  let transport = open();
  try {
    await new ClientV2({ name: 'fleetmcp-oauth-v2', version: '1.0.0' }).connect(transport);
    fail('connecting without signing in should need authorization');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) fail('the first connect ends in UnauthorizedError', String(e));
  }
  check(auth.info?.client_id && new URL(auth.authorizationUrl).searchParams.get('resource') === env.MCP_URL,
        `v2: registered (DCR) and sent ${login} to the authorization server for this resource`);
  await transport.finishAuth((await browse(auth.authorizationUrl, login)).searchParams);
  const client = new ClientV2({ name: 'fleetmcp-oauth-v2', version: '1.0.0' });
  transport = open();
  await client.connect(transport);
  return client;
}

async function v2() {
  const auth = new TestClientAuth();
  const client = await signInV2(auth);
  const { tools } = await client.listTools();
  check(tools.some((t) => t.name === 'system_echo_ping'), `v2: tools/list with the IdP's token (${tools.length} tools)`);
  const echoed = await echo(client, 'v2 signed in');
  check(!echoed.isError && echoed.structuredContent?.message === 'v2 signed in', 'v2: tools/call answered by the device', echoed);
  await client.close();
}

async function refresh() {
  const auth = new TestClientAuth({ refresh: true });
  const client = await signInV2(auth);
  const first = auth.tokens();
  check(first.refresh_token && new URL(auth.authorizationUrl).searchParams.get('scope').split(' ').includes('offline_access'),
        'v2: the SDK asked for offline_access by itself and got a refresh token');
  // The access token lapses: a token of the same server that expired a minute ago stands in for it.
  const jwk = JSON.parse(fs.readFileSync(env.KEYS, 'utf8')).keys[1];
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ ...claimsOf(first.access_token), iat: now - 700, exp: now - 60 })
    .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'at+jwt' }).sign(await importJWK(jwk, jwk.alg));
  auth.saveTokens({ ...first, access_token: expired });
  const asked = auth.authorizationUrl;
  const echoed = await echo(client, 'after a refresh');
  check(!echoed.isError && echoed.structuredContent?.message === 'after a refresh',
        'v2: the call with the expired token succeeds after the SDK refreshed it', echoed);
  check(auth.tokens().access_token !== expired && auth.tokens().access_token !== first.access_token &&
        auth.authorizationUrl === asked, 'v2: a new access token from the refresh_token grant, no new authorization');
  await client.close();
}

async function stepup() {
  const auth = new TestClientAuth();
  // Pre-registered (as an operator registers an IDE) for all four scopes: a client that registers
  // dynamically asks for the 401's scope only, and oidc-provider then holds it to that scope, so a
  // step-up could never be granted (docs/authorization.md "Step-up").
  const registered = await fetch(`${env.AS_URL}/reg`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...auth.clientMetadata,
                           scope: 'devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation' }),
  });
  if (registered.status !== 201) fail('pre-registration at the authorization server', await registered.text());
  auth.saveClientInformation(await registered.json());
  const open = () => new TransportV1(new URL(env.MCP_URL), { authProvider: auth });
  let transport = open();
  await new ClientV1({ name: 'fleetmcp-stepup', version: '1.0.0' }).connect(transport).catch(() => {});
  await transport.finishAuth((await browse(auth.authorizationUrl)).searchParams.get('code'));
  const granted = claimsOf(auth.tokens().access_token).scope;
  check(granted === 'tools:call:read_only', `v1: the first grant is the read-only scope the 401 named (${granted})`);
  const client = new ClientV1({ name: 'fleetmcp-stepup', version: '1.0.0' });
  transport = open();
  await client.connect(transport);
  const control = { name: env.ACT_TOOL, arguments: JSON.parse(env.ACT_ARGUMENTS) };
  const before = auth.authorizationUrl;
  try {
    await client.callTool(control);
    fail('an actuation call with a read-only grant should need a step-up');
  } catch (e) {
    check(auth.authorizationUrl !== before, `v1: the actuation call's 403 insufficient_scope sent the SDK to re-authorise (${e.constructor.name})`);
  }
  const wanted = new URL(auth.authorizationUrl).searchParams.get('scope').split(' ');
  check(wanted.includes('tools:call:read_only') && wanted.includes('tools:call:reversible'),
        `v1: it asks for the accumulated scopes (${wanted.join(' ')})`);
  await transport.finishAuth((await browse(auth.authorizationUrl)).searchParams.get('code'));
  const done = await client.callTool(control);
  check(!done.isError, `v1: after the step-up the actuation call succeeds (${claimsOf(auth.tokens().access_token).scope})`, done);
  await client.close();
}

async function tenant() {
  const auth = new TestClientAuth();
  const client = await signInV2(auth, 'bob');
  check(claimsOf(auth.tokens().access_token).fleet_tenant === 'globex', 'the server maps bob to tenant globex');
  const { tools } = await client.listTools();
  check(!tools.some((t) => t.name === 'system_echo_ping'),
        `globex sees no tool of acme's node (${tools.map((t) => t.name).join(' ')})`);
  const refused = await echo(client, 'not yours').then((r) => (r.isError ? JSON.stringify(r) : ''), (e) => String(e));
  check(refused && !refused.includes('"message":"not yours"'), `a call to acme's node is refused to globex: ${refused.slice(0, 120)}`);
  await client.close();
}

const phases = { v2, refresh, stepup, tenant };
await phases[env.PHASE]();
ok(`phase ${env.PHASE} done`);
