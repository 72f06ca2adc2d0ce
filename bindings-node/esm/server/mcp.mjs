// `ferromcp/server/mcp.js` as an ES module: the classes of the main entry point (one instance each).
export { completable, McpServer, ResourceTemplate } from '../index.mjs';
