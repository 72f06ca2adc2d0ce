#!/usr/bin/env bash
# Everything about the Swift binding (bindings-swift/, module FerroMCP):
#   1. bindings-swift/scripts/build.sh (the engine's static library and the generated bindings),
#      then scripts/check-readme-dependency.sh (the docs' dependency lines load) and `swift test`
#      of the package (through scripts/swift; its exit code decides);
#   2. the official conformance suite against examples/swift's EverythingServer (server mode:
#      0.1.16 --suite all and the alpha's 2025-11-25 and 2026-07-28 requirement sets) and EverythingClient
#      (client mode, 0.1.16 core suite, the alpha's non-auth 2025-11-25 and 2026-07-28 scenarios and its auth/* scenarios of 2025-11-25 and 2026-07-28), via tests/conformance/run-server.sh / run-client.sh and
#      scripts/everything-server|everything-client swift;
#   3. interop (tests/interop/SURFACE.md): the official Python and TypeScript SDK clients against
#      examples/swift's InteropServer over stdio and Streamable HTTP, and the ferromcp Swift
#      client (EverythingClient --interop) against the official SDK servers;
#   4. both eras (tests/interop/both-eras.sh): examples/swift's InteropServer, started once over
#      Streamable HTTP, serves the Swift client in the handshake era (2025-11-25) and in the
#      per-request era (2026-07-28), one after the other and side by side (EverythingClient --both-eras).
# Everything is built before the first suite starts, so no startup timeout includes compilation.
# Exit status non-zero if any part failed (conformance: failures not in
# tests/conformance/expected-failures.txt). Needs scripts/setup-test-deps (run here if missing)
# and a Swift toolchain (scripts/swift prepares one on Linux when there is none).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SDKPY="$ROOT/.tools/venv/bin/python"
if [ ! -x "$SDKPY" ] || [ ! -d tests/node_modules/@modelcontextprotocol/sdk ] \
   || [ ! -f tests/node_modules/conformance-alpha/dist/index.js ]; then
  scripts/setup-test-deps || exit 1
fi
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-swift.XXXXXX")}"
mkdir -p "$RESULTS"
status=0
fail() { status=1; echo "FAILED: $*" >&2; }

echo "run-swift: bindings-swift/scripts/build.sh, swift test" >&2
# The stdio client tests spawn the Rust everything-server (FERROMCP_TEST_SERVER; they skip
# without it, so it is always set here and a missing binary fails the run).
# shellcheck source=scripts/lib-example-bin.sh
. "$ROOT/scripts/lib-example-bin.sh"
FERROMCP_TEST_SERVER="$(example_bin everything-server)" || exit 1
export FERROMCP_TEST_SERVER
# RedisTests and MiddlewareRedisTests (redisURL) need a redis-server: scripts/swift's root has
# none, so one runs here, on the host (the root shares its network and /tmp), for the length of
# `swift test`, under tests/redis-restartable.sh, through which a test kills and restarts it.
command -v redis-server >/dev/null 2>&1 || scripts/setup-test-deps --redis-only || true
redis_pid=
if command -v redis-server >/dev/null 2>&1; then
  redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  redis_control="$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-redis.XXXXXX")"
  tests/redis-restartable.sh "$redis_port" "$redis_control" &
  redis_pid=$!
  trap '[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null' EXIT
  for _ in $(seq 200); do [ -s "$redis_control/state" ] && break; sleep 0.05; done
  export FERROMCP_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0" FERROMCP_TEST_REDIS_CONTROL="$redis_control"
else
  echo "SKIP  run-swift: RedisTests: redis-server is not installed and could not be (apt-get install redis-server)" >&2
fi
# TLSTests' PKI (the Swift root has no openssl): a CA, server and client certificates.
FERROMCP_TEST_PKI="$RESULTS/tls-pki"
tests/tls/make-test-pki.sh "$FERROMCP_TEST_PKI" || fail "tests/tls/make-test-pki.sh"
export FERROMCP_TEST_PKI
# OpenTelemetryTests' OTLP receiver (Foundation on Linux has no HTTP server): spans posted to it
# are read back from its GET /spans.
otlp_out="$RESULTS/otlp-receiver.url"
node tests/otel/otlp-receiver.mjs > "$otlp_out" 2>"$RESULTS/otlp-receiver.log" &
otlp_pid=$!
trap '[ -n "${redis_pid:-}" ] && kill "$redis_pid" 2>/dev/null; [ -n "${otlp_pid:-}" ] && kill "$otlp_pid" 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$otlp_out" ] && break; sleep 0.1; done
FERROMCP_TEST_OTLP="$(head -1 "$otlp_out")"
[ -n "$FERROMCP_TEST_OTLP" ] || fail "tests/otel/otlp-receiver.mjs did not start (see $RESULTS/otlp-receiver.log)"
export FERROMCP_TEST_OTLP
if bindings-swift/scripts/build.sh; then
  # The docs' dependency lines load in a new package (~6 s; issue 33).
  bindings-swift/scripts/check-readme-dependency.sh || fail "bindings-swift/scripts/check-readme-dependency.sh"
  (cd bindings-swift && ../scripts/swift test) || fail "swift test (bindings-swift)"
  # The opt-in private Swift runtime hooks (PrivateRuntimeHooks): off above, on here.
  (cd bindings-swift && FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1 ../scripts/swift test --skip-build \
    --filter HandlerCallTests) || fail "swift test HandlerCallTests with FERROMCP_SWIFT_PRIVATE_RUNTIME_HOOKS=1"
else
  fail "bindings-swift/scripts/build.sh"
fi
if [ -n "$redis_pid" ]; then
  kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; redis_pid=; rm -rf "$redis_control"
fi
kill "$otlp_pid" 2>/dev/null; wait "$otlp_pid" 2>/dev/null; otlp_pid=

# Build the examples up front (the binding's natives are fresh after build.sh above).
# shellcheck source=scripts/lib-swift-binding.sh
. "$ROOT/scripts/lib-swift-binding.sh"
bin="$(swift_examples_dir)" || { echo "run-swift: cannot build examples/swift" >&2; exit 1; }

echo "run-swift: conformance server mode (EverythingServer, Streamable HTTP)" >&2
tests/conformance/run-server.sh --results "$RESULTS/conformance-server" \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28 \
  -- scripts/everything-server swift --transport http --port '{port}' || fail "conformance server mode"

echo "run-swift: conformance client mode (EverythingClient, core suite)" >&2
tests/conformance/run-client.sh --results "$RESULTS/conformance-client" --label client-core-swift \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28,alpha-auth-2025-11-25,alpha-auth-2026-07-28 \
  -- scripts/everything-client swift || fail "conformance client mode"

echo "run-swift: official SDK clients -> ferromcp Swift interop server" >&2
server="$ROOT/scripts/swift --exec $bin/InteropServer"
RESULTS="$RESULTS/interop" tests/interop/run.sh \
  --stdio "$server --transport stdio" --http "$server --transport http --port {port}" \
  || fail "official SDK clients against the Swift interop server"

echo "run-swift: one Swift example server under both eras (InteropServer, Swift client)" >&2
RESULTS="$RESULTS/both-eras" tests/interop/both-eras.sh swift "$server --transport http --port {port}" \
  scripts/everything-client swift || fail "the Swift interop server under both protocol eras"

echo "run-swift: ferromcp Swift client -> official SDK servers" >&2
RESULTS="$RESULTS/reverse" tests/interop/reverse.sh swift_client \
  scripts/everything-client swift --interop \
  || fail "ferromcp Swift client against the official SDK servers"
echo "run-swift: results in $RESULTS" >&2
exit "$status"
