/**
 * {@link Client}: connect to an MCP server (a child process over stdio, a Streamable HTTP URL,
 * or an {@link McpServer} in this process) and call it. Sessions, timeouts, cancellation and
 * the transports run in the Rust engine.
 * @module
 */
import { EventEmitter } from 'node:events';
import { OAuth, type OAuthOptions } from './auth';
import type { RequestContext } from './context';
import { Dispatch } from './dispatch';
import { call, ErrorCode, errorFromCode, McpError } from './errors';
import { type ListenFilter, Subscription } from './listen';
import native, { type NativeCallOptions, type NativeCancel, type NativeClient } from './native';
import { type ClientOpenTelemetryOptions, withActiveTraceContext } from './otel';
import type { McpServer } from './server';
import { type Pem, rootCertificatesConfig } from './tls';
import type {
  CallToolResult,
  CreateTaskResult,
  Task,
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  Notification,
  Progress,
  ReadResourceResult,
  Root,
  Tool,
} from './types';

/** Options of one request. */
export interface RequestOptions {
  /** Aborting it cancels the request (`notifications/cancelled` is sent). */
  signal?: AbortSignal;
  /** Timeout in ms (default: the client's `timeoutMs`, 60 s). */
  timeout?: number;
  /** Receives each progress notification of this request. */
  onprogress?: (progress: Progress) => void;
  /** Whether progress notifications restart the timeout. */
  resetTimeoutOnProgress?: boolean;
}

/** Options of a client connection. */
export interface ClientOptions {
  /** `clientInfo.name` (default `ferromcp-node`). */
  name?: string;
  /** `clientInfo.version`. */
  version?: string;
  /**
   * The revision to ask for (default: the newest handshake revision). `'2026-07-28'` speaks the
   * per-request era (no `initialize`; see {@link ClientOptions.protocolMode}).
   */
  protocolVersion?: string;
  /**
   * `'handshake'` (the default: `initialize`), `'auto'` (probe `server/discover`, fall back to
   * the handshake on older servers) or `'perRequest'` (2026-07-28 only). In the per-request era
   * every request carries the client's `_meta`, and `input_required` results are answered with
   * the `sampling`, `elicitation` and `roots` handlers and retried.
   */
  protocolMode?: 'handshake' | 'auto' | 'perRequest';
  /** Default request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Largest message accepted in bytes (default 4 MiB): a response over it fails that call. */
  maxMessageSize?: number;
  /** Answers `sampling/createMessage` (declares the `sampling` capability). */
  sampling?: (params: CreateMessageRequestParams, ctx: RequestContext) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Answers `elicitation/create` (declares the `elicitation` capability). */
  elicitation?: (params: ElicitRequestParams, ctx: RequestContext) => ElicitResult | Promise<ElicitResult>;
  /** Also accept URL-mode elicitation. */
  elicitationUrl?: boolean;
  /** The roots offered to the server, or a function giving them (declares `roots`). */
  roots?: Root[] | ((ctx: RequestContext) => Root[] | Promise<Root[]>);
  /** Receives every server notification (also emitted as `'notification'` events). */
  onNotification?: (n: Notification) => void;
  /**
   * Whether per-request-era (2026-07-28) requests declare the tasks extension
   * `io.modelcontextprotocol/tasks` (default `true`). Off, the server answers every `tools/call`
   * itself, never with a task ({@link Client.callToolAsTask} then holds its answer as an already
   * completed task whose id starts `ferromcp-local-`), and refuses a listen naming
   * {@link ListenFilter.taskIds} with -32021 (`MissingRequiredClientCapability`), as the
   * extension requires. The handshake era is unaffected.
   */
  tasksExtension?: boolean;
  /**
   * Run a server's task-augmented `sampling/createMessage` and `elicitation/create`
   * (`params.task`, 2025-11-25, handshake era) as tasks of this client (default `false`): it
   * declares `tasks.requests` for the handlers given, answers such a request at once with a
   * `CreateTaskResult` while the handler runs (its params keep `task`), and answers the server's
   * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`. See docs/protocol.md.
   */
  tasks?: boolean;
  /**
   * More client capabilities, deep-merged over the ones the options above declare: chiefly
   * `extensions` (2026-07-28) or `experimental`, e.g. `{ extensions: { 'io.modelcontextprotocol/ui':
   * { mimeTypes: ['text/html;profile=mcp-app'] } } }` for a host that renders MCP Apps.
   */
  capabilities?: Record<string, unknown>;
  /**
   * OpenTelemetry for this client's requests, exported by the engine: the server layer's options
   * (`serviceName`, `otlpEndpoint`, `otlpHeaders`, `samplingRatio`, `metricExportIntervalMs`;
   * `{}` takes them from the `OTEL_*` variables). Every request gets a `CLIENT` span whose parent
   * is the `traceparent` in `params._meta`, or else, when `@opentelemetry/api` is installed with
   * a context manager (as `NodeSDK` registers), the active span; the span's context then goes to
   * the server in `_meta`. {@link Client.close} flushes the exports. See docs/observability.md.
   */
  openTelemetry?: ClientOpenTelemetryOptions;
}

