/**
 * `ferromcp/server/sse.js`: the TypeScript SDK's `SSEServerTransport`, the deprecated
 * HTTP+SSE transport of protocol 2024-11-05, on ferromcp's engine. As with the SDK, the
 * transport is made in the app's GET route with the message endpoint's path and the response
 * (`new SSEServerTransport('/messages', res)`), its `sessionId` is known at once (the app keeps
 * the transports by it), `await server.connect(transport)` opens the SSE stream (its first
 * event names `<endpoint>?sessionId=<id>`), and the app's POST route for that path calls
 * `transport.handlePostMessage(req, res, req.body)`. The engine answers on the stream.
 *
 * Differences from the SDK's transport: `onmessage`/`send`/`handleMessage` (the raw JSON-RPC
 * stream) are not offered; the endpoint is a path (a query or fragment in it is refused).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpHandler } from '../../http';
import { ATTACH_TRANSPORT, type AttachableTransport, type McpServer } from '../../server';

/** Options of {@link SSEServerTransport} (the SDK's names). */
export interface SSEServerTransportOptions {
  /** Allowed `Host` values (checked when {@link enableDnsRebindingProtection} is on). */
  allowedHosts?: string[];
  /** Allowed `Origin` values (checked when {@link enableDnsRebindingProtection} is on). */
  allowedOrigins?: string[];
  /** Check `Host`/`Origin` (default off, as the SDK's). */
  enableDnsRebindingProtection?: boolean;
}

/** The engine endpoint's own path for the SSE stream (the app routes the GET anywhere). */
const SSE_PATH = '/sse';

/** The TypeScript SDK's HTTP+SSE server transport, one per SSE connection (see the module's notes). */
export class SSEServerTransport implements AttachableTransport {
  readonly #endpoint: string;
  readonly #res: ServerResponse;
  readonly #options: SSEServerTransportOptions;
  readonly #sessionId = randomUUID();
  #handler: McpHttpHandler | undefined;
  #stream: Promise<void> | undefined;
  #closed = false;
  /** Called once when the SSE stream ends (the client went away, or `close()`). */
  onclose?: () => void;
  /** Errors of the stream or of a message POST. */
  onerror?: (error: Error) => void;

  /** `endpoint`: the path the app's POST route serves (`/messages`); `res`: the GET's response. */
  constructor(endpoint: string, res: ServerResponse, options: SSEServerTransportOptions = {}) {
    const url = new URL(endpoint, 'http://localhost');
    if (url.search || url.hash) throw new TypeError(`SSEServerTransport: the endpoint is a path without query or fragment, not ${JSON.stringify(endpoint)}`);
    this.#endpoint = url.pathname;
    this.#res = res;
    this.#options = { ...options };
  }

  /** The session's id (a random UUID), named in the stream's `endpoint` event. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** @internal `server.connect(this)`. */
  [ATTACH_TRANSPORT](server: McpServer): void {
    if (this.#handler) throw new Error('Transport already connected to a server');
    const o = this.#options;
    this.#handler = server.createHttpHandler({
      legacySse: true,
      legacySsePath: SSE_PATH,
      legacyMessagesPath: this.#endpoint,
      dnsRebindingProtection: o.enableDnsRebindingProtection === true,
      ...(o.allowedHosts ? { allowedHosts: o.allowedHosts } : {}),
      ...(o.allowedOrigins ? { allowedOrigins: o.allowedOrigins } : {}),
    });
  }

  /**
   * Opens the SSE stream on the response given to the constructor (`connect` calls it);
   * resolves once its head is written. The stream lasts until the client goes away or
   * {@link close}; then {@link onclose} is called.
   */
  async start(): Promise<void> {
    if (this.#stream) throw new Error('SSEServerTransport already started! If using Server class, note that connect() calls start() automatically.');
    const handler = this.#handler;
    if (!handler) throw new Error('SSEServerTransport: call server.connect(transport)');
    const req = (this.#res as ServerResponse & { req?: IncomingMessage }).req;
    if (!req) throw new Error('SSEServerTransport: the response has no request (pass the GET route\'s res)');
    let headWritten!: () => void;
    const head = new Promise<void>((r) => (headWritten = r));
    this.#stream = handler
      ._serveNode(req, this.#res, {
        target: SSE_PATH,
        method: 'GET',
        body: Buffer.alloc(0),
        sessionId: this.#sessionId,
        onHead: () => headWritten(),
      })
      .then(
        () => undefined,
        (e: unknown) => {
          this.onerror?.(e instanceof Error ? e : new Error(String(e)));
        },
      )
      .finally(() => {
        headWritten();
        this.#end();
      });
    await head;
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  /**
   * Handles a POST of the message endpoint for this session (`parsedBody`: `req.body` of
   * `express.json()`; without it the body is read from `req`). Answered 202; the JSON-RPC
   * answers go out on the SSE stream.
   */
  async handlePostMessage(req: IncomingMessage & { body?: unknown; auth?: unknown }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const handler = this.#handler;
    if (!handler || !this.#stream || this.#closed) {
      res.writeHead(500).end('SSE connection not established');
      throw new Error('SSE connection not established');
    }
    try {
      await handler._serveNode(req, res, {
        target: `${this.#endpoint}?sessionId=${encodeURIComponent(this.#sessionId)}`,
        method: 'POST',
        ...(parsedBody !== undefined ? { body: parsedBody } : {}),
      });
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.onerror?.(error);
      throw error;
    }
  }

  /** Ends the SSE stream (the engine closes the session) and calls {@link onclose}. */
  async close(): Promise<void> {
    if (!this.#res.writableEnded) this.#res.end();
    await this.#stream;
    this.#end();
  }
}
