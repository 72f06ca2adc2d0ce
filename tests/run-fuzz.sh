#!/usr/bin/env bash
# Fuzzing (fuzz/, issue 16): builds the cargo-fuzz targets and runs each for a bounded time,
# starting from its committed seed corpus (fuzz/corpus/<target>/). A crash fails the run and
# prints the path of the input that caused it (fuzz/artifacts/<target>/...); replay it with
#   fuzz/target/<triple>/fuzz-ci/<target> <path>     (or with cargo-fuzz, fuzz/README.md).
# Prints, per target, the executions and the coverage libFuzzer reached, and `seedcov`, the coverage
# of the committed corpus alone (libFuzzer's INITED line): it depends on the build and the corpus,
# not on how many executions the 20 seconds allowed at the machine's load, so it is the column to
# compare two builds by.
#
# FUZZ_SECONDS (default 20) is the time per target; FUZZ_TARGETS limits the run to some targets
# (FUZZ_TARGETS=all runs every one); FUZZ_JOBS (default: the CPU count) targets run at once.
# `tests/run-fuzz.sh --build-only` builds the targets and stops: scripts/test runs it in the
# background at the lowest CPU priority from its start, so that the suite itself finds them built.
#
# It builds with plain cargo and the rustc flags cargo-fuzz 0.13 passes (SanitizerCoverage with
# inline 8-bit counters, PC table, compare tracing and stack depth; `--cfg fuzzing`;
# AddressSanitizer; debug assertions), in the `fuzz-ci` profile of fuzz/Cargo.toml: no
# cargo-fuzz install (a minute and a half of compiling in CI) and many codegen units instead of
# cargo-fuzz's one (its release build took ~10 minutes on 2 cores). The targets stay cargo-fuzz
# targets: longer runs use cargo-fuzz itself (fuzz/README.md). Needs a nightly toolchain, or
# stable with RUSTC_BOOTSTRAP=1 (the sanitizer flag is unstable). New inputs found go to a
# scratch directory, never to the committed corpus.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-20}"
build_only=0
[ "${1:-}" = --build-only ] && build_only=1
started=$SECONDS

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  export RUSTUP_TOOLCHAIN=nightly
else
  echo "run-fuzz: no nightly toolchain; using stable with RUSTC_BOOTSTRAP=1" >&2
  export RUSTUP_TOOLCHAIN=stable RUSTC_BOOTSTRAP=1
fi
triple="$(rustc -vV | sed -n 's/^host: //p')"
# Every fuzz target, as fuzz/Cargo.toml declares them.
all_targets="$(sed -n '/^\[\[bin\]\]/,/^name/{s/^name = "\(.*\)"/\1/p}' fuzz/Cargo.toml)"
# Every target runs by default: the two findings that kept h1_differential and uri_template out
# (issue 16) are settled: control bytes in chunk extensions are a documented difference from
# hyper (RFC 9112 §7.1.1 allows none; ferromcp refuses them), and `{var:N}` no longer matches
# more than N characters (core/tests/integration/uri_template.rs).
default_targets="$all_targets"
case "${FUZZ_TARGETS:-}" in
  "") targets="$default_targets" ;;
  all) targets="$all_targets" ;;
  *) targets="$FUZZ_TARGETS" ;;
esac
bins=()
for t in $targets; do
  if ! grep -qx "$t" <<<"$all_targets"; then
    echo "run-fuzz: no fuzz target named '$t' (targets: $(echo $all_targets))" >&2
    exit 2
  fi
  bins+=(--bin "$t")
done

# --target keeps these flags off build scripts and proc macros, as cargo-fuzz does.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
-Cllvm-args=-sanitizer-coverage-stack-depth --cfg fuzzing -Clink-dead-code -Zsanitizer=address \
-Cdebug-assertions ${RUSTFLAGS:-}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0"
export CARGO_INCREMENTAL=0
echo "run-fuzz: building ${targets// /, } ($RUSTUP_TOOLCHAIN, profile fuzz-ci)" >&2
scratch="$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-fuzz.XXXXXX")"
if ! cargo build --manifest-path fuzz/Cargo.toml --target "$triple" --profile fuzz-ci --locked \
     "${bins[@]}" >"$scratch/build.log" 2>&1; then
  grep -vE '^\s+(Compiling|Downloaded|Downloading)' "$scratch/build.log" | tail -40 >&2
  echo "run-fuzz: the fuzz targets do not build (log: $scratch/build.log)" >&2
  exit 1
