// Composition scenarios of core/tests/integration/composition.rs that the other Node tests did
// not have, with its test names (as bindings-python/tests/test_composition_mounts.py has them):
// mounts nested two deep join their prefixes (tools and resource URIs), a mounted server's
// notifications/resources/updated reaches a subscribed client of the parent with the namespaced
// URI (and only for a subscribed URI), and the parent advertises the capabilities of what it
// mounts; then the rest of that file's mount scenarios under its names (listing with the prefix,
// unknown prefixed names, own items first, pages across servers, the mounted server's own
// middleware, an authorization layer of the parent). JavaScript servers and handlers on both sides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Authorization, Client, ErrorCode, McpServer, ResourceTemplate } from '../esm/index.mjs';
import { until } from './helpers.mjs';

/** The weather server: a tool, a static resource, a template, a prompt, a completion. */
function weather() {
  const wx = new McpServer({ name: 'weather', version: '1' });
  wx.registerTool('forecast', { description: 'Forecast.' }, () => 'forecast');
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
  wx.registerCompletion({ type: 'ref/prompt', name: 'report' }, 'city', () => ['Bergen']);
  return wx;
}

function mainServer() {
  const main = new McpServer({ name: 'main', version: '1' });
  main.registerTool('status', { description: 'Status.' }, () => 'ok');
  return main;
}

async function allTools(c) {
  const out = [];
  let cursor;
  do {
    const r = await c.listTools(cursor ? { cursor } : undefined);
    out.push(...r.tools.map((t) => t.name));
    cursor = r.nextCursor;
  } while (cursor);
  return out;
}

test('nested mounts join their prefixes', async () => {
  const inner = new McpServer({ name: 'inner', version: '1' });
  inner.registerTool('deep', { description: 'Deep.' }, () => 'deep');
  inner.registerResource('leaf', 'data://leaf', { description: 'Leaf.' }, () => 'leaf text');
  const middle = new McpServer({ name: 'middle', version: '1' });
  middle.mount('in', inner);
  const main = mainServer();
  main.mount('mid', middle);
  const c = await Client.memory(main);
  try {
    assert.deepEqual(await allTools(c), ['status', 'mid_in_deep']);
    const r = await c.callTool({ name: 'mid_in_deep', arguments: {} });
    assert.equal(r.content[0].text, 'deep');
    assert.deepEqual((await c.listResources()).resources.map((x) => x.uri), ['data://mid/in/leaf']);
    const read = await c.readResource({ uri: 'data://mid/in/leaf' });
    assert.equal(read.contents[0].text, 'leaf text');
    // The contents carry the URI the innermost server gave them (as in Rust).
    assert.equal(read.contents[0].uri, 'data://leaf');
  } finally {
    await c.close();
  }
});

test('resource updates of a mounted server carry the namespaced uri', async () => {
  const main = mainServer();
  const wx = weather();
  main.mount('wx', wx);
  const notes = [];
  const c = await Client.memory(main, { onNotification: (n) => notes.push(n) });
  try {
    await c.subscribeResource({ uri: 'data://wx/stations' });
    // An update of a resource nobody subscribed to is not sent; then the subscribed one is.
    wx.sendResourceUpdated({ uri: 'weather://Oslo/now' });
    wx.sendResourceUpdated({ uri: 'data://stations' });
    await until(() => notes.some((n) => n.method === 'notifications/resources/updated'), 5000, 'resources/updated');
    await c.ping(); // anything still in flight arrives before the answer
    const updated = notes.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params);
    assert.deepEqual(updated, [{ uri: 'data://wx/stations' }], JSON.stringify(notes));
  } finally {
    await c.close();
  }
});

test('the parent advertises what a mounted server offers', async () => {
  const bareClient = await Client.memory(new McpServer({ name: 'empty', version: '1' }));
  const bare = bareClient.getServerCapabilities();
  await bareClient.close();
  const main = new McpServer({ name: 'empty', version: '1' });
  main.mount('wx', weather());
  const c = await Client.memory(main);
  try {
    const caps = c.getServerCapabilities();
    assert.equal(caps.tools?.listChanged, true, JSON.stringify(caps));
    assert.equal(typeof caps.resources, 'object', JSON.stringify(caps));
    assert.equal(typeof caps.prompts, 'object', JSON.stringify(caps));
    assert.equal(typeof caps.completions, 'object', JSON.stringify(caps));
    assert.deepEqual(await allTools(c), ['wx_forecast']);
  } finally {
    await c.close();
  }
  // What the empty server advertises on its own lacks what the mount brought.
  assert.equal(bare.completions, undefined, JSON.stringify(bare));
});

