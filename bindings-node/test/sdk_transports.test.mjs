// The TypeScript SDK's transport classes on ferromcp's engine (issue 33): the session id a
// server transport's sessionIdGenerator returns is the session's, the client transport reports
// it, the web-standard transport answers fetch Requests, and the deprecated HTTP+SSE transport
// (SSEServerTransport, SSEClientTransport) keeps the id it had before its stream opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import * as z from 'zod';
import { McpServer } from 'ferromcp/server/mcp.js';
import { StreamableHTTPServerTransport } from 'ferromcp/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from 'ferromcp/server/webStandardStreamableHttp.js';
import { SSEServerTransport } from 'ferromcp/server/sse.js';
import { Client } from 'ferromcp/client/index.js';
import { StreamableHTTPClientTransport } from 'ferromcp/client/streamableHttp.js';
import { SSEClientTransport } from 'ferromcp/client/sse.js';

const require = createRequire(import.meta.url);
const SDK = new URL('../../tests/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const haveSdk = existsSync(SDK);

/** A server whose `whoami` tool answers with the handler's `extra.sessionId`. */
function getServer() {
  const server = new McpServer({ name: 'ids', version: '1' });
  server.registerTool('whoami', { inputSchema: { n: z.number().optional() } }, async (_args, extra) => ({
    content: [{ type: 'text', text: String(extra.sessionId) }],
  }));
  return server;
}

function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const text = (r) => r.content[0].text;

/** An app in the SDK examples' shape: one transport per session, kept by its id. */
async function sessionApp(generator) {
  const transports = new Map();
  const events = [];
  const http = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: generator,
        onsessioninitialized: (id) => {
          events.push(`initialized ${id}`);
          transports.set(id, transport);
        },
        onsessionclosed: (id) => events.push(`closed ${id}`),
      });
      await getServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  const port = await listening(http);
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), events, transports, close: () => new Promise((r) => http.close(r)) };
}

test('StreamableHTTPServerTransport: the id sessionIdGenerator returns is the session\'s, seen by onsessioninitialized, extra.sessionId and the client transport', async () => {
  let n = 0;
  const calls = [];
  const app = await sessionApp(() => {
    calls.push(n);
    return `chosen-${n++}`;
  });
  try {
    const client = new Client({ name: 'c', version: '1' });
    const transport = new StreamableHTTPClientTransport(app.url);
    assert.equal(transport.sessionId, undefined, 'no session before connect');
    await client.connect(transport);
    assert.equal(transport.sessionId, 'chosen-0');
    assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'chosen-0');
    assert.deepEqual(app.events, ['initialized chosen-0']);
    // The generator runs when a session begins, not for the session's later requests.
    assert.deepEqual(calls, [0]);
    await transport.terminateSession();
    assert.equal(transport.sessionId, undefined, 'no session after terminateSession');
    assert.deepEqual(app.events, ['initialized chosen-0', 'closed chosen-0']);
    if (haveSdk) {
      // The official SDK's client sees the same.
      const { Client: SdkClient } = await import(new URL('client/index.js', SDK).href);
      const { StreamableHTTPClientTransport: SdkHttp } = await import(new URL('client/streamableHttp.js', SDK).href);
      const sdkClient = new SdkClient({ name: 'sdk', version: '1' });
      const sdkTransport = new SdkHttp(app.url);
      await sdkClient.connect(sdkTransport);
      assert.equal(sdkTransport.sessionId, 'chosen-1');
      assert.equal(text(await sdkClient.callTool({ name: 'whoami', arguments: {} })), 'chosen-1');
      await sdkClient.close();
    }
  } finally {
    await app.close();
  }
});

test('StreamableHTTPServerTransport: a sessionIdGenerator returning an id outside visible ASCII fails the request with a clear error', async () => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'has space' });
  const errors = [];
  transport.onerror = (e) => errors.push(e.message);
  await getServer().connect(transport);
  const http = createServer(async (req, res) => {
    try {
      await transport.handleRequest(req, res);
    } catch (e) {
      res.writeHead(500).end(e.message);
    }
  });
  const port = await listening(http);
  try {
    const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    });
    assert.equal(r.status, 500);
    assert.match(await r.text(), /session id "has space": 1-256 visible ASCII characters/);
    assert.equal(errors.length, 1);
  } finally {
    await new Promise((r) => http.close(r));
  }
});

