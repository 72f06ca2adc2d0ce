// The built-in JWT verifier: a server protected with `jwt: { jwksUrl }` (the JWKS served here,
// an Ed25519 key made by node:crypto) accepts a good token and hands its claims to ctx.auth;
// tampered, expired, wrong-audience, wrong-issuer and alg-none tokens get 401, an under-scoped
// one 403. Also the option checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { generateKeyPairSync, sign } from 'node:crypto';
import { Client, McpServer, ProtectedResource, TransportError } from '../esm/index.mjs';

const ISSUER = 'http://as.example';

function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const b64 = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function signer() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'ed-1', use: 'sig' };
  const token = (claims, header = { alg: 'EdDSA', typ: 'at+jwt', kid: 'ed-1' }) => {
    const signed = `${b64(header)}.${b64(claims)}`;
    return `${signed}.${sign(null, Buffer.from(signed), privateKey).toString('base64url')}`;
  };
  return { jwk, token };
}

async function statusOf(url, token) {
  try {
    const c = await Client.http(url, { headers: { Authorization: `Bearer ${token}` } });
    await c.close();
    return 200;
  } catch (e) {
    assert.ok(e instanceof TransportError, String(e));
    return e.data?.httpStatus;
  }
}

test('ProtectedResource takes exactly one verifier, and checks the jwt options', () => {
  const base = { resource: 'http://x/mcp', authorizationServers: [ISSUER] };
  assert.throws(() => new ProtectedResource(base), /exactly one/);
  assert.throws(() => new ProtectedResource({ ...base, verify: () => null, jwt: { jwksUrl: 'http://x/jwks' } }), /exactly one/);
  for (const jwt of [{}, { jwksUrl: 'http://x/jwks', algorithms: ['HS256'] }, { jwksUrl: 'http://x/jwks', nope: 1 }]) {
    assert.throws(() => new ProtectedResource({ ...base, jwt })._native(), /jwt|HS256|nope/, JSON.stringify(jwt));
  }
  assert.throws(
    () => new ProtectedResource({ ...base, introspection: { endpoint: 'http://x/i', clientId: 'a' } })._native(),
    /clientSecret/,
  );
  const ok = new ProtectedResource({ ...base, introspection: { endpoint: 'http://x/i', clientId: 'a', clientSecret: 'b' } });
  assert.equal(ok.metadataPath, '/.well-known/oauth-protected-resource/mcp');
});

test('listen({auth: jwt}): a good token passes with its claims, bad ones get 401/403', async () => {
  const { jwk, token } = signer();
  let fetches = 0;
  const jwks = createServer((req, res) => {
    fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  const jwksPort = await listening(jwks);
  const portServer = createServer();
  const port = await listening(portServer);
  await new Promise((r) => portServer.close(r));
  const resource = `http://127.0.0.1:${port}/mcp`;

  const server = new McpServer({ name: 'jwt-protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (ctx) => `${ctx.auth.subject}|${ctx.auth.scopes.join(' ')}|${ctx.auth.claims.tenant}`);
  const auth = new ProtectedResource({
    resource,
    authorizationServers: [ISSUER],
    jwt: { jwksUrl: `http://127.0.0.1:${jwksPort}/jwks` },
    requiredScopes: ['mcp'],
  });
  const now = Math.floor(Date.now() / 1000);
  const claims = (over = {}) => ({ iss: ISSUER, sub: 'alice', aud: resource, scope: 'mcp extra', exp: now + 600, tenant: 't1', ...over });
  const http = await server.listen({ port, auth });
  try {
    const client = await Client.http(http.url, { headers: { Authorization: `Bearer ${token(claims())}` } });
    const r = await client.callTool({ name: 'whoami', arguments: {} });
    assert.equal(r.content[0].text, 'alice|mcp extra|t1');
    await client.close();

    const [head, , sig] = token(claims()).split('.');
    const tampered = `${head}.${b64(claims({ sub: 'admin' }))}.${sig}`;
    const none = `${b64({ alg: 'none', kid: 'ed-1' })}.${b64(claims())}.`;
    for (const [name, t, status] of [
      ['tampered', tampered, 401],
      ['expired', token(claims({ exp: now - 600 })), 401],
      ['wrong audience', token(claims({ aud: 'http://other.example/mcp' })), 401],
      ['wrong issuer', token(claims({ iss: 'http://evil.example' })), 401],
      ['alg none', none, 401],
      ['under-scoped', token(claims({ scope: 'extra' })), 403],
    ]) {
      assert.equal(await statusOf(http.url, t), status, name);
    }
    const res = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tampered}` },
      body: '{}',
    });
    assert.match(res.headers.get('www-authenticate'), /error="invalid_token", error_description="the token's signature does not verify"/);
    assert.equal(fetches, 1);
  } finally {
    await http.close();
    await new Promise((r) => jwks.close(r));
  }
});
