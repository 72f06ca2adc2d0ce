// Middleware (issue 37): `server.use((ctx, next) => ...)`, the `middleware` option and the
// engine's built-ins by name (rateLimit, requestLog, maskErrors, timing). Scenario names are
// those of core/tests/integration/middleware*.rs and embed/tests/integration/middleware.rs where the scenario is the same.
// In process (Client.memory), then over stdio and Streamable HTTP (test/fixtures/
// middleware_server.mjs) with the engine's client and the official TypeScript SDK client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  ErrorCode,
  ProtectedResource,
  maskErrors,
  McpError,
  McpServer,
  MiddlewareContext,
  rateLimit,
  requestLog,
  timing,
} from '../esm/index.mjs';
import { Server } from 'ferromcp/server/index.js';
import { sleep, until, freePort } from './helpers.mjs';

const fixture = fileURLToPath(new URL('./fixtures/middleware_server.mjs', import.meta.url));
const SDK = new URL('../../tests/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const haveSdk = existsSync(fileURLToPath(SDK));

/** A server with a tool `echo`, a resource and a prompt, and `layers` (outermost first). */
function server(...layers) {
  const s = new McpServer({ name: 'mw', version: '1.0.0' });
  s.registerTool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' }, fail: { type: 'boolean' } } } },
    ({ text, fail }) => {
      if (fail) throw new Error('the tool failed');
      return text ?? 'echoed';
    },
  );
  s.registerResource('readme', 'mem://readme', {}, () => 'read me');
  s.registerPrompt('greet', {}, () => 'hello');
  s.use(...layers);
  return s;
}

const text = (r) => r.content[0].text;
const isMcpError = (code, message) => (e) => {
  assert.ok(e instanceof McpError, `an McpError, not ${e}`);
  assert.equal(e.code, code);
  if (message !== undefined) assert.equal(e.message, message);
  return true;
};

test('middleware sees every method', async () => {
  const seen = [];
  let context;
  const s = server(async (ctx, next) => {
    assert.ok(ctx instanceof MiddlewareContext);
    seen.push(ctx.method);
    if (ctx.tool === 'echo') context = { id: ctx.id, tool: ctx.tool, params: ctx.params, sessionKey: ctx.sessionKey, protocolVersion: ctx.protocolVersion, headers: ctx.httpHeaders, signal: ctx.requestContext.signal.aborted };
    return next();
  });
  s.registerCompletion({ type: 'ref/prompt', name: 'greet' }, 'name', () => ['one']);
  const c = await Client.memory(s);
  await c.listTools();
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
  await c.listResources();
  await c.listResourceTemplates();
  assert.equal((await c.readResource({ uri: 'mem://readme' })).contents[0].text, 'read me');
  await c.listPrompts();
  await c.getPrompt({ name: 'greet' });
  const done = await c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'o' } });
  assert.deepEqual(done.completion.values, ['one']);
  await c.request('logging/setLevel', { level: 'info' });
  // An unknown method reaches the chain too (and is refused by the dispatch).
  await assert.rejects(c.request('example.com/nope', {}), isMcpError(ErrorCode.MethodNotFound));
  // ping is the session's own answer and never reaches the server.
  await c.ping();
  await c.close();
  assert.deepEqual(seen, [
    'initialize', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list',
    'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
    'example.com/nope',
  ]);
  assert.equal(context.tool, 'echo');
  assert.deepEqual(context.params.arguments, { text: 'hi' });
  assert.ok(typeof context.id === 'number' || typeof context.id === 'string');
  assert.ok(context.sessionKey.length > 0, 'a session key');
  assert.equal(context.protocolVersion, '2025-11-25');
  assert.equal(context.headers, undefined, 'no HTTP headers in memory');
  assert.equal(context.signal, false);
});

test('per request era calls go through the chain', async () => {
  // A 2026-07-28 client (no handshake; every request carries its revision in _meta): the layer
  // sees each request with that revision, and its change of the result reaches the client.
  const seen = [];
  const s = server(async (ctx, next) => {
    seen.push([ctx.method, ctx.protocolVersion]);
    const r = await next();
    if (ctx.method !== 'tools/call') return r;
    return { ...r, content: [{ type: 'text', text: `stamped ${r.content[0].text}` }] };
  });
  const c = await Client.memory(s, { protocolVersion: '2026-07-28' });
  assert.equal(c.protocolVersion, '2026-07-28');
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'stamped hi');
  await c.listTools();
  await c.close();
  assert.deepEqual(seen.filter(([m]) => m === 'tools/call' || m === 'tools/list'), [
    ['tools/call', '2026-07-28'],
    ['tools/list', '2026-07-28'],
  ]);
  assert.ok(!seen.some(([m]) => m === 'initialize'), 'no handshake in this era');
});

