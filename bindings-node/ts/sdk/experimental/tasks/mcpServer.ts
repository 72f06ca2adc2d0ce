/**
 * The TypeScript SDK's experimental server task API on {@link McpServer}: a server made with a
 * `taskStore` (`new McpServer(info, { taskStore, capabilities: { tasks } })`) registers tools
 * whose task-augmented calls the app answers itself
 * (`server.experimental.tasks.registerToolTask(name, config, { createTask, getTask,
 * getTaskResult })`), and serves `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`
 * from that store.
 *
 * ferromcp's own task tools (`registerTool` with `execution.taskSupport`) keep their tasks in
 * the engine; this is the SDK's shape, where the app's store holds them. A middleware layer of
 * the server (added with the first `registerToolTask`, so before serving starts) routes:
 * - a `tools/call` with `task` in its params, for a tool registered here: its arguments are
 *   checked with the tool's schema (a zod shape's defaults applied, as the SDK does), then
 *   `createTask(args, extra)` answers, with `extra.taskStore` (the store, bound to the
 *   request's session) and `extra.taskRequestedTtl`;
 * - `tasks/get`, `tasks/list`, `tasks/cancel` from the store (a task of another session is not
 *   found); `tasks/result` waits until the task ends, then answers its stored result with the
 *   related-task `_meta`;
 * - `initialize`: the declared `capabilities.tasks` is advertised.
 * A call of such a tool without `task` (allowed with `taskSupport: 'optional'`) creates the task
 * and waits for it through the handler's `getTask`/`getTaskResult`, answering its result.
 * The `taskMessageQueue` option is accepted and not used: requests a task makes reach the
 * client directly (`elicitInputStream` & co., see `McpServerCore.experimental`).
 * @internal
 * @module
 */
import type { RequestContext } from '../../../context';
import { ErrorCode, McpError } from '../../../errors';
import type { MiddlewareContext, MiddlewareResult, NextFunction } from '../../../middleware';
import type { RegistrationTarget } from '../../../server_face';
import type { Registered } from '../../../server_registration';
import { RELATED_TASK_META_KEY } from '../../types';
import { isTerminal, type Task, type TaskStore } from './interfaces';

/** The store as a task handler sees it: bound to the request's session (the SDK's `RequestTaskStore`). */
export interface RequestTaskStore {
  createTask(options: { ttl?: number | null; pollInterval?: number; [key: string]: unknown }): Promise<Task>;
  getTask(taskId: string): Promise<Task | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: unknown): Promise<void>;
  getTaskResult(taskId: string): Promise<unknown>;
  updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void>;
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
}

/** What a task handler's callbacks get besides the arguments: the request's context plus the store. */
export type TaskRequestExtra = RequestContext & { taskStore: RequestTaskStore; taskRequestedTtl: number | null | undefined; taskId?: string };

/** The SDK's `ToolTaskHandler`: creates the task, and reads it back for calls made without `task`. */
export interface ToolTaskHandler {
  createTask(...args: unknown[]): unknown;
  getTask(...args: unknown[]): unknown;
  getTaskResult(...args: unknown[]): unknown;
}

