#!/usr/bin/env bash
# Runs the official MCP conformance suite (client mode) against an MCP client command: 0.1.16's
# `--suite core` (the 2025-11-25 era), the alpha's non-auth client scenarios of 2025-11-25 and
# 2026-07-28, and the alpha's auth/* client scenarios of 2025-11-25 and 2026-07-28. Together the
# alpha runs cover every client scenario the alpha's `tier-check --requirements
# 2025-11-25,2026-07-28` scores (its requirement files), each at its own wire version.
#
# Usage: tests/conformance/run-client.sh [options] [--] CLIENT_CMD...
#   For every scenario the suite runs CLIENT_CMD with the mock server's URL appended as the
#   last argument and MCP_CONFORMANCE_SCENARIO (plus MCP_CONFORMANCE_CONTEXT for some auth
#   scenarios) in the environment. The CLI splits its --command on spaces, so this script
#   puts CLIENT_CMD (quoted properly) into a wrapper script at a space-free path.
# Options:
#   --results DIR     where results go (default: a new temp dir; kept and printed)
#   --suite NAME      suite to run (default: core)
#   --scenario NAME   run one scenario instead of the suite
#   --label NAME      the run's label in the summary and in expected-failures.txt
#                     (default client-SUITE; the binding runs use client-core-LANG)
#   --runs LIST       comma-separated: "v0.1.16" (default: 0.1.16 --suite SUITE, labelled as
#                     above) and/or "alpha-2026-07-28" (the alpha's 2026-07-28 client scenarios
#                     but auth/*, one by one, labelled client-2026-LANG for a label client-core-LANG,
#                     else client-2026), "alpha-2025-11-25" (the non-auth client scenarios of the
#                     alpha's 2025-11-25 requirement file, one by one at 2025-11-25, labelled
#                     client-2025-LANG, else client-2025), "alpha-auth-2025-11-25" and/or "alpha-auth-2026-07-28"
#                     (the alpha's required auth/* client scenarios of that revision, one by one
#                     at its wire: MCP_CONFORMANCE_PROTOCOL_VERSION, 2026-07-28 being the
#                     per-request era; labelled client-auth-REV-LANG, else client-auth-REV)
#   --timeout MS      per-scenario timeout (default 60000: the suite runs scenarios in parallel
#                     and this machine has 2 cores)
#   --no-serial-retry do not re-run the timing-sensitive scenarios (sse-retry) on their own
# The suite runs in parallel, which distorts the timing that sse-retry measures (a late
# reconnect is a WARNING, and a WARNING fails a client scenario), so sse-retry is run again
# by itself afterwards and that serial result is the one judged.
# Exit status: non-zero on any failing scenario not in tests/conformance/expected-failures.txt.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NODE22="$ROOT/scripts/node22"
CLI="$ROOT/tests/node_modules/@modelcontextprotocol/conformance/dist/index.js"
CLI_ALPHA="$ROOT/tests/node_modules/conformance-alpha/dist/index.js"
# The alpha's (pinned 0.2.0-alpha.12) client scenarios required at 2026-07-28, auth/* aside
# (`conformance list --client`); json-schema-2020-12-preservation is there "added after release".
ALPHA_2026_SCENARIOS=(tools_call request-metadata sep-2322-client-request-state http-standard-headers
  http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation)
EXPECTED="$HERE/expected-failures.txt"
SERIAL_SCENARIOS=(sse-retry)

results="" suite="core" scenario="" timeout=60000 serial_retry=1 label_opt="" runs="v0.1.16"
while [ $# -gt 0 ]; do
  case "$1" in
    --results) results="$2"; shift 2 ;;
    --suite) suite="$2"; shift 2 ;;
    --scenario) scenario="$2"; shift 2 ;;
    --label) label_opt="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --no-serial-retry) serial_retry=0; shift ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "run-client: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "run-client: missing CLIENT_CMD (see --help)" >&2; exit 2; }
[ -f "$CLI" ] || { echo "run-client: $CLI missing; run scripts/setup-test-deps" >&2; exit 2; }
"$NODE22" --print-path >/dev/null || exit 2

[ -n "$results" ] || results="$(mktemp -d "${TMPDIR:-/tmp}/ferromcp-conformance-client.XXXXXX")"
mkdir -p "$results"
wrapdir="$(mktemp -d /tmp/ferromcp-cc.XXXXXX)"
trap 'rm -rf "$wrapdir"' EXIT
wrapper="$wrapdir/client"
{
  echo '#!/usr/bin/env bash'
  printf 'cd %q\n' "$PWD"
  printf 'exec'; printf ' %q' "$@"; printf ' "$@"\n'
} >"$wrapper"
chmod +x "$wrapper"

