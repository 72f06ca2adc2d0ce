// Drives one language's middleware, composition or MCP Apps example server over stdio with the
// official TypeScript SDK client and checks every answer; the MCP Apps output (each tool's `_meta.ui`, the
// `ui://` resource as `resources/list` lists it and as `resources/read` returns it) is checked
// against the MCP Apps extension's own schemas (@modelcontextprotocol/ext-apps, pinned in
// tests/package.json) and the SDK's MCP types. tests/run-examples.sh runs it for Rust, Python,
// Node and Swift.
//
//   node tests/examples/check.mjs LABEL middleware|composition|apps COMMAND [ARGS...]
//   node tests/examples/check.mjs --self-test
//
// A COMMAND ending in `.mts` is a Node example: its types are stripped by the binding's own
// TypeScript and it runs from inside bindings-node, so that `ferromcp` resolves to the binding.
// `--self-test` feeds the schema checks broken UI output (a wrong MIME type, malformed
// `_meta.ui`) and fails unless each one is refused, and a well-formed one is accepted; then
// hands the same declarations to ferromcp's helpers (the Node binding, built), which must
// refuse each or serve it corrected.
// Exit status 0 when every check passed; each failure is printed with what was received. With
// RESULTS set, what each apps server answered is written to $RESULTS/apps-LABEL.json.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ListResourcesResultSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** What each example's UI resource holds (the same in every language). */
const DASHBOARD = '<!doctype html><html><body><h1>Weather</h1><p id=now></p></body></html>';
const DASHBOARD_UI = {
  csp: { connectDomains: ['https://api.weather.example'] },
  permissions: { geolocation: {} },
  prefersBorder: true,
};

// ---- the schema checks ------------------------------------------------------------------------

/** The problems of `value` against a zod schema of ext-apps, strictly: a member the schema does
 * not define is a problem too (the extension's JSON Schema has `additionalProperties: false`;
 * its zod schemas would drop such members silently). */
function schemaProblems(schema, value, what) {
  const r = schema.safeParse(value);
  if (!r.success) return r.error.issues.map((i) => `${what}${i.path.map((p) => `.${p}`).join('')}: ${i.message}`);
  try {
    assert.deepStrictEqual(r.data, value);
  } catch {
    return [`${what}: members the extension does not define: got ${JSON.stringify(value)}, the schema keeps ${JSON.stringify(r.data)}`];
  }
  return [];
}

/** The problems of one tool of `tools/list` that names a UI: its `_meta.ui` against
 * `McpUiToolMeta`, a `ui://` resourceUri, and the deprecated flat key agreeing with it. */
export function toolUiProblems(tool) {
  const ui = tool?._meta?.ui;
  const what = `tool ${tool?.name}: _meta.ui`;
  if (ui === undefined) return [`${what} is missing`];
  const problems = schemaProblems(McpUiToolMetaSchema, ui, what);
  if (typeof ui?.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://')) {
    problems.push(`${what}.resourceUri must be a ui:// URI, got ${JSON.stringify(ui?.resourceUri)}`);
  }
  const flat = tool._meta[RESOURCE_URI_META_KEY];
  if (flat !== undefined && flat !== ui?.resourceUri) {
    problems.push(`tool ${tool.name}: _meta["${RESOURCE_URI_META_KEY}"] ${JSON.stringify(flat)} differs from _meta.ui.resourceUri`);
  }
  return problems;
}

/** The problems of a UI resource, as `resources/list` lists it or as one of the contents
 * `resources/read` returns: a `ui://` URI, the app MIME type, `_meta.ui` against
 * `McpUiResourceMeta`. */
export function uiResourceProblems(resource, what) {
  const problems = [];
  if (typeof resource?.uri !== 'string' || !resource.uri.startsWith('ui://')) {
    problems.push(`${what}: uri must be a ui:// URI, got ${JSON.stringify(resource?.uri)}`);
  }
  if (resource?.mimeType !== RESOURCE_MIME_TYPE) {
    problems.push(`${what}: mimeType must be ${JSON.stringify(RESOURCE_MIME_TYPE)}, got ${JSON.stringify(resource?.mimeType)}`);
  }
  const ui = resource?._meta?.ui;
  if (ui !== undefined) problems.push(...schemaProblems(McpUiResourceMetaSchema, ui, `${what}: _meta.ui`));
  return problems;
}

