// The parts of the TypeScript SDK's API that its examples use and that ferromcp implements in
// the facade (issue 33, "Node drop-in"), checked one by one beside the examples themselves
// (sdk_examples.test.mjs): the OAuth authorization server and bearer middleware
// (ferromcp/server/auth/*.js), the low-level Server's own task handlers, the experimental
// server task API, requests and notifications to a session from outside a handler, and an
// oversized request through the engine's own listener.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import express from 'express';
import { McpServer, Client } from '../esm/index.mjs';
import { Server } from 'ferromcp/server/index.js';
import { mcpAuthRouter, createOAuthMetadata, mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from 'ferromcp/server/auth/router.js';
import { requireBearerAuth } from 'ferromcp/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError, InvalidRequestError, OAuthError } from 'ferromcp/server/auth/errors.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from 'ferromcp/shared/auth-utils.js';
import { InMemoryTaskStore } from 'ferromcp/experimental/tasks/stores/in-memory.js';
import { CallToolRequestSchema, ErrorCode, GetTaskRequestSchema, ListToolsRequestSchema, McpError } from 'ferromcp/types.js';

/** Serves `app` on a free port; resolves with its base URL and close(). */
async function serve(app) {
  const server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  return { base: `http://localhost:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A provider of the SDK's shape keeping codes and tokens in maps; `approve` is the user's answer. */
function provider({ revoke = true } = {}) {
  const clients = new Map();
  const codes = new Map();
  const revoked = [];
  const p = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (c) => (clients.set(c.client_id, c), c),
    },
    async authorize(client, params, res) {
      const code = `code-${codes.size + 1}`;
      codes.set(code, { client, params });
      const u = new URL(params.redirectUri);
      u.searchParams.set('code', code);
      if (params.state) u.searchParams.set('state', params.state);
      res.redirect(u.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidRequestError('unknown code');
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource) {
      const c = codes.get(code);
      codes.delete(code);
      return { access_token: `at-${client.client_id}`, token_type: 'bearer', expires_in: 60, scope: (c.params.scopes ?? []).join(' '), resource: resource?.href };
    },
    async exchangeRefreshToken() {
      throw new InvalidRequestError('no refresh tokens here');
    },
    async verifyAccessToken(token) {
      return { token, clientId: 'c', scopes: [] };
    },
    ...(revoke ? { revokeToken: async (client, r) => void revoked.push(`${client.client_id}:${r.token}`) } : {}),
  };
  return { p, revoked };
}

const form = (o) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(o) });
const json = (o) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) });

test('auth router: metadata, registration, authorization code with PKCE, token and revocation, each refusal with its OAuth error', async () => {
  const { p, revoked } = provider();
  const app = express();
  const issuerPort = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  const base = `http://localhost:${issuerPort.address().port}`;
  app.use(mcpAuthRouter({ provider: p, issuerUrl: new URL(base), scopesSupported: ['mcp:tools'] }));
  try {
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.deepEqual(meta, createOAuthMetadata({ provider: p, issuerUrl: new URL(base), scopesSupported: ['mcp:tools'] }));
    assert.equal(meta.issuer, `${base}/`);
    assert.equal(meta.revocation_endpoint, `${base}/revoke`);
    assert.equal(meta.registration_endpoint, `${base}/register`);
    assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
    // Registration (RFC 7591): redirect URIs required; a secret unless the client asks for none.
    const bad = await fetch(meta.registration_endpoint, json({ client_name: 'x' }));
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error, 'invalid_client_metadata');
    const reg = await fetch(meta.registration_endpoint, json({ redirect_uris: ['http://localhost:1/cb', 'http://localhost:1/other'], scope: 'mcp:tools' }));
    assert.equal(reg.status, 201);
    const client = await reg.json();
    assert.equal(client.token_endpoint_auth_method, 'client_secret_post');
    assert.match(client.client_secret, /^[0-9a-f]{64}$/);
    const pub = await (await fetch(meta.registration_endpoint, json({ redirect_uris: ['http://localhost:1/cb'], token_endpoint_auth_method: 'none' }))).json();
    assert.equal(pub.client_secret, undefined);
    // Authorization: an unknown client or an unregistered redirect URI is answered here (400)...
    const authorize = (q) => fetch(`${meta.authorization_endpoint}?${new URLSearchParams(q)}`, { redirect: 'manual' });
    const challenge = createHash('sha256').update('verifier-'.repeat(6)).digest('base64url');
    const good = { response_type: 'code', client_id: client.client_id, redirect_uri: 'http://localhost:1/cb', code_challenge: challenge, code_challenge_method: 'S256', state: 's1', scope: 'mcp:tools' };
    const unknown = await authorize({ ...good, client_id: 'nobody' });
    assert.equal(unknown.status, 401);
    assert.equal((await unknown.json()).error, 'invalid_client');
    const elsewhere = await authorize({ ...good, redirect_uri: 'http://evil.example/cb' });
    assert.equal(elsewhere.status, 400);
    assert.equal((await elsewhere.json()).error_description, 'Unregistered redirect_uri');
    // ... the rest is redirected back with the error and the state.
    for (const [q, error] of [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'mcp:tools admin' }, 'invalid_scope'],
      [{ resource: 'not a url' }, 'invalid_target'],
    ]) {
      const r = await authorize({ ...good, ...q });
      assert.equal(r.status, 302, JSON.stringify(q));
      const back = new URL(r.headers.get('location'));
      assert.equal(back.searchParams.get('error'), error, JSON.stringify(q));
      assert.equal(back.searchParams.get('state'), 's1');
    }
    const ok = await authorize({ ...good, resource: 'http://localhost:9/mcp' });
    assert.equal(ok.status, 302);
    const code = new URL(ok.headers.get('location')).searchParams.get('code');
    // Token: client authentication, the PKCE verifier, the grant type.
    const token = (o, init = {}) => fetch(meta.token_endpoint, { ...form(o), ...init, headers: { ...form(o).headers, ...(init.headers ?? {}) } });
    const wrongSecret = await token({ grant_type: 'authorization_code', code, code_verifier: 'verifier-'.repeat(6), client_id: client.client_id, client_secret: 'nope' });
    assert.equal(wrongSecret.status, 401);
    assert.equal((await wrongSecret.json()).error, 'invalid_client');
    const wrongVerifier = await token({ grant_type: 'authorization_code', code, code_verifier: 'x'.repeat(48), client_id: client.client_id, client_secret: client.client_secret });
    assert.equal(wrongVerifier.status, 400);
    assert.equal((await wrongVerifier.json()).error, 'invalid_grant');
    const grant = await token({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    assert.equal((await grant.json()).error, 'unsupported_grant_type');
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const t = await token({ grant_type: 'authorization_code', code, code_verifier: 'verifier-'.repeat(6), resource: 'http://localhost:9/mcp' }, { headers: { authorization: basic } });
    assert.equal(t.status, 200);
    assert.equal(t.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await t.json(), { access_token: `at-${client.client_id}`, token_type: 'bearer', expires_in: 60, scope: 'mcp:tools', resource: 'http://localhost:9/mcp' });
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: 'r', client_id: client.client_id, client_secret: client.client_secret });
    assert.deepEqual(await refresh.json(), { error: 'invalid_request', error_description: 'no refresh tokens here' });
    assert.equal((await fetch(meta.token_endpoint)).status, 405);
    // Revocation (RFC 7009).
    const rv = await fetch(meta.revocation_endpoint, form({ token: 'at-x', client_id: client.client_id, client_secret: client.client_secret }));
    assert.equal(rv.status, 200);
    assert.deepEqual(revoked, [`${client.client_id}:at-x`]);
  } finally {
    await new Promise((r) => issuerPort.close(r));
  }
  assert.throws(() => mcpAuthRouter({ provider: p, issuerUrl: new URL('http://auth.example.com') }), /must be https/);
  assert.equal(createOAuthMetadata({ provider: provider({ revoke: false }).p, issuerUrl: new URL('https://auth.example.com') }).revocation_endpoint, undefined);
});

