// The handler context: progress, logging, requests back to the client, metadata.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer, McpError, ErrorCode } from '../esm/index.mjs';

function server() {
  const s = new McpServer({ name: 'ctx', version: '1' });
  s.registerTool('progress', {}, async (ctx) => {
    await ctx.reportProgress(1, 2, 'half');
    await ctx.reportProgress(2, 2);
    return String(ctx.progressToken ?? 'none');
  });
  s.registerTool('log', {}, async (ctx) => {
    await ctx.debug('quiet');
    await ctx.warning({ detail: 'loud' }, 'tests');
    return 'logged';
  });
  s.registerTool('ask', {}, async (ctx) => {
    const r = await ctx.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return r.action === 'accept' ? `hello ${r.content.name}` : r.action;
  });
  s.registerTool('sample', {}, async (ctx) => {
    const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
    return `${r.model}: ${r.content.text}`;
  });
  s.registerTool('roots', {}, async (ctx) => (await ctx.listRoots()).map((r) => r.uri).join(','));
  s.registerTool('meta', {}, (ctx) => JSON.stringify({ id: ctx.requestId, meta: ctx._meta, v: ctx.protocolVersion, peer: ctx.peerInfo.name, caps: Object.keys(ctx.peerCapabilities ?? {}).sort() }));
  s.registerTool('v2', {}, async (ctx) => {
    await ctx.mcpReq.log('info', 'via mcpReq');
    const r = await ctx.mcpReq.elicitInput({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
    return `${ctx.mcpReq.id === ctx.requestId} ${ctx.mcpReq.signal === ctx.signal} ${r.action}`;
  });
  s.registerTool('notify', {}, async (ctx) => {
    await ctx.sendNotification('notifications/custom', { x: 1 });
    await ctx.sendNotification({ method: 'notifications/custom', params: { x: 2 } });
    return 'sent';
  });
  return s;
}

test('progress reaches the caller and only when asked for', async () => {
  const client = await Client.memory(server());
  const seen = [];
  const r = await client.callTool({ name: 'progress' }, { onprogress: (p) => seen.push(p) });
  assert.deepEqual(seen.map((p) => [p.progress, p.total, p.message]), [[1, 2, 'half'], [2, 2, undefined]]);
  assert.notEqual(r.content[0].text, 'none');
  assert.equal((await client.callTool({ name: 'progress' })).content[0].text, 'none');
  await client.close();
});

test('logging honours the client level; notifications arrive as events and as an iterator', async () => {
  const client = await Client.memory(server());
  const events = [];
  client.on('notification', (n) => events.push(n));
  const it = client.notifications();
  await client.setLoggingLevel('info');
  await client.callTool({ name: 'log' });
  await client.callTool({ name: 'notify' });
  const first = await it.next();
  assert.equal(first.value.method, 'notifications/message');
  assert.deepEqual(first.value.params, { level: 'warning', logger: 'tests', data: { detail: 'loud' } });
  const second = await it.next();
  assert.deepEqual(second.value, { method: 'notifications/custom', params: { x: 1 } });
  assert.deepEqual((await it.next()).value, { method: 'notifications/custom', params: { x: 2 } });
  assert.equal(events.filter((e) => e.method === 'notifications/message').length, 1, 'debug is filtered out at level info');
  await client.close();
  assert.equal((await it.next()).done, true, 'the iterator ends when the client closes');
});

test('elicitation, sampling and roots go to the client handlers', async () => {
  const client = await Client.memory(server(), {
    elicitation: async (params) => ({ action: 'accept', content: { name: params.message === 'Name?' ? 'Ada' : '?' } }),
    sampling: async (params) => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: `${params.maxTokens}` } }),
    roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }],
  });
  assert.equal((await client.callTool({ name: 'ask' })).content[0].text, 'hello Ada');
  assert.equal((await client.callTool({ name: 'sample' })).content[0].text, 'test-model: 10');
  assert.equal((await client.callTool({ name: 'roots' })).content[0].text, 'file:///a,file:///b');
  await client.close();
});

test('without the capability, ctx requests fail inside the handler (an isError result)', async () => {
  const client = await Client.memory(server());
  const r = await client.callTool({ name: 'ask' });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /did not declare the elicitation capability/);
  await client.close();
});

test('a client handler that throws answers the server with an error', async () => {
  const client = await Client.memory(server(), {
    sampling: () => { throw new McpError(ErrorCode.InvalidRequest, 'no sampling today'); },
  });
  const r = await client.callTool({ name: 'sample' });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /no sampling today/);
  await client.close();
});

test('the SDK v2 names: ctx.mcpReq, ProtocolError', async () => {
  const { ProtocolError, ProtocolErrorCode } = await import('../esm/index.mjs');
  assert.equal(ProtocolError, McpError);
  assert.equal(ProtocolErrorCode.InvalidParams, ErrorCode.InvalidParams);
  const client = await Client.memory(server(), { elicitation: () => ({ action: 'decline' }) });
  const logs = [];
  client.on('notification', (n) => n.method === 'notifications/message' && logs.push(n.params.data));
  assert.equal((await client.callTool({ name: 'v2' })).content[0].text, 'true true decline');
  assert.deepEqual(logs, ['via mcpReq']);
  await client.close();
});

test('request metadata: id, _meta, protocol version, peer info and capabilities', async () => {
  const client = await Client.memory(server(), { name: 'meta-client', roots: [] });
  const r = await client.callTool({ name: 'meta', _meta: { trace: 'abc' } });
  const m = JSON.parse(r.content[0].text);
  assert.equal(typeof m.id, 'number');
  assert.deepEqual(m.meta, { trace: 'abc' });
  assert.equal(m.v, client.protocolVersion);
  assert.equal(m.peer, 'meta-client');
  assert.deepEqual(m.caps, ['roots']);
  await client.close();
});
