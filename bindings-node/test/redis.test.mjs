// Scale-out (issue 17): listen({ redisUrl }) keeps the sessions on Redis, so two servers on the
// same Redis serve one session: initialized on one, called on the other. Needs redis-server
// (scripts/setup-test-deps --redis-only installs it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { McpError } from '../esm/index.mjs';
import { demoServer, sleep, freePort } from './helpers.mjs';

const installed = spawnSync('redis-server', ['--version']).status === 0;
const skip = installed ? false : 'redis-server is not installed (scripts/setup-test-deps --redis-only installs it)';


let redis;
let redisPort;

before(async () => {
  if (!installed) return;
  redisPort = await freePort();
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const c = net.connect(redisPort, '127.0.0.1', () => {
        c.end();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (up) break;
    if (i > 500) throw new Error('redis-server did not start');
    await sleep(20);
  }
});

after(() => redis?.kill('SIGKILL'));

/** One JSON-RPC POST: the response head and the answer (from a JSON body or the SSE data line). */
async function post(url, message, session) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  if (session) headers['mcp-session-id'] = session;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await res.text();
  if (!text) return { res, answer: undefined };
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean);
    return { res, answer: JSON.parse(data.at(-1)) };
  }
  return { res, answer: JSON.parse(text) };
}

test('a session initialized on one server is served by the other', { skip }, async () => {
  const redisUrl = `redis://127.0.0.1:${redisPort}/0`;
  const one = await demoServer().listen({ port: 0, redisUrl });
  const two = await demoServer().listen({ port: 0, redisUrl });
  try {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const { res, answer } = await post(one.url, init);
    assert.equal(answer.result.serverInfo.name, 'demo');
    const session = res.headers.get('mcp-session-id');
    assert.ok(session);
    // The session's state is in Redis, under the store's key.
    const exists = spawnSync('redis-cli', ['-p', String(redisPort), 'EXISTS', `ferromcp:s:${session}`], { encoding: 'utf8' });
    assert.equal(exists.stdout.trim(), '1');
    await post(two.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } };
    const onTwo = await post(two.url, call, session);
    assert.equal(onTwo.answer.result.content[0].text, '5', JSON.stringify(onTwo.answer));
    const onOne = await post(one.url, { ...call, id: 3 }, session);
    assert.equal(onOne.answer.result.content[0].text, '5', JSON.stringify(onOne.answer));
  } finally {
    await one.close();
    await two.close();
  }
});

test('a bad redisUrl is an McpError with code -32602', async () => {
  await assert.rejects(demoServer().listen({ port: 0, redisUrl: 'http://127.0.0.1:6379' }), (e) => {
    assert.ok(e instanceof McpError, String(e));
    assert.equal(e.code, -32602);
    assert.match(e.message, /redisUrl/);
    return true;
  });
  assert.throws(() => demoServer().createHttpHandler({ redisUrl: 'not a url' }), (e) => {
    assert.ok(e instanceof McpError, String(e));
    assert.equal(e.code, -32602);
    return true;
  });
});
