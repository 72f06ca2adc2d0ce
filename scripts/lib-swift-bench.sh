# shellcheck shell=bash
# Sourced by scripts/bench for the ferromcp Swift-handler row.
#
# swift_bench_bin: prints the path of bindings-swift/bench's release `EchoServer` after building
# what is missing or older than its sources: the engine's release static library
# (bindings-swift/scripts/build.sh --release, which writes bindings-swift/.native/release/lib and
# leaves the debug library in .native/lib, which the tests and examples link, alone) and
# `swift build -c release` of bindings-swift/bench (through scripts/swift, with
# FERROMCP_SWIFT_LIB_DIR pointing the binding's Package.swift at the release library). Build
# output goes to stderr; concurrent callers wait for each other (flock). Run the executable with
# `scripts/swift --exec` (the Swift runtime may live in scripts/swift's trixie root).
#
# SWIFT_BENCH_PROFILE=debug (scripts/bench --check) builds the debug EchoServer instead, on the
# debug engine library the Swift tests already built (bindings-swift/scripts/build.sh without
# --release, .native/lib): a harness check, not a measurement.
SWIFT_BENCH="$ROOT/bindings-swift/bench"
SWIFT_BENCH_PROFILE="${SWIFT_BENCH_PROFILE:-release}"
if [ "$SWIFT_BENCH_PROFILE" = debug ]; then
  SWIFT_BENCH_LIB_DIR="$ROOT/bindings-swift/.native/lib"
  _swift_bench_native_flag=()
else
  SWIFT_BENCH_LIB_DIR="$ROOT/bindings-swift/.native/release/lib"
  _swift_bench_native_flag=(--release)
fi

# Whether the release library (or the generated bindings) is missing or older than its sources.
_swift_bench_native_stale() {
  local stamp="$SWIFT_BENCH/.build/ferromcp-native-$SWIFT_BENCH_PROFILE.stamp" bs="$ROOT/bindings-swift"
  [ ! -f "$SWIFT_BENCH_LIB_DIR/libferromcp_swift.a" ] || [ ! -f "$stamp" ] \
    || [ ! -f "$bs/Sources/FerroMCPNative/FerroMCPNative.swift" ] \
    || [ -n "$(find "$ROOT/auth/src" "$ROOT/core/src" "$ROOT/core/Cargo.toml" "$bs/src" "$bs/bindgen" "$bs/Cargo.toml" \
         "$bs/uniffi.toml" "$ROOT/Cargo.toml" "$ROOT/Cargo.lock" -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# Whether EchoServer is missing or older than its sources (bench, facade, release library).
_swift_bench_exe_stale() {
  local stamp="$SWIFT_BENCH/.build/ferromcp-bench-$SWIFT_BENCH_PROFILE.stamp"
  [ ! -x "$SWIFT_BENCH/.build/$SWIFT_BENCH_PROFILE/EchoServer" ] || [ ! -f "$stamp" ] \
    || [ -n "$(find "$SWIFT_BENCH/Package.swift" "$SWIFT_BENCH/Sources" "$ROOT/bindings-swift/Package.swift" \
         "$ROOT/bindings-swift/Sources" "$SWIFT_BENCH_LIB_DIR/libferromcp_swift.a" -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# Builds what is stale; the caller holds the build lock. Each stamp carries the time its build
# started, so a source edited during the build stays newer than it.
_swift_bench_build() {
  local stamps="$SWIFT_BENCH/.build"
  if _swift_bench_native_stale; then
    touch "$stamps/ferromcp-native-$SWIFT_BENCH_PROFILE.stamp.new"
    "$ROOT/bindings-swift/scripts/build.sh" ${_swift_bench_native_flag[@]+"${_swift_bench_native_flag[@]}"} >&2 \
      || { echo "lib-swift-bench: bindings-swift/scripts/build.sh ($SWIFT_BENCH_PROFILE) failed" >&2; return 1; }
    mv "$stamps/ferromcp-native-$SWIFT_BENCH_PROFILE.stamp.new" "$stamps/ferromcp-native-$SWIFT_BENCH_PROFILE.stamp"
  fi
  if _swift_bench_exe_stale; then
    echo "lib-swift-bench: swift build -c $SWIFT_BENCH_PROFILE (bindings-swift/bench)" >&2
    touch "$stamps/ferromcp-bench-$SWIFT_BENCH_PROFILE.stamp.new"
    # SwiftPM does not see the static library (an -L flag) as an input: relink by hand after
    # it changed, or EchoServer keeps the old engine.
    if [ "$SWIFT_BENCH_LIB_DIR/libferromcp_swift.a" -nt "$SWIFT_BENCH/.build/$SWIFT_BENCH_PROFILE/EchoServer" ]; then
      rm -f "$SWIFT_BENCH/.build/$SWIFT_BENCH_PROFILE/EchoServer"
    fi
    (cd "$SWIFT_BENCH" && FERROMCP_SWIFT_LIB_DIR="$SWIFT_BENCH_LIB_DIR" "$ROOT/scripts/swift" build -c "$SWIFT_BENCH_PROFILE" >&2) \
      || { echo "lib-swift-bench: swift build -c $SWIFT_BENCH_PROFILE of bindings-swift/bench failed" >&2; return 1; }
    mv "$stamps/ferromcp-bench-$SWIFT_BENCH_PROFILE.stamp.new" "$stamps/ferromcp-bench-$SWIFT_BENCH_PROFILE.stamp"
  fi
}

swift_bench_bin() {
  mkdir -p "$SWIFT_BENCH/.build"
  if _swift_bench_native_stale || _swift_bench_exe_stale; then
    if command -v flock >/dev/null 2>&1; then
      ( flock 9 && _swift_bench_build ) 9>"$SWIFT_BENCH/.build/ferromcp-build.lock" || return 1
    else
      _swift_bench_build || return 1
    fi
  fi
  printf '%s\n' "$SWIFT_BENCH/.build/$SWIFT_BENCH_PROFILE/EchoServer"
}
