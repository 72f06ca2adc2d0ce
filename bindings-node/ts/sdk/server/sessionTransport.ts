/**
 * The part the TypeScript SDK's two Streamable HTTP server transports share on ferromcp's
 * engine (`StreamableHTTPServerTransport` for Node's `http`/Express and
 * `WebStandardStreamableHTTPServerTransport` for fetch-style frameworks such as Hono): the
 * options, the engine endpoint `server.connect(transport)` gives it, the session id learned
 * from the `initialize` answer (chosen by `sessionIdGenerator`), `onsessioninitialized`,
 * `onsessionclosed`/`onclose` when the client ends the session, and `close()`.
 * @internal
 */
import type { McpHttpHandler, SessionIdChoice } from '../../http';
import { ATTACH_TRANSPORT, type AttachableTransport, type McpServer } from '../../server';

/** Options of the Streamable HTTP server transports (the SDK's names). */
export interface StreamableHTTPServerTransportOptions {
  /**
   * A function: sessions, each with the id it returns when an `initialize` opens one (1-256
   * visible ASCII characters, as the spec's `Mcp-Session-Id`). `undefined`: stateless, every
   * POST is handled on its own.
   */
  sessionIdGenerator?: (() => string) | undefined;
  /** Called with the new session's id once `initialize` is answered, before the answer is sent. */
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  /** Called with the session's id when the client ends it (`DELETE`). */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Answer each POST with one JSON body instead of an SSE stream. */
  enableJsonResponse?: boolean;
  /**
   * Accepted for the SDK's shape and not used: the engine stores the events of each session
   * and replays them on `Last-Event-ID` itself.
   */
  eventStore?: unknown;
  /** Allowed `Host` values (checked when {@link enableDnsRebindingProtection} is on). */
  allowedHosts?: string[];
  /** Allowed `Origin` values (checked when {@link enableDnsRebindingProtection} is on). */
  allowedOrigins?: string[];
  /** Check `Host`/`Origin` (default off, as the SDK's transport; `createMcpExpressApp` checks `Host`). */
  enableDnsRebindingProtection?: boolean;
  /** SSE `retry:` hint in ms. */
  retryInterval?: number;
  /** An idle SSE stream gets a keep-alive comment this often (ms). */
  keepAliveMs?: number;
  /** Largest request body in bytes (413 beyond; default 4 MiB). */
  maxRequestBodySize?: number;
}

/** The engine endpoint's path; the app may mount the transport on any route. */
export const ENDPOINT = '/mcp';

/** The session bookkeeping of one SDK-shaped Streamable HTTP server transport. */
export abstract class SessionTransport implements AttachableTransport {
  protected readonly options: StreamableHTTPServerTransportOptions;
  #handler: McpHttpHandler | undefined;
  #host: string | undefined;
  #closed = false;
  /** The session's id, once `initialize` is answered (undefined when stateless). */
  sessionId: string | undefined;
  /** Called once when the transport closes (`close()`, or the client's `DELETE`). */
  onclose?: () => void;
  /** Errors while handling a request (also thrown by `handleRequest`). */
  onerror?: (error: Error) => void;

  constructor(options: StreamableHTTPServerTransportOptions) {
    this.options = { ...options };
  }

  /** @internal `server.connect(this)`. */
  [ATTACH_TRANSPORT](server: McpServer): void {
    if (this.#handler) throw new Error('Transport already connected to a server');
    const o = this.options;
    this.#handler = server.createHttpHandler({
      path: ENDPOINT,
      stateless: o.sessionIdGenerator === undefined,
      jsonResponse: o.enableJsonResponse === true,
      dnsRebindingProtection: o.enableDnsRebindingProtection === true,
      legacySse: false,
      ...(o.allowedHosts ? { allowedHosts: o.allowedHosts } : {}),
      ...(o.allowedOrigins ? { allowedOrigins: o.allowedOrigins } : {}),
      ...(o.retryInterval !== undefined ? { retryIntervalMs: o.retryInterval } : {}),
      ...(o.keepAliveMs !== undefined ? { sseKeepAliveMs: o.keepAliveMs } : {}),
      ...(o.maxRequestBodySize !== undefined ? { maxBodySize: o.maxRequestBodySize } : {}),
    });
  }

  /** No-op (the SDK calls it from `connect`). */
  async start(): Promise<void> {}

  /** The endpoint, or a clear error before `connect`. */
  protected handler(): McpHttpHandler {
    if (!this.#handler) throw new Error(`${this.constructor.name}: call server.connect(transport) before handleRequest`);
    return this.#handler;
  }

  /**
   * How one request is handed to the engine: its session id choice and the hook that sees the
   * answer's head before it is sent: the session id of an `initialize` answer
   * (`onsessioninitialized`), or a `DELETE` the engine accepted, which ends the session and the
   * transport (`onsessionclosed`, `onclose`) before the client hears of it, as with the SDK.
   */
  protected hooks(
    method: string,
    host: string | undefined,
  ): {
    sessionId?: SessionIdChoice;
    onHead: (status: number, headers: string[]) => Promise<void>;
  } {
    this.#host = host ?? this.#host;
    const sessionBefore = this.sessionId;
    const generate = sessionBefore === undefined ? this.options.sessionIdGenerator : undefined;
    return {
      ...(generate ? { sessionId: generate } : {}),
      onHead: async (status, headers) => {
        if (method === 'DELETE' && status < 300 && sessionBefore !== undefined && !this.#closed) {
          await this.options.onsessionclosed?.(sessionBefore);
          this.#closed = true;
          this.onclose?.();
          return;
        }
        if (this.sessionId !== undefined || status >= 300) return;
        for (let i = 0; i + 1 < headers.length; i += 2) {
          if (headers[i]!.toLowerCase() === 'mcp-session-id') {
            this.sessionId = headers[i + 1]!;
            await this.options.onsessioninitialized?.(this.sessionId);
            break;
          }
        }
      },
    };
  }

  /** Reports a failed request to {@link onerror} and returns it as an `Error`. */
  protected failed(e: unknown): Error {
    const error = e instanceof Error ? e : new Error(String(e));
    this.onerror?.(error);
    return error;
  }

  /**
   * Ends the transport: the engine session (if any) is terminated, as a client's `DELETE`
   * would, its streams close, and {@link onclose} is called.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const handler = this.#handler;
    if (handler && this.sessionId !== undefined) {
      const headers = ['mcp-session-id', this.sessionId, 'host', this.#host ?? 'localhost'];
      try {
        await handler._request('DELETE', ENDPOINT, headers);
      } catch {
        // already gone
      }
    }
    this.onclose?.();
  }
}
