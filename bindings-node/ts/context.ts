/**
 * {@link RequestContext}: what a handler gets besides its arguments — the request's
 * `AbortSignal` (aborted by MCP cancellation), progress, logging, and requests back to the
 * client (elicitation, sampling, roots).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { call, callSync, ErrorCode, McpError } from './errors';
import type { InputRequest } from './errors';
import type { AuthInfo } from './auth';
import type { NativeDispatcher } from './native';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  RequestId,
  Root,
} from './types';

interface Info {
  requestId: RequestId;
  meta: Record<string, unknown> | null;
  protocolVersion: string | null;
  peerInfo: Implementation | null;
  peerCapabilities: Record<string, unknown> | null;
  progressToken: string | number | null;
  httpHeaders: [string, string][] | null;
  requestState: unknown;
  auth: AuthInfo | null;
  sessionId: string | null;
}

/** The context of one request, passed to every handler as its last argument. */
export class RequestContext {
  /** @internal */
  readonly #native: NativeDispatcher;
  /** @internal */
  readonly #key: number;
  #info: Info | undefined;
  #controller: AbortController | undefined;
  #aborted = false;

  /** @internal */
  constructor(native: NativeDispatcher, key: number) {
    this.#native = native;
    this.#key = key;
  }

  /** @internal Called when the request is cancelled. */
  _abort(): void {
    this.#aborted = true;
    this.#controller?.abort(new McpError(ErrorCode.RequestCancelled, 'request cancelled'));
  }

  /** Aborted when the request is cancelled (MCP `notifications/cancelled`, or the session ends). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(new McpError(ErrorCode.RequestCancelled, 'request cancelled'));
    }
    return this.#controller.signal;
  }

  get #details(): Info {
    this.#info ??= callSync(() => this.#native.ctxInfo(this.#key)) as Info;
    return this.#info;
  }

  /**
   * The Streamable HTTP session this request belongs to (its `Mcp-Session-Id`), as the
   * TypeScript SDK's `extra.sessionId`; undefined on stdio, in memory, on a stateless server
   * and for 2026-07-28 per-request clients (which have no sessions). Give it to
   * `server.sendLoggingMessage(params, sessionId)` to log to this client later.
   */
  get sessionId(): string | undefined {
    return this.#details.sessionId ?? undefined;
  }

  /** The JSON-RPC request id. */
  get requestId(): RequestId {
    return this.#details.requestId;
  }

  /** The request's `_meta` (undefined when absent). */
  get _meta(): Record<string, unknown> | undefined {
    return this.#details.meta ?? undefined;
  }

  /** The negotiated protocol revision (e.g. `"2025-11-25"`). */
  get protocolVersion(): string | undefined {
    return this.#details.protocolVersion ?? undefined;
  }

  /** The client's `clientInfo` (or, in a client's handler, the server's `serverInfo`). */
  get peerInfo(): Implementation | undefined {
    return this.#details.peerInfo ?? undefined;
  }

  /** The peer's declared capabilities. */
  get peerCapabilities(): Record<string, unknown> | undefined {
    return this.#details.peerCapabilities ?? undefined;
  }

  /** The request's progress token (undefined when the requester asked for no progress). */
  get progressToken(): string | number | undefined {
    return this.#details.progressToken ?? undefined;
  }

