// Tasks the client runs for its server (2025-11-25, handshake era): `{ tasks: true }` declares
// tasks.requests.sampling.createMessage / tasks.requests.elicitation.create for the handlers it
// has, and a server's task-augmented request (params.task) is answered at once with a
// CreateTaskResult while the handler runs as the task; the server reads it with tasks/get and
// waits for the handler's answer with tasks/result. Without the option the client answers in the
// request. The server is a Node one whose `ask` tool does the server's part. Same scenarios as
// bindings-python/tests/test_client_task_receiver.py and
// bindings-swift/Tests/FerroMCPTests/ClientTaskReceiverTests.swift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer } from '../esm/index.mjs';
import { Client as SdkClient } from 'ferromcp/client/index.js';
import { StreamableHTTPClientTransport } from 'ferromcp/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from 'ferromcp/types.js';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const REQUESTS = {
  'sampling/createMessage': { messages: [{ role: 'user', content: { type: 'text', text: 'Hello?' } }], maxTokens: 10 },
  'elicitation/create': { message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};

/**
 * A server whose `ask` tool sends `method` to its client as a task (ttl 60 s), reads the task's
 * state while the client's handler waits, lets the handler answer (`gate.open`), and reports what
 * it saw; a client that made no task has its answer reported as it came.
 */
function server(gate) {
  const s = new McpServer({ name: 'task-asker', version: '1' });
  s.registerTool('ask', { inputSchema: { type: 'object', properties: { method: { type: 'string' } }, required: ['method'] } }, async ({ method }, ctx) => {
    const created = await ctx.sendRequest(method, { ...REQUESTS[method], task: { ttl: 60000 } });
    const declared = ctx.peerCapabilities?.tasks ?? null;
    if (created.task === undefined) return JSON.stringify({ answered: created, declared });
    const taskId = created.task.taskId;
    const whileRunning = await ctx.sendRequest('tasks/get', { taskId });
    gate.open = true;
    const result = await ctx.sendRequest('tasks/result', { taskId });
    const after = await ctx.sendRequest('tasks/get', { taskId });
    return JSON.stringify({
      created: created.task.status,
      while: whileRunning.status,
      result,
      related: result._meta?.[RELATED_TASK]?.taskId === taskId,
      after: after.status,
      declared,
    });
  });
  return s;
}

/** Sampling and elicitation handlers that record the `task` of their params and answer once the server lets them. */
function handlers(gate, seen) {
  const wait = async () => {
    while (!gate.open) await sleep(10);
  };
  return {
    sampling: async (params) => {
      seen.push(params.task);
      await wait();
      return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
    },
    elicitation: async (params) => {
      seen.push(params.task);
      await wait();
      return { action: 'accept', content: { name: 'Ada' } };
    },
  };
}

const report = (r) => JSON.parse(r.content[0].text);

for (const method of ['sampling/createMessage', 'elicitation/create']) {
  test(`a server's task-augmented ${method} runs as a task of the client`, async () => {
    const gate = { open: false };
    const seen = [];
    const client = await Client.memory(server(gate), { tasks: true, ...handlers(gate, seen) });
    let r;
    try {
      r = report(await client.callTool({ name: 'ask', arguments: { method } }));
    } finally {
      await client.close();
    }
    assert.equal(r.created, 'working');
    // The handler was still waiting: the task was working when the server looked.
    assert.equal(r.while, 'working');
    if (method === 'sampling/createMessage') {
      assert.deepEqual(r.result.content, { type: 'text', text: 'sampled' });
    } else {
      assert.equal(r.result.action, 'accept');
      assert.deepEqual(r.result.content, { name: 'Ada' });
    }
    assert.ok(r.related, JSON.stringify(r.result));
    assert.equal(r.after, 'completed');
    assert.deepEqual(r.declared.requests, { sampling: { createMessage: {} }, elicitation: { create: {} } });
    // The handler ran once, its params keeping the server's task.
    assert.deepEqual(seen, [{ ttl: 60000 }]);
  });
}

test('without tasks the client answers in the request', async () => {
  const gate = { open: true }; // answered in the request: nothing to wait for
  const seen = [];
  const client = await Client.memory(server(gate), handlers(gate, seen));
  let r;
  try {
    r = report(await client.callTool({ name: 'ask', arguments: { method: 'sampling/createMessage' } }));
  } finally {
    await client.close();
  }
  assert.deepEqual(r.answered.content, { type: 'text', text: 'sampled' });
  assert.equal(r.declared, null);
  assert.deepEqual(seen, [{ ttl: 60000 }]);
});

// The TypeScript SDK's `Client` turns the same switch on with the capability its users declare:
// `new Client(info, { capabilities: { tasks: { requests: { ... } } }, taskStore })`. Its
// handlers get `(request, extra)` and return their plain result (no `extra.taskStore` here).
for (const declareTasks of [true, false]) {
  test(`the TypeScript SDK's Client ${declareTasks ? 'with' : 'without'} the tasks capability`, async () => {
    const gate = { open: !declareTasks };
    const seen = [];
    const http = await server(gate).listen({ host: '127.0.0.1', port: 0 });
    const tasks = { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } };
    const client = new SdkClient(
      { name: 'sdk-shaped', version: '1' },
      { capabilities: { sampling: {}, elicitation: {}, ...(declareTasks ? { tasks } : {}) } },
    );
    // As handlers() does, but waiting 10 s at most: a client that made no task is waited on by
    // the server in the request, so the gate never opens.
    const wait = async () => {
      for (const end = Date.now() + 10_000; !gate.open && Date.now() < end; ) await sleep(10);
    };
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      seen.push(request.params.task);
      await wait();
      return { role: 'assistant', content: { type: 'text', text: extra.taskStore === undefined ? 'sampled' : 'taskStore' }, model: 'm' };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push(request.params.task);
      await wait();
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const reports = [];
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      for (const method of ['sampling/createMessage', 'elicitation/create']) {
        gate.open = !declareTasks;
        reports.push(report(await client.callTool({ name: 'ask', arguments: { method } })));
      }
    } finally {
      await client.close();
      await http.close();
    }
    const [sampled, elicited] = reports;
    if (declareTasks) {
      for (const r of reports) {
        assert.equal(r.created, 'working');
        assert.equal(r.while, 'working');
        assert.ok(r.related, JSON.stringify(r.result));
        assert.equal(r.after, 'completed');
        assert.deepEqual(r.declared.requests, tasks.requests);
      }
      assert.deepEqual(sampled.result.content, { type: 'text', text: 'sampled' });
      assert.deepEqual(elicited.result.content, { name: 'Ada' });
    } else {
      assert.deepEqual(sampled.answered.content, { type: 'text', text: 'sampled' });
      assert.deepEqual(elicited.answered.content, { name: 'Ada' });
      assert.equal(sampled.declared, null);
    }
    assert.deepEqual(seen, [{ ttl: 60000 }, { ttl: 60000 }]);
  });
}
