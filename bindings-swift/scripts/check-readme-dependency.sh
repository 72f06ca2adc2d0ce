#!/usr/bin/env bash
# Checks the dependency lines the Swift docs tell users to copy (issue 33: the README's
# `.product(name: "FerroMCP", package: "FerroMCP")` failed with `unknown package 'FerroMCP'`).
# Every `.product(name: ..., package: ...)` line of bindings-swift/README.md and docs/swift.md is
# put in a new package in /tmp that depends on this checkout's bindings-swift by path, as the
# docs' `.package(path: ".../bindings-swift")` line does, and SwiftPM must load its graph
# (`swift package describe`, ~2 s, no build). As a control, the same package with
# `package: "FerroMCP"` must fail with SwiftPM's `unknown package` error, so the check can fail.
# Needs a Swift toolchain (scripts/swift) and the package's generated files (scripts/build.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DOCS=("$ROOT/bindings-swift/README.md" "$ROOT/docs/swift.md")
status=0

# The by-path lines must name a directory called bindings-swift: SwiftPM names a package added
# by path after its directory, which is what `package:` must then say.
paths=$(grep -ho '\.package(path: "[^"]*")' "${DOCS[@]}" | sort -u)
[ -n "$paths" ] || { echo "check-readme-dependency: no .package(path:) line in the docs" >&2; exit 1; }
while IFS= read -r line; do
  case "$line" in
    *'/bindings-swift")') ;;
    *) echo "FAIL  $line: the path's last component is not bindings-swift" >&2; status=1 ;;
  esac
done <<<"$paths"

products=$(grep -ho '\.product(name: "[^"]*", package: "[^"]*")' "${DOCS[@]}" | sort -u)
[ -n "$products" ] || { echo "check-readme-dependency: no .product line in the docs" >&2; exit 1; }

TMP="$(mktemp -d /tmp/ferromcp-readme-dependency.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

# make_package DIR PRODUCT_LINES: a package whose one target depends on those products.
make_package() {
  mkdir -p "$1/Sources/Hello"
  {
    echo '// swift-tools-version:6.0'
    echo 'import PackageDescription'
    echo 'let package = Package('
    echo '    name: "Hello",'
    echo "    dependencies: [.package(path: \"$ROOT/bindings-swift\")],"
    echo "    targets: [.executableTarget(name: \"Hello\", dependencies: [$(echo "$2" | paste -sd, -)])]"
    echo ')'
  } >"$1/Package.swift"
  echo 'print("hello")' >"$1/Sources/Hello/main.swift"
}

make_package "$TMP/docs" "$products"
if out=$(cd "$TMP/docs" && "$ROOT/scripts/swift" package describe 2>&1); then
  echo "ok    the docs' dependency lines load: $(echo "$products" | paste -sd' ' -)"
else
  echo "FAIL  the docs' dependency lines do not load:" >&2
  echo "$out" | tail -5 >&2
  status=1
fi

make_package "$TMP/control" '.product(name: "FerroMCP", package: "FerroMCP")'
if out=$(cd "$TMP/control" && "$ROOT/scripts/swift" package describe 2>&1); then
  echo "FAIL  control: package: \"FerroMCP\" loaded, so this check cannot tell" >&2
  status=1
elif ! grep -q "unknown package 'FerroMCP'" <<<"$out"; then
  echo "FAIL  control: not SwiftPM's unknown-package error:" >&2
  echo "$out" | tail -5 >&2
  status=1
else
  echo "ok    control: package: \"FerroMCP\" is refused (unknown package 'FerroMCP')"
fi
exit "$status"
