/**
 * `ferromcp/server/streamableHttp.js`: the TypeScript SDK's `StreamableHTTPServerTransport`,
 * so that the SDK's Express/`node:http` servers port by changing the package name. The
 * transport is a thin adapter: `server.connect(transport)` gives it an engine endpoint of that
 * server ({@link McpServer.createHttpHandler}) and `handleRequest(req, res, body)` passes the
 * request to it. Sessions, SSE streams, resumption, JSON responses, the protocol-version and
 * Accept checks are the engine's, as with `listen()`.
 *
 * Differences from the SDK's transport: the session id is the engine's (a random UUID); the
 * `sessionIdGenerator` function only says "stateful" (given) or "stateless" (`undefined`).
 * An `eventStore` is not needed: the engine keeps each session's events for `Last-Event-ID`
 * resumption itself (the SDK's store is not called). `onmessage`/`send` (the raw JSON-RPC
 * stream) are not offered.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpHandler } from '../../http';
import { ATTACH_TRANSPORT, type AttachableTransport, type McpServer } from '../../server';

/** Options of {@link StreamableHTTPServerTransport} (the SDK's names). */
export interface StreamableHTTPServerTransportOptions {
  /**
   * A function: sessions (the engine generates the ids; the function is not called).
   * `undefined`: stateless, every POST is handled on its own.
   */
  sessionIdGenerator: (() => string) | undefined;
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
}

/** The engine endpoint's path; the app may mount the transport on any route. */
const ENDPOINT = '/mcp';

/**
 * The TypeScript SDK's Streamable HTTP server transport on ferromcp's engine: one per session
 * (the SDK's examples keep a map of them by `transport.sessionId`), or one per request when
 * stateless. `await server.connect(transport)` first, then
 * `await transport.handleRequest(req, res, req.body)` for every POST, GET and DELETE of that
 * session.
 */
export class StreamableHTTPServerTransport implements AttachableTransport {
  readonly #options: StreamableHTTPServerTransportOptions;
  #handler: McpHttpHandler | undefined;
  #host: string | undefined;
  #closed = false;
  /** The session's id, once `initialize` is answered (undefined when stateless). */
  sessionId: string | undefined;
  /** Called once when the transport closes (`close()`, or the client's `DELETE`). */
  onclose?: () => void;
  /** Errors while handling a request (also thrown by `handleRequest`). */
  onerror?: (error: Error) => void;

  constructor(options: StreamableHTTPServerTransportOptions = { sessionIdGenerator: undefined }) {
    this.#options = { ...options };
  }

  /** @internal `server.connect(this)`. */
  [ATTACH_TRANSPORT](server: McpServer): void {
    if (this.#handler) throw new Error('Transport already connected to a server');
    const o = this.#options;
    this.#handler = server.createHttpHandler({
      path: ENDPOINT,
      stateless: o.sessionIdGenerator === undefined,
      jsonResponse: o.enableJsonResponse === true,
      dnsRebindingProtection: o.enableDnsRebindingProtection === true,
      legacySse: false,
      ...(o.allowedHosts ? { allowedHosts: o.allowedHosts } : {}),
      ...(o.allowedOrigins ? { allowedOrigins: o.allowedOrigins } : {}),
      ...(o.retryInterval !== undefined ? { retryIntervalMs: o.retryInterval } : {}),
    });
  }

  /** No-op (the SDK calls it from `connect`). */
  async start(): Promise<void> {}

  /**
   * Handles one HTTP request of this transport's session (or, stateless, one request): a POST
   * of JSON-RPC messages, the GET stream, or the DELETE ending the session. `parsedBody` is the
   * body Express's `express.json()` parsed (`req.body`); without it the body is read from `req`.
   */
  async handleRequest(req: IncomingMessage & { body?: unknown; auth?: unknown }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const handler = this.#handler;
    if (!handler) throw new Error('StreamableHTTPServerTransport: call server.connect(transport) before handleRequest');
    this.#host = req.headers.host ?? this.#host;
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const q = url.indexOf('?');
    const target = ENDPOINT + (q >= 0 ? url.slice(q) : '');
    const method = (req.method ?? 'GET').toUpperCase();
    const sessionBefore = this.sessionId;
    try {
      const status = await handler._serveNode(req, res, {
        target,
        ...(parsedBody !== undefined ? { body: parsedBody } : {}),
        onHead: async (status, headers) => {
          if (this.sessionId !== undefined || status >= 300) return;
          for (let i = 0; i + 1 < headers.length; i += 2) {
            if (headers[i]!.toLowerCase() === 'mcp-session-id') {
              this.sessionId = headers[i + 1]!;
              await this.#options.onsessioninitialized?.(this.sessionId);
              break;
            }
          }
        },
      });
      if (method === 'DELETE' && status < 300 && sessionBefore !== undefined) {
        await this.#options.onsessionclosed?.(sessionBefore);
        this.#closed = true;
        this.onclose?.();
      }
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.onerror?.(error);
      throw error;
    }
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
