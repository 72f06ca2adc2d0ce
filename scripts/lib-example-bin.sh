# Sourced by scripts/everything-server and scripts/everything-client.
# example_bin NAME: prints the path of the ferromcp-examples binary NAME, building it first
# (quietly, cargo output to stderr) when it is missing or older than any source file.
example_bin() {
  local name="$1"
  local target="${CARGO_TARGET_DIR:-$ROOT/target}"
  local bin="$target/debug/$name"
  if [ ! -x "$bin" ] || [ -n "$(find "$ROOT/core" "$ROOT/examples/rust" "$ROOT/Cargo.toml" "$ROOT/Cargo.lock" \
        -newer "$bin" \( -name '*.rs' -o -name Cargo.toml -o -name Cargo.lock \) -print -quit 2>/dev/null)" ]; then
    # Under scripts/test, the workspace's test build (same selection, so nothing is rebuilt)
    # already made every example binary.
    # shellcheck disable=SC2086
    if [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then set -- cargo test --quiet $FERROMCP_WORKSPACE_TEST --no-run
    else set -- cargo build --quiet -p ferromcp-examples --bin "$name"; fi
    (cd "$ROOT" && "$@" 1>&2) || {
      echo "$(basename "$0"): cargo build of $name failed" >&2; exit 1; }
  fi
  printf '%s\n' "$bin"
}
