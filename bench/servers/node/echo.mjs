// Echo server on the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2, McpServer),
// installed under tests/node_modules by scripts/setup-test-deps.
// Usage: node echo.mjs stdio | http PORT [stateful|stateless|json]
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(path.join(root, 'tests', 'package.json'));
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = require('zod');

function makeServer() {
  const server = new McpServer({ name: 'bench-ts', version: '0.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });
}

const [mode0, portArg, modeArg] = process.argv.slice(2);
if (!mode0 || mode0 === 'stdio') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const mode = modeArg || 'stateful';
  const enableJsonResponse = mode === 'json';
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      if (mode === 'stateful') {
        const sid = req.headers['mcp-session-id'];
        let transport = sid ? sessions.get(sid) : undefined;
        if (!transport) {
          if (sid || !body || body.method !== 'initialize') {
            res.writeHead(sid ? 404 : 400).end();
            return;
          }
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse,
            onsessioninitialized: (id) => sessions.set(id, transport),
          });
          transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
          await makeServer().connect(transport);
        }
        await transport.handleRequest(req, res, body);
      } else {
        const server = makeServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
        res.on('close', () => {
          transport.close();
          server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      }
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  httpServer.on('connection', (s) => s.setNoDelay(true));
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(Number(portArg), '127.0.0.1');
}
