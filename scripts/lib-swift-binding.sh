# shellcheck shell=bash
# Sourced by scripts that run the Swift binding's examples (everything-server/-client swift, tests).
#
# swift_examples_dir: prints the directory of the built examples/swift executables
# (EverythingServer, EverythingClient, InteropServer, MiddlewareServer, CompositionServer,
# AppsServer, OAuthProxyReplica), building first what is missing or older
# than its sources: the binding's native part (bindings-swift/scripts/build.sh: the engine's
# static library and the generated bindings) and `swift build` of examples/swift (through
# scripts/swift). Build output goes to stderr. Run the executables with `scripts/swift --exec`
# (the Swift runtime may live in a trixie root) or swift_host_exec.
#
# swift_host_exec BIN ARGS...: execs a built Swift executable as a process of this system, not
# inside scripts/swift's root, so that the programs it starts are this system's (the Swift
# interop client spawns the official SDK servers with the host's Python and Node). Where
# scripts/swift uses its trixie root, the root's own dynamic loader runs BIN with the root's
# libraries (glibc, Swift runtime); elsewhere BIN runs directly. exec all the way down, like
# `scripts/swift --exec`.
SWIFT_EXAMPLES="$ROOT/examples/swift"

# Whether the natives (bindings-swift/.native, the generated bindings) are missing or stale.
_swift_natives_stale() {
  local stamp="$SWIFT_EXAMPLES/.build/ferromcp-native.stamp"
  [ ! -f "$ROOT/bindings-swift/.native/lib/libferromcp_swift.a" ] || [ ! -f "$stamp" ] \
    || [ ! -f "$ROOT/bindings-swift/Sources/FerroMCPNative/FerroMCPNative.swift" ] \
    || [ -n "$(find "$ROOT/auth/src" "$ROOT/core/src" "$ROOT/core/Cargo.toml" "$ROOT/bindings-swift/src" \
         "$ROOT/bindings-swift/bindgen" "$ROOT/bindings-swift/Cargo.toml" "$ROOT/bindings-swift/uniffi.toml" \
         "$ROOT/Cargo.lock" -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# Whether an executable is missing or older than the sources (examples, facade, natives).
_swift_examples_stale() {
  local stamp="$SWIFT_EXAMPLES/.build/ferromcp-examples.stamp" exe
  for exe in EverythingServer EverythingClient InteropServer MiddlewareServer CompositionServer AppsServer \
             OAuthProxyReplica; do
    [ -x "$SWIFT_EXAMPLES/.build/debug/$exe" ] || return 0
  done
  [ ! -f "$stamp" ] \
    || [ -n "$(find "$SWIFT_EXAMPLES/Package.swift" "$SWIFT_EXAMPLES/Sources" "$ROOT/bindings-swift/Package.swift" \
         "$ROOT/bindings-swift/Sources" "$ROOT/bindings-swift/.native/lib/libferromcp_swift.a" -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# Builds what is stale; the caller holds the build lock.
_swift_build_examples() {
  # Each stamp carries the time its build started (a source edited meanwhile stays newer).
  local stamps="$SWIFT_EXAMPLES/.build"
  if _swift_natives_stale; then
    touch "$stamps/ferromcp-native.stamp.new"
    "$ROOT/bindings-swift/scripts/build.sh" >&2 || { echo "lib-swift-binding: bindings-swift/scripts/build.sh failed" >&2; return 1; }
    mv "$stamps/ferromcp-native.stamp.new" "$stamps/ferromcp-native.stamp"
  fi
  if _swift_examples_stale; then
    echo "lib-swift-binding: swift build (examples/swift)" >&2
    touch "$stamps/ferromcp-examples.stamp.new"
    (cd "$SWIFT_EXAMPLES" && "$ROOT/scripts/swift" build >&2) \
      || { echo "lib-swift-binding: swift build of examples/swift failed" >&2; return 1; }
    mv "$stamps/ferromcp-examples.stamp.new" "$stamps/ferromcp-examples.stamp"
  fi
}

swift_examples_dir() {
  mkdir -p "$SWIFT_EXAMPLES/.build"
  if _swift_natives_stale || _swift_examples_stale; then
    # One build at a time: callers started together (the conformance suite runs its client
    # scenarios in parallel) wait for the first and then find everything fresh.
    if command -v flock >/dev/null 2>&1; then
      ( flock 9 && _swift_build_examples ) 9>"$SWIFT_EXAMPLES/.build/ferromcp-build.lock" || return 1
    else
      _swift_build_examples || return 1
    fi
  fi
  printf '%s\n' "$SWIFT_EXAMPLES/.build/debug"
}

swift_host_exec() {
  local root triple loader
  root="$("$ROOT/scripts/swift" --print-root)" || return 1
  [ -n "$root" ] || exec "$@"   # a native toolchain: its runtime is this system's
  case "$(uname -m)" in
    x86_64) triple=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 ;;
    aarch64|arm64) triple=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
    *) triple="" loader="" ;;
  esac
  if [ -z "$triple" ] || [ ! -x "$root/usr/lib/$triple/$loader" ]; then
    echo "lib-swift-binding: no loader in $root for $(uname -m); running inside the root" >&2
    exec "$ROOT/scripts/swift" --exec "$@"
  fi
  exec "$root/usr/lib/$triple/$loader" --library-path "$root/usr/lib/swift/linux:$root/usr/lib/$triple" "$@"
}
