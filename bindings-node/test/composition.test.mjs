// Authorization, composition and tool transforms (issue 37 points 3-5) from Node:
// `Authorization` as a middleware layer, `McpServer.mount` / `importServer`,
// `McpServer.transformTool` and `addTransformedTool` (a transform's JSON form). Scenario names
// as in bindings-python/tests/test_composition.py (and core/tests/integration/authorization.rs,
// composition.rs, tool_transform.rs): the engine does the work; these prove the Node surface
// reaches it, JavaScript handlers included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Authorization, Client, ErrorCode, McpError, McpServer, ProtectedResource, ResourceTemplate } from '../esm/index.mjs';
import { until } from './helpers.mjs';

const names = (r) => r.tools.map((t) => t.name);

async function allTools(c) {
  const out = [];
  let cursor;
  do {
    const r = await c.listTools(cursor ? { cursor } : undefined);
    out.push(...names(r));
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

function throws(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an exception');
}

const TOOLS = ['admin_reset', 'echo', 'admin_delete', 'search', 'admin_grant', 'time'];

function authzServer(...layers) {
  const s = new McpServer({ name: 'authz', version: '1' }, { pageSize: 2, middleware: layers });
  for (const n of TOOLS) s.registerTool(n, { description: n }, () => `ran ${n}`);
  s.registerResource('keys', 'secret://keys', {}, () => 'k');
  s.registerResource('readme', 'public://readme', {}, () => 'r');
  s.registerPrompt('admin_report', {}, () => 'report');
  return s;
}

const admin = () =>
  new Authorization([
    ['tool', 'admin_*', ['admin']],
    ['resource', 'secret://*', ['secrets']],
  ]).requireScopes('prompt', 'admin_*', ['admin']);

test('hidden tools are absent from tools/list', async () => {
  const c = await Client.memory(authzServer(admin()));
  assert.deepEqual(await allTools(c), ['echo', 'search', 'time']);
  await c.close();
});

test('pages stay full and cursors valid when items are hidden', async () => {
  const c = await Client.memory(authzServer(admin()));
  const first = await c.listTools();
  assert.deepEqual(names(first), ['echo', 'search']);
  const second = await c.listTools({ cursor: first.nextCursor });
  assert.deepEqual(names(second), ['time']);
  assert.equal(second.nextCursor, undefined);
  await c.close();
});

test('a hidden tool is refused as an unknown one', async () => {
  const c = await Client.memory(authzServer(admin()));
  const hidden = await rejects(c.callTool({ name: 'admin_delete', arguments: {} }));
  const missing = await rejects(c.callTool({ name: 'admin_nothing', arguments: {} }));
  assert.ok(hidden instanceof McpError);
  assert.equal(hidden.code, ErrorCode.InvalidParams);
  assert.match(hidden.message, /Unknown tool: admin_delete/);
  assert.match(missing.message, /Unknown tool: admin_nothing/);
  assert.deepEqual(hidden.data, { tool: 'admin_delete' });
  const r = await c.callTool({ name: 'echo', arguments: {} });
  assert.equal(r.content[0].text, 'ran echo');
  await c.close();
});

test('hidden resources, templates and prompts are absent and refused', async () => {
  const c = await Client.memory(authzServer(admin()));
  const r = await c.listResources();
  assert.deepEqual(
    r.resources.map((x) => x.uri),
    ['public://readme'],
  );
  const e = await rejects(c.readResource({ uri: 'secret://keys' }));
  assert.equal(e.code, -32002);
  assert.deepEqual((await c.listPrompts()).prompts, []);
  const p = await rejects(c.getPrompt({ name: 'admin_report', arguments: {} }));
  assert.equal(p.code, ErrorCode.InvalidParams);
  await c.close();
});

test('scopes of the bearer token decide over http', async () => {
  const portServer = createServer();
  const port = await new Promise((resolve) => portServer.listen(0, '127.0.0.1', () => resolve(portServer.address().port)));
  await new Promise((r) => portServer.close(r));
  const resource = `http://127.0.0.1:${port}/mcp`;
  // Token "alice" holds the admin scope, "bob" none.
  const auth = new ProtectedResource({
    resource,
    verify: (token) => ({ subject: token, scopes: token === 'alice' ? ['admin'] : [], audience: [resource] }),
    authorizationServers: ['http://as.example'],
  });
  const http = await authzServer(admin()).listen({ port, auth });
  try {
    for (const [token, expected] of [
      ['alice', TOOLS],
      ['bob', ['echo', 'search', 'time']],
    ]) {
      const c = await Client.http(http.url, { headers: { Authorization: `Bearer ${token}` } });
      assert.deepEqual(await allTools(c), expected, token);
      if (token === 'alice') {
        const r = await c.callTool({ name: 'admin_delete', arguments: {} });
        assert.equal(r.content[0].text, 'ran admin_delete');
      } else {
        const e = await rejects(c.callTool({ name: 'admin_delete', arguments: {} }));
        assert.equal(e.code, ErrorCode.InvalidParams);
        assert.equal(e.message, 'Unknown tool: admin_delete');
      }
      await c.close();
    }
  } finally {
    await http.close();
  }
});

test('deny unmatched hides items no rule names', async () => {
  // One rule, needing no scope, names echo; everything else matches no rule and is hidden.
  const c = await Client.memory(authzServer(new Authorization([['tool', 'echo', []]], { denyUnmatched: true })));
  assert.deepEqual(await allTools(c), ['echo']);
  assert.deepEqual((await c.listPrompts()).prompts, []);
  assert.deepEqual((await c.listResources()).resources, []);
  assert.equal((await c.callTool({ name: 'echo', arguments: {} })).content[0].text, 'ran echo');
  const e = await rejects(c.callTool({ name: 'search', arguments: {} }));
  assert.equal(e.code, ErrorCode.InvalidParams);
  assert.match(e.message, /Unknown tool: search/);
  await c.close();
});

test('the layer is configured by name from JSON', async () => {
  const config = { name: 'authorization', rules: [{ kind: 'tool', pattern: '*e*', scopes: ['x'] }] };
  const c = await Client.memory(authzServer(config));
  // Every tool whose name holds an "e" needs scope x, which an anonymous caller lacks.
  assert.deepEqual(
    await allTools(c),
    TOOLS.filter((n) => !n.includes('e')),
  );
  await c.close();
  const a = admin();
  assert.equal(a.name, 'authorization');
  assert.equal(a.rules.length, 3);
  assert.equal(a.denyUnmatched, false);
  assert.ok(throws(() => new Authorization([['table', '*', []]])) instanceof TypeError);
  assert.ok(throws(() => new Authorization().requireScopes('tool', '*', 'admin')) instanceof TypeError);
  const bad = throws(() => new McpServer({ name: 'x', version: '1' }, { middleware: [{ name: 'authorization', rules: [{ kind: 'tool' }] }] }));
  assert.ok(bad instanceof McpError);
  assert.equal(bad.code, ErrorCode.InvalidParams);
});

function weather() {
  const wx = new McpServer({ name: 'weather', version: '1' });
  wx.registerTool(
    'forecast',
    {
      description: 'Forecast.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
    },
    async ({ city, days = 1 }) => {
      await new Promise((r) => setImmediate(r));
      return `${city} for ${days} days`;
    },
  );
  wx.registerResource('stations', 'data://stations', { description: 'Stations.' }, () => 'Oslo, Lima');
  wx.registerResource(
    'now',
    new ResourceTemplate('weather://{city}/now', { list: undefined }),
    { description: 'Now.' },
    (_uri, { city }) => `sunny in ${city}`,
  );
  wx.registerPrompt(
    'report',
    { description: 'Report.', argsSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    ({ city }) => `report for ${city}`,
  );
  return wx;
}

function mainServer() {
  const main = new McpServer({ name: 'main', version: '1' });
  main.registerTool('status', { description: 'Status.' }, () => 'ok');
  return main;
}

test('calls, reads and gets reach the mounted server', async () => {
  const main = mainServer();
  main.mount('wx', weather());
  const c = await Client.memory(main);
  assert.deepEqual(await allTools(c), ['status', 'wx_forecast']);
  let r = await c.callTool({ name: 'wx_forecast', arguments: { city: 'Oslo', days: 3 } });
  assert.equal(r.content[0].text, 'Oslo for 3 days');
  assert.deepEqual(
    (await c.listResources()).resources.map((x) => x.uri),
    ['data://wx/stations'],
  );
  assert.deepEqual(
    (await c.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate),
    ['weather://wx/{city}/now'],
  );
  const read = await c.readResource({ uri: 'weather://wx/Lima/now' });
  assert.equal(read.contents[0].text, 'sunny in Lima');
  const p = await c.getPrompt({ name: 'wx_report', arguments: { city: 'Bergen' } });
  assert.equal(p.messages[0].content.text, 'report for Bergen');
  const e = await rejects(c.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }));
  assert.equal(e.code, ErrorCode.InvalidParams);
  await c.close();
});

test('mounted resources and templates are listed with namespaced uris', async () => {
  const main = mainServer();
  main.mount('wx', weather());
  const c = await Client.memory(main);
  const resources = await c.listResources();
  assert.deepEqual(resources.resources.map((x) => x.uri), ['data://wx/stations']);
  assert.equal(resources.nextCursor, undefined);
  const templates = await c.listResourceTemplates();
  assert.deepEqual(templates.resourceTemplates.map((x) => x.uriTemplate), ['weather://wx/{city}/now']);
  assert.equal(templates.nextCursor, undefined);
  await c.close();
});

test('completions are routed to the mounted server', async () => {
  const wx = weather();
  wx.registerCompletion({ type: 'ref/resource', uri: 'weather://{city}/now' }, 'city', () => ['Oslo', 'Lima']);
  wx.registerCompletion({ type: 'ref/prompt', name: 'report' }, 'city', async () => ['Bergen']);
  const main = mainServer();
  main.mount('wx', wx);
  const c = await Client.memory(main);
  let r = await c.complete({ ref: { type: 'ref/resource', uri: 'weather://wx/{city}/now' }, argument: { name: 'city', value: '' } });
  assert.deepEqual(r.completion.values, ['Oslo', 'Lima']);
  r = await c.complete({ ref: { type: 'ref/prompt', name: 'wx_report' }, argument: { name: 'city', value: '' } });
  assert.deepEqual(r.completion.values, ['Bergen']);
  await c.close();
});

test('tools added to a mounted server later show up', async () => {
  const main = mainServer();
  const wx = weather();
  main.mount('wx', wx);
  const notes = [];
  const c = await Client.memory(main, { onNotification: (n) => notes.push(n.method) });
  await c.listTools();
  wx.registerTool('radar', { description: 'Radar.' }, () => 'radar');
  await until(() => notes.includes('notifications/tools/list_changed'), 5000, 'tools/list_changed');
  assert.deepEqual(await allTools(c), ['status', 'wx_forecast', 'wx_radar']);
  const r = await c.callTool({ name: 'wx_radar', arguments: {} });
  assert.equal(r.content[0].text, 'radar');
  await c.close();
});

test('imported items are copied once', async () => {
  const main = mainServer();
  const wx = weather();
  main.importServer('wx', wx);
  wx.registerTool('later', { description: 'Later.' }, () => 'later');
  const c = await Client.memory(main);
  assert.deepEqual(await allTools(c), ['status', 'wx_forecast']);
  const r = await c.callTool({ name: 'wx_forecast', arguments: { city: 'Lima' } });
  assert.equal(r.content[0].text, 'Lima for 1 days');
  const read = await c.readResource({ uri: 'data://wx/stations' });
  assert.equal(read.contents[0].text, 'Oslo, Lima');
  await c.close();
});

test('bad mounts are refused', async () => {
  const main = mainServer();
  const slash = throws(() => main.mount('a/b', weather()));
  assert.ok(slash instanceof McpError);
  assert.equal(slash.code, ErrorCode.InvalidParams);
  const self = throws(() => main.mount('me', main));
  assert.equal(self.code, ErrorCode.InvalidParams);
});

function searchServer() {
  const s = new McpServer({ name: 't', version: '1' });
  s.registerTool(
    'search',
    {
      description: 'Search an index.',
      inputSchema: {
        type: 'object',
        properties: { q: { type: 'string' }, index: { type: 'string' }, limit: { type: 'integer' } },
        required: ['q', 'index'],
      },
    },
    ({ q, index, limit = 2 }) => ({
      structuredContent: { args: { q, index, limit }, hits: Array.from({ length: limit }, (_, i) => `hit ${i}`) },
      content: [{ type: 'text', text: 'hits' }],
    }),
  );
  return s;
}

test('a transformed tool has the new name and description', async () => {
  const s = searchServer();
  s.transformTool('search', 'find', { title: 'Find', description: 'Find documents.' });
  const c = await Client.memory(s);
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.equal(tools.find.description, 'Find documents.');
  assert.equal(tools.find.title, 'Find');
  assert.deepEqual(tools.find.inputSchema, tools.search.inputSchema);
  // The original stays until removed.
  assert.equal(tools.search.description, 'Search an index.');
  await c.close();
});

test('a default makes an argument optional', async () => {
  const s = searchServer();
  s.transformTool('search', 'quick', { arguments: { index: { default: 'main' } } });
  const c = await Client.memory(s);
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.deepEqual(tools.quick.inputSchema.required, ['q']);
  assert.equal(tools.quick.inputSchema.properties.index.default, 'main');
  let r = await c.callTool({ name: 'quick', arguments: { q: 'x' } });
  assert.equal(r.structuredContent.args.index, 'main');
  r = await c.callTool({ name: 'quick', arguments: { q: 'x', index: 'other' } });
  assert.equal(r.structuredContent.args.index, 'other');
  await c.close();
});

test('renamed arguments reach the original under their old names', async () => {
  const s = searchServer();
  s.transformTool('search', 'find', {
    description: 'Find documents.',
    arguments: { q: { name: 'query', description: 'What to look for.' } },
  });
  const c = await Client.memory(s);
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.equal(tools.find.description, 'Find documents.');
  assert.equal(tools.find.inputSchema.properties.query.description, 'What to look for.');
  assert.equal(tools.find.inputSchema.properties.q, undefined);
  const r = await c.callTool({ name: 'find', arguments: { query: 'rust', index: 'docs' } });
  assert.deepEqual(r.structuredContent.args, { q: 'rust', index: 'docs', limit: 2 });
  await c.close();
});

test('the original can be removed and the transform still works', async () => {
  const s = new McpServer({ name: 't', version: '1' });
  const original = s.registerTool(
    'search',
    { inputSchema: { type: 'object', properties: { q: { type: 'string' }, index: { type: 'string' } }, required: ['q', 'index'] } },
    ({ q, index }) => ({ structuredContent: { args: { q, index } }, content: [{ type: 'text', text: 'hits' }] }),
  );
  s.transformTool('search', 'find', { arguments: { q: { name: 'query' } } });
  original.remove();
  const c = await Client.memory(s);
  assert.deepEqual(names(await c.listTools()), ['find']);
  const r = await c.callTool({ name: 'find', arguments: { query: 'a', index: 'b' } });
  assert.equal(r.isError, undefined, JSON.stringify(r));
  assert.deepEqual(r.structuredContent.args, { q: 'a', index: 'b' });
  // The original itself is gone.
  const e = await rejects(c.callTool({ name: 'search', arguments: { q: 'a', index: 'b' } }));
  assert.equal(e.code, ErrorCode.InvalidParams);
  await c.close();
});

test('a hidden argument is absent from the schema and always given', async () => {
  const s = searchServer();
  s.transformTool('search', 'search_docs', { arguments: { index: { hide: true, default: 'docs' } } });
  const c = await Client.memory(s);
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.equal(tools.search_docs.inputSchema.properties.index, undefined);
  const r = await c.callTool({ name: 'search_docs', arguments: { q: 'x' } });
  assert.equal(r.structuredContent.args.index, 'docs');
  await c.close();
  const e = throws(() => s.transformTool('search', 'nodefault', { arguments: { index: { hide: true } } }));
  assert.equal(e.code, ErrorCode.InvalidParams);
  assert.match(e.message, /needs a default/);
});

test('a constraint refuses values the original would accept', async () => {
  const s = searchServer();
  s.transformTool('search', 'small_search', { arguments: { limit: { constraints: { maximum: 3 }, default: 1 } } });
  const c = await Client.memory(s);
  let r = await c.callTool({ name: 'small_search', arguments: { q: 'x', index: 'd', limit: 10 } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /Invalid arguments/);
  r = await c.callTool({ name: 'small_search', arguments: { q: 'x', index: 'd' } });
  assert.equal(r.structuredContent.args.limit, 1);
  await c.close();
});

test('reshaped output is validated against the new schema', async () => {
  const s = searchServer();
  const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
  s.transformTool('search', 'count', { transformOutput: (out) => ({ count: out.hits.length }), outputSchema: schema });
  s.transformTool('search', 'broken', { transformOutput: () => ({ count: 'many' }), outputSchema: schema });
  s.transformTool('search', 'throws', {
    transformOutput: () => {
      throw new Error('cannot count');
    },
  });
  const c = await Client.memory(s);
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.deepEqual(tools.count.outputSchema, schema);
  const r = await c.callTool({ name: 'count', arguments: { q: 'x', index: 'd', limit: 3 } });
  assert.deepEqual(r.structuredContent, { count: 3 });
  const broken = await rejects(c.callTool({ name: 'broken', arguments: { q: 'x', index: 'd' } }));
  assert.equal(broken.code, ErrorCode.InternalError);
  const thrown = await rejects(c.callTool({ name: 'throws', arguments: { q: 'x', index: 'd' } }));
  assert.equal(thrown.code, ErrorCode.InternalError);
  assert.match(thrown.message, /transformOutput of tool "throws" failed: cannot count/);
  await c.close();
  const alone = throws(() => s.transformTool('search', 'schema_only', { outputSchema: schema }));
  assert.equal(alone.code, ErrorCode.InvalidParams);
});

test('an McpError thrown by transformOutput reaches the client with its code', async () => {
  const s = searchServer();
  s.transformTool('search', 'count', {
    transformOutput: () => {
      throw new McpError(-32004, 'too many hits to count', { limit: 5 });
    },
  });
  const c = await Client.memory(s);
  const e = await rejects(c.callTool({ name: 'count', arguments: { q: 'x', index: 'd', limit: 6 } }));
  assert.ok(e instanceof McpError);
  assert.equal(e.code, -32004);
  assert.equal(e.message, 'too many hits to count');
  assert.deepEqual(e.data, { limit: 5 });
  await c.close();
});

test('transforms naming missing or clashing arguments are refused', () => {
  const s = searchServer();
  const a = throws(() => s.transformTool('search', 'a', { arguments: { nope: { name: 'x' } } }));
  assert.ok(a instanceof McpError);
  assert.equal(a.code, ErrorCode.InvalidParams);
  assert.match(a.message, /no argument/);
  assert.match(throws(() => s.transformTool('search', 'b', { arguments: { q: { name: 'index' } } })).message, /would be called/);
  assert.match(throws(() => s.transformTool('missing', 'c')).message, /no tool/);
});

test('a transformed tool of a mounted server is served through the mount', async () => {
  const s = searchServer();
  s.transformTool('search', 'count', { transformOutput: (out) => ({ count: out.hits.length }) });
  const main = mainServer();
  main.mount('docs', s);
  const c = await Client.memory(main);
  assert.deepEqual(await allTools(c), ['status', 'docs_search', 'docs_count']);
  const r = await c.callTool({ name: 'docs_count', arguments: { q: 'x', index: 'd', limit: 4 } });
  assert.deepEqual(r.structuredContent, { count: 4 });
  await c.close();
});

test('a transformOutput that returns a promise is refused', async () => {
  const s = searchServer();
  s.transformTool('search', 'later', { transformOutput: async (out) => ({ count: out.hits.length }) });
  const c = await Client.memory(s);
  const e = await rejects(c.callTool({ name: 'later', arguments: { q: 'x', index: 'd' } }));
  assert.equal(e.code, ErrorCode.InternalError);
  assert.match(e.message, /transformOutput of tool "later" failed: it returned a promise/);
  await c.close();
  assert.ok(throws(() => s.transformTool('search', 'bad', { transformOutput: 'nope' })) instanceof TypeError);
});

test('a transform is read from its JSON form', async () => {
  const s = searchServer();
  s.addTransformedTool('search', {
    name: 'find',
    description: 'Find documents.',
    arguments: {
      q: { name: 'query', description: 'What to look for.' },
      index: { hide: true, default: 'docs' },
      limit: { default: 2, constraints: { maximum: 3 } },
    },
  });
  const c = await Client.memory(s);
  const find = (await c.listTools()).tools.find((t) => t.name === 'find');
  assert.equal(find.description, 'Find documents.');
  assert.deepEqual(find.inputSchema.required, ['query']);
  assert.equal(find.inputSchema.properties.limit.maximum, 3);
  const r = await c.callTool({ name: 'find', arguments: { query: 'a' } });
  assert.deepEqual(r.structuredContent.args, { q: 'a', index: 'docs', limit: 2 });
  await c.close();
  for (const [bad, why] of [
    [{ name: 'x', arguments: { index: { hide: true } } }, /needs a default/],
    [{ name: 'x', renamed: {} }, /unknown field/],
  ]) {
    const e = throws(() => s.addTransformedTool('search', bad));
    assert.ok(e instanceof McpError, String(e));
    assert.equal(e.code, ErrorCode.InvalidParams);
    assert.match(e.message, why);
  }
});
