// listen({ oauthProxy: { requiredScopes } }): the MCP endpoint the proxy's tokens protect
// requires scopes, checked in the engine as an external token's are (`auth.requiredScopes`): a
// token of the listener's proxy granted without them is refused 403 insufficient_scope with a
// challenge listing them; one with them calls a tool. The whole flow runs against a token
// endpoint written here (the upstream's authorization page is never visited: its redirect
// carries the state the proxy's callback answers to). The same scenario as
// bindings-python/tests/test_oauth_proxy_listener.py and Swift's OAuthProxyRequiredScopesTests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { McpServer } from '../esm/index.mjs';
import { OAuthProxy } from 'ferromcp/server/auth/oauthProxy.js';
import { requireBearerAuth } from 'ferromcp/server/auth/middleware/bearerAuth.js';

const ISSUER = 'https://mcp.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1:7777/cb';
const VERIFIER = 'v'.repeat(50);
const s256 = (v) => createHash('sha256').update(v).digest('base64url');

/** The upstream's token endpoint: answers a code it was told of once, when the proxy's PKCE verifier matches. */
async function tokenEndpoint() {
  const codes = new Map();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const f = new URLSearchParams(body);
      const challenge = codes.get(f.get('code'));
      codes.delete(f.get('code'));
      const ok = f.get('client_id') === 'proxy-app' && challenge !== undefined && s256(f.get('code_verifier') ?? '') === challenge;
      const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const answer = ok
        ? { access_token: 'up-at', token_type: 'Bearer', id_token: `${part({ alg: 'none' })}.${part({ sub: 'user-7' })}.x` }
        : { error: 'invalid_grant' };
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { codes, url: `http://127.0.0.1:${server.address().port}/token`, close: () => new Promise((r) => server.close(r)) };
}

/** The flow against the listener at `base` (public client, no consent) asking `scope`; the access token. */
async function signIn(base, idp, scope) {
  const registered = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  assert.equal(registered.status, 201);
  const { client_id: clientId } = await registered.json();
  const query = new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256', state: 'st', resource: RESOURCE, scope,
  });
  const authorize = await fetch(`${base}/authorize?${query}`, { redirect: 'manual' });
  assert.equal(authorize.status, 302);
  const upstream = new URL(authorize.headers.get('location')).searchParams;
  idp.codes.set('up-code', upstream.get('code_challenge'));
  const callback = await fetch(`${base}/oauth/callback?${new URLSearchParams({ code: 'up-code', state: upstream.get('state') })}`, { redirect: 'manual' });
  assert.equal(callback.status, 302, await callback.text());
  const back = new URL(callback.headers.get('location')).searchParams;
  const token = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code', client_id: clientId, code: back.get('code'), code_verifier: VERIFIER,
      redirect_uri: REDIRECT, resource: RESOURCE,
    }),
  });
  assert.equal(token.status, 200);
  return (await token.json()).access_token;
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

test('oauth proxy token without the required scope is refused 403', async () => {
  const idp = await tokenEndpoint();
  const mcp = new McpServer({ name: 'scoped', version: '1' });
  mcp.registerTool('whoami', {}, (ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx?.auth?.scopes ?? null) }] }));
  const oauthProxy = {
    issuerUrl: ISSUER,
    resourceServerUrl: RESOURCE,
    upstream: { authorizationEndpoint: 'https://idp.example.com/authorize', tokenEndpoint: idp.url, clientId: 'proxy-app', clientSecret: 's3cret' },
    requireConsent: false,
    scopesSupported: ['mcp:read', 'mcp:admin'],
    requiredScopes: ['mcp:admin'],
  };
  const listener = await mcp.listen({ port: 0, oauthProxy });
  try {
    const base = `http://127.0.0.1:${listener.port}`;
    const readOnly = await signIn(base, idp, 'mcp:read');
    const refused = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${readOnly}` }, body: initialize });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).error, 'insufficient_scope');
    const challenge = refused.headers.get('www-authenticate');
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="mcp:admin"/);

    const admin = await signIn(base, idp, 'mcp:read mcp:admin');
    const auth = { authorization: `Bearer ${admin}` };
    const init = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...mcpHeaders, ...auth }, body: initialize });
    assert.equal(init.status, 200);
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-06-18' };
    await init.text();
    const headers = { ...mcpHeaders, ...auth, ...session };
    await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const call = await fetch(`${base}/mcp`, {
      method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    assert.equal(call.status, 200);
    const text = await call.text();
    const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: {')).slice(6));
    assert.deepEqual(JSON.parse(message.result.content[0].text), ['mcp:read', 'mcp:admin']);
  } finally {
    await listener.close();
    await idp.close();
  }
  await assert.rejects(mcp.listen({ port: 0, oauthProxy: { ...oauthProxy, requiredScopes: ['mcp:write'] } }), (e) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /mcp:write/);
    return true;
  });
});

test('a mounted oauth proxy guards its routes with its required scopes', async () => {
  // The proxy mounted in the app's own HTTP server (OAuthProxy.create, its router, then
  // requireBearerAuth({ verifier: proxy }) with no scopes of its own): the proxy's
  // requiredScopes apply there too.
  const idp = await tokenEndpoint();
  const proxy = await OAuthProxy.create({
    issuerUrl: ISSUER,
    resourceServerUrl: RESOURCE,
    upstream: { authorizationEndpoint: 'https://idp.example.com/authorize', tokenEndpoint: idp.url, clientId: 'proxy-app', clientSecret: 's3cret' },
    requireConsent: false,
    scopesSupported: ['mcp:read', 'mcp:admin'],
    requiredScopes: ['mcp:admin'],
  });
  assert.deepEqual(proxy.requiredScopes, ['mcp:admin']);
  const routes = proxy.router();
  const guard = requireBearerAuth({ verifier: proxy });
  const app = http.createServer((req, res) => {
    routes(req, res, () => guard(req, res, () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.auth.scopes))));
  });
  await new Promise((r) => app.listen(0, '127.0.0.1', r));
  try {
    const base = `http://127.0.0.1:${app.address().port}`;
    const readOnly = await signIn(base, idp, 'mcp:read');
    const refused = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${readOnly}` } });
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get('www-authenticate'), /error="insufficient_scope".*scope="mcp:admin"/);
    await refused.text();
    const admin = await signIn(base, idp, 'mcp:read mcp:admin');
    const allowed = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(allowed.status, 200);
    assert.deepEqual(await allowed.json(), ['mcp:read', 'mcp:admin']);
    // The route's own list wins over the proxy's.
    const open = requireBearerAuth({ verifier: proxy, requiredScopes: [] });
    let passed = false;
    await open({ headers: { authorization: `Bearer ${readOnly}` } }, { writeHead: () => assert.fail('refused'), end() {} }, () => (passed = true));
    assert.equal(passed, true);
  } finally {
    await new Promise((r) => app.close(r));
    await idp.close();
  }
});
