#!/usr/bin/env bash
# bench/compare-dist-rows.sh: the Python- and Node-handler benchmark rows run on what users
# install (the `dist`-profile wheel and npm platform package that scripts/release builds) against
# the same rows on today's release build of each binding (what scripts/bench runs), interleaved
# in one run, and per rate the ratio dist / release. Issue 36's rule: no row more than 3 % slower.
#
# Usage:
#   bench/compare-dist-rows.sh release   builds today's release bindings as scripts/bench does
#                                        (scripts/lib-python-binding.sh, scripts/lib-node-binding.sh:
#                                        only when older than the sources)
#   bench/compare-dist-rows.sh prepare   makes the four installs below from those builds and from
#                                        DIST (scripts/release wheels npm); builds nothing
#   bench/compare-dist-rows.sh check     prints the native module each side loads (fails if one
#                                        does not load its own install's)
#   bench/compare-dist-rows.sh [run]     the timed comparison; builds and installs nothing
#
# The four sides, each an install of its own (prepare makes them; run only reads them):
#   release Python  REL_PY   (default .tools/venv-python-binding-release/bin/python): the release
#                   wheel (`maturin build --release`) scripts/lib-python-binding.sh installs;
#   dist Python     DIST_PY  (default .tools/venv-dist-wheel/bin/python): a venv of its own with
#                   DIST/python/ferromcp-X.Y.Z-cp310-abi3-manylinux_2_17_x86_64*.whl pip-installed,
#                   its dependencies (pydantic) at the versions the release venv has;
#   release Node    REL_NODE (default .tools/node-binding-release): a copy of bindings-node after
#                   its release build (scripts/lib-node-binding.sh: napi build --release), laid out
#                   as the package (dist/, esm/, native/, package.json) plus bench/echo_server.mjs,
#                   so that a later debug build of bindings-node (the tests') does not change it;
#   dist Node       DIST_NODE (default .tools/npm-dist-install/node_modules/ferromcp): the npm
#                   packages DIST/npm/ferromcp-X.Y.Z.tgz and ferromcp-linux-x64-gnu-X.Y.Z.tgz
#                   unpacked as `npm install` lays them out (node_modules/ferromcp and
#                   node_modules/ferromcp-linux-x64-gnu, which the package's loader requires), plus
#                   bench/echo_server.mjs in the package.
# run checks that each side's interpreter loads its own native module (the Python module's file,
# the .node file in the Node process's shared objects) and names them in the report.
#
# The runs: the project's driver (target/release/mcp-bench, copied to OUT first) on ROWS for
# TRANSPORTS, release then dist, REPS times (interleaved, so the machine's load drifts over both
# alike), the Python side through MCP_BENCH_FERROMCP_PY and the Node side through
# MCP_BENCH_FERROMCP_NODE (bench/README.md, "Running a row on another build"). Then per row,
# transport and metric the median of each side and dist / release: the rates (calls/s) first,
# flagged when dist is lower by more than 3 %, then the times (latency, CPU per call, cold start)
# flagged when higher by more than 3 %, each side's spread (min/median-max/median) beside.
# Writes OUT/compare.md (each run's report and samples under OUT/runs/). Exit status 0 whatever
# the ratios: on a shared machine the spread columns say how far to trust them.
#
# Environment: REPS (default 3), TRANSPORTS (default stdio,http-json), PHASE_MS (default 2000),
#   ROWS (row names separated by ';', default "ferromcp (Python handler, sync def);ferromcp (Node
#   handler)"), OUT (default /tmp/ferromcp-compare-dist-rows), DIST (default ROOT/dist), NODE_KEY
#   (default linux-x64-gnu), REL_PY, DIST_PY, REL_NODE, DIST_NODE.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
REPS="${REPS:-3}"
TRANSPORTS="${TRANSPORTS:-stdio,http-json}"
PHASE_MS="${PHASE_MS:-2000}"
ROWS="${ROWS:-ferromcp (Python handler, sync def);ferromcp (Node handler)}"
OUT="${OUT:-/tmp/ferromcp-compare-dist-rows}"
NODE_KEY="${NODE_KEY:-linux-x64-gnu}"
REL_PY="${REL_PY:-$ROOT/.tools/venv-python-binding-release/bin/python}"
DIST_VENV="$ROOT/.tools/venv-dist-wheel"
DIST_PY="${DIST_PY:-$DIST_VENV/bin/python}"
REL_NODE="${REL_NODE:-$ROOT/.tools/node-binding-release}"
NPM_INSTALL="$ROOT/.tools/npm-dist-install"
DIST_NODE="${DIST_NODE:-$NPM_INSTALL/node_modules/ferromcp}"
say() { printf 'compare-dist-rows: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

version() {
  python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["workspace"]["package"]["version"])' \
    "$ROOT/Cargo.toml"
}

