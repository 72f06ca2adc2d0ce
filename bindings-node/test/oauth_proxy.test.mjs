// ferromcp/server/auth/oauthProxy.js: the engine's OAuth proxy (ferromcp::auth::OAuthProxy)
// mounted in an Express app, fronting an identity provider written here (no dynamic
// registration, one pre-registered client: the proxy), and protecting an MCP route with
// requireBearerAuth({ verifier: proxy }). The flow as a browser and an MCP client run it:
// register, consent page (cookie-bound), upstream leg, callback, token, bearer call, refresh,
// revocation; and the OAuth error codes the engine answers with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import { OAuthProxy } from 'ferromcp/server/auth/oauthProxy.js';
import { requireBearerAuth } from 'ferromcp/server/auth/middleware/bearerAuth.js';

const s256 = (v) => createHash('sha256').update(v).digest('base64url');

/** The upstream identity provider: a token endpoint checking the proxy's PKCE and credentials. */
async function identityProvider() {
  const codes = new Map();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const f = Object.fromEntries(new URLSearchParams(body));
      const answer = (status, v) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.url !== '/token') return answer(404, {});
      if (f.client_id !== 'proxy-app' || f.client_secret !== 's3cret') return answer(401, { error: 'invalid_client' });
      if (f.grant_type === 'refresh_token') return answer(200, { access_token: 'up-at-2', token_type: 'Bearer', refresh_token: 'up-rt-2' });
      const c = codes.get(f.code);
      codes.delete(f.code);
      if (!c || s256(f.code_verifier ?? '') !== c.challenge || f.redirect_uri !== c.redirect) return answer(400, { error: 'invalid_grant' });
      const idToken = ['{"alg":"none"}', '{"sub":"user-7"}'].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.x';
      answer(200, { access_token: 'up-at-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'up-rt-1', id_token: idToken });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}`, codes, close: () => new Promise((r) => server.close(r)) };
}

/** The app: the proxy's endpoints and a protected /mcp route. */
async function app(idp, extra = {}) {
  const a = express();
  let proxy;
  a.use((req, res, next) => proxy.router()(req, res, next));
  a.post('/mcp', (req, res, next) => requireBearerAuth({ verifier: proxy, expectedResource: new URL(`${base}/mcp`) })(req, res, next), (req, res) =>
    res.json({ client: req.auth.clientId, subject: req.auth.extra.subject, upstream: req.auth.extra.upstream_access_token }),
  );
  const server = await new Promise((r) => {
    const s = a.listen(0, '127.0.0.1', () => r(s));
  });
  const base = `http://127.0.0.1:${server.address().port}`;
  proxy = await OAuthProxy.create({
    issuerUrl: base,
    resourceServerUrl: `${base}/mcp`,
    upstream: { authorizationEndpoint: `${idp.base}/authorize`, tokenEndpoint: `${idp.base}/token`, clientId: 'proxy-app', clientSecret: 's3cret', scopes: ['openid'] },
    scopesSupported: ['mcp:read'],
    ...extra,
  });
  return { base, proxy, close: () => new Promise((r) => server.close(r)) };
}

const form = (o, headers = {}) => ({ method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(o) });
const VERIFIER = 'v'.repeat(50);

test('OAuthProxy: registration, consent, upstream leg, tokens accepted by requireBearerAuth, refresh and revocation', async () => {
  const idp = await identityProvider();
  const { base, proxy, close } = await app(idp);
  try {
    assert.equal(proxy.callbackUrl, `${base}/oauth/callback`);
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.deepEqual(meta, proxy.metadata());
    assert.equal(meta.registration_endpoint, `${base}/register`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);

    const reg = await fetch(meta.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:5555/cb'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'Node test' }) });
    assert.equal(reg.status, 201);
    const client = await reg.json();

    const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'http://127.0.0.1:5555/cb', state: 'st', code_challenge: s256(VERIFIER), code_challenge_method: 'S256', scope: 'mcp:read', resource: `${base}/mcp` });
    const page = await fetch(`${meta.authorization_endpoint}?${q}`, { redirect: 'manual' });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Node test/);
    const cookie = page.headers.get('set-cookie').split(';')[0];
    const field = (n) => new RegExp(`name="${n}" value="([^"]+)"`).exec(html)[1];
    const up = await fetch(`${base}/authorize/consent`, form({ pending: field('pending'), csrf: field('csrf'), decision: 'approve' }, { cookie }));
    assert.equal(up.status, 302);
    const upstreamUrl = new URL(up.headers.get('location'));
    assert.equal(upstreamUrl.origin + upstreamUrl.pathname, `${idp.base}/authorize`);
    assert.equal(upstreamUrl.searchParams.get('client_id'), 'proxy-app');
    // The upstream's login: a code for the proxy's challenge, sent back to its callback.
    idp.codes.set('up-code', { challenge: upstreamUrl.searchParams.get('code_challenge'), redirect: upstreamUrl.searchParams.get('redirect_uri') });
    const cb = await fetch(`${proxy.callbackUrl}?code=up-code&state=${upstreamUrl.searchParams.get('state')}`, { redirect: 'manual', headers: { cookie } });
    assert.equal(cb.status, 302);
    const back = new URL(cb.headers.get('location'));
    assert.equal(back.searchParams.get('state'), 'st');
    assert.equal(back.searchParams.get('iss'), base);

    const wrong = await fetch(meta.token_endpoint, form({ grant_type: 'authorization_code', client_id: client.client_id, code: back.searchParams.get('code'), code_verifier: 'w'.repeat(50), redirect_uri: 'http://127.0.0.1:5555/cb' }));
    assert.equal(wrong.status, 400);
    assert.equal((await wrong.json()).error, 'invalid_grant');
    assert.equal(wrong.headers.get('cache-control'), 'no-store');
  } finally {
    await close();
    await idp.close();
  }
});

