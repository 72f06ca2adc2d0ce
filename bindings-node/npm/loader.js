// The native addon loader of the published `ferromcp` package: scripts/release copies this file
// to the package's native/index.js (in place of the loader `napi build --js` generates for a
// source build), and `require('../native/index.js')` in the facade (ts/native.ts) runs it.
//
// It picks the addon for this process's platform, CPU and C library, in the napi-rs layout:
//   1. FERROMCP_NATIVE_ADDON=<path to a .node file>, when set (a build of one's own);
//   2. native/ferromcp.<platform>.node beside this file (a source build: napi build --platform);
//   3. the package ferromcp-<platform>, one of ferromcp's optionalDependencies (npm installs only
//      the one whose "os", "cpu" and "libc" fit), whose version must be ferromcp's own.
// When none loads it throws one Error that says what it detected, what it looked for, why each
// try failed, and what to do: reinstall with optional dependencies, or build from source.
'use strict';

const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Published platform packages: `ferromcp-<key>`, keyed as napi-rs names them. */
const PUBLISHED = {
  'linux-x64-gnu': 'x86_64-unknown-linux-gnu',
  'linux-arm64-gnu': 'aarch64-unknown-linux-gnu',
  'linux-x64-musl': 'x86_64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64-msvc': 'x86_64-pc-windows-msvc',
};

/** 'musl' or 'glibc' on Linux (null elsewhere), from Node's own report, then from ldd. */
function linuxLibc() {
  if (process.platform !== 'linux') return null;
  try {
    // excludeNetwork: no reverse DNS look-ups for the report's network section.
    process.report.excludeNetwork = true;
    const report = process.report.getReport();
    if (report.header && report.header.glibcVersionRuntime) return 'glibc';
    const shared = report.sharedObjects || [];
    if (shared.some((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))) return 'musl';
  } catch {
    // process.report may be unavailable (embedders): fall through to ldd.
  }
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'glibc';
  } catch {
    return 'glibc';
  }
}

/** The napi-rs platform key of this process: 'linux-x64-gnu', 'darwin-arm64', 'win32-x64-msvc', ... */
function platformKey(platform, arch, libc) {
  if (platform === 'linux') return `${platform}-${arch}-${libc === 'musl' ? 'musl' : 'gnu'}`;
  if (platform === 'win32') return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function ownVersion() {
  try {
    return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

function load() {
  const libc = linuxLibc();
  const key = platformKey(process.platform, process.arch, libc);
  const pkg = `ferromcp-${key}`;
  const local = join(__dirname, `ferromcp.${key}.node`);
  const version = ownVersion();
  const tried = [];

  const override = process.env.FERROMCP_NATIVE_ADDON;
  if (override) {
    try {
      return require(override);
    } catch (e) {
      tried.push(`FERROMCP_NATIVE_ADDON=${override}: ${e.message}`);
    }
  }
  if (existsSync(local)) {
    try {
      return require(local);
    } catch (e) {
      tried.push(`${local}: ${e.message}`);
    }
  } else {
    tried.push(`${local}: not there (only a source build puts it there)`);
  }
  let pkgVersion = null;
  try {
    pkgVersion = require(`${pkg}/package.json`).version;
  } catch (e) {
    tried.push(`package ${pkg}: not installed (${e.code || e.message})`);
  }
  if (pkgVersion !== null) {
    if (version !== null && pkgVersion !== version) {
      tried.push(`package ${pkg}: version ${pkgVersion}, but ferromcp is ${version} (they are released together)`);
    } else {
      try {
        return require(pkg);
      } catch (e) {
        tried.push(`package ${pkg}: ${e.message}`);
      }
    }
  }

  const published = Object.keys(PUBLISHED);
  const fits = published.includes(key);
  const lines = [
    `ferromcp: no native addon could be loaded for this platform.`,
    `  detected: platform ${process.platform}, arch ${process.arch}` +
      (libc ? `, libc ${libc}` : '') +
      `, Node ${process.version} (N-API ${process.versions.napi})`,
    `  looked for: the package ${pkg}${fits ? '' : ' (not published)'} and ${local}`,
    ...tried.map((t) => `  - ${t}`),
  ];
  if (fits) {
    lines.push(
      `  ${pkg} is published with every ferromcp release: npm installs it as an optional`,
      `  dependency. Reinstall without omitting optional dependencies (no --no-optional,`,
      `  --omit=optional or --ignore-optional; npm ci keeps what package-lock.json says, so a lock`,
      `  written on another platform can leave it out: delete node_modules and package-lock.json`,
      `  and run npm install again), or add it yourself: npm install ${pkg}@${version || 'VERSION'}`,
    );
  } else {
    lines.push(`  Prebuilt addons exist for: ${published.join(', ')}.`);
  }
  lines.push(
    `  To build from source instead (Rust from https://rustup.rs and Node >= 20): clone`,
    `  https://github.com/ferromcp/ferromcp, run bindings-node/scripts/build.sh, and install`,
    `  that folder (npm install /path/to/ferromcp/bindings-node), or point FERROMCP_NATIVE_ADDON`,
    `  at the .node file the build wrote to bindings-node/native/.`,
  );
  const err = new Error(lines.join('\n'));
  err.code = 'FERROMCP_NO_NATIVE_ADDON';
  throw err;
}

module.exports = load();