test('input required rounds work through the chain', async () => {
  // 2026-07-28: a handler's ctx.input round passes the layer twice: first next() rejects with
  // the input round (the layer hands it on), then the client's retry, carrying inputResponses,
  // reaches the handler. (Cancellation through the chain: 'a cancelled request aborts ...'.)
  const rounds = [];
  const s = server(async (ctx, next) => {
    if (ctx.method !== 'tools/call') return next();
    const answered = 'inputResponses' in (ctx.params ?? {});
    try {
      const r = await next();
      rounds.push([answered, text(r)]);
      return r;
    } catch (e) {
      rounds.push([answered, e instanceof McpError && e.code === ErrorCode.InputRequired ? 'InputRequired' : String(e)]);
      throw e;
    }
  });
  const schema = { type: 'object', properties: { name: { type: 'string' } } };
  s.registerTool('ask', {}, async (ctx) => {
    const a = await ctx.input({ who: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: schema } } });
    return `Hello, ${a.who.content.name}!`;
  });
  const c = await Client.memory(s, { protocolVersion: '2026-07-28', elicitation: async () => ({ action: 'accept', content: { name: 'Di' } }) });
  assert.equal(text(await c.callTool({ name: 'ask' })), 'Hello, Di!');
  await c.close();
  assert.deepEqual(rounds, [[false, 'InputRequired'], [true, 'Hello, Di!']]);
});

test('layers run in order, the first outermost', async () => {
  const order = [];
  const layer = (name) => async (ctx, next) => {
    if (ctx.method !== 'tools/call') return next();
    order.push(`${name} in`);
    const r = await next();
    order.push(`${name} out`);
    return r;
  };
  const s = new McpServer({ name: 'mw', version: '1' }, { middleware: [layer('a')] });
  s.registerTool('echo', {}, () => 'echoed');
  s.use(layer('b')).use(layer('c'));
  const c = await Client.memory(s);
  await c.callTool({ name: 'echo' });
  await c.close();
  assert.deepEqual(order, ['a in', 'b in', 'c in', 'c out', 'b out', 'a out']);
});

test('a layer answers, refuses and changes request and result', async () => {
  let toolRan = 0;
  const s = server((ctx, next) => {
    // A plain (not async) function: an answer, a throw, or next()'s promise.
    if (ctx.tool === 'echo' && ctx.params.arguments?.text === 'short') return { content: [{ type: 'text', text: 'answered by the layer' }] };
    if (ctx.tool === 'echo' && ctx.params.arguments?.text === 'refused') throw new McpError(-32003, 'Permission denied', { who: 'nobody' });
    if (ctx.tool === 'echo') {
      ctx.params = { ...ctx.params, arguments: { text: ctx.params.arguments.text.toUpperCase() } };
      return next().then((r) => ({ ...r, content: [{ type: 'text', text: `${text(r)}!` }] }));
    }
    return next();
  });
  s.registerTool('count', {}, () => String(++toolRan));
  const c = await Client.memory(s);
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'short' } })), 'answered by the layer');
  await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'refused' } }), (e) => {
    isMcpError(-32003, 'Permission denied')(e);
    assert.deepEqual(e.data, { who: 'nobody' });
    return true;
  });
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'quiet' } })), 'QUIET!');
  assert.equal(text(await c.callTool({ name: 'count' })), '1');
  await c.close();
});

test('a layer changes the method', async () => {
  const s = server(async (ctx, next) => {
    if (ctx.tool === 'list-them') {
      ctx.method = 'tools/list';
      ctx.params = null;
    }
    return next();
  });
  const c = await Client.memory(s);
  const r = await c.request('tools/call', { name: 'list-them', arguments: {} });
  assert.equal(r.tools[0].name, 'echo');
  await c.close();
});