test('OAuthProxy without consent: tokens reach the protected route, refresh rotates, revocation ends them', async () => {
  const idp = await identityProvider();
  const { base, proxy, close } = await app(idp, { requireConsent: false });
  try {
    const client = await (await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:5555/cb'], grant_types: ['authorization_code', 'refresh_token'] }) })).json();
    assert.equal(client.token_endpoint_auth_method, 'client_secret_basic');
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, state: 'st', code_challenge: s256(VERIFIER), code_challenge_method: 'S256' });
    const up = new URL((await fetch(`${base}/authorize?${q}`, { redirect: 'manual' })).headers.get('location'));
    idp.codes.set('c1', { challenge: up.searchParams.get('code_challenge'), redirect: up.searchParams.get('redirect_uri') });
    const back = new URL((await fetch(`${proxy.callbackUrl}?code=c1&state=${up.searchParams.get('state')}`, { redirect: 'manual' })).headers.get('location'));
    const t = await (await fetch(`${base}/token`, form({ grant_type: 'authorization_code', code: back.searchParams.get('code'), code_verifier: VERIFIER }, { authorization: basic }))).json();
    assert.equal(t.token_type, 'Bearer');

    const mcp = (token) => fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const ok = await mcp(t.access_token);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { client: client.client_id, subject: 'user-7', upstream: 'up-at-1' });
    assert.equal((await mcp('forged')).status, 401);

    const unauthenticated = await fetch(`${base}/token`, form({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: t.refresh_token }));
    assert.equal(unauthenticated.status, 401);
    assert.equal((await unauthenticated.json()).error, 'invalid_client');
    const t2 = await (await fetch(`${base}/token`, form({ grant_type: 'refresh_token', refresh_token: t.refresh_token }, { authorization: basic }))).json();
    assert.equal((await mcp(t.access_token)).status, 401, 'the old access token is gone after refresh');
    assert.deepEqual((await (await mcp(t2.access_token)).json()).upstream, 'up-at-2');

    const revoked = await fetch(`${base}/revoke`, form({ token: t2.access_token }, { authorization: basic }));
    assert.equal(revoked.status, 200);
    assert.equal((await mcp(t2.access_token)).status, 401);

    const badGrant = await fetch(`${base}/token`, form({ grant_type: 'password' }, { authorization: basic }));
    assert.equal((await badGrant.json()).error, 'unsupported_grant_type');
    const notAllowed = await fetch(`${base}/token`);
    assert.equal(notAllowed.status, 405);
    assert.equal((await fetch(`${base}/elsewhere`)).status, 404, 'other paths reach the app');
  } finally {
    await close();
    await idp.close();
  }
});

test('OAuthProxy.create refuses bad options with the engine message', async () => {
  await assert.rejects(
    OAuthProxy.create({ issuerUrl: 'http://mcp.example.com', resourceServerUrl: 'http://mcp.example.com/mcp', upstream: { preset: 'github', clientId: 'a', clientSecret: 'b' } }),
    /https/,
  );
  await assert.rejects(
    OAuthProxy.create({ issuerUrl: 'http://127.0.0.1:1', resourceServerUrl: 'http://127.0.0.1:1/mcp', upstream: { preset: 'entra', clientId: 'a', clientSecret: 'b' } }),
    /tenant/,
  );
  await assert.rejects(
    OAuthProxy.create({ issuerUrl: 'http://127.0.0.1:1', resourceServerUrl: 'http://127.0.0.1:1/mcp', upstream: { clientId: 'a', tokenEndpoint: 'http://x/t' }, consent: false }),
    /consent/,
  );
});
