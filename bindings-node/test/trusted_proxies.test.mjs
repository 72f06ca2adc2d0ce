// rateLimit({ by: ['clientAddress'], addressHeader, trustedProxies }): the forwarding header is
// believed only on connections from a trusted proxy, and its rightmost address that is not a
// trusted proxy is the client. Over HTTP (listen()) from 127.0.0.1 with X-Forwarded-For; the
// same scenario as bindings-python/tests/test_trusted_proxies.py and core's
// tests/integration/client_address.rs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer, rateLimit } from '../esm/index.mjs';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** The status of an initialize POST from this host with X-Forwarded-For: forwarded. */
async function status(url, forwarded) {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-forwarded-for': forwarded,
    },
    body: INIT,
  });
  await r.arrayBuffer();
  return r.status;
}

async function serve(trustedProxies) {
  const s = new McpServer({ name: 'proxied', version: '1' });
  s.use(rateLimit({ limit: 2, windowMs: 60_000, by: ['clientAddress'], addressHeader: 'x-forwarded-for', trustedProxies }));
  return s.listen({ host: '127.0.0.1', port: 0 });
}

test('the forwarding header is read only from trusted proxies, rightmost untrusted first', async () => {
  // 127.0.0.1 is not a trusted proxy: every request is the peer's, whatever the header says.
  const untrusted = await serve(['10.0.0.0/8']);
  try {
    assert.equal(await status(untrusted.url, '198.51.100.1'), 200);
    assert.equal(await status(untrusted.url, '198.51.100.2'), 200);
    assert.equal(await status(untrusted.url, '198.51.100.3'), 429);
  } finally {
    await untrusted.close();
  }
  // 127.0.0.1 trusted: each forwarded client has its own bucket, and an entry the client
  // wrote left of its own address does not move it to another bucket.
  const trusted = await serve(['127.0.0.1', '10.0.0.0/8']);
  try {
    assert.equal(await status(trusted.url, '198.51.100.1'), 200);
    assert.equal(await status(trusted.url, '198.51.100.1, 10.0.0.9'), 200);
    assert.equal(await status(trusted.url, '6.6.6.6, 198.51.100.1'), 429);
    assert.equal(await status(trusted.url, '198.51.100.2'), 200);
  } finally {
    await trusted.close();
  }
  // A range that is not one is refused, naming it.
  await assert.rejects(async () => (await serve(['10.0.0.0/33'])).close(), /10\.0\.0\.0\/33/);
});
