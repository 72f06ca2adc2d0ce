// The tasks extension io.modelcontextprotocol/tasks (2026-07-28, SEP-2663) from JavaScript:
// `tasksExtension: true` declares it, a tool with `execution: { taskSupport: 'optional' }` called
// by a request that declares it answers a task handle, ctx.input in it parks the task until
// tasks/update answers, tasks/get inlines the result; a thrown McpError ends the task `failed`,
// anything else thrown `completed` with isError (both isError in an ordinary call); a handler
// throwing inputRequired at once keeps its multi round-trip round (no task), every time.
// Requests are sent raw with fetch, as in mrtr.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, inputRequired, McpError, McpServer } from '../esm/index.mjs';

const V = '2026-07-28';
const EXT = 'io.modelcontextprotocol/tasks';
const CAPS = { elicitation: {}, extensions: { [EXT]: {} } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const askName = (key) => ({
  [key]: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
});

function server(declare) {
  const s = new McpServer({ name: 'tasks-ext', version: '1' }, { tasksExtension: declare });
  const task = (name, support, fn) => s.registerTool(name, { execution: { taskSupport: support } }, fn);
  task('slow', 'optional', async () => {
    await sleep(400);
    return 'slept';
  });
  task('ask', 'optional', async (ctx) => {
    const answers = await ctx.input(askName('who'));
    return `Hello, ${answers.who.content.name}!`;
  });
  task('fails_mcp', 'optional', async () => {
    await sleep(50);
    throw new McpError(ErrorCode.InternalError, 'the backend is down');
  });
  task('throws', 'optional', async () => {
    await sleep(50);
    throw new Error('boom');
  });
  task('asks_first', 'required', (ctx) => {
    const answer = ctx.inputResponse('user_name');
    if (answer === undefined) throw inputRequired(askName('user_name'));
    return `Hello, ${answer.content.name}!`;
  });
  return s;
}

/** One 2026-07-28 request with client capabilities `caps`; the JSON-RPC answer. */
async function rpc(url, method, params, caps = CAPS) {
  const body = { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'node-test', version: '1.0' },
  } } };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': method };
  const name = params.name ?? params.taskId;
  if (name !== undefined) headers['mcp-name'] = name;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5)));
    return messages.filter((m) => 'id' in m).at(-1);
  }
  return JSON.parse(text);
}

const call = (url, tool, caps = CAPS, extra = {}) => rpc(url, 'tools/call', { name: tool, arguments: {}, ...extra }, caps);

/** Polls tasks/get until the task's status is `status` or terminal (5 s at most). */
async function waitFor(url, taskId, status) {
  for (let i = 0; i < 250; i++) {
    const t = (await rpc(url, 'tasks/get', { taskId })).result;
    if (t.status === status || ['completed', 'failed', 'cancelled'].includes(t.status)) return t;
    await sleep(20);
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

async function withServer(declare, body) {
  const http = await server(declare).listen({ host: '127.0.0.1', port: 0 });
  try {
    await body(http.url);
  } finally {
    await http.close();
  }
}

test('declared only when asked; a task runs to its inlined result', async () => {
  await withServer(false, async (url) => {
    const found = (await rpc(url, 'server/discover', {})).result;
    assert.equal(found.capabilities.extensions?.[EXT], undefined);
  });
  await withServer(true, async (url) => {
    const found = (await rpc(url, 'server/discover', {})).result;
    assert.deepEqual(found.capabilities.extensions[EXT], {});
    const handle = (await call(url, 'slow')).result;
    assert.equal(handle.resultType, 'task');
    assert.equal(handle.status, 'working');
    const done = await waitFor(url, handle.taskId, 'completed');
    assert.equal(done.status, 'completed');
    assert.equal(done.result.content[0].text, 'slept');
    const plain = (await call(url, 'slow', { elicitation: {} })).result;
    assert.equal(plain.resultType, 'complete');
    assert.equal(plain.taskId, undefined);
  });
});

test('ctx.input parks the task until tasks/update answers', () =>
  withServer(true, async (url) => {
    const { taskId } = (await call(url, 'ask')).result;
    const parked = await waitFor(url, taskId, 'input_required');
    assert.equal(parked.inputRequests.who.method, 'elicitation/create');
    const ack = (await rpc(url, 'tasks/update', { taskId, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } })).result;
    assert.equal(ack.resultType, 'complete');
    const done = await waitFor(url, taskId, 'completed');
    assert.equal(done.result.content[0].text, 'Hello, Ada!');
  }));

test('in a task an McpError fails it and anything else thrown is a tool error', () =>
  withServer(true, async (url) => {
    const failed = await waitFor(url, (await call(url, 'fails_mcp')).result.taskId, 'failed');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, ErrorCode.InternalError);
    assert.equal(failed.error.message, 'the backend is down');
    assert.equal(failed.result, undefined);
    const done = await waitFor(url, (await call(url, 'throws')).result.taskId, 'completed');
    assert.equal(done.status, 'completed');
    assert.equal(done.result.isError, true);
    assert.equal(done.result.content[0].text, 'boom');
    // An ordinary call answers both as tool execution errors, as in 2025-11-25.
    for (const name of ['fails_mcp', 'throws']) {
      const r = (await call(url, name, { elicitation: {} })).result;
      assert.equal(r.isError, true, name);
    }
  }));

test('an immediate inputRequired keeps its multi round-trip round, every time', () =>
  withServer(true, async (url) => {
    for (let round = 0; round < 10; round++) {
      const first = (await call(url, 'asks_first')).result;
      assert.equal(first.resultType, 'input_required', `round ${round}`);
      assert.equal(first.taskId, undefined, `round ${round}`);
      const second = (await call(url, 'asks_first', CAPS, {
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: first.requestState,
      })).result;
      assert.equal(second.resultType, 'task', `round ${round}`);
      const done = await waitFor(url, second.taskId, 'completed');
      assert.equal(done.result.content[0].text, 'Hello, Alice!');
    }
  }));
