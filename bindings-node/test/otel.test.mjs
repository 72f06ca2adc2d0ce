// OpenTelemetry from Node (issue 38 point 4): the engine's layer by name (openTelemetry({...}),
// the binding builds the engine with `otel`) exports its SERVER span over OTLP/HTTP to a
// receiver started here. The receiver is node:http; the protobuf bodies the engine's exporter
// posts are read with the small wire-format reader in tests/otel/otlp-protobuf.mjs. The
// caller's context travels in params._meta; the Node handler sees the engine span named in ctx._meta.traceparent, so a span it starts from that
// context with its own OpenTelemetry SDK is the engine span's child. A malformed traceparent is
// ignored: the call is answered and the engine span starts a trace of its own. With the
// OpenTelemetry JS SDK (@opentelemetry/sdk-trace-base, in-memory exporter) the handler's own
// span is exported as the engine span's child, in the caller's trace. The layer's `prometheus`
// option serves the metrics as Prometheus text on listen()'s server. A Client with the
// openTelemetry option exports a CLIENT span per request, the caller's span its parent and the
// engine's SERVER span its child. A request the server sends outside any handler
// (server.server.listRoots()) is a CLIENT span of the server's, the Client's SERVER span its child.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Client, McpServer, openTelemetry } from '../esm/index.mjs';
import { decodeTraces } from '../../tests/otel/otlp-protobuf.mjs';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

let receiver;
let endpoint;
const received = [];

