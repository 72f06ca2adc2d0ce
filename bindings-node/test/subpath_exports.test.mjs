// The TypeScript SDK's import paths: `ferromcp/server/mcp.js`, `ferromcp/server/stdio.js` and
// `ferromcp/types.js` (package.json "exports"), from ES modules and CommonJS, and an SDK-style
// stdio server written against them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as root from '../esm/index.mjs';
import { McpServer, ResourceTemplate, completable } from 'ferromcp/server/mcp.js';
import { StdioServerTransport } from 'ferromcp/server/stdio.js';
import * as types from 'ferromcp/types.js';

const require = createRequire(import.meta.url);

test('subpaths: ferromcp/server/mcp.js, server/stdio.js and types.js export the main entry point\'s classes (ESM and CommonJS)', () => {
  assert.equal(McpServer, root.McpServer);
  assert.equal(ResourceTemplate, root.ResourceTemplate);
  assert.equal(completable, root.completable);
  assert.equal(StdioServerTransport, root.StdioServerTransport);
  assert.equal(types.McpError, root.McpError);
  assert.equal(types.ErrorCode, root.ErrorCode);
  assert.equal(require('ferromcp/server/mcp.js').McpServer, root.McpServer, 'one class whichever way it is loaded');
  assert.equal(require('ferromcp/server/stdio.js').StdioServerTransport, root.StdioServerTransport);
  assert.equal(require('ferromcp/types.js').isInitializeRequest, types.isInitializeRequest);
  assert.equal(types.LATEST_PROTOCOL_VERSION, '2025-11-25');
});

test('types.js: isInitializeRequest and the JSON-RPC guards tell messages apart as the SDK\'s do', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
  assert.equal(types.isInitializeRequest(init), true);
  assert.equal(types.isInitializeRequest({ method: 'initialize', params: init.params }), true);
  assert.equal(types.isInitializeRequest({ ...init, method: 'tools/list' }), false);
  assert.equal(types.isInitializeRequest({ ...init, params: { capabilities: {} } }), false);
  assert.equal(types.isInitializeRequest(undefined), false);
  assert.equal(types.isJSONRPCRequest(init), true);
  assert.equal(types.isJSONRPCNotification({ jsonrpc: '2.0', method: 'notifications/initialized' }), true);
  assert.equal(types.isJSONRPCNotification(init), false);
  assert.equal(types.isJSONRPCResultResponse({ jsonrpc: '2.0', id: 1, result: {} }), true);
  assert.equal(types.isJSONRPCErrorResponse({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } }), true);
  assert.equal(types.isJSONRPCErrorResponse({ jsonrpc: '2.0', id: 1, result: {} }), false);
  assert.equal(types.isInitializedNotification({ jsonrpc: '2.0', method: 'notifications/initialized' }), true);
});

test('stdio: an SDK quick-start server using only the SDK import paths serves a client', async () => {
  const server = fileURLToPath(new URL('./fixtures/sdk_style_server.mjs', import.meta.url));
  const client = await root.Client.stdio({ command: process.execPath, args: [server] });
  assert.ok(client.getServerCapabilities().logging);
  const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(r.structuredContent, { result: 5 });
  assert.equal((await client.readResource({ uri: 'greeting://Ada' })).contents[0].text, 'Hello, Ada!');
  await assert.rejects(client.readResource({ uri: 'greeting://nobody' }), (e) => e.code === root.ErrorCode.InvalidParams);
  await client.close();
});
