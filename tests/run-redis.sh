#!/usr/bin/env bash
# Scale-out on Redis (issue 17): replicas of one server sharing sessions, SSE events and a bus
# on a real redis-server, each test starting its own on a free port.
#   core/tests/http_replicas.rs with the `redis` feature: two or three replicas behind a
#   round-robin proxy written in the test; every request of a session goes to the next
#   replica; elicitation, sampling and cancellation cross replicas; a GET stream resumes with
#   Last-Event-ID on another replica after its replica is killed, losing no event; a request
#   stream resumes on another replica; list_changed and resource updates reach the replica
#   holding the session's stream, once; a subscriptions/listen naming a task another replica
#   runs gets its notifications/tasks (the state at subscription time, then each change) in
#   order and once.
# Then processes: tests/scale/cluster.mjs starts a redis-server, three everything-server
# replicas (built with the `redis` feature, --redis-url) and a round-robin proxy, and the
# official conformance suite's server mode (0.1.16 --suite all, the alpha's 2025-11-25 and
# 2026-07-28 requirement sets) runs through the proxy, each request on the next replica; and
# tests/scale/kill_resume.mjs kills (SIGKILL) the replica holding a client's GET stream, and the
# client resumes on another replica with Last-Event-ID, losing no event; and the process part
# of `scripts/fault-suite --short` (tests/scale/faults.mjs --short: faults under load with the
# replicas' logs checked; about 30 s).
# Needs redis-server (scripts/setup-test-deps installs it); without it, says so and skips.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if ! command -v redis-server >/dev/null 2>&1; then
  scripts/setup-test-deps --redis-only || true
fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "SKIP  run-redis: redis-server is not installed and could not be (apt-get install redis-server)" >&2
  exit 0
fi
echo "run-redis: $(redis-server --version | head -n 1)" >&2
log=$(mktemp)
status=0
# Under scripts/test, its workspace selection (the bindings enable `redis`): nothing to rebuild.
# shellcheck disable=SC2086
cargo test ${FERROMCP_WORKSPACE_TEST:--p ferromcp --features redis} --test http_replicas 2>&1 | tee "$log" \
  | grep -E '^(test |test result|error|failures:|---- |thread .* panicked)' || true
if grep -qE '^test result: FAILED|^error(\[|:)' "$log" || ! grep -q '^test result: ok' "$log"; then
  echo "run-redis: cargo test failed; full log: $log" >&2
  status=1
fi

if [ ! -f tests/node_modules/@modelcontextprotocol/conformance/dist/index.js ] \
   || [ ! -f tests/node_modules/conformance-alpha/dist/index.js ]; then
  scripts/setup-test-deps --node-only
fi
echo "run-redis: building everything-server with the redis feature" >&2
# Under scripts/test, the workspace's test build made it with the engine's `redis` feature (the
# bindings enable it): the same selection finds it fresh, where a -p build would compile the
# engine again with another feature set.
# shellcheck disable=SC2086
if [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then cargo test --quiet $FERROMCP_WORKSPACE_TEST --no-run 1>&2
else cargo build --quiet -p ferromcp-examples --features redis --bin everything-server; fi
server_bin="${CARGO_TARGET_DIR:-$ROOT/target}/debug/everything-server"
RESULTS="${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-run-redis.XXXXXX")}"
echo "run-redis: conformance server mode through a round-robin proxy over three replicas" >&2
tests/conformance/run-server.sh --results "$RESULTS/cluster" \
  --runs v0.1.16,alpha-2025-11-25,alpha-2026-07-28 \
  -- scripts/node22 tests/scale/cluster.mjs --server "$server_bin" --port '{port}' --replicas 3 || status=1
grep -h "cluster: requests per replica" "$RESULTS/cluster/server.log" >&2 || true
echo "run-redis: a replica killed mid-stream" >&2
# (pipefail: the script's exit status decides)
scripts/node22 tests/scale/kill_resume.mjs --server "$server_bin" 2>&1 | grep '^kill_resume' >&2 || status=1
echo "run-redis: faults under load (scripts/fault-suite --short, its process part)" >&2
# (Under scripts/test the workspace's test build made it too, as above.)
# shellcheck disable=SC2086
if [ -z "${FERROMCP_WORKSPACE_TEST:-}" ]; then cargo build --quiet -p ferromcp --features redis --example fault_replica; fi
scripts/node22 tests/scale/faults.mjs --short \
  --replica "${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/fault_replica" 2>&1 | grep '^faults' >&2 || status=1
echo "run-redis: results in $RESULTS" >&2
exit "$status"
