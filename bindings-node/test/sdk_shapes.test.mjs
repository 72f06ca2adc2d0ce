// The TypeScript SDK's shapes under ferromcp's import paths, used together without the SDK:
// the low-level Server (setRequestHandler keyed by the request schemas), server.tool(), the
// StreamableHTTPServerTransport on node:http (stateful and stateless), and the SDK-shaped
// Client with StreamableHTTPClientTransport; CommonJS and ES modules give the same classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { Server } from 'ferromcp/server/index.js';
import { McpServer } from 'ferromcp/server/mcp.js';
import { StreamableHTTPServerTransport } from 'ferromcp/server/streamableHttp.js';
import { Client } from 'ferromcp/client/index.js';
import { StreamableHTTPClientTransport } from 'ferromcp/client/streamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  isInitializeRequest,
} from 'ferromcp/types.js';

async function serve(handler) {
  const srv = http.createServer(handler);
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${srv.address().port}/mcp`), close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }) };
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
}

test('low-level Server with request-schema handlers, per-session transports, SDK-shaped client', async () => {
  const transports = new Map();
  const closed = [];
  const getServer = () => {
    const server = new Server({ name: 'low', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      await server.sendLoggingMessage({ level: 'info', data: `echo for ${extra.sessionId}` }, extra.sessionId);
      return { content: [{ type: 'text', text: `${request.params.name}: ${request.params.arguments.text}` }] };
    });
    assert.throws(() => server.setRequestHandler({ method: 'logging/setLevel' }, () => ({})), /answers logging\/setLevel itself/);
    return server;
  };
  const app = await serve(async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport && !sid && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        closed.push(transport.sessionId);
        transports.delete(transport.sessionId);
      };
      await getServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400).end('no session');
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  try {
    const client = new Client({ name: 'c', version: '1.0.0' });
    const logs = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params.data));
    const transport = new StreamableHTTPClientTransport(app.url);
    await client.connect(transport);
    assert.equal(transports.size, 1);
    const [sessionId] = transports.keys();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['echo']);
    const r = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, CallToolResultSchema);
    assert.equal(r.content[0].text, 'echo: hi');
    const r2 = await client.callTool({ name: 'echo', arguments: { text: 'again' } }, CallToolResultSchema, { timeout: 5000 });
    assert.equal(r2.content[0].text, 'echo: again');
    // Logged by session id, the messages go on the session's GET stream: they may arrive after the answers.
    for (let i = 0; i < 100 && logs.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(logs, [`echo for ${sessionId}`, `echo for ${sessionId}`]);
    await transport.terminateSession(); // DELETE: the server's transport closes
    for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(closed, [sessionId]);
    assert.equal(transports.size, 0);
  } finally {
    await app.close();
  }
});

test('stateless transport per request, server.tool(), server.close() closes the transport', async () => {
  let closes = 0;
  const app = await serve(async (req, res) => {
    const server = new McpServer({ name: 'stateless', version: '1.0.0' });
    server.tool('add', 'Adds', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    server.tool('ping-tool', async (extra) => ({ content: [{ type: 'text', text: typeof extra.signal }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onclose = () => closes++;
    await server.connect(transport);
    await transport.handleRequest(req, res);
    assert.equal(transport.sessionId, undefined);
    res.on('close', () => void server.close());
  });
  try {
    const client = new Client({ name: 'c', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(app.url));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'ping-tool']);
    assert.equal(tools.find((t) => t.name === 'add').description, 'Adds');
    assert.equal((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content[0].text, '5');
    assert.equal((await client.callTool({ name: 'ping-tool', arguments: {} })).content[0].text, 'object');
    await client.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(closes >= 3, `transports closed: ${closes}`);
  } finally {
    await app.close();
  }
});

test('the SDK subpaths load the same classes from CommonJS and ES modules', async () => {
  const require = createRequire(import.meta.url);
  for (const [sub, names] of Object.entries({
    'server/index.js': ['Server'],
    'server/streamableHttp.js': ['StreamableHTTPServerTransport'],
    'server/express.js': ['createMcpExpressApp', 'hostHeaderValidation', 'localhostHostValidation'],
    'client/index.js': ['Client'],
    'client/streamableHttp.js': ['StreamableHTTPClientTransport'],
    'client/stdio.js': ['StdioClientTransport', 'getDefaultEnvironment'],
    'types.js': ['CallToolRequestSchema', 'LoggingMessageNotificationSchema', 'RELATED_TASK_META_KEY'],
  })) {
    const cjs = require(`ferromcp/${sub}`);
    const esm = await import(`ferromcp/${sub}`);
    for (const n of names) {
      assert.ok(esm[n] !== undefined, `${sub} ${n}`);
      assert.equal(esm[n], cjs[n], `${sub} ${n}: one instance`);
    }
  }
  const types = await import('ferromcp/types.js');
  assert.equal(types.CallToolRequestSchema.method, 'tools/call');
  assert.equal(types.CallToolRequestSchema.shape.method.value, 'tools/call');
  assert.deepEqual(types.CallToolResultSchema.parse({ content: [] }), { content: [] });
});
