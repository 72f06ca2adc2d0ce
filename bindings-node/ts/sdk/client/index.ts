/**
 * `ferromcp/client/index.js`: the TypeScript SDK's `Client` (`new Client(info, { capabilities })`,
 * `setRequestHandler`, `setNotificationHandler`, `connect(transport)`, `callTool`, ...) on
 * ferromcp's client (`Client` of the `ferromcp` entry point), whose engine speaks the protocol.
 * Handlers for `sampling/createMessage`, `elicitation/create` and `roots/list` are called with
 * the SDK's `(request, extra)`; the capabilities sent at connect time are the ones given to the
 * constructor plus those of the request handlers set before `connect`.
 * @module
 */
import { Client as EngineClient, type ClientOptions, type RequestOptions as EngineRequestOptions } from '../../client';
import type { RequestContext } from '../../context';
import { ErrorCode, McpError } from '../../errors';
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  Notification,
  ReadResourceResult,
  Task,
} from '../../types';
import { methodOf } from '../types';

/** @internal How a client transport connects the engine client. */
export const CONNECT_CLIENT: unique symbol = Symbol.for('ferromcp.connectClient') as never;

/** @internal A transport {@link Client.connect} takes. */
export interface ClientTransportLike {
  [CONNECT_CLIENT](options: ClientOptions): Promise<EngineClient>;
  /** @internal Called by `connect` with the connected client. */
  _attached(client: Client, engine: EngineClient): void;
  close(): Promise<void>;
}

/** The SDK's `ClientOptions`. */
export interface SdkClientOptions {
  /**
   * Capabilities declared at `initialize` (`sampling`, `elicitation`, `roots`, ...). `tasks`
   * (`{ requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } }`, as the
   * SDK's client declares it) turns on the engine's client tasks (`ClientOptions.tasks`): a
   * server's task-augmented `sampling/createMessage` or `elicitation/create` is answered at once
   * with a `CreateTaskResult` while the handler runs as the task, and the server's `tasks/get`,
   * `tasks/result`, `tasks/list` and `tasks/cancel` are answered from the engine's own store. So
   * the SDK's `taskStore` option is not needed (it is ignored), and a handler returns its plain
   * result (`extra.taskStore` is undefined, so an SDK handler's `if (request.params.task &&
   * extra.taskStore)` branch is skipped). What is declared under `tasks.requests` follows the
   * handlers set.
   */
  capabilities?: Record<string, unknown>;
  /** Default request timeout (ms). */
  timeoutMs?: number;
  [key: string]: unknown;
}

/** The SDK's `RequestOptions`. */
export interface SdkRequestOptions extends EngineRequestOptions {
  /** Accepted; the engine applies `timeout` (with `resetTimeoutOnProgress`). */
  maxTotalTimeout?: number;
  [key: string]: unknown;
}

/** A request from the server as a handler gets it. */
export interface ServerRequest {
  method: string;
  params?: Record<string, unknown>;
}

type RequestHandler = (request: ServerRequest, extra: RequestContext) => unknown;
type NotificationHandler = (notification: Notification) => void | Promise<void>;

const isSchema = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && typeof (v as { parse?: unknown }).parse === 'function';

function requestOptions(o: SdkRequestOptions | undefined): EngineRequestOptions | undefined {
  if (!o) return undefined;
  const out: EngineRequestOptions = {};
  if (o.signal !== undefined) out.signal = o.signal;
  if (o.timeout !== undefined) out.timeout = o.timeout;
  if (o.onprogress !== undefined) out.onprogress = o.onprogress;
  if (o.resetTimeoutOnProgress !== undefined) out.resetTimeoutOnProgress = o.resetTimeoutOnProgress;
  return out;
}

/** One message of {@link ExperimentalClientTasks.callToolStream} (the SDK's `ResponseMessage`). */
export type ResponseMessage<R = CallToolResult> =
  | { type: 'taskCreated'; task: Task }
  | { type: 'taskStatus'; task: Task }
  | { type: 'result'; result: R }
  | { type: 'error'; error: McpError };

const asMcpError = (e: unknown): McpError => (e instanceof McpError ? e : new McpError(ErrorCode.InternalError, String(e)));

/**
 * `client.experimental.tasks`: the SDK's experimental task calls on the engine's task client
 * (2025-11-25 tasks, or the tasks extension of 2026-07-28, by the negotiated revision).
 */
