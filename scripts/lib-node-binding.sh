# shellcheck shell=bash
# Sourced by scripts that run the Node binding (everything-server/-client node, tests, bench).
# node_binding_dir: prints bindings-node's path after building it when the build is missing,
# older than its sources, or of another mode than FERROMCP_NODE_BUILD (release, or debug) (bindings-node/scripts/build.sh; its output goes to stderr).
node_binding_dir() {
  local dir="$ROOT/bindings-node" built="$ROOT/bindings-node/dist/index.js"
  if [ ! -f "$built" ] || [ ! -f "$dir/native/index.js" ] \
     || [ "$(cat "$dir/native/.build-mode" 2>/dev/null)" != "${FERROMCP_NODE_BUILD:-release}" ] \
     || [ -n "$(find "$ROOT/core/src" "$dir/src" "$dir/ts" "$dir/package-lock.json" -newer "$built" -print -quit 2>/dev/null)" ]; then
    "$dir/scripts/build.sh" >&2 || return 1
    touch "$built"
  fi
  printf '%s\n' "$dir"
}
