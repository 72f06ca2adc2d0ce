/**
 * `ferromcp/server/streamableHttp.js`: the TypeScript SDK's `StreamableHTTPServerTransport`,
 * so that the SDK's Express/`node:http` servers port by changing the package name. The
 * transport is a thin adapter: `server.connect(transport)` gives it an engine endpoint of that
 * server (`McpServer.createHttpHandler`) and `handleRequest(req, res, body)` passes the
 * request to it. Sessions, SSE streams, resumption, JSON responses, the protocol-version and
 * Accept checks are the engine's, as with `listen()`.
 *
 * As with the SDK, `sessionIdGenerator` is called when a POST carrying `initialize` opens the
 * session, and its result is the session's id (`undefined`: stateless). Differences from the
 * SDK's transport: an `eventStore` is not needed: the engine keeps each session's events for
 * `Last-Event-ID` resumption itself (the SDK's store is not called). `onmessage`/`send` (the
 * raw JSON-RPC stream) are not offered.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENDPOINT, SessionTransport, type StreamableHTTPServerTransportOptions } from './sessionTransport';

export type { StreamableHTTPServerTransportOptions } from './sessionTransport';

/**
 * The TypeScript SDK's Streamable HTTP server transport on ferromcp's engine: one per session
 * (the SDK's examples keep a map of them by `transport.sessionId`), or one per request when
 * stateless. `await server.connect(transport)` first, then
 * `await transport.handleRequest(req, res, req.body)` for every POST, GET and DELETE of that
 * session.
 */
export class StreamableHTTPServerTransport extends SessionTransport {
  constructor(options: StreamableHTTPServerTransportOptions = { sessionIdGenerator: undefined }) {
    super(options);
  }

  /**
   * Handles one HTTP request of this transport's session (or, stateless, one request): a POST
   * of JSON-RPC messages, the GET stream, or the DELETE ending the session. `parsedBody` is the
   * body Express's `express.json()` parsed (`req.body`); without it the body is read from `req`.
   */
  async handleRequest(req: IncomingMessage & { body?: unknown; auth?: unknown }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const handler = this.handler();
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const q = url.indexOf('?');
    const target = ENDPOINT + (q >= 0 ? url.slice(q) : '');
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      await handler._serveNode(req, res, {
        target,
        ...this.hooks(method, req.headers.host),
        ...(parsedBody !== undefined ? { body: parsedBody } : {}),
      });
    } catch (e) {
      throw this.failed(e);
    }
  }
}