test('requireBearerAuth: 401 with the RFC 9728 challenge, expired and foreign-resource tokens refused, 403 for scopes, req.auth set', async () => {
  const mcpUrl = new URL('http://localhost:9/mcp');
  const tokens = {
    good: { token: 'good', clientId: 'c', scopes: ['read'], expiresAt: Date.now() / 1000 + 60, resource: new URL('http://localhost:9/mcp') },
    old: { token: 'old', clientId: 'c', scopes: ['read'], expiresAt: Date.now() / 1000 - 1, resource: new URL('http://localhost:9/mcp') },
    foreign: { token: 'foreign', clientId: 'c', scopes: ['read'], resource: new URL('http://localhost:9/other') },
    narrow: { token: 'narrow', clientId: 'c', scopes: [], resource: new URL('http://localhost:9/mcp') },
  };
  const verifier = {
    verifyAccessToken: async (t) => {
      if (t === 'boom') throw new Error('verifier down');
      if (!tokens[t]) throw new InvalidTokenError('unknown token');
      return tokens[t];
    },
  };
  const app = express();
  const prm = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  assert.equal(prm, 'http://localhost:9/.well-known/oauth-protected-resource/mcp');
  app.use(mcpAuthMetadataRouter({ oauthMetadata: { issuer: 'https://auth.example.com/', authorization_endpoint: 'https://auth.example.com/authorize', token_endpoint: 'https://auth.example.com/token', response_types_supported: ['code'] }, resourceServerUrl: mcpUrl, resourceName: 'R' }));
  app.post('/mcp', requireBearerAuth({ verifier, requiredScopes: ['read'], resourceMetadataUrl: prm, expectedResource: mcpUrl }), (req, res) => res.json({ client: req.auth.clientId }));
  const { base, close } = await serve(app);
  try {
    const call = (auth) => fetch(`${base}/mcp`, { method: 'POST', headers: auth ? { authorization: auth } : {} });
    const none = await call();
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), `Bearer error="invalid_token", error_description="Missing Authorization header", scope="read", resource_metadata="${prm}"`);
    for (const [auth, status, error] of [
      ['Basic abc', 401, 'invalid_token'],
      ['Bearer unknown', 401, 'invalid_token'],
      ['Bearer old', 401, 'invalid_token'],
      ['Bearer foreign', 401, 'invalid_token'],
      ['Bearer narrow', 403, 'insufficient_scope'],
      ['Bearer boom', 500, 'server_error'],
    ]) {
      const r = await call(auth);
      assert.equal(r.status, status, auth);
      assert.equal((await r.json()).error, error, auth);
    }
    assert.deepEqual(await (await call('Bearer good')).json(), { client: 'c' });
    const meta = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.deepEqual(meta, { resource: 'http://localhost:9/mcp', authorization_servers: ['https://auth.example.com/'], resource_name: 'R' });
    assert.equal((await fetch(`${base}/.well-known/oauth-authorization-server`)).status, 200);
  } finally {
    await close();
  }
  assert.equal(checkResourceAllowed({ requestedResource: 'http://a/mcp', configuredResource: 'http://a/mcp/x' }), true);
  assert.equal(checkResourceAllowed({ requestedResource: 'http://a/mc', configuredResource: 'http://a/mcp' }), false);
  assert.equal(resourceUrlFromServerUrl('http://a/mcp#frag').href, 'http://a/mcp');
  assert.ok(new InvalidTokenError('x') instanceof OAuthError);
  assert.deepEqual(new InvalidTokenError('x').toResponseObject(), { error: 'invalid_token', error_description: 'x' });
});

