#!/usr/bin/env node
// The `ferromcp` command of the npm package: the engine's own command (the Rust crate
// ferromcp-cli), compiled into the native addon as `cliMain(argv) -> exit status` and run in this
// process, so `npm install ferromcp` (or `npx ferromcp`) gives the same command as the Python
// package and the Rust binary, without a second binary in each platform package.
//
//   ferromcp proxy --config mcp.json --stdio | --port N [HTTP options]
//   ferromcp list|call|read|prompt|inspect SERVER ...      (ferromcp --help: the whole usage)
//
// Only the addon's loader is required (not the facade), and process.stdout/stderr are never
// touched here: the command writes to file descriptors 1 and 2 itself, which Node would
// otherwise switch to non-blocking mode.
'use strict';

let native;
try {
  native = require('../native/index.js');
} catch (e) {
  // The loader's error says what it looked for and what to do (FERROMCP_NO_NATIVE_ADDON).
  require('node:fs').writeSync(2, `ferromcp: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
}
process.exit(native.cliMain(process.argv.slice(2)));
