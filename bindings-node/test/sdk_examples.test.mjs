// The official TypeScript SDK's own examples, ported by changing the package in their imports
// only (issue 33, "Node drop-in"). The examples are read from the installed
// @modelcontextprotocol/sdk (tests/node_modules, `npm ci` in tests/), never copied into this
// repository: each is copied to a temporary directory with `'../../<path>'` (the SDK's
// `@modelcontextprotocol/sdk/<path>`) rewritten to `'ferromcp/<path>'`, and run:
//   - each example server, driven by the SDK's own client (Streamable HTTP, HTTP+SSE or stdio);
//   - each example client to its end, against a ported example server (or, for the client
//     credentials grant no example offers, a fixture); its output is checked.
// The only help they get is test/fixtures/sdk_example_preload.mjs (`node --import`): their
// fixed ports (3000, 3001, or PORT=0) become free ones; an interactive client gets its user's
// typing (in a pseudo-terminal, util-linux `script`, for the one in raw mode). An example that
// does not port with the import change alone would have a test named with the reason that
// checks it (`noPort`, `fails`; none today), a helper module of the examples (`helper`, not
// counted) one checking that it imports and runs; the README's counts are checked against
// these tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BINDING = path.resolve(HERE, '..');
const TESTS_NM = path.resolve(BINDING, '../tests/node_modules');
const SDK = path.join(TESTS_NM, '@modelcontextprotocol/sdk');
const EXAMPLES = path.join(SDK, 'dist/esm/examples');
const PRELOAD = path.join(HERE, 'fixtures/sdk_example_preload.mjs');
const have = fs.existsSync(EXAMPLES);
const skip = have ? false : 'the TypeScript SDK is not installed (npm ci in tests/)';

/** Copies the SDK's examples with the package name changed in their imports. */
function portExamples() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferromcp-sdk-examples-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  const nm = path.join(dir, 'node_modules');
  fs.mkdirSync(nm);
  // The examples' own dependencies: ferromcp instead of the SDK, and their third-party imports.
  fs.symlinkSync(BINDING, path.join(nm, 'ferromcp'));
  for (const dep of ['express', 'cors', 'hono', '@hono', 'ajv']) {
    if (fs.existsSync(path.join(TESTS_NM, dep))) fs.symlinkSync(path.join(TESTS_NM, dep), path.join(nm, dep));
  }
  fs.symlinkSync(path.join(BINDING, 'node_modules/zod'), path.join(nm, 'zod'));
  for (const sub of ['server', 'client', 'shared']) {
    fs.mkdirSync(path.join(dir, sub));
    for (const f of fs.readdirSync(path.join(EXAMPLES, sub))) {
      if (!f.endsWith('.js')) continue;
      const src = fs.readFileSync(path.join(EXAMPLES, sub, f), 'utf8');
      // The built examples import the SDK relatively ('../../server/mcp.js' is
      // '@modelcontextprotocol/sdk/server/mcp.js'); both spellings become 'ferromcp/...'.
      const ported = src
        .replace(/(from\s+|import\s*\(\s*)'\.\.\/\.\.\/([^']+)'/g, "$1'ferromcp/$2'")
        .replace(/(from\s+|import\s*\(\s*)'@modelcontextprotocol\/sdk\/([^']+)'/g, "$1'ferromcp/$2'");
      fs.writeFileSync(path.join(dir, sub, f), ported);
    }
  }
  return dir;
}

const dir = have ? portExamples() : null;
process.on('exit', () => dir && fs.rmSync(dir, { recursive: true, force: true }));

const sdk = have
  ? {
      Client: (await import(pathToFileURL(path.join(SDK, 'dist/esm/client/index.js')))).Client,
      Http: (await import(pathToFileURL(path.join(SDK, 'dist/esm/client/streamableHttp.js')))).StreamableHTTPClientTransport,
      Stdio: (await import(pathToFileURL(path.join(SDK, 'dist/esm/client/stdio.js')))).StdioClientTransport,
      Sse: (await import(pathToFileURL(path.join(SDK, 'dist/esm/client/sse.js')))).SSEClientTransport,
      types: await import(pathToFileURL(path.join(SDK, 'dist/esm/types.js'))),
    }
  : null;

/** Starts a ported example; resolves with its port (HTTP) once it listens, and a stop function. */
function start(file, { env = {}, http = true, args = [], ready, port } = {}) {
  const child = spawn(process.execPath, ['--import', pathToFileURL(PRELOAD).href, file, ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const output = () => out;
  if (!http) return Promise.resolve({ child, stop, output, exited });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not listen in 20 s:\n${out}`)), 20_000);
    // Listening: the preload's line, or (`ready`) a line of the example's own on a known port.
    const look = () => {
      const m = ready ? (ready.test(out) ? [null, port] : null) : /FERROMCP_EXAMPLE_PORT=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        child.stderr.off('data', look);
        resolve({ port: Number(m[1]), child, stop, output, exited });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code}) before listening:\n${out}`));
    });
  });
}

/** Initialize, list and call with the SDK's client over Streamable HTTP. */
async function driveHttp(port, check, clientOptions = {}) {
  const client = new sdk.Client({ name: 'sdk-client', version: '1.0.0' }, clientOptions);
  const transport = new sdk.Http(new URL(`http://localhost:${port}/mcp`));
  await client.connect(transport);
  try {
    await check(client, transport);
  } finally {
    await client.close();
  }
}

