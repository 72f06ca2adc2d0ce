// Summarises conformance results written with `conformance ... -o DIR`.
// Usage: node summarize.mjs --mode server|client --run LABEL --dir DIR
//          [--expected FILE] [--requirements YAML] [--override-dir DIR] [--scored-by-us FILE]
// Prints one line per scenario to stdout, then a closing "N passed, N failed" line.
// Exit status: 0 when every failing scenario is listed in the expected-failures file
// (wholesale, or each of its failing checks as LABEL:scenario:check-id), or is not scored by the
// requirement set; 1 otherwise.
// A server scenario fails on any FAILURE check; a client scenario fails on any
// FAILURE or WARNING check (the CLI's own rule), or when it left no checks. A server scenario
// listed in the --scored-by-us file fails on a WARNING too, and is scored even where the
// requirement set does not score it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const mode = opt('--mode', 'server');
const run = opt('--run', 'run');
const dir = opt('--dir');
const expectedFile = opt('--expected');
const requirementsFile = opt('--requirements');
const overrideDir = opt('--override-dir');
const scoredByUsFile = opt('--scored-by-us');
if (!dir) {
  console.error('summarize: --dir is required');
  process.exit(2);
}

const TS = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function collect(base) {
  const found = new Map();
  if (!base || !fs.existsSync(base)) return found;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'checks.json') {
        let rel = path.relative(base, d).split(path.sep).join('/');
        rel = rel.replace(TS, '');
        if (mode === 'server') rel = rel.replace(/^server-/, '');
        let checks = [];
        try { checks = JSON.parse(fs.readFileSync(p, 'utf8')); } catch { checks = null; }
        found.set(rel, { checks, dir: d });
      }
    }
  };
  walk(base);
  return found;
}

const results = collect(dir);
for (const [k, v] of collect(overrideDir)) results.set(k, v);

// expected-failures.txt: "scenario  # reason", optionally "LABEL:scenario" to limit to one run
// (LABEL may list several runs, comma-separated),
// or "LABEL:scenario:check-id" to excuse one failing check of a scenario (its other checks
// must still pass).
const expected = new Map();
const expectedChecks = new Map(); // scenario -> Map(check id -> reason)
if (expectedFile && fs.existsSync(expectedFile)) {
  for (const raw of fs.readFileSync(expectedFile, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const reason = (raw.split('#')[1] || '').trim();
    let name = line.split(/\s+/)[0];
    const c = /^([^:]+):([^:]+):(.+)$/.exec(name);
    if (c) {
      if (!c[1].split(',').includes(run)) continue;
      if (!expectedChecks.has(c[2])) expectedChecks.set(c[2], new Map());
      expectedChecks.get(c[2]).set(c[3], reason);
      continue;
    }
    const m = /^([^:]+):(.+)$/.exec(name);
    if (m) {
      if (!m[1].split(',').includes(run)) continue;
      name = m[2];
    }
    expected.set(name, reason);
  }
}

// Scenarios a requirement set runs but never scores (alpha's `not_scored`).
const notScored = new Map();
if (requirementsFile && fs.existsSync(requirementsFile)) {
  const require = createRequire(import.meta.url);
  const YAML = require('yaml');
  const doc = YAML.parse(fs.readFileSync(requirementsFile, 'utf8'));
  for (const e of doc.not_scored || []) {
    if (e.leg === mode) notScored.set(e.scenario, e.reason);
  }
}

// Scenarios we score ourselves (tests/conformance/scored-by-us.txt): warnings fail them.
const scoredByUs = new Set();
if (scoredByUsFile && fs.existsSync(scoredByUsFile)) {
  for (const raw of fs.readFileSync(scoredByUsFile, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line) scoredByUs.add(line.split(/\s+/)[0]);
  }
}
for (const name of scoredByUs) notScored.delete(name);

let passed = 0, failed = 0, xfail = 0, unscored = 0;
const unexpected = [], stale = [];
const names = [...results.keys()].sort();
for (const name of names) {
  const { checks } = results.get(name);
  let bad = [];
  const excused = expectedChecks.get(name) || new Map();
  const excusedFailing = [];
  if (!Array.isArray(checks) || checks.length === 0) bad = ['(no checks recorded)'];
  else {
    const failing = checks.filter((c) =>
      c.status === 'FAILURE' || (c.status === 'WARNING' && (mode === 'client' || scoredByUs.has(name))));
    for (const c of failing) if (excused.has(c.id)) excusedFailing.push(c.id);
    bad = failing.filter((c) => !excused.has(c.id))
      .map((c) => `${c.id}: ${c.status}${c.errorMessage ? ' - ' + c.errorMessage : ''}`);
    // A scenario we score must have judged something: only INFO checks (e.g. a server that
    // answered JSON where the checks need SSE) is not a pass.
    if (scoredByUs.has(name) && !checks.some((c) => c.status === 'SUCCESS')) {
      bad.push('(scored by us: no check succeeded, only INFO)');
    }
    for (const id of excused.keys()) {
      if (!failing.some((c) => c.id === id) && checks.some((c) => c.id === id && c.status === 'SUCCESS')) {
        stale.push(`${name}:${id}`);
      }
    }
  }
  const nOk = Array.isArray(checks) ? checks.filter((c) => c.status === 'SUCCESS').length : 0;
  const nAll = Array.isArray(checks) ? checks.length : 0;
  let tag;
  if (bad.length === 0 && excusedFailing.length) {
    xfail++;
    tag = `XFAIL (checks ${excusedFailing.join(', ')}: ${[...new Set(excusedFailing.map((id) => excused.get(id)))].join('; ')})`;
  } else if (bad.length === 0) {
    passed++;
    tag = 'PASS';
    if (expected.has(name)) { stale.push(name); tag = 'PASS (listed as expected failure: remove it)'; }
  } else if (notScored.has(name)) {
    unscored++;
    tag = `FAIL (not scored: ${notScored.get(name)})`;
  } else if (expected.has(name)) {
    xfail++;
    tag = `XFAIL (${expected.get(name) || 'expected'})`;
  } else {
    failed++;
    unexpected.push(name);
    tag = 'FAIL';
  }
  console.log(`[${run}] ${tag.padEnd(6)} ${name}  (${nOk}/${nAll} checks ok)`);
  if (bad.length && !tag.startsWith('PASS')) for (const b of bad.slice(0, 5)) console.log(`           - ${b}`);
}
if (names.length === 0) {
  console.log(`[${run}] no results found under ${dir}`);
  failed++;
  unexpected.push('(no results)');
}
const extra = [];
if (xfail) extra.push(`${xfail} expected failures`);
if (unscored) extra.push(`${unscored} not scored`);
console.log(`[${run}] ${passed} passed, ${failed} failed${extra.length ? ' (' + extra.join(', ') + ')' : ''}`);
if (stale.length) console.log(`[${run}] note: now passing, remove from expected failures: ${stale.join(', ')}`);
process.exit(unexpected.length ? 1 : 0);
