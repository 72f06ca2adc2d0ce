/**
 * {@link McpHttpHandler}: MCP's Streamable HTTP endpoint mounted in an app that owns the HTTP
 * server — Node's `http` module, Express/Connect, or any fetch-style framework (`Request` in,
 * `Response` out). Sessions, SSE streams, resumption and the Host/Origin checks stay in the
 * engine; this module only moves request and response bytes.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { call, McpError } from './errors';
import type { NativeHttpHandler, NativeHttpResponse } from './native';

/**
 * How much of a body over the handler's `maxBodySize` is still read and handed to the engine
 * (at least 16 MiB, the engine's own read-on cap): the engine refuses it with 413 and scans it
 * for the request's id, which the TypeScript SDK writes after `params`, so the refusal names
 * the request its client waits on. Past this the rest is not read and the connection closes.
 */
const READ_ON_CAP = 16 * 1024 * 1024;

/** Reads a Node request body whole, or its first `cap` bytes (`truncated`). */
async function readBody(req: IncomingMessage & { body?: unknown }, cap: number): Promise<{ body: Buffer; truncated: boolean }> {
  // Express/Connect body parsers may have consumed the stream already.
  if (req.body !== undefined && req.readableEnded) {
    const b = req.body;
    if (Buffer.isBuffer(b)) return { body: b, truncated: false };
    return { body: Buffer.from(typeof b === 'string' ? b : JSON.stringify(b)), truncated: false };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap) {
      chunks.push(chunk.subarray(0, cap - size));
      return { body: Buffer.concat(chunks), truncated: true };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * A Node request's headers as `[name, value, ...]`, read from `req.headers`, not
 * `req.rawHeaders`: middleware (Express, Connect, a proxy layer) that sets, changes or removes
 * a header before the MCP route does so on `req.headers` only, and the handler must see what
 * the app sees (as the TypeScript SDK's transport, which reads `req.headers`). Node has joined
 * repeated fields there already (and dropped repeats of single-valued ones such as `host`);
 * `set-cookie`-style arrays give one pair per value.
 */
function headerPairs(req: IncomingMessage): string[] {
  const raw: string[] = [];
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || value === null) continue;
    const name = key.toLowerCase(); // middleware may have written `req.headers['X-Name']`
    if (Array.isArray(value)) for (const v of value) raw.push(name, String(v));
    else raw.push(name, String(value));
  }
  return raw;
}

/** Whether a request body holds an `initialize` request (alone or in a batch). */
function carriesInitialize(body: Buffer): boolean {
  if (!body.includes('"initialize"')) return false;
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    const isInit = (m: unknown) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
    return Array.isArray(v) ? v.some(isInit) : isInit(v);
  } catch {
    return false;
  }
}

/**
 * @internal The session id an SDK-shaped transport gives a request: a fixed one (the legacy SSE
 * stream's), or a generator called only for a POST carrying `initialize` (the SDK's
 * `sessionIdGenerator`, called when a session begins).
 */
export type SessionIdChoice = string | (() => string) | undefined;

function chooseSessionId(choice: SessionIdChoice, method: string, body: Buffer): string | undefined {
  if (typeof choice === 'function') return method === 'POST' && carriesInitialize(body) ? String(choice()) : undefined;
  return choice;
}

/** A Streamable HTTP endpoint for an app's own HTTP server (from `McpServer.createHttpHandler`). */
export class McpHttpHandler {
  readonly #native: NativeHttpHandler;
  readonly #limit: number;

  /** @internal */
  constructor(native: NativeHttpHandler, maxBodySize: number) {
    this.#native = native;
    this.#limit = maxBodySize;
  }

