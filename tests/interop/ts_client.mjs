#!/usr/bin/env node
// Official TypeScript SDK (@modelcontextprotocol/sdk) client that checks a server's interop
// surface (SURFACE.md).
// Usage: node ts_client.mjs --stdio CMD [ARGS...]
//        node ts_client.mjs --http URL
// Prints a JSON report to stdout; exits 1 on any mismatch, 2 on usage errors.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';

const TIMEOUT_MS = 30000;
const sdkVersion = createRequire(import.meta.url)('@modelcontextprotocol/sdk/package.json').version;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const texts = (content) => (content || []).filter((c) => c.type === 'text').map((c) => c.text);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function run(transport, report) {
  const check = (name, ok, detail) => report.checks.push({ name, ok: !!ok, detail });
  const logs = [];
  const client = new Client({ name: 'interop-ts-client', version: '1.0.0' }, { capabilities: {} });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const names = tools.tools.map((t) => t.name).sort();
    check('tools/list', ['echo', 'add', 'progress', 'log', 'fail'].every((n) => names.includes(n)), names);

    let r = await client.callTool({ name: 'echo', arguments: { text: 'interop ✓ text' } });
    check('tools/call echo', !r.isError && same(texts(r.content), ['interop ✓ text']), texts(r.content));

    r = await client.callTool({ name: 'add', arguments: { a: 2, b: 0.5 } });
    check('tools/call add', !r.isError && same(texts(r.content), ['2.5']), texts(r.content));

    const seen = [];
    r = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, CallToolResultSchema,
      { onprogress: (p) => seen.push(p) });
    await sleep(100);
    check('tools/call progress (progress notifications)',
      !r.isError && same(texts(r.content), ['done']) && same(seen.map((p) => p.progress), [1, 2, 3])
        && seen.every((p) => p.total === 3),
      { result: texts(r.content), progress: seen });

    await client.setLoggingLevel('debug');
    logs.length = 0;
    r = await client.callTool({ name: 'log', arguments: { message: 'interop log line', level: 'info' } });
    for (let i = 0; i < 100 && logs.length === 0; i++) await sleep(20);
    check('tools/call log (logging notification)',
      !r.isError && same(texts(r.content), ['logged'])
        && logs.some((l) => l.level === 'info' && l.data === 'interop log line'),
      { result: texts(r.content), logs });

    r = await client.callTool({ name: 'fail', arguments: {} });
    check('tools/call fail (isError)', r.isError === true && texts(r.content).some((t) => t.includes('intentional failure')),
      texts(r.content));

    const res = await client.listResources();
    const uris = res.resources.map((x) => x.uri);
    check('resources/list', uris.includes('mem://greeting'), uris);
    let rr = await client.readResource({ uri: 'mem://greeting' });
    check('resources/read mem://greeting', same(rr.contents.map((c) => c.text), ['hello']), rr.contents);
    const tl = await client.listResourceTemplates();
    const tmpls = tl.resourceTemplates.map((t) => t.uriTemplate);
    check('resources/templates/list', tmpls.includes('mem://items/{id}'), tmpls);
    rr = await client.readResource({ uri: 'mem://items/42' });
    check('resources/read mem://items/42', same(rr.contents.map((c) => c.text), ['item 42']), rr.contents);

    const pl = await client.listPrompts();
    const pnames = pl.prompts.map((p) => p.name);
    check('prompts/list', pnames.includes('greet'), pnames);
    const gp = await client.getPrompt({ name: 'greet', arguments: { name: 'Ferris' } });
    const msgs = gp.messages.map((m) => [m.role, m.content?.text]);
    check('prompts/get greet', msgs.some(([role, t]) => role === 'user' && typeof t === 'string' && t.includes('Ferris')), msgs);
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
    console.error('usage: ts_client.mjs --stdio CMD [ARGS...] | --http URL');
    process.exit(2);
  }
  const report = { client: `typescript @modelcontextprotocol/sdk ${sdkVersion}`, target, checks: [] };
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
