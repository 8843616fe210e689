// A real OAuth 2.1 authorization server for the tests, not written by this project: npm's
// oidc-provider on loopback, configured the way an operator's identity provider would be for
// fleetmcp (docs/authorization.md): dynamic client registration, authorization code with PKCE, and
// JWT access tokens (RFC 9068) whose audience is the MCP resource (RFC 8707 resource indicators).
// Its developer login and consent pages stand in for a user; tests/node/oauth_client.mjs plays
// the browser.
//
// env: PORT, RESOURCE (the MCP URL), KEYS (a file of private JWKs, {"keys":[…]}; the first key of
// ALG signs), ALG (RS256, ES256 or EdDSA), READY (a file written once it listens).
//
// `node oauth_server.mjs keys FILE PREFIX [keep]` writes FILE instead: an RS256, an ES256 and an
// EdDSA key made by jose, kids PREFIX-rs, PREFIX-es, PREFIX-ed; with keep, FILE's keys follow them
// (a rotation: new tokens are signed with the new keys, the old ones are still published).
import fs from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

if (process.argv[2] === 'keys') {
  const [file, prefix, keep] = process.argv.slice(3);
  const keys = [];
  for (const [alg, kid] of [['RS256', 'rs'], ['ES256', 'es'], ['EdDSA', 'ed']]) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
    keys.push({ ...(await exportJWK(privateKey)), kid: `${prefix}-${kid}`, alg, use: 'sig' });
  }
  if (keep) keys.push(...JSON.parse(fs.readFileSync(file, 'utf8')).keys);
  fs.writeFileSync(file, JSON.stringify({ keys }));
  process.exit(0);
}

const env = process.env;
const issuer = `http://127.0.0.1:${env.PORT}`;
const scopes = 'devices:read tools:call:read_only tools:call:reversible tools:call:physical_actuation';

const provider = new Provider(issuer, {
  jwks: JSON.parse(fs.readFileSync(env.KEYS, 'utf8')),
  // The resource's scopes are listed too: clients send them in their registration (RFC 7591 scope).
  scopes: ['openid', 'offline_access', ...scopes.split(' ')],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => env.RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== env.RESOURCE) throw new errors.InvalidTarget();
        return { scope: scopes, audience: env.RESOURCE, accessTokenFormat: 'jwt', accessTokenTTL: 600,
                 jwt: { sign: { alg: env.ALG } } };
      },
    },
  },
  // The tenant as a claim of the user (plugin_opt_http_oauth.<name>.tenant_claim): bob is globex's.
  extraTokenClaims: (ctx, token) => ({ fleet_tenant: token.accountId === 'bob' ? 'globex' : 'acme' }),
  // Native clients (CLIs, IDEs) redirect to http://127.0.0.1:<port>; no refresh without offline_access.
  issueRefreshToken: (ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
});
provider.proxy = false;
const server = provider.listen(Number(env.PORT), '127.0.0.1', () => fs.writeFileSync(env.READY, issuer));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
