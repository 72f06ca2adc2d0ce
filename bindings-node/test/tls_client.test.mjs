// Client.http(url, { rootCertificates }): ferromcp's own client trusting a private CA for
// https:// (the engine's client TLS, rustls, beside Mozilla's roots), against a ferromcp server
// serving https:// with a certificate of that CA. The PKI is made by tests/tls/make-test-pki.sh
// (a CA and its server certificate for 127.0.0.1, and another CA). The same scenarios as
// bindings-python/tests/test_https.py.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, McpServer } from '../esm/index.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let pki;
let http;
const pem = (name) => readFileSync(join(pki, name));

before(async () => {
  pki = mkdtempSync(join(tmpdir(), 'ferromcp-tls-client-'));
  execFileSync(join(ROOT, 'tests/tls/make-test-pki.sh'), [pki], { stdio: 'inherit' });
  const server = new McpServer({ name: 'tls-client-test', version: '1.0.0' });
  server.registerTool(
    'add',
    { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    ({ a, b }) => String(a + b),
  );
  http = await server.listen({ port: 0, tls: { certPath: join(pki, 'server.pem'), keyPath: join(pki, 'server.key') } });
});
after(async () => {
  await http?.close();
  rmSync(pki, { recursive: true, force: true });
});

async function add(client) {
  try {
    const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    return r.content[0].text;
  } finally {
    await client.close();
  }
}

test('a client trusting the private CA as PEM text calls a tool over https', async () => {
  assert.match(http.url, /^https:\/\//);
  const client = await Client.http(http.url, { rootCertificates: [pem('ca.pem').toString()] });
  assert.equal(await add(client), '5');
});

test('the CA as bytes (Buffer, Uint8Array) serves as well, beside another root', async () => {
  const roots = [new Uint8Array(pem('other-ca.pem')), pem('ca.pem')];
  assert.equal(await add(await Client.http(http.url, { rootCertificates: roots })), '5');
});

test('without the private CA the server certificate is refused', async () => {
  await assert.rejects(Client.http(http.url), (e) => /certificate|UnknownIssuer/i.test(String(e.message)));
  await assert.rejects(Client.http(http.url, { rootCertificates: [] }), (e) => /certificate|UnknownIssuer/i.test(String(e.message)));
});

test('another CA as the only extra root is refused at the handshake', async () => {
  await assert.rejects(
    Client.http(http.url, { rootCertificates: [pem('other-ca.pem').toString()] }),
    (e) => /certificate|UnknownIssuer/i.test(String(e.message)),
  );
});

test('a root that is not a certificate, or not PEM at all, is a clear error', async () => {
  await assert.rejects(Client.http(http.url, { rootCertificates: ['not a certificate'] }), (e) => {
    assert.match(String(e.message), /certificate|PEM/i);
    return true;
  });
  await assert.rejects(Client.http(http.url, { rootCertificates: [42] }), TypeError);
  await assert.rejects(Client.http(http.url, { rootCertificates: 'ca.pem' }), TypeError);
});
