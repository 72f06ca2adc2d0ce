#!/usr/bin/env bash
# Builds FerroMCPFFI.xcframework (the engine as a static library for macOS and iOS) and stages a
# Swift package around it that an Xcode project can add. macOS with Xcode only: on any other
# system it stops with exit status 2 (for Linux, and for local work on a Mac, scripts/build.sh
# builds the package in place instead). See APPLE.md.
#
# Steps:
#   1. The static library, Cargo profile $PROFILE (default release; scripts/release and the
#      release workflow use dist: no debug info, fat LTO, one codegen unit), for five targets:
#        aarch64-apple-darwin + x86_64-apple-darwin    -> lipo -> the macOS slice  (macOS 13)
#        aarch64-apple-ios                              ->         the iOS slice    (iOS 16)
#        aarch64-apple-ios-sim + x86_64-apple-ios       -> lipo -> the Simulator slice
#      with `cargo rustc --release -p ferromcp-swift --lib --crate-type staticlib --target T`:
#      cargo build would also link the crate's cdylib for every Apple target, which nothing here
#      uses; and rustc prints the native libraries the archive needs, which step 1 checks against
#      what Package.xcframework.swift links (so a new dependency that needs, say, Security.framework
#      fails here, not in an app's link). Missing targets are added with rustup when it is there.
#      MACOSX_DEPLOYMENT_TARGET / IPHONEOS_DEPLOYMENT_TARGET match the platforms of
#      Package.xcframework.swift (checked).
#   2. The bindings, once, by the pinned uniffi-bindgen-swift (workspace crate
#      ferromcp-swift-bindgen, the same UniFFI version as the library) from the aarch64-apple-darwin
#      archive: FerroMCPFFI.h, module.modulemap, FerroMCPNative.swift. The module map is a plain
#      `module FerroMCPFFI`, not the `framework module` that uniffi-bindgen-swift's --xcframework
#      flag writes: that form is for xcframeworks of .framework bundles, and with
#      `-library … -headers …` clang looks for the header under a Headers/ directory that is not
#      there (uniffi-rs #2646). Its `use "_Builtin_stdbool"` / `use "_Builtin_stdint"` lines are
#      dropped: they only matter to -fmodules-decluse builds, and Xcode 26's clang reports the
#      module unbuildable with them (uniffi-rs #2917), which makes `canImport(FerroMCPFFI)` false
#      in the generated Swift.
#   3. xcodebuild -create-xcframework -library <slice>.a -headers <FerroMCPFFI.h + module.modulemap>
#      (×3). The module map sits at the top of each slice's Headers/ (where clang finds it from the
#      -I SwiftPM and Xcode pass; a module map in a subdirectory is not found by Xcode 26.4+).
#   4. The package, in OUT (default: <target dir>/apple/FerroMCP):
#        Package.swift                      <- bindings-swift/Package.xcframework.swift
#        FerroMCPFFI.xcframework/
#        Sources/FerroMCPNative/FerroMCPNative.swift   (generated in step 2)
#        Sources/FerroMCP/, Tests/FerroMCPTests/,
#        Tests/ListenStdioServer/                       <- copies of bindings-swift's
#      Only these are replaced, so OUT can be a checkout of a release repository. In Xcode:
#      File > Add Package Dependencies… > Add Local… > OUT.
#   5. With --zip: <target dir>/apple/FerroMCPFFI.xcframework.zip and its checksum
#      (`swift package compute-checksum`), printed with the binaryTarget(url:checksum:) line a
#      release's Package.swift uses instead of binaryTarget(path:) (see Package.xcframework.swift).
#   6. With --verify: swift build + swift test in OUT (macOS, arm64 or x86_64 host), then
#      xcodebuild builds the package for generic iOS and iOS Simulator destinations.
#
# Usage: bindings-swift/scripts/build-xcframework.sh [--out DIR] [--zip] [--verify]
# Honours CARGO_TARGET_DIR. Takes a while: five release builds of the engine (thin LTO).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# A relative CARGO_TARGET_DIR is relative to where this was started; made absolute because the
# rest runs in the repository root.
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
  case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$PWD/$CARGO_TARGET_DIR" ;; esac
  export CARGO_TARGET_DIR