/** Initialize, list and call with the SDK's client over the deprecated HTTP+SSE transport. */
async function driveSse(port, ssePath, check) {
  const client = new sdk.Client({ name: 'sdk-sse-client', version: '1.0.0' });
  const transport = new sdk.Sse(new URL(`http://localhost:${port}${ssePath}`));
  await client.connect(transport);
  try {
    await check(client, transport);
  } finally {
    await client.close();
  }
}

/**
 * The periodic-notification tool of the SSE examples, called with 3 notifications 10 ms apart:
 * its answer, and its log messages (all of them, in order, before the answer).
 */
async function notificationStream(client, answer, logsExpected) {
  const logs = [];
  client.setNotificationHandler(sdk.types.LoggingMessageNotificationSchema, (n) => logs.push(n.params.data));
  const r = await client.callTool({ name: 'start-notification-stream', arguments: { interval: 10, count: 3 } });
  assert.equal(text(r), answer);
  assert.equal(logs.length, logsExpected.length, `log messages: ${logs}`);
  logsExpected.forEach((re, i) => assert.match(logs[i], re));
}

const PERIODIC = [/^Periodic notification #1 at /, /^Periodic notification #2 at /, /^Periodic notification #3 at /];

const text = (result) => result.content.map((c) => c.text ?? '').join('\n');

/** A helper of other examples, not a program: it exports `name` and, run, does nothing. */
function helperModule(name) {
  return async (file) => {
    assert.equal(typeof (await import(pathToFileURL(path.join(dir, file)).href))[name], 'function');
    const { exited, output } = await start(file, { http: false });
    assert.deepEqual(await exited, { code: 0, signal: null });
    assert.equal(output(), '');
  };
}

/**
 * The SDK's task stream (`client.experimental.tasks.callToolStream`) on a tool of
 * simpleTaskInteractive: the messages it yielded, by type, with the task's id.
 */
async function taskStream(client, name, args) {
  const seen = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, sdk.types.CallToolResultSchema, { task: { ttl: 60_000 } })) {
    seen.push(m);
  }
  return seen;
}

/**
 * An authorization-code grant with PKCE against an authorization server (`issuer`), as a
 * client would do it by hand: metadata, registration, the user's visit to /authorize (whose
 * redirect carries the code; its cookies are kept) and the token request. Resolves with the
 * token response, the cookies and what the steps saw.
 */
async function authorizationCodeGrant(issuer, resource, { verifier = 'v'.repeat(43) } = {}) {
  const { createHash } = await import('node:crypto');
  const meta = await (await fetch(new URL('/.well-known/oauth-authorization-server', issuer))).json();
  assert.equal(meta.issuer, issuer);
  assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
  const redirectUri = 'http://localhost:1/callback';
  const reg = await fetch(meta.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'test', token_endpoint_auth_method: 'client_secret_post' }),
  });
  assert.equal(reg.status, 201);
  const client = await reg.json();
  assert.ok(client.client_id && client.client_secret, JSON.stringify(client));
  const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
  const authorize = new URL(meta.authorization_endpoint);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'st', resource })) {
    authorize.searchParams.set(k, v);
  }
  const visit = await fetch(authorize, { redirect: 'manual' });
  assert.equal(visit.status, 302);
  const back = new URL(visit.headers.get('location'));
  assert.equal(back.origin + back.pathname, redirectUri);
  assert.equal(back.searchParams.get('state'), 'st');
  const code = back.searchParams.get('code');
  const cookie = visit.headers.get('set-cookie')?.split(';')[0];
  const token = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id, client_secret: client.client_secret, resource }),
  });
  return { meta, client, token, cookie };
}

/**
 * elicitationUrlExample: a resource server whose bearer tokens come from its own demo
 * authorization server (mcpAuthRouter, mcpAuthMetadataRouter, requireBearerAuth), with tools
 * answering -32042 (URL elicitation required) and completing the elicitation later.
 */
