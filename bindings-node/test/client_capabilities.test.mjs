// A client declares capabilities beyond what its handlers imply (`capabilities`, deep-merged
// over them: `experimental`, or 2026-07-28's `extensions`), e.g. a host that renders MCP Apps;
// the TypeScript SDK's `Client` passes the `capabilities` it is given the same way. Same
// scenarios as bindings-python/tests/test_client_capabilities.py and
// bindings-swift/Tests/FerroMCPTests/ClientCapabilitiesTests.swift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, clientSupportsUi, McpServer, uiClientCapability } from '../esm/index.mjs';
import { Client as SdkClient } from 'ferromcp/client/index.js';
import { StreamableHTTPClientTransport } from 'ferromcp/client/streamableHttp.js';

function server() {
  const s = new McpServer({ name: 'caps', version: '1' });
  s.registerTool('renders_ui', {}, (ctx) => String(clientSupportsUi(ctx)));
  s.registerTool('declared', {}, (ctx) => JSON.stringify(ctx.peerCapabilities ?? null));
  return s;
}

const text = (r) => r.content[0].text;

for (const protocolMode of ['handshake', 'perRequest']) {
  test(`an MCP Apps host declares the UI extension and the server sees it, ${protocolMode}`, async () => {
    const http = await server().listen({ host: '127.0.0.1', port: 0 });
    const host = await Client.http(http.url, { protocolMode, capabilities: uiClientCapability() });
    const plain = await Client.http(http.url, { protocolMode });
    try {
      assert.equal(text(await host.callTool({ name: 'renders_ui' })), 'true');
      assert.equal(text(await plain.callTool({ name: 'renders_ui' })), 'false');
    } finally {
      await host.close();
      await plain.close();
      await http.close();
    }
  });
}

test('declared capabilities are merged over the ones the handlers imply', async () => {
  const client = await Client.memory(server(), {
    roots: [{ uri: 'file:///w', name: 'w' }],
    capabilities: { experimental: { 'acme/trace': { level: 2 } }, roots: { extra: true } },
  });
  try {
    const declared = JSON.parse(text(await client.callTool({ name: 'declared' })));
    assert.deepEqual(declared.experimental, { 'acme/trace': { level: 2 } });
    // Merged, not replaced: roots keeps listChanged from the handler and gains the extra key.
    assert.deepEqual(declared.roots, { listChanged: true, extra: true });
  } finally {
    await client.close();
  }
});

test('capabilities that are not an object are refused when connecting', async () => {
  await assert.rejects(Client.memory(server(), { capabilities: ['ui'] }), /capabilities must be an object/);
});

test("the TypeScript SDK's Client declares the capabilities it is given", async () => {
  const http = await server().listen({ host: '127.0.0.1', port: 0 });
  const client = new SdkClient({ name: 'host', version: '1' }, { capabilities: { ...uiClientCapability(), experimental: { x: {} } } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    assert.equal(text(await client.callTool({ name: 'renders_ui', arguments: {} })), 'true');
    const declared = JSON.parse(text(await client.callTool({ name: 'declared', arguments: {} })));
    assert.deepEqual(declared.experimental, { x: {} });
  } finally {
    await client.close();
    await http.close();
  }
});