fi
target_dir="${CARGO_TARGET_DIR:-$ROOT/target}"
profile="${PROFILE:-release}"
apple="$target_dir/apple"

# Keep in step with `platforms:` in Package.xcframework.swift (step 1 checks it).
MACOS_MIN=13.0
IOS_MIN=16.0
PLATFORMS_LINE='platforms: [.macOS(.v13), .iOS(.v16)]'
# What rustc may print as native-static-libs for these targets without a change to the package:
# -liconv is linked by Package.xcframework.swift, the rest is libSystem, which every Apple link
# has. Anything else (a -framework, another -l) stops the build (step 1).
ALLOWED_NATIVE_LIBS=" -liconv -lSystem -lc -lm "

log() { echo "bindings-swift/build-xcframework: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -n 's/^# \{0,1\}//p'; }

out=""
want_zip=0
want_verify=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --zip) want_zip=1; shift ;;
    --verify) want_verify=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

if [ "$(uname -s)" != Darwin ]; then
  log "this builds an xcframework for macOS and iOS, which needs macOS with Xcode (xcodebuild,"
  log "lipo); this system is $(uname -s). Nothing was built. On Linux, bindings-swift/scripts/build.sh"
  log "builds the Swift package for this machine."
  exit 2
fi

[ -n "$out" ] || out="$apple/FerroMCP"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
[ "$out" != "$(cd "$HERE" && pwd -P)" ] || die "--out must not be bindings-swift itself (its Package.swift and Sources/FerroMCP would be replaced)"
[ "$out" != "$(cd "$ROOT" && pwd -P)" ] || die "--out must not be the repository root"

# Tools. xcodebuild -create-xcframework needs Xcode, not only the Command Line Tools.
for tool in cargo rustc xcrun lipo; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
xcodebuild -version >/dev/null 2>&1 \
  || die "'xcodebuild -version' fails: install Xcode, select it (sudo xcode-select -s /Applications/Xcode.app/Contents/Developer) and accept its license (sudo xcodebuild -license accept)"
if [ "$want_zip" = 1 ]; then command -v zip >/dev/null 2>&1 || die "zip not found"; fi
if [ "$want_zip" = 1 ] || [ "$want_verify" = 1 ]; then command -v swift >/dev/null 2>&1 || die "swift not found"; fi
grep -qF "$PLATFORMS_LINE" "$HERE/Package.xcframework.swift" \
  || die "Package.xcframework.swift no longer says '$PLATFORMS_LINE': update MACOS_MIN / IOS_MIN / PLATFORMS_LINE here to match it"

# uniffi-bindgen-swift runs `cargo metadata` in the current directory to find the crate's uniffi.toml.
cd "$ROOT"

TARGETS="aarch64-apple-darwin x86_64-apple-darwin aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios"
if command -v rustup >/dev/null 2>&1; then
  installed=" $(rustup target list --installed | tr '\n' ' ') "
  missing=""
  for t in $TARGETS; do
    case "$installed" in *" $t "*) ;; *) missing="$missing $t" ;; esac
  done
  if [ -n "$missing" ]; then
    log "rustup target add$missing"
    # shellcheck disable=SC2086 # one word per target
    rustup target add $missing
  fi
else
  sysroot="$(rustc --print sysroot)"
  for t in $TARGETS; do
    [ -d "$sysroot/lib/rustlib/$t" ] || die "the Rust standard library for $t is not installed (no rustup here to add it)"
  done
fi

