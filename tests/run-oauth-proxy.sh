#!/usr/bin/env bash
# The OAuth proxy deployed (issue 38 point 5): tests/oauth/oidc_proxy.test.mjs starts a real
# OpenID provider (oidc-provider from npm), a redis-server, three replicas of an MCP server whose
# OAuth proxy fronts that provider (core/examples/oauth_proxy_replica.rs: the proxy's records and
# the MCP sessions on the Redis) and a front sending each leg of the flow to another replica;
# the official TypeScript SDK client registers, the user's browser (an HTTP client submitting the
# proxy's consent and the provider's login and consent forms) authorizes, the SDK exchanges the
# code, calls a tool, refreshes when its token expires (5 s); a replayed code, a rotated refresh token,
# an expired token and the provider's own token are refused. A second test: the SDK names itself by
# a Client ID Metadata Document (https://localhost, the engine's test CA) instead of registering,
# the document fetched once for the three replicas. About 8 s once built.
# Needs redis-server (scripts/setup-test-deps installs it); without it, says so and skips.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if ! command -v redis-server >/dev/null 2>&1; then
  scripts/setup-test-deps --redis-only || true
fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "SKIP  run-oauth-proxy: redis-server is not installed and could not be (apt-get install redis-server)" >&2
  exit 0
fi
if [ ! -f tests/node_modules/oidc-provider/package.json ] \
   || [ ! -f tests/node_modules/@modelcontextprotocol/sdk/package.json ]; then
  scripts/setup-test-deps --node-only
fi
echo "run-oauth-proxy: building the oauth_proxy_replica example (feature redis)" >&2
cargo build --quiet -p ferromcp --features redis --example oauth_proxy_replica
FERROMCP_OAUTH_REPLICA="${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/oauth_proxy_replica" \
  scripts/node22 --test tests/oauth/oidc_proxy.test.mjs
