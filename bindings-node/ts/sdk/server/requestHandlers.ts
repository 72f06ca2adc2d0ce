/**
 * The TypeScript SDK's `setRequestHandler(ListToolsRequestSchema, ...)` & co. on an
 * {@link McpServer}, shared by the low-level `Server` (`ferromcp/server/index.js`) and
 * `mcpServer.server.setRequestHandler`. The engine keeps the lists itself, so a list handler is
 * asked when serving starts ({@link RequestHandlers.sync}) and again on `sendToolListChanged()`
 * & co.; every tool, prompt and resource it lists is registered with the engine, each answered
 * by the matching call handler (`tools/call`, `prompts/get`, `resources/read`) with the SDK's
 * `(request, extra)`. Handlers for other methods (tasks, `logging/setLevel`,
 * `completion/complete`, ...) are refused: the engine answers those.
 * @internal
 */
import type { RequestContext } from '../../context';
import { ErrorCode, McpError } from '../../errors';
import type { McpServer } from '../../server';
import { methodOf } from '../types';

/** A request handler as the SDK calls it. */
export type RequestHandler = (request: { method: string; params: Record<string, unknown> }, extra: RequestContext) => unknown;

const PAIRS: Record<string, string> = {
  'tools/list': 'tools/call',
  'prompts/list': 'prompts/get',
  'resources/list': 'resources/read',
};
const ACCEPTED = new Set([...Object.keys(PAIRS), ...Object.values(PAIRS)]);

/** The request handlers set on one server, and what their lists registered. */
export class RequestHandlers {
  readonly #mcp: McpServer;
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #registered: { remove(): void }[] = [];

  constructor(mcp: McpServer) {
    this.#mcp = mcp;
  }

  /** Whether any handler is set (serving then starts with {@link sync}). */
  get size(): number {
    return this.#handlers.size;
  }

  /** Handles `tools/list`, `tools/call`, `prompts/list`, `prompts/get`, `resources/list`, `resources/read`. */
  set(schema: unknown, handler: RequestHandler): void {
    const method = methodOf(schema);
    if (!ACCEPTED.has(method)) {
      throw new McpError(ErrorCode.InvalidParams, `ferromcp's engine answers ${method} itself; setRequestHandler takes handlers for ${[...ACCEPTED].join(', ')}`);
    }
    if (typeof handler !== 'function') throw new TypeError(`setRequestHandler(${method}): the handler must be a function`);
    this.#handlers.set(method, handler);
  }

  /** Forgets a handler. */
  remove(method: string): void {
    this.#handlers.delete(method);
  }

  async #call(method: string, params: Record<string, unknown>, extra: RequestContext): Promise<unknown> {
    const h = this.#handlers.get(method);
    if (!h) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    return h({ method, params }, extra);
  }

  /** Asks the list handlers and registers what they list with the engine (replacing the last). */
  async sync(): Promise<void> {
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
}
