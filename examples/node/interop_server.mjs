// The interop server on ferromcp's Node API: the fixed surface of tests/interop/SURFACE.md
// (tools echo, add, progress, log, fail; resource mem://greeting; template mem://items/{id};
// prompt greet), like examples/python/interop_server.py.
//
//   node interop_server.mjs [--transport stdio|http] [--port N]
import { parseArgs } from 'node:util';
import { McpServer, ResourceTemplate } from '../../bindings-node/esm/index.mjs';

const server = new McpServer({ name: 'interop-node-ferromcp-server', version: '1.0.0' });
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

server.registerTool(
  'echo',
  { description: 'Echoes the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ({ text }) => text,
);
server.registerTool(
  'add',
  { description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  ({ a, b }) => String(a + b), // JavaScript writes numbers in shortest form: 2.5, 3
);
server.registerTool(
  'progress',
  { description: 'Reports progress steps', inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 0, default: 3 } } } },
  async ({ steps = 3 }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await ctx.reportProgress(i, steps, `step ${i} of ${steps}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return 'done';
  },
);
server.registerTool(
  'log',
  {
    description: 'Sends one log message',
    inputSchema: { type: 'object', properties: { message: { type: 'string', default: 'hello from log' }, level: { type: 'string', enum: LEVELS, default: 'info' } } },
  },
  async ({ message = 'hello from log', level = 'info' }, ctx) => {
    await ctx.log(level, message, 'interop');
    return 'logged';
  },
);
server.registerTool('fail', { description: 'Always fails with a tool error', inputSchema: { type: 'object', properties: {} } }, () => {
  throw new Error('intentional failure');
});
server.registerResource('greeting', 'mem://greeting', { mimeType: 'text/plain' }, () => 'hello');
server.registerResource('item', new ResourceTemplate('mem://items/{id}', { list: undefined }), { mimeType: 'text/plain' }, (_uri, { id }) => `item ${id}`);
server.registerPrompt(
  'greet',
  { description: 'Greets someone', argsSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  ({ name }) => `Hello, ${name}!`,
);

const { values } = parseArgs({ options: { transport: { type: 'string', default: 'stdio' }, port: { type: 'string', default: '3000' } } });
if (values.transport === 'stdio') {
  await server.connectStdio();
} else if (values.transport === 'http') {
  const http = await server.listen({ host: '127.0.0.1', port: Number(values.port) });
  console.error(`interop-server (node): serving MCP at ${http.url}`);
  const stop = () => void http.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  console.error(`unknown transport ${values.transport} (use stdio or http)`);
  process.exit(2);
}
