#!/usr/bin/env bash
# Builds the Node binding in place, ready to `require('ferromcp')` from bindings-node:
#   1. npm ci (the pinned build tools: @napi-rs/cli, typescript) when node_modules is missing
#      or package-lock.json changed;
#   2. the native addon: napi build --release -> native/ferromcp.<triple>.node, native/index.js
#      (loader) and native/index.d.ts (types), via cargo (incremental: a no-op when unchanged).
#      Not stripped here: `--strip` changes the release profile, which compiles every dependency
#      a second time beside the workspace's other release builds; `npm pack` strips;
#   3. the TypeScript facade: tsc -> dist/ (CommonJS + .d.ts; esm/index.mjs re-exports it).
# Usage: bindings-node/scripts/build.sh [--debug]      Honours CARGO_TARGET_DIR.
# FERROMCP_NODE_BUILD=debug does what --debug does: scripts/test sets it, because the tests and
# the benchmark's harness check need no optimized code, and a release build of every dependency
# was the longest step of a CI run (~5 of its 30 minutes). A debug build compiles in
# target/debug/, reusing what the workspace's builds made there (scripts/napi-cargo-host.sh:
# napi itself always passes an explicit --target, which builds every dependency again under
# target/<triple>/); under scripts/test it is the workspace test build's selection, so only
# the addon's own crate compiles. The mode built is recorded in native/.build-mode, so that
# scripts/lib-node-binding.sh rebuilds when another is wanted (a benchmark never measures a
# debug addon left behind by a test run).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
mode=--release
if [ "${1:-}" = --debug ] || [ "${FERROMCP_NODE_BUILD:-release}" = debug ]; then mode=; fi
log() { echo "bindings-node/build: $*" >&2; }
stamp=node_modules/.ferromcp-lock
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "npm ci"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2   # our own install hook would build twice
  echo "$want" > "$stamp"
fi
log "native addon (napi build ${mode:-debug})"
rm -f native/.build-mode
host_cargo=()
[ -n "$mode" ] || host_cargo=(env "CARGO=$HERE/scripts/napi-cargo-host.sh" "FERROMCP_CALLER_PATH=$PATH")
${host_cargo[@]+"${host_cargo[@]}"} npx --no-install napi build --platform $mode --output-dir native --js index.js --dts index.d.ts >&2
if [ -n "$mode" ]; then echo release; else echo debug; fi > native/.build-mode   # what lib-node-binding.sh compares with
log "TypeScript facade (tsc)"
npx --no-install tsc -p tsconfig.json >&2
