/**
 * `ferromcp/server/mcp.js`: the TypeScript SDK's `@modelcontextprotocol/sdk/server/mcp.js`
 * import path, so a ported server changes only the package name in its imports. The same
 * classes as the `ferromcp` entry point.
 * @module
 */
export { completable, McpServer, ResourceTemplate } from '../../server';
export type {
  CompleteCallback,
  PromptConfig,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  Registered,
  ResourceMetadata,
  ServerCapabilities,
  ServerInfo,
  ServerOptions,
  ToolCallback,
  ToolConfig,
} from '../../server';
