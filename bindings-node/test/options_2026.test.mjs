// The 2026-07-28 server options from JavaScript: caching hints (cacheTtlMs, cacheScope,
// cacheHints), the subscriptions/listen cap (maxListenStreams) and the requestState key ring
// (requestStateKeys, requestStateReplayCapacity) reach the engine, and a bad value throws at
// construction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer, inputRequired } from '../esm/index.mjs';

const K1 = '1f'.repeat(32);
const K2 = 'a0'.repeat(32);
const V = '2026-07-28';
const meta = (caps = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': caps,
  'io.modelcontextprotocol/clientInfo': { name: 'node-test', version: '1.0' },
});
const ASK = { who: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } };

function server(options = {}) {
  const s = new McpServer({ name: 'options', version: '1.0.0' }, options);
  s.registerTool('explicit', { description: 'Asks for a name', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    const answer = ctx.inputResponse('who');
    if (!answer) throw inputRequired(ASK, { n: 1 });
    return answer.content.name;
  });
  s.registerResource('plain', 'mem://plain', { mimeType: 'text/plain' }, () => 'plain');
  return s;
}

/** One 2026-07-28 POST; the JSON-RPC answer (JSON body, or the first SSE message with an id). */
async function post(url, method, params, name) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': method };
  if (name) headers['mcp-name'] = name;
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream')) return r.json();
  const reader = r.body.getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended without an answer');
    buf += new TextDecoder().decode(value);
    for (const line of buf.split('\n')) {
      if (!line.startsWith('data:') || !line.slice(5).trim()) continue;
      const m = JSON.parse(line.slice(5));
      if (m.id !== undefined || m.method === 'notifications/subscriptions/acknowledged') {
        return { message: m, close: () => reader.cancel() };
      }
    }
  }
}

const call = (url, extra = {}) =>
  post(url, 'tools/call', { name: 'explicit', arguments: {}, _meta: meta({ elicitation: {} }), ...extra }, 'explicit').then((a) => a.message ?? a);
const ANSWER = { who: { action: 'accept', content: { name: 'Ada' } } };

test('options 2026: caching hints, server-wide and per method', async () => {
  const s = server({ cacheTtlMs: 60000, cacheScope: 'public', cacheHints: { 'tools/list': { ttlMs: 5, cacheScope: 'private' } } });
  const c = await Client.memory(s, { protocolMode: 'perRequest' });
  try {
    const tools = await c.listTools();
    assert.deepEqual([tools.ttlMs, tools.cacheScope], [5, 'private']);
    const resources = await c.listResources();
    assert.deepEqual([resources.ttlMs, resources.cacheScope], [60000, 'public']);
  } finally {
    await c.close();
  }
  const d = await Client.memory(server(), { protocolMode: 'perRequest' });
  try {
    const tools = await d.listTools();
    assert.deepEqual([tools.ttlMs, tools.cacheScope], [0, 'private']);
  } finally {
    await d.close();
  }
});

test('options 2026: bad values throw at construction', () => {
  for (const [options, says] of [
    [{ cacheScope: 'shared' }, /unknown variant/],
    [{ cacheHints: { 'tools/call': { ttlMs: 1 } } }, /has no cacheable result/],
    [{ requestStateKeys: [{ id: 'k1', secret: 'abcd' }] }, /must be 64 hex digits/],
    [{ requestStateReplayCapacity: 0 }, /must be at least 1/],
    [{ maxListenStreams: 0 }, /maxListenStreams must be at least 1/],
  ]) {
    assert.throws(() => server(options), says, JSON.stringify(options));
  }
});

test('options 2026: maxListenStreams caps the open subscriptions/listen streams', async () => {
  const h = await server({ maxListenStreams: 1 }).listen({ host: '127.0.0.1', port: 0 });
  try {
    const params = { notifications: { toolsListChanged: true }, _meta: meta() };
    const first = await post(h.url, 'subscriptions/listen', params);
    assert.equal(first.message.method, 'notifications/subscriptions/acknowledged');
    const second = await post(h.url, 'subscriptions/listen', params);
    const refused = second.message ?? second;
    second.close?.();
    assert.deepEqual(refused.error.data, { reason: 'tooManyListenStreams', limit: 1 }, JSON.stringify(refused));
    await first.close();
  } finally {
    await h.close();
  }
});

test('options 2026: requestStateKeys is shared between replicas, requestStateReplayCapacity is kept', async () => {
  const a = await server({ requestStateKeys: [{ id: 'k1', secret: K1 }] }).listen({ host: '127.0.0.1', port: 0 });
  const b = await server({ requestStateKeys: [{ id: 'k2', secret: K2 }, { id: 'k1', secret: K1 }] }).listen({ host: '127.0.0.1', port: 0 });
  const c = await server({ requestStateKeys: [{ id: 'k2', secret: K2 }], requestStateReplayCapacity: 1 }).listen({ host: '127.0.0.1', port: 0 });
  try {
    const state = (await call(a.url)).result.requestState;
    assert.equal((await call(c.url, { inputResponses: ANSWER, requestState: state })).error.data.reason, 'tampered');
    assert.equal((await call(b.url, { inputResponses: ANSWER, requestState: state })).result.content[0].text, 'Ada');
    // c remembers one opened token: a second live one cannot be checked for reuse.
    const [s1, s2] = [(await call(c.url)).result.requestState, (await call(c.url)).result.requestState];
    assert.equal((await call(c.url, { inputResponses: ANSWER, requestState: s1 })).result.content[0].text, 'Ada');
    assert.equal((await call(c.url, { inputResponses: ANSWER, requestState: s2 })).error.data.reason, 'overloaded');
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});
