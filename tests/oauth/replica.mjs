// One replica of an MCP server signed into through the OAuth proxy of the Node binding's own
// listener (`mcp.listen({ oauthProxy, redisUrl })`), for tests/oauth/oidc_proxy.test.mjs (run
// by tests/run-oauth-proxy.sh): the same command line and tool as the Rust replica
// (core/examples/oauth_proxy_replica.rs), so that the one deployed test signs the TypeScript
// SDK in through three of these:
//   node replica.mjs --port N --issuer URL --redis-url URL --upstream-issuer URL
//       --client-id ID --client-secret SECRET [--access-token-ttl SECONDS]
//       [--document-ca PEM_FILE]
// The proxy's records and the MCP sessions go to the server's `redisUrl`; the upstream is found
// by OpenID discovery (the `oidc` preset); `--document-ca` lets client metadata documents be
// fetched from this machine over TLS trusting that CA (tests only). Tool `whoami`: the
// caller's identity as the handler sees it (`ctx.auth`).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { McpServer } from "../../bindings-node/esm/index.mjs";

const { values: a } = parseArgs({
  options: {
    port: { type: "string" },
    issuer: { type: "string" },
    "redis-url": { type: "string" },
    "upstream-issuer": { type: "string" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "access-token-ttl": { type: "string" },
    "document-ca": { type: "string" },
  },
});
for (const k of ["port", "issuer", "redis-url", "upstream-issuer", "client-id"]) {
  if (!a[k]) {
    console.error(`replica.mjs: --${k} is required`);
    process.exit(2);
  }
}

const mcp = new McpServer({ name: "oauth-proxy-replica", version: "1.0" });
mcp.registerTool("whoami", { description: "The caller's identity, as the proxy's token gives it" }, (ctx) => {
  const auth = ctx?.auth;
  return {
    content: [{
      type: "text",
      text: JSON.stringify({
        subject: auth?.subject ?? null,
        clientId: auth?.clientId ?? null,
        scopes: auth?.scopes ?? null,
        audience: auth?.audience ?? null,
        upstreamToken: typeof auth?.claims?.upstream_access_token === "string",
      }),
    }],
  };
});
const front = new URL(a.issuer).host;
const http = await mcp.listen({
  host: "127.0.0.1",
  port: Number(a.port),
  allowedHosts: [front],
  redisUrl: a["redis-url"],
  oauthProxy: {
    issuerUrl: a.issuer,
    resourceServerUrl: `${a.issuer}/mcp`,
    upstream: { preset: "oidc", issuer: a["upstream-issuer"], clientId: a["client-id"], clientSecret: a["client-secret"] },
    scopesSupported: ["mcp:tools"],
    ...(a["access-token-ttl"] ? { accessTokenTtlSeconds: Number(a["access-token-ttl"]) } : {}),
    ...(a["document-ca"]
      ? { clientIdDocuments: { allowPrivateAddresses: true, rootCertificates: [readFileSync(a["document-ca"], "utf8")] } }
      : {}),
  },
});
console.error(`replica.mjs: listening on port ${http.port}`);