async function elicitationUrlServer(file) {
  const [mcpPort, authPort] = await freePorts(2);
  const s = await start(file, {
    env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    ready: /MCP Streamable HTTP Server listening on port(.|\n)*OAuth Authorization Server listening|OAuth Authorization Server listening(.|\n)*MCP Streamable HTTP Server listening on port/,
    port: mcpPort,
  });
  try {
    const mcpUrl = `http://localhost:${mcpPort}/mcp`;
    // Without a token: 401 with the RFC 9728 metadata URL, which names the authorization server.
    const bare = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(bare.status, 401);
    const prmUrl = `http://localhost:${mcpPort}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(bare.headers.get('www-authenticate'), `Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="${prmUrl}"`);
    const prm = await (await fetch(prmUrl)).json();
    assert.deepEqual(prm, { resource: mcpUrl, authorization_servers: [`http://localhost:${authPort}/`], scopes_supported: ['mcp:tools'], resource_name: 'MCP Demo Server' });
    // A wrong PKCE verifier is refused; the right one gets a token.
    const wrong = await authorizationCodeGrant(prm.authorization_servers[0], mcpUrl, { verifier: 'w'.repeat(43) });
    assert.equal(wrong.token.status, 400);
    assert.equal((await wrong.token.json()).error, 'invalid_grant');
    const { token, cookie } = await authorizationCodeGrant(prm.authorization_servers[0], mcpUrl);
    assert.equal(token.status, 200);
    const { access_token: accessToken, token_type: tokenType } = await token.json();
    assert.equal(tokenType, 'bearer');
    const badToken = await fetch(mcpUrl, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(badToken.status, 500, 'the example verifier throws a plain Error for an unknown token: server_error, as with the SDK');
    // With the token: the SDK's client, declaring URL elicitation.
    const client = new sdk.Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const completed = [];
    client.setNotificationHandler(sdk.types.ElicitationCompleteNotificationSchema, (n) => completed.push(n.params.elicitationId));
    const transport = new sdk.Http(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['payment-confirm', 'third-party-auth']);
      // payment-confirm: -32042 naming the app's confirmation page; the user confirms there
      // (with the login cookie the authorization server set) and the client hears of it.
      const pay = await client.callTool({ name: 'payment-confirm', arguments: { cartId: 'cart-7' } }).catch((e) => e);
      assert.equal(pay.code, -32042, String(pay));
      const [payElicitation] = pay.data.elicitations;
      assert.equal(payElicitation.mode, 'url');
      const page = new URL(payElicitation.url);
      assert.equal(page.pathname, '/confirm-payment');
      assert.equal(page.searchParams.get('session'), transport.sessionId);
      assert.equal(page.searchParams.get('cartId'), 'cart-7');
      const form = await fetch(page, { headers: { cookie } });
      assert.match(await form.text(), /Confirm Payment(.|\n)*Cart ID:<\/strong> cart-7/);
      const confirm = await fetch(new URL('/confirm-payment', page), {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ session: transport.sessionId, elicitation: payElicitation.elicitationId, cartId: 'cart-7', action: 'confirm' }),
      });
      assert.match(await confirm.text(), /Payment Confirmed/);
      const deadline = Date.now() + 5000;
      while (!completed.includes(payElicitation.elicitationId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(completed, [payElicitation.elicitationId], 'notifications/elicitation/complete on the session stream');
      // third-party-auth: -32042, completed by the server itself 5 s later.
      const auth = await client.callTool({ name: 'third-party-auth', arguments: { param1: 'x' } }).catch((e) => e);
      assert.equal(auth.code, -32042, String(auth));
      const [authElicitation] = auth.data.elicitations;
      assert.equal(authElicitation.url, 'https://www.example.com/oauth/authorize');
      const later = Date.now() + 8000;
      while (!completed.includes(authElicitation.elicitationId) && Date.now() < later) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(completed, [payElicitation.elicitationId, authElicitation.elicitationId]);
    } finally {
      await client.close();
    }
  } catch (e) {
    e.message += `\n--- ${file} output ---\n${s.output()}`;
    throw e;
  } finally {
    await s.stop();
  }
}

