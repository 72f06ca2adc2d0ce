// Authorization by a predicate from Node (`allowIf(predicate)`): the scenario of
// core/tests/integration/authorization.rs `a_predicate_decides_from_the_client_identity` and
// bindings-python/tests/test_allow_if.py, and hidden items refused as unknown ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowIf, Client, ErrorCode, McpError, McpServer, ProtectedResource } from '../esm/index.mjs';
import { freePort } from './helpers.mjs';

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

/** A free TCP port on 127.0.0.1. */

test('a predicate reads scopes and session', async () => {
  // Over HTTP with verified tokens: the predicate gets the principal, its scopes and the
  // session, and decides from the scopes (admin items for a token with "admin" only).
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = new ProtectedResource({
    resource,
    verify: (token) => ({ subject: token, scopes: token === 'alice' ? ['admin'] : [], audience: resource }),
    authorizationServers: ['http://as.example'],
  });
  const seen = [];
  const adminScope = (a) => {
    seen.push([a.name, a.principal?.subject, a.scopes, a.sessionId !== undefined && a.sessionKey.includes(a.sessionId)]);
    return !a.name.startsWith('admin_') || a.scopes.includes('admin');
  };
  const http = await server(allowIf(adminScope)).listen({ port, auth });
  try {
    for (const [who, tools] of [['alice', 5], ['bob', 3]]) {
      const c = await Client.http(http.url, { headers: { Authorization: `Bearer ${who}` } });
      assert.equal((await all(c, 'listTools', 'tools', 'name')).length, tools, who);
      await c.close();
    }
  } finally {
    await http.close();
  }
  assert.ok(seen.some((e) => JSON.stringify(e) === JSON.stringify(['admin_reset', 'alice', ['admin'], true])), JSON.stringify(seen));
  assert.ok(seen.some((e) => JSON.stringify(e) === JSON.stringify(['admin_reset', 'bob', [], true])), JSON.stringify(seen));
  assert.ok(seen.every((e) => e[3]), 'every access names its session');
});

test('a predicate must be a function', () => {
  assert.throws(() => allowIf('admin'), /predicate must be a function/);
});

test('allow_if_full_pages', async () => {
  // Hidden items straddle the page size (2): every page but the last is full, each nextCursor
  // leads on, and the predicate is asked about the whole list once per list request.
  const asked = [];
  const s = new McpServer({ name: 'authz', version: '1' }, {
    pageSize: 2,
    middleware: [allowIf((a) => (asked.push(a.name), !a.name.startsWith('admin_')))],
  });
  for (const name of ['a', 'admin_1', 'b', 'admin_2', 'admin_3', 'c', 'd', 'admin_4', 'e']) {
    s.registerTool(name, { description: name }, () => `ran ${name}`);
  }
  const c = await Client.memory(s);
  try {
    const pages = [];
    const cursors = [];
    let cursor;
    do {
      const r = await c.listTools(cursor ? { cursor } : undefined);
      pages.push(r.tools.map((t) => t.name));
      cursor = r.nextCursor;
      cursors.push(cursor);
    } while (cursor);
    assert.deepEqual(pages, [['a', 'b'], ['c', 'd'], ['e']]);
    assert.ok(cursors.slice(0, -1).every((x) => typeof x === 'string'));
    assert.equal(asked.length, 3 * 9);
  } finally {
    await c.close();
  }
});

test('a predicate that throws hides the item', async () => {
  const errors = [];
  const original = console.error;
  console.error = (...args) => errors.push(args.map(String).join(' '));
  const c = await Client.memory(
    server(
      allowIf((a) => {
        if (a.name === 'search') throw new Error('predicate bug');
        return true;
      }),
    ),
  );
  try {
    assert.ok(!(await all(c, 'listTools', 'tools', 'name')).includes('search'));
    const e = await rejects(c.callTool({ name: 'search' }));
    assert.match(e.message, /Unknown tool: search/);
    assert.equal((await c.callTool({ name: 'echo' })).content[0].text, 'ran echo');
    assert.ok(errors.some((m) => m.includes('allowIf predicate failed for tool "search"')), errors.join('\n'));
  } finally {
    console.error = original;
    await c.close();
  }
});

test('allowIf is not called as a layer', () => {
  assert.throws(() => allowIf(() => true)({}, async () => ({})), /allowIf runs in the engine/);
});
