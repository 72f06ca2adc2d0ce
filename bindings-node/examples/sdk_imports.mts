// The TypeScript SDK's stdio quick-start with only the package name changed in its imports
// (`@modelcontextprotocol/sdk/server/mcp.js` -> `ferromcp/server/mcp.js`, ...).
import { McpServer, ResourceTemplate } from 'ferromcp/server/mcp.js';
import { StdioServerTransport } from 'ferromcp/server/stdio.js';
import { type CallToolResult, ErrorCode, isInitializeRequest, McpError } from 'ferromcp/types.js';

const server = new McpServer({ name: 'demo-server', version: '1.0.0' }, { capabilities: { logging: {} } });
server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
  async (args): Promise<CallToolResult> => {
    const { a, b } = args as { a: number; b: number };
    if (!Number.isFinite(a + b)) throw new McpError(ErrorCode.InvalidParams, 'not a number');
    return { content: [{ type: 'text', text: String(a + b) }] };
  },
);
server.registerResource('greeting', new ResourceTemplate('greeting://{name}', { list: undefined }), {}, async (uri, { name }) => ({
  contents: [{ uri: uri.href, text: `Hello, ${name}!` }],
}));
console.error('initialize?', isInitializeRequest({ method: 'ping' }));
await server.connect(new StdioServerTransport());