test('low-level Server: a task handler set after the server handled its first request is refused', async () => {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }));
  const http = await server.mcpServer.listen({ port: 0 });
  try {
    const client = await Client.http(http.url);
    await client.listTools();
    assert.throws(() => server.setRequestHandler(GetTaskRequestSchema, async () => ({})), /task handlers must be set before the server handles its first request/);
    await client.close();
  } finally {
    await http.close();
  }
});

test('low-level Server: with only a tasks/get handler, the capability says so, tasks/list is not found and tasks/get is the app\'s', async () => {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'a', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => (req.params.task ? { task: { taskId: 'app-1', status: 'working', ttl: null, createdAt: 'c', lastUpdatedAt: 'c' } } : { content: [{ type: 'text', text: 'direct' }] }));
  server.setRequestHandler(GetTaskRequestSchema, async (req) => {
    if (req.params.taskId !== 'app-1') throw new McpError(ErrorCode.InvalidParams, `no task ${req.params.taskId}`);
    return { taskId: 'app-1', status: 'completed', ttl: null, createdAt: 'c', lastUpdatedAt: 'c' };
  });
  const http = await server.mcpServer.listen({ port: 0 });
  try {
    const client = await Client.http(http.url);
    assert.deepEqual(client.getServerCapabilities().tasks, { requests: { tools: { call: {} } } });
    assert.deepEqual(await client.request('tools/call', { name: 'a', arguments: {}, task: { ttl: 1000 } }), { task: { taskId: 'app-1', status: 'working', ttl: null, createdAt: 'c', lastUpdatedAt: 'c' } });
    assert.equal((await client.callTool({ name: 'a' })).content[0].text, 'direct');
    assert.equal((await client.request('tasks/get', { taskId: 'app-1' })).status, 'completed');
    await assert.rejects(client.request('tasks/get', { taskId: 'x' }), (e) => e.code === ErrorCode.InvalidParams && /no task x/.test(e.message));
    await assert.rejects(client.request('tasks/list', {}), (e) => e.code === ErrorCode.MethodNotFound);
    await client.close();
  } finally {
    await http.close();
  }
});

