#!/usr/bin/env bash
# Builds what the FerroMCP Swift package links, in place (nothing here is committed):
#   1. the engine and its UniFFI glue: cargo build -p ferromcp-swift -> libferromcp_swift.a,
#      copied to .native/lib/ (the only library in that folder, so the linker takes the static
#      one and the app needs no shared library at run time); with --release to
#      .native/release/lib/ instead, so a release build never replaces the debug library the
#      tests and examples link: point Package.swift at it with
#      FERROMCP_SWIFT_LIB_DIR=<bindings-swift>/.native/release/lib (as the bench does, bench/);
#   2. the generated bindings, read from the built library by uniffi-bindgen-swift (same UniFFI
#      version, pinned by Cargo.lock): Sources/FerroMCPFFI/{FerroMCPFFI.h,module.modulemap} (the C
#      module) and Sources/FerroMCPNative/FerroMCPNative.swift (compiled in Swift 5 mode).
# Incremental: cargo decides; the generated files are rewritten only when they change, so
# `swift build` does not recompile them needlessly.
# Usage: bindings-swift/scripts/build.sh [--release]      Honours CARGO_TARGET_DIR.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
profile=debug
flag=()
libdir="$HERE/.native/lib"
if [ "${1:-}" = --release ]; then profile=release; flag=(--release); libdir="$HERE/.native/release/lib"; fi
target_dir="${CARGO_TARGET_DIR:-$ROOT/target}"
log() { echo "bindings-swift/build: $*" >&2; }

log "cargo build -p ferromcp-swift ($profile)"
cd "$ROOT"   # uniffi-bindgen-swift reads `cargo metadata` of the current directory
if [ "$profile" = debug ] && [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then
  # Under scripts/test: the workspace's test build made this library with the run's one feature
  # set; the same selection finds it fresh (a -p build would rebuild the engine).
  # shellcheck disable=SC2086
  cargo test --quiet $FERROMCP_WORKSPACE_TEST --no-run
else
  cargo build --quiet -p ferromcp-swift ${flag[@]+"${flag[@]}"}
fi
log "uniffi-bindgen-swift"
cargo build --quiet -p ferromcp-swift-bindgen

lib="$target_dir/$profile/libferromcp_swift"
# A test build leaves the library in deps/ (cargo copies it up only for `cargo build`); its name
# there carries no hash, so it is the one the build above just made.
if [ "$profile" = debug ] && [ -n "${FERROMCP_WORKSPACE_TEST:-}" ]; then lib="$target_dir/debug/deps/libferromcp_swift"; fi
dylib="$lib.so"; [ "$(uname)" = Darwin ] && dylib="$lib.dylib"
gen="$(mktemp -d)"
trap 'rm -rf "$gen"' EXIT
"$target_dir/debug/uniffi-bindgen-swift" --swift-sources --headers --modulemap \
  --module-name FerroMCPFFI --modulemap-filename module.modulemap \
  "$dylib" "$gen" >&2

# Writes $1 into $2 only when it differs.
put() { mkdir -p "$(dirname "$2")"; cmp -s "$1" "$2" || cp "$1" "$2"; }
put "$gen/FerroMCPFFI.h" "$HERE/Sources/FerroMCPFFI/FerroMCPFFI.h"
put "$gen/module.modulemap" "$HERE/Sources/FerroMCPFFI/module.modulemap"
put "$gen/FerroMCPNative.swift" "$HERE/Sources/FerroMCPNative/FerroMCPNative.swift"
if ! cmp -s "$lib.a" "$libdir/libferromcp_swift.a"; then
  put "$lib.a" "$libdir/libferromcp_swift.a"
  # SwiftPM does not see a library passed with -L as an input: touching the generated Swift
  # makes every product that links the engine (tests, examples, apps) relink with the new one.
  touch "$HERE/Sources/FerroMCPNative/FerroMCPNative.swift"
fi
log "ready (${libdir#"$HERE/"}, Sources/FerroMCPFFI, Sources/FerroMCPNative)"