/** A tool's config for {@link ExperimentalMcpServerTasks.registerToolTask} (as `registerTool`'s). */
export interface ToolTaskConfig {
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  execution?: { taskSupport?: 'optional' | 'required' | 'forbidden' };
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

interface StandardSchema {
  '~standard': { validate(value: unknown): { value?: unknown; issues?: readonly { message: string; path?: readonly unknown[] }[] } | Promise<unknown> };
}

const isStandard = (v: unknown): v is StandardSchema =>
  typeof v === 'object' && v !== null && typeof (v as { '~standard'?: { validate?: unknown } })['~standard']?.validate === 'function';

/** Checks `args` with the tool's schema: a Standard Schema, or a shape of them (defaults applied); JSON Schema passes through. */
async function parseArgs(tool: string, schema: unknown, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const fail = (issues: readonly { message: string; path?: readonly unknown[] }[], at?: string) =>
    new McpError(
      ErrorCode.InvalidParams,
      `Invalid arguments for tool ${tool}: ${issues.map((i) => `${[at, ...(i.path ?? []).map(String)].filter(Boolean).join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  const check = async (s: StandardSchema, v: unknown, at?: string) => {
    const r = (await s['~standard'].validate(v)) as { value?: unknown; issues?: readonly { message: string; path?: readonly unknown[] }[] };
    if (r.issues) throw fail(r.issues, at);
    return r.value;
  };
  if (isStandard(schema)) return (await check(schema, args)) as Record<string, unknown>;
  if (typeof schema === 'object' && schema !== null && Object.values(schema).length > 0 && Object.values(schema).every(isStandard)) {
    const out: Record<string, unknown> = { ...args };
    for (const [k, s] of Object.entries(schema as Record<string, StandardSchema>)) {
      const v = await check(s, args[k], k);
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    return out;
  }
  return args;
}

/** `server.experimental.tasks` of an {@link McpServer} (see the module's notes). */
export class ExperimentalMcpServerTasks {
  readonly #mcp: RegistrationTarget;
  readonly #store: TaskStore | undefined;
  readonly #declared: Record<string, unknown> | undefined;
  readonly #tools = new Map<string, { config: ToolTaskConfig; handler: ToolTaskHandler }>();
  #layer = false;

  /** @internal */
  constructor(mcp: RegistrationTarget, store: TaskStore | undefined, declared: Record<string, unknown> | undefined) {
    for (const k of ['createTask', 'getTask', 'storeTaskResult', 'getTaskResult', 'updateTaskStatus', 'listTasks'] as const) {
      if (store !== undefined && typeof store?.[k] !== 'function') throw new TypeError(`McpServer: taskStore.${k} must be a function (a TaskStore, e.g. InMemoryTaskStore)`);
    }
    this.#mcp = mcp;
    this.#store = store;
    this.#declared = declared;
  }

  #requireStore(what: string): TaskStore {
    if (!this.#store) throw new TypeError(`${what}: this server has no task store (new McpServer(info, { taskStore }))`);
    return this.#store;
  }

  /**
   * Registers a tool whose task-augmented calls `handler.createTask(args, extra)` answers
   * (`taskSupport` `'required'` unless the config says `'optional'`).
   */
  registerToolTask(name: string, config: ToolTaskConfig, handler: ToolTaskHandler): Registered {
    this.#requireStore('registerToolTask');
    const taskSupport = config.execution?.taskSupport ?? 'required';
    if (taskSupport === 'forbidden') throw new TypeError(`registerToolTask(${name}): execution.taskSupport 'forbidden' makes no task tool`);
    for (const k of ['createTask', 'getTask', 'getTaskResult'] as const) {
      if (typeof handler?.[k] !== 'function') throw new TypeError(`registerToolTask(${name}): handler.${k} must be a function`);
    }
    if (!this.#layer) {
      try {
        this.#mcp.use(this.#route);
      } catch (e) {
        throw new McpError(ErrorCode.InvalidRequest, `registerToolTask(${name}) must come before the server handles its first request (${(e as Error).message})`);
      }
      this.#layer = true;
    }
    this.#tools.set(name, { config, handler });
    const takesArgs = config.inputSchema !== undefined;
    // Calls without `task` (taskSupport 'optional'): a task is made and waited for.
    const direct = async (...a: unknown[]) => {
      const extra = a[a.length - 1] as RequestContext;
      const args = (takesArgs ? a[0] : {}) as Record<string, unknown>;
      return this.#runToEnd(name, handler, config, args, extra);
    };
    const registered = this.#mcp.registerTool(name, { ...config, execution: { taskSupport } } as never, direct as never);
    return {
      remove: () => {
        this.#tools.delete(name);
        registered.remove();
      },
    };
  }

  /** The store bound to the session of `extra` (the SDK's `RequestTaskStore`). */
  #bound(extra: RequestContext, request: unknown): RequestTaskStore {
    const store = this.#requireStore('taskStore');
    const session = extra.sessionId;
    return {
      createTask: (options) => store.createTask(options ?? {}, extra.requestId as string | number, request, session),
      getTask: (taskId) => store.getTask(taskId, session),
      storeTaskResult: (taskId, status, result) => store.storeTaskResult(taskId, status, result, session),
      getTaskResult: (taskId) => store.getTaskResult(taskId, session),
      updateTaskStatus: (taskId, status, message) => store.updateTaskStatus(taskId, status, message, session),
      listTasks: (cursor) => store.listTasks(cursor, session),
    };
  }

  /** `extra` with the store and the requested ttl, as the SDK's task callbacks get it. */
  #extra(extra: RequestContext, request: unknown, ttl: number | null | undefined, taskId?: string): TaskRequestExtra {
    return Object.defineProperties(extra, {
      taskStore: { value: this.#bound(extra, request), configurable: true },
      taskRequestedTtl: { value: ttl, configurable: true },
      ...(taskId !== undefined ? { taskId: { value: taskId, configurable: true } } : {}),
    }) as TaskRequestExtra;
  }

  async #create(name: string, handler: ToolTaskHandler, config: ToolTaskConfig, args: Record<string, unknown>, extra: TaskRequestExtra): Promise<MiddlewareResult> {
    const parsed = await parseArgs(name, config.inputSchema, args);
    const result = (await (config.inputSchema !== undefined ? handler.createTask(parsed, extra) : handler.createTask(extra))) as MiddlewareResult;
    const task = (result as { task?: Task } | null)?.task;
    if (typeof task?.taskId !== 'string') {
      throw new McpError(ErrorCode.InternalError, `tool ${name}: createTask must answer { task } (a CreateTaskResult), got ${JSON.stringify(result)}`);
    }
    return result;
  }

  async #runToEnd(name: string, handler: ToolTaskHandler, config: ToolTaskConfig, args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const request = { method: 'tools/call', params: { name, arguments: args } };
    const created = await this.#create(name, handler, config, args, this.#extra(ctx, request, undefined));
    const taskId = (created.task as Task).taskId;
    const extra = this.#extra(ctx, request, undefined, taskId);
    const call = (f: (...a: unknown[]) => unknown) => (config.inputSchema !== undefined ? f.call(handler, args, extra) : f.call(handler, extra));
    for (;;) {
      const task = (await call(handler.getTask)) as Task | null;
      if (!task) throw new McpError(ErrorCode.InternalError, `tool ${name}: task ${taskId} vanished`);
      if (isTerminal(task.status)) return call(handler.getTaskResult);
      await sleep(Math.min(task.pollInterval ?? 100, 1000), ctx.signal);
    }
  }

  async #task(taskId: unknown, ctx: RequestContext): Promise<Task> {
    if (typeof taskId !== 'string') throw new McpError(ErrorCode.InvalidParams, 'params.taskId must be a string');
    const task = await this.#requireStore('tasks').getTask(taskId, ctx.sessionId);
    if (!task) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return task;
  }

