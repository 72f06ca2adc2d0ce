#!/usr/bin/env bash
# The proxy (issue 39, docs/gateway.md): `ferromcp proxy` with one stdio backend, checked by
#   1. the official Python (handshake and 2026-07-28 modes) and TypeScript SDK clients running
#      the interop checks (tests/interop/run.sh) through the proxy in front of the Rust
#      interop-server (proxy over stdio and Streamable HTTP), and over stdio in front of the
#      official Python SDK's and TypeScript SDK's interop servers (py_server.py, ts_server.mjs;
#      the latter speaks only the handshake era, so the 2026-07-28 client is bridged), and in
#      front of ferromcp's own Python and Node interop servers (examples/python/interop_server.py,
#      examples/node/interop_server.mjs: the bindings as backends);
#   2. the official conformance suite's server scenarios (0.1.16 --suite all and the alpha's
#      2025-11-25 and 2026-07-28 requirement sets) through the proxy over Streamable HTTP, in
#      front of the Rust everything-server over stdio (2026-07-28 requests go to a per-request
#      connection to the backend, their input_required rounds passed through; docs/gateway.md).
# The proxy's own tests (cargo test -p ferromcp-proxy -p ferromcp-cli) run with the workspace.
# Exit status non-zero on any failure. Needs scripts/setup-test-deps (run here if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/lib-example-bin.sh
. "$ROOT/scripts/lib-example-bin.sh"
# shellcheck source=scripts/lib-python-binding.sh
. "$ROOT/scripts/lib-python-binding.sh"
# shellcheck source=scripts/lib-node-binding.sh
. "$ROOT/scripts/lib-node-binding.sh"
if [ ! -x "$ROOT/.tools/venv/bin/python" ] || [ ! -d tests/node_modules/@modelcontextprotocol/sdk ] \
   || [ ! -f tests/node_modules/conformance-alpha/dist/index.js ]; then
  scripts/setup-test-deps
fi
target="${CARGO_TARGET_DIR:-$ROOT/target}"
# shellcheck disable=SC2086
if [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then cargo test --quiet $FERROMCP_WORKSPACE_TEST --no-run 1>&2
else cargo build --quiet -p ferromcp-cli --bin ferromcp 1>&2; fi
ferromcp="$target/debug/ferromcp"
everything="$(example_bin everything-server)"
interop="$(example_bin interop-server)"
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-proxy.XXXXXX")}"
mkdir -p "$RESULTS"
printf '{"mcpServers": {"interop": {"command": "%s", "args": ["--transport", "stdio"]}}}\n' "$interop" >"$RESULTS/interop.json"
PY="$ROOT/.tools/venv/bin/python"
printf '{"mcpServers": {"py": {"command": "%s", "args": ["%s", "--transport", "stdio"]}}}\n' "$PY" "$ROOT/tests/interop/py_server.py" >"$RESULTS/py.json"
printf '{"mcpServers": {"ts": {"command": "%s", "args": ["%s", "--transport", "stdio"]}}}\n' "$(command -v "${NODE:-node}")" "$ROOT/tests/interop/ts_server.mjs" >"$RESULTS/ts.json"
printf '{"mcpServers": {"everything": {"command": "%s", "args": ["--transport", "stdio"]}}}\n' "$everything" >"$RESULTS/everything.json"
# ferromcp's own bindings as backends (built here if run-node/run-python have not yet).
FERRO_PY="$(python_binding_py)" || { echo "run-proxy: cannot build the Python binding" >&2; exit 1; }
node_binding_dir >/dev/null || { echo "run-proxy: cannot build the Node binding" >&2; exit 1; }
printf '{"mcpServers": {"ferropy": {"command": "%s", "args": ["%s", "--transport", "stdio"]}}}\n' "$FERRO_PY" "$ROOT/examples/python/interop_server.py" >"$RESULTS/ferro-py.json"
printf '{"mcpServers": {"ferronode": {"command": "%s", "args": ["%s", "--transport", "stdio"]}}}\n' "$(command -v "${NODE:-node}")" "$ROOT/examples/node/interop_server.mjs" >"$RESULTS/ferro-node.json"
status=0

echo "run-proxy: official SDK clients -> ferromcp proxy -> interop servers (Rust, official Python and TypeScript SDKs, ferromcp Python and Node)" >&2
RESULTS="$RESULTS/interop" tests/interop/run.sh \
  --stdio "$ferromcp proxy --config $RESULTS/interop.json --stdio" \
  --http "$ferromcp proxy --config $RESULTS/interop.json --port {port}" \
  --stdio "$ferromcp proxy --config $RESULTS/py.json --stdio" \
  --stdio "$ferromcp proxy --config $RESULTS/ts.json --stdio" \
  --stdio "$ferromcp proxy --config $RESULTS/ferro-py.json --stdio" \
  --stdio "$ferromcp proxy --config $RESULTS/ferro-node.json --stdio" || status=1

echo "run-proxy: conformance server scenarios -> ferromcp proxy -> everything-server" >&2
tests/conformance/run-server.sh --results "$RESULTS/conformance" --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28 \
  -- "$ferromcp" proxy --config "$RESULTS/everything.json" --port '{port}' || status=1
echo "run-proxy: results in $RESULTS" >&2
exit "$status"