/** Where to spawn a stdio server. */
export interface StdioServerParameters {
  /** The program to run. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
  /** Its working directory. */
  cwd?: string;
}

/** Options of {@link Client.http}. */
export interface HttpClientOptions extends ClientOptions {
  /** Headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** Retry with the 2024-11-05 HTTP+SSE transport when the server refuses Streamable HTTP. */
  legacyFallback?: boolean;
  /**
   * OAuth 2.1 authorization with a protected server: a 401 runs the flow, later 401s refresh
   * the token, a 403 `insufficient_scope` steps up (see {@link OAuth}).
   */
  auth?: OAuth | OAuthOptions;
  /** CA certificates trusted for `https://` beside Mozilla's roots (PEM, e.g. a private CA's). */
  rootCertificates?: Pem[];
}

/**
 * The engine's client configuration (embed's `ClientConfig`) as {@link Client} sends it, built
 * from {@link ClientOptions}; ts-type-tests/config_types.check.ts checks its keys and those of
 * `ClientOptions` against embed/config-schema.json.
 * @internal
 */
export type ClientConfigSent = {
  name: string;
  version: string;
  sampling: boolean;
  elicitation: boolean;
  elicitationUrl: boolean;
  roots: boolean;
  protocolVersion?: string;
  protocolMode?: ClientOptions['protocolMode'];
  requestTimeoutMs?: number;
  maxMessageSize?: number;
  tasksExtension?: boolean;
  tasks?: boolean;
  capabilities?: Record<string, unknown>;
  openTelemetry?: ClientOpenTelemetryOptions;
};

type Connect = (config: ClientConfigSent, d: Dispatch | null) => Promise<NativeClient>;

/**
 * A connected MCP client. Events: `'notification'` (every server notification),
 * `'close'`. Server notifications can also be read with {@link Client.notifications}.
 */
export class Client extends EventEmitter {
  readonly #native: NativeClient;
  readonly #dispatch: Dispatch | null;
  readonly #queues = new Set<{ push: (n: Notification) => void; end: () => void }>();
  #closed = false;
  /** Whether the engine traces this client's requests (its `openTelemetry` option). */
  #traced = false;

  private constructor(n: NativeClient, dispatch: Dispatch | null) {
    super();
    this.#native = n;
    this.#dispatch = dispatch;
  }

