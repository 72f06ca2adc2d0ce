// The OAuth proxy (issue 38 point 5) as it is deployed and used: the official TypeScript SDK
// client (@modelcontextprotocol/sdk) signs in through three replicas of an MCP server whose
// OAuth proxy fronts a real OpenID provider (oidc-provider from npm, run here), with the
// proxy's records and the MCP sessions on one redis-server. Run by tests/run-oauth-proxy.sh:
//   FERROMCP_OAUTH_REPLICA=target/debug/examples/oauth_proxy_replica scripts/node22 --test tests/oauth/oidc_proxy.test.mjs
// The replica is a command (FERROMCP_OAUTH_REPLICA: a program, or a JSON array of a program and
// its first arguments) taking the command line of core/examples/oauth_proxy_replica.rs: the Rust
// server, or a binding's own listener with its OAuth proxy option, tests/oauth/replica.py
// (Python serve_http(oauth_proxy=..., redis_url=...)), tests/oauth/replica.mjs (Node
// listen({ oauthProxy, redisUrl })) and examples/swift's OAuthProxyReplica (Swift
// startHTTP(options: HTTPOptions(redisURL:, oauthProxy:)), through scripts/swift --exec);
// FERROMCP_OAUTH_REPLICA_NAME names it in the tests' names.
//
// The front in front of the replicas sends each leg of the flow to another replica, so that no
// leg finds its state in the process that made it: registration on replica 0, the
// authorization request (consent page) on 1, the consent on 2, the upstream's callback on 0,
// the code exchange on 2, the refresh on 0, the replayed code on 1; metadata in turn; each MCP
// request to the next replica in turn. A second test signs the SDK in by a Client ID Metadata
// Document instead of registering (the document on an https://localhost server; the replicas
// may fetch from this machine, trusting the engine's test CA). The user's browser is played by an HTTP client that
// follows the authorization URL the SDK hands its provider, approves the proxy's consent page,
// signs in on the OpenID provider's login page and accepts its consent page, and lands on the
// client's loopback redirect URI, where the code is taken as a native app takes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { children, freePort, startRedis, stopAll, waitPort } from "../scale/lib.mjs";

/** The replica's command: the program and its first arguments. */
const REPLICA = (() => {
  const v = process.env.FERROMCP_OAUTH_REPLICA;
  if (!v) return undefined;
  return v.startsWith("[") ? JSON.parse(v) : [v];
})();
/** Which replica the tests run (a suffix of their names). */
const REPLICA_NAME = process.env.FERROMCP_OAUTH_REPLICA_NAME ?? "Rust";
/** Seconds an access token lives: the first test's second half waits for its token to expire
 * (the calls before take ~0.2 s; 5 s leaves room on a loaded machine). */
const ACCESS_TTL = 5;
/** The engine's test TLS fixtures (a CA, and a certificate for localhost). */
const FIXTURES = new URL("../../core/tests/fixtures/", import.meta.url).pathname;
const UPSTREAM_CLIENT = { id: "ferromcp-proxy", secret: randomBytes(16).toString("hex") };
/** Another client of the provider, whose own access token the MCP server must refuse. */
const OTHER_CLIENT = { id: "other-app", secret: randomBytes(16).toString("hex") };

/** A real OpenID provider: one pre-registered client (the proxy), dev login and consent pages. */
async function openIdProvider(port, proxyCallback) {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [{
      client_id: UPSTREAM_CLIENT.id,
      client_secret: UPSTREAM_CLIENT.secret,
      redirect_uris: [proxyCallback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    }, {
      client_id: OTHER_CLIENT.id,
      client_secret: OTHER_CLIENT.secret,
      redirect_uris: [],
      grant_types: ["client_credentials"],
      response_types: [],
      token_endpoint_auth_method: "client_secret_post",
    }],
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "test", use: "sig", alg: "RS256" }] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    claims: { openid: ["sub"], email: ["email"], profile: ["name"] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, email: `${id}@example.test`, name: id }) }),
    // Refresh tokens for the proxy's grant without offline_access (the proxy asks openid email profile).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, RefreshToken: 3600, IdToken: 600, ClientCredentials: 600 },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true }, clientCredentials: { enabled: true } },
  });
  const tokenRequests = [];
  provider.on("grant.success", (ctx) => tokenRequests.push(ctx.oidc.params.grant_type));
  const server = http.createServer(provider.callback());
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { tokenRequests, close: () => closeServer(server) };
}