before(async () => {
  // The engine's batch span processor exports every 100 ms instead of 5 s.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') received.push(...decodeTraces(Buffer.concat(chunks)));
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${receiver.address().port}`;
});
after(() => receiver.close());

async function waitFor(name, count) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = received.filter((s) => s.service === 'node-server' && s.name === name);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("the engine's span joins the caller's trace and the Node handler sees it as its parent", async () => {
  const server = new McpServer(
    { name: 'traced', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-server', otlpEndpoint: endpoint, samplingRatio: 1 })] },
  );
  const seen = [];
  server.registerTool(
    'lookup',
    { inputSchema: { type: 'object', properties: { key: { type: 'string' } } } },
    ({ key }, ctx) => {
      seen.push(ctx._meta?.traceparent);
      return key.toUpperCase();
    },
  );
  const client = await Client.memory(server);
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  try {
    const r = await client.request('tools/call', {
      name: 'lookup',
      arguments: { key: 'k' },
      _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    assert.equal(r.content[0].text, 'K');
    const bad = await client.request('tools/call', {
      name: 'lookup',
      arguments: { key: 'x' },
      _meta: { traceparent: '00-zz-bad' },
    });
    assert.equal(bad.content[0].text, 'X');
  } finally {
    await client.close();
  }

  const engine = await waitFor('tools/call lookup', 2);
  assert.equal(engine.length, 2, JSON.stringify(received.map((s) => s.name)));
  const joined = engine.find((s) => s.parentSpanId === callerSpan);
  assert.ok(joined, "the engine span's parent is the caller's span");
  assert.equal(joined.traceId, traceId);
  assert.equal(joined.kind, 2, 'SPAN_KIND_SERVER');
  assert.equal(joined.attributes['mcp.method.name'], 'tools/call');
  assert.equal(joined.attributes['gen_ai.tool.name'], 'lookup');
  assert.equal(joined.attributes['gen_ai.operation.name'], 'execute_tool');
  // The handler's _meta names the engine span: a span started from it is the engine span's child.
  assert.equal(seen[0], `00-${traceId}-${joined.spanId}-01`);
  // The malformed traceparent: answered, and a trace of its own started by the engine.
  const other = engine.find((s) => s !== joined);
  assert.equal(other.parentSpanId, '');
  assert.notEqual(other.traceId, traceId);
  assert.equal(seen[1], `00-${other.traceId}-${other.spanId}-01`);
});

test('openTelemetry options the engine does not know are refused when the layer is added', () => {
  const server = new McpServer({ name: 'traced', version: '1.0.0' });
  assert.throws(() => server.use({ name: 'openTelemetry', samplingRate: 0.5 }), /openTelemetry: unknown field `samplingRate`/);
  assert.throws(() => server.use(openTelemetry({ samplingRatio: 2 })), /samplingRatio must be between 0 and 1, got 2/);
});

test("the Node handler's own span is exported as the engine span's child, in the caller's trace", async () => {
  // docs/observability.md's pattern: a propagator (the W3C one; NodeSDK registers it too) and
  // the handler's span started under the context extracted from ctx._meta.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('node-handler');
  const server = new McpServer(
    { name: 'traced', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-sdk-server', otlpEndpoint: endpoint, samplingRatio: 1 })] },
  );
  server.registerTool('work', { inputSchema: { type: 'object' } }, (_args, ctx) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx._meta ?? {});
    const span = tracer.startSpan('node work', {}, parent);
    span.end();
    return 'done';
  });
  const client = await Client.memory(server);
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  try {
    const r = await client.request('tools/call', {
      name: 'work',
      arguments: {},
      _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    assert.equal(r.content[0].text, 'done');
  } finally {
    await client.close();
  }
  const deadline = Date.now() + 20_000;
  let engine = [];
  while (engine.length === 0 && Date.now() < deadline) {
    engine = received.filter((s) => s.service === 'node-sdk-server' && s.name === 'tools/call work');
    if (engine.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(engine.length, 1, JSON.stringify(received.map((s) => s.name)));
  assert.equal(engine[0].traceId, traceId, "the engine span reached the receiver in the caller's trace");
  assert.equal(engine[0].parentSpanId, callerSpan);
  const [mine] = exporter.getFinishedSpans();
  assert.ok(mine, 'the handler span was exported');
  assert.equal(mine.name, 'node work');
  assert.equal(mine.spanContext().traceId, traceId, 'the handler span is in the same trace');
  assert.equal(mine.parentSpanContext?.spanId, engine[0].spanId, "its parent is the engine's SERVER span");
  assert.equal(mine.parentSpanContext?.isRemote, true);
  await provider.shutdown();
});

test("the layer's prometheus path serves Prometheus text on listen()'s server: durations and the listener's gauges", async () => {
  const server = new McpServer(
    { name: 'measured', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-metrics', prometheus: '/metrics' })] },
  );
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { x: { type: 'string' } } } }, ({ x }) => x);
  const http = await server.listen({ port: 0 });
  const client = await Client.http(http.url);
  try {
    const r = await client.request('tools/call', { name: 'echo', arguments: { x: 'hi' } });
    assert.equal(r.content[0].text, 'hi');
    const metricsUrl = new URL('/metrics', http.url);
    const m = await fetch(metricsUrl);
    assert.equal(m.status, 200);
    assert.equal(m.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const text = await m.text();
    const line = (prefix) => text.split('\n').find((l) => l.startsWith(prefix)) ?? '';
    const count = text
      .split('\n')
      .find((l) => l.startsWith('mcp_server_operation_duration_seconds_count{') && l.includes('gen_ai_tool_name="echo"'));
    assert.ok(count && count.endsWith(' 1'), text);
    assert.ok(text.includes('mcp_server_operation_duration_seconds_bucket{'), text);
    // The client's session is alive and its connection open while the text is read.
    assert.match(line('ferromcp_server_sessions'), /^ferromcp_server_sessions(\{[^}]*\})? 1$/, text);
    assert.match(line('ferromcp_server_connections'), /^ferromcp_server_connections(\{[^}]*\})? [1-9]\d*$/, text);
    assert.ok(text.includes('# TYPE ferromcp_server_sse_streams gauge'), text);
    assert.equal((await fetch(metricsUrl, { method: 'POST' })).status, 405);
  } finally {
    await client.close();
    await http.close();
  }
});

test('the prometheus option takes a path', () => {
  const server = new McpServer({ name: 'measured', version: '1.0.0' });
  assert.throws(() => server.use(openTelemetry({ prometheus: 'metrics' })), /prometheus must be a path starting with '\/'/);
  assert.throws(() => server.use({ name: 'openTelemetry', prometheus: true }), /prometheus must be a path/);
});

/** The active context in AsyncLocalStorage, as NodeSDK's context manager keeps it. */
class StoredContextManager {
  #store = new AsyncLocalStorage();
  active() {
    return this.#store.getStore() ?? ROOT_CONTEXT;
  }
  with(cx, fn, thisArg, ...args) {
    return this.#store.run(cx, () => fn.call(thisArg, ...args));
  }
  bind(_cx, target) {
    return target;
  }
  enable() {
    return this;
  }
  disable() {
    this.#store.disable();
    return this;
  }
}

async function spansOf(service, name, count) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = received.filter((s) => s.service === service && s.name === name);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a Client's openTelemetry span is the caller's span's child and the engine span's parent", async () => {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new StoredContextManager());
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
  const tracer = provider.getTracer('node-caller');
  const server = new McpServer(
    { name: 'traced', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-traced-server', otlpEndpoint: endpoint })] },
  );
  server.registerTool('lookup', { inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, ({ key }) =>
    key.toUpperCase(),
  );
  const client = await Client.memory(server, {
    openTelemetry: { serviceName: 'node-client', otlpEndpoint: endpoint, samplingRatio: 1 },
  });
  let caller;
  try {
    await tracer.startActiveSpan('caller', async (span) => {
      caller = span.spanContext();
      const meta = {};
      propagation.inject(context.active(), meta);
      const r = await client.request('tools/call', { name: 'lookup', arguments: { key: 'a' }, _meta: meta });
      assert.equal(r.content[0].text, 'A');
      // No _meta: the client writes the active span's context itself.
      const r2 = await client.callTool({ name: 'lookup', arguments: { key: 'b' } });
      assert.equal(r2.content[0].text, 'B');
      span.end();
    });
    assert.equal(trace.getActiveSpan(), undefined);
    const bad = await client.request('tools/call', { name: 'lookup', arguments: { key: 'c' }, _meta: { traceparent: '00-zz-bad' } });
    assert.equal(bad.content[0].text, 'C');
  } finally {
    // Flushes the client's spans (the engine's shutdown, off this thread, which serves the receiver).
    await client.close();
    context.disable();
    await provider.shutdown();
  }
  const clients = await spansOf('node-client', 'tools/call lookup', 3);
  const servers = await spansOf('node-traced-server', 'tools/call lookup', 3);
  assert.equal(clients.length, 3, JSON.stringify(received.map((s) => [s.service, s.name])));
  assert.equal(servers.length, 3);
  const underCaller = clients.filter((s) => s.parentSpanId === caller.spanId);
  assert.equal(underCaller.length, 2, "both calls in the caller's span are its children");
  for (const s of underCaller) {
    assert.equal(s.traceId, caller.traceId);
    assert.equal(s.kind, 3, 'SPAN_KIND_CLIENT');
    assert.equal(s.attributes['mcp.method.name'], 'tools/call');
    assert.equal(s.attributes['gen_ai.tool.name'], 'lookup');
  }
  const own = clients.find((s) => !underCaller.includes(s));
  assert.equal(own.parentSpanId, '', 'a malformed traceparent gives no parent');
  assert.notEqual(own.traceId, caller.traceId);
  for (const c of clients) {
    const children = servers.filter((s) => s.parentSpanId === c.spanId);
    assert.equal(children.length, 1, "the engine's SERVER span is the client span's child");
    assert.equal(children[0].traceId, c.traceId);
    // Both name the same request: the client span its jsonrpc.request.id too.
    assert.ok(c.attributes['jsonrpc.request.id'] !== undefined, JSON.stringify(c.attributes));
    assert.equal(c.attributes['jsonrpc.request.id'], children[0].attributes['jsonrpc.request.id']);
  }
});

test("a Client's openTelemetry options the engine does not know are refused", async () => {
  const server = new McpServer({ name: 'traced', version: '1.0.0' });
  await assert.rejects(Client.memory(server, { openTelemetry: { prometheus: '/metrics' } }), /unknown field `prometheus`/);
});

test("prometheusText() gives a host app's own metrics route the layer's text (createHttpHandler owns no listener)", async () => {
  const server = new McpServer(
    { name: 'measured', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-host-app', prometheus: '/metrics' })] },
  );
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { x: { type: 'string' } } } }, ({ x }) => x);
  const handler = server.createHttpHandler();
  const app = createServer((req, res) => {
    if (req.url === '/metrics') res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(server.prometheusText() ?? '');
    else handler.handleNode(req, res).catch(() => res.destroy());
  });
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${app.address().port}`;
  try {
    const client = await Client.http(`${base}/mcp`);
    try {
      const r = await client.request('tools/call', { name: 'echo', arguments: { x: 'hi' } });
      assert.equal(r.content[0].text, 'hi');
    } finally {
      await client.close();
    }
    const text = await (await fetch(`${base}/metrics`)).text();
    const count = text
      .split('\n')
      .find((l) => l.startsWith('mcp_server_operation_duration_seconds_count{') && l.includes('gen_ai_tool_name="echo"'));
    assert.ok(count && count.endsWith(' 1'), text);
  } finally {
    await new Promise((r) => app.close(r));
  }
  // Without the layer, or without its prometheus option, there is no text.
  assert.equal(new McpServer({ name: 'plain', version: '1.0.0' }).prometheusText(), undefined);
  const otlpOnly = new McpServer({ name: 'otlp', version: '1.0.0' }, { middleware: [openTelemetry({ serviceName: 'x' })] });
  assert.equal(otlpOnly.prometheusText(), undefined);
});

