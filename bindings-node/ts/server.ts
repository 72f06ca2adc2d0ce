/**
 * {@link McpServer}: register tools, resources and prompts with JavaScript handlers, then serve
 * them over stdio ({@link McpServer.connectStdio}) or Streamable HTTP ({@link McpServer.listen}).
 * Protocol work (validation, sessions, cancellation, paging) runs in the Rust engine. The option
 * types live in `server_options.ts`, what registrations take in `server_registration.ts`; both
 * are re-exported here.
 * @module
 */
import type { ProtectedResource } from './auth';
import { addTransformedTool, importServer, mountServer, type ToolTransformConfig, transformTool, type TransformToolOptions } from './composition';
import { currentContext, type RequestContext } from './context';
import { Dispatch, then } from './dispatch';
import { asMcpError, call, callSync, ErrorCode, McpError, thrownMessage } from './errors';
import { McpHttpHandler } from './http';
import { addMiddleware, type Middleware } from './middleware';
import { ExperimentalMcpServerTasks } from './sdk/experimental/tasks/mcpServer';
import { coreTaskStreams, type CoreTaskStreams } from './sdk/experimental/tasks/serverCore';
import { type RequestHandler, RequestHandlers } from './sdk/server/requestHandlers';
import native, { type NativeServer } from './native';
import { type JsonSchema, type SchemaInput, toJsonSchema } from './schema';
import { oauthProxySettings } from './oauth_proxy_options';
import { tlsConfig } from './tls';
import type {
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from './types';
import { HttpServer, type ListenOptions, type ServerCapabilities, type ServerInfo, type ServerOptions } from './server_options';
import {
  COMPLETE,
  type CompleteCallback,
  type PromptConfig,
  type PromptResult,
  type ReadResourceCallback,
  type ReadResourceTemplateCallback,
  type Registered,
  type ResourceMetadata,
  type ResourceResult,
  ResourceTemplate,
  type ToolCallback,
  type ToolConfig,
} from './server_registration';

export { HttpServer } from './server_options';
export type { CacheScope, ListenOptions, ProtocolRevision, ServerCapabilities, ServerInfo, ServerOptions } from './server_options';
export { completable, ResourceTemplate } from './server_registration';
export type {
  CompleteCallback,
  PromptConfig,
  PromptResult,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  Registered,
  ResourceMetadata,
  ResourceResult,
  ToolArgs,
  ToolCallback,
  ToolConfig,
  ToolResult,
} from './server_registration';

/** The marker transport of `server.connect(new StdioServerTransport())`. */
export class StdioServerTransport {}

/** @internal How an SDK-shaped transport (`StreamableHTTPServerTransport`) is attached by `connect`. */
export const ATTACH_TRANSPORT: unique symbol = Symbol.for('ferromcp.attachTransport') as never;

/** @internal A transport `McpServer.connect` accepts besides {@link StdioServerTransport}. */
export interface AttachableTransport {
  [ATTACH_TRANSPORT](server: McpServer): void;
  /** Called by `connect` once attached (as the SDK's `transport.start()`). */
  start?(): Promise<void>;
  close(): Promise<void>;
}

const isAttachable = (t: unknown): t is AttachableTransport =>
  typeof t === 'object' && t !== null && typeof (t as Partial<AttachableTransport>)[ATTACH_TRANSPORT] === 'function';

/** A value the SDK's `server.tool()` takes as a parameter shape: `{}` or an object of schemas. */
function isParamsShape(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const values = Object.values(v);
  return values.length === 0 || values.every((x) => typeof x === 'object' && x !== null && ('~standard' in x || '_zod' in x || '_def' in x));
}

/**
 * `mcpServer.server`: the TypeScript SDK's underlying `Server` as ported code uses it: requests
 * to the client (`createMessage`, `elicitInput`, `listRoots`: to the client whose request is
 * being handled, read from the async context), `sendLoggingMessage`, the client's
 * capabilities and version, `notification`, and `onclose`/`onerror`.
 */
export class McpServerCore {
  readonly #owner: McpServer;
  readonly #handlers: RequestHandlers;
  /** Called once when the server closes. */
  onclose?: () => void;
  /** Errors the SDK would report here (unused by the engine, which logs them). */
  onerror?: (error: Error) => void;

  /** @internal */
  constructor(owner: McpServer) {
    this.#owner = owner;
    this.#handlers = new RequestHandlers(owner);
  }

  /** `sampling/createMessage` to the client of the running handler (outside one: see {@link elicitInput}). */
  createMessage(params: CreateMessageRequestParams, _options?: unknown): Promise<CreateMessageResult> {
    return this.#request('sampling/createMessage', params, (ctx) => ctx.createMessage(params));
  }

  /**
   * `elicitation/create` to the client of the running handler; outside a handler (a timer, an
   * HTTP route of the app), to this server's one live session, on its standalone stream (the
   * SDK's per-session servers); refused when the server has none or several.
   */
  elicitInput(params: ElicitRequestParams, _options?: unknown): Promise<ElicitResult> {
    return this.#request('elicitation/create', params, (ctx) => ctx.elicitInput(params));
  }

  /** `roots/list` to the client of the running handler (`{ roots }`; outside one: see {@link elicitInput}). */
  async listRoots(_params?: unknown, _options?: unknown): Promise<{ roots: Root[] }> {
    return this.#request('roots/list', undefined, async (ctx) => ({ roots: await ctx.listRoots() }));
  }

  /**
   * A request to the client: through the running handler's context, or (outside a handler,
   * or from work a handler left running after it answered) to this server's one live session.
   */
  async #request<T>(method: string, params: unknown, viaHandler: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const ctx = currentContext.getStore();
    if (ctx) {
      try {
        return await viaHandler(ctx);
      } catch (e) {
        if (!finishedCall(e)) throw e;
      }
    }
    return call(this.#owner._native.requestSession(method, params ?? null, undefined)) as Promise<T>;
  }

  /** The SDK's `server.experimental.tasks`: `elicitInputStream`, `createMessageStream`. */
  get experimental(): { tasks: CoreTaskStreams } {
    return { tasks: coreTaskStreams(this) };
  }

  /**
   * The SDK's `createElicitationCompletionNotifier(elicitationId)`: a function that tells the
   * client a URL-mode elicitation finished (`notifications/elicitation/complete`), callable
   * any time later. It goes to the session of the handler running when it was made (outside
   * one: every live session of this server, which is the one session of a per-session server).
   */
  createElicitationCompletionNotifier(elicitationId: string, _options?: unknown): () => Promise<void> {
    if (typeof elicitationId !== 'string' || elicitationId === '') throw new TypeError('createElicitationCompletionNotifier: elicitationId must be a non-empty string');
    const sessionId = currentContext.getStore()?.sessionId;
    return async () => {
      await call(this.#owner._native.notifySessions('notifications/elicitation/complete', { elicitationId }, sessionId));
    };
  }

  /** The capabilities of the client of the running handler. */
  getClientCapabilities(): Record<string, unknown> | undefined {
    return currentContext.getStore()?.peerCapabilities as Record<string, unknown> | undefined;
  }

  /** The `clientInfo` of the client of the running handler. */
  getClientVersion(): Implementation | undefined {
    return currentContext.getStore()?.peerInfo as Implementation | undefined;
  }

  /** {@link McpServer.sendLoggingMessage}. */
  sendLoggingMessage(params: { level: LoggingLevel; data: unknown; logger?: string }, sessionId?: string): Promise<void> {
    return this.#owner.sendLoggingMessage(params, sessionId);
  }

  /**
   * A notification: `notifications/resources/updated` goes to the subscribers; the list-changed
   * ones are sent by the engine when registrations change (no-ops here); anything else goes to
   * the client of the running handler (outside one: to every live session of this server).
   */
  async notification(n: { method: string; params?: Record<string, unknown> }): Promise<void> {
    if (n.method === 'notifications/resources/updated') return this.#owner.sendResourceUpdated({ uri: String(n.params?.uri) });
    if (n.method.endsWith('/list_changed')) return;
    if (n.method === 'notifications/message') {
      return this.#owner.sendLoggingMessage(n.params as { level: LoggingLevel; data: unknown });
    }
    const ctx = currentContext.getStore();
    if (ctx) await ctx.sendNotification(n);
    else await call(this.#owner._native.notifySessions(n.method, n.params ?? null, undefined));
  }

  /**
   * The SDK's `server.server.setRequestHandler(ListToolsRequestSchema, ...)` & co.: handlers
   * for `tools/list`, `tools/call`, `prompts/list`, `prompts/get`, `resources/list` and
   * `resources/read`, and the app's own tasks (`tasks/get`, `tasks/result`, `tasks/list`,
   * `tasks/cancel`, set before serving starts; see `sdk/server/requestHandlers.ts`); other
   * methods are the engine's: refused with `InvalidParams`. The list
   * handlers are asked when serving starts (`connect`, `listen`, `connectStdio`) and on
   * `sendToolListChanged()` & co.; what they list is served beside what was registered with
   * `registerTool` & co., each call answered by the matching call handler with the SDK's
   * `(request, extra)`.
   */
  setRequestHandler(schema: unknown, handler: RequestHandler): void {
    this.#handlers.set(schema, handler);
  }

  /** Forgets a handler set with {@link setRequestHandler}. */
  removeRequestHandler(method: string): void {
    this.#handlers.remove(method);
  }

  /** @internal Registers what the list handlers list (before serving starts). */
  async _syncHandlers(): Promise<void> {
    if (this.#handlers.size > 0) await this.#handlers.sync();
  }

  /** Asks the tools list handler again, if one is set (the engine tells clients when tools change). */
  sendToolListChanged(): Promise<void> {
    return this._syncHandlers();
  }
  /** Asks the resources list handler again, if one is set (the engine tells clients). */
  sendResourceListChanged(): Promise<void> {
    return this._syncHandlers();
  }
  /** Asks the prompts list handler again, if one is set (the engine tells clients). */
  sendPromptListChanged(): Promise<void> {
    return this._syncHandlers();
  }

  /** {@link McpServer.connect}. */
  connect(transport: StdioServerTransport | AttachableTransport): Promise<void> {
    return this.#owner.connect(transport);
  }

  /** {@link McpServer.close}. */
  close(): Promise<void> {
    return this.#owner.close();
  }
}

function parseUri(uri: string): URL {
  try {
    return new URL(uri);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `not a valid URI: ${uri}`);
  }
}

/**
 * What a tool's exception answers. An {@link McpError} goes to the engine as it is: the engine
 * makes it a tool execution error the model can read (spec: "Error Handling"), except the
 * errors the client must act on (URL elicitation, a 2026-07-28 input round or missing client
 * capability), which stay JSON-RPC errors; one policy for every language (`embed::is_tool_signal`).
 * So is a thrown object with an integer `code` and a string `message` (see `asMcpError`). Any
 * other exception is a tool execution error with its message (a plain object's `message`, or
 * its JSON: see `thrownMessage`).
 */
function toolError(e: unknown): CallToolResult {
  const m = asMcpError(e);
  if (m) throw m;
  return { content: [{ type: 'text', text: thrownMessage(e) }], isError: true };
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Resource answers with bytes become `{blob}` contents; the engine shapes the rest. */
function resourceValue(v: ResourceResult): unknown {
  if (v instanceof Uint8Array) return { blob: base64(v) };
  return v;
}

/** The engine's options for the SDK's `capabilities` (see {@link ServerCapabilities}). */
function capabilityOptions(capabilities: ServerCapabilities | undefined): Record<string, boolean> {
  if (capabilities === undefined || capabilities === null) return {};
  if (typeof capabilities !== 'object') throw new TypeError('McpServer: capabilities must be an object');
  const known = ['tools', 'resources', 'prompts', 'logging', 'completions'];
  for (const k of Object.keys(capabilities)) {
    if (!known.includes(k)) {
      throw new TypeError(
        `McpServer: capabilities.${k} is not supported by ferromcp (known: ${known.join(', ')}; ` +
          'the rest follows from what is registered and the options, e.g. tasksExtension)',
      );
    }
  }
  const named = (k: keyof ServerCapabilities) => capabilities[k] !== undefined && capabilities[k] !== null;
  const out: Record<string, boolean> = { enableLogging: named('logging') };
  if (named('tools')) out.enableTools = true;
  if (named('resources')) out.enableResources = true;
  if (named('prompts')) out.enablePrompts = true;
  return out;
}

/**
 * An MCP server whose handlers are JavaScript functions, in the shape of the official
 * TypeScript SDK's `McpServer`.
 */
export class McpServer {
  readonly #dispatch = new Dispatch();
  /** The dispatcher id of each tool {@link registerTool} registered, by name. */
  readonly #toolHandlers = new Map<string, number>();
  /** Handler ids a transformed tool calls: kept when their own tool is removed, as the engine
   * keeps the original's handler for the transform (`core/src/server/transform.rs`). */
  readonly #keptHandlers = new Set<number>();
  readonly #native: NativeServer;
  /** `serverInfo` as given. */
  readonly info: ServerInfo;
  #http: HttpServer | undefined;
  #stdio: Promise<void> | undefined;
  readonly #transports = new Set<AttachableTransport>();
  #core: McpServerCore | undefined;
  readonly #experimental: { tasks: ExperimentalMcpServerTasks };

  constructor(info: ServerInfo, options: ServerOptions = {}) {
    this.info = info;
    const { capabilities, middleware, taskStore, taskMessageQueue: _queue, ...rest } = options ?? {};
    const { tasks, ...engineCaps } = capabilities ?? {};
    const config: Record<string, unknown> = { ...info, ...rest, ...capabilityOptions(capabilities ? engineCaps : undefined) };
    this.#native = callSync(() => new native.NativeServer(config, this.#dispatch.native));
    this.#experimental = { tasks: new ExperimentalMcpServerTasks(this, taskStore, tasks) };
    if (middleware !== undefined) {
      if (!Array.isArray(middleware)) throw new TypeError('McpServer: middleware must be an array');
      this.use(...middleware);
    }
  }

  /**
   * Adds middleware after the layers already there (the first added is outermost): functions
   * `async (ctx, next) => ...` (see {@link MiddlewareContext}) and the engine's built-ins
   * (`rateLimit({ limit, windowMs })`, `requestLog()`, `maskErrors()`, `timing(hook)`, or their
   * config objects `{ name: 'rateLimit', ... }`). A layer may answer without `next()`, throw an
   * {@link McpError} (sent as that JSON-RPC error), change `ctx.params` before `next()` or the
   * result after it; other exceptions answer `Internal error`. Throws an {@link McpError} once
   * the server has handled its first request (the chain is fixed then), or for unknown
   * built-in names and options.
   */
  use(...layers: Middleware[]): this {
    for (const layer of layers) {
      callSync(() => addMiddleware(this.#native, (h) => this.#dispatch.add(h), layer));
    }
    return this;
  }

  /**
   * Mounts `server` under `prefix`, live: its tools and prompts are served here as
   * `prefix_name`, its resources as `scheme://prefix/path` (templates likewise), with its own
   * handlers and middleware; tools added to it later show (clients get `list_changed`). Throws
   * an {@link McpError} (`InvalidParams`) for a prefix with `/ : { }` or white space, a prefix
   * already mounted, or a cycle. See `docs/composition.md`.
   */
  mount(prefix: string, server: McpServer): void {
    mountServer(this, prefix, server);
  }

  /**
   * Copies the tools, resources, templates, prompts and completions of `server` into this one
   * once, namespaced as {@link mount} does (later changes to `server` do not show; its
   * middleware does not run for the copies).
   */
  importServer(prefix: string, server: McpServer): void {
    importServer(this, prefix, server);
  }

  /**
   * Registers `name`, a tool made from this server's tool `original` (which stays; remove it to
   * offer only the new one): another title or description, arguments renamed, described,
   * hidden behind a value, defaulted or constrained (`arguments: { q: { name: 'query' } }`, see
   * {@link ArgTransform}), the output reshaped by `transformOutput` and checked against
   * `outputSchema`. Throws an {@link McpError} (`InvalidParams`, naming the reason) for a tool
   * this server lacks, an argument the original lacks, two arguments with one name, a bad
   * constraint, a hidden argument without a default, `outputSchema` without `transformOutput`.
   */
  transformTool(original: string, name: string, options: TransformToolOptions = {}): void {
    transformTool(this, original, name, options);
    // The new tool calls the original's handler, which must outlive the original's removal.
    const id = this.#toolHandlers.get(original);
    if (id !== undefined) this.#keptHandlers.add(id);
  }

  /**
   * Registers the tool that `transform`, a transform in its JSON form (as a configuration file
   * holds it, see {@link ToolTransformConfig}), makes from this server's tool `original`:
   * `{ name: 'find', description: '...', arguments: { q: { name: 'query' }, index: { hide: true,
   * default: 'docs' }, limit: { default: 5, constraints: { maximum: 20 } } } }`. The same as
   * {@link transformTool} without `transformOutput`. Throws an {@link McpError}
   * (`InvalidParams`, naming the reason) for a member the form does not have, a hidden argument
   * without a default, and whatever {@link transformTool} refuses.
   */
  addTransformedTool(original: string, transform: ToolTransformConfig): void {
    addTransformedTool(this, original, transform);
    // The new tool calls the original's handler, which must outlive the original's removal.
    const id = this.#toolHandlers.get(original);
    if (id !== undefined) this.#keptHandlers.add(id);
  }

  /** @internal The native server (for `Client.memory`). */
  get _native(): NativeServer {
    return this.#native;
  }

  /** @internal Registers a handler with this server's dispatcher (`registerAppResource`); answers its id. */
  _addHandler(handler: (payload: unknown, ctx: RequestContext) => unknown): number {
    return this.#dispatch.add(handler);
  }

  /** @internal Forgets a handler {@link _addHandler} registered. */
  _deleteHandler(id: number): void {
    this.#dispatch.delete(id);
  }

  /**
   * Registers a tool. With an `inputSchema` the handler gets `(args, ctx)` (arguments already
   * validated by the engine), without one `(ctx)`. Whatever the handler throws becomes an
   * `isError` result the model can read (as the TypeScript SDK does), except an
   * {@link McpError} with code `UrlElicitationRequired`, `InputRequired` (2026-07-28: also what
   * `ctx.input`, `ctx.elicitInput`, ... throw in that era) or `MissingRequiredClientCapability`,
   * which answers as that JSON-RPC error.
   */
  registerTool<In extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<In>,
    handler: ToolCallback<In>,
  ): Registered {
    const inputSchema = toJsonSchema(config.inputSchema, `tool ${name}: inputSchema`) ?? { type: 'object' };
    const outputSchema = toJsonSchema(config.outputSchema, `tool ${name}: outputSchema`, 'output');
    const definition: Record<string, unknown> = { name, inputSchema };
    for (const k of ['title', 'description', 'annotations', 'icons', 'execution', '_meta'] as const) {
      if (config[k] !== undefined) definition[k] = config[k];
    }
    if (outputSchema) definition.outputSchema = outputSchema;
    const takesArgs = config.inputSchema !== undefined;
    const invoke = takesArgs
      ? (handler as (a: unknown, c: RequestContext) => unknown)
      : (_a: unknown, c: RequestContext) => (handler as (c: RequestContext) => unknown)(c);
    const id = this.#dispatch.add(invoke, undefined, toolError);
    callSync(() => this.#native.addTool(definition, id));
    this.#toolHandlers.set(name, id);
    return {
      remove: () => {
        this.#native.removeTool(name);
        if (this.#toolHandlers.get(name) === id) this.#toolHandlers.delete(name);
        if (!this.#keptHandlers.has(id)) this.#dispatch.delete(id);
      },
    };
  }

  /** Registers a static resource (`uri`) or a resource template ({@link ResourceTemplate}). */
  registerResource(name: string, uri: string, metadata: ResourceMetadata, read: ReadResourceCallback): Registered;
  registerResource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    read: ReadResourceTemplateCallback,
  ): Registered;
  registerResource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    metadata: ResourceMetadata,
    read: ReadResourceCallback | ReadResourceTemplateCallback,
  ): Registered {
    const definition: Record<string, unknown> = { name, ...metadata };
    if (typeof uriOrTemplate === 'string') {
      definition.uri = uriOrTemplate;
      const f = read as ReadResourceCallback;
      const id = this.#dispatch.add((p, ctx) => then(f(parseUri((p as { uri: string }).uri), ctx), resourceValue));
      callSync(() => this.#native.addResource(definition, id));
      return {
        remove: () => {
          this.#native.removeResource(uriOrTemplate);
          this.#dispatch.delete(id);
        },
      };
    }
    definition.uriTemplate = uriOrTemplate.uriTemplate;
    const f = read as ReadResourceTemplateCallback;
    const id = this.#dispatch.add((p, ctx) => {
      const { uri, variables } = p as { uri: string; variables: Record<string, string> };
      return then(f(parseUri(uri), variables, ctx), resourceValue);
    });
    callSync(() => this.#native.addResourceTemplate(definition, id));
    for (const [variable, complete] of Object.entries(uriOrTemplate.complete)) {
      this.#addCompletion({ type: 'ref/resource', uri: uriOrTemplate.uriTemplate }, variable, complete);
    }
    return {
      remove: () => {
        this.#dispatch.delete(id);
      },
    };
  }

  /** Registers a prompt; the handler gets `(args, ctx)` (string arguments) and returns messages. */
  registerPrompt(
    name: string,
    config: PromptConfig,
    handler: (args: Record<string, string>, ctx: RequestContext) => PromptResult | Promise<PromptResult>,
  ): Registered {
    const definition: Record<string, unknown> = { name };
    for (const k of ['title', 'description', 'icons', '_meta'] as const) {
      if (config[k] !== undefined) definition[k] = config[k];
    }
    const schema = toJsonSchema(config.argsSchema, `prompt ${name}: argsSchema`);
    if (schema) {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      definition.arguments = Object.entries(props).map(([arg, s]) => {
        const a: Record<string, unknown> = { name: arg, required: required.has(arg) };
        if (typeof s.description === 'string') a.description = s.description;
        if (typeof s.title === 'string') a.title = s.title;
        return a;
      });
    }
    const id = this.#dispatch.add((args, ctx) => handler((args ?? {}) as Record<string, string>, ctx));
    callSync(() => this.#native.addPrompt(definition, id));
    if (config.argsSchema && typeof config.argsSchema === 'object') {
      for (const [arg, s] of Object.entries(config.argsSchema)) {
        const complete = (s as { [COMPLETE]?: CompleteCallback })?.[COMPLETE];
        if (complete) this.#addCompletion({ type: 'ref/prompt', name }, arg, complete);
      }
    }
    return {
      remove: () => {
        this.#native.removePrompt(name);
        this.#dispatch.delete(id);
      },
    };
  }

  /**
   * Registers a completion handler for `argument` of a prompt (`{type: 'ref/prompt', name}`) or
   * resource template (`{type: 'ref/resource', uri}`); without a reference, the fallback for
   * every argument that has no handler of its own.
   */
  registerCompletion(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string } | undefined,
    argument: string | undefined,
    complete: CompleteCallback,
  ): void {
    this.#addCompletion(ref, argument, complete);
  }

  #addCompletion(ref: unknown, argument: string | undefined, complete: CompleteCallback): void {
    // The engine shapes the list (embed::shape::completion caps it at 100 with total/hasMore).
    const id = this.#dispatch.add((p) => {
      const params = p as { argument: { value: string }; context?: { arguments?: Record<string, string> } };
      return complete(params.argument.value, params.context);
    });
    callSync(() => this.#native.addCompletion(ref ?? null, argument ?? null, id));
  }

  /** Tells clients subscribed to `uri` that it changed (`notifications/resources/updated`). */
  sendResourceUpdated(params: { uri: string }): void {
    this.#native.notifyResourceUpdated(params.uri);
  }

  /**
   * Sends a log message (`notifications/message`) to every connected client, or, with
   * `sessionId` (a handler's `ctx.sessionId`), only to that Streamable HTTP session, as the
   * TypeScript SDK's `sendLoggingMessage(params, sessionId)`; each client's level applies. A
   * session this server does not hold (ended, or served by another replica) is skipped.
   */
  async sendLoggingMessage(
    params: { level: LoggingLevel; data: unknown; logger?: string },
    sessionId?: string,
  ): Promise<void> {
    await call(this.#native.log(params.level, params.data ?? null, params.logger, sessionId));
  }

  /**
   * Serves one client over this process's stdin/stdout; resolves when stdin closes or after
   * {@link close}. Nothing else may write to stdout meanwhile (use `console.error` for
   * diagnostics).
   */
  connectStdio(): Promise<void> {
    this.#stdio ??= (async () => {
      await this.#core?._syncHandlers();
      return call(this.#native.serveStdio());
    })();
    return this.#stdio;
  }

  /** `serveStdio()` is `connectStdio()`. */
  serveStdio(): Promise<void> {
    return this.connectStdio();
  }

  /**
   * `connect(transport)`, as with the TypeScript SDK: a `StdioServerTransport` serves
   * stdin/stdout; a `StreamableHTTPServerTransport` (`ferromcp/server/streamableHttp.js`) gets
   * an engine endpoint of this server that its `handleRequest(req, res, body)` feeds.
   */
  async connect(transport: StdioServerTransport | AttachableTransport): Promise<void> {
    await this.#core?._syncHandlers();
    if (transport instanceof StdioServerTransport) {
      void this.connectStdio();
      return;
    }
    if (!isAttachable(transport)) {
      throw new TypeError('connect() takes a StdioServerTransport or a StreamableHTTPServerTransport; see also listen()');
    }
    transport[ATTACH_TRANSPORT](this);
    this.#transports.add(transport);
    await transport.start?.();
  }

  /**
   * The TypeScript SDK's `mcpServer.server` (see {@link McpServerCore}): `createMessage`,
   * `elicitInput`, `listRoots` to the client of the running handler, `onclose`, ...
   */
  get server(): McpServerCore {
    this.#core ??= new McpServerCore(this);
    return this.#core;
  }

  /** The TypeScript SDK's experimental API: `experimental.tasks.registerToolTask` (tasks in the `taskStore` option's store). */
  get experimental(): { tasks: ExperimentalMcpServerTasks } {
    return this.#experimental;
  }

  /**
   * The TypeScript SDK's older `server.tool(name, [description], [paramsShape], [annotations], cb)`:
   * {@link registerTool} with those. A parameter shape (`{}` or an object of schemas) makes the
   * callback `(args, ctx)`, else it is `(ctx)`.
   */
  tool(name: string, ...rest: unknown[]): Registered {
    const cb = rest.pop() as (...a: unknown[]) => unknown;
    if (typeof cb !== 'function') throw new TypeError(`tool ${name}: the last argument must be the callback`);
    const config: Record<string, unknown> = {};
    if (typeof rest[0] === 'string') config.description = rest.shift();
    if (rest.length > 0 && isParamsShape(rest[0])) config.inputSchema = rest.shift();
    if (rest.length > 0 && typeof rest[0] === 'object' && rest[0] !== null) config.annotations = rest.shift();
    if (rest.length > 0) throw new TypeError(`tool ${name}: unexpected arguments`);
    return this.registerTool(name, config as ToolConfig<SchemaInput>, cb as ToolCallback<SchemaInput>);
  }

  /** The SDK's older `server.prompt(name, [description], [argsShape], cb)`: {@link registerPrompt}. */
  prompt(name: string, ...rest: unknown[]): Registered {
    const cb = rest.pop() as (...a: unknown[]) => PromptResult | Promise<PromptResult>;
    if (typeof cb !== 'function') throw new TypeError(`prompt ${name}: the last argument must be the callback`);
    const config: PromptConfig = {};
    if (typeof rest[0] === 'string') config.description = rest.shift() as string;
    const shaped = rest.length > 0 && isParamsShape(rest[0]);
    if (shaped) config.argsSchema = rest.shift() as SchemaInput;
    if (rest.length > 0) throw new TypeError(`prompt ${name}: unexpected arguments`);
    return this.registerPrompt(name, config, shaped ? (args, ctx) => cb(args, ctx) : (_args, ctx) => cb(ctx));
  }

  /** The SDK's older `server.resource(name, uriOrTemplate, [metadata], cb)`: {@link registerResource}. */
  resource(name: string, uriOrTemplate: string | ResourceTemplate, ...rest: unknown[]): Registered {
    const cb = rest.pop();
    if (typeof cb !== 'function') throw new TypeError(`resource ${name}: the last argument must be the callback`);
    const metadata = (rest[0] ?? {}) as ResourceMetadata;
    return typeof uriOrTemplate === 'string'
      ? this.registerResource(name, uriOrTemplate, metadata, cb as ReadResourceCallback)
      : this.registerResource(name, uriOrTemplate, metadata, cb as ReadResourceTemplateCallback);
  }

  /**
   * Serves Streamable HTTP at `http://host:port/path` and resolves once listening. The
   * returned {@link HttpServer} keeps the process alive until closed.
   */
  async listen(options: ListenOptions = {}): Promise<HttpServer> {
    const { port = 3000, host = '127.0.0.1', auth, tls, oauthProxy, ...rest } = options;
    const http: Record<string, unknown> = tls ? { ...rest, tls: tlsConfig(tls) } : { ...rest };
    if (oauthProxy) http.oauthProxy = oauthProxySettings(oauthProxy);
    await this.#core?._syncHandlers();
    const n = await call(
      auth ? this.#native.serveHttpAuth(host, port, http, auth._native()) : this.#native.serveHttp(host, port, http),
    );
    this.#http = new HttpServer(n);
    return this.#http;
  }

  /**
   * A Streamable HTTP endpoint to mount in an app that owns its HTTP server (Node's `http`,
   * Express, fetch-style frameworks): see {@link McpHttpHandler}. Options as for
   * {@link listen} except `port` and `host`. Host/Origin checks: on by default for the loopback
   * names; an app served under another name lists it in `allowedHosts` (or turns the check off
   * with `dnsRebindingProtection: false` behind a proxy that checks it). With `auth`, also
   * route the Protected Resource Metadata's path ({@link ProtectedResource.metadataPath}) to it.
   */
  createHttpHandler(options: Omit<ListenOptions, 'port' | 'host' | 'tls' | 'oauthProxy'> = {}): McpHttpHandler {
    if ('tls' in options) throw new TypeError('createHttpHandler: tls belongs to the server that owns the connections; see listen({ tls })');
    if ('oauthProxy' in options) {
      throw new TypeError(
        'createHttpHandler: oauthProxy is served by listen({ oauthProxy }); in a host framework, mount OAuthProxy.create(...).router() (ferromcp/server/auth/oauthProxy.js)',
      );
    }
    const { auth, ...http } = options;
    const n = callSync(() => (auth ? this.#native.httpHandlerAuth(http, auth._native()) : this.#native.httpHandler(http)));
    return new McpHttpHandler(n, options.maxBodySize ?? 4 * 1024 * 1024);
  }

  /**
   * The metrics of the `openTelemetry` layer in the Prometheus text exposition format
   * (0.0.4; serve it as `text/plain; version=0.0.4`), for an app that mounts
   * {@link createHttpHandler}: that handler owns no listener to serve the layer's `prometheus`
   * path on, so the app serves this text on a route of its own. `undefined` without the layer or
   * its `prometheus` option (or `OTEL_METRICS_EXPORTER=prometheus`). The listener's gauges
   * (sessions, connections, SSE streams) are {@link listen}'s only.
   */
  prometheusText(): string | undefined {
    return this.#native.prometheusText() ?? undefined;
  }

  /** Whether the server is serving (stdio or HTTP). */
  isConnected(): boolean {
    return this.#stdio !== undefined || this.#http !== undefined || this.#transports.size > 0;
  }

  /**
   * Stops serving, gracefully: the HTTP server started by {@link listen} and the stdio serving
   * of {@link connectStdio}, if any. No further request is read; an open `subscriptions/listen`
   * is answered with its completion result (`{ resultType: 'complete', _meta: { subscriptionId } }`,
   * 2026-07-28's "Graceful Closure"); requests being served finish and are answered. Resolves
   * once both have stopped. Stdin is served once: a later `connectStdio()` ends at once. (Do
   * not await it inside a handler: it waits for that handler's request.)
   */
  async close(): Promise<void> {
    const h = this.#http;
    this.#http = undefined;
    const stdio = this.#stdio;
    this.#stdio = undefined;
    if (stdio) this.#native.stopStdio();
    const transports = [...this.#transports];
    this.#transports.clear();
    await Promise.all(transports.map((t) => t.close()));
    if (h) await h.close();
    if (stdio) await stdio;
    const core = this.#core;
    if (core?.onclose && (h || stdio || transports.length > 0)) core.onclose();
  }
}

/** Whether `e` says the handler call whose context was used has already answered: the engine's
 * -32600 `Invalid Request` with the detail "this request has already finished" in its data. */
function finishedCall(e: unknown): boolean {
  if (!(e instanceof McpError) || e.code !== ErrorCode.InvalidRequest) return false;
  return typeof e.data === 'string' && e.data.includes('already finished');
}