/** The problems of a whole result against the SDK's schema of that result. */
function mcpProblems(schema, value, what) {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${what}${i.path.map((p) => `.${p}`).join('')}: ${i.message}`);
}

function selfTest() {
  const good = { uri: 'ui://weather/dashboard', mimeType: RESOURCE_MIME_TYPE, text: DASHBOARD, _meta: { ui: DASHBOARD_UI } };
  const goodTool = { name: 't', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] }, [RESOURCE_URI_META_KEY]: 'ui://weather/dashboard' } };
  assert.deepEqual(uiResourceProblems(good, 'good'), []);
  assert.deepEqual(toolUiProblems(goodTool), []);
  const withUi = (ui) => ({ ...good, _meta: { ui } });
  const badResources = {
    'mimeType text/html': { ...good, mimeType: 'text/html' },
    'no mimeType': { uri: good.uri, text: DASHBOARD, _meta: good._meta },
    'an http uri': { ...good, uri: 'https://example.com/ui' },
    'csp.connectDomains a string': withUi({ csp: { connectDomains: 'https://a.example' } }),
    'an unknown csp key': withUi({ csp: { scriptDomains: ['https://a.example'] } }),
    'prefersBorder a string': withUi({ prefersBorder: 'yes' }),
    'a permission with members': withUi({ permissions: { camera: { always: true } } }),
    'an unknown permission': withUi({ permissions: { bluetooth: {} } }),
    'domain a number': withUi({ domain: 7 }),
    'an unknown member': withUi({ ...DASHBOARD_UI, theme: 'dark' }),
  };
  for (const [name, r] of Object.entries(badResources)) {
    assert.notDeepEqual(uiResourceProblems(r, name), [], `a UI resource with ${name} must be refused`);
  }
  const toolWithUi = (ui) => ({ ...goodTool, _meta: { ui } });
  const badTools = {
    'no _meta.ui': { name: 't', inputSchema: { type: 'object' } },
    'resourceUri a number': toolWithUi({ resourceUri: 5 }),
    'resourceUri outside ui://': toolWithUi({ resourceUri: 'https://example.com/ui' }),
    'visibility everyone': toolWithUi({ resourceUri: 'ui://a', visibility: ['everyone'] }),
    'a csp on the tool': toolWithUi({ resourceUri: 'ui://a', csp: { connectDomains: [] } }),
    'the flat key disagreeing': { ...goodTool, _meta: { ...goodTool._meta, [RESOURCE_URI_META_KEY]: 'ui://other' } },
  };
  for (const [name, t] of Object.entries(badTools)) {
    assert.notDeepEqual(toolUiProblems(t), [], `a tool with ${name} must be refused`);
  }
  const n = Object.keys(badResources).length + Object.keys(badTools).length;
  console.log(`ok  self-test: ${n} broken UI declarations refused, the well-formed ones accepted`);
  return { badResources, badTools };
}

/** The same broken declarations handed to ferromcp's helpers (the Node binding's
 * registerAppResource/registerAppTool; every binding's checks are the engine's one
 * implementation): each must be refused at registration, or be served corrected (what the
 * server then lists and reads passes the checks above). One exception, by design: a member of
 * a resource's `_meta.ui` the extension does not define is served as it is (the engine lets
 * unknown members through for extensions to come; the extension's zod schemas drop them). */
async function helpersRefuseWhatTheSchemasRefuse({ badResources, badTools }) {
  const ferromcp = await import(join(ROOT, 'bindings-node', 'esm', 'index.mjs'));
  const { McpServer, registerAppResource, registerAppTool } = ferromcp;
  const outcomes = {};
  const served = async (server, read) => {
    const c = await ferromcp.Client.memory(server);
    try {
      return await read(c);
    } finally {
      await c.close();
    }
  };
  for (const [name, r] of Object.entries(badResources)) {
    const server = new McpServer({ name: 'x', version: '1' });
    try {
      const config = { ...(r.mimeType ? { mimeType: r.mimeType } : {}), _meta: r._meta };
      registerAppResource(server, 'dashboard', r.uri, config, r.text);
    } catch (e) {
      outcomes[name] = `refused (${e.message})`;
      continue;
    }
    const problems = await served(server, async (c) => [
      ...(await c.listResources()).resources.flatMap((x) => uiResourceProblems(x, 'listed')),
      ...(await c.readResource({ uri: r.uri })).contents.flatMap((x) => uiResourceProblems(x, 'read')),
    ]);
    outcomes[name] = problems.length ? `served as it is: ${problems.join('; ')}` : 'served corrected';
  }
  for (const [name, t] of Object.entries(badTools)) {
    const server = new McpServer({ name: 'x', version: '1' });
    // The UIs the cases name, so that only the case's own fault can be refused.
    registerAppResource(server, 'a', 'ui://a', {}, DASHBOARD);
    registerAppResource(server, 'dashboard', 'ui://weather/dashboard', {}, DASHBOARD);
    try {
      registerAppTool(server, 't', { ...(t._meta ? { _meta: t._meta } : {}) }, () => 'x');
    } catch (e) {
      outcomes[name] = `refused (${e.message})`;
      continue;
    }
    const problems = await served(server, async (c) => (await c.listTools()).tools.flatMap(toolUiProblems));
    outcomes[name] = problems.length ? `served as it is: ${problems.join('; ')}` : 'served corrected';
  }
  const wrong = Object.entries(outcomes).filter(([name, o]) =>
    name === 'an unknown member' ? !o.startsWith('served as it is') : o.startsWith('served as it is'));
  for (const [name, o] of Object.entries(outcomes)) console.log(`    ${name}: ${o}`);
  assert.deepEqual(wrong, [], 'ferromcp\'s helpers refuse (or correct) what the extension\'s schemas refuse');
  console.log(`ok  self-test: ferromcp's helpers refuse or correct ${Object.keys(outcomes).length - 1} of them (the unknown member is let through by design)`);
}

