// What a handler gets as its arguments. They cross to the event loop walked value by value
// (napi's serde conversion of the engine's JSON value, `CallArgs` in src/handler.rs); a
// change that sends them as JSON text for JSON.parse instead (tried in f1f3888, reverted) must
// keep what is pinned here: an integer beyond ±(2^53-1) is a BigInt (JSON.parse would round
// it), and a `__proto__` key is set as a property (so its object becomes the prototype) rather
// than defined. Requests are sent raw, so the numbers cross exactly as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../esm/index.mjs';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'node-test', version: '1.0' },
};

/** What a handler sees of `v`: each value's type and text, and each object's own keys and
 * prototype. */
function describe(v) {
  switch (typeof v) {
    case 'bigint':
      return `bigint ${v}`;
    case 'number':
      return `number ${Object.is(v, -0) ? '-0' : String(v)}`;
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) return v.map(describe);
      const proto = Object.getPrototypeOf(v);
      const out = { proto: proto === Object.prototype ? 'Object.prototype' : describe(proto) };
      for (const k of Object.keys(v)) out[`own ${k}`] = describe(v[k]);
      return out;
    }
    default:
      return `${typeof v} ${String(v)}`;
  }
}

function server() {
  const s = new McpServer({ name: 'payload-json', version: '1' });
  const schema = { inputSchema: { type: 'object' } };
  s.registerTool('describe', schema, (args) => JSON.stringify(describe(args)));
  s.registerTool('describeAsync', schema, async (args) => JSON.stringify(describe(args)));
  return s;
}

/** Calls `tool` with `args`, the JSON text of the arguments as sent; resolves with what the
 * handler saw. */
async function seen(url, tool, args) {
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${args},"_meta":${JSON.stringify(META)}}}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': tool },
    body,
  });
  const text = await res.text();
  const msg = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5))).filter((m) => 'id' in m).at(-1)
    : JSON.parse(text);
  assert.ok(msg.result, `an answer: ${text}`);
  return JSON.parse(msg.result.content[0].text);
}

/** [name, arguments as sent, what the handler sees]. */
const CASES = [
  [
    'numbers within ±(2^53-1), floats, -0 and integers past u64 are numbers',
    '{"safe":9007199254740991,"neg":-9007199254740991,"f":0.1,"e":1e300,"whole":3.0,"z":-0.0,"past":18446744073709551616}',
    { proto: 'Object.prototype', 'own safe': 'number 9007199254740991', 'own neg': 'number -9007199254740991', 'own f': 'number 0.1', 'own e': 'number 1e+300', 'own whole': 'number 3', 'own z': 'number -0', 'own past': 'number 18446744073709552000' },
  ],
  [
    'integers beyond ±(2^53-1) are BigInts, at any depth',
    '{"big":9007199254740993,"neg":-9007199254740993,"u64":18446744073709551615,"deep":[{"n":[9007199254740992]}]}',
    {
      proto: 'Object.prototype',
      'own big': 'bigint 9007199254740993',
      'own neg': 'bigint -9007199254740993',
      'own u64': 'bigint 18446744073709551615',
      'own deep': [{ proto: 'Object.prototype', 'own n': ['bigint 9007199254740992'] }],
    },
  ],
  [
    'a __proto__ key sets the prototype, as a property set does',
    '{"__proto__":{"x":1},"y":"two"}',
    { proto: { proto: 'Object.prototype', 'own x': 'number 1' }, 'own y': 'string two' },
  ],
  [
    'strings, escapes, booleans, null and nesting cross as written',
    '{"s":"line\\n\\"q\\" \\u2028 é 😀","t":true,"n":null,"a":[[],{}],"2":"integer-like key"}',
    { proto: 'Object.prototype', 'own 2': 'string integer-like key', 'own s': 'string line\n"q" \u2028 é 😀', 'own t': 'boolean true', 'own n': 'null', 'own a': [[], { proto: 'Object.prototype' }] },
  ],
];

test('a handler gets its arguments as the rule says, from a sync and an async handler', async () => {
  const http = await server().listen({ host: '127.0.0.1', port: 0 });
  try {
    for (const [name, args, want] of CASES) {
      assert.deepEqual(await seen(http.url, 'describe', args), want, name);
      assert.deepEqual(await seen(http.url, 'describeAsync', args), want, `${name} (async)`);
    }
  } finally {
    await http.close();
  }
});
