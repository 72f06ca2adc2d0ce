// Middleware layers see the client's notifications (issue 37 point 1): a layer given as an
// object or class instance `{ onRequest?, onNotification }` is shown each notification the
// client sends (not those the engine consumes: initialized, cancelled, progress), in order, and
// the notification is always handed on after it, whatever the layer does or throws. The name of
// the first test is that of bindings-python/tests/test_middleware.py's test for
// Middleware.on_notification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer } from '../esm/index.mjs';
import { until } from './helpers.mjs';

function server(...layers) {
  const s = new McpServer({ name: 'mw', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echoes.' }, () => 'echoed');
  s.use(...layers);
  return s;
}

test('a middleware class observes client notifications', async () => {
  class Notes {
    seen = [];
    onNotification(ctx, next) {
      this.seen.push(ctx); // `this` is the instance
      return next();
    }
  }
  const notes = new Notes();
  const c = await Client.memory(server(notes));
  try {
    await c.notification({ method: 'notifications/roots/list_changed' });
    await c.notification({ method: 'example.com/custom', params: { x: 1 } });
    await until(() => notes.seen.some((n) => n.method === 'example.com/custom'), 5000, 'the custom notification');
    // Requests pass the layer (it has no onRequest) untouched.
    const r = await c.callTool({ name: 'echo', arguments: {} });
    assert.equal(r.content[0].text, 'echoed');
  } finally {
    await c.close();
  }
  assert.deepEqual(
    notes.seen.map((n) => n.method),
    ['notifications/roots/list_changed', 'example.com/custom'],
  );
  assert.deepEqual(notes.seen[1].params, { x: 1 });
  assert.ok(notes.seen[1].sessionKey.startsWith('conn-'), notes.seen[1].sessionKey);
  assert.equal(notes.seen[1].sessionId, undefined);
});

test('a notification is handed on after a layer, whatever it throws', async () => {
  const order = [];
  const errors = [];
  const original = console.error;
  console.error = (...a) => errors.push(a.map(String).join(' '));
  const outer = {
    onNotification: async (n) => {
      order.push(`outer ${n.method}`);
      throw new Error('outer failed');
    },
  };
  const middle = {
    onNotification: (n) => {
      order.push(`middle ${n.method}`);
      throw new Error('middle failed');
    },
  };
  const requests = [];
  const inner = {
    onRequest: async (ctx, next) => {
      requests.push(ctx.method);
      return next();
    },
    onNotification: (n, next) => {
      order.push(`inner ${n.method}`);
      return next();
    },
  };
  const c = await Client.memory(server(outer, middle, inner));
  try {
    for (const i of [1, 2, 3]) await c.notification({ method: `example.com/n${i}`, params: { i } });
    await until(() => order.length === 9, 5000, 'nine observations');
    const r = await c.callTool({ name: 'echo', arguments: {} });
    assert.equal(r.content[0].text, 'echoed');
  } finally {
    console.error = original;
    await c.close();
  }
  // Each layer saw every notification, in the order sent; the inner one saw each too, though
  // the outer ones threw (their failures are printed, not fatal).
  for (const who of ['outer', 'middle', 'inner']) {
    assert.deepEqual(
      order.filter((o) => o.startsWith(who)),
      [1, 2, 3].map((i) => `${who} example.com/n${i}`),
    );
  }
  assert.ok(errors.some((e) => e.includes('outer failed')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('middle failed')), errors.join('\n'));
  // onRequest of an object layer sees the requests as a function layer does.
  assert.ok(requests.includes('tools/call'), requests.join(','));
});

test('a layer object is checked when added', () => {
  assert.throws(() => server({ onNotification: 'no' }), /onNotification must be a function/);
  assert.throws(() => server({ onRequest: 1 }), /onRequest must be a function/);
  assert.throws(() => server({ onRequest: undefined }), /give onRequest, onNotification or both/);
});
