#!/usr/bin/env node
// Official TypeScript SDK (@modelcontextprotocol/sdk) client that checks the surface of the
// official TypeScript everything-server (@modelcontextprotocol/server-everything, pinned in
// tests/package.json), directly or through `ferromcp proxy` (tests/run-proxy.sh): the same
// checks as everything_py_client.py (tools with progress, sampling, elicitation and roots, a
// tool that must run as a task, resources and templates, prompts, completions, a log message
// sent outside any call).
// Usage: node everything_ts_client.mjs --stdio CMD [ARGS...] | --http URL
// Prints a JSON report to stdout; exits 1 on any mismatch, 2 on usage errors.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
  LoggingMessageNotificationSchema
} from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';

const TIMEOUT_MS = 60000;
const ROOT = 'file:///interop/everything-root';
const sdkVersion = createRequire(import.meta.url)('@modelcontextprotocol/sdk/package.json').version;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const texts = (content) => (content || []).filter((c) => c.type === 'text').map((c) => c.text);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function run(transport, report) {
  const check = (name, ok, detail) => report.checks.push({ name, ok: !!ok, detail });
  const logs = [];
  const client = new Client({ name: 'everything-ts-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const asked = req.params.messages.map((m) => m.content?.text ?? '');
    return { role: 'assistant', model: 'interop-model', content: { type: 'text', text: `sampled: ${asked.join(' | ')}` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: ROOT, name: 'interop root' }] }));
  await client.connect(transport);
  try {
    // Conditional tools are registered once the server knows the client's capabilities.
    let names = [];
    for (let i = 0; i < 50; i++) {
      names = (await client.listTools()).tools.map((t) => t.name).sort();
      if (names.includes('trigger-sampling-request')) break;
      await sleep(100);
    }
    const want = ['echo', 'get-sum', 'get-structured-content', 'trigger-long-running-operation',
      'trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list', 'toggle-simulated-logging'];
    check('tools/list', want.every((n) => names.includes(n)), names);

    let r = await client.callTool({ name: 'echo', arguments: { message: 'everything ✓' } });
    check('tools/call echo', !r.isError && same(texts(r.content), ['Echo: everything ✓']), texts(r.content));

    r = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 0.5 } });
    check('tools/call get-sum', !r.isError && same(texts(r.content), ['The sum of 2 and 0.5 is 2.5.']), texts(r.content));

    r = await client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
    check('tools/call get-structured-content (structuredContent, output schema)',
      !r.isError && typeof r.structuredContent?.temperature === 'number', r.structuredContent);

    const seen = [];
    r = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      CallToolResultSchema, { onprogress: (p) => seen.push([p.progress, p.total]) });
    await sleep(100);
    // The TypeScript SDK's client hands notifications to their handlers a microtask later but
    // settles a response at once, so a progress notification read in the same chunk as the
    // result finds its handler gone ("unknown token") and is dropped: the last one may be
    // missing, directly as through the proxy. The steps are 0.2 s apart, so the first two
    // always arrive on their own.
    check('tools/call trigger-long-running-operation (progress notifications)',
      !r.isError && (same(seen, [[1, 3], [2, 3], [3, 3]]) || same(seen, [[1, 3], [2, 3]])),
      { result: texts(r.content), progress: seen });

    r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'ping', maxTokens: 20 } });
    check('tools/call trigger-sampling-request (sampling/createMessage answered)',
      !r.isError && texts(r.content).some((t) => t.includes('sampled: ') && t.includes('ping')), texts(r.content));

    r = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    check('tools/call trigger-elicitation-request (elicitation/create answered)',
      !r.isError && texts(r.content).some((t) => t.includes('decline')), texts(r.content));

    r = await client.callTool({ name: 'get-roots-list', arguments: {} });
    check('tools/call get-roots-list (roots/list answered)',
      !r.isError && texts(r.content).some((t) => t.includes(ROOT)), texts(r.content));

    // A tool that must run as a task (2025-11-25 tasks): made with a task-augmented call, it
    // asks for a clarification while it runs (an elicitation request delivered on the
    // tasks/result stream, declined here), its result fetched with tasks/result; then the
    // session's tasks listed and read.
    const events = [];
    let taskId = null;
    let result = null;
    for await (const m of client.experimental.tasks.callToolStream(
      { name: 'simulate-research-query', arguments: { topic: 'gateways', ambiguous: true } },
      CallToolResultSchema, { task: { ttl: 60000 } })) {
      events.push(m.type === 'error' ? `error: ${m.error}` : m.type);
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      if (m.type === 'result') result = m.result;
    }
    const research = texts(result?.content).join('\n');
    check('tools/call simulate-research-query as a task (tasks/result, elicitation inside the task)',
      taskId && result && !result.isError && research.includes('# Research Report: gateways')
        && research.includes('User declined'),
      { events, taskId, text: research.slice(0, 160) });
    const listed = (await client.experimental.tasks.listTasks()).tasks;
    const state = taskId ? await client.experimental.tasks.getTask(taskId) : null;
    check('tasks/list and tasks/get',
      listed.some((t) => t.taskId === taskId && t.status === 'completed') && state?.status === 'completed',
      { listed: listed.map((t) => [t.taskId, t.status]), state: state?.status });

    await client.setLoggingLevel('debug');
    logs.length = 0;
    r = await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    for (let i = 0; i < 150 && logs.length === 0; i++) await sleep(20);
    const got = logs.map((l) => [l.level, l.data]);
    await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    check('notifications/message outside a call (toggle-simulated-logging)',
      !r.isError && got.some(([, d]) => String(d).includes('message')), got);

    const doc = 'demo://resource/static/document/architecture.md';
    const res = await client.listResources();
    const uris = res.resources.map((x) => x.uri);
    check('resources/list', uris.includes(doc), uris);
    let rr = await client.readResource({ uri: doc });
    check('resources/read static document', rr.contents.length === 1 && (rr.contents[0].text || '').length > 100,
      rr.contents.map((c) => (c.text || '').slice(0, 60)));
    const tl = await client.listResourceTemplates();
    const tmpls = tl.resourceTemplates.map((t) => t.uriTemplate);
    check('resources/templates/list', tmpls.includes('demo://resource/dynamic/text/{resourceId}'), tmpls);
    rr = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    check('resources/read from a template',
      same(rr.contents.map((c) => c.uri), ['demo://resource/dynamic/text/7']) && (rr.contents[0].text || '').includes('7'),
      rr.contents);

    const pl = await client.listPrompts();
    const pnames = pl.prompts.map((p) => p.name);
    check('prompts/list', ['simple-prompt', 'args-prompt', 'completable-prompt'].every((n) => pnames.includes(n)), pnames);
    const gp = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon', state: 'Rhone' } });
    const msgs = gp.messages.map((m) => m.content?.text ?? '');
    check('prompts/get args-prompt', msgs.some((t) => t.includes('Lyon')), msgs);
    let c = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' } });
    check('completion/complete', same(c.completion.values, ['Engineering']), c.completion.values);
    c = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } });
    check('completion/complete with context', same(c.completion.values, ['David', 'Eve', 'Frank']), c.completion.values);
  } finally {
    await client.close();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  let transport, target;
  if (argv[0] === '--http' && argv.length === 2) {
    transport = new StreamableHTTPClientTransport(new URL(argv[1]));
    target = `http ${argv[1]}`;
  } else if (argv[0] === '--stdio' && argv.length >= 2) {
    transport = new StdioClientTransport({ command: argv[1], args: argv.slice(2), stderr: 'inherit' });
    target = `stdio ${argv.slice(1).join(' ')}`;
  } else {
    console.error('usage: everything_ts_client.mjs --stdio CMD [ARGS...] | --http URL');
    process.exit(2);
  }
  const report = { client: `typescript @modelcontextprotocol/sdk ${sdkVersion} (everything checks)`, target, checks: [] };
  let timer;
  try {
    await Promise.race([
      run(transport, report),
      new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS); })
    ]);
    report.ok = report.checks.length > 0 && report.checks.every((c) => c.ok);
  } catch (e) {
    report.ok = false;
    report.error = String(e?.stack || e);
    try { await transport.close(); } catch { /* ignore */ }
  } finally {
    clearTimeout(timer);
  }
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.ok ? 0 : 1);
}

await main();
