// Defects found porting the official TypeScript SDK's examples: each test checks one behaviour
// a ported example relies on, and fails without its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import express from 'express';
import { Client, ErrorCode, McpError, McpServer, ResourceTemplate } from '../esm/index.mjs';

/** The official SDK's schemas, when scripts/setup-test-deps installed it (else undefined). */
async function sdkTypes() {
  const url = new URL('../../tests/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js', import.meta.url);
  return existsSync(url) ? import(url.href) : undefined;
}

function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

test('tools/list: schemas without "type" (inputSchema {}) are listed as type "object", as SDK clients require', async (t) => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('empty', { inputSchema: {} }, () => 'e');
  server.registerTool('props', { inputSchema: { properties: { a: { type: 'string' } } } }, ({ a }) => a);
  server.registerTool('out', { inputSchema: {}, outputSchema: { properties: { n: { type: 'number' } } } }, () => ({ n: 1 }));
  server.registerTool('none', {}, () => 'n');
  assert.throws(
    () => server.registerTool('str', { inputSchema: { type: 'string' } }, () => ''),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /inputSchema must be an object schema/.test(e.message),
  );
  assert.throws(
    () => server.registerTool('arr', { outputSchema: { type: 'array' } }, () => ''),
    (e) => e instanceof McpError && /outputSchema must be an object schema/.test(e.message),
  );
  const client = await Client.memory(server);
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((x) => [x.name, x.inputSchema.type, x.outputSchema?.type]), [
    ['empty', 'object', undefined],
    ['props', 'object', undefined],
    ['out', 'object', 'object'],
    ['none', 'object', undefined],
  ]);
  assert.deepEqual(listed.tools.find((x) => x.name === 'props').inputSchema.properties, { a: { type: 'string' } });
  // Still validated, and still called with the arguments.
  assert.equal((await client.callTool({ name: 'props', arguments: { a: 'x' } })).content[0].text, 'x');
  assert.equal((await client.callTool({ name: 'props', arguments: { a: 1 } })).isError, true);
  assert.deepEqual((await client.callTool({ name: 'out' })).structuredContent, { n: 1 });
  const sdk = await sdkTypes();
  if (!sdk) t.diagnostic('official SDK not installed (scripts/setup-test-deps): its schema check skipped');
  else assert.ok(sdk.ListToolsResultSchema.safeParse(listed).success, 'the official SDK client accepts this tools/list');
  await client.close();
});

test('errors: a thrown plain object answers with its message or its JSON, and one with a numeric code as an McpError', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('foo', {}, () => { throw { foo: 1 }; });
  server.registerTool('message', {}, async () => { throw { message: 'x', detail: 2 }; });
  server.registerTool('coded', {}, () => { throw { code: 1, message: 'x' }; });
  server.registerTool('url', {}, () => { throw { code: ErrorCode.UrlElicitationRequired, message: 'need url', data: { url: 'https://x' } }; });
  server.registerResource('r', new ResourceTemplate('r://{kind}', { list: undefined }), {}, (_uri, { kind }) => {
    if (kind === 'coded') throw { code: ErrorCode.ResourceNotFound, message: 'no such thing', data: { kind } };
    throw { foo: 1 };
  });
  const client = await Client.memory(server);
  assert.deepEqual(await client.callTool({ name: 'foo' }), { content: [{ type: 'text', text: '{"foo":1}' }], isError: true });
  assert.deepEqual(await client.callTool({ name: 'message' }), { content: [{ type: 'text', text: 'x' }], isError: true });
  // As `throw new McpError(1, 'x')`: a tool execution error with the message.
  assert.deepEqual(await client.callTool({ name: 'coded' }), { content: [{ type: 'text', text: 'x' }], isError: true });
  await assert.rejects(client.callTool({ name: 'url' }), (e) => e instanceof McpError && e.code === ErrorCode.UrlElicitationRequired && e.data.url === 'https://x');
  await assert.rejects(
    client.readResource({ uri: 'r://coded' }),
    (e) => e instanceof McpError && e.code === ErrorCode.ResourceNotFound && e.message === 'no such thing' && e.data.kind === 'coded',
  );
  await assert.rejects(
    client.readResource({ uri: 'r://plain' }),
    (e) => e instanceof McpError && e.code === ErrorCode.InternalError && e.message.includes('{"foo":1}') && !e.message.includes('[object Object]'),
  );
  await client.close();
});

