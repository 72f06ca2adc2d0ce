// listen({ oauthProxy }): the engine's own listener serves the OAuth proxy's endpoints beside
// /mcp and protects /mcp with the proxy's tokens, with no Express app. The upstream identity
// provider is never reached by these checks (the authorization request is a redirect to it), so
// its endpoints are URLs of a host that does not exist. The same scenario as
// bindings-python/tests/test_oauth_proxy_listener.py and the Swift OAuthProxyListenerTests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { McpServer } from '../esm/index.mjs';

const ISSUER = 'https://mcp.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1:7777/cb';
const CHALLENGE = createHash('sha256').update('v'.repeat(50)).digest('base64url');

const oauthProxy = (upstream = {}) => ({
  issuerUrl: ISSUER,
  resourceServerUrl: RESOURCE,
  upstream: {
    authorizationEndpoint: 'https://idp.example.com/authorize',
    tokenEndpoint: 'https://idp.example.com/token',
    clientId: 'proxy-app',
    clientSecret: 's3cret',
    ...upstream,
  },
  requireConsent: false,
});

function signedIn() {
  const mcp = new McpServer({ name: 'signed-in', version: '1' });
  mcp.registerTool('whoami', {}, (ctx) => ({ content: [{ type: 'text', text: ctx?.auth?.subject ?? 'nobody' }] }));
  return mcp;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

test('oauth proxy serves metadata, registration and the 401 challenge', async () => {
  const mcp = signedIn();
  const http = await mcp.listen({ port: 0, oauthProxy: oauthProxy() });
  try {
    const base = `http://127.0.0.1:${http.port}`;
    const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`);
    assert.equal(metadata.status, 200);
    const m = await metadata.json();
    assert.equal(m.issuer, ISSUER);
    assert.equal(m.token_endpoint, `${ISSUER}/token`);
    assert.equal(m.registration_endpoint, `${ISSUER}/register`);
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);

    const resource = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(resource.status, 200);
    assert.deepEqual((await resource.json()).authorization_servers, [ISSUER]);

    const registered = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(registered.status, 201);
    const { client_id: clientId } = await registered.json();

    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 'st',
      resource: RESOURCE,
    });
    const authorize = await fetch(`${base}/authorize?${query}`, { redirect: 'manual' });
    assert.equal(authorize.status, 302);
    const location = new URL(authorize.headers.get('location'));
    assert.equal(`${location.origin}${location.pathname}`, 'https://idp.example.com/authorize');
    assert.equal(location.searchParams.get('client_id'), 'proxy-app');
    assert.equal(location.searchParams.get('redirect_uri'), `${ISSUER}/oauth/callback`);
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    // The proxy's own PKCE pair, not the client's.
    const upstreamChallenge = location.searchParams.get('code_challenge');
    assert.equal(upstreamChallenge.length, 43);
    assert.notEqual(upstreamChallenge, CHALLENGE);

    const bare = await fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders, body: initialize });
    assert.equal(bare.status, 401);
    const challenge = bare.headers.get('www-authenticate');
    assert.match(challenge, /^Bearer /);
    assert.match(challenge, /resource_metadata="[^"]*\/\.well-known\/oauth-protected-resource\/mcp"/);

    // A token the proxy did not issue is refused the same way.
    const forged = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: 'Bearer forged' },
      body: initialize,
    });
    assert.equal(forged.status, 401);
    assert.match(forged.headers.get('www-authenticate'), /error="invalid_token"/);
  } finally {
    await http.close();
  }
});

test('oauth proxy options are checked before listening', async () => {
  const mcp = signedIn();
  await assert.rejects(mcp.listen({ port: 0, oauthProxy: oauthProxy({ preset: 'entra' }) }), (e) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /tenant/);
    return true;
  });
  assert.throws(() => mcp.createHttpHandler({ oauthProxy: oauthProxy() }), /oauthProxy is served by listen/);
});
