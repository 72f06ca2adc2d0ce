// Tests of the published package's native addon loader (npm/loader.js, shipped as
// native/index.js): which addon it picks and what it says when none fits. Each case lays out a
// package the way npm installs it (node_modules/ferromcp/native/index.js beside
// node_modules/ferromcp-<platform>/) in a temporary folder, with stand-in addons (JavaScript
// modules named as the package's main), and runs it in a child process so that process.arch can
// be changed before the loader runs. Run: node --test bindings-node/npm/loader.test.mjs
// (tests/run-npm-loader.sh in scripts/test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LOADER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'loader.js');
const libc = process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl';
const KEY = process.platform === 'linux' ? `linux-${process.arch}-${libc}`
  : process.platform === 'win32' ? `win32-${process.arch}-msvc` : `${process.platform}-${process.arch}`;

/** A project with ferromcp@0.1.0 and, per entry of `platforms`, a platform package. */
function project(platforms = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferromcp-loader-'));
  const nm = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(nm, 'ferromcp', 'native'), { recursive: true });
  fs.writeFileSync(path.join(nm, 'ferromcp', 'package.json'), JSON.stringify({ name: 'ferromcp', version: '0.1.0' }));
  fs.copyFileSync(LOADER, path.join(nm, 'ferromcp', 'native', 'index.js'));
  for (const [key, { version, body }] of Object.entries(platforms)) {
    const p = path.join(nm, `ferromcp-${key}`);
    fs.mkdirSync(p);
    fs.writeFileSync(path.join(p, 'package.json'), JSON.stringify({ name: `ferromcp-${key}`, version, main: 'addon.js' }));
    fs.writeFileSync(path.join(p, 'addon.js'), body);
  }
  return dir;
}

/** Requires the loader in a child process (after `prelude`); returns { status, stdout, stderr }. */
function load(dir, { prelude = '', env = {} } = {}) {
  const script = `${prelude}\nconst b = require(${JSON.stringify(path.join(dir, 'node_modules/ferromcp/native/index.js'))});\nconsole.log(JSON.stringify(b));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, FERROMCP_NATIVE_ADDON: '', ...env } });
  fs.rmSync(dir, { recursive: true, force: true });
  return r;
}

test('loads the platform package of this machine when its version is the package version', () => {
  const r = load(project({ [KEY]: { version: '0.1.0', body: `module.exports = { which: '${KEY}' };` } }));
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { which: KEY });
});

test('a platform package of another version is refused, with both versions named', () => {
  const r = load(project({ [KEY]: { version: '0.0.9', body: 'module.exports = { stale: true };' } }));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, new RegExp(`package ferromcp-${KEY}: version 0\\.0\\.9, but ferromcp is 0\\.1\\.0`));
});

test('no platform package: the error names what was detected, what was looked for and what to do', () => {
  const r = load(project());
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /FERROMCP_NO_NATIVE_ADDON|no native addon could be loaded/);
  assert.match(r.stderr, new RegExp(`detected: platform ${process.platform}, arch ${process.arch}`));
  assert.match(r.stderr, new RegExp(`looked for: the package ferromcp-${KEY}`));
  assert.match(r.stderr, new RegExp(`package ferromcp-${KEY}: not installed`));
  if (['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc'].includes(KEY)) {
    assert.match(r.stderr, new RegExp(`npm install ferromcp-${KEY}@0\\.1\\.0`));
  }
  assert.match(r.stderr, /To build from source instead \(Rust from https:\/\/rustup\.rs/);
});

test('an architecture with no published package is told so, with the list of those that exist', () => {
  const r = load(project({ [KEY]: { version: '0.1.0', body: 'module.exports = {};' } }), {
    prelude: "Object.defineProperty(process, 'arch', { value: 'riscv64' });",
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /arch riscv64/);
  assert.match(r.stderr, /ferromcp-[a-z0-9]+-riscv64[-a-z]* \(not published\)/);
  assert.match(r.stderr, /Prebuilt addons exist for: linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, darwin-x64, darwin-arm64, win32-x64-msvc/);
});

test('FERROMCP_NATIVE_ADDON points the loader at a build of ones own', () => {
  const dir = project();
  const own = path.join(dir, 'own.js');
  fs.writeFileSync(own, "module.exports = { own: true };");
  const r = load(dir, { env: { FERROMCP_NATIVE_ADDON: own } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { own: true });
});

test('an addon beside the loader (a source build) comes before the platform package', () => {
  const dir = project({ [KEY]: { version: '0.1.0', body: "module.exports = { from: 'package' };" } });
  // A .node file is loaded by require() as a native module: stand in with a JS file of that name
  // through require.extensions, as only the name matters to the loader's choice.
  fs.writeFileSync(path.join(dir, 'node_modules/ferromcp/native', `ferromcp.${KEY}.node`), "module.exports = { from: 'local' };");
  const r = load(dir, { prelude: "require.extensions['.node'] = require.extensions['.js'];" });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { from: 'local' });
});