# Step 1: one target's static library, checked. $1 target, $2 deployment-target variable, $3 version.
build_lib() {
  local t="$1" var="$2" version="$3" lib libs word
  local buildlog="$apple/logs/cargo-$t.log"
  log "cargo rustc --profile $profile -p ferromcp-swift --lib --crate-type staticlib --target $t ($var=$version)"
  mkdir -p "$apple/logs"
  # SDKROOT is unset: when this runs from an Xcode build phase it names one platform's SDK, and
  # the host build scripts and proc-macros must not link against it.
  env -u SDKROOT "$var=$version" \
    cargo rustc --profile "$profile" -p ferromcp-swift --lib --crate-type staticlib --target "$t" \
      --manifest-path "$ROOT/Cargo.toml" -- --print native-static-libs 2>&1 | tee "$buildlog" >&2
  lib="$target_dir/$t/$profile/libferromcp_swift.a"
  [ -f "$lib" ] || die "cargo did not produce $lib"
  libs="$(sed -n 's/.*native-static-libs: //p' "$buildlog" | tail -n 1)"
  if [ -z "$libs" ]; then
    # cargo replays rustc's note when the library is up to date, so this is not expected.
    log "  warning: $t: rustc printed no native-static-libs; not checked against Package.xcframework.swift"
    return 0
  fi
  for word in $libs; do
    case "$ALLOWED_NATIVE_LIBS" in
      *" $word "*) ;;
      *) die "$t needs native libraries Package.xcframework.swift does not link: '$libs'. Add them to FerroMCPNative's linkerSettings there (a -framework X as .linkedFramework(\"X\"), a -lX as .linkedLibrary(\"X\")) and to ALLOWED_NATIVE_LIBS here." ;;
    esac
  done
  log "  $t: native-static-libs $libs"
}

build_lib aarch64-apple-darwin MACOSX_DEPLOYMENT_TARGET "$MACOS_MIN"
build_lib x86_64-apple-darwin MACOSX_DEPLOYMENT_TARGET "$MACOS_MIN"
build_lib aarch64-apple-ios IPHONEOS_DEPLOYMENT_TARGET "$IOS_MIN"
build_lib aarch64-apple-ios-sim IPHONEOS_DEPLOYMENT_TARGET "$IOS_MIN"
build_lib x86_64-apple-ios IPHONEOS_DEPLOYMENT_TARGET "$IOS_MIN"

lib_of() { echo "$target_dir/$1/$profile/libferromcp_swift.a"; }
slices="$apple/slices"
rm -rf "$slices"
mkdir -p "$slices/macos" "$slices/ios" "$slices/ios-simulator"
lipo -create "$(lib_of aarch64-apple-darwin)" "$(lib_of x86_64-apple-darwin)" -output "$slices/macos/libferromcp_swift.a"
cp "$(lib_of aarch64-apple-ios)" "$slices/ios/libferromcp_swift.a"
lipo -create "$(lib_of aarch64-apple-ios-sim)" "$(lib_of x86_64-apple-ios)" -output "$slices/ios-simulator/libferromcp_swift.a"
lipo "$slices/macos/libferromcp_swift.a" -verify_arch arm64 x86_64 || die "the macOS slice is not arm64 + x86_64"
lipo "$slices/ios-simulator/libferromcp_swift.a" -verify_arch arm64 x86_64 || die "the Simulator slice is not arm64 + x86_64"
for s in macos ios ios-simulator; do
  log "  $s slice: $(lipo -info "$slices/$s/libferromcp_swift.a" | sed 's/.*: //')"
done

# Step 2: the bindings.
log "uniffi-bindgen-swift"
env -u SDKROOT cargo build --quiet -p ferromcp-swift-bindgen --manifest-path "$ROOT/Cargo.toml"
gen="$apple/bindings"
rm -rf "$gen"
mkdir -p "$gen"
"$target_dir/debug/uniffi-bindgen-swift" --swift-sources --headers --modulemap \
  --module-name FerroMCPFFI --modulemap-filename module.modulemap \
  "$(lib_of aarch64-apple-darwin)" "$gen" >&2
for f in FerroMCPFFI.h module.modulemap FerroMCPNative.swift; do
  [ -s "$gen/$f" ] || die "uniffi-bindgen-swift wrote no $f"
done
headers="$apple/headers"
rm -rf "$headers"
mkdir -p "$headers"
cp "$gen/FerroMCPFFI.h" "$headers/"
grep -Ev '^[[:space:]]*use "_Builtin_(stdbool|stdint)"$' "$gen/module.modulemap" > "$headers/module.modulemap"
expected_modulemap='module FerroMCPFFI {
    header "FerroMCPFFI.h"
    export *
    use "Darwin"
}'
[ "$(cat "$headers/module.modulemap")" = "$expected_modulemap" ] || {
  cat "$gen/module.modulemap" >&2
  die "uniffi-bindgen-swift's module map is not the one this script was written for (above): check it against the notes at the top (a UniFFI upgrade?)"
}

