/**
 * What the SDK layers below `server.ts` (`sdk/server/requestHandlers.ts`,
 * `sdk/experimental/tasks/mcpServer.ts`) use of the {@link McpServer} they extend, as a
 * structural type: they take any value with these members, so they never import `server.ts`,
 * which imports them (issue 35: no import circle, type-only ones included;
 * `test/import_cycles.test.mjs` checks it). `McpServer` is the one implementation; `tsc` checks
 * that it fits wherever `server.ts` passes itself.
 * @module
 */
import type { RequestContext } from './context';
import type { Middleware } from './middleware';
import type { SchemaInput } from './schema';
import type {
  PromptConfig,
  PromptResult,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  Registered,
  ResourceMetadata,
  ResourceTemplate,
  ToolCallback,
  ToolConfig,
} from './server_registration';

/** The registration surface of an {@link McpServer} that the SDK's request-handler and task
 * layers build on: `use` and the three `register*` methods, with `McpServer`'s signatures. */
export interface RegistrationTarget {
  use(...layers: Middleware[]): unknown;
  registerTool<In extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<In>,
    handler: ToolCallback<In>,
  ): Registered;
  registerResource(name: string, uri: string, metadata: ResourceMetadata, read: ReadResourceCallback): Registered;
  registerResource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    read: ReadResourceTemplateCallback,
  ): Registered;
  registerPrompt(
    name: string,
    config: PromptConfig,
    handler: (args: Record<string, string>, ctx: RequestContext) => PromptResult | Promise<PromptResult>,
  ): Registered;
}