  /** The middleware layer routing the app's tasks (see the module's notes). */
  readonly #route = async (ctx: MiddlewareContext, next: NextFunction): Promise<MiddlewareResult> => {
    const params = ctx.params ?? {};
    const rctx = ctx.requestContext;
    const store = this.#store!;
    switch (ctx.method) {
      case 'tools/call': {
        const entry = typeof params.name === 'string' ? this.#tools.get(params.name) : undefined;
        if (!entry || params.task === undefined || params.task === null) return next();
        const ttl = (params.task as { ttl?: number | null }).ttl;
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        const request = { method: 'tools/call', params };
        return this.#create(params.name as string, entry.handler, entry.config, args, this.#extra(rctx, request, ttl));
      }
      case 'tasks/get':
        return { ...(await this.#task(params.taskId, rctx)) };
      case 'tasks/result': {
        for (;;) {
          const task = await this.#task(params.taskId, rctx);
          if (isTerminal(task.status)) {
            const result = ((await store.getTaskResult(task.taskId, rctx.sessionId)) ?? {}) as Record<string, unknown>;
            const meta = (result._meta ?? {}) as Record<string, unknown>;
            return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: task.taskId } } };
          }
          await sleep(Math.min(task.pollInterval ?? 100, 100), rctx.signal);
        }
      }
      case 'tasks/list': {
        const cursor = typeof params.cursor === 'string' ? params.cursor : undefined;
        return { ...(await store.listTasks(cursor, rctx.sessionId)) };
      }
      case 'tasks/cancel': {
        const task = await this.#task(params.taskId, rctx);
        if (isTerminal(task.status)) throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task ${task.taskId}: it is already ${task.status}`);
        await store.updateTaskStatus(task.taskId, 'cancelled', 'Cancelled by the client', rctx.sessionId);
        return { ...(await this.#task(task.taskId, rctx)) };
      }
      case 'initialize': {
        const result = await next();
        const caps = (result.capabilities ?? {}) as Record<string, unknown>;
        result.capabilities = { ...caps, tasks: this.#declared ?? { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
        return result;
      }
      default:
        return next();
    }
  };
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
