#!/usr/bin/env bash
# Builds the Python binding into a venv and runs ruff, mypy --strict and pytest.
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
"$VENV/bin/ruff" check bindings-python/python/ferromcp examples/python
"$VENV/bin/mypy" --strict --config-file bindings-python/pyproject.toml \
    bindings-python/python/ferromcp examples/python
cd "$HERE" && "$VENV/bin/python" -m pytest -q
