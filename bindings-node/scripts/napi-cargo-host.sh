#!/usr/bin/env bash
# The `cargo` that `napi build` runs for a debug build of the addon on this machine
# (bindings-node/scripts/build.sh sets CARGO to this script; napi spawns $CARGO).
# napi always passes `--target <triple>`, the host's when none is asked for, and with an explicit
# --target cargo builds every dependency again under target/<triple>/ instead of reusing
# target/debug/: ~200 crates, over 2 minutes of a CI run that had just built them for the tests.
# Here a `build --target <host>` builds in target/debug/ instead and puts the library where napi
# then looks for it (target/<host>/debug/), so napi's own steps stay napi's: the .node copy, and
# index.js and index.d.ts from the type definitions the compile wrote (napi's
# NAPI_TYPE_DEF_TMP_FOLDER, passed on in the environment). Anything else (another target, other
# arguments) goes to cargo as it came.
# Under scripts/test (FERROMCP_WORKSPACE_TEST set) the build is the workspace test build's own
# (`cargo test ... --no-run`, as bindings-swift/scripts/build.sh does), which made the library
# already (for the crate's doctests; a test build leaves it in deps/): a `-p ferromcp-node` build
# would compile the engine and its dependencies again with the features of that one package.
# Only the addon's crate compiles again: its build script follows NAPI_TYPE_DEF_TMP_FOLDER, and
# the type definitions are written while it compiles (once: its Cargo.toml has `test = false`,
# so no unit-test build of the same crate writes them at the same time).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
host="$(rustc -vV | sed -n 's/^host: //p')"
if [ "$#" -ne 3 ] || [ "$1" != build ] || [ "$2" != --target ] || [ "$3" != "$host" ]; then
  exec cargo "$@"
fi
# The caller's PATH, not npx's (which puts node_modules/.bin folders first): pyo3's build script
# follows PATH, so under npx's the Python binding's crates (pyo3, ferromcp-python) compiled again
# in the test selection's build, and again in the next build run from a plain shell.
[ -z "${FERROMCP_CALLER_PATH:-}" ] || PATH="$FERROMCP_CALLER_PATH"
target_dir="${CARGO_TARGET_DIR:-${CARGO_BUILD_TARGET_DIR:-$ROOT/target}}"
lib=libferromcp_node.so
[ "$(uname -s)" = Darwin ] && lib=libferromcp_node.dylib
cd "$ROOT"
if [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then
  # Its "Executable ..." list of every test binary left out of the log (sed, not grep -v,
  # whose status would fail the pipeline on an empty output).
  # shellcheck disable=SC2086
  cargo test $FERROMCP_WORKSPACE_TEST --no-run 2>&1 | sed '/^ *Executable /d' >&2
  built="$target_dir/debug/deps/$lib"
else
  cargo build -p ferromcp-node --lib
  built="$target_dir/debug/$lib"
fi
mkdir -p "$target_dir/$host/debug"
# A hard link where it can be (the library is ~90 MB); napi copies it into native/.
ln -f "$built" "$target_dir/$host/debug/$lib" 2>/dev/null || cp "$built" "$target_dir/$host/debug/$lib"
