# Sourced by scripts/everything-server, scripts/everything-client, tests/run-python.sh and
# scripts/bench.
# python_binding_py: prints the path of a Python interpreter that can `import ferromcp` (the venv
# .tools/venv-python-binding, the same one bindings-python/scripts/test.sh uses), creating the
# venv and (re)building the native module with `maturin develop` when it is missing or older
# than the Rust sources. All build output goes to stderr. Honours CARGO_TARGET_DIR and PYTHON.
# python_binding_release_py: the same for benchmarks, with an optimized build: the venv
# .tools/venv-python-binding-release gets a wheel from `maturin build --release` installed into
# its site-packages (not an editable install, so it never shares the debug module in the tree).

# _python_binding_venv VENV: creates VENV with maturin (and the dev requirements) if missing.
_python_binding_venv() {
  local venv="$1" py="${PYTHON:-python3}"
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv" 1>&2 || { echo "$(basename "$0"): cannot create $venv" >&2; return 1; }
  fi
  if [ ! -x "$venv/bin/maturin" ]; then
    "$venv/bin/python" -m pip install -q -r "$ROOT/bindings-python/requirements-dev.txt" 1>&2 || return 1
  fi
}

# _python_binding_stale VENV STAMP [EXTRA_DIR]: true when the module is missing or older than the
# Rust sources of the crates it links (the engine's, the binding's, the `ferromcp` command's), or
# than the *.py files under EXTRA_DIR, for a wheel that copies them.
_python_binding_stale() {
  [ ! -f "$2" ] || ! (cd / && "$1/bin/python" -c 'import ferromcp._native' 2>/dev/null) \
    || [ -n "$(find "$ROOT/protocol" "$ROOT/core" "$ROOT/embed" "$ROOT/cli" "$ROOT/proxy" \
         "$ROOT/bindings-python/src" ${3:+"$3"} \
         "$ROOT/bindings-python/Cargo.toml" "$ROOT/bindings-python/pyproject.toml" "$ROOT/Cargo.toml" \
         "$ROOT/Cargo.lock" -newer "$2" \
         \( -name '*.rs' -o -name '*.py' -o -name Cargo.toml -o -name Cargo.lock -o -name pyproject.toml \) \
         -print -quit 2>/dev/null)" ]
}

python_binding_py() {
  local venv="$ROOT/.tools/venv-python-binding"
  local stamp="$venv/.ferromcp-built"
  _python_binding_venv "$venv" || return 1
  if _python_binding_stale "$venv" "$stamp"; then
    (cd "$ROOT/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
      "$venv/bin/maturin" develop -q 1>&2) || { echo "$(basename "$0"): maturin develop failed" >&2; return 1; }
    touch "$stamp"
  fi
  printf '%s\n' "$venv/bin/python"
}

python_binding_release_py() {
  local venv="$ROOT/.tools/venv-python-binding-release"
  local stamp="$venv/.ferromcp-built"
  _python_binding_venv "$venv" || return 1
  if _python_binding_stale "$venv" "$stamp" "$ROOT/bindings-python/python"; then
    rm -rf "$venv/wheels"
    (cd "$ROOT/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
      "$venv/bin/maturin" build --release -q -o "$venv/wheels" 1>&2) \
      || { echo "$(basename "$0"): maturin build --release failed" >&2; return 1; }
    "$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$venv"/wheels/ferromcp-*.whl 1>&2 \
      || { echo "$(basename "$0"): installing the ferromcp wheel failed" >&2; return 1; }
    touch "$stamp"
  fi
  printf '%s\n' "$venv/bin/python"
}
