// The "everything" client on ferromcp's Node API.
//
//   MCP_CONFORMANCE_SCENARIO=NAME node everything_client.mjs URL
//       the client the official conformance suite drives in client mode (`core` suite), like
//       examples/python/everything_client.py; unknown scenario: lists the known ones, exit 1.
//   node everything_client.mjs --interop --stdio CMD ARGS... | --interop --http URL
//       checks a server exposing tests/interop/SURFACE.md and prints a JSON report
//       {ok, checks: [{name, ok, detail}], error?}, like examples/python/interop_client.py.
import { Client, ErrorCode, OAuth } from '../../bindings-node/esm/index.mjs';

// The 0.1.16 core suite and the alpha's 2026-07-28 client scenarios (every scenario runs with
// protocolMode 'auto': server/discover first, the initialize handshake where it is not offered).
// Every `auth/*` scenario runs the OAuth client too (`conformanceAuth`).
const EXERCISED = ['request-metadata', 'sep-2322-client-request-state', 'http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers'];
const SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry', ...EXERCISED, 'json-schema-ref-no-deref', 'json-schema-2020-12-preservation'];
/** The Client ID Metadata Document URL the suite expects (auth/basic-cimd). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const REDIRECT_URI = 'http://localhost:3000/callback';
const firstText = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

/** Fills every field the user left out with the schema's `default` (SEP-1034). */
function applyDefaults(schema, content) {
  const out = { ...content };
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop && typeof prop === 'object' && 'default' in prop && !(name in out)) out[name] = prop.default;
  }
  return out;
}

/**
 * The redirect step against the suite's mock authorization server, which approves at once:
 * request the authorization URL and return the Location it redirects to (a real host would
 * show the URL to the user instead).
 */
async function approve(authorizationUrl) {
  const r = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (Math.floor(r.status / 100) !== 3 || !location) {
    throw new Error(`authorization endpoint answered HTTP ${r.status}, no redirect`);
  }
  return location;
}

/** Connects with OAuth (pre-registered or client credentials from MCP_CONFORMANCE_CONTEXT),
 * lists the tools and calls each one. */
async function conformanceAuth(url) {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  const { client_id: clientId, client_secret: clientSecret } = context;
  const auth = new OAuth({
    onRedirect: approve,
    redirectUri: REDIRECT_URI,
    clientName: 'ferromcp-everything-client',
    clientId,
    clientSecret,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientCredentials: String(context.name ?? '').startsWith('auth/client-credentials') && clientId !== undefined && clientSecret !== undefined,
  });
  // The revision the suite runs at: 2026-07-28 speaks the per-request era (server/discover,
  // MCP-Protocol-Version on every request), falling back to the handshake on older servers.
  const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const era = revision && revision >= '2026-07-28' ? { protocolVersion: revision, protocolMode: 'auto' } : {};
  const client = await Client.http(url, { auth, name: 'ferromcp-everything-client', version: '0.1.0', ...era });
  try {
    const { tools } = await client.listTools();
    for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
  } finally {
    await client.close();
  }
}

/**
 * The 2026-07-28 scenarios' common run: the tool calls MCP_CONFORMANCE_CONTEXT names
 * (`toolCalls: [{name, arguments}]`), or else every listed tool called with `{}`, then every
 * resource read and every prompt got where the server offers them.
 */
async function exercise(client) {
  const tools = await client.listAllTools();
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  const calls = Array.isArray(context.toolCalls) ? context.toolCalls : tools.map((t) => ({ name: t.name, arguments: {} }));
  for (const c of calls) await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
  const caps = client.getServerCapabilities() ?? {};
  if (caps.resources) for (const r of (await client.listResources()).resources) await client.readResource({ uri: r.uri });
  if (caps.prompts) for (const p of (await client.listPrompts()).prompts) await client.getPrompt({ name: p.name, arguments: {} });
}

async function conformance(scenario, url) {
  if (scenario.startsWith('auth/')) return conformanceAuth(url);
  const client = await Client.http(url, {
    name: 'ferromcp-everything-client',
    version: '0.1.0',
    protocolMode: 'auto',
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'This is a test response from the client' }, model: 'test-model', stopReason: 'endTurn' }),
    elicitation: async (params) => ({ action: 'accept', content: applyDefaults(params.requestedSchema ?? {}, {}) }),
  });
  try {
    if (EXERCISED.includes(scenario)) {
      await exercise(client);
    } else if (scenario === 'json-schema-ref-no-deref') {
      await client.listAllTools(); // listing is the scenario: no network $ref fetched
    } else if (scenario === 'json-schema-2020-12-preservation') {
      const tool = (await client.listAllTools()).find((t) => t.name === 'json_schema_2020_12_tool');
      await client.callTool({ name: 'json_schema_echo', arguments: { schema: tool.inputSchema } });
    } else if (scenario === 'initialize') {
      try {
        await client.listTools();
      } catch (e) {
        if (e.code !== ErrorCode.MethodNotFound) throw e; // the mock server advertises no tools
      }
    } else if (scenario === 'tools_call') {
      const tools = await client.listAllTools();
      console.error('tools:', tools.map((t) => t.name));
      console.error('add_numbers ->', firstText(await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } })));
    } else if (scenario === 'elicitation-sep1034-client-defaults') {
      await client.listAllTools();
      console.error('result ->', firstText(await client.callTool({ name: 'test_client_elicitation_defaults', arguments: {} })));
    } else if (scenario === 'sse-retry') {
      await client.listAllTools();
      console.error('result ->', firstText(await client.callTool({ name: 'test_reconnection', arguments: {} })));
    }
  } finally {
    await Promise.race([client.close(), new Promise((r) => setTimeout(r, 5000).unref())]);
  }
}

