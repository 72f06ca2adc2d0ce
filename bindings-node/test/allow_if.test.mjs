// Authorization by a predicate from Node (`allowIf(predicate)`): the scenario of
// core/tests/integration/authorization.rs `a_predicate_decides_from_the_client_identity` and
// bindings-python/tests/test_allow_if.py, and hidden items refused as unknown ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowIf, Client, ErrorCode, McpError, McpServer } from '../esm/index.mjs';

const opsOnly = (a) =>
  !(a.name.startsWith('admin_') || a.name.startsWith('secret://')) || a.context.requestContext.peerInfo?.name === 'ops-console';

function server(...middleware) {
  const s = new McpServer({ name: 'authz', version: '1' }, { middleware, pageSize: 2 });
  for (const name of ['admin_reset', 'echo', 'admin_delete', 'search', 'time']) {
    s.registerTool(name, { description: name }, () => `ran ${name}`);
  }
  s.registerResource('keys', 'secret://keys', {}, () => 'k');
  s.registerResource('readme', 'public://readme', {}, () => 'r');
  s.registerPrompt('admin_report', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'report' } }] }));
  return s;
}

async function all(c, list, field, key) {
  const out = [];
  let cursor;
  do {
    const r = await c[list](cursor ? { cursor } : undefined);
    out.push(...r[field].map((i) => i[key]));
    cursor = r.nextCursor;
  } while (cursor);
  return out;
}

async function rejects(p) {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

test('a predicate decides from the client identity', async () => {
  const s = server(allowIf(opsOnly));
  const plain = await Client.memory(s);
  const ops = await Client.memory(s, { name: 'ops-console' });
  try {
    assert.deepEqual(await all(plain, 'listTools', 'tools', 'name'), ['echo', 'search', 'time']);
    assert.deepEqual(await all(plain, 'listResources', 'resources', 'uri'), ['public://readme']);
    assert.deepEqual(await all(plain, 'listPrompts', 'prompts', 'name'), []);
    assert.equal((await all(ops, 'listTools', 'tools', 'name')).length, 5);
    const r = await ops.callTool({ name: 'admin_reset' });
    assert.equal(r.content[0].text, 'ran admin_reset');
  } finally {
    await plain.close();
    await ops.close();
  }
});

test('hidden items are refused as unknown ones', async () => {
  const c = await Client.memory(server(allowIf(opsOnly)));
  try {
    let e = await rejects(c.callTool({ name: 'admin_reset' }));
    assert.ok(e instanceof McpError);
    assert.equal(e.code, ErrorCode.InvalidParams);
    assert.match(e.message, /Unknown tool: admin_reset/);
    e = await rejects(c.readResource({ uri: 'secret://keys' }));
    assert.equal(e.code, -32002);
    assert.match(e.message, /Resource not found: secret:\/\/keys/);
    e = await rejects(c.getPrompt({ name: 'admin_report' }));
    assert.match(e.message, /Unknown prompt: admin_report/);
    assert.equal((await c.callTool({ name: 'echo' })).content[0].text, 'ran echo');
  } finally {
    await c.close();
  }
});

test('a predicate must be a function', () => {
  assert.throws(() => allowIf('admin'), /predicate must be a function/);
});
