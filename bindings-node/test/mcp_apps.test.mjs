// MCP Apps (`registerAppResource`, `registerAppTool`, `clientSupportsUi`): the scenarios of
// core/tests/integration/mcp_apps.rs and bindings-python/tests/test_mcp_apps.py from Node. A client
// lists the tool with its `_meta.ui.resourceUri`, reads the `ui://` resource with the app MIME
// type and its `_meta.ui`, and a tool sees whether the client advertised UI support (a raw HTTP
// host declares it; the ferromcp client does not); bad UIs are refused at registration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkUiResourceMeta,
  Client,
  clientSupportsUi,
  McpServer,
  registerAppResource,
  registerAppTool,
  UI_MIME_TYPE,
  uiClientCapability,
} from '../esm/index.mjs';

const HTML = '<!doctype html><html><body><p id=t>weather</p></body></html>';

function server() {
  const s = new McpServer({ name: 'apps', version: '1.0' });
  registerAppResource(
    s,
    'dashboard',
    'ui://weather/dashboard',
    {
      description: 'Weather dashboard',
      _meta: {
        ui: { csp: { connectDomains: ['https://api.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: true },
      },
    },
    HTML,
  );
  registerAppTool(
    s,
    'get_weather',
    { description: 'Weather for a city', _meta: { ui: { resourceUri: 'ui://weather/dashboard' } } },
    (ctx) => (clientSupportsUi(ctx) ? 'ui' : 'text only'),
  );
  registerAppTool(s, 'refresh', { _meta: { ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] } } }, () => 'refreshed');
  return s;
}

function throws(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an exception');
}

test('client lists the tool with its ui resource uri', async () => {
  const c = await Client.memory(server());
  try {
    const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
    assert.deepEqual(tools.get_weather._meta.ui, { resourceUri: 'ui://weather/dashboard' });
    assert.equal(tools.get_weather._meta['ui/resourceUri'], 'ui://weather/dashboard');
    assert.deepEqual(tools.refresh._meta.ui.visibility, ['app']);
  } finally {
    await c.close();
  }
});

test('client reads the ui resource with the app mime type', async () => {
  const c = await Client.memory(server());
  try {
    const [listed] = (await c.listResources()).resources;
    assert.equal(listed.uri, 'ui://weather/dashboard');
    assert.equal(listed.mimeType, UI_MIME_TYPE);
    const [read] = (await c.readResource({ uri: 'ui://weather/dashboard' })).contents;
    assert.equal(read.mimeType, 'text/html;profile=mcp-app');
    assert.equal(read.text, HTML);
    assert.deepEqual(read._meta, {
      ui: { csp: { connectDomains: ['https://api.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: true },
    });
  } finally {
    await c.close();
  }
});

/** A host speaking raw JSON-RPC over HTTP: initialize with `capabilities`, then call the tool. */
async function callAsRawHost(url, capabilities) {
  const post = async (body, session) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await r.text();
    return [text ? JSON.parse(text) : {}, r.headers.get('mcp-session-id')];
  };
  const [, session] = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-host', version: '1' } },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const [answer] = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_weather' } }, session);
  return answer.result.content[0].text;
}

test('a ui whose html a function makes is read with the app mime type', async () => {
  const s = new McpServer({ name: 'apps', version: '1.0' });
  let n = 0;
  const r = registerAppResource(s, 'live', 'ui://weather/live', {}, async () => `<p>${++n}</p>`);
  registerAppResource(s, 'still', 'ui://weather/still', {}, '<p>still</p>');
  const c = await Client.memory(s);
  try {
    for (const want of ['<p>1</p>', '<p>2</p>']) {
      const [read] = (await c.readResource({ uri: 'ui://weather/live' })).contents;
      assert.equal(read.text, want);
      assert.equal(read.mimeType, UI_MIME_TYPE);
    }
    r.remove();
    await assert.rejects(c.readResource({ uri: 'ui://weather/live' }), { code: -32002 });
  } finally {
    await c.close();
  }
});

test('capability check sees a client that advertises ui', async () => {
  const http = await server().listen({ port: 0, jsonResponse: true });
  try {
    assert.equal(await callAsRawHost(http.url, uiClientCapability()), 'ui');
  } finally {
    await http.close();
  }
});

test('capability check sees a client without ui', async () => {
  for (const protocolMode of ['handshake', 'perRequest']) {
    const c = await Client.memory(server(), { protocolMode });
    try {
      const r = await c.callTool({ name: 'get_weather' });
      assert.equal(r.content[0].text, 'text only', protocolMode);
    } finally {
      await c.close();
    }
  }
  const http = await server().listen({ port: 0, jsonResponse: true });
  try {
    assert.equal(await callAsRawHost(http.url, {}), 'text only');
  } finally {
    await http.close();
  }
});

test('non ui uri is refused at registration', () => {
  const s = new McpServer({ name: 'x', version: '1' });
  let e = throws(() => registerAppResource(s, 'u', 'https://a.example/ui', {}, '<p>'));
  assert.match(e.message, /"https:\/\/a.example\/ui" must use the ui:\/\/ scheme/);
  e = throws(() => registerAppResource(s, 'u', 'ui://', {}, '<p>'));
  assert.match(e.message, /nothing after ui:\/\//);
});

test('wrong mime type is refused at registration', () => {
  // A ui:// resource registered by hand (another MIME type) is not a UI a tool may name.
  const s = new McpServer({ name: 'x', version: '1' });
  s.registerResource('page', 'ui://a/b', { mimeType: 'text/html' }, () => '<p>');
  const e = throws(() => registerAppTool(s, 't', { _meta: { ui: { resourceUri: 'ui://a/b' } } }, () => ''));
  assert.match(e.message, /not registered on this server as a UI resource/);
});

test('tool naming an unregistered ui is refused at registration', () => {
  const s = new McpServer({ name: 'x', version: '1' });
  let e = throws(() => registerAppTool(s, 't', { _meta: { ui: { resourceUri: 'ui://missing/view' } } }, () => ''));
  assert.match(e.message, /tool "t" names UI resource "ui:\/\/missing\/view"/);
  e = throws(() => registerAppTool(s, 't', { _meta: { ui: { resourceUri: 'https://x.example' } } }, () => ''));
  assert.match(e.message, /must use the ui:\/\/ scheme/);
});

test('malformed ui meta is refused at registration', () => {
  const s = new McpServer({ name: 'x', version: '1' });
  let e = throws(() => registerAppResource(s, 'b', 'ui://a/b', { _meta: { ui: { csp: { connectDomains: [''] } } } }, '<p>'));
  assert.match(e.message, /connectDomains must be a list of non-empty strings/);
  e = throws(() => registerAppResource(s, 'c', 'ui://a/c', { _meta: { ui: { permissions: { usb: {} } } } }, '<p>'));
  assert.match(e.message, /permissions.usb is not a permission/);
  registerAppResource(s, 'd', 'ui://a/d', {}, '<p>');
  e = throws(() => registerAppTool(s, 't', { _meta: { ui: { resourceUri: 'ui://a/d', visibility: ['user'] } } }, () => ''));
  assert.match(e.message, /visibility must be a non-empty list/);
  e = throws(() => checkUiResourceMeta({ prefersBorder: 'yes' }));
  assert.match(e.message, /prefersBorder must be a boolean/);
});