// ---- the servers ------------------------------------------------------------------------------

/** A client of `command` over stdio; `capabilities` as the client declares them. With
 * `onStderr`, the server's stderr goes to it (text chunks) instead of this process's. */
async function connect(command, args, capabilities = {}, onStderr = undefined) {
  const transport = new StdioClientTransport({ command, args, stderr: onStderr ? 'pipe' : 'inherit' });
  transport.stderr?.on('data', (chunk) => onStderr(String(chunk)));
  const client = new Client({ name: 'examples-check', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

/** `[command, args, cleanup]` for an example: a `.mts` file is transpiled into bindings-node. */
function launcher(command, args) {
  if (!command.endsWith('.mts')) return [command, args, () => {}];
  const ts = createRequire(join(ROOT, 'bindings-node', 'package.json'))('typescript');
  const js = ts.transpileModule(readFileSync(command, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const dir = mkdtempSync(join(ROOT, 'bindings-node', 'test', '.example-check-'));
  const file = join(dir, 'example.mjs');
  writeFileSync(file, js);
  return [process.execPath, [file, ...args], () => rmSync(dir, { recursive: true, force: true })];
}

const text = (r) => r.content?.find((c) => c.type === 'text')?.text;

async function rejectsWith(promise, code, message) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof McpError, `an McpError, got ${e}`);
    assert.equal(e.code, code);
    assert.equal(e.message, `MCP error ${code}: ${message}`);
    return true;
  });
}

/** The middleware scenario of examples/rust/tests/integration/middleware_stdio.rs: the
 * example's own layer refuses `admin_*` tools to this client (not named `admin`), masking hides
 * the failing resource's details, the fourth `tools/call` of the session within 10 s is refused
 * with -32004 and its retryAfter, limit and window while other methods still answer, and the
 * timing layer wrote a line for the calls to stderr. */
async function checkMiddleware(command, args) {
  let stderr = '';
  const c = await connect(command, args, {}, (chunk) => {
    stderr += chunk;
  });
  try {
    const names = (await c.listTools()).tools.map((t) => t.name);
    for (const n of ['echo', 'admin_reset']) assert.ok(names.includes(n), `tools/list has ${n}: ${names}`);
    assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi', 'tools/call 1');
    await rejectsWith(c.callTool({ name: 'admin_reset', arguments: {} }), -32003, 'Permission denied'); // 2
    // The details ("db at 10.0.0.7 ...") stay in the server; not even data reaches the client.
    await assert.rejects(c.readResource({ uri: 'mem://secrets' }), (e) => {
      assert.equal(e.message, 'MCP error -32603: Internal error');
      assert.equal(e.data, undefined);
      return true;
    });
    assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'again' } })), 'again', 'tools/call 3');
    await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'over' } }), (e) => {
      assert.ok(e instanceof McpError, `an McpError, got ${e}`);
      assert.equal(e.message, 'MCP error -32004: Rate limited');
      assert.equal(e.data?.limit, 3);
      assert.equal(e.data?.window, 10);
      // One token of 3 comes back every 10/3 s.
      assert.ok(e.data.retryAfter > 0 && e.data.retryAfter <= 10 / 3, `retryAfter ${e.data.retryAfter}`);
      return true;
    });
    assert.deepEqual((await c.listTools()).tools.map((t) => t.name), names, 'tools/list is not limited');
    // The timing hook may run after the answer left: wait a little for its line.
    for (let i = 0; i < 100 && !/tools\/call echo/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(stderr, /tools\/call echo/, 'a timing line for the echo calls on stderr');
  } finally {
    await c.close();
  }
}

