#!/usr/bin/env bash
# Runs the official MCP conformance suite (server mode) against an HTTP MCP server.
#
# Usage: tests/conformance/run-server.sh [options] [--] SERVER_CMD...
#   SERVER_CMD is started in the background; the literal {port} in any of its
#   arguments is replaced by the chosen port, e.g.
#     tests/conformance/run-server.sh -- scripts/everything-server rust --transport http --port {port}
# Options:
#   --port N          port the server listens on (default: a free port, found at start)
#   --path P          MCP endpoint path (default /mcp)
#   --results DIR     where results go (default: a new temp dir; kept and printed)
#   --runs LIST       comma-separated runs (default "v0.1.16,alpha-2025-11-25"): "v0.1.16"
#                     (--suite all), "alpha-2025-11-25" (--requirements 2025-11-25),
#                     "alpha-2026-07-28" (--requirements 2026-07-28: the stateless per-request era
#                     on the same endpoint; it always runs last, as its scenarios change the
#                     server's tool and prompt lists)
#   --only RUN        the same as --runs RUN
#   --scenario NAME   run a single scenario in each run (for debugging)
#   --startup-timeout S  seconds to wait for the port (default 30)
# Exit status: non-zero on any failing scenario not listed in
# tests/conformance/expected-failures.txt (alpha's "not scored" scenarios are reported, never fatal).
# Needs scripts/setup-test-deps to have run (Node 22 + the conformance packages).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NODE22="$ROOT/scripts/node22"
NM="$ROOT/tests/node_modules"
CLI_OLD="$NM/@modelcontextprotocol/conformance/dist/index.js"
CLI_ALPHA="$NM/conformance-alpha/dist/index.js"
EXPECTED="$HERE/expected-failures.txt"
SCORED_BY_US="$HERE/scored-by-us.txt"

port="" mcp_path="/mcp" results="" runs="v0.1.16,alpha-2025-11-25" scenario="" startup_timeout=30
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --path) mcp_path="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    --only|--runs) runs="$2"; shift 2 ;;
    --scenario) scenario="$2"; shift 2 ;;
    --startup-timeout) startup_timeout="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "run-server: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "run-server: missing SERVER_CMD (see --help)" >&2; exit 2; }
for f in "$CLI_OLD" "$CLI_ALPHA"; do
  [ -f "$f" ] || { echo "run-server: $f missing; run scripts/setup-test-deps" >&2; exit 2; }
done
"$NODE22" --print-path >/dev/null || exit 2

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
[ -n "$port" ] || port="$(free_port)"
cmd=()
for a in "$@"; do cmd+=("${a//\{port\}/$port}"); done

[ -n "$results" ] || results="$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-conformance-server.XXXXXX")"
mkdir -p "$results"
url="http://127.0.0.1:$port$mcp_path"

server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || kill -KILL "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "run-server: starting: ${cmd[*]}  (log: $results/server.log)" >&2
# Own process group, so cleanup kills the server and anything it spawned.
set -m
"${cmd[@]}" >"$results/server.log" 2>&1 &
server_pid=$!
set +m

deadline=$((SECONDS + startup_timeout))
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run-server: server exited before listening on $port; last log lines:" >&2
    tail -n 20 "$results/server.log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "run-server: server did not accept connections on port $port within ${startup_timeout}s" >&2
    tail -n 20 "$results/server.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "run-server: server is up at $url" >&2

status=0
run_one() { # LABEL CLI ARGS...
  local label="$1" cli="$2"; shift 2
  local out="$results/$label"
  mkdir -p "$out"
  local sargs=()
  [ -n "$scenario" ] && sargs=(--scenario "$scenario")
  echo "run-server: [$label] conformance server --url $url $* ${sargs[*]:-}" >&2
  # The CLI's own exit code is not used: judging happens in summarize.mjs.
  "$NODE22" "$cli" server --url "$url" "$@" "${sargs[@]}" -o "$out" >"$out/cli.log" 2>&1 || true
}

wants() { case ",$runs," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
for r in ${runs//,/ }; do
  case "$r" in v0.1.16|alpha-2025-11-25|alpha-2026-07-28) ;; *) echo "run-server: unknown run $r" >&2; exit 2 ;; esac
done

if wants v0.1.16; then
  run_one v0.1.16 "$CLI_OLD" --suite all
  "$NODE22" "$HERE/summarize.mjs" --mode server --run v0.1.16 --dir "$results/v0.1.16" \
    --expected "$EXPECTED" --scored-by-us "$SCORED_BY_US" | tee "$results/v0.1.16.summary" || status=1
fi
if wants alpha-2025-11-25; then
  if [ -n "$scenario" ]; then
    run_one alpha-2025-11-25 "$CLI_ALPHA" --spec-version 2025-11-25
  else
    run_one alpha-2025-11-25 "$CLI_ALPHA" --requirements 2025-11-25
  fi
  "$NODE22" "$HERE/summarize.mjs" --mode server --run alpha-2025-11-25 --dir "$results/alpha-2025-11-25" \
    --expected "$EXPECTED" --scored-by-us "$SCORED_BY_US" --requirements "$NM/conformance-alpha/requirements/2025-11-25.yaml" \
    | tee "$results/alpha-2025-11-25.summary" || status=1
fi
if wants alpha-2026-07-28; then
  if [ -n "$scenario" ]; then
    run_one alpha-2026-07-28 "$CLI_ALPHA" --spec-version 2026-07-28
  else
    run_one alpha-2026-07-28 "$CLI_ALPHA" --requirements 2026-07-28
  fi
  "$NODE22" "$HERE/summarize.mjs" --mode server --run alpha-2026-07-28 --dir "$results/alpha-2026-07-28" \
    --expected "$EXPECTED" --scored-by-us "$SCORED_BY_US" --requirements "$NM/conformance-alpha/requirements/2026-07-28.yaml" \
    | tee "$results/alpha-2026-07-28.summary" || status=1
fi
# The server must still be alive after the suite: a crash is a failure of its own.
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "run-server: the server exited during the run (see $results/server.log)" >&2
  status=1
fi
echo "run-server: results in $results (cli.log, checks.json per scenario, server.log)" >&2
exit "$status"
