/**
 * `ferromcp/server/stdio.js`: the TypeScript SDK's `@modelcontextprotocol/sdk/server/stdio.js`
 * import path: `await server.connect(new StdioServerTransport())` serves stdin/stdout.
 * @module
 */
export { StdioServerTransport } from '../../server';
