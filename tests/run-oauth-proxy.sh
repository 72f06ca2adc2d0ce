#!/usr/bin/env bash
# The OAuth proxy deployed (issue 38 point 5): tests/oauth/oidc_proxy.test.mjs starts a real
# OpenID provider (oidc-provider from npm), a redis-server, three replicas of an MCP server whose
# OAuth proxy fronts that provider (the proxy's records and the MCP sessions on the Redis) and a
# front sending each leg of the flow to another replica; the official TypeScript SDK client
# registers, the user's browser (an HTTP client submitting the proxy's consent and the
# provider's login and consent forms) authorizes, the SDK exchanges the code, calls a tool,
# refreshes when its token expires (5 s); a replayed code, a rotated refresh token, an expired
# token and the provider's own token are refused. A second test: the SDK names itself by a Client
# ID Metadata Document (https://localhost, the engine's test CA) instead of registering, the
# document fetched once for the three replicas.
# Run four times, one replica each: the Rust server (core/examples/oauth_proxy_replica.rs,
# HttpServerOptions::oauth_proxy), the Python binding's listener (tests/oauth/replica.py,
# serve_http(oauth_proxy=OAuthProxyConfig(...), redis_url=...)), the Node binding's
# (tests/oauth/replica.mjs, listen({ oauthProxy, redisUrl })) and the Swift binding's
# (examples/swift/Sources/OAuthProxyReplica, startHTTP(options: HTTPOptions(redisURL:,
# oauthProxy:)), run through scripts/swift --exec). About 10-13 s a run once built. The
# bindings are built here when missing or stale, as the run-python, run-node and run-swift
# suites build them (run-node, before this one, has built the Node addon already; the Python
# module is built here instead of in run-python, after it; the Swift examples through
# scripts/lib-swift-binding.sh, which run-examples, before this one, has used already). A
# failed Swift build fails the Swift run only; the others still run.
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
# shellcheck source=scripts/lib-python-binding.sh
. "$ROOT/scripts/lib-python-binding.sh"
# shellcheck source=scripts/lib-node-binding.sh
. "$ROOT/scripts/lib-node-binding.sh"
# shellcheck source=scripts/lib-swift-binding.sh
. "$ROOT/scripts/lib-swift-binding.sh"
echo "run-oauth-proxy: building the oauth_proxy_replica example (feature redis) and the bindings" >&2
# Under scripts/test, its workspace selection (the bindings enable `redis`, so cargo test builds the
# example): nothing to rebuild; a -p build would compile the engine again with another feature set.
# shellcheck disable=SC2086
if [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then cargo test --quiet $FERROMCP_WORKSPACE_TEST --no-run 1>&2
else cargo build --quiet -p ferromcp --features redis --example oauth_proxy_replica; fi
PY="$(python_binding_py)"
node_binding_dir >/dev/null
SWIFT_BIN="$(swift_examples_dir)" || SWIFT_BIN=""
status=0
run() {
  local name="$1" replica="$2"
  echo "run-oauth-proxy: replicas: $name" >&2
  FERROMCP_OAUTH_REPLICA="$replica" FERROMCP_OAUTH_REPLICA_NAME="$name" \
    scripts/node22 --test tests/oauth/oidc_proxy.test.mjs || { status=1; echo "FAILED: run-oauth-proxy ($name)" >&2; }
}
run "Rust" "${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/oauth_proxy_replica"
run "Python serve_http" "[\"$PY\", \"$ROOT/tests/oauth/replica.py\"]"
run "Node listen" "[\"$ROOT/scripts/node22\", \"$ROOT/tests/oauth/replica.mjs\"]"
if [ -n "$SWIFT_BIN" ]; then
  run "Swift startHTTP" "[\"$ROOT/scripts/swift\", \"--exec\", \"$SWIFT_BIN/OAuthProxyReplica\"]"
else
  status=1; echo "FAILED: run-oauth-proxy (Swift startHTTP): examples/swift did not build" >&2
fi
exit $status
