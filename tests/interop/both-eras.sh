#!/usr/bin/env bash
# One example server, unchanged, under both protocol eras, driven by a ferromcp client: the
# server is started once over Streamable HTTP, then the client runs with `--both-eras URL`
# against that one process. The client checks the interop surface (SURFACE.md) with a
# handshake client (2025-11-25, `initialize`), then with a per-request client (protocol mode
# auto, which must settle on 2026-07-28: `server/discover`, `_meta` on every request), then
# with both side by side, and prints a JSON report {ok, checks: [{name, ok, detail}], error?}
# (each check's name starts with its client's revision); it exits non-zero on any failure.
#
# Usage: tests/interop/both-eras.sh LABEL 'SERVER_CMD with {port}' CLIENT_CMD...
#   LABEL       names the run in the output (e.g. swift)
#   SERVER_CMD  one string, split on whitespace; {port} is replaced by a free port
#   CLIENT_CMD  the client; `--both-eras http://127.0.0.1:PORT/mcp` is appended
# Env: RESULTS (report and server log go there; default a temp dir).
# Exit status non-zero if the server did not listen or any check failed. Prints
# "PASS|FAIL  both-eras LABEL" and, on failure, the failing checks.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
[ $# -ge 3 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
label="$1" server="$2"; shift 2
client=("$@")
PY="$ROOT/.tools/venv/bin/python"
[ -x "$PY" ] || { echo "both-eras: $PY missing; run scripts/setup-test-deps" >&2; exit 2; }
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-both-eras.XXXXXX")}"
mkdir -p "$RESULTS"

port="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
read -ra words <<<"${server//\{port\}/$port}"
log="$RESULTS/$label-server-$port.log"
set -m; "${words[@]}" >"$log" 2>&1 & pid=$!; set +m
stop() {
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
trap stop EXIT
up=0
for _ in $(seq 1 150); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
if [ "$up" != 1 ]; then
  echo "FAIL  both-eras $label: the server did not listen on $port: ${words[*]} (log: $log)"
  tail -n 10 "$log"
  exit 1
fi
out="$RESULTS/$label-both-eras.json"
if timeout 120 "${client[@]}" --both-eras "http://127.0.0.1:$port/mcp" >"$out" 2>"$out.stderr"; then
  echo "PASS  both-eras $label ($("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["checks"]))' "$out") checks; report: $out)"
  exit 0
fi
echo "FAIL  both-eras $label  (report: $out)"
"$PY" tests/interop/failures.py "$out" || tail -n 5 "$out.stderr"
exit 1