function namedTools(server, ...names) {
  for (const n of names) server.registerTool(n, { description: n }, () => `${n} ran`);
  return server;
}

async function refusal(p) {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

test('mounted tools and prompts are listed with the prefix', async () => {
  const main = mainServer();
  main.mount('weather', weather());
  const c = await Client.memory(main);
  try {
    assert.deepEqual(await allTools(c), ['status', 'weather_forecast']);
    assert.deepEqual((await c.listPrompts()).prompts.map((p) => p.name), ['weather_report']);
  } finally {
    await c.close();
  }
});

test('unknown prefixed names get the unknown errors', async () => {
  const main = mainServer();
  main.mount('wx', weather());
  const c = await Client.memory(main);
  try {
    let e = await refusal(c.callTool({ name: 'wx_nothing', arguments: {} }));
    assert.equal(e.code, ErrorCode.InvalidParams);
    assert.match(e.message, /Unknown tool: wx_nothing/);
    // The mounted server's name without the prefix is not the parent's.
    e = await refusal(c.callTool({ name: 'forecast', arguments: {} }));
    assert.match(e.message, /Unknown tool: forecast/);
    e = await refusal(c.readResource({ uri: 'data://stations' }));
    assert.equal(e.code, -32002);
    e = await refusal(c.getPrompt({ name: 'wx_none', arguments: {} }));
    assert.match(e.message, /Unknown prompt: wx_none/);
  } finally {
    await c.close();
  }
});

test('own items win over mounted ones with the same name', async () => {
  const main = namedTools(new McpServer({ name: 'main', version: '1' }), 'wx_forecast');
  main.mount('wx', weather());
  const c = await Client.memory(main);
  try {
    assert.deepEqual(await allTools(c), ['wx_forecast']);
    const r = await c.callTool({ name: 'wx_forecast', arguments: {} });
    assert.equal(r.content[0].text, 'wx_forecast ran');
  } finally {
    await c.close();
  }
});

test('pages span own and mounted items', async () => {
  const main = namedTools(new McpServer({ name: 'main', version: '1' }, { pageSize: 2 }), 'a', 'b', 'c');
  main.mount('o', namedTools(new McpServer({ name: 'other', version: '1' }, { pageSize: 1 }), 'x', 'y', 'z'));
  const c = await Client.memory(main);
  try {
    assert.equal((await c.listTools()).tools.length, 2);
    assert.deepEqual(await allTools(c), ['a', 'b', 'c', 'o_x', 'o_y', 'o_z']);
  } finally {
    await c.close();
  }
});

test("the mounted server's middleware runs for its items", async () => {
  const wx = namedTools(
    new McpServer({ name: 'weather', version: '1' }, { middleware: [new Authorization([['tool', 'admin_*', ['admin']]])] }),
    'forecast',
    'admin_purge',
  );
  const main = mainServer();
  main.mount('wx', wx);
  const c = await Client.memory(main);
  try {
    assert.deepEqual(await allTools(c), ['status', 'wx_forecast']);
    const e = await refusal(c.callTool({ name: 'wx_admin_purge', arguments: {} }));
    assert.match(e.message, /Unknown tool: wx_admin_purge/);
  } finally {
    await c.close();
  }
});

test('authorization added before the mount sees mounted items', async () => {
  const main = namedTools(
    new McpServer({ name: 'main', version: '1' }, { middleware: [new Authorization([['tool', 'wx_*', ['weather']]])] }),
    'status',
  );
  main.mount('wx', weather());
  const c = await Client.memory(main);
  try {
    assert.deepEqual(await allTools(c), ['status']);
    const e = await refusal(c.callTool({ name: 'wx_forecast', arguments: {} }));
    assert.equal(e.code, ErrorCode.InvalidParams);
  } finally {
    await c.close();
  }
});
