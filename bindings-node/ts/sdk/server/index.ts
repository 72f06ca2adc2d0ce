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
 * (tasks, `logging/setLevel`, `completion/complete`, ...) are refused: the engine answers those.
 * @module
 */
import type { RequestContext } from '../../context';
import { ErrorCode, McpError } from '../../errors';
import { type AttachableTransport, McpServer, type McpServerCore, type ServerOptions, StdioServerTransport } from '../../server';
import type { Implementation } from '../../types';
import { methodOf } from '../types';

type Handler = (request: { method: string; params: Record<string, unknown> }, extra: RequestContext) => unknown;

const PAIRS: Record<string, string> = {
  'tools/list': 'tools/call',
  'prompts/list': 'prompts/get',
  'resources/list': 'resources/read',
};
const ACCEPTED = new Set([...Object.keys(PAIRS), ...Object.values(PAIRS)]);

/** The SDK's low-level `Server` on ferromcp's engine (see the module's notes). */
export class Server {
  readonly #mcp: McpServer;
  readonly #handlers = new Map<string, Handler>();
  readonly #registered: { remove(): void }[] = [];

  constructor(info: Implementation, options: ServerOptions & { capabilities?: Record<string, unknown> } = {}) {
    const { capabilities, ...rest } = options;
    const caps: Record<string, unknown> = {};
    for (const k of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      if (capabilities?.[k] !== undefined) caps[k] = capabilities[k];
    }
    this.#mcp = new McpServer(info, { ...rest, capabilities: caps } as ServerOptions);
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

  /** Handles `tools/list`, `tools/call`, `prompts/list`, `prompts/get`, `resources/list`, `resources/read`. */
  setRequestHandler(schema: unknown, handler: Handler): void {
    const method = methodOf(schema);
    if (!ACCEPTED.has(method)) {
      throw new McpError(ErrorCode.InvalidParams, `ferromcp's engine answers ${method} itself; the low-level Server takes handlers for ${[...ACCEPTED].join(', ')}`);
    }
    this.#handlers.set(method, handler);
  }

  /** Forgets a handler. */
  removeRequestHandler(method: string): void {
    this.#handlers.delete(method);
  }

  async #call(method: string, params: Record<string, unknown>, extra: RequestContext): Promise<unknown> {
    const h = this.#handlers.get(method);
    if (!h) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    return h({ method, params }, extra);
  }

  /** Asks the list handlers and registers what they list with the engine. */
  async #sync(): Promise<void> {
    for (const r of this.#registered.splice(0)) r.remove();
    const none = undefined as unknown as RequestContext;
    const list = async (method: string, key: string): Promise<Record<string, unknown>[]> => {
      if (!this.#handlers.has(method)) return [];
      const r = (await this.#call(method, {}, none)) as Record<string, Record<string, unknown>[]>;
      return r?.[key] ?? [];
    };
    for (const tool of await list('tools/list', 'tools')) {
      const { name, inputSchema, outputSchema, ...config } = tool as { name: string; inputSchema?: object; outputSchema?: object };
      this.#registered.push(
        this.#mcp.registerTool(
          name,
          { ...config, inputSchema: (inputSchema ?? { type: 'object' }) as never, ...(outputSchema ? { outputSchema: outputSchema as never } : {}) },
          ((args: Record<string, unknown>, extra: RequestContext) =>
            this.#call('tools/call', { name, arguments: args ?? {} }, extra)) as never,
        ),
      );
    }
    for (const prompt of await list('prompts/list', 'prompts')) {
      const { name, arguments: args, ...config } = prompt as { name: string; arguments?: { name: string; description?: string; required?: boolean }[] };
      const properties: Record<string, unknown> = {};
      for (const a of args ?? []) properties[a.name] = { type: 'string', ...(a.description ? { description: a.description } : {}) };
      const required = (args ?? []).filter((a) => a.required).map((a) => a.name);
      this.#registered.push(
        this.#mcp.registerPrompt(name, { ...config, ...(args ? { argsSchema: { type: 'object', properties, required } } : {}) }, (a, extra) =>
          this.#call('prompts/get', { name, arguments: a }, extra) as never,
        ),
      );
    }
    for (const resource of await list('resources/list', 'resources')) {
      const { name, uri, ...metadata } = resource as { name: string; uri: string };
      this.#registered.push(
        this.#mcp.registerResource(name, uri, metadata, (u, extra) => this.#call('resources/read', { uri: u.href }, extra) as never),
      );
    }
  }

  /** Registers what the list handlers list, then serves `transport` (as `McpServer.connect`). */
  async connect(transport: StdioServerTransport | AttachableTransport): Promise<void> {
    await this.#sync();
    await this.#mcp.connect(transport);
  }

  /** Asks the tools list handler again (the engine tells clients what changed). */
  async sendToolListChanged(): Promise<void> {
    await this.#sync();
  }

  /** Asks the resources list handler again. */
  async sendResourceListChanged(): Promise<void> {
    await this.#sync();
  }

  /** Asks the prompts list handler again. */
  async sendPromptListChanged(): Promise<void> {
    await this.#sync();
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