/** The composition scenario of examples/rust/tests/integration/composition_stdio.rs. */
async function checkComposition(command, args) {
  const c = await connect(command, args);
  try {
    const names = (await c.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names, ['notes_add', 'highs', 'weather_forecast'], 'tools/list');

    const f = await c.callTool({ name: 'weather_forecast', arguments: { city: 'Oslo', units: 'imperial', days: 2 } });
    assert.deepEqual(f.structuredContent?.days?.map((d) => [d.day, d.high, d.units]), [[0, 20, 'imperial'], [1, 21, 'imperial']]);
    const stations = await c.readResource({ uri: 'weather://weather/stations' });
    assert.deepEqual(stations.contents.map((x) => x.text), ['Oslo, Lima']);
    const listed = (await c.listResources()).resources.map((r) => r.uri);
    assert.deepEqual(listed, ['weather://weather/stations'], 'resources/list');

    assert.equal(text(await c.callTool({ name: 'notes_add', arguments: { text: 'hi' } })), 'noted: "hi"');
    await rejectsWith(c.callTool({ name: 'notes_admin_purge', arguments: {} }), -32602, 'Unknown tool: notes_admin_purge');

    const highs = (await c.listTools()).tools.find((t) => t.name === 'highs');
    assert.deepEqual(Object.keys(highs.inputSchema.properties).sort(), ['days', 'place'], 'highs takes place and days; units is hidden');
    assert.deepEqual(highs.inputSchema.required, ['place']);
    assert.equal(highs.inputSchema.properties.days.maximum, 3);
    const h = await c.callTool({ name: 'highs', arguments: { place: 'Lima' } });
    assert.deepEqual(h.structuredContent, { highs: [20, 21, 22] }, 'days defaults to 3, the highs alone');
    const capped = await c.callTool({ name: 'highs', arguments: { place: 'Lima', days: 5 } });
    assert.equal(capped.isError, true, 'days is capped at 3');
  } finally {
    await c.close();
  }
}