test('next() rejects with the McpError the rest of the chain answered, which a layer may turn into a result', async () => {
  const s = server(
    async (ctx, next) => {
      try {
        return await next();
      } catch (e) {
        assert.ok(e instanceof McpError);
        return { content: [{ type: 'text', text: `caught ${e.code} ${e.message}` }] };
      }
    },
    (ctx, next) => {
      if (ctx.method === 'tools/call') throw new McpError(-32003, 'inner refusal');
      return next();
    },
  );
  const c = await Client.memory(s);
  assert.equal(text(await c.callTool({ name: 'echo' })), 'caught -32003 inner refusal');
  await c.close();
});

test('an exception that is not an McpError answers Internal error, never a crash', async () => {
  const logged = [];
  const original = console.error;
  console.error = (...a) => logged.push(a.map(String).join(' '));
  try {
    const s = server(
      async function thrower(ctx, next) {
        if (ctx.tool !== 'echo') return next();
        const how = ctx.params.arguments?.text;
        if (how === 'sync') throw new TypeError('secret detail at db.js:12');
        if (how === 'string') throw 'a string'; // eslint-disable-line no-throw-literal
        if (how === 'undefined') return undefined;
        if (how === 'array') return [1];
        await sleep(1);
        throw new RangeError('async secret');
      },
    );
    const c = await Client.memory(s);
    for (const how of ['sync', 'string', 'async']) {
      await assert.rejects(c.callTool({ name: 'echo', arguments: { text: how } }), (e) => {
        isMcpError(ErrorCode.InternalError, 'Internal error')(e);
        assert.equal(e.data, undefined);
        return true;
      });
    }
    for (const [how, says] of [['undefined', 'returned undefined'], ['array', 'returned an array']]) {
      await assert.rejects(c.callTool({ name: 'echo', arguments: { text: how } }), (e) => {
        isMcpError(ErrorCode.InternalError)(e);
        assert.match(e.message, new RegExp(`middleware thrower ${says}, not a result object`));
        return true;
      });
    }
    await c.ping();
    await c.close();
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 3, logged.join('\n'));
  assert.match(logged[0], /middleware thrower failed.*secret detail at db\.js:12/);
  assert.match(logged[2], /async secret/);
});

test('a cancelled request aborts the layer\'s signal and the handler\'s; next() then rejects', async () => {
  let layerSignal;
  let nextRejected;
  let toolAborted = false;
  const s = server(async (ctx, next) => {
    if (ctx.tool !== 'wait') return next();
    layerSignal = ctx.requestContext.signal;
    try {
      return await next();
    } catch (e) {
      nextRejected = e;
      throw e;
    }
  });
  s.registerTool('wait', {}, (ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => {
      toolAborted = true;
      reject(new Error('aborted'));
    });
  }));
  const c = await Client.memory(s);
  const controller = new AbortController();
  const pending = c.callTool({ name: 'wait' }, { signal: controller.signal });
  await until(() => layerSignal !== undefined, 2000, 'the layer to run');
  controller.abort();
  await assert.rejects(pending);
  await until(() => layerSignal.aborted && toolAborted && nextRejected !== undefined, 2000, 'the aborts');
  assert.ok(nextRejected instanceof McpError, String(nextRejected));
  assert.equal(nextRejected.code, ErrorCode.RequestCancelled);
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'after' } })), 'after');
  await c.close();
});

test('a later layer\'s own -32800 passes through a layer without aborting it', async () => {
  let layerSignal;
  let nextRejected;
  const outer = async (ctx, next) => {
    if (ctx.tool !== 'echo') return next();
    layerSignal = ctx.requestContext.signal;
    try {
      return await next();
    } catch (e) {
      nextRejected = e;
      throw e;
    }
  };
  const inner = (ctx, next) => {
    if (ctx.tool === 'echo') throw new McpError(ErrorCode.RequestCancelled, 'the layer gave up by itself');
    return next();
  };
  const c = await Client.memory(server(outer, inner));
  await assert.rejects(c.callTool({ name: 'echo' }), isMcpError(ErrorCode.RequestCancelled, 'the layer gave up by itself'));
  assert.ok(nextRejected instanceof McpError, String(nextRejected));
  assert.equal(nextRejected.code, ErrorCode.RequestCancelled);
  assert.equal(layerSignal.aborted, false, 'the request was not cancelled: the layer keeps its signal');
  await c.close();
});

