#!/usr/bin/env bash
# Everything about the Python binding (bindings-python/):
#   1. bindings-python/scripts/test.sh: build into .tools/venv-python-binding, ruff, mypy --strict,
#      pytest;
#   2. the official conformance suite against examples/python/everything_server.py (server mode:
#      0.1.16 --suite all and the alpha's 2025-11-25 requirement set) and everything_client.py
#      (client mode, 0.1.16 core suite), via tests/conformance/run-server.sh / run-client.sh and
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
  -- scripts/everything-server python --transport http --port '{port}' || fail "conformance server mode"

echo "run-python: conformance client mode (everything_client.py, core suite)" >&2
tests/conformance/run-client.sh --results "$RESULTS/conformance-client" \
  -- scripts/everything-client python || fail "conformance client mode"

echo "run-python: official SDK clients -> ferromcp Python interop server" >&2
RESULTS="$RESULTS/interop" tests/interop/run.sh \
  --stdio "$PY $ROOT/examples/python/interop_server.py --transport stdio" \
  --http "$PY $ROOT/examples/python/interop_server.py --transport http --port {port}" \
  || fail "official SDK clients against the Python interop server"

echo "run-python: ferromcp Python client -> official SDK servers" >&2
mkdir -p "$RESULTS/reverse"
passed=0 failed=0
reverse() { # LABEL ARGS...
  local label="$1"; shift
  local out="$RESULTS/reverse/python-client-$label.json"
  if timeout 60 "$PY" examples/python/interop_client.py "$@" >"$out" 2>"$out.stderr"; then
    passed=$((passed + 1)); echo "PASS  python_client $label"
  else
    failed=$((failed + 1)); echo "FAIL  python_client $label  (report: $out)"
    "$SDKPY" - "$out" <<'PYEOF' || tail -n 5 "$out.stderr"
import json, sys
r = json.load(open(sys.argv[1]))
for c in r.get("checks", []):
    if not c["ok"]:
        print(f"        - {c['name']}: {json.dumps(c['detail'], default=str)[:300]}")
if r.get("error"):
    print(f"        - error: {r['error'][:500]}")
PYEOF
  fi
}
reverse py-stdio --stdio "$SDKPY" tests/interop/py_server.py --transport stdio
reverse ts-stdio --stdio "$NODE" tests/interop/ts_server.mjs --transport stdio
free_port() { "$SDKPY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for peer in py ts; do
  port="$(free_port)"
  case "$peer" in
    py) cmd=("$SDKPY" tests/interop/py_server.py --transport http --port "$port") ;;
    ts) cmd=("$NODE" tests/interop/ts_server.mjs --transport http --port "$port") ;;
  esac
  set -m; "${cmd[@]}" >"$RESULTS/reverse/$peer-server-$port.log" 2>&1 & pid=$!; set +m
  up=0
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ "$up" = 1 ]; then
    reverse "$peer-http" --http "http://127.0.0.1:$port/mcp"
  else
    failed=$((failed + 1)); echo "FAIL  $peer server did not listen on $port"
  fi
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
echo "run-python: python client: $passed passed, $failed failed"
[ "$failed" = 0 ] || fail "ferromcp Python client against the official SDK servers"
echo "run-python: results in $RESULTS" >&2
exit "$status"
