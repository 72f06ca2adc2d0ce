#!/usr/bin/env bash
# The published npm package's native addon loader (bindings-node/npm/loader.js): which addon it
# picks (the platform package of this machine, a source build beside it, FERROMCP_NATIVE_ADDON)
# and what it says when none fits. Needs Node only (stand-in addons; no build): about 2 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec node --test "$ROOT/bindings-node/npm/loader.test.mjs"