test('rate limit answers -32004 with retryAfter', async () => {
  const s = server(rateLimit({ limit: 2, windowMs: 400, methods: ['tools/call'] }));
  const c = await Client.memory(s);
  await c.callTool({ name: 'echo' });
  await c.callTool({ name: 'echo' });
  let retry;
  await assert.rejects(c.callTool({ name: 'echo' }), (e) => {
    isMcpError(-32004, 'Rate limited')(e);
    assert.equal(e.code, ErrorCode.RateLimited);
    assert.equal(e.data.limit, 2);
    assert.equal(e.data.window, 0.4);
    retry = e.data.retryAfter;
    assert.ok(retry > 0 && retry <= 0.2, `one token comes back in 0.2 s: ${retry}`);
    return true;
  });
  await c.listTools(); // not counted
  await sleep(retry * 1000 + 5);
  await c.callTool({ name: 'echo' });
  await c.close();
});

test('a tool with its own limit has its own bucket', async () => {
  const s = server({ name: 'rateLimit', limit: 100, windowMs: 60000, tools: { slow: { limit: 1, windowMs: 60000 } } });
  s.registerTool('slow', {}, () => 'slow');
  const c = await Client.memory(s);
  await c.callTool({ name: 'slow' });
  await assert.rejects(c.callTool({ name: 'slow' }), (e) => {
    isMcpError(-32004)(e);
    assert.equal(e.data.limit, 1);
    assert.equal(e.data.window, 60);
    assert.ok(e.data.retryAfter > 59 && e.data.retryAfter <= 60, String(e.data.retryAfter));
    return true;
  });
  for (let i = 0; i < 5; i++) await c.callTool({ name: 'echo' });
  await c.close();
});

test('mask errors hides internal details only', async () => {
  const original = console.error;
  console.error = () => {};
  try {
    const s = server(maskErrors({ message: 'Something went wrong' }), async (ctx, next) => {
      if (ctx.tool === 'broken') throw new McpError(ErrorCode.InternalError, 'stack trace: at db.js:12', { secret: 1 });
      if (ctx.tool === 'crashed') throw new TypeError('db at 10.0.0.7 refused user admin');
      if (ctx.tool === 'refused') throw new McpError(-32003, 'Permission denied');
      return next();
    });
    const c = await Client.memory(s);
    for (const name of ['broken', 'crashed']) {
      await assert.rejects(c.callTool({ name }), (e) => {
        isMcpError(-32603, 'Something went wrong')(e);
        assert.equal(e.data, undefined);
        return true;
      });
    }
    await assert.rejects(c.callTool({ name: 'refused' }), isMcpError(-32003, 'Permission denied'));
    // A tool's failure is a tool result (isError), not a JSON-RPC error: nothing to mask.
    const r = await c.callTool({ name: 'echo', arguments: { fail: true } });
    assert.equal(r.isError, true);
    await c.close();
  } finally {
    console.error = original;
  }
});

test('timing hook gets method, tool, duration and outcome', async () => {
  const events = [];
  const s = server(
    timing((e) => events.push(e)),
    async (ctx, next) => {
      if (ctx.tool === 'slow') {
        await sleep(30);
        throw new McpError(-32003, 'no');
      }
      return next();
    },
    { name: 'timing', hook: () => { throw new Error('a failing hook is reported, not fatal'); } },
  );
  const original = console.error;
  const logged = [];
  console.error = (...a) => logged.push(a.map(String).join(' '));
  try {
    const c = await Client.memory(s);
    await c.callTool({ name: 'echo' });
    await assert.rejects(c.callTool({ name: 'slow' }), isMcpError(-32003));
    await c.close();
    await until(() => events.filter((e) => e.method === 'tools/call').length === 2, 2000, 'two timing events');
  } finally {
    console.error = original;
  }
  const calls = events.filter((e) => e.method === 'tools/call');
  assert.deepEqual([calls[0].tool, calls[0].outcome, calls[0].code], ['echo', 'ok', null]);
  assert.deepEqual([calls[1].tool, calls[1].outcome, calls[1].code], ['slow', 'error', -32003]);
  // Node's timers may fire up to a millisecond early against the engine's clock.
  assert.ok(calls[1].durationMs >= 28, String(calls[1].durationMs));
  assert.equal(events[0].method, 'initialize');
  assert.ok(logged.some((l) => /timing hook .* failed.*a failing hook is reported/.test(l)), logged.join('\n'));
});

