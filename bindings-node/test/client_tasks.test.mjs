// The client's task calls (callToolAsTask, getTask, getTaskResult, cancelTask) against a ferromcp
// server over Streamable HTTP, the same code in both eras: protocolMode 'handshake' (2025-11-25
// tasks) and 'perRequest' (2026-07-28, the tasks extension io.modelcontextprotocol/tasks): a task
// made, polled and fetched, input asked inside a task answered by the client's elicitation
// handler, a failed task rejecting with its error, a cancel that stops the tool; and a plain
// callTool the extension server made a task of resolving with the tool's result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ErrorCode, McpError, McpServer } from '../esm/index.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function server(stopped) {
  const s = new McpServer({ name: 'client-tasks', version: '1' }, { tasksExtension: true });
  const task = (name, fn) => s.registerTool(name, { execution: { taskSupport: 'optional' } }, fn);
  task('slow', async (ctx) => {
    const ms = 400;
    const stop = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    if ((await Promise.race([sleep(ms).then(() => 'slept'), stop.then(() => 'stopped')])) === 'stopped') {
      stopped.push('slow');
      throw new McpError(ErrorCode.RequestCancelled, 'cancelled');
    }
    return `slept ${ms} ms`;
  });
  task('forever', async (ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    stopped.push('forever');
    throw new McpError(ErrorCode.RequestCancelled, 'cancelled');
  });
  task('confirm', async (ctx) => {
    await sleep(50);
    const a = await ctx.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `${a.action} ${a.content.name}`;
  });
  task('broken', async () => {
    await sleep(50);
    throw new McpError(ErrorCode.InternalError, 'the backend is down');
  });
  return s;
}

async function withClient(mode, body) {
  const stopped = [];
  const http = await server(stopped).listen({ host: '127.0.0.1', port: 0 });
  const client = await Client.http(http.url, {
    protocolMode: mode,
    elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
  });
  try {
    await body(client, stopped);
  } finally {
    await client.close();
    await http.close();
  }
}

for (const mode of ['handshake', 'perRequest']) {
  test(`task calls, ${mode}`, async () => {
    await withClient(mode, async (c, stopped) => {
      assert.equal(c.protocolVersion, mode === 'perRequest' ? '2026-07-28' : '2025-11-25');
      const { task } = await c.callToolAsTask({ name: 'slow' }, { ttlMs: 60000 });
      assert.equal(task.status, 'working');
      assert.equal(typeof task.ttl, 'number');
      assert.equal(typeof task.pollInterval, 'number');
      assert.equal(task.ttlMs, undefined);
      assert.equal((await c.getTask({ taskId: task.taskId })).status, 'working');
      const r = await c.getTaskResult({ taskId: task.taskId });
      assert.equal(r.content[0].text, 'slept 400 ms');
      assert.equal((await c.getTask({ taskId: task.taskId })).status, 'completed');

      const asked = await c.callToolAsTask({ name: 'confirm' });
      assert.equal((await c.getTaskResult({ taskId: asked.task.taskId })).content[0].text, 'accept Ada');

      // A thrown McpError: with the extension the task ends failed and getTaskResult rejects
      // with it; a 2025-11-25 task keeps the ordinary call's isError result.
      const broken = await c.callToolAsTask({ name: 'broken' });
      if (mode === 'perRequest') {
        await assert.rejects(c.getTaskResult({ taskId: broken.task.taskId }), (e) => e.code === ErrorCode.InternalError && /the backend is down/.test(e.message));
      } else {
        const failed = await c.getTaskResult({ taskId: broken.task.taskId });
        assert.equal(failed.isError, true);
        assert.match(failed.content[0].text, /the backend is down/);
      }

      const long = await c.callToolAsTask({ name: 'forever' });
      await sleep(100);
      assert.equal((await c.cancelTask({ taskId: long.task.taskId })).status, 'cancelled');
      await assert.rejects(c.getTaskResult({ taskId: long.task.taskId }), (e) => e.code === ErrorCode.InvalidParams);
      for (let i = 0; i < 100 && !stopped.includes('forever'); i++) await sleep(20);
      assert.deepEqual(stopped, ['forever']);
    });
  });
}

test('a plain callTool follows the task the extension server made', async () => {
  await withClient('perRequest', async (c) => {
    assert.equal((await c.callTool({ name: 'slow' })).content[0].text, 'slept 400 ms');
    assert.equal((await c.callTool({ name: 'confirm' })).content[0].text, 'accept Ada');
  });
});
