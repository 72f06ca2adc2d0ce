# shellcheck shell=bash
# Sourced by scripts that run the Node binding (everything-server/-client node, tests, bench).
# node_binding_dir: prints bindings-node's path after building it when the build is missing,
# older than its sources (the engine's crates, the `ferromcp` command's, the binding's Rust and
# TypeScript, Cargo.lock), or of another mode than FERROMCP_NODE_BUILD (release, or debug) (bindings-node/scripts/build.sh; its output goes to stderr).
node_binding_dir() {
  local dir="$ROOT/bindings-node" built="$ROOT/bindings-node/dist/index.js"
  if [ ! -f "$built" ] || [ ! -f "$dir/native/index.js" ] \
     || [ "$(cat "$dir/native/.build-mode" 2>/dev/null)" != "${FERROMCP_NODE_BUILD:-release}" ] \
     || [ -n "$(find "$ROOT/protocol/src" "$ROOT/auth/src" "$ROOT/core/src" "$ROOT/embed/src" "$ROOT/cli/src" "$ROOT/proxy/src" \
          "$dir/src" "$dir/ts" "$dir/package-lock.json" "$ROOT/Cargo.lock" -newer "$built" -print -quit 2>/dev/null)" ]; then
    "$dir/scripts/build.sh" >&2 || return 1
    touch "$built"
  fi
  printf '%s\n' "$dir"
}