test('results: a BigInt in an answer is an internal error naming it, not a silent number', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('sync', {}, () => ({ content: [{ type: 'text', text: 'n' }], structuredContent: { n: 10n } }));
  server.registerTool('async', {}, async () => ({ content: [{ type: 'text', text: 'n' }], structuredContent: { list: [1, 10n] } }));
  server.registerTool('out', { outputSchema: { type: 'object' } }, () => ({ count: 10n }));
  server.registerResource('r', 'r://big', {}, () => ({ contents: [{ uri: 'r://big', text: 't', _meta: { size: 1n } }] }));
  server.registerTool('ok', {}, () => 'fine');
  const client = await Client.memory(server);
  const isBigIntError = (where) => (e) =>
    e instanceof McpError &&
    e.code === ErrorCode.InternalError &&
    e.message.includes('BigInt') &&
    e.message.includes(`\`${where}\``) &&
    e.data?.reason === 'answerNotJson';
  await assert.rejects(client.callTool({ name: 'sync' }), isBigIntError('structuredContent.n'));
  await assert.rejects(client.callTool({ name: 'async' }), isBigIntError('structuredContent.list[1]'));
  await assert.rejects(client.callTool({ name: 'out' }), isBigIntError('count'));
  await assert.rejects(client.readResource({ uri: 'r://big' }), isBigIntError('contents[0]._meta.size'));
  assert.equal((await client.callTool({ name: 'ok' })).content[0].text, 'fine', 'the session goes on');
  await client.close();
});

test('client calls: an already aborted signal rejects as a later abort does, with McpError RequestCancelled', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('slow', {}, (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))));
  const client = await Client.memory(server);
  const early = await client.callTool({ name: 'slow' }, { signal: AbortSignal.abort() }).then(
    () => assert.fail('resolved'),
    (e) => e,
  );
  const controller = new AbortController();
  const pending = client.callTool({ name: 'slow' }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  const late = await pending.then(() => assert.fail('resolved'), (e) => e);
  for (const e of [early, late]) {
    assert.ok(e instanceof McpError, `${e?.name}: ${e?.message}`);
    assert.equal(e.code, ErrorCode.RequestCancelled);
  }
  assert.equal(early.message, late.message);
  await assert.rejects(client.ping({ signal: AbortSignal.abort() }), (e) => e instanceof McpError && e.code === -32800);
  await client.close();
});

test('express: headers set or removed by middleware are what ctx.http.headers sees', async () => {
  const mcp = new McpServer({ name: 's', version: '1' });
  mcp.registerTool('headers', {}, (ctx) => JSON.stringify([ctx.http?.headers['x-tenant'], ctx.http?.headers['x-secret'], ctx.http?.headers['x-app']]));
  const handler = mcp.createHttpHandler();
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    req.headers['x-tenant'] = 'acme'; // e.g. an auth middleware naming the tenant
    delete req.headers['x-secret'];
    next();
  });
  app.all('/mcp', (req, res) => void handler.handleNode(req, res));
  const http = createServer(app);
  const port = await listening(http);
  const client = await Client.http(`http://127.0.0.1:${port}/mcp`, { headers: { 'x-secret': 's3cret', 'x-app': 'a' } });
  assert.equal((await client.callTool({ name: 'headers' })).content[0].text, JSON.stringify(['acme', undefined, 'a']));
  await client.close();
  await new Promise((r) => http.close(r));
});

test('McpServer: the SDK constructor shape new McpServer(info, { capabilities, instructions })', async () => {
  const server = new McpServer({ name: 's', version: '1' }, { capabilities: { logging: {}, tools: {}, prompts: {} }, instructions: 'hi' });
  const client = await Client.memory(server);
  const caps = client.getServerCapabilities();
  assert.ok(caps.logging && caps.tools && caps.prompts, JSON.stringify(caps));
  assert.equal(caps.resources, undefined);
  assert.equal(client.getInstructions(), 'hi');
  await client.close();
  // Without logging named, logging is not advertised (as the SDK); without capabilities it is.
  const quiet = await Client.memory(new McpServer({ name: 's', version: '1' }, { capabilities: { resources: { subscribe: true } } }));
  assert.equal(quiet.getServerCapabilities().logging, undefined);
  assert.ok(quiet.getServerCapabilities().resources);
  await quiet.close();
  const plain = await Client.memory(new McpServer({ name: 's', version: '1' }));
  assert.ok(plain.getServerCapabilities().logging);
  await plain.close();
  assert.throws(() => new McpServer({ name: 's', version: '1' }, { capabilities: { experimental: {} } }), /capabilities\.experimental is not supported/);
});

