// The tasks extension from the client's options and its listen (2026-07-28), against a real
// ferromcp server over Streamable HTTP: listen({ taskIds }) gets the notifications/tasks of a
// task started with callToolAsTask up to its terminal state (an id the server does not run is
// left out of the acknowledgement), and { tasksExtension: false } does not declare the
// extension: the server answers the call itself instead of making a task of it, and refuses a
// listen naming taskIds with -32021.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer, SUBSCRIPTION_ID_META } from '../esm/index.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function serving(body) {
  const s = new McpServer({ name: 'listen-tasks', version: '1' }, { tasksExtension: true });
  const inputSchema = { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] };
  s.registerTool('slow', { inputSchema, execution: { taskSupport: 'optional' } }, async ({ ms }) => {
    await sleep(ms);
    return `slept ${ms} ms`;
  });
  const http = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    await body(http.url);
  } finally {
    await http.close();
  }
}

async function withTimeout(p, ms = 5000) {
  let t;
  const timeout = new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

test('listen({ taskIds }) gets the status notifications of a task', async () => {
  await serving(async (url) => {
    const c = await Client.http(url, { protocolMode: 'perRequest' });
    try {
      const { task } = await c.callToolAsTask({ name: 'slow', arguments: { ms: 600 } });
      assert.ok(!task.taskId.startsWith('ferromcp-local-'), task.taskId);
      const sub = await c.listen({ taskIds: [task.taskId, 'no-such-task'] });
      try {
        // The server agrees to the task it runs only.
        assert.deepEqual(sub.filter, { taskIds: [task.taskId] });
        const statuses = [];
        for (;;) {
          const n = await withTimeout(sub.next());
          assert.ok(n, 'the subscription ended early');
          assert.equal(n.method, 'notifications/tasks');
          assert.equal(n.params.taskId, task.taskId);
          assert.equal(n.params._meta[SUBSCRIPTION_ID_META], sub.id);
          statuses.push(n.params.status);
          if (n.params.status === 'completed') {
            assert.equal(n.params.result.content[0].text, 'slept 600 ms');
            break;
          }
          assert.equal(n.params.status, 'working');
        }
        // The current state first, then the change to the terminal state.
        assert.equal(statuses[0], 'working');
        assert.ok(statuses.length <= 3, statuses.join());
      } finally {
        sub.close();
      }
      assert.equal((await c.getTask({ taskId: task.taskId })).status, 'completed');
    } finally {
      await c.close();
    }
  });
});

test('tasksExtension: false does not declare the extension', async () => {
  await serving(async (url) => {
    const on = await Client.http(url, { protocolMode: 'perRequest' });
    const off = await Client.http(url, { protocolMode: 'perRequest', tasksExtension: false });
    try {
      // Declared (the default): a slow call becomes a task of the server's.
      const made = (await on.callToolAsTask({ name: 'slow', arguments: { ms: 400 } })).task;
      assert.ok(!made.taskId.startsWith('ferromcp-local-'), made.taskId);
      assert.equal(made.status, 'working');

      // Not declared: the server answers the call itself; the client holds that answer as a
      // completed task of its own.
      const held = (await off.callToolAsTask({ name: 'slow', arguments: { ms: 400 } })).task;
      assert.ok(held.taskId.startsWith('ferromcp-local-'), held.taskId);
      assert.equal(held.status, 'completed');
      assert.equal((await off.getTaskResult({ taskId: held.taskId })).content[0].text, 'slept 400 ms');
      assert.equal((await off.callTool({ name: 'slow', arguments: { ms: 300 } })).content[0].text, 'slept 300 ms');

      // A listen naming task ids needs the extension declared (-32021), even for a task the
      // server runs; one without task ids is served as ever.
      await assert.rejects(off.listen({ toolsListChanged: true, taskIds: [made.taskId] }), (e) => e.code === -32021);
      const offSub = await off.listen({ toolsListChanged: true });
      assert.deepEqual(offSub.filter, { toolsListChanged: true });
      offSub.close();
      const onSub = await on.listen({ taskIds: [made.taskId] });
      assert.deepEqual(onSub.filter.taskIds, [made.taskId]);
      onSub.close();
    } finally {
      await on.close();
      await off.close();
    }
  });
});
