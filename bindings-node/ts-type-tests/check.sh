#!/usr/bin/env bash
# The Node binding's hand-written wire types (ts/types.ts) against the MCP schema, so that CI
# catches drift: generate.mjs turns ../shared/spec/schema/<revision>/schema.json (2025-11-25 and
# 2026-07-28) into TypeScript declarations with json-schema-to-typescript (pinned in this
# folder's package-lock.json), then tsc type-checks wire_types.check.ts, which fails on any field
# renamed, added, removed or retyped on either side (the kept differences are listed there with
# their reasons), and config_types.check.ts (tsconfig.config.json) the option types
# (ListenOptions, ServerInfo, ServerOptions, ClientOptions and the config the client sends)
# against embed/config-schema.json, the engine's configuration schema. Run by tests/run-node.sh.
# FERROMCP_SPEC_DIR names another spec directory.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
SPEC="${FERROMCP_SPEC_DIR:-$HERE/../../../shared/spec}"
[ -d "$SPEC/schema" ] || { echo "ts-type-tests: no MCP schema at $SPEC/schema (../shared/spec beside the repository, or FERROMCP_SPEC_DIR)" >&2; exit 1; }
stamp=node_modules/.ferromcp-lock
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "ts-type-tests: npm ci" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi
# The TypeScript compiler is the binding's own (bindings-node/package-lock.json).
TSC="$HERE/../node_modules/.bin/tsc"
if [ ! -x "$TSC" ]; then
  (cd .. && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi
node generate.mjs "$SPEC"
"$TSC" -p tsconfig.json
# The option types live beside the rest of the binding's sources, which import the addon's
# generated declarations (native/index.d.ts): bindings-node/scripts/test.sh builds them first.
[ -f ../native/index.d.ts ] || { echo "ts-type-tests: no ../native/index.d.ts: build the addon first (npm run build:native:debug)" >&2; exit 1; }
"$TSC" -p tsconfig.config.json
checks=$(grep -c '^  Assert<' wire_types.check.ts)
echo "ts-type-tests: wire types match the schema: $checks checks passed" >&2
checks=$(grep -c '^  Assert<' config_types.check.ts)
echo "ts-type-tests: option types match embed/config-schema.json: $checks checks passed" >&2
