// sseKeepAliveMs: an open SSE stream that carries nothing gets a `: keep-alive` comment this
// often (default 15 000 ms), so proxies that cut idle connections leave it open; null turns the
// comments off. The scenarios of core/tests/integration/http_sse_keep_alive.rs and
// bindings-python/tests/test_sse_keep_alive.py, through listen() and createHttpHandler().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { demoServer } from './helpers.mjs';

const COMMENT = ': keep-alive\n\n';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Initializes a session at `url` and returns its id. */
async function initialize(url) {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const r = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(init) });
  assert.equal(r.status, 200);
  await r.text();
  const session = r.headers.get('mcp-session-id');
  const note = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(note.status, 202);
  return session;
}

/** Everything the session's GET stream carries for `ms`. */
async function readGetStream(url, session, ms) {
  const stop = new AbortController();
  const r = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    signal: stop.signal,
  });
  assert.equal(r.status, 200);
  const timer = setTimeout(() => stop.abort(), ms);
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of r.body) text += decoder.decode(chunk, { stream: true });
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
  }
  return text;
}

const count = (text) => text.split(COMMENT).length - 1;

test('an idle GET stream gets keep-alive comments on schedule', async () => {
  const http = await demoServer().listen({ port: 0, sseKeepAliveMs: 100 });
  try {
    const text = await readGetStream(http.url, await initialize(http.url), 550);
    assert.ok(count(text) >= 3 && count(text) <= 6, `${count(text)} comments in ${JSON.stringify(text)}`);
  } finally {
    await http.close();
  }
});

test('keep-alive comments can be turned off', async () => {
  const http = await demoServer().listen({ port: 0, sseKeepAliveMs: null });
  try {
    const text = await readGetStream(http.url, await initialize(http.url), 400);
    assert.ok(!text.includes('keep-alive'), JSON.stringify(text));
  } finally {
    await http.close();
  }
});

test('createHttpHandler sends them too', async () => {
  const handler = demoServer().createHttpHandler({ sseKeepAliveMs: 100 });
  const server = createServer((req, res) => void handler.handleNode(req, res).catch(() => res.destroy()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  try {
    const text = await readGetStream(url, await initialize(url), 550);
    assert.ok(count(text) >= 3, `${count(text)} comments in ${JSON.stringify(text)}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
