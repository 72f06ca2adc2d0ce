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
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
mode=--release
[ "${1:-}" = --debug ] && mode=
log() { echo "bindings-node/build: $*" >&2; }
stamp=node_modules/.ferromcp-lock
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "npm ci"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2   # our own install hook would build twice
  echo "$want" > "$stamp"
fi
log "native addon (napi build ${mode:-debug})"
npx --no-install napi build --platform $mode --output-dir native --js index.js --dts index.d.ts >&2
log "TypeScript facade (tsc)"
npx --no-install tsc -p tsconfig.json >&2
