// A subscription's end keeps the engine's kind of the error (ferromcp_embed::error_json): a
// server's own -32000 ending subscriptions/listen is the general McpError with code -32000,
// not a TransportError (a closed connection has the same code, and another kind).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, McpError, TransportError } from '../esm/index.mjs';

const SERVER = fileURLToPath(new URL('./fixtures/listen_error_server.mjs', import.meta.url));

/** `p`, or a rejection after `ms`. */
function within(p, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

test("listen (stdio): a server's own -32000 ending the subscription is an McpError, not a TransportError", async () => {
  const c = await Client.stdio({ command: process.execPath, args: [SERVER] }, { protocolMode: 'auto' });
  try {
    assert.equal(c.protocolVersion, '2026-07-28');
    const sub = await c.listen({ toolsListChanged: true });
    const pending = sub.next();
    assert.equal((await within(c.callTool({ name: 'stop' }), 10000)).content[0].text, 'stopping');
    assert.equal(await within(pending, 10000), undefined);
    assert.equal(sub.ended, true);
    assert.equal(sub.result, undefined);
    const e = sub.error;
    assert.ok(e instanceof McpError);
    assert.ok(!(e instanceof TransportError), `${e?.name}: ${e?.message}`);
    assert.equal(e.code, -32000);
    assert.equal(e.message, 'the server ends this subscription itself');
    assert.deepEqual(e.data, { why: 'maintenance' });
  } finally {
    await c.close();
  }
});

test('listen (stdio): the server process exiting under a subscription is a TransportError -32000', async () => {
  const c = await Client.stdio({ command: process.execPath, args: [SERVER] }, { protocolMode: 'auto' });
  try {
    const sub = await c.listen({ toolsListChanged: true });
    const pending = sub.next();
    assert.equal((await within(c.callTool({ name: 'exit' }), 10000)).content[0].text, 'exiting');
    assert.equal(await within(pending, 10000), undefined);
    const e = sub.error;
    assert.ok(e instanceof TransportError, `${e?.name} ${e?.code}: ${e?.message}`);
    assert.equal(e.code, -32000);
  } finally {
    await c.close();
  }
});
