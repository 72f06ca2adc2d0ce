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
# One ruff configuration (bindings-python/pyproject.toml) for the binding and the examples, which
# have no pyproject of their own; `ruff format --check` keeps the layout ruff's, not each author's.
RUFF_CONFIG=(--config bindings-python/pyproject.toml)
"$VENV/bin/ruff" check "${RUFF_CONFIG[@]}" bindings-python/python/ferromcp examples/python
"$VENV/bin/ruff" format --check "${RUFF_CONFIG[@]}" bindings-python/python bindings-python/tests \
    bindings-python/bench bindings-python/scripts examples/python
"$VENV/bin/mypy" --strict --config-file bindings-python/pyproject.toml \
    bindings-python/python/ferromcp examples/python
# The hand-written stub of the native module checked against the built extension (issue 35):
# every name, class (@final), method, property and argument (names, kinds, defaults) as PyO3
# exposes them; ~10 s. No allowlist: nothing is left that stubtest cannot see (it cannot see
# argument and return types, which PyO3's text signatures do not carry).
"$VENV/bin/python" -m mypy.stubtest ferromcp._native
cd "$HERE" && "$VENV/bin/python" -m pytest -q
