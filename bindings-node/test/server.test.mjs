// McpServer registration and results, driven through an in-process Client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { Client, McpServer, McpError, ErrorCode, ResourceTemplate, completable } from '../esm/index.mjs';
import { demoServer } from './helpers.mjs';

test('tools: listing, JSON Schema input, string results', async () => {
  const server = demoServer();
  const client = await Client.memory(server);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => [t.name, t.title, t.description]), [['add', 'Add', 'Adds two numbers']]);
  assert.deepEqual(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { content: [{ type: 'text', text: '5' }] });
  assert.equal(client.getServerVersion().name, 'demo');
  assert.equal(client.getInstructions(), 'be nice');
  assert.ok(client.getServerCapabilities().tools);
  await client.close();
});

test('tools: zod object and raw shape schemas become JSON Schema, validated by the engine', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('square', { inputSchema: z.object({ n: z.number().int() }), outputSchema: z.object({ sq: z.number() }) }, ({ n }) => ({ sq: n * n }));
  server.registerTool('greet', { inputSchema: { name: z.string(), shout: z.boolean().optional() } }, ({ name, shout }) => (shout ? `HI ${name}` : `hi ${name}`));
  const client = await Client.memory(server);
  const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
  assert.deepEqual(tools.greet.inputSchema.required, ['name']);
  assert.equal(tools.square.inputSchema.properties.n.type, 'integer');
  assert.equal(tools.square.outputSchema.properties.sq.type, 'number');
  const r = await client.callTool({ name: 'square', arguments: { n: 4 } });
  assert.deepEqual(r.structuredContent, { sq: 16 });
  assert.deepEqual(JSON.parse(r.content[0].text), { sq: 16 });
  assert.equal((await client.callTool({ name: 'greet', arguments: { name: 'x', shout: true } })).content[0].text, 'HI x');
  // Arguments the schema refuses: a tool execution error the model can read (SEP-1303).
  const bad = await client.callTool({ name: 'square', arguments: { n: 1.5 } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^Invalid arguments of tool "square":\n- \/n: /);
  await client.close();
});

test('tools: a schema without JSON Schema export is refused at registration', () => {
  const server = new McpServer({ name: 's', version: '1' });
  const opaque = { '~standard': { version: 1, vendor: 'opaque', validate: () => ({ value: 1 }) } };
  assert.throws(() => server.registerTool('t', { inputSchema: opaque }, () => 'x'), /does not export JSON Schema/);
  assert.throws(
    () => server.registerTool('bad', { inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }, () => 'x'),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
  );
});

test('tools: result shapes (content blocks, full results, structured output)', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('image', {}, () => ({ type: 'image', data: 'AAAA', mimeType: 'image/png' }));
  server.registerTool('blocks', {}, () => [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]);
  server.registerTool('full', {}, () => ({ content: [{ type: 'text', text: 'x' }], isError: true }));
  server.registerTool('json', {}, () => ({ a: 1 }));
  server.registerTool('nothing', {}, () => undefined);
  const client = await Client.memory(server);
  assert.equal((await client.callTool({ name: 'image' })).content[0].type, 'image');
  assert.deepEqual((await client.callTool({ name: 'blocks' })).content.map((c) => c.text), ['a', 'b']);
  assert.deepEqual(await client.callTool({ name: 'full' }), { content: [{ type: 'text', text: 'x' }], isError: true });
  assert.deepEqual(await client.callTool({ name: 'json' }), { content: [{ type: 'text', text: '{"a":1}' }] });
  assert.deepEqual(await client.callTool({ name: 'nothing' }), { content: [] });
  await client.close();
});

test('tools: thrown errors are isError results, except URL elicitation required', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('mcp', {}, () => { throw new McpError(-32042, 'need url', { url: 'https://x' }); });
  server.registerTool('invalid', {}, () => { throw new McpError(ErrorCode.InvalidParams, 'bad input'); });
  server.registerTool('plain', {}, async () => { throw new TypeError('bad thing'); });
  server.registerTool('string', {}, () => { throw 'just a string'; });
  const client = await Client.memory(server);
  await assert.rejects(client.callTool({ name: 'mcp' }), (e) => e instanceof McpError && e.code === -32042 && e.data.url === 'https://x' && e.message === 'need url');
  assert.deepEqual(await client.callTool({ name: 'invalid' }), { content: [{ type: 'text', text: 'bad input' }], isError: true });
  assert.deepEqual(await client.callTool({ name: 'plain' }), { content: [{ type: 'text', text: 'bad thing' }], isError: true });
  assert.equal((await client.callTool({ name: 'string' })).isError, true);
  await assert.rejects(client.callTool({ name: 'missing' }), (e) => e.code === ErrorCode.InvalidParams);
  await client.close();
});

test('tools: a result that is not JSON is an internal error, and the session goes on', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('bigint', {}, () => ({ content: [{ type: 'text', text: 10n }] }));
  server.registerTool('ok', {}, () => 'fine');
  const client = await Client.memory(server);
  await assert.rejects(client.callTool({ name: 'bigint' }), (e) => e.code === ErrorCode.InternalError);
  assert.equal((await client.callTool({ name: 'ok' })).content[0].text, 'fine');
  await client.close();
});

