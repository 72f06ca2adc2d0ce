# Sourced by scripts/everything-server, scripts/everything-client and tests/run-python.sh.
# python_binding_py: prints the path of a Python interpreter that can `import ferromcp` (the venv
# .tools/venv-python-binding, the same one bindings-python/scripts/test.sh uses), creating the
# venv and (re)building the native module with `maturin develop` when it is missing or older
# than the Rust sources. All build output goes to stderr. Honours CARGO_TARGET_DIR and PYTHON.
python_binding_py() {
  local venv="$ROOT/.tools/venv-python-binding"
  local stamp="$venv/.ferromcp-built"
  local py="${PYTHON:-python3}"
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv" 1>&2 || { echo "$(basename "$0"): cannot create $venv" >&2; return 1; }
  fi
  if [ ! -x "$venv/bin/maturin" ]; then
    "$venv/bin/pip" install -q -r "$ROOT/bindings-python/requirements-dev.txt" 1>&2 || return 1
  fi
  if [ ! -f "$stamp" ] || ! "$venv/bin/python" -c 'import ferromcp._native' 2>/dev/null \
     || [ -n "$(find "$ROOT/core" "$ROOT/bindings-python/src" "$ROOT/bindings-python/Cargo.toml" \
          "$ROOT/bindings-python/pyproject.toml" "$ROOT/Cargo.toml" "$ROOT/Cargo.lock" -newer "$stamp" \
          \( -name '*.rs' -o -name Cargo.toml -o -name Cargo.lock -o -name pyproject.toml \) -print -quit 2>/dev/null)" ]; then
    (cd "$ROOT/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
      "$venv/bin/maturin" develop -q 1>&2) || { echo "$(basename "$0"): maturin develop failed" >&2; return 1; }
    touch "$stamp"
  fi
  printf '%s\n' "$venv/bin/python"
}
