// The answer of a handler's promise crosses as its JSON text when the facade knows that text
// reads back as the native walk reads the value (isPlainJson in ts/dispatch.ts), else as the
// value walked by the native side. A synchronous handler's answer is always walked; these tests
// pin the text path to the walk: the same value answered by an async and a sync handler gives
// the same result, byte for byte where the engine writes JSON text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Client, McpServer } from '../esm/index.mjs';

const { isPlainJson, soleText } = createRequire(import.meta.url)('../dist/dispatch.js');

class Point {
  constructor() {
    this.x = 1;
  }
}
const nullProto = Object.assign(Object.create(null), { a: 1, b: 'two' });
const withUndefined = { a: 1, skipped: undefined, b: [true, false, null] };
const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
let deep = 'bottom';
for (let i = 0; i < 100; i++) deep = { d: deep };

/** Values a handler may answer: [name, value, whether the text path takes it]. */
const VALUES = [
  ['string with escapes', 'line\n"quoted" \\ tab\t \u0000 \u2028 é 😀', true],
  ['lone surrogate', 'a\ud800b', true],
  ['integers at the edges of the walk', [0, -0, 1, -1, 2147483647, -2147483648, 4294967295], true],
  ['integer beyond u32', 4294967296, false],
  ['integer below i32', -2147483649, false],
  ['large integer', 1e10, false],
  ['float', 0.1, false],
  ['float that reads back exactly', 1.5, false],
  ['NaN', NaN, false],
  ['nested objects and arrays', { a: { b: [1, { c: 'x' }, []] }, e: {} }, true],
  ['booleans and null', { t: true, f: false, n: null }, true],
  ['undefined properties', withUndefined, true],
  ['undefined in an array', [1, undefined, 2], false],
  ['hole in an array', [1, , 2], false], // eslint-disable-line no-sparse-arrays
  ['null prototype', nullProto, true],
  ['integer-like and __proto__ keys', JSON.parse('{"b":1,"2":2,"1":1,"__proto__":{"x":1},"a":0}'), true],
  ['class instance', new Point(), false],
  ['Date', new Date(0), false],
  ['toJSON', { toJSON: () => 'x', a: 1 }, false],
  ['function property', { a: 1, f: () => 1 }, false],
  ['BigInt', { a: 10n }, false],
  ['wide object', wide, true],
  ['deep object', deep, false],
];

async function serverAnswering() {
  const server = new McpServer({ name: 'answer-json', version: '1' });
  VALUES.forEach(([, v], i) => {
    // Wrapped in an object that is no CallToolResult or content block: the engine answers it as
    // one text block holding its JSON text (as the engine's serde_json writes it).
    server.registerTool(`async${i}`, {}, async () => ({ v }));
    server.registerTool(`sync${i}`, {}, () => ({ v }));
  });
  // The official SDK's form, and its result returned synchronously.
  server.registerTool('sdkAsync', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('sdkSync', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('structuredAsync', { outputSchema: { type: 'object' } },
    async () => ({ content: [{ type: 'text', text: 'r' }], structuredContent: { n: 3, s: 'x', l: [1, 2] }, isError: false }));
  server.registerTool('structuredSync', { outputSchema: { type: 'object' } },
    () => ({ content: [{ type: 'text', text: 'r' }], structuredContent: { n: 3, s: 'x', l: [1, 2] }, isError: false }));
  return { server, client: await Client.memory(server) };
}

/** A call's outcome as data: its result, or the error's code and message. */
async function outcome(client, name, args) {
  try {
    return { result: await client.callTool({ name, arguments: args }) };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}

test('isPlainJson takes exactly the values whose JSON text reads back as the walk reads them', () => {
  for (const [name, v, plain] of VALUES) assert.equal(isPlainJson(v), plain, name);
  assert.equal(isPlainJson({ content: [{ type: 'text', text: 'hi' }] }), true, 'the SDK form');
  // Past 10,000 values the walk decides (and counts the budget afresh for every answer).
  const many = Array.from({ length: 10_001 }, () => 1);
  assert.equal(isPlainJson(many), false);
  assert.equal(isPlainJson([1]), true);
});

test('soleText takes exactly a plain result of one text block', () => {
  assert.equal(soleText({ content: [{ type: 'text', text: 'hi' }] }), 'hi');
  assert.equal(soleText({ content: [{ text: '', type: 'text' }] }), '');
  const inherited = Object.assign(Object.create({ extra: 1 }), { content: [{ type: 'text', text: 'x' }] });
  const proto = Object.create({ text: 'x' });
  proto.type = 'text';
  for (const [name, v] of [
    ['no content', {}],
    ['another member', { content: [{ type: 'text', text: 'x' }], isError: false }],
    ['an undefined member', { content: [{ type: 'text', text: 'x' }], _meta: undefined }],
    ['two blocks', { content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }] }],
    ['no block', { content: [] }],
    ['an image block', { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] }],
    ['text not a string', { content: [{ type: 'text', text: 1 }] }],
    ['annotations', { content: [{ type: 'text', text: 'x', annotations: {} }] }],
    ['an inherited enumerable member', inherited],
    ['an inherited text', { content: [proto] }],
    ['a null prototype', Object.assign(Object.create(null), { content: [{ type: 'text', text: 'x' }] })],
    ['a class instance block', { content: [new (class { type = 'text'; text = 'x'; })()] }],
    ['content not an array', { content: { 0: { type: 'text', text: 'x' }, length: 1 } }],
    ['a string', 'x'],
    ['null', null],
  ]) {
    assert.equal(soleText(v), undefined, name);
  }
});