test('request log is accepted by name and as a config object', async () => {
  const s = server(requestLog(), requestLog({ level: 'debug' }), { name: 'requestLog' });
  const c = await Client.memory(s);
  assert.equal(text(await c.callTool({ name: 'echo' })), 'echoed');
  await c.close();
  assert.throws(() => requestLog({ level: 'loud' }) && server(requestLog({ level: 'loud' })), isMcpError(ErrorCode.InvalidParams));
});

test('call next twice or with a bad request is an internal error saying so', async () => {
  const s = server(async (ctx, next) => {
    const how = ctx.params?.arguments?.how;
    if (how === 'twice') {
      await next();
      return next();
    }
    if (how === 'bad-params') ctx.params = [1];
    if (how === 'bad-method') ctx.method = 7;
    return next();
  });
  const c = await Client.memory(s);
  for (const [how, says] of [
    ['twice', /call_next was already called/],
    ['bad-params', /params must be an object or null, not an array/],
    ['bad-method', /method must be a non-empty string/],
  ]) {
    await assert.rejects(c.callTool({ name: 'echo', arguments: { how } }), (e) => {
      isMcpError(-32603)(e);
      assert.match(e.message, says, how);
      return true;
    });
  }
  assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'still here' } })), 'still here');
  await c.close();
});

test('middleware is refused once the server handled a request', async () => {
  const s = server(requestLog());
  const c = await Client.memory(s);
  assert.throws(() => s.use(maskErrors()), (e) => {
    isMcpError(ErrorCode.InvalidRequest)(e);
    assert.match(e.message, /before the server handles its first request/);
    return true;
  });
  assert.throws(() => s.use(async (_ctx, next) => next()), /before the server handles its first request/);
  await c.close();
});

test('unknown middleware names and options are refused', () => {
  assert.throws(() => server({ name: 'cache' }), (e) => e instanceof McpError && /cache/.test(e.message));
  assert.throws(() => server({ name: 'rateLimit', limit: 1, windowMs: 1, windw: 3 }), /windw/);
  assert.throws(() => server(rateLimit({ limit: 0, windowMs: 1000 })), isMcpError(ErrorCode.InvalidParams));
  assert.throws(() => server(maskErrors({ mesage: 'x' })), /mesage/);
  assert.throws(() => server({ name: 'timing' }), /hook must be a function/);
  assert.throws(() => server({ name: 'timing', hook: () => {}, every: 1 }), /unknown option every/);
  assert.throws(() => server(42), TypeError);
  assert.throws(() => new McpServer({ name: 'x', version: '1' }, { middleware: rateLimit({ limit: 1, windowMs: 1 }) }), /must be an array/);
});

test('the SDK-shaped Server takes middleware as McpServer does', async () => {
  const { ListToolsRequestSchema, CallToolRequestSchema } = await import('ferromcp/types.js');
  const seen = [];
  const s = new Server({ name: 'low', version: '1' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }));
  s.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'from the handler' }] }));
  assert.equal(s.use(async (ctx, next) => {
    seen.push(ctx.method);
    return next();
  }), s);
  await s.mcpServer.server._syncHandlers();
  const c = await Client.memory(s.mcpServer);
  assert.equal(text(await c.callTool({ name: 't' })), 'from the handler');
  await c.close();
  assert.deepEqual(seen, ['initialize', 'tools/call']);
});

/** A free TCP port on 127.0.0.1. */