/** Closes a server and the connections kept open to it (the replicas' upstream client keeps some). */
function closeServer(server) {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
}

/** The fixed replica of each OAuth leg (then the next one in turn when a leg comes again). */
const LEG_START = { "/register": 0, "/authorize": 1, "/authorize/consent": 2, "/oauth/callback": 0, "/token": 2 };

/** The front of the replicas: routes each request as the module's notes say, records it. */
async function front(port, backends) {
  const log = [];
  const turns = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const path = new URL(req.url, "http://x").pathname;
      const leg = path === "/mcp" ? "/mcp" : path in LEG_START ? path : "metadata";
      const turn = turns.get(leg) ?? 0;
      turns.set(leg, turn + 1);
      const replica = ((LEG_START[leg] ?? 0) + turn) % backends.length;
      const entry = { method: req.method, leg, replica, authorized: Boolean(req.headers.authorization) && leg === "/mcp" };
      if (leg === "/token") entry.grant = new URLSearchParams(body.toString()).get("grant_type");
      log.push(entry);
      const out = http.request({ host: "127.0.0.1", port: backends[replica], method: req.method, path: req.url, headers: req.headers }, (up) => {
        entry.status = up.statusCode;
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
        res.on("close", () => up.destroy());
      });
      out.on("error", (e) => { entry.status = 502; res.writeHead(502); res.end(String(e)); });
      out.end(body);
    });
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { log, close: () => closeServer(server) };
}

