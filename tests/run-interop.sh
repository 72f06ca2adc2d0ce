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
tests/interop/run.sh --stdio "$server --transport stdio" --http "$server --transport http --port {port}" || status=1

echo "run-interop: ferromcp client -> official SDK servers" >&2
passed=0 failed=0
reverse() { # LABEL ARGS...
  local label="$1"; shift
  local out="$RESULTS/rust-client-$label.json"
  if timeout 60 "$client" --interop "$@" >"$out" 2>"$out.stderr"; then
    passed=$((passed + 1)); echo "PASS  rust_client $label"
  else
    failed=$((failed + 1)); echo "FAIL  rust_client $label  (report: $out)"
    "$PY" - "$out" <<'PYEOF' || tail -n 5 "$out.stderr"
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
reverse py-stdio --stdio "$PY" tests/interop/py_server.py --transport stdio
reverse ts-stdio --stdio "$NODE" tests/interop/ts_server.mjs --transport stdio

# Over HTTP: start each official server on a free port, point the Rust client at it.
if "$client" --has-http-client; then
  free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
  for peer in py ts; do
    port="$(free_port)"
    case "$peer" in
      py) cmd=("$PY" tests/interop/py_server.py --transport http --port "$port") ;;
      ts) cmd=("$NODE" tests/interop/ts_server.mjs --transport http --port "$port") ;;
    esac
    set -m; "${cmd[@]}" >"$RESULTS/$peer-server-$port.log" 2>&1 & pid=$!; set +m
    up=0
    for _ in $(seq 1 150); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if [ "$up" = 1 ]; then
      reverse "$peer-http" --http "http://127.0.0.1:$port/mcp"
    else
      failed=$((failed + 1)); echo "FAIL  $peer server did not listen on $port (log: $RESULTS/$peer-server-$port.log)"
    fi
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
else
  echo "SKIP  rust_client over HTTP: ferromcp has no Streamable HTTP client transport yet (ferromcp::transport::http client)"
fi
echo "run-interop: rust client: $passed passed, $failed failed"
[ "$failed" = 0 ] || status=1
echo "run-interop: reports in $RESULTS" >&2
exit "$status"
