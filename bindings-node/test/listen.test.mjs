// Client.listen (subscriptions/listen, 2026-07-28) against real servers, over Streamable HTTP
// and over a spawned stdio server (fixtures/listen_server.mjs): the subscription gets exactly the
// notifications it asked for, tagged with its id, and nothing reaches the 'notification' event;
// closing it makes the server let go (the server allows one listen stream, so a new listen
// succeeds only once the old one is gone); a handshake-era session gets -32600.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, McpError, Subscription, SUBSCRIPTION_ID_META } from '../esm/index.mjs';
import { listenServer } from './fixtures/listen_server.mjs';
import { sleep } from './helpers.mjs';

const SERVER = fileURLToPath(new URL('./fixtures/listen_server.mjs', import.meta.url));

/** Runs `body(client)` with a client of a fresh server over `transport`, closing both after. */
async function withClient(transport, options, body) {
  if (transport === 'http') {
    const h = await listenServer().listen({ host: '127.0.0.1', port: 0 });
    const c = await Client.http(h.url, options);
    try {
      await body(c);
    } finally {
      await c.close();
      await h.close();
    }
  } else {
    const c = await Client.stdio({ command: process.execPath, args: [SERVER] }, options);
    try {
      await body(c);
    } finally {
      await c.close();
    }
  }
}

/** A new listen, retried while the server still holds the old one (its only slot). */
async function openAgain(c) {
  for (let i = 0; i < 100; i++) {
    try {
      return await c.listen({ toolsListChanged: true });
    } catch (e) {
      assert.equal(e.data?.reason, 'tooManyListenStreams', String(e));
      await sleep(50);
    }
  }
  throw new Error('the server did not let the closed listen go within 5 s');
}

const within = (p, ms) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms))]);

for (const transport of ['http', 'stdio']) {
  test(`listen (${transport}): exactly what was asked for, then the server lets go`, async () => {
    const seen = [];
    await withClient(transport, { protocolMode: 'auto', onNotification: (n) => seen.push(n.method) }, async (c) => {
      assert.equal(c.protocolVersion, '2026-07-28');
      const sub = await c.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
      assert.ok(sub instanceof Subscription);
      assert.ok(typeof sub.id === 'number' || typeof sub.id === 'string', String(sub.id));
      assert.deepEqual(sub.filter, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
      assert.equal(sub.ended, false);
      assert.equal(sub.result, undefined);
      assert.equal(sub.error, undefined);
      // The server's only listen slot is taken.
      await assert.rejects(c.listen({ promptsListChanged: true }), (e) => e instanceof McpError && e.data.reason === 'tooManyListenStreams');

      assert.equal((await c.callTool({ name: 'change' })).content[0].text, 'changed');
      const it = sub[Symbol.asyncIterator]();
      const n1 = (await within(it.next(), 5000)).value;
      const n2 = (await within(it.next(), 5000)).value;
      assert.equal(n1.method, 'notifications/tools/list_changed');
      assert.equal(n2.method, 'notifications/resources/updated');
      assert.equal(n2.params.uri, 'mem://a');
      for (const n of [n1, n2]) assert.equal(n.params._meta[SUBSCRIPTION_ID_META], sub.id);
      // Neither the prompt change nor the other resource's update, nor a copy on the event.
      const extra = it.next();
      await assert.rejects(within(extra, 300), /nothing within/);
      assert.deepEqual(seen, []);

      sub.close();
      assert.deepEqual(await within(extra, 5000), { value: undefined, done: true });
      assert.equal(sub.ended, true);
      assert.equal(sub.error.code, -32800);
      const again = await openAgain(c);
      // Leaving a `for await` (the iterator's return) and `await using` close it too.
      await again[Symbol.asyncIterator]().return();
      assert.equal(again.ended, true);
      await (await openAgain(c))[Symbol.asyncDispose]();
      await openAgain(c).then((s) => s.close());
    });
  });

  test(`listen (${transport}): the handshake era points to subscribeResource`, async () => {
    await withClient(transport, { protocolMode: 'handshake' }, async (c) => {
      await assert.rejects(c.listen({ toolsListChanged: true }), (e) => {
        assert.ok(e instanceof McpError);
        assert.equal(e.code, -32600);
        assert.match(e.message, /subscribe\(\)/);
        return true;
      });
      assert.equal((await c.listAllTools()).length, 1);
    });
  });
}


/** A subscription that ended gracefully: the server answered the listen request with its
 * completion result (2026-07-28 "Graceful Closure") tagged with the subscription's id. */
function assertEndedGracefully(sub) {
  assert.equal(sub.ended, true);
  assert.equal(sub.error, undefined);
  assert.equal(sub.result.resultType, 'complete');
  assert.equal(sub.result._meta[SUBSCRIPTION_ID_META], sub.id);
}
test('listen (stdio): the server stopping ends the subscription gracefully', async () => {
  const c = await Client.stdio({ command: process.execPath, args: [SERVER, '--stop-tool'] }, { protocolMode: 'auto' });
  try {
    assert.equal(c.protocolVersion, '2026-07-28');
    const sub = await c.listen({ toolsListChanged: true });
    const pending = sub.next();
    // The stop tool calls server.close(): its own call is still answered.
    assert.equal((await within(c.callTool({ name: 'stop' }), 10000)).content[0].text, 'stopping');
    assert.equal(await within(pending, 10000), undefined);
    assertEndedGracefully(sub);
  } finally {
    await c.close();
  }
});

test('listen (http): the server shutting down ends the subscription gracefully', async () => {
  const h = await listenServer().listen({ host: '127.0.0.1', port: 0 });
  const c = await Client.http(h.url, { protocolMode: 'auto' });
  try {
    const sub = await c.listen({ toolsListChanged: true });
    const pending = sub.next();
    await within(h.close(), 10000);
    assert.equal(await within(pending, 10000), undefined);
    assertEndedGracefully(sub);
  } finally {
    await c.close();
  }
});
