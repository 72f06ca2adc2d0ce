// `npm install` hook: makes sure the native addon and the compiled facade are there.
//  - Installed from the registry or a tarball (`npm pack`): the addon comes prebuilt, in native/
//    or as the `ferromcp-<platform>` optional package the loader finds; nothing to do.
//  - Installed from a checkout (`npm install ./bindings-node`): builds from source with the
//    package's pinned tools (npm ci, napi build --release, tsc); needs Rust (cargo).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const say = (m) => console.error(`ferromcp: ${m}`);

function ready() {
  if (!existsSync(join(root, 'dist', 'index.js'))) return false;
  try {
    require(join(root, 'native', 'index.js'));
    return true;
  } catch {
    return false;
  }
}

if (process.env.FERROMCP_SKIP_INSTALL === '1' || ready()) process.exit(0);

if (!existsSync(join(root, 'src', 'lib.rs')) || !existsSync(join(root, '..', 'core', 'Cargo.toml'))) {
  say(`no prebuilt addon for ${process.platform}-${process.arch}, and no source checkout to build one from.`);
  say('Install from a platform that has a prebuilt package, or install from a clone of the repository with Rust installed.');
  process.exit(1);
}
if (spawnSync('cargo', ['--version'], { stdio: 'ignore' }).status !== 0) {
  say('building from source needs Rust: install it from https://rustup.rs and run npm install again.');
  process.exit(1);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
say('building the native addon and the TypeScript facade from source (a few minutes the first time)');
if (!existsSync(join(root, 'node_modules', '@napi-rs', 'cli')) || !existsSync(join(root, 'node_modules', 'typescript'))) {
  run(npm, ['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
}
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
run(bin('napi'), ['build', '--platform', '--release', '--strip', '--output-dir', 'native', '--js', 'index.js', '--dts', 'index.d.ts']);
run(bin('tsc'), ['-p', 'tsconfig.json']);
if (!ready()) {
  say('the build finished but the addon does not load; see the output above.');
  process.exit(1);
}