# Step 3: the xcframework.
xcf="$apple/FerroMCPFFI.xcframework"
rm -rf "$xcf"
log "xcodebuild -create-xcframework"
xcodebuild -create-xcframework \
  -library "$slices/macos/libferromcp_swift.a" -headers "$headers" \
  -library "$slices/ios/libferromcp_swift.a" -headers "$headers" \
  -library "$slices/ios-simulator/libferromcp_swift.a" -headers "$headers" \
  -output "$xcf" >&2
for s in macos-arm64_x86_64 ios-arm64 ios-arm64_x86_64-simulator; do
  for f in libferromcp_swift.a Headers/FerroMCPFFI.h Headers/module.modulemap; do
    [ -f "$xcf/$s/$f" ] || die "$xcf has no $s/$f (xcodebuild named the slices differently?)"
  done
  # The privacy manifest beside each slice's library, for apps that add the xcframework itself
  # in Xcode. SwiftPM does not take it from a binary target: the distribution package carries
  # the same file as a resource of its FerroMCP target (dist-staging/swift/Package.swift).
  cp "$ROOT/dist-staging/swift/PrivacyInfo.xcprivacy" "$xcf/$s/"
done

# Step 4: the package.
log "package: $out"
rm -rf "$out/FerroMCPFFI.xcframework" "$out/Sources/FerroMCPNative" "$out/Sources/FerroMCP" "$out/Tests/FerroMCPTests" \
  "$out/Tests/ListenStdioServer"
mkdir -p "$out/Sources/FerroMCPNative" "$out/Tests"
cp "$HERE/Package.xcframework.swift" "$out/Package.swift"
cp -R "$xcf" "$out/"
cp "$gen/FerroMCPNative.swift" "$out/Sources/FerroMCPNative/"
cp -R "$HERE/Sources/FerroMCP" "$out/Sources/"
cp -R "$HERE/Tests/FerroMCPTests" "$out/Tests/"
cp -R "$HERE/Tests/ListenStdioServer" "$out/Tests/"

# Step 5: the release archive.
if [ "$want_zip" = 1 ]; then
  zipfile="$apple/FerroMCPFFI.xcframework.zip"
  rm -f "$zipfile"
  (cd "$apple" && zip -qry "$zipfile" FerroMCPFFI.xcframework)
  checksum="$(cd "$out" && swift package compute-checksum "$zipfile")"
  if command -v shasum >/dev/null 2>&1; then
    sha="$(shasum -a 256 "$zipfile" | cut -d' ' -f1)"
    [ "$sha" = "$checksum" ] || log "warning: swift package compute-checksum ($checksum) is not the SHA-256 of the zip ($sha)"
  fi
  log "zip: $zipfile ($(du -h "$zipfile" | cut -f1))"
  log "checksum: $checksum"
  log "for a release, upload the zip and, in the release's Package.swift, replace the binaryTarget(path:) line with:"
  echo "        .binaryTarget(name: \"FerroMCPFFI\", url: \"https://<where the zip is>/FerroMCPFFI.xcframework.zip\", checksum: \"$checksum\"),"
fi

# Step 6: a first check of the package on this Mac.
if [ "$want_verify" = 1 ]; then
  log "verify: swift build, swift test (macOS)"
  (cd "$out" && swift build && swift test)
  scheme=FerroMCP
  if (cd "$out" && xcodebuild -list 2>/dev/null) | grep -qx '[[:space:]]*FerroMCP-Package'; then scheme=FerroMCP-Package; fi
  for dest in "generic/platform=iOS" "generic/platform=iOS Simulator"; do
    log "verify: xcodebuild build -scheme $scheme -destination '$dest'"
    (cd "$out" && xcodebuild build -quiet -scheme "$scheme" -destination "$dest" \
      -derivedDataPath "$apple/DerivedData" CODE_SIGNING_ALLOWED=NO)
  done
fi

log "ready: $out (FerroMCPFFI.xcframework + the FerroMCP package; Xcode: Add Package Dependencies… > Add Local…)"