test('rate limit by tool or global keys buckets across sessions', async () => {
  // By tool: one bucket per tool, shared by every session.
  let s = server(rateLimit({ limit: 1, windowMs: 60000, by: ['tool'], methods: ['tools/call'] }));
  s.registerTool('other', {}, () => 'other');
  let [a, b] = [await Client.memory(s), await Client.memory(s)];
  await a.callTool({ name: 'echo' });
  await assert.rejects(b.callTool({ name: 'echo' }), isMcpError(-32004, 'Rate limited'));
  await b.callTool({ name: 'other' });
  await assert.rejects(a.callTool({ name: 'other' }), isMcpError(-32004, 'Rate limited'));
  await Promise.all([a.close(), b.close()]);
  // Global: one bucket for everything, whatever the session or tool.
  s = server(rateLimit({ limit: 2, windowMs: 60000, by: ['global'], methods: ['tools/call'] }));
  s.registerTool('other', {}, () => 'other');
  [a, b] = [await Client.memory(s), await Client.memory(s)];
  await a.callTool({ name: 'echo' });
  await b.callTool({ name: 'other' });
  for (const c of [a, b]) {
    await assert.rejects(c.callTool({ name: 'echo' }), (e) => {
      isMcpError(-32004, 'Rate limited')(e);
      assert.equal(e.data.limit, 2);
      return true;
    });
  }
  await Promise.all([a.close(), b.close()]);
});

test('rate limit by principal spans sessions on a protected server', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = new ProtectedResource({
    resource,
    verify: (token) => (token.startsWith('tok-') ? { subject: token.slice(4), scopes: ['mcp'], audience: resource } : null),
    authorizationServers: ['http://127.0.0.1:1'],
  });
  const principals = [];
  const s = server(rateLimit({ limit: 2, windowMs: 60000, by: ['principal'], methods: ['tools/call'] }), async (ctx, next) => {
    if (ctx.method === 'tools/call') principals.push([ctx.principal?.subject, ctx.principal?.scopes, ctx.header('authorization')]);
    return next();
  });
  const http = await s.listen({ port, auth });
  const as = (who) => Client.http(http.url, { headers: { Authorization: `Bearer tok-${who}` } });
  try {
    const [a1, a2, b] = await Promise.all([as('alice'), as('alice'), as('bob')]);
    await a1.callTool({ name: 'echo' });
    await a2.callTool({ name: 'echo' });
    // Alice's third call, in either session, is over her limit; Bob has his own bucket.
    await assert.rejects(a1.callTool({ name: 'echo' }), isMcpError(-32004, 'Rate limited'));
    await assert.rejects(a2.callTool({ name: 'echo' }), isMcpError(-32004, 'Rate limited'));
    assert.equal(text(await b.callTool({ name: 'echo' })), 'echoed');
    await Promise.all([a1.close(), a2.close(), b.close()]);
  } finally {
    await http.close();
  }
  assert.deepEqual(principals, [
    ['alice', ['mcp'], 'Bearer tok-alice'],
    ['alice', ['mcp'], 'Bearer tok-alice'],
    ['bob', ['mcp'], 'Bearer tok-bob'],
  ]);
});

test('the example server runs each layer over stdio', async () => {
  // examples/middleware_server.mts, its types stripped by TypeScript (tsc checks them in
  // scripts/test.sh), run from inside the package so that `ferromcp` resolves to it.
  const ts = createRequire(import.meta.url)('typescript');
  const source = readFileSync(new URL('../examples/middleware_server.mts', import.meta.url), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = mkdtempSync(fileURLToPath(new URL('./.example-', import.meta.url)));
  const file = join(dir, 'middleware_server.mjs');
  const log = join(dir, 'stderr.log');
  writeFileSync(file, js);
  try {
    const c = await Client.stdio({ command: '/bin/sh', args: ['-c', 'exec "$0" "$1" 2>"$2"', process.execPath, file, log] });
    const r = await c.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual([text(r), r._meta?.servedBy], ['hi', 'middleware-demo']);
    await assert.rejects(c.callTool({ name: 'admin_reset' }), (e) => {
      isMcpError(-32003, 'Permission denied')(e);
      assert.deepEqual(e.data, { tool: 'admin_reset' });
      return true;
    });
    await assert.rejects(c.readResource({ uri: 'mem://secrets' }), (e) => {
      isMcpError(-32603, 'Internal error')(e);
      assert.doesNotMatch(JSON.stringify(e.data ?? null), /10\.0\.0\.7/);
      return true;
    });
    await c.callTool({ name: 'echo', arguments: { text: 'two' } });
    await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'four' } }), (e) => {
      isMcpError(-32004, 'Rate limited')(e);
      assert.deepEqual([e.data.limit, e.data.window], [3, 10]);
      return true;
    });
    await c.close();
    const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('timing '));
    assert.match(lines[0], /^timing initialize ok \d+\.\d\d ms$/);
    assert.ok(lines.some((l) => /^timing tools\/call echo ok /.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^timing tools\/call admin_reset error /.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^timing tools\/call echo error /.test(l)), 'the rate-limited call: ' + lines.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- over stdio and Streamable HTTP, the engine's client and the official SDK's ----

/** Starts the fixture over HTTP; resolves to `{ url, stop }`. */
async function httpFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'ferromcp-mw-'));
  const portFile = join(dir, 'url');
  const child = spawn(process.execPath, [fixture, 'http', portFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.resume();
  await until(() => existsSync(portFile) && readFileSync(portFile, 'utf8').length > 0, 10000, 'the fixture to listen');
  const url = readFileSync(portFile, 'utf8');
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One client of the fixture: `call(name, args)` resolves to the result or rejects with
 * `{code, message, data}`. */
async function connect(transport, kind, url) {
  const headers = { 'x-test': 'yes' };
  if (kind === 'engine') {
    const c = transport === 'stdio'
      ? await Client.stdio({ command: process.execPath, args: [fixture] })
      : await Client.http(url, { headers });
    return { call: (name, args) => c.callTool({ name, arguments: args ?? {} }), close: () => c.close() };
  }
  const { Client: SdkClient } = await import(new URL('client/index.js', SDK).href);
  const c = new SdkClient({ name: 'sdk', version: '1' });
  if (transport === 'stdio') {
    const { StdioClientTransport } = await import(new URL('client/stdio.js', SDK).href);
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: 'pipe' }));
  } else {
    const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', SDK).href);
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  }
  return { call: (name, args) => c.callTool({ name, arguments: args ?? {} }), close: () => c.close() };
}