/** The MCP Apps scenario of core/tests/integration/mcp_apps.rs, checked against ext-apps. */
async function checkApps(label, command, args) {
  const problems = [];
  const c = await connect(command, args);
  let captured;
  try {
    const tools = await c.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    const resources = await c.request({ method: 'resources/list', params: {} }, ListResourcesResultSchema);
    const read = await c.request({ method: 'resources/read', params: { uri: 'ui://weather/dashboard' } }, ReadResourceResultSchema);
    // What the server sent, before the SDK's schemas could drop anything: read it raw too.
    captured = { tools: tools.tools, resources: resources.resources, read };
    problems.push(...mcpProblems(ListToolsResultSchema, tools, 'tools/list'));
    problems.push(...mcpProblems(ListResourcesResultSchema, resources, 'resources/list'));
    problems.push(...mcpProblems(ReadResourceResultSchema, read, 'resources/read'));

    const byName = Object.fromEntries(tools.tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['get_weather', 'refresh'], 'tools/list');
    for (const t of tools.tools) problems.push(...toolUiProblems(t));
    assert.deepEqual(byName.get_weather._meta.ui, { resourceUri: 'ui://weather/dashboard' });
    assert.equal(byName.get_weather._meta[RESOURCE_URI_META_KEY], 'ui://weather/dashboard');
    assert.deepEqual(byName.refresh._meta.ui, { resourceUri: 'ui://weather/dashboard', visibility: ['app'] });

    const ui = resources.resources.filter((r) => r.uri.startsWith('ui://'));
    assert.deepEqual(ui.map((r) => [r.uri, r.name]), [['ui://weather/dashboard', 'dashboard']], 'resources/list');
    problems.push(...uiResourceProblems(ui[0], 'resources/list ui://weather/dashboard'));
    assert.deepEqual(ui[0]._meta?.ui, DASHBOARD_UI, 'the listing carries _meta.ui');
    for (const t of tools.tools) {
      assert.ok(ui.some((r) => r.uri === t._meta.ui.resourceUri), `tool ${t.name}'s UI is listed`);
    }

    assert.equal(read.contents.length, 1);
    problems.push(...uiResourceProblems(read.contents[0], 'resources/read ui://weather/dashboard'));
    assert.equal(read.contents[0].uri, 'ui://weather/dashboard');
    assert.equal(read.contents[0].text, DASHBOARD);
    assert.deepEqual(read.contents[0]._meta?.ui, DASHBOARD_UI, 'the read carries _meta.ui');

    assert.equal(text(await c.callTool({ name: 'get_weather', arguments: {} })), 'Sunny, 21 °C', 'a client without UI');
    assert.equal(text(await c.callTool({ name: 'refresh', arguments: {} })), 'refreshed');
  } finally {
    await c.close();
  }
  const host = await connect(command, args, { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } });
  try {
    assert.equal(text(await host.callTool({ name: 'get_weather', arguments: {} })), 'Sunny (see the dashboard)', 'a client that renders UIs');
  } finally {
    await host.close();
  }
  if (process.env.RESULTS) writeFileSync(join(process.env.RESULTS, `apps-${label}.json`), JSON.stringify(captured, null, 2));
  assert.deepEqual(problems, [], 'against the MCP Apps extension schemas');
}

async function main() {
  const [label, kind, command, ...args] = process.argv.slice(2);
  if (label === '--self-test') return helpersRefuseWhatTheSchemasRefuse(selfTest());
  if (!command || !['middleware', 'composition', 'apps'].includes(kind)) {
    console.error('usage: check.mjs LABEL middleware|composition|apps COMMAND [ARGS...] | --self-test');
    process.exit(2);
  }
  const [cmd, cmdArgs, cleanup] = launcher(command, args);
  try {
    if (kind === 'middleware') await checkMiddleware(cmd, cmdArgs);
    else if (kind === 'composition') await checkComposition(cmd, cmdArgs);
    else await checkApps(label, cmd, cmdArgs);
    console.log(`ok  ${label} ${kind}`);
  } finally {
    cleanup();
  }
}

main().catch((e) => {
  console.error(`FAILED  ${process.argv.slice(2, 4).join(' ')}: ${e.stack ?? e}`);
  process.exit(1);
});
