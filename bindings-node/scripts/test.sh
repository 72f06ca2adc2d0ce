#!/usr/bin/env bash
# Everything about the Node binding itself: build (scripts/build.sh: napi build --release, tsc),
# type-check the facade and the examples (tsc --noEmit, strict), run the node:test suite
# (test/*.test.mjs), and check the npm package as a user installs it (scripts/test-package.sh).
# Prints "N passed, N failed" for the parts (node:test prints its own counts too).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
passed=0 failed=0
part() { # NAME CMD...
  local name="$1"; shift
  echo "bindings-node/test: $name" >&2
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $name" >&2; fi
}
scripts/build.sh || { echo "bindings-node/test: the build failed" >&2; exit 1; }
part "tsc --noEmit --strict (facade)" npx --no-install tsc -p tsconfig.json --noEmit
part "tsc --noEmit --strict (examples)" npx --no-install tsc -p examples/tsconfig.json --noEmit
# A test that hangs fails by name after 2 minutes (the longest takes ~10 s) instead of holding
# the run until CI's own limit.
part "node --test test/*.test.mjs" node --test --test-timeout=120000 test/*.test.mjs
part "npm package (scripts/test-package.sh)" scripts/test-package.sh
echo "bindings-node: $passed passed, $failed failed" >&2
[ "$failed" -eq 0 ]
