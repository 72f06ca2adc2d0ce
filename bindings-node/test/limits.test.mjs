// Limits (issue 16): the engine's connection limits as listen() options and the client's
// message limit (a response over it fails that one call, with an error saying so).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer } from '../esm/index.mjs';

function bigServer() {
  const server = new McpServer({ name: 'limits', version: '1.0.0' });
  server.registerTool(
    'big',
    { description: 'Answers with n bytes', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
    ({ n }) => 'x'.repeat(n),
  );
  return server;
}

test('a response over the client limit fails that call', async () => {
  const server = bigServer();
  const h = await server.listen({ port: 0 });
  try {
    const client = await Client.http(h.url, { maxMessageSize: 2048 });
    await assert.rejects(client.callTool({ name: 'big', arguments: { n: 10000 } }), /exceeds the limit/);
    assert.equal((await client.callTool({ name: 'big', arguments: { n: 3 } })).content[0].text, 'xxx');
    await client.close();
  } finally {
    await h.close();
  }
});

test('connection limits are listen() options', async () => {
  const server = bigServer();
  const h = await server.listen({
    port: 0,
    maxHeadSize: 2048,
    maxConnections: 8,
    headerReadTimeoutMs: 2000,
    requestTimeoutMs: 5000,
    keepAliveTimeoutMs: 30000,
    writeTimeoutMs: 5000,
    maxBufferedBytes: 1 << 20,
  });
  try {
    const client = await Client.http(h.url);
    assert.equal((await client.callTool({ name: 'big', arguments: { n: 2 } })).content[0].text, 'xx');
    await client.close();
    // A head over maxHeadSize is refused (431): this client cannot connect.
    await assert.rejects(Client.http(h.url, { headers: { 'x-big': 'a'.repeat(4096) }, legacyFallback: false }));
  } finally {
    await h.close();
  }
});

test('a request over the server limit is refused with its id and the session goes on', async () => {
  const server = new McpServer({ name: 'limits', version: '1.0.0' }, { maxMessageSize: 1024 });
  server.registerTool(
    'echo',
    { description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ({ text }) => text,
  );
  const client = await Client.memory(server);
  await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 't'.repeat(4000) } }), (e) => {
    assert.equal(e.code, -32600);
    assert.match(JSON.stringify(e.data), /exceeds the limit of 1024 bytes/);
    return true;
  });
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'ok' } })).content[0].text, 'ok');
  await client.close();
});