test('StreamableHTTPClientTransport.sessionId: undefined against a stateless server', async () => {
  const http = createServer(async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await getServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  const port = await listening(http);
  try {
    const client = new Client({ name: 'c', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    await client.connect(transport);
    assert.equal(transport.sessionId, undefined);
    assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'undefined');
    await client.close();
  } finally {
    await new Promise((r) => http.close(r));
  }
});

test('WebStandardStreamableHTTPServerTransport: handleRequest(Request) answers a Response; a stateful session ends with DELETE (onsessionclosed, onclose)', async () => {
  const seen = [];
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => 'web-1',
    enableJsonResponse: true,
    onsessioninitialized: (id) => seen.push(`initialized ${id}`),
    onsessionclosed: (id) => seen.push(`closed ${id}`),
  });
  transport.onclose = () => seen.push('onclose');
  await getServer().connect(transport);
  const post = (body, headers = {}) =>
    transport.handleRequest(
      new Request('http://localhost/anywhere', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  assert.ok(init instanceof Response);
  assert.equal(init.status, 200);
  assert.equal(init.headers.get('mcp-session-id'), 'web-1');
  assert.equal((await init.json()).result.serverInfo.name, 'ids');
  assert.equal(transport.sessionId, 'web-1');
  const session = { 'mcp-session-id': 'web-1', 'mcp-protocol-version': '2025-11-25' };
  assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, session);
  assert.equal((await call.json()).result.content[0].text, 'web-1');
  const del = await transport.handleRequest(new Request('http://localhost/mcp', { method: 'DELETE', headers: session }));
  assert.equal(del.status, 200);
  assert.deepEqual(seen, ['initialized web-1', 'closed web-1', 'onclose']);
  const after = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, session);
  assert.equal(after.status, 404, 'the session is gone');
});

test('WebStandardStreamableHTTPServerTransport: stateless by default, a parsedBody is used instead of reading the request', async () => {
  const transport = new WebStandardStreamableHTTPServerTransport();
  await getServer().connect(transport);
  const body = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
  const r = await transport.handleRequest(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: 'this body was consumed by the framework',
    }),
    { parsedBody: body },
  );
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('mcp-session-id'), null);
  const sse = await r.text();
  assert.match(sse, /"id":7/);
  assert.match(sse, /"whoami"/);
  assert.equal(transport.sessionId, undefined);
});

test('SSEServerTransport: the id it has at construction names its endpoint event, extra.sessionId and the session; onclose when the client leaves', async () => {
  const transports = new Map();
  const closed = [];
  const http = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/events') {
      const transport = new SSEServerTransport('/messages', res);
      assert.match(transport.sessionId, /^[0-9a-f-]{36}$/);
      transports.set(transport.sessionId, transport);
      transport.onclose = () => closed.push(transport.sessionId);
      await getServer().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId'));
      if (!transport) return res.writeHead(404).end('no session');
      return transport.handlePostMessage(req, res);
    }
    res.writeHead(404).end();
  });
  const port = await listening(http);
  try {
    // The endpoint event, read raw.
    const raw = await fetch(`http://127.0.0.1:${port}/events`, { headers: { accept: 'text/event-stream' } });
    const reader = raw.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const [id] = [...transports.keys()];
    assert.match(first, new RegExp(`event: endpoint\\ndata: /messages\\?sessionId=${id}\\n`));
    await reader.cancel();
    // A client over the deprecated transport.
    const client = new Client({ name: 'c', version: '1' });
    const transport = new SSEClientTransport(new URL(`http://127.0.0.1:${port}/events`));
    await client.connect(transport);
    const second = [...transports.keys()][1];
    assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), second);
    await client.close();
    const deadline = Date.now() + 5000;
    while (closed.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(closed.sort(), [id, second].sort());
  } finally {
    await new Promise((r) => http.close(r));
  }
});

test('SSEServerTransport: an endpoint with a query is refused at construction', () => {
  assert.throws(() => new SSEServerTransport('/messages?x=1', {}), /a path without query or fragment/);
});

test('subpaths: server/sse.js, server/webStandardStreamableHttp.js and client/sse.js load under ESM and CommonJS', () => {
  assert.equal(require('ferromcp/server/sse.js').SSEServerTransport, SSEServerTransport);
  assert.equal(require('ferromcp/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport, WebStandardStreamableHTTPServerTransport);
  assert.equal(require('ferromcp/client/sse.js').SSEClientTransport, SSEClientTransport);
});

test('auth-extensions: PrivateKeyJwtProvider is refused at connect with the reason; ClientCredentialsProvider needs an issuer URL', async () => {
  const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import('ferromcp/client/auth-extensions.js');
  assert.throws(() => new ClientCredentialsProvider({ clientId: 'a', clientSecret: 'b' }), /expectedIssuer is required/);
  assert.throws(() => new ClientCredentialsProvider({ clientId: 'a', clientSecret: 'b', expectedIssuer: 'not a url' }), /expectedIssuer must be a URL/);
  const provider = new PrivateKeyJwtProvider({ clientId: 'jwt-client', privateKey: 'PEM', algorithm: 'RS256', expectedIssuer: 'https://auth.example.com' });
  assert.equal(provider.redirectUrl, undefined);
  const client = new Client({ name: 'c', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), { authProvider: provider });
  await assert.rejects(client.connect(transport), /private_key_jwt client authentication is not supported by ferromcp's engine/);
});
