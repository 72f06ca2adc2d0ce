#!/usr/bin/env node
// Official TypeScript SDK (@modelcontextprotocol/sdk) server exposing the interop surface
// of SURFACE.md.
// Usage: node ts_server.mjs --transport stdio
//        node ts_server.mjs --transport http --port N   (Streamable HTTP, http://127.0.0.1:N/mcp)
import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

function buildServer() {
  const server = new McpServer(
    { name: 'interop-ts-server', version: '1.0.0' },
    { capabilities: { logging: {} } }
  );
  let minLevel = 'debug';
  server.server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    minLevel = req.params.level;
    return {};
  });

  server.registerTool('echo', {
    description: 'Returns its text argument unchanged.',
    inputSchema: { text: z.string() }
  }, async ({ text: t }) => text(t));

  server.registerTool('add', {
    description: 'Adds two numbers.',
    inputSchema: { a: z.number(), b: z.number() }
  }, async ({ a, b }) => text(String(a + b)));

  server.registerTool('progress', {
    description: "Sends `steps` progress notifications (progress 1..steps of total steps), then returns 'done'.",
    inputSchema: { steps: z.number().int().min(0).default(3) }
  }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` }
        });
      }
      await sleep(10);
    }
    return text('done');
  });

  server.registerTool('log', {
    description: "Sends one notifications/message at `level` with `message` as data (logger 'interop'), then returns 'logged'.",
    inputSchema: {
      message: z.string().default('hello from log'),
      level: z.enum(LEVELS).default('info')
    }
  }, async ({ message, level }, extra) => {
    if (LEVELS.indexOf(level) >= LEVELS.indexOf(minLevel)) {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level, logger: 'interop', data: message }
      });
    }
    return text('logged');
  });

  server.registerTool('fail', {
    description: 'Always fails: a tool error result (isError true).',
    inputSchema: {}
  }, async () => ({ isError: true, content: [{ type: 'text', text: 'intentional failure' }] }));

  server.registerResource('greeting', 'mem://greeting',
    { description: 'A fixed greeting.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }] }));

  server.registerResource('item', new ResourceTemplate('mem://items/{id}', { list: undefined }),
    { description: 'Item by id.', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `item ${id}` }] }));

  server.registerPrompt('greet', {
    description: 'Greets someone by name.',
    argsSchema: { name: z.string() }
  }, async ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }]
  }));
  return server;
}

function parseArgs(argv) {
  const o = { transport: 'stdio', port: 8000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--transport') o.transport = argv[++i];
    else if (argv[i] === '--port') o.port = Number(argv[++i]);
    else { console.error(`ts_server: unknown argument ${argv[i]}`); process.exit(2); }
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
if (opts.transport === 'stdio') {
  await buildServer().connect(new StdioServerTransport());
} else if (opts.transport === 'http') {
  // Stateful Streamable HTTP: one McpServer + transport per session; SSE responses
  // (JSON-response mode would drop progress and log notifications).
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const sessions = new Map();
  app.post('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid || req.body?.method !== 'initialize') {
        res.status(sid ? 404 : 400).json({ jsonrpc: '2.0', id: null,
          error: { code: -32000, message: sid ? 'Session not found' : 'Missing session ID' } });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport)
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await buildServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  const byId = async (req, res) => {
    const transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) { res.status(404).send('Session not found'); return; }
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', byId);
  app.delete('/mcp', byId);
  const httpServer = app.listen(opts.port, '127.0.0.1', () => {
    console.error(`interop-ts-server on http://127.0.0.1:${opts.port}/mcp`);
  });
  const stop = () => { httpServer.close(); process.exit(0); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  console.error(`ts_server: unknown transport ${opts.transport}`);
  process.exit(2);
}
