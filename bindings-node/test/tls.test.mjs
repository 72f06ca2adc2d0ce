// listen({ tls }): the server itself serves https:// (rustls in the engine), with the client
// certificate's identity as ctx.auth (extra.authInfo for SDK-style handlers). The scenario names
// are those of core/tests/integration/http_tls.rs and bindings-python/tests/test_tls.py. The PKI is
// made once by tests/tls/make-test-pki.sh (the openssl command): a CA, its server certificate,
// alice's client certificate, an expired one and another CA's mallory. The official TypeScript SDK
// client (tests/node_modules, 1.32.x) connects through a fetch over node:https that trusts the test
// CA and presents a client certificate; refusals are read with node:tls, which reports the server's
// TLS alert.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../esm/index.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK = new URL('../../tests/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
let pki;
const pem = (name) => readFileSync(join(pki, name));

before(() => {
  pki = mkdtempSync(join(tmpdir(), 'ferromcp-tls-'));
  execFileSync(join(ROOT, 'tests/tls/make-test-pki.sh'), [pki], { stdio: 'inherit' });
});
after(() => rmSync(pki, { recursive: true, force: true }));

function whoamiServer() {
  const server = new McpServer({ name: 'tls-test', version: '1.0.0' });
  server.registerTool('whoami', {}, (ctx) => JSON.stringify(ctx.auth ?? null));
  server.registerTool(
    'add',
    { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    ({ a, b }) => String(a + b),
  );
  return server;
}

const files = () => ({ certPath: join(pki, 'server.pem'), keyPath: join(pki, 'server.key') });
const mtls = (required) => ({ ...files(), clientCaPath: join(pki, 'ca.pem'), clientCertRequired: required });

/** The SDK's FetchLike over node:https with the test CA (and `client`'s certificate). */
function httpsFetch(client) {
  const tls = { ca: pem('ca.pem'), ...(client ? { cert: pem(`${client}.pem`), key: pem(`${client}.key`) } : {}) };
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init.headers ?? {}));
      const req = request(url, { method: init.method ?? 'GET', headers, signal: init.signal, ...tls }, (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of [v].flat()) if (x !== undefined) h.append(k, x);
        const empty = res.statusCode === 204 || res.statusCode === 304;
        resolve(new Response(empty ? null : Readable.toWeb(res), { status: res.statusCode, statusText: res.statusMessage, headers: h }));
      });
      req.on('error', reject);
      req.end(init.body ?? undefined);
    });
}

/** The official client's answer to `whoami` (the handler's ctx.auth), as JSON. */
async function sdkWhoami(url, client) {
  const { Client } = await import(new URL('client/index.js', SDK));
  const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', SDK));
  const c = new Client({ name: 'tls-test-client', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: httpsFetch(client) }));
  try {
    const sum = await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(sum.content[0].text, '5');
    const r = await c.callTool({ name: 'whoami', arguments: {} });
    return JSON.parse(r.content[0].text);
  } finally {
    await c.close();
  }
}

/** One GET /healthz with node:tls: the status line, or the error code of a refused handshake. */
function rawHttps(port, client) {
  return new Promise((resolve) => {
    const s = connect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      ca: pem('ca.pem'),
      ...(client ? { cert: pem(`${client}.pem`), key: pem(`${client}.key`) } : {}),
    });
    let got = '';
    s.on('secureConnect', () => s.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    s.on('data', (d) => (got += d));
    s.on('error', (e) => resolve(e.code ?? e.message));
    s.on('end', () => resolve(got.split('\r\n')[0]));
  });
}

test('an https client trusting the test CA calls a tool (the official TypeScript client)', async () => {
  const http = await whoamiServer().listen({ port: 0, tls: files() });
  try {
    assert.match(http.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(await sdkWhoami(http.url), null); // no client certificate asked
    // without the test CA the server's certificate is refused
    await assert.rejects(fetch(http.url, { method: 'POST', body: '{}' }), (e) => e.cause?.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  } finally {
    await http.close();
  }
});

test('pem bytes serve as well as files', async () => {
  const tls = { certPem: pem('server.pem'), keyPem: pem('server.key').toString(), clientCaPem: new Uint8Array(pem('ca.pem')) };
  const http = await whoamiServer().listen({ port: 0, tls });
  try {
    assert.equal(await rawHttps(http.port, 'alice'), 'HTTP/1.1 200 OK');
  } finally {
    await http.close();
  }
});

test('a client certificate is the principal handlers see', async () => {
  const http = await whoamiServer().listen({ port: 0, tls: mtls(true) });
  try {
    const auth = await sdkWhoami(http.url, 'alice');
    assert.equal(auth.subject, 'alice');
    assert.deepEqual(auth.claims.clientCertificate, {
      subject: 'CN=alice',
      commonName: 'alice',
      dnsNames: ['alice'],
      emails: [],
      uris: [],
      ipAddresses: [],
      serialNumber: '02',
    });
    assert.deepEqual(auth.scopes, []);
    assert.equal(auth.clientId, null);
  } finally {
    await http.close();
  }
});

test('required client certificates refuse none, expired and other CAs at the handshake', async () => {
  const http = await whoamiServer().listen({ port: 0, tls: mtls(true) });
  try {
    assert.equal(await rawHttps(http.port, null), 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    assert.equal(await rawHttps(http.port, 'expired'), 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED');
    assert.equal(await rawHttps(http.port, 'mallory'), 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
    // the official client is refused too, and a good certificate is still served
    for (const who of [null, 'expired', 'mallory']) await assert.rejects(sdkWhoami(http.url, who), who ?? 'none');
    assert.equal(await rawHttps(http.port, 'alice'), 'HTTP/1.1 200 OK');
  } finally {
    await http.close();
  }
});

test('optional client certificates serve clients without one anonymously', async () => {
  const http = await whoamiServer().listen({ port: 0, tls: mtls(false) });
  try {
    assert.equal(await sdkWhoami(http.url), null);
    assert.equal((await sdkWhoami(http.url, 'alice')).subject, 'alice');
    assert.equal(await rawHttps(http.port, 'mallory'), 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
  } finally {
    await http.close();
  }
});

test('tls options that do not load are an error at start', async () => {
  const server = whoamiServer();
  await assert.rejects(server.listen({ port: 0, tls: { ...files(), certPath: join(pki, 'no-such.pem') } }), /cannot read .*no-such\.pem/);
  await assert.rejects(server.listen({ port: 0, tls: { ...files(), keyPath: join(pki, 'alice.key') } }), /alice\.key: keys may not be consistent/);
  await assert.rejects(server.listen({ port: 0, tls: { ...files(), keyPem: 'x' } }), /give keyPath or keyPem, not both/);
  await assert.rejects(server.listen({ port: 0, tls: { ...files(), clientCertRequired: true } }), /clientCertRequired needs clientCaPath/);
  assert.throws(() => server.createHttpHandler({ tls: files() }), /tls belongs to the server that owns the connections/);
  const http = await server.listen({ port: 0, tls: files() });
  try {
    assert.equal(await rawHttps(http.port, null), 'HTTP/1.1 200 OK');
  } finally {
    await http.close();
  }
});