test("a request the server sends outside any handler (server.server.listRoots()) is a CLIENT span, the Client's answer its SERVER child", async () => {
  const server = new McpServer(
    { name: 'pushing', version: '1.0.0' },
    { middleware: [openTelemetry({ serviceName: 'node-pushing-server', otlpEndpoint: endpoint, samplingRatio: 1 })] },
  );
  const http = await server.listen({ port: 0 });
  try {
    const client = await Client.http(http.url, {
      roots: [{ uri: 'file:///work', name: 'work' }],
      openTelemetry: { serviceName: 'node-pushed-client', otlpEndpoint: endpoint, samplingRatio: 1 },
    });
    try {
      const r = await server.server.listRoots();
      assert.equal(r.roots[0].uri, 'file:///work');
    } finally {
      await client.close();
    }
  } finally {
    await http.close();
  }
  const sent = await spansOf('node-pushing-server', 'roots/list', 1);
  const answered = await spansOf('node-pushed-client', 'roots/list', 1);
  assert.equal(sent.length, 1, JSON.stringify(received.map((s) => [s.service, s.name])));
  assert.equal(sent[0].kind, 3, 'SPAN_KIND_CLIENT');
  assert.equal(sent[0].parentSpanId, '', 'outside any handler: a trace of its own');
  assert.equal(sent[0].attributes['mcp.method.name'], 'roots/list');
  assert.ok(sent[0].attributes['jsonrpc.request.id'] !== undefined, JSON.stringify(sent[0].attributes));
  assert.ok(sent[0].attributes['mcp.session.id'], JSON.stringify(sent[0].attributes));
  assert.equal(answered.length, 1);
  assert.equal(answered[0].kind, 2, 'SPAN_KIND_SERVER');
  assert.equal(answered[0].parentSpanId, sent[0].spanId, "the client's span is the server's request's child");
  assert.equal(answered[0].traceId, sent[0].traceId);
});
