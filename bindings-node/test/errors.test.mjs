// Which error class a client sees: an error the server answered with keeps its code and is an
// McpError whatever the code (a server's own -32000 is not a closed connection); a connection
// that really closes is a TransportError with code ConnectionClosed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, McpError, McpServer, ErrorCode, TransportError } from '../esm/index.mjs';

const index = new URL('../esm/index.mjs', import.meta.url).href;

test("a server's own -32000 is an McpError, a closed connection a TransportError", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferromcp-errors-'));
  const script = join(dir, 'server.mjs');
  writeFileSync(script, `
    import { McpServer, McpError } from ${JSON.stringify(index)};
    const server = new McpServer({ name: 'minus-32000', version: '1.0.0' });
    server.registerPrompt('refuses', {}, () => { throw new McpError(-32000, 'the server says no', { why: 'busy' }); });
    server.registerPrompt('dies', {}, () => process.exit(0));
    await server.connectStdio();
  `);
  const client = await Client.stdio({ command: process.execPath, args: [script] });
  try {
    const refused = await client.getPrompt({ name: 'refuses' }).then(() => undefined, (e) => e);
    assert.ok(refused instanceof McpError, String(refused));
    assert.ok(!(refused instanceof TransportError), `a peer's answer, not a closed connection: ${refused}`);
    assert.equal(refused.code, -32000);
    assert.equal(refused.data.why, 'busy');
    assert.match(refused.message, /the server says no/);
    await assert.rejects(client.getPrompt({ name: 'dies' }), (e) => e instanceof TransportError && e.code === ErrorCode.ConnectionClosed);
  } finally {
    await client.close();
  }
});

test('in process: a handler throwing -32000 reaches the client as an McpError', async () => {
  const server = new McpServer({ name: 'memory', version: '1.0.0' });
  server.registerPrompt('refuses', {}, () => { throw new McpError(ErrorCode.ConnectionClosed, 'not mine to close'); });
  const client = await Client.memory(server);
  try {
    await assert.rejects(client.getPrompt({ name: 'refuses' }), (e) => e instanceof McpError && !(e instanceof TransportError) && e.code === -32000);
  } finally {
    await client.close();
  }
});