async function interop(argv) {
  const checks = [];
  const add = (name, ok, detail) => checks.push({ name, ok: Boolean(ok), detail });
  const logs = [];
  const options = {
    name: 'interop-node-ferromcp-client',
    version: '1.0.0',
    onNotification: (n) => n.method === 'notifications/message' && logs.push(n.params),
  };
  let client;
  if (argv[0] === '--stdio' && argv.length >= 2) client = await Client.stdio({ command: argv[1], args: argv.slice(2) }, options);
  else if (argv[0] === '--http' && argv.length === 2) client = await Client.http(argv[1], options);
  else throw new Error('usage: everything_client.mjs --interop --stdio CMD ARGS... | --interop --http URL');
  try {
    const tools = (await client.listAllTools()).map((t) => t.name);
    add('tools/list', ['echo', 'add', 'progress', 'log', 'fail'].every((w) => tools.includes(w)), { tools, protocolVersion: client.protocolVersion });
    const text = 'interop ✓ text';
    let got = firstText(await client.callTool({ name: 'echo', arguments: { text } }));
    add('echo', got === text, { got });
    got = firstText(await client.callTool({ name: 'add', arguments: { a: 2, b: 0.5 } }));
    add('add', got === '2.5', { got });
    const seen = [];
    got = firstText(await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => seen.push({ progress: p.progress, total: p.total, message: p.message }) }));
    add('progress', JSON.stringify(seen.map((p) => p.progress)) === '[1,2,3]' && seen.every((p) => p.total === 3) && got === 'done', { notifications: seen, result: got });
    await client.setLoggingLevel('debug');
    got = firstText(await client.callTool({ name: 'log', arguments: { message: 'interop log line', level: 'info' } }));
    for (let i = 0; i < 20 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    add('log', logs.some((m) => m.level === 'info' && m.data === 'interop log line') && got === 'logged', { messages: logs, result: got });
    const r = await client.callTool({ name: 'fail', arguments: {} });
    got = firstText(r);
    add('fail', r.isError === true && got.includes('intentional failure'), { isError: r.isError, text: got });
    const texts = (read) => read.contents.filter((c) => 'text' in c).map((c) => c.text);
    const uris = (await client.listResources()).resources.map((x) => x.uri);
    let gotTexts = texts(await client.readResource({ uri: 'mem://greeting' }));
    add('resources', uris.includes('mem://greeting') && JSON.stringify(gotTexts) === '["hello"]', { uris, texts: gotTexts });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    gotTexts = texts(await client.readResource({ uri: 'mem://items/42' }));
    add('resource-templates', templates.includes('mem://items/{id}') && JSON.stringify(gotTexts) === '["item 42"]', { templates, texts: gotTexts });
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    const msgs = (await client.getPrompt({ name: 'greet', arguments: { name: 'Ferris' } })).messages;
    add('prompts', names.includes('greet') && msgs.some((m) => m.role === 'user' && (m.content?.text ?? '').includes('Ferris')), { prompts: names, messages: msgs });
  } finally {
    await client.close();
  }
  return checks;
}

const argv = process.argv.slice(2);
if (argv[0] === '--interop') {
  const report = { ok: false, checks: [] };
  const timer = setTimeout(() => {
    report.error = 'timed out after 30 s';
    console.log(JSON.stringify(report, null, 2));
    process.exit(1);
  }, 30_000);
  try {
    report.checks = await interop(argv.slice(1));
  } catch (e) {
    report.error = `${e.name}: ${e.message}`;
  }
  clearTimeout(timer);
  report.ok = report.checks.length > 0 && report.checks.every((c) => c.ok) && !report.error;
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.ok ? 0 : 1);
} else {
  if (argv.length !== 1) {
    console.error('usage: MCP_CONFORMANCE_SCENARIO=NAME everything_client.mjs URL');
    process.exit(2);
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  if (!SCENARIOS.includes(scenario) && !scenario.startsWith('auth/')) {
    console.error(`unknown scenario '${scenario}'; known: ${SCENARIOS.join(', ')}, auth/*`);
    process.exit(1);
  }
  try {
    await conformance(scenario, argv[0]);
  } catch (e) {
    console.error(`everything-client: ${scenario}: ${e.name}: ${e.message}`);
    process.exit(1);
  }
}
