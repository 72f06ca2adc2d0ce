// listen({ compression }): Content-Encoding of answers and request bodies (docs/compression.md).
// On by default: a large answer is gzip-encoded when the request's Accept-Encoding allows it and
// a gzip request body is decoded; an object of one's own is honoured; false answers as it is and
// refuses encoded bodies with 415. The scenarios of core/tests/integration/http_compression.rs and
// bindings-python/tests/test_compression.py. Requests go through node:http, which (unlike fetch)
// leaves the body as it crossed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gzipSync, gunzipSync } from 'node:zlib';
import { McpServer } from '../esm/index.mjs';

const TEXT = 'compressible '.repeat(2000); // 26,000 bytes
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'big', arguments: {} } });

function bigServer() {
  const server = new McpServer({ name: 'compression', version: '1.0.0' });
  server.registerTool('big', {}, () => TEXT);
  return server;
}

/** One POST: the status, the header fields and the raw body. */
function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const textOf = (body) => JSON.parse(body.toString()).result.content[0].text;

async function withServer(options, f) {
  const http = await bigServer().listen({ port: 0, stateless: true, jsonResponse: true, ...options });
  try {
    return await f(http.url);
  } finally {
    await http.close();
  }
}

for (const [name, options] of [
  ['by default', {}],
  ['with compression: true', { compression: true }],
  ['with options of its own', { compression: { codings: ['gzip'], minSize: 1, level: 'fastest' } }],
]) {
  test(`a large answer crosses gzip-encoded ${name}`, async () => {
    const r = await withServer(options, (url) => post(url, CALL, { 'accept-encoding': 'gzip' }));
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.ok(r.body.length < TEXT.length / 5, `${r.body.length} bytes`);
    assert.equal(textOf(gunzipSync(r.body)), TEXT);
  });
}

test('without Accept-Encoding the answer is sent as it is; a gzip request body is decoded', async () => {
  await withServer({}, async (url) => {
    const plain = await post(url, CALL);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(textOf(plain.body), TEXT);
    const zipped = await post(url, gzipSync(CALL), { 'content-encoding': 'gzip' });
    assert.equal(zipped.status, 200, zipped.body.toString());
    assert.equal(textOf(zipped.body), TEXT);
  });
});

test('compression: false answers as it is and refuses encoded bodies with 415', async () => {
  await withServer({ compression: false }, async (url) => {
    const r = await post(url, CALL, { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], undefined);
    assert.equal(textOf(r.body), TEXT);
    const zipped = await post(url, gzipSync(CALL), { 'content-encoding': 'gzip' });
    assert.equal(zipped.status, 415);
  });
});

test('bad compression options are refused before listening', async () => {
  await assert.rejects(bigServer().listen({ port: 0, compression: { codings: ['lzma'] } }), /unknown coding/);
});
