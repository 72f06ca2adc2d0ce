// Echo server on ferromcp's Node binding (a JavaScript handler), with the interface of the
// other bench servers, written the way bindings-node/README.md tells users to write servers.
//
//   node echo_server.mjs stdio | http PORT [stateful|stateless|json]
//
// FERROMCP_BENCH_JS_MIDDLEWARE=N adds N pass-through JavaScript middleware layers
// (`async (ctx, next) => next()`), for bench/middleware_cost.mjs (default 0: none).
// FERROMCP_BENCH_HANDLER=official writes the handler the way the official TypeScript SDK's
// examples do, an `async` function returning `{ content: [...] }` (the row "Node handler,
// official-example form"); unset, a plain function returning the text.
import { McpServer } from '../esm/index.mjs';

const server = new McpServer({ name: 'bench-ferromcp-node', version: '1.0.0' });
for (let i = Number(process.env.FERROMCP_BENCH_JS_MIDDLEWARE ?? 0); i > 0; i--) {
  server.use(async (_ctx, next) => next());
}
server.registerTool(
  'echo',
  { description: 'Echoes the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  process.env.FERROMCP_BENCH_HANDLER === 'official'
    ? async ({ text }) => ({ content: [{ type: 'text', text }] })
    : ({ text }) => text,
);
if (!['', 'official'].includes(process.env.FERROMCP_BENCH_HANDLER ?? '')) {
  console.error(`FERROMCP_BENCH_HANDLER must be official or unset, not ${process.env.FERROMCP_BENCH_HANDLER}`);
  process.exit(2);
}

const [mode = 'stdio', port, flavour = 'stateful'] = process.argv.slice(2);
if (mode === 'stdio') {
  await server.connectStdio();
} else {
  const http = await server.listen({
    host: '127.0.0.1',
    port: Number(port),
    stateless: flavour !== 'stateful',
    jsonResponse: flavour === 'json',
  });
  process.on('SIGTERM', () => void http.close().then(() => process.exit(0)));
}
