// A Streamable HTTP MCP server on port 3000 (JSON Schema input, no schema library needed).
import { McpServer, McpError, ErrorCode } from 'ferromcp';

// The TypeScript SDK's constructor shape: serverInfo, then ServerOptions.
const server = new McpServer({ name: 'calc', version: '1.0.0' }, { capabilities: { logging: {}, tools: {} } });
server.registerTool(
  'divide',
  { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  (args) => {
    const { a, b } = args as { a: number; b: number };
    if (b === 0) throw new McpError(ErrorCode.InvalidParams, 'division by zero');
    return String(a / b);
  },
);
const http = await server.listen({ port: 3000 });
console.error(`serving MCP at ${http.url}`);
process.on('SIGINT', () => void http.close());
