// Protocol revision 2026-07-28 from JavaScript handlers: multi round-trip requests (ctx.input,
// inputRequired, ctx.inputResponse, ctx.requestState), the request's own client capabilities,
// and the same handler code in the handshake era. The 2026-07-28 requests are sent raw with
// fetch, as a per-request-era client sends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ErrorCode, inputRequired, McpError, McpServer } from '../esm/index.mjs';

const V = '2026-07-28';
const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} };
const askName = (key = 'who') => ({
  [key]: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
});

function server() {
  const s = new McpServer({ name: 'mrtr', version: '1' });
  s.registerTool('greet', {}, async (ctx) => {
    const answers = await ctx.input(askName());
    return `Hello, ${answers.who.content.name}!`;
  });
  s.registerTool('explicit', {}, (ctx) => {
    const answer = ctx.inputResponse('who');
    if (answer === undefined) throw inputRequired(askName(), { n: 42 });
    return `${answer.content.name} ${ctx.requestState.n}`;
  });
  s.registerTool('unchanged', {}, async (ctx) => {
    const r = await ctx.elicitInput({ message: 'name?', requestedSchema: { type: 'object', properties: {} } });
    return `action=${r.action}`;
  });
  s.registerTool('needs_sampling', {}, async (ctx) => {
    await ctx.sendRequest('sampling/createMessage', { messages: [], maxTokens: 5 });
    return 'sampled';
  });
  s.registerTool('swallows', {}, async (ctx) => {
    try {
      await ctx.input(askName());
    } catch (e) {
      return `caught ${e.code}`;
    }
    return 'answered';
  });
  s.registerPrompt('framed', { description: 'needs context first' }, (_args, ctx) => {
    const answer = ctx.inputResponse('ctx');
    if (answer === undefined) throw inputRequired(askName('ctx'));
    return `Context: ${answer.content.name}`;
  });
  return s;
}

const meta = (caps) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': caps,
  'io.modelcontextprotocol/clientInfo': { name: 'node-test', version: '1.0' },
});

/** One 2026-07-28 request; resolves with the JSON-RPC answer (JSON body or last SSE message). */
async function post(url, method, params, name) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = text
      .split('\n')
      .filter((l) => l.startsWith('data:') && l.slice(5).trim())
      .map((l) => JSON.parse(l.slice(5)));
    return messages.filter((m) => 'id' in m).at(-1);
  }
  return JSON.parse(text);
}

const call = (url, tool, caps, extra = {}) => post(url, 'tools/call', { name: tool, arguments: {}, _meta: meta(caps), ...extra }, tool);

async function withServer(body) {
  const http = await server().listen({ host: '127.0.0.1', port: 0 });
  try {
    await body(http.url);
  } finally {
    await http.close();
  }
}

test('ctx.input: input_required, then the retry returns the answers', () =>
  withServer(async (url) => {
    const first = (await call(url, 'greet', ALL_CAPS)).result;
    assert.equal(first.resultType, 'input_required');
    assert.equal(first.inputRequests.who.method, 'elicitation/create');
    const retry = await call(url, 'greet', ALL_CAPS, {
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.requestState,
    });
    assert.equal(retry.result.content[0].text, 'Hello, Ada!');
    assert.equal(retry.result.resultType, 'complete');
  }));

test('inputRequired with state: the state comes back sealed; a tampered one is refused', () =>
  withServer(async (url) => {
    const first = (await call(url, 'explicit', ALL_CAPS)).result;
    assert.equal(first.resultType, 'input_required');
    assert.equal(typeof first.requestState, 'string');
    const readable = first.requestState.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1'));
    assert.ok(!readable.some((text) => text.includes('"n":42')), 'the state is not sent in the clear');
    const inputResponses = { who: { action: 'accept', content: { name: 'Bo' } } };
    const retry = await call(url, 'explicit', ALL_CAPS, { inputResponses, requestState: first.requestState });
    assert.equal(retry.result.content[0].text, 'Bo 42');
    const s = first.requestState;
    const tampered = s.slice(0, -2) + (s.endsWith('AA') ? 'BB' : 'AA');
    const refused = await call(url, 'explicit', ALL_CAPS, { inputResponses, requestState: tampered });
    assert.equal(refused.error.code, ErrorCode.InvalidParams);
  }));

test('handler code written for the handshake era asks through input_required', () =>
  withServer(async (url) => {
    const first = (await call(url, 'unchanged', ALL_CAPS)).result;
    assert.equal(first.resultType, 'input_required');
    const [[key, request]] = Object.entries(first.inputRequests);
    assert.equal(request.method, 'elicitation/create');
    const retry = await call(url, 'unchanged', ALL_CAPS, { inputResponses: { [key]: { action: 'decline' } }, requestState: first.requestState });
    assert.equal(retry.result.content[0].text, 'action=decline');
  }));

test('a capability missing from the request _meta is -32021, not an isError result', () =>
  withServer(async (url) => {
    const answer = await call(url, 'needs_sampling', { elicitation: {} });
    assert.equal(answer.error.code, ErrorCode.MissingRequiredClientCapability);
    assert.equal(ErrorCode.MissingRequiredClientCapability, -32021);
  }));

test('a handler that catches the input round still answers input_required', () =>
  withServer(async (url) => {
    const first = (await call(url, 'swallows', ALL_CAPS)).result;
    assert.equal(first.resultType, 'input_required', 'the recorded input request wins over the caught error');
  }));

test('a prompt can ask for input before it is built', () =>
  withServer(async (url) => {
    const params = { name: 'framed', _meta: meta(ALL_CAPS) };
    const first = (await post(url, 'prompts/get', params, 'framed')).result;
    assert.equal(first.resultType, 'input_required');
    const retry = await post(
      url,
      'prompts/get',
      { ...params, inputResponses: { ctx: { action: 'accept', content: { name: 'docs' } } }, requestState: first.requestState },
      'framed',
    );
    assert.equal(retry.result.messages[0].content.text, 'Context: docs');
  }));

test('ctx.input sends the requests in the handshake era', async () => {
  const asked = [];
  const client = await Client.memory(server(), {
    elicitation: async (params) => {
      asked.push(params);
      return { action: 'accept', content: { name: 'Cy' } };
    },
  });
  assert.equal((await client.callTool({ name: 'greet' })).content[0].text, 'Hello, Cy!');
  assert.equal(asked[0].message, 'name?');
  await client.close();
});

test('inputRequired checks its requests; the error table has the 2026-07-28 codes', () => {
  const e = inputRequired(askName(), [1, 2]);
  assert.ok(e instanceof McpError);
  assert.equal(e.code, ErrorCode.InputRequired);
  assert.deepEqual(e.data, { inputRequests: askName(), state: [1, 2] });
  assert.throws(() => inputRequired({}), TypeError);
  assert.throws(() => inputRequired({ k: { params: {} } }), TypeError);
  assert.equal(ErrorCode.HeaderMismatch, -32020);
  assert.equal(ErrorCode.UnsupportedProtocolVersion, -32022);
});
