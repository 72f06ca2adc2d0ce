// Mounting MCP in an app that owns the HTTP server: Node's http module, Express (with and
// without express.json()), and a fetch-style handler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import express from 'express';
import { Client, ErrorCode } from '../esm/index.mjs';
import { demoServer, sleep } from './helpers.mjs';

function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

test('node:http: a full session (SSE, progress, notifications) through handleNode', async () => {
  const mcp = demoServer();
  mcp.registerTool('steps', {}, async (ctx) => {
    await ctx.reportProgress(1, 2);
    await ctx.info('working');
    await ctx.reportProgress(2, 2);
    return 'done';
  });
  const handler = mcp.createHttpHandler();
  const http = createServer((req, res) => {
    if (req.url.startsWith('/mcp')) handler.handleNode(req, res).catch(() => res.destroy());
    else res.writeHead(404).end('not here');
  });
  const port = await listening(http);
  const client = await Client.http(`http://127.0.0.1:${port}/mcp`);
  assert.equal((await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })).content[0].text, '4');
  mcp.registerTool('ua', {}, (ctx) => ctx.http?.headers['x-app'] ?? 'none');
  const withHeader = await Client.http(`http://127.0.0.1:${port}/mcp`, { headers: { 'x-app': 'mounted' } });
  assert.equal((await withHeader.callTool({ name: 'ua' })).content[0].text, 'mounted', 'headers reach handlers through the app too');
  await withHeader.close();
  const progress = [];
  const logs = [];
  client.on('notification', (n) => n.method === 'notifications/message' && logs.push(n.params.data));
  await client.setLoggingLevel('info');
  assert.equal((await client.callTool({ name: 'steps' }, { onprogress: (p) => progress.push(p.progress) })).content[0].text, 'done');
  assert.deepEqual(progress, [1, 2]);
  assert.deepEqual(logs, ['working']);
  assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404, 'the app keeps its other routes');
  await client.close();
  await new Promise((r) => http.close(r));
});

test('express: mounted next to other routes, with and without express.json()', async () => {
  for (const parseJson of [false, true]) {
    const mcp = demoServer();
    const handler = mcp.createHttpHandler();
    const app = express();
    if (parseJson) app.use(express.json());
    app.get('/health', (_req, res) => res.send('ok'));
    app.all('/mcp', (req, res) => void handler.handleNode(req, res));
    const http = createServer(app);
    const port = await listening(http);
    const clients = await Promise.all([1, 2, 3].map(() => Client.http(`http://127.0.0.1:${port}/mcp`)));
    const sums = await Promise.all(clients.map((c, i) => c.callTool({ name: 'add', arguments: { a: i, b: 10 } })));
    assert.deepEqual(sums.map((r) => r.content[0].text), ['10', '11', '12']);
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/health`)).text(), 'ok');
    await Promise.all(clients.map((c) => c.close()));
    await new Promise((r) => http.close(r));
  }
});

test('express: bad input and Host checks answer as the engine does', async () => {
  const mcp = demoServer();
  const handler = mcp.createHttpHandler({ maxBodySize: 1024 });
  const app = express();
  app.all('/mcp', (req, res) => void handler.handleNode(req, res));
  const http = createServer(app);
  const port = await listening(http);
  const url = `http://127.0.0.1:${port}/mcp`;
  const post = (body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  let r = await post('{oops');
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, ErrorCode.ParseError);
  r = await post('x'.repeat(2048));
  assert.equal(r.status, 413);
  assert.equal((await fetch(url, { method: 'PUT' })).status, 405);
  await new Promise((r) => http.close(r));
});

test('an SSE GET stream is released when the app client goes away', async () => {
  const mcp = demoServer();
  const handler = mcp.createHttpHandler();
  const pending = [];
  const http = createServer((req, res) => pending.push(handler.handleNode(req, res)));
  const port = await listening(http);
  const url = `http://127.0.0.1:${port}/mcp`;
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  const h = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  const ac = new AbortController();
  const get = await fetch(url, { method: 'GET', headers: h, signal: ac.signal });
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('content-type'), 'text/event-stream');
  const reader = get.body.getReader();
  await reader.read(); // the priming event: the stream is open in the engine
  ac.abort();
  const settled = await Promise.race([Promise.allSettled(pending).then(() => 'released'), sleep(3000).then(() => 'still open')]);
  assert.equal(settled, 'released', 'handleNode returns once its client is gone');
  // The session lives on: a new GET stream is accepted (one per session at a time).
  const again = await fetch(url, { method: 'GET', headers: h, signal: AbortSignal.timeout(2000) });
  assert.equal(again.status, 200);
  await again.body.cancel();
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
});

test('fetch-style: handleFetch answers Request objects with streamed Responses', async () => {
  const mcp = demoServer();
  const handler = mcp.createHttpHandler({ enableGetStream: false });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1' };
  const init = await handler.handleFetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'f', version: '1' } } }),
    }),
  );
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.ok(session);
  const initText = await init.text();
  assert.match(initText, /"serverInfo"/);
  const h2 = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  const ack = await handler.handleFetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: h2, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }));
  assert.equal(ack.status, 202);
  const call = await handler.handleFetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers: h2, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 20, b: 22 } } }) }),
  );
  assert.equal(call.status, 200);
  assert.match(await call.text(), /"text":"42"/);
  const get = await handler.handleFetch(new Request('http://127.0.0.1/mcp', { method: 'GET', headers: h2 }));
  assert.equal(get.status, 405);
  const del = await handler.handleFetch(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: h2 }));
  assert.ok(del.status === 200 || del.status === 204);
});
