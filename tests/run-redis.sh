#!/usr/bin/env bash
# Scale-out on Redis (issue 17): replicas of one server sharing sessions, SSE events and a bus
# on a real redis-server, each test starting its own on a free port.
#   core/tests/http_replicas.rs with the `redis` feature: two or three replicas behind a
#   round-robin proxy written in the test; every request of a session goes to the next
#   replica; elicitation, sampling and cancellation cross replicas; a GET stream resumes with
#   Last-Event-ID on another replica after its replica is killed, losing no event; a request
#   stream resumes on another replica; list_changed and resource updates reach the replica
#   holding the session's stream, once.
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
cargo test -p ferromcp --features redis --test http_replicas 2>&1 | tee "$log" \
  | grep -E '^(test |test result|error|failures:|---- |thread .* panicked)' || true
if grep -qE '^test result: FAILED|^error(\[|:)' "$log" || ! grep -q '^test result: ok' "$log"; then
  echo "run-redis: cargo test failed; full log: $log" >&2
  status=1
fi
exit "$status"