// Server examples: how each is driven. `noPort` says why one does not port with the imports
// alone (its test checks that reason: `fails`); `helper`: not an example server (not counted).
const SERVERS = {
  'jsonResponseStreamableHttp.js': async ({ port }) =>
    driveHttp(port, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['greet', 'multi-greet']);
      assert.equal(text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })), 'Hello, Ada!');
    }),
  'simpleStatelessStreamableHttp.js': async ({ port }) =>
    driveHttp(port, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['start-notification-stream']);
      const { prompts } = await client.listPrompts();
      assert.equal(prompts[0].name, 'greeting-template');
      const r = await client.callTool({ name: 'start-notification-stream', arguments: { interval: 10, count: 2 } });
      assert.match(text(r), /Started sending periodic notifications every 10ms/);
      const res = await client.readResource({ uri: 'https://example.com/greetings/default' });
      assert.equal(res.contents[0].text, 'Hello, world!');
    }),
  'standaloneSseWithGetStreamableHttp.js': async ({ port }) =>
    driveHttp(port, async (client, transport) => {
      assert.ok(transport.sessionId, 'a session id');
      let changed = 0;
      client.setNotificationHandler(sdk.types.ResourceListChangedNotificationSchema, () => changed++);
      const { resources } = await client.listResources();
      assert.ok(Array.isArray(resources));
      // The example adds a resource every 5 s; the list_changed arrives on the GET stream.
      const deadline = Date.now() + 12_000;
      while (changed === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(changed > 0, 'notifications/resources/list_changed on the standalone GET stream');
      const again = await client.listResources();
      assert.ok(again.resources.length > 0);
      const read = await client.readResource({ uri: again.resources[0].uri });
      assert.match(read.contents[0].text, /content for/);
    }),
  'ssePollingExample.js': async ({ port, output }) =>
    driveHttp(port, async (client, transport) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['long-task']);
      const logs = [];
      client.setNotificationHandler(sdk.types.LoggingMessageNotificationSchema, (n) => logs.push(n.params.data));
      const r = await client.callTool({ name: 'long-task', arguments: {} });
      assert.equal(text(r), 'Long task completed successfully!');
      assert.ok(logs.some((l) => /100%/.test(l)), `logs after the stream was closed and resumed: ${logs}`);
      // This example routes DELETE to the transport: the session ends and its onclose runs.
      const sid = transport.sessionId;
      await transport.terminateSession();
      await new Promise((r) => setTimeout(r, 100));
      assert.match(output(), new RegExp(`\\[${sid}\\] Transport closed, removing from sessions map`));
    }),
  'elicitationFormExample.js': async ({ port }) =>
    driveHttp(
      port,
      async (client) => {
        client.setRequestHandler(sdk.types.ElicitRequestSchema, async (req) => {
          assert.equal(req.params.mode, 'form');
          return { action: 'accept', content: { username: 'ada', email: 'ada@example.com', password: 'secret123', newsletter: true } };
        });
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['create_event', 'register_user', 'update_shipping_address']);
        const r = await client.callTool({ name: 'register_user', arguments: {} });
        assert.match(text(r), /Registration successful!\n\nUsername: ada\nEmail: ada@example.com\nNewsletter: Yes/);
      },
      { capabilities: { elicitation: { form: {} } } },
    ),
  'mcpServerOutputSchema.js': { stdio: true, drive: async (client) => {
    const { tools } = await client.listTools();
    assert.ok(tools[0].outputSchema, 'an outputSchema');
    const r = await client.callTool({ name: tools[0].name, arguments: { city: 'Paris', country: 'FR' } });
    assert.ok(r.structuredContent, JSON.stringify(r));
  } },
  'progressExample.js': { stdio: true, drive: async (client) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['count']);
    const progress = [];
    const r = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(text(r), 'Counted to 3');
    assert.deepEqual(progress, [1, 2, 3]);
  } },
  'toolWithSampleServer.js': { stdio: true, sampling: true, drive: async (client) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['summarize']);
    const r = await client.callTool({ name: 'summarize', arguments: { text: 'a long text' } });
    assert.equal(text(r), 'a short summary');
  } },
  'simpleStreamableHttp.js': async ({ port, output }) =>
    // Its tools, prompts and resources, and its task tools of the SDK's experimental server
    // task API (registerToolTask over the app's InMemoryTaskStore, elicitInputStream).
    driveHttp(
      port,
      async (client, transport) => {
        assert.ok(transport.sessionId, 'a session id');
        assert.deepEqual(client.getServerCapabilities().tasks, { requests: { tools: { call: {} } } });
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        for (const n of ['greet', 'multi-greet', 'collect-user-info', 'collect-user-info-task', 'delay', 'start-notification-stream', 'list-files']) assert.ok(names.includes(n), `${n} in ${names}`);
        assert.equal(tools.find((t) => t.name === 'delay').execution.taskSupport, 'required');
        assert.equal(text(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })), 'Hello, Ada!');
        // delay: a task created by the app's createTask, polled with tasks/get, its result from the store.
        const delay = await taskStream(client, 'delay', { duration: 200 });
        assert.equal(delay[0].type, 'taskCreated');
        assert.equal(delay.at(-1).type, 'result', JSON.stringify(delay));
        assert.equal(text(delay.at(-1).result), 'Completed 200ms delay');
        const taskId = delay[0].task.taskId;
        assert.deepEqual(delay.at(-1).result._meta, { [sdk.types.RELATED_TASK_META_KEY]: { taskId } });
        assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
        assert.ok((await client.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === taskId));
        await assert.rejects(client.experimental.tasks.getTask('no-such-task'), /Task not found: no-such-task/);
        // collect-user-info-task: the task's work elicits (elicitInputStream) after createTask answered.
        const elicited = [];
        client.setRequestHandler(sdk.types.ElicitRequestSchema, async (req) => {
          elicited.push(req.params.message);
          return { action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } };
        });
        const info = await taskStream(client, 'collect-user-info-task', {});
        assert.equal(info.at(-1).type, 'result', JSON.stringify(info));
        const collected = /^Collected contact info: (\{[\s\S]*\})$/.exec(text(info.at(-1).result));
        assert.ok(collected, text(info.at(-1).result));
        assert.deepEqual(JSON.parse(collected[1]), { name: 'Ada', email: 'ada@example.com' });
        assert.deepEqual(elicited, ['Please provide your contact information']);
        // A task call of an unknown argument value is refused by the tool's schema.
        await assert.rejects(
          client.request({ method: 'tools/call', params: { name: 'collect-user-info-task', arguments: { infoType: 'shoe size' }, task: { ttl: 1000 } } }, sdk.types.CreateTaskResultSchema),
          /Invalid arguments for tool collect-user-info-task: infoType/,
        );
        const { prompts } = await client.listPrompts();
        assert.ok(prompts.some((p) => p.name === 'greeting-template'));
        const res = await client.readResource({ uri: 'file:///example/file1.txt' });
        assert.equal(res.contents[0].text, 'This is the content of file 1');
        assert.match(output(), /Session initialized with ID: /);
      },
      { capabilities: { elicitation: { form: {} } } },
    ),
  'elicitationUrlExample.js': { run: elicitationUrlServer },
  'demoInMemoryOAuthProvider.js': { helper: true, fails: helperModule('setupAuthServer'), noPort: 'the OAuth authorization-server helper of two examples, not an MCP server, not counted' },
  'simpleSseServer.js': async ({ port, output }) =>
    driveSse(port, '/mcp', async (client, transport) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['start-notification-stream']);
      await notificationStream(client, 'Completed sending 3 notifications every 10ms', [
        /^Starting notification stream with 3 messages every 10ms$/,
        /^Notification #1 at /,
        /^Notification #2 at /,
        /^Notification #3 at /,
      ]);
      // The app keeps its transports by the id the transport had before the stream opened.
      assert.match(output(), /Established SSE stream with session ID: [0-9a-f-]{36}/);
      const sid = /Established SSE stream with session ID: ([0-9a-f-]{36})/.exec(output())[1];
      await transport.close();
      const deadline = Date.now() + 5000;
      while (!output().includes(`SSE transport closed for session ${sid}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.match(output(), new RegExp(`SSE transport closed for session ${sid}`));
    }),
  'sseAndStreamableHttpCompatibleServer.js': async ({ port }) => {
    // Both transports of the one app: the SDK's Streamable HTTP client on /mcp ...
    await driveHttp(port, async (client, transport) => {
      assert.ok(transport.sessionId, 'a session id');
      await notificationStream(client, 'Started sending periodic notifications every 10ms', PERIODIC);
    });
    // ... and its HTTP+SSE client on /sse; log messages reach the session by extra.sessionId.
    await driveSse(port, '/sse', async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['start-notification-stream']);
      await notificationStream(client, 'Started sending periodic notifications every 10ms', PERIODIC);
    });
  },
  'honoWebStandardStreamableHttp.js': async ({ port }) => {
    const health = await fetch(`http://localhost:${port}/health`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    await driveHttp(port, async (client, transport) => {
      assert.equal(transport.sessionId, undefined, 'stateless');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['greet']);
      const r = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      assert.equal(text(r), 'Hello, Ada! (from Hono + WebStandard transport)');
    });
  },
  'simpleTaskInteractive.js': async ({ port, output }) =>
    // The low-level Server with its own tasks/get and tasks/result handlers over its own task
    // store and message queue: the task-augmented call answers the app's CreateTaskResult, the
    // elicitation and sampling requests reach the client while tasks/result is open.
    driveHttp(
      port,
      async (client, transport) => {
        assert.ok(transport.sessionId, 'a session id');
        assert.deepEqual(client.getServerCapabilities().tasks, { requests: { tools: { call: {} } } });
        const elicited = [];
        client.setRequestHandler(sdk.types.ElicitRequestSchema, async (req) => {
          elicited.push(req.params);
          return { action: 'accept', content: { confirm: true } };
        });
        client.setRequestHandler(sdk.types.CreateMessageRequestSchema, async (req) => ({
          role: 'assistant',
          model: 'test-model',
          content: { type: 'text', text: `a haiku on ${req.params.messages[0].content.text}` },
        }));
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => [t.name, t.execution?.taskSupport]), [['confirm_delete', 'required'], ['write_haiku', 'required']]);
        const del = await taskStream(client, 'confirm_delete', { filename: 'a.txt' });
        assert.deepEqual(del.map((m) => m.type), ['taskCreated', 'taskStatus', 'result'], JSON.stringify(del));
        const taskId = del[0].task.taskId;
        assert.equal(del[1].task.taskId, taskId);
        assert.equal(text(del[2].result), "Deleted 'a.txt'");
        assert.deepEqual(del[2].result._meta, { [sdk.types.RELATED_TASK_META_KEY]: { taskId } });
        assert.equal(elicited.length, 1);
        assert.equal(elicited[0].message, "Are you sure you want to delete 'a.txt'?");
        assert.deepEqual(elicited[0]._meta, { [sdk.types.RELATED_TASK_META_KEY]: { taskId } });
        const haiku = await taskStream(client, 'write_haiku', { topic: 'rain' });
        assert.equal(text(haiku.at(-1).result), 'Haiku:\na haiku on Write a haiku about rain');
        // tasks/get of the app's store: the task has completed; an unknown id is an error.
        assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
        await assert.rejects(client.experimental.tasks.getTask('no-such-task'), /Task no-such-task not found|Internal error/);
        assert.match(output(), new RegExp(`tasks/result called for task ${taskId}`));
      },
      { capabilities: { elicitation: { form: {} }, sampling: {} } },
    ),
};

