// OAuth: OAuth's option checks; a protected server (listen and createHttpHandler) refusing
// missing, unknown, expired, wrong-audience and under-scoped tokens and handing the identity to
// handlers as ctx.auth; and a client authorizing end to end against a small authorization
// server written here, with a JavaScript token store, a token file and the loopback redirect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, McpServer, OAuth, ProtectedResource, TransportError } from '../esm/index.mjs';

function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function freePort() {
  const s = createServer();
  const port = await listening(s);
  await new Promise((r) => s.close(r));
  return port;
}

function whoamiServer() {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (ctx) => {
    const a = ctx.auth;
    return a ? `${a.subject}|${a.scopes.join(' ')}|${JSON.stringify(a.claims)}` : 'anonymous';
  });
  return server;
}

/** Tokens of the protected-server tests, for `resource`. */
function verifier(resource, seen) {
  return async (token) => {
    seen.push(token);
    const now = Date.now() / 1000;
    const tokens = {
      good: { subject: 'alice', scopes: 'mcp extra', audience: resource, expiresAt: now + 600, claims: { tenant: 't1' } },
      narrow: { subject: 'bob', scopes: ['other'], audience: [resource] },
      elsewhere: { subject: 'eve', scopes: ['mcp'], audience: 'http://other.example/mcp' },
      expired: { subject: 'old', scopes: ['mcp'], audience: resource, expiresAt: now - 10 },
    };
    if (token === 'boom') throw new Error('verifier exploded');
    return tokens[token] ?? null;
  };
}

async function statusOf(url, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  try {
    const c = await Client.http(url, { headers });
    await c.close();
    return 200;
  } catch (e) {
    assert.ok(e instanceof TransportError, String(e));
    return e.data?.httpStatus;
  }
}

test('OAuth refuses inconsistent options', () => {
  assert.throws(() => new OAuth({ onRedirect: (u) => u }), /redirectUri/);
  assert.throws(() => new OAuth({ clientCredentials: true, clientId: 'x' }), /clientId and clientSecret/);
  assert.throws(() => new OAuth({ maxAttempts: 0 }), /maxAttempts/);
  assert.throws(() => new ProtectedResource({ resource: 'http://x/mcp', verify: () => null, authorizationServers: [] }), /authorizationServers/);
});

test('listen({auth}): bad tokens get 401/403, the identity reaches ctx.auth, metadata is served', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const seen = [];
  const auth = new ProtectedResource({
    resource,
    verify: verifier(resource, seen),
    authorizationServers: ['http://as.example'],
    requiredScopes: ['mcp'],
  });
  assert.equal(auth.metadataPath, '/.well-known/oauth-protected-resource/mcp');
  const mcp = whoamiServer();
  const http = await mcp.listen({ port, auth });
  try {
    assert.equal(http.url, resource);
    const client = await Client.http(http.url, { headers: { Authorization: 'Bearer good' } });
    const r = await client.callTool({ name: 'whoami', arguments: {} });
    assert.equal(r.content[0].text, 'alice|mcp extra|{"tenant":"t1"}');
    await client.close();
    for (const [token, status] of [[undefined, 401], ['nope', 401], ['elsewhere', 401], ['expired', 401], ['boom', 401], ['narrow', 403]]) {
      assert.equal(await statusOf(http.url, token), status, `token ${token}`);
    }
    const res = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    const meta = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${meta}", scope="mcp"`);
    const boom = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer boom' }, body: '{}' });
    assert.match(boom.headers.get('www-authenticate'), /error="invalid_token"/);
    assert.match(boom.headers.get('www-authenticate'), /verifier exploded/);
    const doc = await (await fetch(meta)).json();
    assert.equal(doc.resource, resource);
    assert.deepEqual(doc.authorization_servers, ['http://as.example']);
    assert.deepEqual(doc.scopes_supported, ['mcp']);
  } finally {
    await http.close();
  }
  for (const t of ['good', 'narrow', 'elsewhere', 'expired', 'boom']) assert.ok(seen.includes(t), t);
});

test('createHttpHandler({auth}): a mounted endpoint checks tokens and serves its metadata', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = new ProtectedResource({
    resource,
    // A synchronous verifier works too.
    verify: (token) => (token === 'sync-good' ? { subject: 'carol', scopes: ['mcp'], audience: resource } : null),
    authorizationServers: ['http://as.example'],
  });
  const mcp = whoamiServer();
  const handler = mcp.createHttpHandler({ auth });
  const app = createServer((req, res) => {
    if (req.url === '/mcp' || req.url === auth.metadataPath) handler.handleNode(req, res).catch(() => res.destroy());
    else res.writeHead(404).end();
  });
  await new Promise((r) => app.listen(port, '127.0.0.1', r));
  try {
    assert.equal(await statusOf(resource), 401);
    assert.equal(await statusOf(resource, 'other'), 401);
    const client = await Client.http(resource, { headers: { Authorization: 'Bearer sync-good' } });
    assert.equal((await client.callTool({ name: 'whoami', arguments: {} })).content[0].text, 'carol|mcp|null');
    await client.close();
    const doc = await (await fetch(`http://127.0.0.1:${port}${auth.metadataPath}`)).json();
    assert.equal(doc.resource, resource);
  } finally {
    await new Promise((r) => { app.close(r); app.closeAllConnections(); });
  }
});