/** The MCP client's loopback redirect URI: resolves with the query the browser lands with. */
async function redirectListener() {
  let land;
  const landed = new Promise((r) => (land = r));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("You may close this window.");
    if (url.pathname === "/callback") land(url.searchParams);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/callback`, landed, close: () => closeServer(server) };
}

/** The SDK's OAuthClientProvider, kept in memory as a CLI client keeps it in a file. */
class MemoryProvider {
  constructor(redirectUrl) {
    this.redirectUrl = redirectUrl;
    this.saved = {};
    this.tokenHistory = [];
  }
  get clientMetadata() {
    return { client_name: "ferromcp OIDC test client", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], scope: "mcp:tools" };
  }
  clientInformation() { return this.saved.client; }
  saveClientInformation(c) { this.saved.client = c; }
  tokens() { return this.saved.tokens; }
  saveTokens(t) { this.saved.tokens = t; this.tokenHistory.push(t); }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.saved.verifier = v; }
  codeVerifier() { return this.saved.verifier; }
}

const unescapeHtml = (s) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const attr = (tag, name) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag);
  return m ? unescapeHtml(m[1]) : undefined;
};

/** The first POST form of a page: its action and the fields a user submitting it sends. */
function formOf(html, pageUrl, typed) {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  assert.ok(form, `a form on ${pageUrl}`);
  const open = /<form\b[^>]*>/i.exec(form[0])[0];
  assert.equal((attr(open, "method") ?? "get").toLowerCase(), "post");
  const fields = new URLSearchParams();
  for (const [input] of form[1].matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(input, "name");
    if (!name) continue;
    const type = (attr(input, "type") ?? "text").toLowerCase();
    fields.append(name, type === "hidden" ? attr(input, "value") ?? "" : typed[name] ?? assert.fail(`no value to type in ${name}`));
  }
  // The first named button is the one clicked (the proxy's "Approve").
  const button = /<button\b[^>]*\sname="[^"]*"[^>]*>/i.exec(form[1]);
  if (button) fields.append(attr(button[0], "name"), attr(button[0], "value") ?? "");
  return { action: new URL(attr(open, "action") ?? pageUrl, pageUrl), fields };
}

/**
 * The user's browser: follows `start`, keeping cookies per host (as browsers do, across ports)
 * and path, submitting each page's form (the proxy's consent, the provider's login and consent),
 * until it is sent to `stopAt`. The pages it saw, in order.
 */
async function browse(start, stopAt, typed) {
  const jar = [];
  const cookieFor = (url) => jar.filter((c) => c.host === url.hostname && url.pathname.startsWith(c.path)).map((c) => `${c.name}=${c.value}`).join("; ");
  const keep = (url, res) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";").map((s) => s.trim());
      const [name, ...v] = pair.split("=");
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) || "/";
      const gone = attrs.some((a) => /^max-age=0$/i.test(a) || /^expires=Thu, 01 Jan 1970/i.test(a));
      const i = jar.findIndex((c) => c.host === url.hostname && c.name === name && c.path === path);
      if (i >= 0) jar.splice(i, 1);
      if (!gone) jar.push({ host: url.hostname, path, name, value: v.join("=") });
    }
  };
  const pages = [];
  let url = new URL(start);
  let init = { method: "GET" };
  for (let step = 0; step < 20; step++) {
    if (url.origin + url.pathname === stopAt) {
      await fetch(url);
      return pages;
    }
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie: cookieFor(url) } });
    keep(url, res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location"), url);
      init = { method: "GET" };
      continue;
    }
    const html = await res.text();
    assert.equal(res.status, 200, `${url}: ${html.slice(0, 300)}`);
    pages.push({ url: url.href, html });
    const { action, fields } = formOf(html, url, typed);
    url = action;
    init = { method: "POST", body: fields.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
  }
  assert.fail(`the browser did not reach ${stopAt} in 20 steps`);
}

async function startReplica(port, args, env) {
  const child = spawn(REPLICA[0], [...REPLICA.slice(1), "--port", String(port), ...args], { stdio: ["ignore", "ignore", "pipe"], env });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  const up = await Promise.race([waitPort(port).then(() => true), exited.then(() => false)]);
  assert.ok(up, `replica on ${port} exited: ${stderr}`);
  return { child, stderr: () => stderr };
}

/**
 * The deployment: a redis-server, the OpenID provider, three replicas (with `extra` options)
 * and the front; the client's loopback redirect listener. Everything stops after the test.
 */
async function deploy(t, extra = []) {
  assert.ok(REPLICA, "FERROMCP_OAUTH_REPLICA names the replica's command");
  const started = Date.now();
  const [frontPort, idpPort] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${frontPort}`;
  t.after(stopAll);
  const redisPort = await startRedis();
  const idp = await openIdProvider(idpPort, `${issuer}/oauth/callback`);
  t.after(() => idp.close());
  const env = { ...process.env, FERROMCP_REQUEST_STATE_KEY: randomBytes(32).toString("hex") };
  const args = ["--issuer", issuer, "--redis-url", `redis://127.0.0.1:${redisPort}`, "--upstream-issuer", `http://127.0.0.1:${idpPort}`,
    "--client-id", UPSTREAM_CLIENT.id, "--client-secret", UPSTREAM_CLIENT.secret, "--access-token-ttl", String(ACCESS_TTL), ...extra];
  const ports = [await freePort(), await freePort(), await freePort()];
  const replicas = await Promise.all(ports.map((p) => startReplica(p, args, env)));
  const { log, close } = await front(frontPort, ports);
  t.after(close);
  const landing = await redirectListener();
  t.after(landing.close);
  t.diagnostic(`set up in ${Date.now() - started} ms`);
  return { started, issuer, idpPort, idp, replicas, log, landing, mcpUrl: new URL(`${issuer}/mcp`) };
}