const serverFiles = have ? fs.readdirSync(path.join(EXAMPLES, 'server')).filter((f) => f.endsWith('.js')) : [];

test('every SDK example server is in the table', { skip }, () => {
  assert.deepEqual(serverFiles.filter((f) => !(f in SERVERS)), []);
});

for (const [file, spec] of Object.entries(SERVERS)) {
  if (spec.noPort) {
    test(spec.helper ? `SDK example helper ${file} imports and runs (${spec.noPort})` : `SDK example server ${file} does not port: ${spec.noPort}`, { skip, timeout: 60_000 }, () => spec.fails(`server/${file}`));
    continue;
  }
  test(`SDK example server ${file}`, { skip, timeout: 60_000 }, async () => {
    if (spec.run) return spec.run(`server/${file}`);
    if (typeof spec === 'function') {
      // PORT=0: the examples that read their port from PORT (simpleTaskInteractive) take a free one.
      const s = await start(`server/${file}`, { env: { PORT: '0' } });
      try {
        await spec(s);
      } catch (e) {
        e.message += `\n--- ${file} output ---\n${s.output()}`;
        throw e;
      } finally {
        await s.stop();
      }
      return;
    }
    // stdio: the SDK's StdioClientTransport spawns the ported example.
    const client = new sdk.Client({ name: 'sdk-client', version: '1.0.0' }, spec.sampling ? { capabilities: { sampling: {} } } : {});
    if (spec.sampling) {
      client.setRequestHandler(sdk.types.CreateMessageRequestSchema, async () => ({
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: 'a short summary' },
      }));
    }
    const transport = new sdk.Stdio({ command: process.execPath, args: [`server/${file}`], cwd: dir, stderr: 'pipe' });
    let err = '';
    transport.stderr?.on('data', (d) => (err += d));
    await client.connect(transport);
    try {
      await spec.drive(client);
    } catch (e) {
      e.message += `\n--- ${file} stderr ---\n${err}`;
      throw e;
    } finally {
      await client.close();
    }
  });
}