  /**
   * Handles a Node `http` request: `http.createServer((req, res) => mcp.handleNode(req, res))`,
   * or an Express route `app.all('/mcp', (req, res) => mcp.handleNode(req, res))`. The request
   * target's path must be the handler's `path` (default `/mcp`); a body already parsed by
   * `express.json()` is used as is. Headers are read from `req.headers`, so what middleware
   * set there reaches the engine and `ctx.http.headers`.
   */
  async handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this._serveNode(req, res);
  }

  /**
   * @internal `handleNode` with the request target, the body (`parsedBody` of the SDK's
   * `transport.handleRequest`) and a hook that sees the status and headers before they are
   * written (the SDK-shaped transport learns its session id there).
   */
  async _serveNode(
    req: IncomingMessage,
    res: ServerResponse,
    opts: {
      target?: string;
      method?: string;
      body?: unknown;
      sessionId?: SessionIdChoice;
      onHead?: (status: number, headers: string[]) => void | Promise<void>;
    } = {},
  ): Promise<number> {
    // A body over the limit goes to the engine too (up to READ_ON_CAP), which answers 413 with
    // the request's id.
    const read =
      opts.body !== undefined
        ? { body: Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)), truncated: false }
        : await readBody(req, Math.max(this.#limit + 1, READ_ON_CAP));
    const body = read.body;
    // The rest of a truncated body is not read: the connection cannot be reused.
    if (read.truncated) res.shouldKeepAlive = false;
    const target = opts.target ?? (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const method = opts.method ?? req.method ?? 'GET';
    const sessionId = chooseSessionId(opts.sessionId, method, body);
    const response = await call(this.#native.handle(method, target, headerPairs(req), body, sessionId));
    if (opts.onHead) await opts.onHead(response.status, response.rawHeaders);
    res.writeHead(response.status, response.rawHeaders);
    res.flushHeaders();
    const gone = () => response.cancel();
    res.once('close', gone);
    try {
      for (;;) {
        const chunk = await call(response.nextChunk());
        if (chunk === null || res.destroyed) break;
        if (!res.write(chunk)) await new Promise<void>((r) => res.once('drain', () => r()).once('close', () => r()));
      }
    } finally {
      res.off('close', gone);
      response.cancel();
      if (!res.writableEnded) res.end();
    }
    return response.status;
  }

  /** @internal One request without a Node request object (the SDK-shaped transport's `close()`). */
  async _request(method: string, target: string, headers: string[]): Promise<number> {
    const response = await call(this.#native.handle(method, target, headers, Buffer.alloc(0), undefined));
    response.cancel();
    return response.status;
  }

  /** Handles a fetch-style request (`Request` in, `Response` out; the body streams). */
  handleFetch(request: Request): Promise<Response> {
    return this._serveFetch(request);
  }

  /**
   * @internal `handleFetch` with the target the engine sees, a body parsed already (the SDK's
   * `handleRequest(req, { parsedBody })`), the session id choice and a hook that sees the
   * status and headers first (the SDK-shaped web-standard transport).
   */
  async _serveFetch(
    request: Request,
    opts: {
      target?: string;
      body?: unknown;
      sessionId?: SessionIdChoice;
      onHead?: (status: number, headers: string[]) => void | Promise<void>;
    } = {},
  ): Promise<Response> {
    // A body over the limit goes to the engine too (up to READ_ON_CAP), which answers 413 with
    // the request's id.
    const cap = Math.max(this.#limit + 1, READ_ON_CAP);
    const whole =
      opts.body !== undefined
        ? Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body))
        : Buffer.from(await request.arrayBuffer());
    const body = whole.length > cap ? whole.subarray(0, cap) : whole;
    const url = new URL(request.url);
    const raw: string[] = [];
    request.headers.forEach((v, k) => raw.push(k, v));
    if (!request.headers.has('host')) raw.push('host', url.host);
    const target = opts.target ?? url.pathname + url.search;
    const sessionId = chooseSessionId(opts.sessionId, request.method, body);
    const response: NativeHttpResponse = await call(this.#native.handle(request.method, target, raw, body, sessionId));
    if (opts.onHead) await opts.onHead(response.status, response.rawHeaders);
    const headers = new Headers();
    const rh = response.rawHeaders;
    for (let i = 0; i + 1 < rh.length; i += 2) headers.append(rh[i]!, rh[i + 1]!);
    const noBody = request.method === 'HEAD' || response.status === 204 || response.status === 304;
    const stream = noBody
      ? null
      : new ReadableStream<Uint8Array>({
          async pull(controller) {
            try {
              const chunk = await call(response.nextChunk());
              if (chunk === null) controller.close();
              else controller.enqueue(new Uint8Array(chunk));
            } catch (e) {
              controller.error(e instanceof McpError ? e : new Error(String(e)));
            }
          },
          cancel() {
            response.cancel();
          },
        });
    return new Response(stream, { status: response.status, headers });
  }
}