test('an async handler answers every value as a sync handler does (text path and walk)', async () => {
  const { client } = await serverAnswering();
  for (const [i, [name]] of VALUES.entries()) {
    const a = await outcome(client, `async${i}`);
    const s = await outcome(client, `sync${i}`);
    assert.deepEqual(a, s, name);
  }
  // What the walk refuses is refused on both paths, naming where.
  const big = VALUES.findIndex(([n]) => n === 'BigInt');
  const r = await outcome(client, `async${big}`);
  assert.match(r.message, /not JSON: a BigInt .* at `v\.a`$/);
  await client.close();
});

test("the official SDK's result form answers the same from an async and a sync handler", async () => {
  const { client } = await serverAnswering();
  for (const text of ['hello', 'a\ud800b', '"\\\n', '']) {
    const a = await client.callTool({ name: 'sdkAsync', arguments: { text } });
    assert.deepEqual(a, await client.callTool({ name: 'sdkSync', arguments: { text } }));
    assert.deepEqual(a.content.length, 1);
  }
  assert.deepEqual(await client.callTool({ name: 'structuredAsync' }), await client.callTool({ name: 'structuredSync' }));
  await client.close();
});


/** CallToolResult-shaped answers, which an async handler's answer hands over as JSON text
 * (`answerJson`): each must answer as the walk of the same value does (a sync handler),
 * including the ones that are no valid result (the engine's error). */
const RESULTS = [
  ['every member', { content: [{ type: 'text', text: 't', annotations: { audience: ['user'], priority: 1 } }], structuredContent: { n: 3, l: [1, 'x', null] }, isError: true, _meta: { 'a/b': 1 }, extra: { kept: [true] } }],
  ['no content blocks', { content: [] }],
  ['structuredContent null', { content: [], structuredContent: null }],
  ['several kinds of block', { content: [
    { type: 'image', data: 'aGk=', mimeType: 'image/png' },
    { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///x', name: 'x' },
    { type: 'resource', resource: { uri: 'file:///y', text: 'y' } },
  ] }],
  ['unknown block type', { content: [{ type: 'bogus', text: 'x' }] }],
  ['text block without text', { content: [{ type: 'text' }] }],
  ['isError not a boolean', { content: [], isError: 'yes' }],
  ['_meta not an object', { content: [], _meta: 3 }],
  ['content not first', { isError: false, content: [{ type: 'text', text: 'later' }] }],
  ['content not a list', { content: { type: 'text', text: 'x' } }],
  // The one-text-block form (`answerText`) and its near misses (the general path).
  ['one text block', { content: [{ type: 'text', text: 'one' }] }],
  ['one text block, text first', { content: [{ text: 'one', type: 'text' }] }],
  ['one text block with a lone surrogate', { content: [{ type: 'text', text: 'a\udc00b' }] }],
  ['text not a string', { content: [{ type: 'text', text: 5 }] }],
  ['two text blocks', { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
  ['a text block and isError', { content: [{ type: 'text', text: 'a' }], isError: true }],
  ['a text block with an undefined member', { content: [{ type: 'text', text: 'a', annotations: undefined }] }],
  ['a text block inheriting its text', { content: [Object.assign(Object.create({ text: 'inherited' }), { type: 'text' })] }],
];

test('a CallToolResult answered by an async handler is the one a sync handler answers', async () => {
  /** One server whose tools answer every RESULTS value, from async or from sync handlers. */
  async function answering(async) {
    const server = new McpServer({ name: 'answer-json-results', version: '1' });
    RESULTS.forEach(([, v], i) => {
      server.registerTool(`plain${i}`, {}, async ? async () => v : () => v);
      server.registerTool(`out${i}`, { outputSchema: { type: 'object' } }, async ? async () => v : () => v);
    });
    return Client.memory(server);
  }
  const [a, s] = [await answering(true), await answering(false)];
  const seen = [];
  for (const [i, [name]] of RESULTS.entries()) {
    for (const tool of [`plain${i}`, `out${i}`]) {
      const got = await outcome(a, tool);
      assert.deepEqual(got, await outcome(s, tool), `${name} (${tool})`);
      seen.push(got.result === undefined ? 'error' : 'result');
    }
  }
  // Both kinds of outcome are covered: read results, and the engine's errors for invalid ones.
  assert.ok(seen.includes('error') && seen.includes('result'), seen.join());
  await Promise.all([a.close(), s.close()]);
});
