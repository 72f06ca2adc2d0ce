#!/usr/bin/env bash
# Everything about the Node binding (bindings-node/):
#   1. bindings-node/scripts/test.sh: build (napi build, release or FERROMCP_NODE_BUILD=debug; tsc), tsc --strict on the
#      facade and the examples, the node:test suite, the npm package as a user installs it; then
#      bindings-node/ts-type-tests/check.sh: ts/types.ts against types generated from the MCP schema;
#   2. the official conformance suite against examples/node/everything_server.mjs (server mode:
#      0.1.16 --suite all and the alpha's 2025-11-25 and 2026-07-28 requirement sets) and everything_client.mjs
#      (client mode, 0.1.16 core suite, the alpha's non-auth 2025-11-25 and 2026-07-28 scenarios and its auth/* scenarios of 2025-11-25 and 2026-07-28), via tests/conformance/run-server.sh / run-client.sh and
#      scripts/everything-server|everything-client node;
#   3. interop (tests/interop/SURFACE.md): the official Python and TypeScript SDK clients against
#      examples/node/interop_server.mjs over stdio and Streamable HTTP, and the ferromcp Node
#      client (everything_client.mjs --interop) against the official SDK servers.
# Exit status non-zero if any part failed (conformance: failures not in
# tests/conformance/expected-failures.txt). Needs scripts/setup-test-deps (run here if missing).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SDKPY="$ROOT/.tools/venv/bin/python"
NODE="${NODE:-node}"
if [ ! -x "$SDKPY" ] || [ ! -d tests/node_modules/@modelcontextprotocol/sdk ] \
   || [ ! -f tests/node_modules/conformance-alpha/dist/index.js ]; then
  scripts/setup-test-deps || exit 1
fi
# test/redis.test.mjs needs a redis-server (it skips, saying so, only where none can be installed).
command -v redis-server >/dev/null 2>&1 || scripts/setup-test-deps --redis-only || true
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-node.XXXXXX")}"
mkdir -p "$RESULTS"
status=0
fail() { status=1; echo "FAILED: $*" >&2; }

echo "run-node: bindings-node/scripts/test.sh (build, tsc, node:test, package)" >&2
bindings-node/scripts/test.sh || fail "bindings-node/scripts/test.sh"

echo "run-node: wire types against the MCP schema (bindings-node/ts-type-tests/check.sh)" >&2
bindings-node/ts-type-tests/check.sh || fail "bindings-node/ts-type-tests/check.sh (ts/types.ts against the schema)"

# Build up front (a no-op after test.sh) so that no startup timeout includes compilation.
# shellcheck source=scripts/lib-node-binding.sh
. "$ROOT/scripts/lib-node-binding.sh"
node_binding_dir >/dev/null || { echo "run-node: cannot build the binding" >&2; exit 1; }

echo "run-node: conformance server mode (everything_server.mjs, Streamable HTTP)" >&2
tests/conformance/run-server.sh --results "$RESULTS/conformance-server" \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28 \
  -- scripts/everything-server node --transport http --port '{port}' || fail "conformance server mode"

echo "run-node: conformance client mode (everything_client.mjs, core suite)" >&2
tests/conformance/run-client.sh --results "$RESULTS/conformance-client" --label client-core-node \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28,alpha-auth-2025-11-25,alpha-auth-2026-07-28 \
  -- scripts/everything-client node || fail "conformance client mode"

echo "run-node: official SDK clients -> ferromcp Node interop server" >&2
server="$NODE $ROOT/examples/node/interop_server.mjs"
RESULTS="$RESULTS/interop" tests/interop/run.sh \
  --stdio "$server --transport stdio" --http "$server --transport http --port {port}" \
  || fail "official SDK clients against the Node interop server"

echo "run-node: ferromcp Node client -> official SDK servers" >&2
RESULTS="$RESULTS/reverse" tests/interop/reverse.sh node_client \
  "$NODE" examples/node/everything_client.mjs --interop \
  || fail "ferromcp Node client against the official SDK servers"
echo "run-node: results in $RESULTS" >&2
exit "$status"