test(`the TypeScript SDK signs in through the OAuth proxy fronting a real OpenID provider, each leg on another of three replicas on Redis (${REPLICA_NAME})`, { timeout: 90_000 }, async (t) => {
  const { started, issuer, idpPort, idp, replicas, log, landing, mcpUrl } = await deploy(t);

  // 1. The first connection is refused 401; the SDK reads the metadata, registers (DCR) and
  // hands its provider the authorization URL.
  const provider = new MemoryProvider(landing.url);
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await assert.rejects(new Client({ name: "oidc-test", version: "1.0" }).connect(first), UnauthorizedError);
  assert.ok(provider.authorizationUrl, "the SDK asked to send the user to the authorization URL");
  const authUrl = new URL(provider.authorizationUrl);
  assert.equal(authUrl.origin + authUrl.pathname, `${issuer}/authorize`);
  assert.equal(authUrl.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authUrl.searchParams.get("resource"), `${issuer}/mcp`);
  assert.equal(provider.saved.client.token_endpoint_auth_method, "client_secret_basic", "the proxy gave a confidential client");

  // 2. The user: the proxy's consent page, the provider's login and consent, back to the client.
  const pages = await browse(authUrl, landing.url, { login: "ada", password: "any password" });
  assert.match(pages[0].url, new RegExp(`^${issuer}/authorize\\?`));
  assert.match(pages[0].html, /ferromcp OIDC test client/, "the consent page names the client");
  assert.ok(pages[0].html.includes(landing.url), "and where it will redirect");
  assert.ok(pages.slice(1).every((p) => p.url.startsWith(`http://127.0.0.1:${idpPort}/interaction/`)), "then the provider's pages");
  assert.match(pages[1].html, /name="login"/, "its login page");
  assert.equal(pages.length, 3, "consent, login, the provider's consent");
  const back = await landing.landed;
  assert.equal(back.get("iss"), issuer);
  assert.equal(back.get("state"), authUrl.searchParams.get("state"));
  const code = back.get("code");
  assert.ok(code);
  assert.deepEqual(idp.tokenRequests, ["authorization_code"], "the proxy exchanged the provider's code");

  // 3. The code for tokens, then MCP calls with them, each request on the next replica.
  await first.finishAuth(code);
  const issuedAt = Date.now();
  const issuedFirst = provider.tokens();
  assert.equal(issuedFirst.token_type.toLowerCase(), "bearer");
  assert.ok(issuedFirst.refresh_token);
  const client = new Client({ name: "oidc-test", version: "1.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  t.after(() => client.close());
  const tools = await client.listTools();
  assert.deepEqual(tools.tools.map((x) => x.name), ["whoami"]);
  const who = JSON.parse((await client.callTool({ name: "whoami", arguments: {} })).content[0].text);
  assert.deepEqual(who, { subject: "ada", clientId: provider.saved.client.client_id, scopes: ["mcp:tools"], audience: [`${issuer}/mcp`], upstreamToken: true });

  // 4. The access token expires; the next call is refused 401 and the SDK refreshes (rotation).
  await new Promise((r) => setTimeout(r, issuedAt + ACCESS_TTL * 1000 + 1100 - Date.now()));
  const again = JSON.parse((await client.callTool({ name: "whoami", arguments: {} })).content[0].text);
  assert.equal(again.subject, "ada");
  const refreshed = provider.tokens();
  assert.notEqual(refreshed.access_token, issuedFirst.access_token);
  assert.notEqual(refreshed.refresh_token, issuedFirst.refresh_token, "the refresh token rotated");
  assert.equal(provider.tokenHistory.length, 2, "one code exchange, one refresh");
  assert.deepEqual(idp.tokenRequests, ["authorization_code", "refresh_token"], "the proxy refreshed upstream too");

  // 5. Refusals: the code again (on another replica than its first use), the rotated refresh
  // token, the expired access token, and the provider's own token (issued for another audience).
  const basic = `Basic ${Buffer.from(`${provider.saved.client.client_id}:${provider.saved.client.client_secret}`).toString("base64")}`;
  const tokenCall = (form) => fetch(`${issuer}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic }, body: new URLSearchParams(form) });
  const replay = await tokenCall({ grant_type: "authorization_code", code, code_verifier: provider.codeVerifier(), redirect_uri: landing.url });
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");
  const oldRefresh = await tokenCall({ grant_type: "refresh_token", refresh_token: issuedFirst.refresh_token });
  assert.equal((await oldRefresh.json()).error, "invalid_grant");
  const bearer = (token) => fetch(mcpUrl, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
  const expired = await bearer(issuedFirst.access_token);
  assert.equal(expired.status, 401);
  assert.match(expired.headers.get("www-authenticate"), /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
  const providerToken = await fetch(`http://127.0.0.1:${idpPort}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: OTHER_CLIENT.id, client_secret: OTHER_CLIENT.secret }) });
  assert.equal(providerToken.status, 200);
  const { access_token: foreign } = await providerToken.json();
  assert.ok(foreign);
  assert.equal((await bearer(foreign)).status, 401, "a token the provider issued (another audience) is not the proxy's");

  // 6. Where each leg went.
  const first1 = (pred) => log.find(pred);
  const leg = {
    register: first1((e) => e.leg === "/register"),
    authorize: first1((e) => e.leg === "/authorize"),
    consent: first1((e) => e.leg === "/authorize/consent"),
    callback: first1((e) => e.leg === "/oauth/callback"),
    code: first1((e) => e.grant === "authorization_code"),
    refresh: first1((e) => e.grant === "refresh_token"),
    replay: log.filter((e) => e.grant === "authorization_code")[1],
  };
  const row = (k) => `${k}@${leg[k].replica}:${leg[k].status}`;
  t.diagnostic(`legs: ${Object.keys(leg).map(row).join(" ")}`);
  for (const [a, b] of [["register", "authorize"], ["authorize", "consent"], ["consent", "callback"], ["callback", "code"], ["code", "refresh"], ["code", "replay"]]) {
    assert.notEqual(leg[a].replica, leg[b].replica, `${a} and ${b} on different replicas`);
  }
  assert.deepEqual([leg.register.status, leg.authorize.status, leg.consent.status, leg.callback.status, leg.code.status, leg.refresh.status], [201, 200, 302, 302, 200, 200]);
  const served = new Set(log.filter((e) => e.authorized && e.status < 300).map((e) => e.replica));
  assert.deepEqual([...served].sort(), [0, 1, 2], "authorized MCP requests were served by every replica");
  for (const r of replicas) assert.equal(r.child.exitCode, null, `a replica stopped: ${r.stderr()}`);
  t.diagnostic(`requests through the front: ${log.length}; flow and calls in ${Date.now() - started} ms`);
});


/** The client's metadata document on `https://localhost` (the engine's test CA); its URL and hit count. */
async function documentServer(redirectUrl) {
  const pem = readFileSync(FIXTURES + "tls-test-localhost.pem");
  const served = { hits: 0 };
  const server = https.createServer({ cert: pem, key: pem }, (req, res) => {
    served.hits++;
    if (req.url !== "/oauth/client.json") return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
    res.end(JSON.stringify({ client_id: served.url, client_name: "ferromcp CIMD test client", redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  served.url = `https://localhost:${server.address().port}/oauth/client.json`;
  served.close = () => closeServer(server);
  return served;
}

test(`the TypeScript SDK names itself by a Client ID Metadata Document: no registration, the document fetched once for three replicas (${REPLICA_NAME})`, { timeout: 90_000 }, async (t) => {
  const { started, issuer, idpPort, log, landing, mcpUrl } = await deploy(t, ["--document-ca", FIXTURES + "tls-test-ca.pem"]);
  const doc = await documentServer(landing.url);
  t.after(doc.close);
  const provider = new MemoryProvider(landing.url);
  provider.clientMetadataUrl = doc.url;
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await assert.rejects(new Client({ name: "cimd-test", version: "1.0" }).connect(first), UnauthorizedError);
  assert.equal(provider.saved.client.client_id, doc.url, "the SDK used its document's URL as client id");
  const pages = await browse(new URL(provider.authorizationUrl), landing.url, { login: "grace", password: "any password" });
  assert.match(pages[0].html, /ferromcp CIMD test client/, "the consent page shows the document's name");
  assert.ok(pages[0].html.includes(`describes itself at <b>https://localhost:`), "and the host that published it");
  assert.match(pages[0].html, /<b>Warning:<\/b>/, "with the loopback redirect warning");
  assert.ok(pages.slice(1).every((p) => p.url.startsWith(`http://127.0.0.1:${idpPort}/interaction/`)));
  const back = await landing.landed;
  await first.finishAuth(back.get("code"));
  const client = new Client({ name: "cimd-test", version: "1.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  t.after(() => client.close());
  const who = JSON.parse((await client.callTool({ name: "whoami", arguments: {} })).content[0].text);
  assert.equal(who.subject, "grace");
  assert.equal(who.clientId, doc.url);
  assert.equal(log.filter((e) => e.leg === "/register").length, 0, "no registration");
  const authorize = log.find((e) => e.leg === "/authorize");
  const code = log.find((e) => e.grant === "authorization_code");
  assert.notEqual(authorize.replica, code.replica, "the document read on one replica served the code exchange on another");
  assert.equal(code.status, 200);
  assert.equal(doc.hits, 1, "fetched once: the other replicas found it in the shared store");
  t.diagnostic(`legs: authorize@${authorize.replica} code@${code.replica}; document fetched ${doc.hits} time(s); in ${Date.now() - started} ms`);
});
