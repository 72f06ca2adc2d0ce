// Rate limiting shared by three Node servers on a real redis-server (rateLimit({ redisUrl })),
// the scenario of core/tests/integration/middleware_redis.rs with its test names: one client
// (keyed by its address, from a proxy's x-forwarded-for) sends 2026-07-28 calls to the servers
// in turn; once over its limit it is refused by every server with -32004 and the same
// retryAfter, limit and window (the bucket lives on Redis's clock), and is allowed again after
// it. Another address is not affected. A Redis away lets requests through; one back empty limits
// again. Needs redis-server (scripts/setup-test-deps --redis-only installs it; tests/run-node.sh
// does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { McpError, McpServer, rateLimit } from '../esm/index.mjs';
import { sleep, freePort } from './helpers.mjs';

const installed = spawnSync('redis-server', ['--version']).status === 0;
const skip = installed ? false : 'redis-server is not installed (scripts/setup-test-deps --redis-only installs it)';
const V = '2026-07-28';


/** A redis-server on a free port, without persistence, that a test may kill and start again
 * (empty) on the same port. */
class Redis {
  static async start() {
    const r = new Redis();
    r.port = await freePort();
    r.url = `redis://127.0.0.1:${r.port}/0`;
    await r.start();
    return r;
  }

  async start() {
    this.proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; ; i++) {
      const up = await new Promise((resolve) => {
        const c = net.connect(this.port, '127.0.0.1', () => {
          c.end();
          resolve(true);
        });
        c.on('error', () => resolve(false));
      });
      if (up) return;
      if (i > 500 || this.proc.exitCode !== null) throw new Error('redis-server did not start');
      await sleep(20);
    }
  }

  async kill() {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((resolve) => p.once('exit', resolve));
    p.kill('SIGKILL');
    await exited;
  }
}

/** A server limiting each client address (from the proxy's x-forwarded-for, trusted on
 * loopback) to 3 calls per 1.5 s, its buckets on `redisUrl`. */
function replica(redisUrl) {
  const s = new McpServer(
    { name: 'mw-redis', version: '1' },
    { middleware: [rateLimit({ limit: 3, windowMs: 1500, by: ['clientAddress'], addressHeader: 'x-forwarded-for', redisUrl })] },
  );
  s.registerTool('ping_tool', { description: 'Answers pong' }, () => 'pong');
  return s;
}

/** One 2026-07-28 tools/call of ping_tool from client address `addr`: the JSON-RPC answer, with
 * `status` (the HTTP status) and `retryAfterHeader` (the Retry-After header, or null). */
async function callFrom(url, id, addr) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'ping_tool',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': V,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'redis-test', version: '1' },
      },
    },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': 'ping_tool',
      'x-forwarded-for': addr,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const extra = { status: res.status, retryAfterHeader: res.headers.get('retry-after') };
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const msgs = text
      .split('\n')
      .filter((l) => l.startsWith('data:') && l.slice(5).trim())
      .map((l) => JSON.parse(l.slice(5)));
    return { ...msgs.filter((m) => 'id' in m).at(-1), ...extra };
  }
  // (A per-address limit answers before any JSON is read: 429, Retry-After, the error.)
  return { ...JSON.parse(text), ...extra };
}

const pong = (m) => m?.result?.content?.[0]?.text === 'pong';

test('three replicas share the buckets on redis', { skip }, async () => {
  const redis = await Redis.start();
  const servers = [];
  try {
    for (let i = 0; i < 3; i++) servers.push(await replica(redis.url).listen({ port: 0 }));
    const urls = servers.map((s) => s.url);
    // Three calls, one per server: the limit.
    for (const [i, url] of urls.entries()) {
      const m = await callFrom(url, i, '10.1.1.1');
      assert.ok(pong(m), `call ${i}: ${JSON.stringify(m)}`);
    }
    // Over the limit on every server, with the same retryAfter (within the few ms between the
    // calls).
    const retries = [];
    for (const [i, url] of urls.entries()) {
      const m = await callFrom(url, 10 + i, '10.1.1.1');
      assert.equal(m.error?.code, -32004, `server ${i}: ${JSON.stringify(m)}`);
      assert.equal(m.error.message, 'Rate limited');
      assert.equal(m.error.data.limit, 3);
      assert.equal(m.error.data.window, 1.5);
      assert.equal(m.status, 429);
      assert.equal(m.retryAfterHeader, String(Math.ceil(m.error.data.retryAfter)));
      retries.push(m.error.data.retryAfter);
    }
    const lo = Math.min(...retries);
    const hi = Math.max(...retries);
    assert.ok(lo > 0 && hi <= 0.5, `one token in 0.5 s: ${retries}`);
    assert.ok(hi - lo < 0.2, `servers agree: ${retries}`);
    // Another client is not affected.
    assert.ok(pong(await callFrom(urls[1], 20, '10.2.2.2')));
    // Allowed again after retryAfter, on any server; then over the limit again.
    await sleep(hi * 1000 + 50);
    let m = await callFrom(urls[2], 30, '10.1.1.1');
    assert.ok(pong(m), JSON.stringify(m));
    m = await callFrom(urls[0], 31, '10.1.1.1');
    assert.equal(m.error?.code, -32004, JSON.stringify(m));
  } finally {
    for (const s of servers) await s.close();
    await redis.kill();
  }
});

test('a redis away lets requests through', { skip }, async () => {
  const redis = await Redis.start();
  const server = await replica(redis.url).listen({ port: 0 });
  try {
    assert.ok(pong(await callFrom(server.url, 1, '10.3.3.3')));
    await redis.kill();
    // Four calls, one over the limit: all served while the store is away.
    for (let id = 2; id < 6; id++) {
      const m = await callFrom(server.url, id, '10.3.3.3');
      assert.ok(pong(m), JSON.stringify(m));
    }
    // A Redis back empty limits again once the server has reconnected.
    await redis.start();
    const deadline = Date.now() + 10_000;
    for (let id = 10; ; id++) {
      const m = await callFrom(server.url, id, '10.3.3.3');
      if (m.error?.code === -32004) break;
      assert.ok(pong(m), JSON.stringify(m));
      assert.ok(Date.now() < deadline, 'never limited again');
      await sleep(20);
    }
  } finally {
    await server.close();
    await redis.kill();
  }
});

test('a bad rateLimit redisUrl is refused', () => {
  // A configuration error: invalid params, naming the option, not repeating the URL.
  assert.throws(
    () => new McpServer({ name: 'x', version: '1' }, { middleware: [rateLimit({ limit: 3, windowMs: 1500, redisUrl: 'http://u:secret@127.0.0.1:6379' })] }),
    (e) => e instanceof McpError && e.code === -32602 && /redisUrl is not a Redis URL/.test(e.message) && !/secret/.test(e.message),
  );
});
