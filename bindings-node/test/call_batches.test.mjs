// Many calls in flight at once, every kind of answer mixed (a sync value, a promise of the
// official SDK's one-text-block result (`answerText` in src/handler.rs), of a value read as
// JSON text (`answerJson`), of one walked value by value, a rejection, a throw): each must get
// its own answer. Written for a batched hand-over (f1f3888, reverted), whose batches mixed
// every kind; each call crosses on its own today (ts/dispatch.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpServer } from '../esm/index.mjs';

function server() {
  const s = new McpServer({ name: 'batches', version: '1' });
  const text = { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
  s.registerTool('official', text, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerTool('sync', text, ({ text }) => `sync ${text}`);
  s.registerTool('later', text, async ({ text }) => {
    await new Promise((r) => setTimeout(r, 1));
    return `later ${text}`;
  });
  // Not plain JSON (a float): walked, beside plain answers of the same turn.
  s.registerTool('float', text, async ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { f: 0.5 } }));
  // A lone surrogate: JSON.stringify escapes it, the engine cannot read that text, so the
  // answer is walked instead.
  s.registerTool('surrogate', text, async ({ text }) => `a\ud800b ${text}`);
  s.registerTool('rejects', text, async ({ text }) => {
    throw new Error(`no ${text}`);
  });
  s.registerTool('throws', text, ({ text }) => {
    throw new Error(`sync no ${text}`);
  });
  return s;
}

const KINDS = ['official', 'sync', 'later', 'float', 'surrogate', 'rejects', 'throws'];

/** What the call `tool` with `text` must answer. */
function expected(tool, text) {
  switch (tool) {
    case 'official':
      return { content: [{ type: 'text', text }] };
    case 'sync':
    case 'later':
      return { content: [{ type: 'text', text: `${tool} ${text}` }] };
    case 'float':
      return { content: [{ type: 'text', text }], structuredContent: { f: 0.5 } };
    case 'surrogate':
      // The walk reads a lone surrogate as U+FFFD, as it always did.
      return { content: [{ type: 'text', text: `a\ufffdb ${text}` }] };
    case 'rejects':
      return { content: [{ type: 'text', text: `no ${text}` }], isError: true };
    case 'throws':
      return { content: [{ type: 'text', text: `sync no ${text}` }], isError: true };
  }
  throw new Error(tool);
}

test('hundreds of calls in flight, every kind of answer mixed, each gets its own answer', async () => {
  const client = await Client.memory(server());
  try {
    for (let round = 0; round < 3; round++) {
      const calls = Array.from({ length: 350 }, (_, i) => {
        const tool = KINDS[(i * 5 + round) % KINDS.length];
        const text = `r${round} #${i}`;
        return client.callTool({ name: tool, arguments: { text } }).then((r) => [tool, text, r]);
      });
      for (const [tool, text, r] of await Promise.all(calls)) assert.deepEqual(r, expected(tool, text), `${tool} ${text}`);
    }
  } finally {
    await client.close();
  }
});

test('the official form alone, many in flight over HTTP from several clients', async () => {
  const http = await server().listen({ host: '127.0.0.1', port: 0 });
  try {
    const clients = await Promise.all(Array.from({ length: 4 }, () => Client.http(http.url)));
    for (let round = 0; round < 5; round++) {
      const calls = clients.flatMap((c, n) =>
        Array.from({ length: 16 }, (_, i) => c.callTool({ name: 'official', arguments: { text: `${round} c${n} ${i}` } }).then((r) => [`${round} c${n} ${i}`, r])),
      );
      for (const [text, r] of await Promise.all(calls)) assert.deepEqual(r, expected('official', text));
    }
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await http.close();
  }
});
