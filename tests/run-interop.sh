#!/usr/bin/env bash
# Interop between ferromcp (Rust) and the official MCP SDKs (tests/interop/SURFACE.md):
#   1. the official Python and TypeScript SDK clients against our interop-server, over stdio
#      and Streamable HTTP (tests/interop/run.sh);
#   2. our Rust client (everything-client --interop) against the official SDK servers
#      (py_server.py, ts_server.mjs), over stdio and Streamable HTTP.
# Exit status non-zero on any failure. Needs scripts/setup-test-deps (run here if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/lib-example-bin.sh
. "$ROOT/scripts/lib-example-bin.sh"
PY="$ROOT/.tools/venv/bin/python"
NODE="${NODE:-node}"
if [ ! -x "$PY" ] || [ ! -d "$ROOT/tests/node_modules/@modelcontextprotocol/sdk" ]; then
  scripts/setup-test-deps
fi
server="$(example_bin interop-server)"
client="$(example_bin everything-client)"
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-interop.XXXXXX")}"
export RESULTS
status=0

echo "run-interop: official SDK clients -> ferromcp interop-server" >&2
# HTTP twice: every JSON and SSE answer compressed (the clients' Accept-Encoding honoured), and
# compression off (docs/compression.md).
tests/interop/run.sh --stdio "$server --transport stdio" \
  --http "$server --transport http --port {port} --compression always" \
  --http "$server --transport http --port {port} --compression off" || status=1

echo "run-interop: ferromcp client -> official SDK servers" >&2
RESULTS="$RESULTS/reverse" tests/interop/reverse.sh rust_client "$client" --interop || status=1
echo "run-interop: reports in $RESULTS" >&2
exit "$status"
