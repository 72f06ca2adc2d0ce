/**
 * The TypeScript SDK's `setRequestHandler(ListToolsRequestSchema, ...)` & co. on an
 * {@link McpServer}, shared by the low-level `Server` (`ferromcp/server/index.js`) and
 * `mcpServer.server.setRequestHandler`. The engine keeps the lists itself, so a list handler is
 * asked when serving starts ({@link RequestHandlers.sync}) and again on `sendToolListChanged()`
 * & co.; every tool, prompt and resource it lists is registered with the engine, each answered
 * by the matching call handler (`tools/call`, `prompts/get`, `resources/read`) with the SDK's
 * `(request, extra)`.
 *
 * Tasks the app keeps itself (the SDK's low-level task pattern): with a handler for
 * `tasks/get` (and `tasks/result`, `tasks/list`, `tasks/cancel`), those methods go to the app's
 * handlers instead of the engine's task store, and so does a task-augmented `tools/call`
 * (params with `task`), whose answer is the app's `CreateTaskResult`; a task method it has no
 * handler for is answered -32601 (method not found). A middleware layer of
 * the server routes them ({@link RequestHandlers.taskLayer}, added when the first task handler
 * is set, so before serving starts); it also advertises the app's declared `tasks` capability
 * in the `initialize` answer. While a `tasks/result` handler runs, `server.elicitInput` and
 * `server.createMessage` reach the client on that request's stream, as with any handler.
 * Handlers for other methods (`logging/setLevel`, `completion/complete`, ...) are refused:
 * the engine answers those.
 * @internal
 */
import type { RequestContext } from '../../context';
import { ErrorCode, McpError } from '../../errors';
import type { MiddlewareContext, MiddlewareResult, NextFunction } from '../../middleware';
import type { RegistrationTarget } from '../../server_face';
import { methodOf } from '../types';

/** A request handler as the SDK calls it. */
export type RequestHandler = (request: { method: string; params: Record<string, unknown> }, extra: RequestContext) => unknown;

const PAIRS: Record<string, string> = {
  'tools/list': 'tools/call',
  'prompts/list': 'prompts/get',
  'resources/list': 'resources/read',
};
/** The task methods an app may answer itself (see the module's notes). */
const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
const ACCEPTED = new Set([...Object.keys(PAIRS), ...Object.values(PAIRS), ...TASK_METHODS]);

/** The `tasks` capability each app declared (`new Server(info, { capabilities: { tasks } })`). */
const declaredTasks = new WeakMap<RegistrationTarget, Record<string, unknown>>();

/** Records the `tasks` capability the app declared for `mcp` (advertised once it sets task handlers). */
export function declareTasks(mcp: RegistrationTarget, tasks: Record<string, unknown>): void {
  declaredTasks.set(mcp, tasks);
}

/** The request handlers set on one server, and what their lists registered. */
export class RequestHandlers {
  readonly #mcp: RegistrationTarget;
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #registered: { remove(): void }[] = [];
  #taskLayer = false;

  constructor(mcp: RegistrationTarget) {
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
    if (TASK_METHODS.has(method) && !this.#taskLayer) {
      try {
        this.#mcp.use(this.taskLayer);
      } catch (e) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `setRequestHandler(${method}): task handlers must be set before the server handles its first request (${(e as Error).message})`,
        );
      }
      this.#taskLayer = true;
    }
    this.#handlers.set(method, handler);
  }

  /**
   * The layer routing the app's own tasks (see the module's notes): `tasks/*` with an app
   * handler, and task-augmented `tools/call`, go to the app's handlers; `initialize` gets the
   * `tasks` capability the app's handlers serve; anything else goes on to the engine.
   */
  readonly taskLayer = async (ctx: MiddlewareContext, next: NextFunction): Promise<MiddlewareResult> => {
    const { method } = ctx;
    const params = ctx.params ?? {};
    // The app keeps the tasks: a task method it has no handler for is not found (the engine's
    // task store, empty here, is not asked).
    if (TASK_METHODS.has(method)) return (await this.#call(method, params, ctx.requestContext)) as MiddlewareResult;
    if (method === 'tools/call' && params.task !== undefined && params.task !== null && this.#handlers.has('tools/call')) {
      return (await this.#call(method, params, ctx.requestContext)) as MiddlewareResult;
    }
    const result = await next();
    if (method === 'initialize') {
      const caps = (result.capabilities ?? {}) as Record<string, unknown>;
      result.capabilities = { ...caps, tasks: declaredTasks.get(this.#mcp) ?? this.#servedTasks() };
    }
    return result;
  };

  /** The `tasks` capability the app's handlers serve, when it declared none. */
  #servedTasks(): Record<string, unknown> {
    const tasks: Record<string, unknown> = {};
    if (this.#handlers.has('tasks/list')) tasks.list = {};
    if (this.#handlers.has('tasks/cancel')) tasks.cancel = {};
    if (this.#handlers.has('tools/call')) tasks.requests = { tools: { call: {} } };
    return tasks;
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
