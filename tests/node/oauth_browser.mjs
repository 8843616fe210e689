// What the OAuth tests share (oauth_client.mjs, oauth_sdk_flows.mjs): a native client's store of
// its registration, tokens and PKCE verifier, and the user's browser at the authorization server
// (tests/node/oauth_server.mjs: its developer login and consent pages).
import { fail } from './check.mjs';

export const REDIRECT = 'http://127.0.0.1:9/callback';  // never reached: the "browser" stops at it

// What a native client (an IDE, a CLI) keeps between runs, in memory.
// With `refresh`, it registers for the refresh_token grant too.
export class TestClientAuth {
  constructor({ refresh = false } = {}) { this.refresh = refresh; }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    const grant_types = this.refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'];
    return { client_name: 'fleetmcp oauth test', redirect_uris: [REDIRECT], grant_types,
             response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

// The user's browser: cookies, redirects, the login form (as `login`), the consent form; returns
// the URL the server redirected back to (its code, and its iss for RFC 9207).
export async function browse(start, login = 'alice') {
  const jar = new Map();
  let url = String(start), method = 'GET', body;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(REDIRECT)) {
      const back = new URL(url);
      if (!back.searchParams.get('code')) fail('the authorization server sent no code', url);
      return back;
    }
    const res = await fetch(url, {
      method, body, redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
                 ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location'), url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1];
    const prompt = html.match(/name="prompt" value="([^"]+)"/)?.[1];
    if (res.status !== 200 || !action || !prompt) fail(`the authorization server's page at ${url}`, html.slice(0, 300));
    const form = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
    body = new URLSearchParams(form).toString();
    url = new URL(action, url).href;
    method = 'POST';
  }
  fail('the browser went round in circles');
}