  /**
   * The HTTP request this request arrived in (Streamable HTTP or the legacy HTTP+SSE
   * endpoint): its headers, names in lowercase, repeated fields joined with `", "` as HTTP
   * allows. Undefined on stdio and in-memory connections.
   */
  get http(): { headers: Record<string, string> } | undefined {
    const pairs = this.#details.httpHeaders;
    if (!pairs) return undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of pairs) headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    return { headers };
  }

  /**
   * The verified bearer token's identity on a protected HTTP server (see
   * `ProtectedResource`); undefined when the server is not protected. The token itself
   * is not included.
   */
  get auth(): AuthInfo | undefined {
    return this.#details.auth ?? undefined;
  }

  /**
   * The request as the TypeScript SDK v2 names it (`ctx.mcpReq`): `id`, `_meta`, `signal`,
   * `log`, `notify`, `send`, `elicitInput`, `requestSampling`; the same operations as the
   * members of this context.
   */
  get mcpReq(): {
    id: RequestId;
    _meta: Record<string, unknown> | undefined;
    signal: AbortSignal;
    log: (level: LoggingLevel, data: unknown, logger?: string) => Promise<void>;
    notify: (n: { method: string; params?: Record<string, unknown> }) => Promise<void>;
    send: <R = unknown>(r: { method: string; params?: Record<string, unknown> }) => Promise<R>;
    elicitInput: (params: ElicitRequestParams) => Promise<ElicitResult>;
    requestSampling: (params: CreateMessageRequestParams) => Promise<CreateMessageResult>;
  } {
    return {
      id: this.requestId,
      _meta: this._meta,
      signal: this.signal,
      log: (level, data, logger) => this.log(level, data, logger),
      notify: (n) => this.sendNotification(n),
      send: (r) => this.sendRequest(r),
      elicitInput: (params) => this.elicitInput(params),
      requestSampling: (params) => this.createMessage(params),
    };
  }

  /** Reports progress (`notifications/progress`); a no-op when no progress was asked for. */
  async reportProgress(progress: number, total?: number, message?: string): Promise<void> {
    await call(this.#native.ctxProgress(this.#key, progress, total, message));
  }

  /** Sends a log message to the client (`notifications/message`), filtered by its level. */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    await call(this.#native.ctxLog(this.#key, level, data ?? null, logger));
  }

  /** `log('debug', ...)`. */
  debug(data: unknown, logger?: string): Promise<void> {
    return this.log('debug', data, logger);
  }

  /** `log('info', ...)`. */
  info(data: unknown, logger?: string): Promise<void> {
    return this.log('info', data, logger);
  }

  /** `log('warning', ...)`. */
  warning(data: unknown, logger?: string): Promise<void> {
    return this.log('warning', data, logger);
  }

  /** `log('error', ...)`. */
  error(data: unknown, logger?: string): Promise<void> {
    return this.log('error', data, logger);
  }

  /**
   * Sends a request to the client and resolves with its result: `sendRequest(method, params)`,
   * or `sendRequest({ method, params })` as in the TypeScript SDK (a result schema given after
   * it is not needed: results are plain JSON). Fails with an {@link McpError}
   * (`MissingRequiredClientCapability`, -32021) when the client did not declare the capability;
   * left uncaught in a tool, that is an `isError` result for a 2025-era client and the -32021
   * answer for a 2026-07-28 one.
   */
  async sendRequest<R = unknown>(
    method: string | { method: string; params?: Record<string, unknown> },
    params?: unknown,
  ): Promise<R> {
    if (this.signal.aborted) throw new McpError(ErrorCode.RequestCancelled, 'request cancelled');
    const [m, p] = typeof method === 'string' ? [method, params] : [method.method, method.params];
    return (await call(this.#native.ctxRequest(this.#key, m, p ?? null))) as R;
  }

  /** Sends a notification related to this request: `(method, params)` or `({ method, params })`. */
  async sendNotification(
    method: string | { method: string; params?: Record<string, unknown> },
    params?: Record<string, unknown>,
  ): Promise<void> {
    const [m, p] = typeof method === 'string' ? [method, params] : [method.method, method.params];
    await call(this.#native.ctxNotify(this.#key, m, p ?? null));
  }

  /**
   * Asks the client for several things at once: `requests` maps keys of your choosing to
   * `{ method, params }` (`elicitation/create`, `sampling/createMessage`, `roots/list`); resolves
   * with the client's results under the same keys. Before 2026-07-28 each is sent as a request;
   * in the 2026-07-28 era this rejects with code `InputRequired` (let it propagate), the engine
   * answers `input_required`, and when the client retries with the answers the handler runs
   * again and this call resolves with them. One handler serves both eras.
   */
  async input(requests: Record<string, InputRequest>): Promise<Record<string, unknown>> {
    return (await call(this.#native.ctxInput(this.#key, requests))) as Record<string, unknown>;
  }

  /**
   * 2026-07-28: the client's answer to input request `key` of an earlier
   * {@link inputRequired} (undefined when this request carries none).
   */
  inputResponse(key: string): unknown {
    return callSync(() => this.#native.ctxInputResponse(this.#key, key)) ?? undefined;
  }

  /**
   * 2026-07-28: the `state` given to {@link inputRequired} in the previous round, verified by
   * the engine (undefined on a first round and before 2026-07-28).
   */
  get requestState(): unknown {
    return this.#details.requestState ?? undefined;
  }

  /** Asks the user for input (`elicitation/create`). */
  elicitInput(params: ElicitRequestParams): Promise<ElicitResult> {
    return this.sendRequest<ElicitResult>('elicitation/create', params);
  }

  /** Asks the client's model for a message (`sampling/createMessage`). */
  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return this.sendRequest<CreateMessageResult>('sampling/createMessage', params);
  }

  /** The client's roots (`roots/list`). */
  async listRoots(): Promise<Root[]> {
    const r = await this.sendRequest<{ roots: Root[] }>('roots/list');
    return r.roots;
  }

  /**
   * Closes the SSE stream carrying this request (Streamable HTTP, 2025-11-25): the client
   * reconnects and gets the answer on the resumed stream. False where there is no such stream.
   */
  closeSseStream(): boolean {
    return this.#native.ctxCloseSseStream(this.#key);
  }

  /**
   * The TypeScript SDK's `extra.closeSSEStream()`: {@link closeSseStream} (the engine keeps
   * the events, so it is there with or without an SDK `eventStore`).
   */
  get closeSSEStream(): () => void {
    return () => void this.closeSseStream();
  }

  /** The TypeScript SDK's `extra.requestInfo` (`{ headers }` of the HTTP request; undefined on stdio). */
  get requestInfo(): { headers: Record<string, string> } | undefined {
    return this.http;
  }

  /** The TypeScript SDK's `extra.authInfo`: {@link auth}. */
  get authInfo(): AuthInfo | undefined {
    return this.auth;
  }
}

/**
 * @internal The context of the handler running in this async chain (set by the dispatcher), so
 * that the SDK's `mcpServer.server.createMessage(...)` called from a tool handler reaches the
 * client that called the tool.
 */
export const currentContext = new AsyncLocalStorage<RequestContext>();