/** `n` ports free now (bound to port 0 and released). */
async function freePorts(n) {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise((r) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => r(s)); })),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/**
 * The third-party service simpleClientCredentials needs: an authorization server with the
 * client credentials grant (client m2m-client, secret m2m-secret, HTTP Basic or form) and a
 * ferromcp server protected by it. Resolves with its port, the example's environment, the
 * token requests seen and stop().
 */
async function clientCredentialsFixture({ expectedIssuer } = {}) {
  const [mcpPort] = await freePorts(1);
  const tokenRequests = [];
  const as = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const base = `http://localhost:${as.address().port}`;
      const json = (status, v) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (req.method === 'GET' && req.url === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: base,
          token_endpoint: `${base}/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        });
      }
      if (req.method === 'POST' && req.url === '/token') {
        const form = new URLSearchParams(body);
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
        const [id, secret] = basic
          ? Buffer.from(basic[1], 'base64').toString().split(':').map(decodeURIComponent)
          : [form.get('client_id'), form.get('client_secret')];
        tokenRequests.push(`${form.get('grant_type')} ${id}:${secret}`);
        if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
        if (id !== 'm2m-client' || secret !== 'm2m-secret') return json(401, { error: 'invalid_client' });
        return json(200, { access_token: 'm2m-token', token_type: 'Bearer', expires_in: 3600 });
      }
      res.writeHead(404).end();
    });
  });
  await new Promise((r) => as.listen(0, '127.0.0.1', r));
  const issuer = `http://localhost:${as.address().port}`;
  const { McpServer, ProtectedResource } = await import('../esm/index.mjs');
  const server = new McpServer({ name: 'm2m', version: '1' });
  server.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth?.clientId}`);
  const resource = `http://localhost:${mcpPort}/mcp`;
  const auth = new ProtectedResource({
    resource,
    authorizationServers: [issuer],
    verify: (token) => (token === 'm2m-token' ? { subject: 'machine', clientId: 'm2m-client', audience: resource } : null),
  });
  const listening = await server.listen({ port: mcpPort, host: '127.0.0.1', auth });
  return {
    port: mcpPort,
    tokenRequests,
    env: { MCP_SERVER_URL: resource, MCP_CLIENT_ID: 'm2m-client', MCP_CLIENT_SECRET: 'm2m-secret', MCP_EXPECTED_ISSUER: expectedIssuer ?? issuer },
    output: () => '',
    stop: async () => {
      await listening.close();
      await new Promise((r) => as.close(r));
    },
  };
}

/** The user's browser: opens the last authorization URL the client printed (following redirects). */
async function openAuthorizationUrl(out) {
  const urls = [...out.matchAll(/Please open this URL in your browser to authorize:\n\s+(\S+)/g)];
  assert.ok(urls.length > 0, 'an authorization URL was printed');
  const r = await fetch(urls[urls.length - 1][1]);
  assert.equal(r.status, 200, `the redirect back to the client: ${r.status} ${await r.text()}`);
}

/**
 * Runs a ported example client to its end; resolves with its exit code and output. `answers`
 * are a user's typing: when the output so far matches an answer's prompt (past the previous
 * one), its text is written to the client's stdin.
 */
