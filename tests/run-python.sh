#!/usr/bin/env bash
# Everything about the Python binding (bindings-python/):
#   1. bindings-python/scripts/test.sh: build into .tools/venv-python-binding, ruff, mypy --strict,
#      pytest;
#   2. the official conformance suite against examples/python/everything_server.py (server mode:
#      0.1.16 --suite all and the alpha's 2025-11-25 and 2026-07-28 requirement sets) and everything_client.py
#      (client mode, 0.1.16 core suite, the alpha's non-auth 2025-11-25 and 2026-07-28 scenarios and its auth/* scenarios of 2025-11-25 and 2026-07-28), via tests/conformance/run-server.sh / run-client.sh and
#      scripts/everything-server|everything-client python;
#   3. interop (tests/interop/SURFACE.md): the official Python and TypeScript SDK clients against
#      examples/python/interop_server.py over stdio and Streamable HTTP, and
#      examples/python/interop_client.py against the official SDK servers (py_server.py,
#      ts_server.mjs) over stdio and Streamable HTTP.
# Exit status non-zero if any part failed (conformance: failures not in
# tests/conformance/expected-failures.txt). Needs scripts/setup-test-deps (run here if missing).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/lib-python-binding.sh
. "$ROOT/scripts/lib-python-binding.sh"
SDKPY="$ROOT/.tools/venv/bin/python"
NODE="${NODE:-node}"
if [ ! -x "$SDKPY" ] || [ ! -d tests/node_modules/@modelcontextprotocol/sdk ] \
   || [ ! -f tests/node_modules/conformance-alpha/dist/index.js ]; then
  scripts/setup-test-deps || exit 1
fi
# test_redis.py needs a redis-server (it skips, saying so, only where none can be installed).
command -v redis-server >/dev/null 2>&1 || scripts/setup-test-deps --redis-only || true
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-python.XXXXXX")}"
mkdir -p "$RESULTS"
status=0
fail() { status=1; echo "FAILED: $*" >&2; }

echo "run-python: bindings-python/scripts/test.sh (ruff, mypy --strict, pytest)" >&2
bindings-python/scripts/test.sh || fail "bindings-python/scripts/test.sh"

# Build up front so that no startup timeout includes compilation.
PY="$(python_binding_py)" || { echo "run-python: cannot build the binding" >&2; exit 1; }

echo "run-python: conformance server mode (everything_server.py, Streamable HTTP)" >&2
tests/conformance/run-server.sh --results "$RESULTS/conformance-server" \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28 \
  -- scripts/everything-server python --transport http --port '{port}' || fail "conformance server mode"

echo "run-python: conformance client mode (everything_client.py, core suite)" >&2
tests/conformance/run-client.sh --results "$RESULTS/conformance-client" --label client-core-python \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28,alpha-auth-2025-11-25,alpha-auth-2026-07-28 \
  -- scripts/everything-client python || fail "conformance client mode"

echo "run-python: official SDK clients -> ferromcp Python interop server" >&2
RESULTS="$RESULTS/interop" tests/interop/run.sh \
  --stdio "$PY $ROOT/examples/python/interop_server.py --transport stdio" \
  --http "$PY $ROOT/examples/python/interop_server.py --transport http --port {port}" \
  || fail "official SDK clients against the Python interop server"

echo "run-python: ferromcp Python client -> official SDK servers" >&2
RESULTS="$RESULTS/reverse" tests/interop/reverse.sh python_client \
  "$PY" examples/python/interop_client.py \
  || fail "ferromcp Python client against the official SDK servers"
echo "run-python: results in $RESULTS" >&2
exit "$status"
