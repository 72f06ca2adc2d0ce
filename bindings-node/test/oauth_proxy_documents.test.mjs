// ferromcp/server/auth/oauthProxy.js: the clientIdDocuments option (Client ID Metadata
// Documents). The metadata advertises client_id_metadata_document_supported when they are on
// (the default) and not when they are off, and the limits given reach the engine's fetch: an
// https:// client id on a loopback address is refused as not public by default, and fetched
// (here: a connection refused, nothing listens) with allowPrivateAddresses. The same scenarios
// as bindings-python/tests/test_oauth_proxy_documents.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { OAuthProxy } from 'ferromcp/server/auth/oauthProxy.js';

/** A port nothing listens on (bound, then released). */
async function closedPort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

const proxy = (clientIdDocuments) =>
  OAuthProxy.create({
    issuerUrl: 'http://127.0.0.1:8000',
    resourceServerUrl: 'http://127.0.0.1:8000/mcp',
    upstream: { preset: 'github', clientId: 'id', clientSecret: 's' },
    ...(clientIdDocuments === undefined ? {} : { clientIdDocuments }),
  });

/** The JSON error /authorize answers for clientId, through the proxy's node:http handler. */
async function authorizeRefusal(p, clientId) {
  const server = http.createServer((req, res) => {
    p.handleRequest(req, res).then((done) => done || res.writeHead(404).end());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const q = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:5555/cb',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
    const r = await fetch(`http://127.0.0.1:${server.address().port}/authorize?${q}`, { redirect: 'manual' });
    assert.equal(r.status, 400);
    return await r.json();
  } finally {
    await new Promise((r) => server.close(r));
  }
}

test('client id documents are advertised when enabled and their limits applied', async () => {
  const url = `https://127.0.0.1:${await closedPort()}/client.json`;
  const byDefault = await proxy(undefined);
  assert.equal(byDefault.metadata().client_id_metadata_document_supported, true);
  const notPublic = await authorizeRefusal(byDefault, url);
  assert.equal(notPublic.error, 'invalid_client');
  assert.match(notPublic.error_description, /not a public address/);

  const enabled = await proxy({ enabled: true, allowPrivateAddresses: true, timeoutSeconds: 2, maxBytes: 512 });
  assert.equal(enabled.metadata().client_id_metadata_document_supported, true);
  const fetched = await authorizeRefusal(enabled, url);
  assert.equal(fetched.error, 'invalid_client');
  assert.match(fetched.error_description, /connecting to 127\.0\.0\.1/);

  const disabled = await proxy({ enabled: false });
  assert.equal('client_id_metadata_document_supported' in disabled.metadata(), false);
  const unknown = await authorizeRefusal(disabled, url);
  assert.equal(unknown.error, 'invalid_client');
  assert.doesNotMatch(unknown.error_description, /could not be read/);

  await assert.rejects(proxy({ maxBytes: 0 }), /maxBytes/);
  await assert.rejects(proxy({ maxSize: 1 }), /maxSize/);
});