/** A tiny authorization server: approves at once, issues `tok-N`, checks PKCE S256. */
async function miniAS() {
  const counts = {};
  const challenges = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    counts[url.pathname] = (counts[url.pathname] ?? 0) + 1;
    let body = '';
    for await (const c of req) body += c;
    const base = `http://127.0.0.1:${server.address().port}`;
    const json = (status, v, headers = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(v));
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('code_challenge_method') !== 'S256' || !q.get('resource')) return json(400, { error: 'invalid_request' });
      const code = `c${counts['/authorize']}`;
      challenges.set(code, q.get('code_challenge'));
      const target = `${q.get('redirect_uri')}?code=${code}&state=${encodeURIComponent(q.get('state'))}`;
      return res.writeHead(302, { location: target }).end();
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const m = JSON.parse(body);
      return json(201, { client_id: 'js-client', redirect_uris: m.redirect_uris });
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') === 'authorization_code') {
        const { createHash } = await import('node:crypto');
        const want = challenges.get(form.get('code'));
        const got = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
        if (!want || want !== got) return json(400, { error: 'invalid_grant' });
      }
      const n = counts['/token'];
      return json(200, { access_token: `tok-${n}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `r${n}` });
    }
    json(404, {});
  });
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}`, counts, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) };
}

/** The redirect step without a user: follow the authorization URL to its redirect. */
async function approve(url) {
  const r = await fetch(url, { redirect: 'manual' });
  return r.headers.get('location');
}

async function protectedServer(asUrl) {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = new ProtectedResource({
    resource,
    verify: (token) => (token.startsWith('tok-') ? { subject: token, scopes: ['mcp'], audience: resource } : null),
    authorizationServers: [asUrl],
  });
  return whoamiServer().listen({ port, auth });
}

test('Client.http({auth}): authorizes against a real authorization server; a JS token store keeps it', async () => {
  const as = await miniAS();
  const http = await protectedServer(as.url);
  const data = new Map();
  const store = { load: (k) => data.get(k), save: (k, v) => data.set(k, v), remove: (k) => data.delete(k) };
  const redirects = [];
  try {
    for (let i = 0; i < 2; i++) {
      const client = await Client.http(http.url, {
        auth: new OAuth({
          onRedirect: async (u) => {
            redirects.push(u);
            return approve(u);
          },
          redirectUri: 'http://127.0.0.1:1/cb',
          clientName: 'node test',
          tokenStore: store,
        }),
      });
      const r = await client.callTool({ name: 'whoami', arguments: {} });
      assert.match(r.content[0].text, /^tok-1\|mcp\|/);
      await client.close();
    }
  } finally {
    await http.close();
    await as.close();
  }
  // The second client reused the stored token and registration: one authorization in all.
  assert.deepEqual([as.counts['/register'], as.counts['/authorize'], as.counts['/token']], [1, 1, 1]);
  assert.equal(redirects.length, 1);
  const authUrl = new URL(redirects[0]);
  assert.equal(authUrl.searchParams.get('resource'), http.url);
  assert.equal(authUrl.searchParams.get('client_id'), 'js-client');
  const saved = data.get(http.url);
  assert.equal(saved.tokens.access_token, 'tok-1');
  assert.equal(saved.client.client_id, 'js-client');
});

test('Client.http({auth}): a token file and the loopback redirect (openBrowser)', async () => {
  const as = await miniAS();
  const http = await protectedServer(as.url);
  const file = join(mkdtempSync(join(tmpdir(), 'ferromcp-oauth-')), 'tokens.json');
  const opened = [];
  try {
    const client = await Client.http(http.url, {
      auth: {
        // The "browser": follow the authorization URL to the loopback listener.
        openBrowser: (u) => {
          opened.push(u);
          fetch(u).catch(() => {});
        },
        tokenStore: file,
      },
    });
    assert.match((await client.callTool({ name: 'whoami', arguments: {} })).content[0].text, /^tok-1\|/);
    await client.close();
  } finally {
    await http.close();
    await as.close();
  }
  assert.equal(opened.length, 1);
  assert.match(new URL(opened[0]).searchParams.get('redirect_uri'), /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(saved[http.url].tokens.access_token, 'tok-1');
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('Client.http({auth}): a failing redirect step and a throwing store fail the connection', async () => {
  const as = await miniAS();
  const http = await protectedServer(as.url);
  try {
    await assert.rejects(
      Client.http(http.url, { auth: new OAuth({ onRedirect: async () => { throw new Error('user said no'); }, redirectUri: 'http://127.0.0.1:1/cb' }) }),
      (e) => /user said no/.test(e.message),
    );
    const broken = { load: () => { throw new Error('disk on fire'); }, save() {}, remove() {} };
    await assert.rejects(
      Client.http(http.url, { auth: new OAuth({ onRedirect: approve, redirectUri: 'http://127.0.0.1:1/cb', tokenStore: broken }) }),
      (e) => /disk on fire/.test(e.message),
    );
  } finally {
    await http.close();
    await as.close();
  }
});