status=0
# run_alpha LABEL REV SCENARIO...: the alpha's SCENARIOs one by one at wire REV, results under
# $results/LABEL-LANG (LANG from a --label client-core-LANG), judged by summarize.mjs.
run_alpha() {
  local label="$1" rev="$2"; shift 2
  case "$label_opt" in client-core-*) label="$label-${label_opt#client-core-}" ;; esac
  local out="$results/$label" s
  [ "$#" -gt 0 ] || { echo "run-client: no $label scenarios found in the alpha" >&2; exit 2; }
  mkdir -p "$out"
  echo "run-client: conformance-alpha client, $rev scenarios one by one ($#: $*)" >&2
  for s in "$@"; do
    "$NODE22" "$CLI_ALPHA" client --command "$wrapper" --scenario "$s" --spec-version "$rev" \
      --timeout "$timeout" -o "$out" >>"$out/cli.log" 2>&1 || true
  done
  "$NODE22" "$HERE/summarize.mjs" --mode client --run "$label" --dir "$out" --expected "$EXPECTED" \
    | tee "$results/$label.summary" || status=1
}
# alpha_requirements REV: the alpha's requirement file of REV (exits when the alpha is missing).
alpha_requirements() {
  local reqs="$ROOT/tests/node_modules/conformance-alpha/requirements/$1.yaml"
  [ -f "$CLI_ALPHA" ] && [ -f "$reqs" ] || { echo "run-client: the alpha is missing; run scripts/setup-test-deps" >&2; exit 2; }
  printf '%s\n' "$reqs"
}
if [[ ",$runs," == *,alpha-2026-07-28,* ]]; then
  [ -f "$CLI_ALPHA" ] || { echo "run-client: $CLI_ALPHA missing; run scripts/setup-test-deps" >&2; exit 2; }
  run_alpha client-2026 2026-07-28 "${ALPHA_2026_SCENARIOS[@]}"
fi
# The alpha's required non-auth client scenarios of 2025-11-25: the plain `  - NAME` entries of
# the `client:` list of its requirement file, auth/* aside.
if [[ ",$runs," == *,alpha-2025-11-25,* ]]; then
  reqs="$(alpha_requirements 2025-11-25)" || exit 2
  mapfile -t scenarios25 < <(awk '/^[a-z_]+:/ { in_client = ($0 == "client:") ; next }
    in_client && /^  - [A-Za-z0-9_-]+$/ { print $2 }' "$reqs")
  run_alpha client-2025 2025-11-25 "${scenarios25[@]}"
fi
# The alpha's required auth/* scenarios per revision: the plain `  - auth/NAME` entries of its
# requirement file (the `not_scored` extensions are `- scenario: NAME` entries).
for rev in 2025-11-25 2026-07-28; do
  [[ ",$runs," == *,alpha-auth-$rev,* ]] || continue
  reqs="$(alpha_requirements "$rev")" || exit 2
  mapfile -t auth_scenarios < <(sed -n 's/^  - \(auth\/[A-Za-z0-9_-]*\)$/\1/p' "$reqs")
  run_alpha "client-auth-$rev" "$rev" "${auth_scenarios[@]}"
done
if [[ ",$runs," != *,v0.1.16,* ]]; then
  echo "run-client: results in $results" >&2
  exit "$status"
fi

label="${label_opt:-client-$suite}"
out="$results/$label"
if [ -n "$scenario" ]; then
  label="client-$scenario"; label="${label//\//_}"
  out="$results/$label"; mkdir -p "$out"
  echo "run-client: conformance client --scenario $scenario" >&2
  "$NODE22" "$CLI" client --command "$wrapper" --scenario "$scenario" --timeout "$timeout" -o "$out" \
    >"$out/cli.log" 2>&1 || true
  override=""
else
  mkdir -p "$out"
  echo "run-client: conformance client --suite $suite --timeout $timeout (parallel)" >&2
  "$NODE22" "$CLI" client --command "$wrapper" --suite "$suite" --timeout "$timeout" -o "$out" \
    >"$out/cli.log" 2>&1 || true
  override="$results/$label-serial"
  mkdir -p "$override"
  if [ "$serial_retry" = 1 ]; then
    for s in "${SERIAL_SCENARIOS[@]}"; do
      if ls -d "$out/$s"-* >/dev/null 2>&1; then
        echo "run-client: re-running $s on its own (timing-sensitive)" >&2
        "$NODE22" "$CLI" client --command "$wrapper" --scenario "$s" --timeout "$timeout" -o "$override" \
          >>"$override/cli.log" 2>&1 || true
      fi
    done
  fi
fi
"$NODE22" "$HERE/summarize.mjs" --mode client --run "$label" --dir "$out" \
  ${override:+--override-dir "$override"} --expected "$EXPECTED" | tee "$results/$label.summary" || status=1
echo "run-client: results in $results (cli.log; checks.json, stdout.txt, stderr.txt per scenario)" >&2
exit "$status"
