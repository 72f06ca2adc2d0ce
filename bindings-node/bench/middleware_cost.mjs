// What one JavaScript middleware layer costs per call over stdio: the echo server
// (echo_server.mjs) with 0 and with N pass-through layers (FERROMCP_BENCH_JS_MIDDLEWARE),
// driven by this package's client, in alternating rounds of the same run. Per configuration:
// the median over rounds of the sequential calls' wall time per call, of the server process's
// CPU time per call (utime + stime from /proc/PID/stat, Linux), and of pipelined throughput
// (64 calls in flight).
//
//   node bench/middleware_cost.mjs [--calls 20000] [--rounds 5] [--layers 1]
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../esm/index.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('calls', 20000);
const ROUNDS = arg('rounds', 5);
const LAYERS = arg('layers', 1);
const server = fileURLToPath(new URL('./echo_server.mjs', import.meta.url));
const TICK_US = 1e6 / 100; // USER_HZ

const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round(layers) {
  const dir = mkdtempSync(join(tmpdir(), 'ferromcp-mwbench-'));
  const pidFile = join(dir, 'pid');
  const c = await Client.stdio({
    command: '/bin/sh',
    args: ['-c', 'echo $$ > "$0"; exec "$1" "$2" stdio', pidFile, process.execPath, server],
    env: { FERROMCP_BENCH_JS_MIDDLEWARE: String(layers) },
  });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const call = () => c.callTool({ name: 'echo', arguments: { text: 'hello' } });
  for (let i = 0; i < 1000; i++) await call(); // warm-up
  const cpu0 = cpuTicks(pid);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call();
  const wall = Number(process.hrtime.bigint() - t0) / 1e3 / CALLS;
  const cpu = ((cpuTicks(pid) - cpu0) * TICK_US) / CALLS;
  let next = 0;
  const t1 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (next++ < CALLS) await call();
  }));
  const rate = CALLS / (Number(process.hrtime.bigint() - t1) / 1e9);
  await c.close();
  rmSync(dir, { recursive: true, force: true });
  return { wall, cpu, rate };
}

const results = { 0: [], [LAYERS]: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const layers of r % 2 ? [LAYERS, 0] : [0, LAYERS]) results[layers].push(await round(layers));
}
const summary = (layers) => ({
  wall: median(results[layers].map((x) => x.wall)),
  cpu: median(results[layers].map((x) => x.cpu)),
  rate: median(results[layers].map((x) => x.rate)),
});
const base = summary(0);
const mw = summary(LAYERS);
console.log(`stdio, ${CALLS} calls x ${ROUNDS} rounds per configuration (medians), node ${process.version}`);
console.log(`JS layers  sequential µs/call  server CPU µs/call  pipelined (64) calls/s`);
for (const [n, s] of [[0, base], [LAYERS, mw]]) {
  console.log(`${String(n).padStart(9)}  ${s.wall.toFixed(1).padStart(18)}  ${s.cpu.toFixed(1).padStart(18)}  ${Math.round(s.rate).toString().padStart(22)}`);
}
console.log(`difference: +${(mw.wall - base.wall).toFixed(1)} µs wall and +${(mw.cpu - base.cpu).toFixed(1)} µs server CPU per sequential call, ` +
  `pipelined ${((mw.rate / base.rate - 1) * 100).toFixed(1)}%`);