test('tools: remove() unregisters and clients see it', async () => {
  const server = demoServer();
  const extra = server.registerTool('extra', {}, () => 'x');
  const client = await Client.memory(server);
  assert.equal((await client.listTools()).tools.length, 2);
  extra.remove();
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['add']);
  await client.close();
});

test('resources: static, templates with variables, bytes, completion', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerResource('readme', 'file:///readme.md', { mimeType: 'text/markdown', description: 'the readme' }, (uri) => `# ${uri.pathname}`);
  server.registerResource('bin', 'mem://bin', {}, () => new Uint8Array([1, 2, 3]));
  server.registerResource(
    'user',
    new ResourceTemplate('users://{id}/profile', { list: undefined, complete: { id: (v) => ['alice', 'bob', 'amy'].filter((x) => x.startsWith(v)) } }),
    { mimeType: 'application/json' },
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: JSON.stringify({ id }) }] }),
  );
  const client = await Client.memory(server);
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(), ['file:///readme.md', 'mem://bin']);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, 'users://{id}/profile');
  assert.deepEqual((await client.readResource({ uri: 'file:///readme.md' })).contents, [
    { uri: 'file:///readme.md', text: '# /readme.md', mimeType: 'text/markdown' },
  ]);
  assert.deepEqual((await client.readResource({ uri: 'mem://bin' })).contents, [
    { uri: 'mem://bin', blob: 'AQID', mimeType: 'application/octet-stream' },
  ]);
  assert.equal((await client.readResource({ uri: 'users://bob/profile' })).contents[0].text, '{"id":"bob"}');
  await assert.rejects(client.readResource({ uri: 'nothing://here' }), (e) => e instanceof McpError);
  const done = await client.complete({ ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'id', value: 'a' } });
  assert.deepEqual(done.completion.values, ['alice', 'amy']);
  await client.close();
});

test('resources: a template list callback is refused instead of ignored', () => {
  assert.throws(() => new ResourceTemplate('x://{a}', { list: () => [] }), /not supported/);
});

test('prompts: argsSchema, string and message results, completable arguments', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerPrompt(
    'review',
    {
      title: 'Review',
      description: 'Reviews code',
      argsSchema: { code: z.string().describe('the code'), lang: completable(z.string().optional(), (v) => ['rust', 'ruby'].filter((l) => l.startsWith(v))) },
    },
    ({ code, lang }) => `Review this ${lang ?? 'code'}: ${code}`,
  );
  server.registerPrompt('multi', {}, () => [
    { role: 'user', content: { type: 'text', text: 'q' } },
    { role: 'assistant', content: { type: 'text', text: 'a' } },
  ]);
  const client = await Client.memory(server);
  const { prompts } = await client.listPrompts();
  const review = prompts.find((p) => p.name === 'review');
  assert.deepEqual(review.arguments, [
    { name: 'code', description: 'the code', required: true },
    { name: 'lang', required: false },
  ]);
  const got = await client.getPrompt({ name: 'review', arguments: { code: 'x()', lang: 'rust' } });
  assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'Review this rust: x()' } }]);
  assert.equal((await client.getPrompt({ name: 'multi' })).messages[1].role, 'assistant');
  await assert.rejects(client.getPrompt({ name: 'review', arguments: {} }), (e) => e.code === ErrorCode.InvalidParams);
  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'lang', value: 'ru' } });
  assert.deepEqual(c.completion.values, ['rust', 'ruby']);
  server.registerCompletion(undefined, undefined, () => Array.from({ length: 150 }, (_, i) => `v${i}`));
  const many = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'code', value: '' } });
  assert.equal(many.completion.values.length, 100);
  assert.equal(many.completion.total, 150);
  assert.equal(many.completion.hasMore, true);
  await client.close();
});

test('config: unknown keys and bad values are rejected with InvalidParams', async () => {
  assert.throws(() => new McpServer({ name: 's', version: '1', bogus: true }), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams && /bogus/.test(e.message));
  assert.throws(() => new McpServer({ version: '1' }), (e) => e instanceof McpError && /name/.test(e.message));
  const server = demoServer();
  await assert.rejects(server.listen({ port: 0, jsonResponce: true }), (e) => e instanceof McpError && /jsonResponce/.test(e.message));
  await assert.rejects(server.listen({ port: 0, maxSessions: 'many' }), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  await assert.rejects(Client.memory(server, { protocolVersion: '1999-01-01' }), (e) => e instanceof McpError && /protocol version/.test(e.message));
});

test('error codes come from the engine table', () => {
  assert.equal(ErrorCode.MethodNotFound, -32601);
  assert.equal(ErrorCode.InvalidParams, -32602);
  assert.equal(ErrorCode.RequestCancelled, -32800);
  assert.equal(Object.isFrozen(ErrorCode), true);
});
