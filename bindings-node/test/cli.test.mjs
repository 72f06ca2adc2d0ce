// The `ferromcp` command of the npm package (bin/ferromcp.js, the engine's command run from the
// addon's cliMain): usage, list and call against a stdio server, errors and their exit statuses.
// Run from an installed package (scripts/check-release npm copies this folder into it), `../bin`
// is the installed launcher and `../native` the installed addon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkgFile = fileURLToPath(new URL('../package.json', import.meta.url));
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
const bin = fileURLToPath(new URL(`../${pkg.bin.ferromcp}`, import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));
// SERVER is one command line; the paths here have no quotes or spaces to escape.
const server = `${process.execPath} ${fixture}`;

function ferromcp(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('package.json declares the ferromcp command and the launcher is shipped', () => {
  assert.equal(pkg.bin.ferromcp, 'bin/ferromcp.js');
  assert.ok(pkg.files.includes('bin'));
});

test('--help prints the engine command usage, --version the package version', () => {
  const help = ferromcp('--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^ferromcp: a proxy in front of MCP servers/);
  assert.match(help.stdout, /ferromcp proxy --config mcp\.json --stdio/);
  assert.match(help.stdout, /ferromcp call SERVER TOOL/);
  const version = ferromcp('--version');
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout, `ferromcp ${pkg.version}\n`);
});

test('list prints the tools of a stdio server, readable and as JSON', () => {
  const r = ferromcp('list', server);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^echo\(text: string\)\n {4}Echoes text\n/m);
  assert.match(r.stdout, /^progress\(steps\?: number\)$/m);
  const j = ferromcp('list', server, '--json');
  assert.equal(j.status, 0, j.stderr);
  const names = JSON.parse(j.stdout).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['echo', 'fail', 'pid', 'progress', 'wait']);
});

test('call passes KEY=VALUE arguments, prints the text and shows progress on stderr', () => {
  const r = ferromcp('call', server, 'echo', 'text=hello there');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'hello there\n');
  const p = ferromcp('call', server, 'progress', 'steps=3');
  assert.equal(p.status, 0, p.stderr);
  assert.equal(p.stdout, 'done\n');
  assert.match(p.stderr, /^progress 1\/3: step 1$/m);
  assert.match(p.stderr, /^progress 3\/3: step 3$/m);
  const j = ferromcp('call', server, 'echo', '{"text":"x"}', '--json');
  assert.equal(j.status, 0, j.stderr);
  assert.deepEqual(JSON.parse(j.stdout).content, [{ type: 'text', text: 'x' }]);
});

test('a tool error exits 1, a usage error 2, an unreachable server 1 with the reason', () => {
  const fail = ferromcp('call', server, 'fail');
  assert.equal(fail.status, 1);
  assert.match(fail.stdout + fail.stderr, /nope/);
  const usage = ferromcp('call', server);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /TOOL is required/);
  const unknown = ferromcp('frobnicate');
  assert.equal(unknown.status, 2);
  const gone = ferromcp('list', '/nonexistent/mcp-server');
  assert.equal(gone.status, 1);
  assert.match(gone.stderr, /cannot connect to/);
});
