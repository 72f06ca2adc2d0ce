// Both transports end to end: a ferromcp Node server over stdio (a child process) and over
// Streamable HTTP, driven by the ferromcp Node client; raw HTTP for malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { request as httpRequest } from 'node:http';
import { Client, McpError, ErrorCode, TransportError } from '../esm/index.mjs';
import { demoServer, sleep } from './helpers.mjs';

const fixture = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('stdio: spawn, call, progress, errors, close ends the child', async () => {
  const client = await Client.stdio({ command: process.execPath, args: [fixture] });
  assert.equal(client.getServerVersion().name, 'fixture');
  assert.equal(client.getInstructions(), 'test fixture');
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content[0].text, 'hi');
  const seen = [];
  await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => seen.push(p.progress) });
  assert.deepEqual(seen, [1, 2, 3]);
  const failed = await client.callTool({ name: 'fail' });
  assert.equal(failed.isError, true);
  const refused = await client.callTool({ name: 'echo', arguments: {} }); // schema-refused: a tool error (SEP-1303)
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^Invalid arguments of tool "echo":/);
  await assert.rejects(client.callTool({ name: 'nope' }), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  const pid = Number((await client.callTool({ name: 'pid' })).content[0].text);
  assert.ok(alive(pid));
  await client.close();
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(20);
  assert.equal(alive(pid), false, 'the server process ended');
  await assert.rejects(client.ping(), (e) => e instanceof TransportError && e.code === ErrorCode.ConnectionClosed);
});

test('stdio: a command that does not exist is a TransportError', async () => {
  await assert.rejects(Client.stdio({ command: '/nonexistent/mcp-server' }), (e) => e instanceof TransportError);
});

test('stdio: cancellation aborts the handler in the child, the session goes on', async () => {
  const client = await Client.stdio({ command: process.execPath, args: [fixture] });
  const ac = new AbortController();
  const call = client.callTool({ name: 'wait', arguments: { ms: 10_000 } }, { signal: ac.signal });
  await sleep(100);
  ac.abort();
  await assert.rejects(call, (e) => e instanceof McpError && e.code === ErrorCode.RequestCancelled);
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'after' } })).content[0].text, 'after');
  await assert.rejects(client.callTool({ name: 'wait', arguments: { ms: 5_000 } }, { timeout: 100 }), (e) => e.code === ErrorCode.RequestTimeout);
  await client.close();
});

test('http: listen on a free port, many clients, stateless and JSON modes', async () => {
  for (const opts of [{}, { stateless: true }, { jsonResponse: true }]) {
    const server = demoServer();
    const http = await server.listen({ port: 0, ...opts });
    assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const clients = await Promise.all(Array.from({ length: 5 }, () => Client.http(http.url)));
    const results = await Promise.all(clients.map((c, i) => c.callTool({ name: 'add', arguments: { a: i, b: 1 } })));
    assert.deepEqual(results.map((r) => r.content[0].text), ['1', '2', '3', '4', '5']);
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
  }
});

test('http: a handler context aborts when the client cancels; sessions interleave', async () => {
  const server = demoServer();
  let aborted = 0;
  server.registerTool('hang', {}, (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => { aborted++; resolve('x'); })));
  server.registerTool('tick', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async ({ n }) => {
    await sleep(10 + (n % 3) * 5);
    return String(n);
  });
  const http = await server.listen({ port: 0 });
  const a = await Client.http(http.url);
  const b = await Client.http(http.url);
  const ac = new AbortController();
  const hang = a.callTool({ name: 'hang' }, { signal: ac.signal });
  const ticks = await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 ? a : b).callTool({ name: 'tick', arguments: { n } })));
  assert.deepEqual(ticks.map((t) => Number(t.content[0].text)), Array.from({ length: 20 }, (_, n) => n));
  ac.abort();
  await assert.rejects(hang, (e) => e.code === ErrorCode.RequestCancelled);
  for (let i = 0; i < 100 && aborted === 0; i++) await sleep(10);
  assert.equal(aborted, 1);
  await a.close();
  await b.close();
  await server.close();
});

test('http: handlers see the request headers (ctx.http), other transports do not', async () => {
  const server = demoServer();
  server.registerTool('whoami', {}, (ctx) => JSON.stringify(ctx.http?.headers ?? null));
  const http = await server.listen({ port: 0 });
  const client = await Client.http(http.url, { headers: { authorization: 'Bearer t0k3n', 'x-tenant': 'acme' } });
  const seen = JSON.parse((await client.callTool({ name: 'whoami' })).content[0].text);
  assert.equal(seen.authorization, 'Bearer t0k3n');
  assert.equal(seen['x-tenant'], 'acme');
  assert.ok(seen['mcp-session-id']);
  await client.close();
  await server.close();
  const mem = await Client.memory(server);
  assert.equal((await mem.callTool({ name: 'whoami' })).content[0].text, 'null');
  await mem.close();
});

test('http: hostile input gets precise errors and never stops the server', async () => {
  const server = demoServer();
  const http = await server.listen({ port: 0, maxBodySize: 4096 });
  const post = (body, headers = {}) =>
    fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  let r = await post('{not json');
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, ErrorCode.ParseError);
  r = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  assert.equal(r.status, 400, 'a request without a session is refused');
  r = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': 'nope' });
  assert.equal(r.status, 404);
  r = await post('x'.repeat(8192));
  assert.equal(r.status, 413);
  // fetch() will not send a foreign Host header; node:http will.
  const status = await new Promise((resolve, reject) => {
    const req = httpRequest(http.url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
  });
  assert.equal(status, 403, 'DNS rebinding protection');
  const client = await Client.http(http.url);
  assert.equal((await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content[0].text, '2');
  await client.close();
  await server.close();
});

test('http: connecting to nothing is a TransportError', async () => {
  await assert.rejects(Client.http('http://127.0.0.1:9/mcp'), (e) => e instanceof TransportError);
});