test('experimental tasks: registerToolTask needs a task store and a handler with createTask, getTask and getTaskResult', () => {
  const bare = new McpServer({ name: 't', version: '1' });
  assert.throws(() => bare.experimental.tasks.registerToolTask('x', {}, { createTask() {}, getTask() {}, getTaskResult() {} }), /no task store/);
  assert.throws(() => new McpServer({ name: 't', version: '1' }, { taskStore: {} }), /taskStore\.createTask must be a function/);
  const server = new McpServer({ name: 't', version: '1' }, { taskStore: new InMemoryTaskStore() });
  assert.throws(() => server.experimental.tasks.registerToolTask('x', {}, { createTask() {} }), /handler\.getTask must be a function/);
  assert.throws(() => server.experimental.tasks.registerToolTask('x', { execution: { taskSupport: 'forbidden' } }, { createTask() {}, getTask() {}, getTaskResult() {} }), /'forbidden' makes no task tool/);
});

test('server.server outside a handler: a completion notifier reaches the session it was made in, elicitInput the one live session', async () => {
  const server = new McpServer({ name: 'n', version: '1' });
  let notifier;
  server.registerTool('start', {}, () => {
    notifier = server.server.createElicitationCompletionNotifier('el-1');
    return 'started';
  });
  const http = await server.listen({ port: 0 });
  try {
    const seen = { a: [], b: [] };
    const a = await Client.http(http.url, { onNotification: (n) => n.method === 'notifications/elicitation/complete' && seen.a.push(n.params.elicitationId) });
    const b = await Client.http(http.url, { onNotification: (n) => n.method === 'notifications/elicitation/complete' && seen.b.push(n.params.elicitationId) });
    await a.callTool({ name: 'start' });
    await notifier();
    const deadline = Date.now() + 5000;
    while (seen.a.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen, { a: ['el-1'], b: [] });
    // Two live sessions: a request outside a handler cannot choose, and says so.
    await assert.rejects(server.server.elicitInput({ message: 'm', requestedSchema: { type: 'object', properties: {} } }), /2 live sessions/);
    await b.close();
    await a.close();
  } finally {
    await http.close();
  }
  await assert.rejects(new McpServer({ name: 'x', version: '1' }).server.elicitInput({ message: 'm', requestedSchema: { type: 'object', properties: {} } }), /no live session/);
});

test('server.server from work a handler left running: elicitInput after the handler answered goes to the live session', async () => {
  const server = new McpServer({ name: 'left-running', version: '1' });
  let later;
  server.registerTool('start', {}, () => {
    // Runs in the handler's async context, well after the handler answered.
    later = new Promise((resolve, reject) => {
      setTimeout(() => {
        server.server.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }).then(resolve, reject);
      }, 100);
    });
    return 'started';
  });
  const http = await server.listen({ port: 0 });
  try {
    const client = await Client.http(http.url, { elicitation: (params) => ({ action: 'accept', content: { name: params.message === 'Name?' ? 'Ada' : '?' } }) });
    await client.callTool({ name: 'start' });
    const answer = await later;
    assert.deepEqual(answer, { action: 'accept', content: { name: 'Ada' } });
    await client.close();
  } finally {
    await http.close();
  }
});

test('listen(): a request over the body limit with its id after params (the SDK\'s order) is answered 413 with that id', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('echo', {}, () => 'e');
  const http = await server.listen({ port: 0, maxBodySize: 64 * 1024 });
  try {
    const body = JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(200 * 1024) } }, jsonrpc: '2.0', id: 'late-id' });
    const r = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    assert.equal(r.status, 413);
    assert.equal((await r.json()).id, 'late-id');
  } finally {
    await http.close();
  }
});
