#!/usr/bin/env bash
# The documentation's links: every relative link and image in the repository's Markdown names a
# file that exists, and every #anchor a heading of its target (scripts/check-links). Under a
# second; run by scripts/test with the other tests/run-*.sh suites.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/check-links
