#!/usr/bin/env bash
# Builds the Python binding into a venv and runs ruff (lint and format check), mypy --strict and
# pytest.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
VENV="$ROOT/.tools/venv-python-binding"
PY="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q -r "$HERE/requirements-dev.txt"
(cd "$HERE" && VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop -q)
touch "$VENV/.ferromcp-built"   # scripts/lib-python-binding.sh: no rebuild needed
cd "$ROOT"
# One ruff configuration (bindings-python/pyproject.toml) for all the repository's Python, which
# has no pyproject of its own outside the binding: the binding with its tests, benchmarks and
# scripts, the examples, the interop clients and servers and the OAuth replica (tests/), the
# release scripts (scripts/) and the benchmark's servers and tables (bench/). `ruff check` finds
# undefined names and unused imports there too; `ruff format --check` keeps the layout ruff's,
# not each author's.
RUFF_CONFIG=(--config bindings-python/pyproject.toml)
PYTHON_PATHS=(bindings-python/python bindings-python/tests bindings-python/bench
    bindings-python/scripts examples/python tests scripts bench)
"$VENV/bin/ruff" check "${RUFF_CONFIG[@]}" "${PYTHON_PATHS[@]}"
"$VENV/bin/ruff" format --check "${RUFF_CONFIG[@]}" "${PYTHON_PATHS[@]}"
"$VENV/bin/mypy" --strict --config-file bindings-python/pyproject.toml \
    bindings-python/python/ferromcp examples/python
# The hand-written stub of the native module checked against the built extension (issue 35):
# every name, class (@final), method, property and argument (names, kinds, defaults) as PyO3
# exposes them; ~10 s. No allowlist: nothing is left that stubtest cannot see (it cannot see
# argument and return types, which PyO3's text signatures do not carry).
"$VENV/bin/python" -m mypy.stubtest ferromcp._native
cd "$HERE" && "$VENV/bin/python" -m pytest -q
