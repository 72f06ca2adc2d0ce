#!/usr/bin/env bash
# A ferromcp interop client against the official SDK servers (tests/interop/py_server.py,
# ts_server.mjs), over stdio and Streamable HTTP: four checks, each printed as a PASS/FAIL line
# with the failing checks of the client's JSON report (tests/interop/SURFACE.md).
#
# Usage: tests/interop/reverse.sh LABEL CLIENT_CMD...
#   LABEL       names the client in the output (e.g. rust_client)
#   CLIENT_CMD  the interop client; `--stdio CMD ARGS...` or `--http URL` is appended
# Env: RESULTS (reports go there; default a temp dir), NODE (default node).
# Exit status non-zero if any check failed. Needs scripts/setup-test-deps.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
[ $# -ge 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
label="$1"; shift
client=("$@")
PY="$ROOT/.tools/venv/bin/python"
NODE="${NODE:-node}"
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-reverse.XXXXXX")}"
mkdir -p "$RESULTS"
passed=0 failed=0
check() { # NAME ARGS...
  local name="$1"; shift
  local out="$RESULTS/$label-$name.json"
  if timeout 60 "${client[@]}" "$@" >"$out" 2>"$out.stderr"; then
    passed=$((passed + 1)); echo "PASS  $label $name"
  else
    failed=$((failed + 1)); echo "FAIL  $label $name  (report: $out)"
    "$PY" tests/interop/failures.py "$out" || tail -n 5 "$out.stderr"
  fi
}
check py-stdio --stdio "$PY" tests/interop/py_server.py --transport stdio
check ts-stdio --stdio "$NODE" tests/interop/ts_server.mjs --transport stdio
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for peer in py ts; do
  port="$(free_port)"
  case "$peer" in
    py) cmd=("$PY" tests/interop/py_server.py --transport http --port "$port") ;;
    ts) cmd=("$NODE" tests/interop/ts_server.mjs --transport http --port "$port") ;;
  esac
  set -m; "${cmd[@]}" >"$RESULTS/$label-$peer-server-$port.log" 2>&1 & pid=$!; set +m
  up=0
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ "$up" = 1 ]; then
    check "$peer-http" --http "http://127.0.0.1:$port/mcp"
  else
    failed=$((failed + 1)); echo "FAIL  $peer server did not listen on $port (log: $RESULTS/$label-$peer-server-$port.log)"
  fi
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
echo "reverse: $label: $passed passed, $failed failed"
[ "$failed" = 0 ]