async function runClient(file, serverPort, args = [], answers = [], pty = false, env = {}) {
  const argv = [process.execPath, '--import', pathToFileURL(PRELOAD).href, file, ...args];
  // A client that puts its terminal in raw mode runs in a pseudo-terminal (util-linux script).
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const [cmd, cmdArgs] = pty ? ['script', ['-qfec', quoted, '/dev/null']] : [argv[0], argv.slice(1)];
  const child = spawn(cmd, cmdArgs, {
    cwd: dir,
    env: { ...process.env, FERROMCP_EXAMPLE_SERVER_PORT: String(serverPort), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let answered = 0;
  let seen = 0;
  const typeAnswers = () => {
    while (answered < answers.length) {
      const [prompt, text] = answers[answered];
      const m = prompt.exec(out.slice(seen));
      if (!m) break;
      seen += m.index + m[0].length;
      answered++;
      // Text is typed; a function acts as the user otherwise (e.g. opens a URL in a browser).
      if (typeof text === 'function') {
        Promise.resolve(text(out)).catch((e) => {
          out += `\n[test: the user's action failed: ${e}]\n`;
        });
      } else child.stdin.write(text);
    }
  };
  child.stdout.on('data', (d) => {
    out += String(d).replaceAll('\r\n', '\n');
    typeAnswers();
  });
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const code = await new Promise((r) => child.once('exit', (c, s) => r(c ?? s)));
  clearTimeout(timer);
  return { code, out };
}

// Client examples: which ported server each runs against, and what its output must show.
const CLIENTS = {
  'multipleClientsParallel.js': {
    server: 'simpleStatelessStreamableHttp.js',
    check: (out) => {
      // The stateless server has no stream for notifications outside a request (as with the SDK).
      assert.match(out, /\[client3\] Tool result:\n  Started sending periodic notifications every 1ms/);
      assert.match(out, /All clients completed successfully/);
    },
  },
  'parallelToolCallsClient.js': {
    server: 'simpleStatelessStreamableHttp.js',
    check: (out) => {
      assert.match(out, /start-notification-stream/);
      assert.match(out, /burst-notifier/);
      assert.doesNotMatch(out, /Error/);
    },
  },
  'ssePollingClient.js': {
    server: 'ssePollingExample.js',
    check: (out) => {
      assert.match(out, /Tool completed!/);
      assert.match(out, /Long task completed successfully!/);
    },
  },
  'streamableHttpWithSseFallbackClient.js': {
    // A server of the deprecated HTTP+SSE transport only: the Streamable HTTP attempt fails
    // (404) and the example falls back to SSEClientTransport.
    server: 'simpleSseServer.js',
    check: (out) => {
      assert.match(out, /StreamableHttp transport connection failed/);
      assert.match(out, /Successfully connected using deprecated HTTP\+SSE transport/);
      assert.match(out, /start-notification-stream/);
      assert.match(out, /Notification: info - Notification #5 at /);
      assert.match(out, /Tool result:\n  Completed sending 5 notifications every 1000ms/);
      assert.match(out, /Disconnected from MCP server/);
    },
  },
  'simpleStreamableHttp.js': {
    // An interactive command line in raw mode (a pseudo-terminal), against the ported
    // simpleStreamableHttp server; the user types commands.
    server: 'simpleStreamableHttp.js',
    pty: true,
    args: () => [],
    answers: [
      [/\n> /, 'list-tools\n'],
      [/\n> /, 'greet Ada\n'],
      [/\n> /, 'call-tool-task delay {"duration":300}\n'],
      [/\n> /, 'list-prompts\n'],
      [/\n> /, 'list-resources\n'],
      [/\n> /, 'quit\n'],
    ],
    check: (out) => {
      assert.match(out, /Transport created with session ID: [0-9a-f-]{36}\nConnected to MCP server/);
      assert.match(out, /Available tools:\n(.|\n)*id: greet/);
      assert.match(out, /Hello, Ada!/);
      assert.match(out, /Task created successfully with ID: \S+/);
      assert.match(out, /Task completed!\nTool result:\n  Completed 300ms delay/);
      assert.match(out, /Available prompts:\n(.|\n)*id: greeting-template/);
      assert.match(out, /Available resources:/);
      assert.match(out, /Terminating session before exit\.\.\.\nSession terminated successfully/);
      assert.match(out, /Goodbye!/);
    },
  },
  'simpleTaskInteractiveClient.js': {
    // Against the ported simpleTaskInteractive (tasks that elicit and sample); the user
    // answers its confirmation "y".
    server: 'simpleTaskInteractive.js',
    args: (url) => ['--url', url],
    answers: [[/Your response \(y\/n\): /, 'y\n']],
    check: (out) => {
      assert.match(out, /Available tools: .*confirm_delete/);
      assert.match(out, /Task created: \S+/);
      assert.match(out, /\[Elicitation\] Server asks: .*important\.txt/);
      assert.match(out, /\[Elicitation\] Responding with: confirm=true/);
      assert.match(out, /Result: Deleted 'important\.txt'/);
      assert.match(out, /\[Sampling\] Server requests LLM completion for: .*autumn leaves/);
      assert.match(out, /Result:\nHaiku:\nCherry blossoms fall\nSoftly on the quiet pond\nSpring whispers goodbye/);
      assert.match(out, /Demo complete\. Closing connection\.\.\./);
    },
  },
  'simpleOAuthClient.js': {
    // Against the ported simpleStreamableHttp server with --oauth (its demo authorization
    // server, which approves at once); the user opens the printed URL, then types commands.
    portedServer: 'simpleStreamableHttp.js',
    oauthServer: true,
    answers: [
      [/OAuth callback server started on http:\/\/localhost:8090/, openAuthorizationUrl],
      [/mcp> /, 'list\n'],
      [/mcp> /, 'call greet {"name":"Ada"}\n'],
      [/mcp> /, 'quit\n'],
    ],
    check: (out) => {
      assert.match(out, /🔐 OAuth required - waiting for authorization\.\.\./);
      assert.match(out, /✅ Authorization code received: /);
      assert.match(out, /🔌 Reconnecting with authenticated transport\.\.\.\n🚢 Creating transport with OAuth provider\.\.\.(.|\n)*✅ Connected successfully/);
      assert.match(out, /📋 Available tools:\n1\. greet/);
      assert.match(out, /🔧 Tool 'greet' result:\nHello, Ada!/);
      assert.match(out, /👋 Goodbye!/);
    },
  },
  'simpleOAuthClientProvider.js': { helper: true, fails: helperModule('InMemoryOAuthClientProvider'), noPort: 'the OAuthClientProvider helper of two examples, not a client, not counted' },
  'simpleClientCredentials.js': {
    // No SDK example offers the client credentials grant (its demo authorization server
    // refuses it): the third-party service it needs is played by a small authorization server
    // and a ferromcp server protected by it (clientCredentialsFixture).
    fixture: () => clientCredentialsFixture(),
    args: () => [],
    check: (out, fixture) => {
      assert.match(out, /Using client_secret_basic authentication\nConnected successfully\.\nAvailable tools: whoami\n/);
      assert.deepEqual(fixture.tokenRequests, ['client_credentials m2m-client:m2m-secret']);
    },
  },
  'simpleClientCredentials.js (another issuer)': {
    // The same example told another issuer: refused before the secret goes anywhere.
    file: 'simpleClientCredentials.js',
    variant: true,
    fixture: () => clientCredentialsFixture({ expectedIssuer: 'https://auth.example.com' }),
    args: () => [],
    exitCode: 1,
    check: (out, fixture) => {
      assert.match(out, /issuer_mismatch|https:\/\/auth\.example\.com/);
      assert.deepEqual(fixture.tokenRequests, [], 'no token request: the secret was not sent');
    },
  },
  'elicitationUrlExample.js': {
    // Against the ported elicitationUrlExample server (OAuth always on, its own demo
    // authorization server): authorize, then the third-party-auth tool answers -32042 with a
    // URL elicitation, which the user accepts; the server completes it 5 s later.
    portedServer: 'elicitationUrlExample.js',
    oauthServer: 'always',
    pty: true,
    args: () => [],
    answers: [
      [/OAuth callback server started on http:\/\/localhost:8090/, openAuthorizationUrl],
      [/\n> /, 'third-party-auth\n'],
      [/Do you want to open this URL in your browser\? \(y\/n\): /, 'y\n'],
      [/Elicitation \S+ completed!/, 'quit\n'],
    ],
    check: (out) => {
      assert.match(out, /🔐 OAuth required - waiting for authorization\.\.\./);
      assert.match(out, /Transport created with session ID: [0-9a-f-]{36}\n✅ Connected successfully/);
      assert.match(out, /🔔 Elicitation Required Error Received:/);
      assert.match(out, /🌐 Target domain: \x1b\[36mwww\.example\.com/);
      assert.match(out, /🔗 Please open this URL in your browser:\n  https:\/\/www\.example\.com\/oauth\/authorize/);
      const id = /🆔 Elicitation ID: (\S+)/.exec(out)?.[1];
      assert.ok(id, 'an elicitation id');
      assert.match(out, new RegExp(`✅ Elicitation ${id} completed!`));
    },
  },
};

const clientFiles = have ? fs.readdirSync(path.join(EXAMPLES, 'client')).filter((f) => f.endsWith('.js')) : [];

test('every SDK example client is in the table', { skip }, () => {
  assert.deepEqual(clientFiles.filter((f) => !(f in CLIENTS)), []);
  assert.deepEqual(Object.entries(CLIENTS).filter(([f, s]) => !clientFiles.includes(s.file ?? f)).map(([f]) => f), []);
});

for (const [file, spec] of Object.entries(CLIENTS)) {
  if (spec.noPort) {
    test(spec.helper ? `SDK example helper ${file} imports and runs (${spec.noPort})` : `SDK example client ${file} does not port: ${spec.noPort}`, { skip, timeout: 60_000 }, () => spec.fails(`client/${file}`));
    continue;
  }
  test(`SDK example client ${file}`, { skip, timeout: 90_000 }, async () => {
    const program = spec.file ?? file;
    // A ported example server (with its demo authorization server for `oauthServer`), or a fixture.
    let server;
    if (spec.fixture) {
      server = await spec.fixture();
    } else if (spec.oauthServer) {
      // The ported server with its demo authorization server, on free ports of their own (the
      // metadata names them, and the client's engine fetches them directly).
      const [mcpPort, authPort] = await freePorts(2);
      server = await start(`server/${spec.portedServer}`, {
        args: spec.oauthServer === true ? ['--oauth'] : [],
        env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
        ready: /MCP Streamable HTTP Server listening on port/,
        port: mcpPort,
      });
    } else {
      server = await start(`server/${spec.server}`, { env: { PORT: '0' } });
    }
    try {
      const url = `http://localhost:${server.port}/mcp`;
      const { code, out } = await runClient(`client/${program}`, server.port, spec.args ? spec.args(url) : [url], spec.answers ?? [], spec.pty, server.env);
      try {
        assert.equal(code, spec.exitCode ?? 0, 'exit code');
        spec.check(out, server);
      } catch (e) {
        e.message += `\n--- ${file} output ---\n${out}\n--- server output ---\n${server.output()}`;
        throw e;
      }
    } finally {
      await server.stop();
    }
  });
}

/** `Servers: N of the M` / `Clients: N of the M` in README.md, as counted from the tables. */
test('the README states the counts of the tables: examples that port, of those that are not helpers', { skip }, () => {
  const readme = fs.readFileSync(path.join(BINDING, 'README.md'), 'utf8');
  for (const [label, table] of [['Servers', SERVERS], ['Clients', CLIENTS]]) {
    const specs = Object.values(table).filter((s) => !s.helper && !s.variant);
    const ported = specs.filter((s) => !s.noPort).length;
    assert.match(readme, new RegExp(`\\*\\*${label}: ${ported} of the ${specs.length} run with only the imports changed\\*\\*`));
  }
});