fi
echo "run-fuzz: built in $((SECONDS - started)) s" >&2
if [ "$build_only" = 1 ]; then
  rm -rf "$scratch"
  exit 0
fi
# (Where cargo put them: the fuzz workspace's own target/, or CARGO_TARGET_DIR when set.)
bindir="${CARGO_TARGET_DIR:-fuzz/target}/$triple/fuzz-ci"

# The targets run side by side, one per CPU (FUZZ_JOBS; each is one single-threaded libFuzzer
# process), in batches so that plain `wait` suffices (macOS ships bash 3.2, without `wait -n`).
jobs_max="${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}"
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
run_one() {
  local t=$1
  mkdir -p "$scratch/$t" "fuzz/artifacts/$t"
  # -rss_limit_mb: a leak or runaway allocation is a finding; -timeout: so is one slow input.
  "$bindir/$t" -artifact_prefix="fuzz/artifacts/$t/" "$scratch/$t" "fuzz/corpus/$t" \
    -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 -max_len=8192 \
    -print_final_stats=1 >"$scratch/$t.log" 2>&1
  echo $? >"$scratch/$t.rc"
}
batch=0
for t in $targets; do
  run_one "$t" &
  batch=$((batch + 1))
  if [ "$batch" -ge "$jobs_max" ]; then
    wait
    batch=0
  fi
done
wait

status=0
echo "run-fuzz: $SECONDS_PER_TARGET s per target, $jobs_max at a time" >&2
printf '%-16s %10s %8s %8s %8s %7s  %s\n' target executions exec/s seedcov cov corpus result
for t in $targets; do
  log="$scratch/$t.log"
  rc=$(cat "$scratch/$t.rc" 2>/dev/null || echo 1)
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  speed=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  seedcov=$(grep -oE 'INITED cov: [0-9]+' "$log" | head -1 | grep -oE '[0-9]+$')
  corp=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $rc)"
    status=1
  fi
  printf '%-16s %10s %8s %8s %8s %7s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "${seedcov:-?}" "${cov:-?}" "${corp:-?}" "$result"
  if [ "$rc" -ne 0 ]; then
    # The panic with its message (the targets put the input in it), up to 40 lines, then the
    # sanitizer's verdict.
    awk '/panicked at/ {p = 1} p && (/^note: / || /^==[0-9]+==/) {p = 0} p' "$log" | head -40 >&2
    grep -E 'ERROR: (libFuzzer|AddressSanitizer)' "$log" | head -5 >&2
    grep -E 'Test unit written to' "$log" | sed 's/^/run-fuzz: reproducer: /' >&2
    # The reproducer itself, so that a CI log alone is enough to replay it:
    #   echo '<base64>' | base64 -d > crash && fuzz/target/<triple>/fuzz-ci/<target> crash
    for f in $(grep -oE 'Test unit written to \S+' "$log" | awk '{print $NF}'); do
      [ -f "$f" ] && echo "run-fuzz: reproducer as base64: $(base64 -w0 "$f")" >&2
    done
    echo "run-fuzz: full log: $log" >&2
  fi
done
echo "run-fuzz: done in $((SECONDS - started)) s" >&2
# A CI machine (CI=true) builds everything once and nothing later in the run uses the fuzz build,
# ~2 GB of sanitizer-instrumented objects in the fuzz workspace's own target/: it goes when the
# run passed (a failure keeps it, with the reproducers, for whoever inspects the machine), so the
# rest of the run has that disk. Elsewhere it stays, for the next run's incremental build.
if [ "${CI:-}" = true ] && [ "$status" -eq 0 ]; then
  rm -rf "$scratch"
  [ -z "${CARGO_TARGET_DIR:-}" ] && rm -rf "$ROOT/fuzz/target"
fi
[ "$status" -eq 0 ] || echo "run-fuzz: a target failed; each reproducer above becomes a regression test" >&2
exit "$status"
