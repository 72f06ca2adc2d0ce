#!/usr/bin/env bash
# The middleware, composition and MCP Apps example servers of every language, run as their users
# would run them (a process over stdio) and driven by the official TypeScript SDK client
# (tests/examples/check.mjs):
#   - middleware (docs/middleware.md): examples/rust middleware-server,
#     examples/python/middleware_server.py, bindings-node/examples/middleware_server.mts,
#     examples/swift MiddlewareServer: the same refusals, masked failure, rate limit and timing
#     lines in each;
#   - composition (docs/composition.md): examples/rust composition-server,
#     examples/python/composition_server.py, bindings-node/examples/composition_server.mts,
#     examples/swift CompositionServer: the same tools, answers and refusals in each;
#   - MCP Apps (docs/mcp-apps.md): examples/rust apps-server, examples/python/apps_server.py,
#     bindings-node/examples/apps_server.mts, examples/swift AppsServer: the same scenario, and
#     each tool's `_meta.ui` and the `ui://` resource as listed and as read checked against the
#     extension's own schemas (@modelcontextprotocol/ext-apps, pinned in tests/package.json);
#   - check.mjs --self-test: the schema checks refuse broken UI declarations (a wrong MIME
#     type, malformed `_meta.ui`), so a pass above means something, and ferromcp's helpers
#     (through the Node binding) refuse or correct each of them.
# Builds what is missing (the Rust example binaries, the Python and Node bindings, the Swift
# examples) through the scripts the other suites use; under scripts/test they are built anyway.
# Exit status non-zero if any check failed. With RESULTS set, each apps server's answers are
# kept there (apps-LANG.json).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ -d tests/node_modules/@modelcontextprotocol/ext-apps ] && [ -d tests/node_modules/@modelcontextprotocol/sdk ] \
  || scripts/setup-test-deps || exit 1
NODE="${NODE:-node}"
status=0
fail() { status=1; echo "FAILED: $*" >&2; }
check() { timeout 120 "$NODE" tests/examples/check.mjs "$@" || fail "check.mjs $1 $2"; }

# shellcheck source=scripts/lib-example-bin.sh
. "$ROOT/scripts/lib-example-bin.sh"
# shellcheck source=scripts/lib-python-binding.sh
. "$ROOT/scripts/lib-python-binding.sh"
# shellcheck source=scripts/lib-node-binding.sh
. "$ROOT/scripts/lib-node-binding.sh"
# shellcheck source=scripts/lib-swift-binding.sh
. "$ROOT/scripts/lib-swift-binding.sh"

for kind in middleware composition apps; do
  if bin="$(example_bin "$kind-server")"; then check rust "$kind" "$bin"; else fail "cargo build of $kind-server"; fi
done

if py="$(python_binding_py)"; then
  for kind in middleware composition apps; do check python "$kind" "$py" "examples/python/${kind}_server.py"; done
else
  fail "the Python binding's build"
fi

if node_binding_dir >/dev/null; then
  check --self-test   # the schema checks, then the binding's helpers, on broken declarations
  for kind in middleware composition apps; do check node "$kind" "bindings-node/examples/${kind}_server.mts"; done
else
  fail "the Node binding's build"
fi

if swift="$(swift_examples_dir)"; then
  check swift middleware "$ROOT/scripts/swift" --exec "$swift/MiddlewareServer"
  check swift composition "$ROOT/scripts/swift" --exec "$swift/CompositionServer"
  check swift apps "$ROOT/scripts/swift" --exec "$swift/AppsServer"
else
  fail "the Swift examples' build (scripts/lib-swift-binding.sh)"
fi
exit "$status"
