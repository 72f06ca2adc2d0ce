// Handles and process lifetime: handlers never keep Node alive, close() leaves nothing open, a
// listening server does keep it alive. Each case runs in a child process and must exit on its
// own (the harness kills it after a deadline and fails the test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const esm = new URL('../esm/index.mjs', import.meta.url).href;
const fixture = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));

/** Runs `code` (an ES module body) in a fresh Node process; resolves with its exit code, or
 * 'timeout' when it was still running after `ms`. */
function run(code, ms = 8000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', `import * as f from ${JSON.stringify(esm)};\n${code}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'timeout', out });
    }, ms);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve({ code: c, out });
    });
  });
}

test('registering handlers keeps nothing alive', async () => {
  const r = await run(`const s = new f.McpServer({ name: 'x', version: '1' }); s.registerTool('t', {}, () => 'x'); console.log('ok');`);
  assert.deepEqual(r, { code: 0, out: 'ok\n' });
});

test('an in-process client: the process exits after close()', async () => {
  const r = await run(`
    const s = new f.McpServer({ name: 'x', version: '1' });
    s.registerTool('t', {}, async (ctx) => { await ctx.reportProgress(1); return 'x'; });
    const c = await f.Client.memory(s);
    console.log((await c.callTool({ name: 't' })).content[0].text);
    await c.close();`);
  assert.deepEqual(r, { code: 0, out: 'x\n' });
});

test('listen() keeps the process alive until close()', async () => {
  const r = await run(`
    const s = new f.McpServer({ name: 'x', version: '1' });
    const h = await s.listen({ port: 0 });
    const c = await f.Client.http(h.url);
    await c.ping();
    await c.close();
    setTimeout(async () => { await h.close(); console.log('closed'); }, 300);`);
  assert.deepEqual(r, { code: 0, out: 'closed\n' });
  const still = await run(`const s = new f.McpServer({ name: 'x', version: '1' }); await s.listen({ port: 0 }); console.log('up');`, 1500);
  assert.deepEqual(still, { code: 'timeout', out: 'up\n' }, 'a listening server keeps running');
});

test('a stdio client: the process exits after close(), and the server process is gone', async () => {
  const r = await run(`
    const c = await f.Client.stdio({ command: process.execPath, args: [${JSON.stringify(fixture)}] });
    const pid = Number((await c.callTool({ name: 'pid' })).content[0].text);
    await c.close();
    await new Promise((r) => setTimeout(r, 300));
    let alive = true; try { process.kill(pid, 0); } catch { alive = false; }
    console.log(alive ? 'child alive' : 'child gone');`);
  assert.deepEqual(r, { code: 0, out: 'child gone\n' });
});

test('a stdio server exits when its stdin closes', async () => {
  const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.resume();
  child.stdin.end();
  const code = await new Promise((resolve) => {
    const t = setTimeout(() => { child.kill('SIGKILL'); resolve('timeout'); }, 8000);
    child.on('exit', (c) => { clearTimeout(t); resolve(c); });
  });
  assert.equal(code, 0);
});

test('ESM and CommonJS entry points export the same API', async () => {
  const cjs = createRequire(import.meta.url)('../dist/index.js');
  const mod = await import('../esm/index.mjs');
  const names = (o) => Object.keys(o).filter((k) => k !== 'default' && k !== '__esModule').sort();
  assert.deepEqual(names(mod), names(cjs));
  assert.equal(mod.McpServer, cjs.McpServer);
});
