#!/usr/bin/env bash
# Runs the official-SDK interop clients (py_client.py, ts_client.mjs) against MCP servers that
# expose the interop surface (SURFACE.md), over stdio and/or Streamable HTTP.
#
# Usage: tests/interop/run.sh [--stdio 'CMD ARGS'] [--http 'CMD ARGS with {port}'] [--url URL] [--self-check]
#   --stdio 'CMD ARGS'   a server speaking stdio (words split on whitespace; repeatable)
#   --http 'CMD ARGS'    a server started here for HTTP; {port} is replaced by a free port and
#                        the clients connect to http://127.0.0.1:PORT/mcp (repeatable)
#   --url URL            an already-running Streamable HTTP server (repeatable)
#   --self-check         the official SDK servers (py_server.py, ts_server.mjs) as targets:
#                        validates this harness independently of ferromcp
# Every target gets the official Python client twice: in the handshake era (--mode legacy) and
# with --mode auto --expect-version 2026-07-28 (server/discover, per-request _meta), and the
# official TypeScript client (handshake era; its SDK 1.x has no 2026-07-28). The TypeScript
# SDK's own server (ts_server.mjs, --self-check) speaks only the handshake era: no 2026 run.
# Example (our server): tests/interop/run.sh --stdio 'target/debug/interop-server --transport stdio' \
#                         --http 'target/debug/interop-server --transport http --port {port}'
# Reports go to $RESULTS (default: a temp dir). Exit status non-zero if any client failed.
# Closing line: "N passed, N failed".
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="$ROOT/.tools/venv/bin/python"
NODE="${NODE:-node}"
[ -x "$PY" ] || { echo "run.sh: $PY missing; run scripts/setup-test-deps" >&2; exit 2; }
[ -d "$ROOT/tests/node_modules/@modelcontextprotocol/sdk" ] || { echo "run.sh: npm deps missing; run scripts/setup-test-deps" >&2; exit 2; }

stdio=() http=() urls=()
handshake_only="" # targets (a word of their command) that speak only the handshake era
while [ $# -gt 0 ]; do
  case "$1" in
    --stdio) stdio+=("$2"); shift 2 ;;
    --http) http+=("$2"); shift 2 ;;
    --url) urls+=("$2"); shift 2 ;;
    --self-check)
      stdio+=("$PY $HERE/py_server.py --transport stdio" "$NODE $HERE/ts_server.mjs --transport stdio")
      http+=("$PY $HERE/py_server.py --transport http --port {port}" "$NODE $HERE/ts_server.mjs --transport http --port {port}")
      handshake_only="ts_server.mjs"
      shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#stdio[@]} -gt 0 ] || [ ${#http[@]} -gt 0 ] || [ ${#urls[@]} -gt 0 ] || { echo "run.sh: nothing to test (see --help)" >&2; exit 2; }

RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-interop.XXXXXX")}"
mkdir -p "$RESULTS"
passed=0 failed=0 n=0
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap stop_server EXIT

client() { # NAME TRANSPORT-ARGS...
  local name="$1"; shift
  n=$((n + 1))
  local out="$RESULTS/$n-$name.json"
  local rc=0
  case "$name" in
    py_client) (cd "$ROOT" && "$PY" "$HERE/py_client.py" "$@") >"$out" 2>"$out.stderr" || rc=$? ;;
    ts_client) (cd "$ROOT" && "$NODE" "$HERE/ts_client.mjs" "$@") >"$out" 2>"$out.stderr" || rc=$? ;;
  esac
  if [ "$rc" = 0 ]; then passed=$((passed + 1)); echo "PASS  $name $*"
  else
    failed=$((failed + 1)); echo "FAIL  $name $*  (report: $out)"
    "$PY" "$HERE/failures.py" "$out" || tail -n 5 "$out.stderr"
  fi
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# speaks_2026 CMD: whether the target is expected to speak 2026-07-28.
speaks_2026() { [ -z "$handshake_only" ] || [[ "$1" != *"$handshake_only"* ]]; }

for cmd in "${stdio[@]}"; do
  read -ra words <<<"$cmd"
  client py_client --stdio "${words[@]}"
  if speaks_2026 "$cmd"; then client py_client --mode auto --expect-version 2026-07-28 --stdio "${words[@]}"; fi
  client ts_client --stdio "${words[@]}"
done

for cmd in "${http[@]}"; do
  port="$(free_port)"
  read -ra words <<<"${cmd//\{port\}/$port}"
  log="$RESULTS/server-$port.log"
  set -m; "${words[@]}" >"$log" 2>&1 & server_pid=$!; set +m
  ok=0
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then ok=1; break; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  if [ "$ok" != 1 ]; then
    echo "FAIL  server did not listen on $port: ${words[*]} (log: $log)"; tail -n 10 "$log"
    failed=$((failed + 3)); stop_server; continue
  fi
  echo "      server: ${words[*]}"
  client py_client --http "http://127.0.0.1:$port/mcp"
  if speaks_2026 "$cmd"; then client py_client --mode auto --expect-version 2026-07-28 --http "http://127.0.0.1:$port/mcp"; fi
  client ts_client --http "http://127.0.0.1:$port/mcp"
  stop_server
done

for url in "${urls[@]}"; do
  client py_client --http "$url"
  client py_client --mode auto --expect-version 2026-07-28 --http "$url"
  client ts_client --http "$url"
done

echo "interop reports in $RESULTS" >&2
echo "interop: $passed passed, $failed failed"
[ "$failed" = 0 ]