test('sessions: ctx.sessionId names the Streamable HTTP session and sendLoggingMessage(params, sessionId) reaches only it', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('whoami', {}, (ctx) => ctx.sessionId ?? 'none');
  const http = await server.listen({ port: 0 });
  const [a, b] = await Promise.all([Client.http(http.url), Client.http(http.url)]);
  const got = { a: [], b: [] };
  a.on('notification', (n) => n.method === 'notifications/message' && got.a.push(n.params.data));
  b.on('notification', (n) => n.method === 'notifications/message' && got.b.push(n.params.data));
  await a.setLoggingLevel('debug');
  await b.setLoggingLevel('debug');
  const idA = (await a.callTool({ name: 'whoami' })).content[0].text;
  const idB = (await b.callTool({ name: 'whoami' })).content[0].text;
  assert.match(idA, /\S/);
  assert.notEqual(idA, 'none');
  assert.notEqual(idA, idB);
  await server.sendLoggingMessage({ level: 'info', data: 'only a' }, idA);
  await server.sendLoggingMessage({ level: 'info', data: 'nobody' }, 'no-such-session');
  await server.sendLoggingMessage({ level: 'info', data: 'everyone' });
  const end = Date.now() + 5000;
  while ((got.a.length < 2 || got.b.length < 1) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(got.a, ['only a', 'everyone']);
  assert.deepEqual(got.b, ['everyone']);
  await Promise.all([a.close(), b.close()]);
  await http.close();
  // Not over HTTP: no session id.
  const memory = await Client.memory(server);
  assert.equal((await memory.callTool({ name: 'whoami' })).content[0].text, 'none');
  await memory.close();
});

test('mounted handlers: a request over maxBodySize with its id after params (the SDK\'s order) is refused 413 with that id, on handleNode and handleFetch', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('echo', {}, () => 'e');
  const mcp = server.createHttpHandler({ maxBodySize: 64 * 1024, dnsRebindingProtection: false });
  const body = JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(200 * 1024) } }, jsonrpc: '2.0', id: 'late-id' });
  const http = createServer((req, res) => mcp.handleNode(req, res));
  const port = await listening(http);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  try {
    const r = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body });
    assert.equal(r.status, 413);
    assert.equal((await r.json()).id, 'late-id');
    // Past the 16 MiB read-on cap the rest is not read; the id written first is still named.
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 'early-id', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(17 * 1024 * 1024) } } });
    const h = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body: huge });
    assert.equal(h.status, 413);
    assert.equal(h.headers.get('connection'), 'close');
    assert.equal((await h.json()).id, 'early-id');
  } finally {
    await new Promise((r) => http.close(r));
  }
  const f = await mcp.handleFetch(new Request('http://localhost/mcp', { method: 'POST', headers, body }));
  assert.equal(f.status, 413);
  assert.equal((await f.json()).id, 'late-id');
});

test('McpServer.server.setRequestHandler: tools/list and tools/call handlers (keyed by the SDK\'s own schemas when installed) are served beside registerTool, and asked again on sendToolListChanged', async () => {
  const sdk = await sdkTypes();
  const types = await import('ferromcp/types.js');
  const schemas = sdk ?? types;
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('registered', {}, () => 'from registerTool');
  let names = ['low-a'];
  server.server.setRequestHandler(schemas.ListToolsRequestSchema, async () => ({
    tools: names.map((name) => ({ name, description: `low-level ${name}`, inputSchema: { type: 'object', properties: { x: { type: 'number' } } } })),
  }));
  server.server.setRequestHandler(schemas.CallToolRequestSchema, async (request, extra) => ({
    content: [{ type: 'text', text: `${request.params.name}(${JSON.stringify(request.params.arguments)}) session=${extra.sessionId}` }],
  }));
  assert.throws(
    () => server.server.setRequestHandler(schemas.SetLevelRequestSchema, () => ({})),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /engine answers logging\/setLevel itself/.test(e.message),
  );
  const http = await server.listen({ port: 0 });
  try {
    const client = await Client.http(http.url);
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((t) => t.name).sort(), ['low-a', 'registered']);
    assert.equal(listed.tools.find((t) => t.name === 'low-a').description, 'low-level low-a');
    assert.match((await client.callTool({ name: 'low-a', arguments: { x: 1 } })).content[0].text, /^low-a\({"x":1}\) session=[0-9a-f]{32}$/);
    assert.equal((await client.callTool({ name: 'registered' })).content[0].text, 'from registerTool');
    names = ['low-b'];
    await server.server.sendToolListChanged();
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['low-b', 'registered']);
    await client.close();
  } finally {
    await server.close();
  }
});

test('UrlElicitationRequiredError: thrown by a tool it answers -32042 with its elicitations, and the client rejects with the same class', async () => {
  const { UrlElicitationRequiredError } = await import('ferromcp/types.js');
  const server = new McpServer({ name: 's', version: '1' });
  const elicitation = { mode: 'url', message: 'Sign in', url: 'https://example.com/auth', elicitationId: 'e-1' };
  server.registerTool('needs-url', {}, () => {
    throw new UrlElicitationRequiredError([elicitation]);
  });
  const client = await Client.memory(server, { elicitationUrl: true, elicitation: async () => ({ action: 'decline' }) });
  await assert.rejects(client.callTool({ name: 'needs-url' }), (e) => {
    assert.ok(e instanceof UrlElicitationRequiredError, `${e?.constructor?.name}: ${e?.message}`);
    assert.ok(e instanceof McpError);
    assert.equal(e.code, ErrorCode.UrlElicitationRequired);
    assert.deepEqual(e.elicitations, [elicitation]);
    return true;
  });
  await client.close();
});