export class ExperimentalClientTasks {
  readonly #client: () => EngineClient;
  readonly #pollMs: number;

  /** @internal */
  constructor(client: () => EngineClient, defaultPollMs: number) {
    this.#client = client;
    this.#pollMs = defaultPollMs;
  }

  /**
   * Calls a tool and yields what happens, ending with a `result` or an `error` message. With
   * `options.task` the call is a task: `taskCreated`, then a `taskStatus` per poll (at the
   * task's `pollInterval`) until it ends (`result` of a completed task, `error` of a failed
   * or cancelled one) or waits for input (then `tasks/result` is awaited, the server's
   * requests answered by this client's handlers). Without it, a plain call: its `result`.
   */
  async *callToolStream(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    _resultSchema?: unknown,
    options?: SdkRequestOptions & { task?: { ttl?: number } },
  ): AsyncGenerator<ResponseMessage> {
    const client = this.#client();
    if (!options?.task) {
      try {
        yield { type: 'result', result: await client.callTool(params, requestOptions(options)) };
      } catch (e) {
        yield { type: 'error', error: asMcpError(e) };
      }
      return;
    }
    try {
      const ttl = options.task.ttl;
      const { task } = await client.callToolAsTask(params, ttl !== undefined ? { ttlMs: ttl } : {});
      const taskId = task.taskId;
      yield { type: 'taskCreated', task };
      for (;;) {
        const state = await client.getTask({ taskId });
        yield { type: 'taskStatus', task: state };
        if (state.status === 'completed' || state.status === 'input_required') {
          yield { type: 'result', result: await client.getTaskResult({ taskId }) };
          return;
        }
        if (state.status === 'failed' || state.status === 'cancelled') {
          const what = state.status === 'failed' ? 'failed' : 'was cancelled';
          yield { type: 'error', error: new McpError(ErrorCode.InternalError, `Task ${taskId} ${what}`) };
          return;
        }
        await new Promise((r) => setTimeout(r, state.pollInterval ?? this.#pollMs));
        options.signal?.throwIfAborted();
      }
    } catch (e) {
      yield { type: 'error', error: asMcpError(e) };
    }
  }

  /** `tasks/get`. */
  getTask(taskId: string, _options?: SdkRequestOptions): Promise<Task> {
    return this.#client().getTask({ taskId });
  }

  /** The task's result (`tasks/result`), once it has one. */
  getTaskResult(taskId: string, _resultSchema?: unknown, options?: SdkRequestOptions): Promise<CallToolResult> {
    const o = requestOptions(options);
    return this.#client().getTaskResult({ taskId }, { ...(o?.timeout !== undefined ? { timeout: o.timeout } : {}), ...(o?.signal ? { signal: o.signal } : {}) });
  }

  /** `tasks/cancel`. */
  cancelTask(taskId: string, _options?: SdkRequestOptions): Promise<Task> {
    return this.#client().cancelTask({ taskId });
  }
}

/** The TypeScript SDK's `Client`, on ferromcp's engine. */
export class Client {
  readonly #info: Implementation;
  #capabilities: Record<string, unknown>;
  readonly #options: SdkClientOptions;
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  #engine: EngineClient | undefined;
  #transport: ClientTransportLike | undefined;
  #experimental: { tasks: ExperimentalClientTasks } | undefined;
  /** Called when the connection closes. */
  onclose?: () => void;
  /** Called with errors of notification handlers. */
  onerror?: (error: Error) => void;
  /** Receives notifications no handler is set for. */
  fallbackNotificationHandler?: NotificationHandler;

  constructor(info: Implementation, options: SdkClientOptions = {}) {
    this.#info = info;
    this.#options = options;
    this.#capabilities = { ...(options.capabilities ?? {}) };
  }

  /** Adds capabilities to declare (before `connect`). */
  registerCapabilities(capabilities: Record<string, unknown>): void {
    if (this.#engine) throw new Error('Cannot register capabilities after connecting to transport');
    this.#capabilities = { ...this.#capabilities, ...capabilities };
  }

  /**
   * Handles a request from the server: `setRequestHandler(CreateMessageRequestSchema, ...)`,
   * `ElicitRequestSchema`, `ListRootsRequestSchema` (the engine answers `ping` itself).
   */
  setRequestHandler(schema: unknown, handler: RequestHandler): void {
    const method = methodOf(schema);
    if (!['sampling/createMessage', 'elicitation/create', 'roots/list'].includes(method)) {
      throw new McpError(ErrorCode.InvalidParams, `ferromcp's client answers ${method} itself; handlers are for sampling/createMessage, elicitation/create and roots/list`);
    }
    this.#requestHandlers.set(method, handler);
  }

  /** Forgets a request handler. */
  removeRequestHandler(method: string): void {
    this.#requestHandlers.delete(method);
  }

  /** Handles a notification from the server (`setNotificationHandler(LoggingMessageNotificationSchema, n => ...)`). */
  setNotificationHandler(schema: unknown, handler: NotificationHandler): void {
    this.#notificationHandlers.set(methodOf(schema), handler);
  }

  /** Forgets a notification handler. */
  removeNotificationHandler(method: string): void {
    this.#notificationHandlers.delete(method);
  }

  #handler(method: string): (params: unknown, ctx: RequestContext) => Promise<unknown> {
    return async (params, ctx) => {
      const h = this.#requestHandlers.get(method);
      if (!h) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return h({ method, params: params as Record<string, unknown> }, ctx);
    };
  }

  #deliver(n: Notification): void {
    const h = this.#notificationHandlers.get(n.method) ?? this.fallbackNotificationHandler;
    if (!h) return;
    try {
      const out = h(n);
      if (out && typeof (out as Promise<void>).then === 'function') {
        (out as Promise<void>).then(undefined, (e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))));
      }
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Connects over `transport` (`StreamableHTTPClientTransport`, `StdioClientTransport`) and initializes. */
  async connect(transport: ClientTransportLike, _options?: SdkRequestOptions): Promise<void> {
    if (typeof transport?.[CONNECT_CLIENT] !== 'function') {
      throw new TypeError('connect() takes a ferromcp client transport (ferromcp/client/streamableHttp.js or ferromcp/client/stdio.js)');
    }
    const caps = this.#capabilities;
    const has = (m: string, cap: string) => this.#requestHandlers.has(m) || caps[cap] !== undefined;
    const options: ClientOptions = {
      name: this.#info.name,
      version: this.#info.version,
      onNotification: (n) => this.#deliver(n),
    };
    if (this.#options.timeoutMs !== undefined) options.timeoutMs = this.#options.timeoutMs;
    // What the handlers below do not imply (`experimental`, `extensions`, ...) is declared as given.
    const { sampling: _s, elicitation: _e, roots: _r, tasks: _t, ...declared } = caps;
    if (Object.keys(declared).length > 0) options.capabilities = declared;
    // The SDK's client `tasks` capability: the engine runs the tasks (see SdkClientOptions).
    if (caps.tasks !== undefined) options.tasks = true;
    if (has('sampling/createMessage', 'sampling')) options.sampling = this.#handler('sampling/createMessage') as ClientOptions['sampling'];
    if (has('elicitation/create', 'elicitation')) {
      options.elicitation = this.#handler('elicitation/create') as ClientOptions['elicitation'];
      const e = caps.elicitation as { url?: unknown } | undefined;
      if (e && typeof e === 'object' && e.url !== undefined) options.elicitationUrl = true;
    }
    if (has('roots/list', 'roots')) {
      const rootsList = this.#handler('roots/list');
      options.roots = async (ctx) => {
        if (!this.#requestHandlers.has('roots/list')) return [];
        const r = (await rootsList({}, ctx)) as { roots: [] };
        return r.roots;
      };
    }
    const engine = await transport[CONNECT_CLIENT](options);
    this.#engine = engine;
    this.#transport = transport;
    engine.once('close', () => this.onclose?.());
    transport._attached(this, engine);
  }

  get #client(): EngineClient {
    if (!this.#engine) throw new McpError(ErrorCode.ConnectionClosed, 'Not connected');
    return this.#engine;
  }

  /** The SDK's experimental APIs: `experimental.tasks` ({@link ExperimentalClientTasks}). */
  get experimental(): { tasks: ExperimentalClientTasks } {
    const poll = typeof this.#options.defaultTaskPollInterval === 'number' ? this.#options.defaultTaskPollInterval : 1000;
    this.#experimental ??= { tasks: new ExperimentalClientTasks(() => this.#client, poll) };
    return this.#experimental;
  }

  /** The transport given to `connect`. */
  get transport(): ClientTransportLike | undefined {
    return this.#transport;
  }

  /** The server's capabilities. */
  getServerCapabilities(): Record<string, unknown> | undefined {
    return this.#engine?.getServerCapabilities();
  }

  /** The server's `serverInfo`. */
  getServerVersion(): Implementation | undefined {
    return this.#engine?.getServerVersion();
  }

  /** The server's instructions. */
  getInstructions(): string | undefined {
    return this.#engine?.getInstructions();
  }

  /** The negotiated protocol revision. */
  getNegotiatedProtocolVersion(): string | undefined {
    return this.#engine?.protocolVersion;
  }

  /** Any request: `request({ method, params }, ResultSchema?, options?)` (the schema passes the result through). */
  async request<R = Record<string, unknown>>(req: { method: string; params?: Record<string, unknown> }, schemaOrOptions?: unknown, options?: SdkRequestOptions): Promise<R> {
    const o = isSchema(schemaOrOptions) ? options : (schemaOrOptions as SdkRequestOptions | undefined) ?? options;
    return this.#client.request<R>(req.method, req.params, requestOptions(o));
  }

  /** Sends a notification (`{ method, params }`). */
  notification(n: Notification): Promise<void> {
    return this.#client.notification(n);
  }

  /** `ping`. */
  async ping(options?: SdkRequestOptions): Promise<Record<string, never>> {
    await this.#client.ping(requestOptions(options));
    return {};
  }

  /** `tools/call`: `callTool(params, CallToolResultSchema?, options?)` as the SDK. */
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    schemaOrOptions?: unknown,
    options?: SdkRequestOptions,
  ): Promise<CallToolResult> {
    const o = isSchema(schemaOrOptions) ? options : (schemaOrOptions as SdkRequestOptions | undefined) ?? options;
    return this.#client.callTool(params, requestOptions(o));
  }

  /** `tools/list`. */
  listTools(params?: { cursor?: string }, options?: SdkRequestOptions): Promise<ListToolsResult> {
    return this.#client.listTools(params, requestOptions(options));
  }

  /** `resources/list`. */
  listResources(params?: { cursor?: string }, options?: SdkRequestOptions): Promise<ListResourcesResult> {
    return this.#client.listResources(params, requestOptions(options));
  }

  /** `resources/templates/list`. */
  listResourceTemplates(params?: { cursor?: string }, options?: SdkRequestOptions): Promise<ListResourceTemplatesResult> {
    return this.#client.listResourceTemplates(params, requestOptions(options));
  }

  /** `resources/read`. */
  readResource(params: { uri: string }, options?: SdkRequestOptions): Promise<ReadResourceResult> {
    return this.#client.readResource(params, requestOptions(options));
  }

  /** `resources/subscribe`. */
  async subscribeResource(params: { uri: string }, options?: SdkRequestOptions): Promise<Record<string, never>> {
    await this.#client.subscribeResource(params, requestOptions(options));
    return {};
  }

  /** `resources/unsubscribe`. */
  async unsubscribeResource(params: { uri: string }, options?: SdkRequestOptions): Promise<Record<string, never>> {
    await this.#client.unsubscribeResource(params, requestOptions(options));
    return {};
  }

  /** `prompts/list`. */
  listPrompts(params?: { cursor?: string }, options?: SdkRequestOptions): Promise<ListPromptsResult> {
    return this.#client.listPrompts(params, requestOptions(options));
  }

  /** `prompts/get`. */
  getPrompt(params: { name: string; arguments?: Record<string, string> }, options?: SdkRequestOptions): Promise<GetPromptResult> {
    return this.#client.getPrompt(params, requestOptions(options));
  }

  /** `completion/complete`. */
  complete(params: CompleteRequestParams, options?: SdkRequestOptions): Promise<CompleteResult> {
    return this.#client.complete(params, requestOptions(options));
  }

  /** `logging/setLevel`. */
  async setLoggingLevel(level: LoggingLevel, options?: SdkRequestOptions): Promise<Record<string, never>> {
    await this.#client.setLoggingLevel(level, requestOptions(options));
    return {};
  }

  /** `notifications/roots/list_changed`. */
  sendRootsListChanged(): Promise<void> {
    return this.#client.sendRootsListChanged();
  }

  /** Closes the connection (and the transport). */
  async close(): Promise<void> {
    const engine = this.#engine;
    if (engine) await engine.close();
  }
}
