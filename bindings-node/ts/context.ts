/**
 * {@link RequestContext}: what a handler gets besides its arguments — the request's
 * `AbortSignal` (aborted by MCP cancellation), progress, logging, and requests back to the
 * client (elicitation, sampling, roots).
 * @module
 */
import { call, ErrorCode, McpError } from './errors';
import type { NativeContext } from './native';
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

/** The context of one request, passed to every handler as its last argument. */
export class RequestContext {
  /** @internal */
  readonly #native: NativeContext;
  /** Aborted when the request is cancelled (MCP `notifications/cancelled`, or the session ends). */
  readonly signal: AbortSignal;

  /** @internal */
  constructor(native: NativeContext, signal: AbortSignal) {
    this.#native = native;
    this.signal = signal;
  }

  /** The JSON-RPC request id. */
  get requestId(): RequestId {
    return this.#native.requestId as RequestId;
  }

  /** The request's `_meta` (undefined when absent). */
  get _meta(): Record<string, unknown> | undefined {
    return (this.#native.meta as Record<string, unknown> | null) ?? undefined;
  }

  /** The negotiated protocol revision (e.g. `"2025-11-25"`). */
  get protocolVersion(): string | undefined {
    return this.#native.protocolVersion ?? undefined;
  }

  /** The client's `clientInfo` (or, in a client's handler, the server's `serverInfo`). */
  get peerInfo(): Implementation | undefined {
    return (this.#native.peerInfo as Implementation | null) ?? undefined;
  }

  /** The peer's declared capabilities. */
  get peerCapabilities(): Record<string, unknown> | undefined {
    return (this.#native.peerCapabilities as Record<string, unknown> | null) ?? undefined;
  }

  /** The request's progress token (undefined when the requester asked for no progress). */
  get progressToken(): string | number | undefined {
    return (this.#native.progressToken as string | number | null) ?? undefined;
  }

  /** Reports progress (`notifications/progress`); a no-op when no progress was asked for. */
  async reportProgress(progress: number, total?: number, message?: string): Promise<void> {
    await call(this.#native.progress(progress, total, message));
  }

  /** Sends a log message to the client (`notifications/message`), filtered by its level. */
  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    await call(this.#native.log(level, data ?? null, logger));
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
   * (`MethodNotFound`) when the client did not declare the capability.
   */
  async sendRequest<R = unknown>(
    method: string | { method: string; params?: Record<string, unknown> },
    params?: unknown,
  ): Promise<R> {
    if (this.signal.aborted) throw new McpError(ErrorCode.RequestCancelled, 'request cancelled');
    const [m, p] = typeof method === 'string' ? [method, params] : [method.method, method.params];
    return (await call(this.#native.request(m, p ?? null))) as R;
  }

  /** Sends a notification related to this request: `(method, params)` or `({ method, params })`. */
  async sendNotification(
    method: string | { method: string; params?: Record<string, unknown> },
    params?: Record<string, unknown>,
  ): Promise<void> {
    const [m, p] = typeof method === 'string' ? [method, params] : [method.method, method.params];
    await call(this.#native.notify(m, p ?? null));
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
    return this.#native.closeSseStream();
  }
}
