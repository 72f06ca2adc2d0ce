// Summarises conformance results written with `conformance ... -o DIR`.
// Usage: node summarize.mjs --mode server|client --run LABEL --dir DIR
//          [--expected FILE] [--requirements YAML] [--override-dir DIR]
// Prints one line per scenario to stdout, then a closing "N passed, N failed" line.
// Exit status: 0 when every failing scenario is listed in the expected-failures file
// (or is not scored by the requirement set), 1 otherwise.
// A server scenario fails on any FAILURE check; a client scenario fails on any
// FAILURE or WARNING check (the CLI's own rule), or when it left no checks.
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

// expected-failures.txt: "scenario  # reason", optionally "LABEL:scenario" to limit to one run.
const expected = new Map();
if (expectedFile && fs.existsSync(expectedFile)) {
  for (const raw of fs.readFileSync(expectedFile, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const reason = (raw.split('#')[1] || '').trim();
    let name = line.split(/\s+/)[0];
    const m = /^([^:]+):(.+)$/.exec(name);
    if (m) {
      if (m[1] !== run) continue;
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

let passed = 0, failed = 0, xfail = 0, unscored = 0;
const unexpected = [], stale = [];
const names = [...results.keys()].sort();
for (const name of names) {
  const { checks } = results.get(name);
  let bad = [];
  if (!Array.isArray(checks) || checks.length === 0) bad = ['(no checks recorded)'];
  else {
    const failing = checks.filter((c) =>
      c.status === 'FAILURE' || (mode === 'client' && c.status === 'WARNING'));
    bad = failing.map((c) => `${c.id}: ${c.status}${c.errorMessage ? ' - ' + c.errorMessage : ''}`);
  }
  const nOk = Array.isArray(checks) ? checks.filter((c) => c.status === 'SUCCESS').length : 0;
  const nAll = Array.isArray(checks) ? checks.length : 0;
  let tag;
  if (bad.length === 0) {
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