  static async #connect(options: ClientOptions, connect: Connect): Promise<Client> {
    const { sampling, elicitation, elicitationUrl, roots, onNotification } = options;
    const config: ClientConfigSent = {
      name: options.name ?? 'ferromcp-node',
      version: options.version ?? '0.1.0',
      sampling: sampling !== undefined,
      elicitation: elicitation !== undefined,
      elicitationUrl: elicitationUrl === true,
      roots: roots !== undefined,
    };
    if (options.protocolVersion) config.protocolVersion = options.protocolVersion;
    if (options.protocolMode) config.protocolMode = options.protocolMode;
    if (options.timeoutMs !== undefined) config.requestTimeoutMs = options.timeoutMs;
    if (options.maxMessageSize !== undefined) config.maxMessageSize = options.maxMessageSize;
    if (options.tasksExtension !== undefined) config.tasksExtension = options.tasksExtension;
    if (options.tasks !== undefined) config.tasks = options.tasks;
    if (options.capabilities !== undefined) config.capabilities = options.capabilities;
    if (options.openTelemetry !== undefined) config.openTelemetry = options.openTelemetry;
    let client: Client | undefined;
    const pending: Notification[] = [];
    const dispatch = new Dispatch((method, params) => {
      const n: Notification = params == null ? { method } : { method, params: params as Record<string, unknown> };
      if (client) client.#deliver(n, onNotification);
      else pending.push(n);
    });
    dispatch.add(async (payload, ctx) => {
      const { method, params } = payload as { method: string; params: unknown };
      switch (method) {
        case 'sampling/createMessage':
          if (sampling) return sampling(params as CreateMessageRequestParams, ctx);
          break;
        case 'elicitation/create':
          if (elicitation) return elicitation(params as ElicitRequestParams, ctx);
          break;
        case 'roots/list':
          if (roots) return { roots: typeof roots === 'function' ? await roots(ctx) : roots };
          break;
      }
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }, 0);
    const n = await call(connect(config, dispatch));
    client = new Client(n, dispatch);
    client.#traced = options.openTelemetry !== undefined;
    for (const p of pending) client.#deliver(p, onNotification);
    return client;
  }

  /** Spawns `command` and connects over its stdio; {@link close} ends the process tree. */
  static stdio(server: StdioServerParameters, options: ClientOptions = {}): Promise<Client> {
    return Client.#connect(options, (config, d) =>
      native.NativeClient.connectStdio(server.command, server.args ?? [], server.env ?? null, server.cwd ?? null, config, d?.native ?? null),
    );
  }

  /** Connects to a Streamable HTTP endpoint. */
  static http(url: string | URL, options: HttpClientOptions = {}): Promise<Client> {
    const { headers, legacyFallback = false, auth, rootCertificates, ...rest } = options;
    if (rootCertificates !== undefined) {
      const oauth = auth === undefined ? null : (auth instanceof OAuth ? auth : new OAuth(auth))._native();
      return Client.#connect(rest, async (config, d) =>
        native.NativeClient.connectHttpWith(String(url), headers ?? null, legacyFallback, rootCertificatesConfig(rootCertificates), oauth, config, d?.native ?? null),
      );
    }
    if (auth !== undefined) {
      const oauth = auth instanceof OAuth ? auth : new OAuth(auth);
      return Client.#connect(rest, (config, d) =>
        native.NativeClient.connectHttpAuth(String(url), headers ?? null, legacyFallback, oauth._native(), config, d?.native ?? null),
      );
    }
    return Client.#connect(rest, (config, d) =>
      native.NativeClient.connectHttp(String(url), headers ?? null, legacyFallback, config, d?.native ?? null),
    );
  }

  /** Connects to an {@link McpServer} in this process (no I/O; for tests and embedding). */
  static memory(server: McpServer, options: ClientOptions = {}): Promise<Client> {
    return Client.#connect(options, (config, d) =>
      native.NativeClient.connectMemory(server._native, config, d?.native ?? null),
    );
  }

  #deliver(n: Notification, hook?: (n: Notification) => void): void {
    hook?.(n);
    this.emit('notification', n);
    for (const q of this.#queues) q.push(n);
  }

  /** The server's `initialize` result. */
  get initializeResult(): InitializeResult {
    return this.#native.initializeResult as InitializeResult;
  }

  /** The negotiated protocol revision. */
  get protocolVersion(): string {
    return this.#native.protocolVersion;
  }

  /**
   * The Streamable HTTP session id the server assigned (`Mcp-Session-Id`); undefined over
   * stdio and in memory, on a stateless server and over the legacy HTTP+SSE transport. A new
   * session that replaced an expired one shows its new id.
   */
  get sessionId(): string | undefined {
    return this.#native.sessionId ?? undefined;
  }

  /** The server's `serverInfo`. */
  getServerVersion(): Implementation {
    return this.initializeResult.serverInfo;
  }

  /** The server's capabilities. */
  getServerCapabilities(): Record<string, unknown> {
    return this.initializeResult.capabilities;
  }

  /** The server's `instructions`. */
  getInstructions(): string | undefined {
    return this.initializeResult.instructions;
  }

  /** Sends any request and resolves with its result. */
  async request<R = unknown>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<R> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    const { signal, timeout, onprogress, resetTimeoutOnProgress } = options;
    throwIfAborted(signal);
    const opts: NativeCallOptions = {};
    if (timeout !== undefined) opts.timeoutMs = timeout;
    if (resetTimeoutOnProgress !== undefined) opts.resetTimeoutOnProgress = resetTimeoutOnProgress;
    const { cancel, release } = cancelOnAbort(signal);
    const progress = onprogress ? (p: unknown) => onprogress(p as Progress) : null;
    try {
      if (this.#traced) params = withActiveTraceContext(params);
      return (await call(this.#native.request(method, params ?? null, opts, progress, cancel))) as R;
    } finally {
      release();
    }
  }

  /** Sends a notification. */
  async notification(n: Notification): Promise<void> {
    await call(this.#native.notify(n.method, n.params ?? null));
  }

  /** `ping`. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.request('ping', undefined, options);
  }

  /** `tools/list` (one page). */
  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult> {
    return this.request('tools/list', params, options);
  }

  /** Every tool, following `nextCursor`. */
  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.listTools(cursor ? { cursor } : undefined, options);
      out.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  /** `tools/call`. A tool's own failure is a result with `isError: true`, not an exception. */
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    return this.request('tools/call', params, options);
  }

  /**
   * Calls a tool as a task: resolves at once with `{ task }` (the task's `ttl` and
   * `pollInterval` in ms); poll with {@link Client.getTask}, wait with
   * {@link Client.getTaskResult}, stop with {@link Client.cancelTask}. The same calls serve
   * both eras, by the negotiated revision: 2025-11-25 tasks (`ttlMs` asks for a retention), or
   * the tasks extension `io.modelcontextprotocol/tasks` of 2026-07-28 (the server picks the TTL;
   * a result it answers at once comes back as a completed task the client holds, its id
   * starting `ferromcp-local-`). In that era a plain {@link Client.callTool} the server makes a
   * task of is followed to its end (cancelling the call cancels the task).
   */
  async callToolAsTask(
    params: { name: string; arguments?: Record<string, unknown> },
    options: { ttlMs?: number } = {},
  ): Promise<CreateTaskResult> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    return (await call(this.#native.callToolAsTask(params.name, params.arguments ?? {}, options.ttlMs ?? null))) as CreateTaskResult;
  }

  /**
   * The task's current state. With the tasks extension, input the task waits for is answered
   * with this client's handlers first (as a 2025-11-25 server asks them itself), and the state
   * carries what `tasks/get` inlines (`result`, `error`).
   */
  async getTask(params: { taskId: string }): Promise<Task> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    return (await call(this.#native.getTask(params.taskId))) as Task;
  }

  /**
   * Waits for the task to end and resolves with its `CallToolResult`; a failed task rejects
   * with its error, a cancelled one with `InvalidParams`. 2025-11-25: `tasks/result`; the
   * tasks extension: `tasks/get` polled, input answered with this client's handlers.
   * `timeout` (ms) and `signal` stop the wait, not the task.
   */
  async getTaskResult(params: { taskId: string }, options: { timeout?: number; signal?: AbortSignal } = {}): Promise<CallToolResult> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    const { signal, timeout } = options;
    throwIfAborted(signal);
    const opts: NativeCallOptions = {};
    if (timeout !== undefined) opts.timeoutMs = timeout;
    const { cancel, release } = cancelOnAbort(signal);
    try {
      return (await call(this.#native.getTaskResult(params.taskId, opts, cancel))) as CallToolResult;
    } finally {
      release();
    }
  }

  /**
   * Cancels the task; resolves with its state after the cancellation. 2025-11-25: a task that
   * already ended rejects with `InvalidParams`; the tasks extension acknowledges that too.
   */
  async cancelTask(params: { taskId: string }): Promise<Task> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    return (await call(this.#native.cancelTask(params.taskId))) as Task;
  }

  /** `resources/list` (one page). */
  listResources(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.request('resources/list', params, options);
  }

  /** `resources/templates/list` (one page). */
  listResourceTemplates(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.request('resources/templates/list', params, options);
  }

  /** `resources/read`. */
  readResource(params: { uri: string }, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', params, options);
  }

  /** `resources/subscribe`: updates arrive as `notifications/resources/updated`. */
  async subscribeResource(params: { uri: string }, options?: RequestOptions): Promise<void> {
    await this.request('resources/subscribe', params, options);
  }

  /** `resources/unsubscribe`. */
  async unsubscribeResource(params: { uri: string }, options?: RequestOptions): Promise<void> {
    await this.request('resources/unsubscribe', params, options);
  }

  /** `prompts/list` (one page). */
  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.request('prompts/list', params, options);
  }

  /** `prompts/get`. */
  getPrompt(params: { name: string; arguments?: Record<string, string> }, options?: RequestOptions): Promise<GetPromptResult> {
    return this.request('prompts/get', params, options);
  }

  /** `completion/complete`. */
  complete(params: CompleteRequestParams, options?: RequestOptions): Promise<CompleteResult> {
    return this.request('completion/complete', params as unknown as Record<string, unknown>, options);
  }

  /** `logging/setLevel`. */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.request('logging/setLevel', { level }, options);
  }

  /**
   * `subscriptions/listen` (protocol revision 2026-07-28): resolves with a {@link Subscription}
   * to the change notifications `filter` asks for (list changes of tools, prompts, resources;
   * updates of the resources named; with the tasks extension, `notifications/tasks` of the
   * tasks named in `taskIds`) once the server acknowledged it. {@link Subscription.filter} says
   * what the server agreed to (a task id it does not run is left out).
   *
   * ```ts
   * await using sub = await client.listen({ toolsListChanged: true });
   * for await (const n of sub) { ... }
   * ```
   *
   * A session that negotiated the initialize handshake (2025-11-25 and older) has no listen:
   * this rejects with an {@link McpError} -32600 (InvalidRequest); there use
   * {@link subscribeResource} and the `'notification'` event.
   */
  async listen(filter: ListenFilter = {}): Promise<Subscription> {
    if (this.#closed) throw errorFromCode(ErrorCode.ConnectionClosed, 'client is closed');
    return new Subscription(await call(this.#native.listen(filter)));
  }

  /** Tells the server the roots changed (`notifications/roots/list_changed`). */
  sendRootsListChanged(): Promise<void> {
    return this.notification({ method: 'notifications/roots/list_changed' });
  }

  /** Server notifications as an async iterator (ends when the client closes). */
  notifications(): AsyncIterableIterator<Notification> {
    const buffered: Notification[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const q = {
      push: (n: Notification) => {
        buffered.push(n);
        wake?.();
      },
      end: () => {
        done = true;
        wake?.();
      },
    };
    this.#queues.add(q);
    const queues = this.#queues;
    const it: AsyncIterableIterator<Notification> = {
      async next(): Promise<IteratorResult<Notification>> {
        while (buffered.length === 0 && !done) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        const value = buffered.shift();
        if (value) return { value, done: false };
        queues.delete(q);
        return { value: undefined, done: true };
      },
      async return(): Promise<IteratorResult<Notification>> {
        queues.delete(q);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return it;
      },
    };
    return it;
  }

  /** Closes the session; a spawned server process (and its children) is ended. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await call(this.#native.close());
    for (const q of this.#queues) q.end();
    this.#queues.clear();
    void this.#dispatch;
    this.emit('close');
  }

  /** `await using client = await Client.stdio(...)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Rejects a call whose `signal` is already aborted as one aborted later does: an
 * {@link McpError} with code `RequestCancelled` (-32800), not the signal's `DOMException`,
 * so one `catch` serves both (nothing is sent: the request never left).
 */
function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new McpError(ErrorCode.RequestCancelled, 'Request cancelled');
}

/**
 * The engine's cancel handle for a call `signal` may abort (null without a signal), and
 * `release`, which stops listening to the signal once the call is over.
 */
function cancelOnAbort(signal: AbortSignal | undefined): { cancel: NativeCancel | null; release: () => void } {
  if (!signal) return { cancel: null, release: () => {} };
  const cancel = new native.NativeCancel();
  const onAbort = () => cancel.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  return { cancel, release: () => signal.removeEventListener('abort', onAbort) };
}
