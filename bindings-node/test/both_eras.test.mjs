// One example server, unchanged, under both protocol eras: examples/node/interop_server.mjs is
// started once over Streamable HTTP, and a handshake client (protocolMode 'handshake',
// 2025-11-25: `initialize`) and a per-request client ('auto', which must settle on 2026-07-28:
// `server/discover` and `_meta` on every request) each run the interop surface
// (tests/interop/SURFACE.md) against that same process, one after the other and side by side.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '../esm/index.mjs';
import { until } from './helpers.mjs';

const SERVER = fileURLToPath(new URL('../../examples/node/interop_server.mjs', import.meta.url));
let child;
let url;

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const canConnect = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

before(async () => {
  const port = await freePort();
  child = spawn(process.execPath, [SERVER, '--transport', 'http', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  await until(async () => {
    assert.ok(!exited, 'the interop server exited before listening');
    return canConnect(port);
  }, 20000, 'the interop server to listen');
  url = `http://127.0.0.1:${port}/mcp`;
});

after(() => child?.kill());

const text = (r) => r.content.map((c) => c.text).join('');

/** Runs the interop surface with one client in `mode`; returns the revision it settled on. */
async function surface(mode) {
  const logs = [];
  const c = await Client.http(url, {
    protocolMode: mode,
    onNotification: (n) => n.method === 'notifications/message' && logs.push(n.params),
  });
  try {
    const names = (await c.listAllTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['add', 'echo', 'fail', 'log', 'progress'], mode);
    assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'interop ✓ text' } })), 'interop ✓ text');
    assert.equal(text(await c.callTool({ name: 'add', arguments: { a: 2, b: 0.5 } })), '2.5');

    const seen = [];
    const r = await c.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => seen.push([p.progress, p.total]) });
    assert.equal(text(r), 'done');
    assert.deepEqual(seen, [[1, 3], [2, 3], [3, 3]], mode);

    await c.setLoggingLevel('info');
    assert.equal(text(await c.callTool({ name: 'log', arguments: { message: 'below the level', level: 'debug' } })), 'logged');
    assert.equal(text(await c.callTool({ name: 'log', arguments: { message: 'interop log line', level: 'warning' } })), 'logged');
    await until(() => logs.length > 0, 1000, 'the log message').catch(() => {});
    assert.deepEqual(logs.map((m) => [m.level, m.data]), [['warning', 'interop log line']], mode);

    const failed = await c.callTool({ name: 'fail', arguments: {} });
    assert.ok(failed.isError && text(failed).includes('intentional failure'), mode);

    assert.deepEqual((await c.listResources()).resources.map((x) => x.uri), ['mem://greeting'], mode);
    assert.deepEqual((await c.readResource({ uri: 'mem://greeting' })).contents.map((x) => x.text), ['hello'], mode);
    assert.deepEqual((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate), ['mem://items/{id}'], mode);
    assert.deepEqual((await c.readResource({ uri: 'mem://items/42' })).contents.map((x) => x.text), ['item 42'], mode);

    assert.deepEqual((await c.listPrompts()).prompts.map((p) => p.name), ['greet'], mode);
    const got = await c.getPrompt({ name: 'greet', arguments: { name: 'Ferris' } });
    assert.equal(got.messages[0].content.text, 'Hello, Ferris!', mode);
    return c.protocolVersion;
  } finally {
    await c.close();
  }
}

test('both eras: a handshake client (2025-11-25)', async () => {
  assert.equal(await surface('handshake'), '2025-11-25');
});

test('both eras: a per-request client (auto settles on 2026-07-28)', async () => {
  assert.equal(await surface('auto'), '2026-07-28');
});

test('both eras: side by side on the same server', async () => {
  assert.deepEqual(await Promise.all([surface('handshake'), surface('perRequest')]), ['2025-11-25', '2026-07-28']);
});
