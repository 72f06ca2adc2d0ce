#!/usr/bin/env bash
# The engine's layers import downward only (scripts/check-layers, the rules ARCHITECTURE.md
# gives as greps, checked on the code: comments, strings and test modules left out). First a
# self-test on a copy of core/src with four upward imports written into it (a `use` tree, an
# inline path, a `super::super` path and an inline module's path) and two that must not count
# (a comment and a `#[cfg(test)]` module): exactly the four must be found. Then the real tree.
# Under a second; run by scripts/test with the other tests/run-*.sh suites.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -r core/src "$tmp/src"
cat >> "$tmp/src/session/core.rs" <<'RS'
use crate::{client::Client as _UpwardA, jsonrpc::Message as _Fine};
// crate::transport::stdio in a comment does not count
#[cfg(test)]
mod upward_tests {
    use crate::client::Client;
}
RS
cat >> "$tmp/src/server/api.rs" <<'RS'
fn _upward_b() -> Option<crate::transport::http::HttpServerOptions> { None }
RS
cat >> "$tmp/src/transport/stdio.rs" <<'RS'
fn _upward_c() { let _ = super::super::client::Client::spawn; }
mod inline_upward {
    fn _upward_d() { let _ = super::super::super::client::ClientOptions::new; }
}
RS
set +e
out="$(scripts/check-layers "$tmp/src")"
rc=$?
set -e
found="$(printf '%s\n' "$out" | grep -c 'a layer above it' || true)"
if [ "$rc" -ne 1 ] || [ "$found" -ne 4 ]; then
  printf '%s\n' "$out" >&2
  echo "run-layers: the self-test expected exactly 4 upward imports (rc 1), got $found (rc $rc)" >&2
  exit 1
fi
echo "run-layers: self-test ok (4 planted upward imports found, the comment and the test module ignored)"
scripts/check-layers
