/**
 * `ferromcp/server/webStandardStreamableHttp.js`: the TypeScript SDK's
 * `WebStandardStreamableHTTPServerTransport`, `handleRequest(Request) -> Response`, for
 * fetch-style frameworks (Hono, Deno, Bun, Cloudflare Workers, Next.js route handlers): as
 * `StreamableHTTPServerTransport`, the engine answers; an SSE answer's body streams.
 * @module
 */
import { ENDPOINT, SessionTransport, type StreamableHTTPServerTransportOptions } from './sessionTransport';

/** The SDK's name for the options of {@link WebStandardStreamableHTTPServerTransport}. */
export type WebStandardStreamableHTTPServerTransportOptions = StreamableHTTPServerTransportOptions;

/** Options of one {@link WebStandardStreamableHTTPServerTransport.handleRequest}. */
export interface HandleRequestOptions {
  /** The body, parsed already by the framework (else it is read from the request). */
  parsedBody?: unknown;
  /** Accepted for the SDK's shape: authorization is `McpServer`'s `auth` option in ferromcp. */
  authInfo?: unknown;
}

/**
 * The TypeScript SDK's web-standard Streamable HTTP server transport on ferromcp's engine:
 * `await server.connect(transport)`, then `return transport.handleRequest(c.req.raw)` in the
 * framework's route. Without `sessionIdGenerator` (the default) it is stateless.
 */
export class WebStandardStreamableHTTPServerTransport extends SessionTransport {
  constructor(options: WebStandardStreamableHTTPServerTransportOptions = {}) {
    super(options);
  }

  /** Handles one request (POST, GET or DELETE) and resolves with the answer to return. */
  async handleRequest(req: Request, options: HandleRequestOptions = {}): Promise<Response> {
    const handler = this.handler();
    const url = new URL(req.url);
    try {
      return await handler._serveFetch(req, {
        target: ENDPOINT + url.search,
        ...this.hooks(req.method.toUpperCase(), req.headers.get('host') ?? url.host),
        ...(options.parsedBody !== undefined ? { body: options.parsedBody } : {}),
      });
    } catch (e) {
      throw this.failed(e);
    }
  }
}
