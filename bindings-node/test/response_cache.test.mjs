// The engine's ResponseCache from Node (`responseCache({ ttlMs, ... })`, or its config object by
// name): scenario names as in core/tests/integration/response_cache.rs and
// bindings-python/tests/test_response_cache.py. The engine does the caching; these prove the
// Node surface reaches it, JavaScript handlers included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, invalidateCache, McpServer, ProtectedResource, responseCache } from '../esm/index.mjs';
import { sleep, freePort } from './helpers.mjs';

function server(...middleware) {
  const counts = { read: 0, call: 0 };
  const s = new McpServer({ name: 'cache', version: '1' }, { middleware });
  s.registerResource('a', 'mem://a', {}, () => `read ${++counts.read}`);
  s.registerTool('forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, ({ city }) => `call ${++counts.call} for ${city}`);
  s.registerTool('roll', {}, () => `roll ${++counts.call}`);
  return { s, counts };
}

const read = async (c, uri) => (await c.readResource({ uri })).contents[0].text;

test('a second list and read within the ttl are hits', async () => {
  const { s, counts } = server(responseCache({ ttlMs: 60000 }));
  const c = await Client.memory(s);
  try {
    assert.equal(await read(c, 'mem://a'), 'read 1');
    assert.equal(await read(c, 'mem://a'), 'read 1');
    assert.equal(counts.read, 1);
    assert.deepEqual(await c.listTools(), await c.listTools());
  } finally {
    await c.close();
  }
});

test('invalidation makes a cached answer fresh', async () => {
  const { s, counts } = server(responseCache({ ttlMs: 60000, tools: ['forecast'] }));
  const c = await Client.memory(s);
  try {
    assert.equal(await read(c, 'mem://a'), 'read 1');
    assert.equal(await read(c, 'mem://a'), 'read 1');
    invalidateCache(s, { uri: 'mem://a' });
    assert.equal(await read(c, 'mem://a'), 'read 2');
    invalidateCache(s, { method: 'resources/read' });
    assert.equal(await read(c, 'mem://a'), 'read 3');
    const first = await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    assert.deepEqual(await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }), first);
    invalidateCache(s);
    assert.notDeepEqual(await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }), first);
    assert.equal(await read(c, 'mem://a'), 'read 4');
    assert.equal(await read(c, 'mem://a'), 'read 4');
    assert.equal(counts.read, 4);
  } finally {
    await c.close();
  }
  assert.throws(() => invalidateCache(s, { method: 'resources/read', uri: 'mem://a' }), { name: 'TypeError', message: /not both/ });
  assert.throws(() => invalidateCache(server().s), { name: 'TypeError', message: /no responseCache middleware/ });
});

test('tool calls are cached only for named tools by arguments', async () => {
  const { s, counts } = server({ name: 'responseCache', ttlMs: 60000, tools: ['forecast'] });
  const c = await Client.memory(s);
  try {
    const first = await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    assert.deepEqual(await c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }), first);
    await c.callTool({ name: 'forecast', arguments: { city: 'Lima' } });
    assert.equal(counts.call, 2);
    const r1 = await c.callTool({ name: 'roll' });
    const r2 = await c.callTool({ name: 'roll' });
    assert.notDeepEqual(r1, r2);
  } finally {
    await c.close();
  }
});

test('entries expire after the ttl', async () => {
  const { s } = server(responseCache({ ttlMs: 300 }));
  const c = await Client.memory(s);
  try {
    const first = await read(c, 'mem://a');
    assert.equal(await read(c, 'mem://a'), first);
    await sleep(500);
    assert.notEqual(await read(c, 'mem://a'), first);
  } finally {
    await c.close();
  }
});

test('list changed and resource updated invalidate', async () => {
  const { s, counts } = server(responseCache({ ttlMs: 60000 }));
  const c = await Client.memory(s);
  try {
    await read(c, 'mem://a');
    s.sendResourceUpdated({ uri: 'mem://a' });
    await read(c, 'mem://a');
    assert.equal(counts.read, 2);
    const before = (await c.listTools()).tools.map((t) => t.name);
    s.registerTool('added', {}, () => 'new');
    const after = (await c.listTools()).tools.map((t) => t.name);
    assert.ok(after.includes('added') && !before.includes('added'), JSON.stringify(after));
  } finally {
    await c.close();
  }
});

test('one session never gets another sessions answer', async () => {
  const { s } = server(responseCache({ ttlMs: 60000 }));
  const [c1, c2] = [await Client.memory(s), await Client.memory(s)];
  try {
    const a1 = await read(c1, 'mem://a');
    const a2 = await read(c2, 'mem://a');
    assert.notEqual(a1, a2);
    assert.equal(await read(c1, 'mem://a'), a1);
  } finally {
    await c1.close();
    await c2.close();
  }
});

/** A free TCP port on 127.0.0.1. */

test('no cross principal leak over http', async () => {
  // The default scope is the principal: over HTTP with verified tokens, alice's two sessions
  // share her cached read, and bob, asking the same thing, never gets her answer.
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = new ProtectedResource({
    resource,
    verify: (token) => ({ subject: `user-${token}`, scopes: [], audience: resource }),
    authorizationServers: ['http://as.example'],
  });
  let reads = 0;
  const s = new McpServer({ name: 'cache', version: '1' }, { middleware: [responseCache({ ttlMs: 60000 })] });
  s.registerResource('a', 'mem://a', {}, (_uri, ctx) => `read ${++reads} for ${ctx.auth?.subject}`);
  const http = await s.listen({ port, auth });
  const as = (who) => Client.http(http.url, { headers: { Authorization: `Bearer ${who}` } });
  try {
    const [alice1, alice2, bob] = [await as('alice'), await as('alice'), await as('bob')];
    const first = await read(alice1, 'mem://a');
    assert.equal(first, 'read 1 for user-alice');
    assert.equal(await read(alice2, 'mem://a'), first, "alice's sessions share her entry");
    assert.equal(await read(bob, 'mem://a'), 'read 2 for user-bob', 'bob never gets hers');
    await Promise.all([alice1.close(), alice2.close(), bob.close()]);
  } finally {
    await http.close();
  }
  assert.equal(reads, 2);
});

test('bad options are refused', () => {
  assert.throws(() => responseCache({ ttlMs: 0 }), /ttlMs must be a number of milliseconds/);
  assert.throws(() => server({ name: 'responseCache', ttlMs: 1000, ttl: 3 }), /unknown field `ttl`/);
});
