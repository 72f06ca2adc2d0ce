// supportedVersions: the protocol revisions a server speaks. A server of 2026-07-28 only
// refuses initialize with -32022 (HTTP 400) naming what it speaks and still serves per-request
// calls; a server without 2026-07-28 refuses a per-request request with -32022 (2026-07-28,
// versioning) and still serves handshake clients; a bad list throws at construction. The
// requests are sent raw over Streamable HTTP, as each era's client sends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer } from '../esm/index.mjs';

const KNOWN = '"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"';
const meta = () => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'node-test', version: '1.0' },
});

function server(supportedVersions) {
  const s = new McpServer({ name: 'versions', version: '1.0.0' }, { supportedVersions });
  s.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo: ${args.text}`);
  return s;
}

/** One POST; the HTTP status and the JSON-RPC answer (JSON body or last SSE message). */
async function post(url, body, version) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (version) {
    headers['mcp-protocol-version'] = version;
    headers['mcp-method'] = body.method;
    if (body.params?.name) headers['mcp-name'] = body.params.name;
  }
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  let text = await r.text();
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    text = text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => l.slice(5)).at(-1);
  }
  return [r.status, JSON.parse(text)];
}

const initialize = (asked) => ({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'node-test', version: '1.0' } },
});
const perRequest = (method, params = {}) => ({ jsonrpc: '2.0', id: 2, method, params: { ...params, _meta: meta() } });
const echo = perRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });

test('supportedVersions: 2026-07-28 only refuses initialize and serves per-request calls', async () => {
  const h = await server(['2026-07-28']).listen({ host: '127.0.0.1', port: 0 });
  try {
    for (const asked of ['2025-11-25', '2024-11-05']) {
      const [status, answer] = await post(h.url, initialize(asked), undefined);
      assert.equal(status, 400, JSON.stringify(answer));
      assert.equal(answer.error.code, -32022);
      assert.deepEqual(answer.error.data, { supported: ['2026-07-28'], requested: asked });
    }
    let [status, answer] = await post(h.url, perRequest('server/discover'), '2026-07-28');
    assert.equal(status, 200, JSON.stringify(answer));
    assert.deepEqual(answer.result.supportedVersions, ['2026-07-28']);
    [status, answer] = await post(h.url, echo, '2026-07-28');
    assert.equal(status, 200, JSON.stringify(answer));
    assert.deepEqual(answer.result.content, [{ type: 'text', text: 'echo: hi' }]);
  } finally {
    await h.close();
  }
});

test('supportedVersions: without 2026-07-28 a per-request call is refused, handshakes are served', async () => {
  const h = await server(['2025-11-25', '2025-06-18']).listen({ host: '127.0.0.1', port: 0 });
  try {
    for (const req of [echo, perRequest('server/discover')]) {
      const [status, answer] = await post(h.url, req, '2026-07-28');
      assert.equal(status, 400, JSON.stringify(answer));
      assert.equal(answer.id, 2);
      assert.equal(answer.error.code, -32022);
      assert.deepEqual(answer.error.data, { supported: ['2025-11-25', '2025-06-18'], requested: '2026-07-28' });
    }
    const [status, answer] = await post(h.url, initialize('2025-11-25'), undefined);
    assert.equal(status, 200, JSON.stringify(answer));
    assert.equal(answer.result.protocolVersion, '2025-11-25');
    const c = await Client.http(h.url);
    try {
      assert.equal(c.protocolVersion, '2025-11-25');
      assert.deepEqual((await c.callTool({ name: 'echo', arguments: { text: 'hi' } })).content, [{ type: 'text', text: 'echo: hi' }]);
    } finally {
      await c.close();
    }
  } finally {
    await h.close();
  }
});

test('supportedVersions: an empty list or an unknown revision throws at construction', () => {
  assert.throws(() => server(['2025-11-25', '2026-01-01']), { message: new RegExp(`unknown protocol revision "2026-01-01" \\(known: ${KNOWN}\\)`) });
  assert.throws(() => server([]), { message: new RegExp(`supportedVersions must name at least one revision \\(known: ${KNOWN}\\)`) });
});
