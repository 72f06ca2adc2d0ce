// A stdio MCP server with middleware: the engine's built-ins (error masking, timing lines on
// stderr, a rate limit of 3 tools/call per 10 s and session) and two layers of its own (admin_
// tools refused without the admin scope; results stamped). test/middleware.test.mjs runs it, and
// tests/examples/check.mjs with the official TypeScript SDK client, beside the same scenario in
// Rust, Python and Swift (examples/rust/src/middleware_server.rs, examples/python/
// middleware_server.py, examples/swift's MiddlewareServer).
// Run: tsc-compiled or with a TypeScript runner; `ferromcp` resolves to this package.
import { maskErrors, McpError, McpServer, type MiddlewareContext, type NextFunction, rateLimit, timing } from 'ferromcp';

const server = new McpServer(
  { name: 'middleware-demo', version: '1.0.0' },
  {
    middleware: [
      maskErrors(), // first: it masks what every later layer and handler answers
      timing((e) => console.error(`timing ${e.method}${e.tool ? ` ${e.tool}` : ''} ${e.outcome} ${e.durationMs.toFixed(2)} ms`)),
      rateLimit({ limit: 3, windowMs: 10_000, methods: ['tools/call'] }),
    ],
  },
);

// admin_ tools need a principal with the admin scope (never there on stdio).
server.use(async function adminOnly(ctx: MiddlewareContext, next: NextFunction) {
  if (ctx.tool?.startsWith('admin_') && !ctx.principal?.scopes.includes('admin')) {
    throw new McpError(-32003, 'Permission denied', { tool: ctx.tool });
  }
  return next();
});

// Every tool result says who served it.
server.use(async (ctx, next) => {
  const result = await next();
  if (ctx.method === 'tools/call') result._meta = { ...(result._meta ?? {}), servedBy: 'middleware-demo' };
  return result;
});

server.registerTool(
  'echo',
  { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ({ text }) => String(text),
);
server.registerTool('admin_reset', {}, () => 'reset done');
// A failure with details the client should not see: maskErrors answers "Internal error".
server.registerResource('secrets', 'mem://secrets', {}, () => {
  throw new Error('db at 10.0.0.7 refused user admin');
});

await server.connectStdio();
