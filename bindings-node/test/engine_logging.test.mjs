// The engine's log events reach Node (issue 37 point 2): by default one line per event on
// stderr at `info` and above (`FERROMCP_LOG` sets the level), or a function given to
// setLogHandler. Scenario names as in bindings-python/tests/test_engine_logging.py and the
// Swift EngineLoggingTests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, logLevel, maskErrors, McpError, McpServer, requestLog, setLogHandler, setLogLevel } from '../esm/index.mjs';
import { until } from './helpers.mjs';

/** A server with a tool `echo`, a resource whose handler fails, and `layers`. */
function server(...layers) {
  const s = new McpServer({ name: 'logged', version: '1.0.0' }, { middleware: layers });
  s.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  s.registerResource('orders', 'db://orders', {}, () => {
    throw new Error('password authentication failed for user "app"');
  });
  return s;
}

/** Collects the records of the engine in `records` for the duration of `body`. */
async function collecting(body) {
  const records = [];
  assert.equal(setLogHandler((r) => records.push(r), { level: 'info' }), true, 'the forwarder is installed');
  try {
    await body(records);
  } finally {
    setLogHandler(null, { level: 'info' });
  }
}

test('request log reaches the host logger', async () => {
  await collecting(async (records) => {
    const c = await Client.memory(server(requestLog()));
    await c.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await until(() => records.some((r) => r.fields.method === 'tools/call'), 5000, 'the tools/call record');
    await c.close();
    const r = records.find((x) => x.fields.method === 'tools/call');
    assert.equal(r.level, 'info');
    assert.equal(r.logger, 'ferromcp.request');
    assert.equal(r.target, 'ferromcp::request');
    assert.equal(r.fields.tool, 'echo');
    assert.equal(r.fields.outcome, 'ok');
    assert.ok(Number.isInteger(r.fields.duration_us) && r.fields.duration_us >= 0, `a duration: ${r.fields.duration_us}`);
    assert.match(r.line, /^request method=tools\/call tool=echo .*duration_us=\d+ outcome=ok/);
  });
});

test('masked error detail is logged server side', async () => {
  await collecting(async (records) => {
    const c = await Client.memory(server(maskErrors()));
    await assert.rejects(c.readResource({ uri: 'db://orders' }), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32603);
      assert.equal(e.message, 'Internal error');
      assert.doesNotMatch(JSON.stringify(e.data ?? null), /password/);
      return true;
    });
    await until(() => records.some((r) => r.logger === 'ferromcp.masked'), 5000, 'the masked record');
    await c.close();
    const r = records.find((x) => x.logger === 'ferromcp.masked');
    assert.equal(r.level, 'error');
    assert.equal(r.fields.method, 'resources/read');
    assert.equal(r.fields.code, -32603);
    assert.match(r.fields.detail, /password authentication failed/);
  });
});

test('the level is checked and changed', () => {
  setLogLevel('warn');
  assert.equal(logLevel(), 'warn');
  setLogLevel('off');
  assert.equal(logLevel(), 'off');
  setLogLevel('info');
  assert.equal(logLevel(), 'info');
  assert.throws(() => setLogLevel('loud'), TypeError);
  assert.throws(() => setLogHandler(42), TypeError);
});

// The default, without a handler: a line on stderr, at FERROMCP_LOG's level (info when unset).
const child = `
  const { Client, McpServer, requestLog } = require(${JSON.stringify(fileURLToPath(new URL('../dist/index.js', import.meta.url)))});
  (async () => {
    const s = new McpServer({ name: 'logged', version: '1.0.0' }, { middleware: [requestLog()] });
    s.registerTool('echo', {}, () => 'hi');
    const c = await Client.memory(s);
    await c.callTool({ name: 'echo' });
    await c.close();
  })();
`;

/** The child's stderr, run with FERROMCP_LOG unset unless `extra` sets it. */
function runChild(extra) {
  const { FERROMCP_LOG: _unset, ...env } = process.env;
  const r = spawnSync(process.execPath, ['-e', child], { env: { ...env, ...extra }, encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr;
}

test('request log lines go to stderr by default', () => {
  assert.match(runChild({}), /^ferromcp INFO ferromcp\.request: request method=tools\/call tool=echo .*outcome=ok/m);
  assert.doesNotMatch(runChild({ FERROMCP_LOG: 'warn' }), /ferromcp\.request/);
});
