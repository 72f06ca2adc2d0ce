/**
 * `ferromcp/server/index.js`: the TypeScript SDK's low-level `Server`
 * (`setRequestHandler(ListToolsRequestSchema, ...)`, `setRequestHandler(CallToolRequestSchema, ...)`,
 * ...) over an {@link McpServer}, whose engine answers the protocol.
 *
 * The engine keeps the lists itself, so a list handler is asked once, when `connect` is called,
 * and every tool, prompt and resource it lists is registered with the engine, each answered by
 * the matching call handler (`tools/call`, `prompts/get`, `resources/read`) with the SDK's
 * `(request, extra)`. A list that changes later is not seen: call `sendToolListChanged()`
 * (and the like) after a change, which asks the list handler again. Handlers for other methods
 * (`logging/setLevel`, `completion/complete`, ...) are refused: the engine answers those. Handlers
 * for `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` make the tasks the app's own
 * (the SDK's low-level task pattern): those methods and task-augmented `tools/call` go to its
 * handlers, and the declared `capabilities.tasks` is advertised (see `requestHandlers.ts`).
 * @module
 */
import { type AttachableTransport, McpServer, type McpServerCore, type ServerOptions, StdioServerTransport } from '../../server';
import type { Middleware } from '../../middleware';
import type { Implementation } from '../../types';
import { declareTasks, type RequestHandler } from './requestHandlers';

/** The SDK's low-level `Server` on ferromcp's engine (see the module's notes). */
export class Server {
  readonly #mcp: McpServer;

  constructor(info: Implementation, options: ServerOptions & { capabilities?: Record<string, unknown> } = {}) {
    const { capabilities, ...rest } = options;
    const caps: Record<string, unknown> = {};
    for (const k of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      if (capabilities?.[k] !== undefined) caps[k] = capabilities[k];
    }
    this.#mcp = new McpServer(info, { ...rest, capabilities: caps } as ServerOptions);
    const tasks = capabilities?.tasks;
    if (typeof tasks === 'object' && tasks !== null) declareTasks(this.#mcp, tasks as Record<string, unknown>);
  }

  /** Adds middleware around every request ({@link McpServer.use}): functions `(ctx, next) => ...`
   * and the built-ins (`rateLimit()`, `requestLog()`, `maskErrors()`, `timing()`). */
  use(...layers: Middleware[]): this {
    this.#mcp.use(...layers);
    return this;
  }

  /** The engine-backed server underneath. */
  get mcpServer(): McpServer {
    return this.#mcp;
  }

  /** `onclose`, `createMessage`, `elicitInput`, ... as `mcpServer.server` has them. */
  get #core(): McpServerCore {
    return this.#mcp.server;
  }

  set onclose(f: (() => void) | undefined) {
    this.#core.onclose = f;
  }

  get onclose(): (() => void) | undefined {
    return this.#core.onclose;
  }

  /** Handles `tools/list`, `tools/call`, `prompts/list`, `prompts/get`, `resources/list`,
   * `resources/read`, and the app's own tasks (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`). */
  setRequestHandler(schema: unknown, handler: RequestHandler): void {
    this.#core.setRequestHandler(schema, handler);
  }

  /** Forgets a handler. */
  removeRequestHandler(method: string): void {
    this.#core.removeRequestHandler(method);
  }

  /** Registers what the list handlers list, then serves `transport` (as `McpServer.connect`). */
  async connect(transport: StdioServerTransport | AttachableTransport): Promise<void> {
    await this.#mcp.connect(transport);
  }

  /** Asks the tools list handler again (the engine tells clients what changed). */
  async sendToolListChanged(): Promise<void> {
    await this.#core.sendToolListChanged();
  }

  /** Asks the resources list handler again. */
  async sendResourceListChanged(): Promise<void> {
    await this.#core.sendResourceListChanged();
  }

  /** Asks the prompts list handler again. */
  async sendPromptListChanged(): Promise<void> {
    await this.#core.sendPromptListChanged();
  }

  /** `sampling/createMessage` to the client of the running handler. */
  createMessage(...args: Parameters<McpServerCore['createMessage']>): ReturnType<McpServerCore['createMessage']> {
    return this.#core.createMessage(...args);
  }

  /** `elicitation/create` to the client of the running handler. */
  elicitInput(...args: Parameters<McpServerCore['elicitInput']>): ReturnType<McpServerCore['elicitInput']> {
    return this.#core.elicitInput(...args);
  }

  /** {@link McpServer.sendLoggingMessage}. */
  sendLoggingMessage(...args: Parameters<McpServer['sendLoggingMessage']>): Promise<void> {
    return this.#mcp.sendLoggingMessage(...args);
  }

  /** Stops serving. */
  close(): Promise<void> {
    return this.#mcp.close();
  }
}
