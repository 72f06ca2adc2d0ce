// Shared helpers of the node:test suite.
import { createServer } from 'node:net';
import { McpServer } from '../esm/index.mjs';

/** A server with a few tools, resources and prompts for in-process tests. */
export function demoServer() {
  const server = new McpServer({ name: 'demo', version: '1.0.0', title: 'Demo' }, { instructions: 'be nice' });
  server.registerTool(
    'add',
    { title: 'Add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    ({ a, b }) => String(a + b),
  );
  return server;
}

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond()` is true (polling), failing after `ms`. */
export async function until(cond, ms = 5000, what = 'condition') {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A TCP port free on 127.0.0.1 a moment ago (bound, read, released). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