# The release builds scripts/bench runs, each rebuilt by its lib script only when stale.
release() {
  # shellcheck source=scripts/lib-python-binding.sh
  . "$ROOT/scripts/lib-python-binding.sh"
  # shellcheck source=scripts/lib-node-binding.sh
  . "$ROOT/scripts/lib-node-binding.sh"
  say "release Python binding (scripts/lib-python-binding.sh -> .tools/venv-python-binding-release)"
  python_binding_release_py >/dev/null || die "the release Python binding could not be built"
  say "release Node binding (scripts/lib-node-binding.sh -> bindings-node)"
  FERROMCP_NODE_BUILD=release node_binding_dir >/dev/null || die "the release Node binding could not be built"
}

# The release Node build copied out of bindings-node as it is (the Python one stays in its venv);
# then the dist sides installed from DIST.
prepare() {
  local v whl node_dir="$ROOT/bindings-node"
  v="$(version)"
  [ "$(cat "$node_dir/native/.build-mode" 2>/dev/null)" = release ] \
    || die "$node_dir holds no release build (bench/compare-dist-rows.sh release)"
  say "release Node binding: $node_dir (built $(date -r "$node_dir/native/ferromcp.$NODE_KEY.node" '+%F %T')) -> $REL_NODE"
  rm -rf "$REL_NODE" && mkdir -p "$REL_NODE/native" "$REL_NODE/bench"
  cp -r "$node_dir/dist" "$node_dir/esm" "$node_dir/package.json" "$REL_NODE/"
  cp "$node_dir/native/index.js" "$node_dir/native/index.d.ts" "$node_dir/native/.build-mode" "$REL_NODE/native/"
  cp "$node_dir/native/ferromcp.$NODE_KEY.node" "$REL_NODE/native/"
  cp "$ROOT/bindings-node/bench/echo_server.mjs" "$REL_NODE/bench/"

  shopt -s nullglob
  local wheels=("$DIST"/python/ferromcp-"$v"-cp310-abi3-manylinux*_x86_64*.whl)
  [ ${#wheels[@]} = 1 ] || die "want one x86_64 manylinux wheel in $DIST/python, found ${#wheels[@]} (scripts/release wheels)"
  whl="${wheels[0]}"
  say "dist wheel $(basename "$whl") -> $DIST_VENV"
  rm -rf "$DIST_VENV"
  python3 -m venv "$DIST_VENV"
  # Its dependencies at the release venv's versions, so that only the binding differs.
  "$REL_PY" -m pip freeze --exclude ferromcp >"$DIST_VENV/constraints.txt"
  "$DIST_VENV/bin/pip" install -q -c "$DIST_VENV/constraints.txt" "$whl"
  sha256sum "$whl" >"$DIST_VENV/installed-wheel.sha256"

  local main="$DIST/npm/ferromcp-$v.tgz" plat="$DIST/npm/ferromcp-$NODE_KEY-$v.tgz"
  [ -f "$main" ] && [ -f "$plat" ] || die "want $main and $plat (scripts/release npm)"
  say "dist npm packages $(basename "$main") $(basename "$plat") -> $NPM_INSTALL/node_modules"
  rm -rf "$NPM_INSTALL" && mkdir -p "$NPM_INSTALL/node_modules/ferromcp" "$NPM_INSTALL/node_modules/ferromcp-$NODE_KEY"
  tar -xzf "$main" -C "$NPM_INSTALL/node_modules/ferromcp" --strip-components=1
  tar -xzf "$plat" -C "$NPM_INSTALL/node_modules/ferromcp-$NODE_KEY" --strip-components=1
  mkdir -p "$NPM_INSTALL/node_modules/ferromcp/bench"
  cp "$ROOT/bindings-node/bench/echo_server.mjs" "$NPM_INSTALL/node_modules/ferromcp/bench/"
  sha256sum "$main" "$plat" >"$NPM_INSTALL/installed-packages.sha256"
  check_sides >/dev/null
  say "prepared; now: bench/compare-dist-rows.sh run"
}

# check_sides: prints one line per side (label, what, the native module it loads, its size and
# SHA-256); fails when a side does not load a module of its own install.
check_sides() {
  local label py node so fix
  for label in release dist; do
    py="$REL_PY"; node="$REL_NODE"; fix="bench/compare-dist-rows.sh release, then prepare"
    [ "$label" = dist ] && { py="$DIST_PY"; node="$DIST_NODE"; fix="bench/compare-dist-rows.sh prepare"; }
    so="$( (cd / && "$py" -c 'import ferromcp._native as n; print(n.__file__)') )" \
      || die "$label Python: $py cannot import ferromcp ($fix)"
    case "$so" in "$(dirname "$(dirname "$py")")"/*) ;; *) die "$label Python: $py loads $so, not its own venv's";; esac
    printf '%s python %s %s %s\n' "$label" "$so" "$(wc -c <"$so")" "$(sha256sum "$so" | cut -c1-16)"
    [ -f "$node/dist/index.js" ] && [ -f "$node/bench/echo_server.mjs" ] \
      || die "$label Node: $node is not an install with bench/echo_server.mjs ($fix)"
    so="$(node -e '
      require(process.argv[1]);
      const so = process.report.getReport().sharedObjects.filter((f) => f.endsWith(".node"));
      if (so.length !== 1) { console.error(`loaded ${so.length} addons: ${so}`); process.exit(1); }
      console.log(so[0]);' "$node/dist/index.js")" || die "$label Node: $node does not load one addon"
    # The dist side must load the platform package's addon, beside its own node_modules/ferromcp.
    case "$label:$so" in
      release:"$node"/native/*) ;;
      dist:"$(dirname "$node")/ferromcp-$NODE_KEY"/*) ;;
      *) die "$label Node: loads $so, not its own install's addon" ;;
    esac
    printf '%s node %s %s %s\n' "$label" "$so" "$(wc -c <"$so")" "$(sha256sum "$so" | cut -c1-16)"
  done
}

run() {
  [ -x "$ROOT/target/release/mcp-bench" ] \
    || die "no target/release/mcp-bench (cargo build --release -p ferromcp-bench-driver)"
  rm -rf "$OUT" && mkdir -p "$OUT/runs"
  check_sides >"$OUT/sides.txt"
  cat "$OUT/sides.txt" >&2
  cp "$ROOT/target/release/mcp-bench" "$OUT/"
  local rows=() r i label py node
  IFS=';' read -r -a names <<<"$ROWS"
  for r in "${names[@]}"; do rows+=(--row "$r"); done
  for i in $(seq "$REPS"); do
    for label in release dist; do
      py="$REL_PY"; node="$REL_NODE"
      [ "$label" = dist ] && { py="$DIST_PY"; node="$DIST_NODE"; }
      say "run $i/$REPS: $label (load $(cut -d' ' -f1-3 /proc/loadavg))"
      MCP_BENCH_FERROMCP_PY="$py" MCP_BENCH_FERROMCP_NODE="$node" "$OUT/mcp-bench" --root "$ROOT" \
        --out "$OUT/runs/$label-$i" "${rows[@]}" --transports "$TRANSPORTS" --reps 1 \
        --phase-ms "$PHASE_MS" >"$OUT/runs/$label-$i.log" 2>&1 \
        || say "run $i/$REPS $label failed: see $OUT/runs/$label-$i.log"
    done
  done
  python3 - "$OUT" "$REPS" "$TRANSPORTS" "$PHASE_MS" <<'PY' | tee "$OUT/compare.md"
import json, pathlib, statistics, sys
out, reps, transports, phase_ms = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
sides = ("release", "dist")
vals, load, errors = {}, [], []
for side in sides:
    for i in range(1, reps + 1):
        f = out / "runs" / f"{side}-{i}" / "raw" / "samples.jsonl"
        if not f.exists():
            errors.append(f"{side} run {i}: no samples (see runs/{side}-{i}.log)")
            continue
        for line in f.read_text().splitlines():
            s = json.loads(line)
            load.append(s.get("loadavg") or 0)
            if s.get("error"):
                errors.append(f"{side} run {i}, {s['server']} {s['transport']}: {s['error']}")
            for k, v in (s.get("metrics") or {}).items():
                vals.setdefault((s["server"], s["transport"], k), {}).setdefault(side, []).append(v)
print(f"# The Python and Node rows: dist install against release build ({reps} interleaved runs each, "
      f"{transports}, {phase_ms} ms phases)")
print()
print("| side | binding | native module | bytes | SHA-256 (first 16) |")
print("|---|---|---|---:|---|")
for line in (out / "sides.txt").read_text().splitlines():
    side, lang, so, size, sha = line.split(" ")
    print(f"| {side} | {lang} | `{so}` | {int(size):,} | {sha} |")
print()
print(f"Load average during the runs: {min(load, default=0):.2f}-{max(load, default=0):.2f}.")
for e in errors:
    print(f"- error: {e}")
print()
def num(v):
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
def spread(xs):
    m = statistics.median(xs)
    return f"{min(xs) / m:.2f}-{max(xs) / m:.2f}" if m else "-"
def table(title, pick, worse_if):
    print(f"## {title}")
    print()
    print("| row | transport | metric | release (median) | dist (median) | dist / release | spread release | spread dist | n | worse by > 3 % |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|:---:|")
    flagged = 0
    for (row, t, k), d in sorted(vals.items()):
        if not pick(k) or "release" not in d or "dist" not in d:
            continue
        r, x = statistics.median(d["release"]), statistics.median(d["dist"])
        if r == 0:
            continue
        ratio = x / r
        worse = worse_if(ratio)
        flagged += worse
        print(f"| {row} | {t} | {k} | {num(r)} | {num(x)} | {ratio:.3f} | {spread(d['release'])} | "
              f"{spread(d['dist'])} | {len(d['release'])}/{len(d['dist'])} | {'yes' if worse else ''} |")
    print()
    return flagged
slow = table("Rates (calls/s; dist / release below 0.97 is more than 3 % slower)",
             lambda k: k.endswith("rate"), lambda q: q < 0.97)
# The driver's own CPU per call (*_drv_us) is the client's, not the server's: left out.
table("Times (µs or ms; latency, server CPU per call, cold start: above 1.03 is more than 3 % worse)",
      lambda k: k.endswith(("_us", "_ms")) and "_drv_" not in k, lambda q: q > 1.03)
print(f"{slow} rate(s) more than 3 % lower with the dist install.")
PY
  say "wrote $OUT/compare.md"
}

case "${1:-run}" in
  release) release ;;
  prepare) prepare ;;
  check) check_sides ;;
  run) run ;;
  *) die "usage: bench/compare-dist-rows.sh [release|prepare|check|run]" ;;
esac