for (const transport of ['stdio', 'http']) {
  for (const kind of ['engine', 'sdk']) {
    const client = kind === 'engine' ? "the engine's client" : 'the official SDK client';
    test(`over ${transport}, ${client}: a layer answers, refuses and changes request and result; rate limit answers -32004 with retryAfter; a layer reads the http headers of each request`, { skip: kind === 'sdk' && !haveSdk && 'the official SDK is not installed (scripts/setup-test-deps)' }, async () => {
      const server = transport === 'http' ? await httpFixture() : undefined;
      const c = await connect(transport, kind, server?.url);
      try {
        assert.equal(text(await c.call('short')), 'answered by the layer');
        await assert.rejects(c.call('refused'), (e) => {
          assert.deepEqual([e.code, e.message.replace(/^MCP error -32003: /, ''), e.data], [-32003, 'Permission denied', { tool: 'refused' }]);
          return true;
        });
        assert.equal(text(await c.call('echo', { text: 'hi' })), 'HI (seen by the layer)');
        await assert.rejects(c.call('crash'), (e) => {
          assert.deepEqual([e.code, e.message.replace(/^MCP error -32603: /, '')], [-32603, 'Internal error']);
          return true;
        });
        const seen = JSON.parse(text(await c.call('seen')));
        assert.equal(seen.method, 'tools/call');
        assert.equal(seen.protocolVersion, '2025-11-25');
        assert.ok(seen.sessionKey.length > 0);
        if (transport === 'http') {
          assert.equal(seen.header, 'yes', 'the layer reads the request headers');
          assert.match(seen.sessionId, /.+/, 'the Mcp-Session-Id');
          assert.ok(seen.sessionKey.includes(seen.sessionId), "the session key names the session");
          assert.equal(seen.onStdio, false);
        } else {
          assert.deepEqual([seen.header, seen.sessionId, seen.onStdio], [null, null, true]);
        }
        await c.call('limited');
        await c.call('limited');
        let retry;
        await assert.rejects(c.call('limited'), (e) => {
          assert.equal(e.code, -32004);
          assert.equal(e.message.replace(/^MCP error -32004: /, ''), 'Rate limited');
          assert.deepEqual([e.data.limit, e.data.window], [2, 0.4]);
          retry = e.data.retryAfter;
          assert.ok(retry > 0 && retry <= 0.2, String(retry));
          return true;
        });
        await sleep(retry * 1000 + 5);
        assert.equal(text(await c.call('limited')), 'limited ran its tool');
      } finally {
        await c.close();
        await server?.stop();
      }
    });
  }
}
