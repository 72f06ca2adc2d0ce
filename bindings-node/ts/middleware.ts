/**
 * Middleware: functions `(ctx, next) => ...` around every request a server handles
 * (`initialize`, the lists, `tools/call`, `resources/read`, `prompts/get`, completion, ...),
 * added with `server.use(...)` or `new McpServer(info, { middleware: [...] })`, outermost first.
 *
 * ```ts
 * server.use(async (ctx, next) => {
 *   if (ctx.tool === 'admin' && !ctx.principal?.scopes.includes('admin')) {
 *     throw new McpError(-32003, 'Permission denied');   // answered as this JSON-RPC error
 *   }
 *   const started = performance.now();
 *   const result = await next();                           // the rest of the chain
 *   console.error(ctx.method, performance.now() - started);
 *   return result;                                         // changed or not
 * });
 * server.use(rateLimit({ limit: 10, windowMs: 1000 }), maskErrors(), timing((e) => ...));
 * ```
 *
 * A layer may answer without calling `next` (return a result object), refuse (throw an
 * {@link McpError}: its code, message and data are sent), change `ctx.params` (or
 * `ctx.method`) before `next()`, or change the result after it. `next()` rejects with the
 * {@link McpError} the rest of the chain answered. Anything else a layer throws is answered as
 * an internal error with the message `Internal error` (the details go to stderr), never a
 * crash. The built-in layers ({@link rateLimit}, {@link requestLog}, {@link maskErrors},
 * {@link timing}) run in the engine (Rust), not on the event loop.
 *
 * A layer may also observe the client's notifications (`notifications/roots/list_changed`,
 * custom ones; not those the engine consumes itself: initialized, cancelled, progress): give
 * `use` a {@link MiddlewareLayer} object, `{ onRequest?, onNotification }`. A notification is
 * always handed on after the layer saw it, whatever `onNotification` does or throws.
 *
 * ```ts
 * server.use({
 *   onNotification: (note, next) => {
 *     console.error('client says', note.method, note.params);
 *     return next();
 *   },
 * });
 * ```
 *
 * The chain is fixed when the server handles its first request: `use` throws after that.
 * @module
 */
import type { AuthInfo } from './auth';
import type { ResponseCacheOptions } from './cache';
import type { AuthorizationLayer } from './composition';
import type { RequestContext } from './context';
import { asMcpError, ErrorCode, fromNative, McpError, nativeErrorKind } from './errors';
import native from './native';
import type { RequestId } from './types';
import type { OpenTelemetryLayer } from './otel';

/** A result object, as the engine sends it to the client. */
export type MiddlewareResult = Record<string, unknown>;

/** Hands the request (with `ctx.method` and `ctx.params` as they are now) to the rest of the
 * chain; resolves to its result or rejects with its {@link McpError}. At most once. */
export type NextFunction = () => Promise<MiddlewareResult>;

/** A middleware function: answer (return a result object, or what `next()` gave, changed or
 * not), or throw. */
export type MiddlewareFunction = (
  ctx: MiddlewareContext,
  next: NextFunction,
) => MiddlewareResult | Promise<MiddlewareResult>;

/** The request as the engine hands it to a layer. @internal */
interface WireRequest {
  method: string;
  params: Record<string, unknown> | null;
  id: RequestId;
  tool: string | null;
  sessionId: string | null;
  sessionKey: string | null;
  principal: AuthInfo | null;
  protocolVersion: string | null;
  httpHeaders: [string, string][] | null;
}

/** One request on its way through the middleware: what it is and where it came from.
 * `method` and `params` may be changed before `next()`; the rest describes the request. */
export class MiddlewareContext {
  /** The JSON-RPC method (`tools/call`, `resources/read`, `initialize`, ...). */
  method: string;
  /** The request's params (an object, or null). */
  params: Record<string, unknown> | null;
  /** The JSON-RPC request id. */
  readonly id: RequestId;
  /** For `tools/call`: the tool's name. */
  readonly tool: string | undefined;
  /** The `Mcp-Session-Id` (stateful Streamable HTTP), else undefined. */
  readonly sessionId: string | undefined;
  /** A key naming the session (the `Mcp-Session-Id`, else the connection): the rate limit's
   * session key. */
  readonly sessionKey: string;
  /** The verified token's identity on a protected server, else undefined. */
  readonly principal: AuthInfo | undefined;
  /** The request's protocol revision (e.g. `'2025-11-25'`). */
  readonly protocolVersion: string | undefined;
  /** The HTTP request's headers (names in lowercase, repeated fields joined with `", "`), or
   * undefined on stdio. */
  readonly httpHeaders: Record<string, string> | undefined;
  /** The request's {@link RequestContext}: its `signal`, logging and notifications to the client. */
  readonly requestContext: RequestContext;

  /** @internal */
  constructor(r: WireRequest, requestContext: RequestContext) {
    this.method = r.method;
    this.params = r.params;
    this.id = r.id;
    this.tool = r.tool ?? undefined;
    this.sessionId = r.sessionId ?? undefined;
    this.sessionKey = r.sessionKey ?? '';
    this.principal = r.principal ?? undefined;
    this.protocolVersion = r.protocolVersion ?? undefined;
    if (r.httpHeaders) {
      const headers: Record<string, string> = {};
      for (const [k, v] of r.httpHeaders) headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
      this.httpHeaders = headers;
    }
    this.requestContext = requestContext;
  }

  /** The HTTP header `name` (any case), or undefined. */
  header(name: string): string | undefined {
    return this.httpHeaders?.[name.toLowerCase()];
  }
}

/** A notification from the client, as a {@link MiddlewareLayer}'s `onNotification` sees it. */
export class NotificationContext {
  /** The notification's method (`notifications/roots/list_changed`, ...). */
  readonly method: string;
  /** Its params (an object, or null). */
  readonly params: Record<string, unknown> | null;
  /** The `Mcp-Session-Id` (stateful Streamable HTTP), else undefined. */
  readonly sessionId: string | undefined;
  /** A key naming the session (the `Mcp-Session-Id`, else the connection). */
  readonly sessionKey: string;

  /** @internal */
  constructor(n: { method: string; params?: Record<string, unknown> | null; sessionId?: string | null; sessionKey?: string | null }) {
    this.method = n.method;
    this.params = n.params ?? null;
    this.sessionId = n.sessionId ?? undefined;
    this.sessionKey = n.sessionKey ?? '';
  }
}

/** `next` of `onNotification`: the notification is handed on whatever the layer does, so it
 * resolves at once (it is there for the shape of FastMCP's and Python's hook). */
export type NotificationNext = () => Promise<void>;

/** Observes a client notification; what it returns or throws does not stop the notification. */
export type NotificationHook = (ctx: NotificationContext, next: NotificationNext) => void | Promise<void>;

/** A middleware layer given as an object (a literal or a class instance; its methods are called
 * on it): `onRequest` wraps every request as a {@link MiddlewareFunction} does (absent: requests
 * pass through untouched, without a call into JavaScript); `onNotification` sees each
 * notification from the client, on the event loop, in the order the client sent them (Python's
 * `Middleware.on_notification`). */
export interface MiddlewareLayer {
  onRequest?: MiddlewareFunction;
  onNotification?: NotificationHook;
}

/** What a bucket's key is made of (several parts make one key). */
export type RateKey = 'principal' | 'session' | 'clientAddress' | 'tool' | 'global';

/** Options of {@link rateLimit}: token buckets of `limit` requests per `windowMs`. */
export interface RateLimitOptions {
  /** Requests allowed per window and key (the bucket's size); at least 1. */
  limit: number;
  /** The window in ms: a full bucket refills over it. */
  windowMs: number;
  /** What the key is made of (default `['session']`). */
  by?: RateKey[];
  /** Per-tool limits for `tools/call` of that tool (buckets of their own). */
  tools?: Record<string, { limit: number; windowMs: number }>;
  /** The methods counted (default: every request). */
  methods?: string[];
  /** A header holding the client's address for `'clientAddress'` (e.g. `x-forwarded-for`),
   * read only on connections from `trustedProxies`: its rightmost entry that is not a trusted
   * proxy is the client. Unset (the default), the key is the connection's peer address. */
  addressHeader?: string;
  /** The proxies whose `addressHeader` is believed: IP addresses and CIDR ranges
   * (`['10.0.0.0/8', '2001:db8::/32']`); default loopback only (`127.0.0.0/8`, `::1`). */
  trustedProxies?: string[];
  /** Keep the buckets on this Redis, shared by every replica given the same URL. */
  redisUrl?: string;
}

/** Options of {@link requestLog}. */
export interface RequestLogOptions {
  /** The `tracing` level of the events (`'trace'` ... `'error'`; default `'info'`). */
  level?: string;
}

/** Options of {@link maskErrors}. */
export interface MaskErrorsOptions {
  /** The message sent instead (default `'Internal error'`). */
  message?: string;
  /** The codes masked (default `[-32603]`). */
  codes?: number[];
}

/** One request's timing, as {@link timing} hooks get it. */
export interface TimingEvent {
  method: string;
  /** For `tools/call`, the tool's name. */
  tool: string | null;
  /** From the request reaching the layer to its answer leaving it. */
  durationMs: number;
  outcome: 'ok' | 'error' | 'cancelled';
  /** The JSON-RPC error code when `outcome` is `'error'`. */
  code: number | null;
}

/** A built-in layer by name and options, run by the engine. */
export type BuiltinMiddleware =
  | AuthorizationLayer
  | ({ name: 'rateLimit' } & RateLimitOptions)
  | ({ name: 'requestLog' } & RequestLogOptions)
  | ({ name: 'maskErrors' } & MaskErrorsOptions)
  | { name: 'timing'; hook: (event: TimingEvent) => void }
  | ({ name: 'responseCache' } & ResponseCacheOptions)
  | OpenTelemetryLayer;

/** What `server.use` and the `middleware` option take. */
export type Middleware = MiddlewareFunction | MiddlewareLayer | BuiltinMiddleware;

/** Rate limiting: over the limit a request is answered -32004 `Rate limited` with
 * `data: { retryAfter, limit, window }` (seconds). */
export function rateLimit(options: RateLimitOptions): BuiltinMiddleware {
  return { name: 'rateLimit', ...options };
}

/** One structured `tracing` event per request (method, tool, duration, outcome, principal). */
export function requestLog(options: RequestLogOptions = {}): BuiltinMiddleware {
  return { name: 'requestLog', ...options };
}

/** Replaces the message of internal errors (or of `codes`) and drops their data; the original
 * is logged server-side. Add it first to mask what every later layer answers. */
export function maskErrors(options: MaskErrorsOptions = {}): BuiltinMiddleware {
  return { name: 'maskErrors', ...options };
}

/** Calls `hook` with each request's {@link TimingEvent}, after the answer (the request does not
 * wait for it; what it throws is reported on stderr). */
export function timing(hook: (event: TimingEvent) => void): BuiltinMiddleware {
  if (typeof hook !== 'function') throw new TypeError('timing(hook): hook must be a function');
  return { name: 'timing', hook };
}

const layerName = (f: { readonly name: string }): string => f.name || 'anonymous';

/** Reports a layer's failure that is not an answer (stderr, with its stack). */
function report(what: string, e: unknown): void {
  console.error(`ferromcp: ${what} failed:`, e);
}

const isResult = (v: unknown): v is MiddlewareResult => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the dispatcher calls for a middleware function: `{request, next}` in, a result out. */
function adapt(layer: MiddlewareFunction): (payload: unknown, rctx: RequestContext) => unknown {
  const name = layerName(layer);
  const fail = (e: unknown): never => {
    const m = asMcpError(e);
    if (m) throw m;
    report(`middleware ${name}`, e);
    throw new McpError(ErrorCode.InternalError, 'Internal error');
  };
  const check = (v: unknown): MiddlewareResult => {
    if (isResult(v)) return v;
    throw new McpError(
      ErrorCode.InternalError,
      `middleware ${name} returned ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}, not a result object: ` +
        'return what next() gave (changed or not) or a result of your own',
    );
  };
  return (payload, rctx) => {
    const { request, next: key } = payload as { request: WireRequest; next: number };
    const ctx = new MiddlewareContext(request, rctx);
    const next: NextFunction = () =>
      native.middlewareNext(key, { method: ctx.method, params: ctx.params }).catch((e: unknown) => {
        // The engine cancelled the request: abort the layer's signal now (the engine's abort may
        // come after this). A -32800 that a later layer or the handler answered with itself is
        // of kind 'rpc' and aborts nothing.
        if (nativeErrorKind(e) === 'cancelled') rctx._abort();
        throw fromNative(e);
      });
    let out: unknown;
    try {
      out = layer(ctx, next);
    } catch (e) {
      return fail(e);
    }
    if (typeof (out as PromiseLike<unknown> | null)?.then === 'function') {
      return Promise.resolve(out).then(check, fail);
    }
    return check(out);
  };
}

const handedOn: NotificationNext = () => Promise.resolve();

/** The function the engine shows each client notification to, for `hook`. */
function notifier(hook: NotificationHook): (notification: unknown) => void {
  const name = layerName(hook);
  const failed = (e: unknown): void => report(`onNotification ${name}`, e);
  return (notification) => {
    try {
      const out = hook(new NotificationContext(notification as { method: string }), handedOn);
      if (typeof (out as PromiseLike<unknown> | null)?.then === 'function') Promise.resolve(out).catch(failed);
    } catch (e) {
      failed(e);
    }
  };
}

const isLayerObject = (v: object): v is MiddlewareLayer =>
  typeof (v as { name?: unknown }).name !== 'string' &&
  ('onRequest' in v || 'onNotification' in v);

/** The native server and dispatcher `use` adds layers to. @internal */
export interface MiddlewareHost {
  addMiddleware(handlerId: number | null, notify?: ((notification: unknown) => void) | null): void;
  addMiddlewareConfig(config: unknown): void;
  addTimingHook(hook: (event: unknown) => void): void;
  addAccessPredicate(handlerId: number): void;
}

/** Adds `layer` to `server` (registering a function with `add`). @internal */
export function addMiddleware(server: MiddlewareHost, add: (handler: (payload: unknown, ctx: RequestContext) => unknown) => number, layer: Middleware): void {
  if (typeof layer === 'function') {
    // A layer the engine runs (allowIf) carries its installer under this symbol.
    const install = (layer as unknown as Record<symbol, unknown>)[Symbol.for('ferromcp.engineLayer')];
    if (typeof install === 'function') return void install(server, add);
    server.addMiddleware(add(adapt(layer)));
    return;
  }
  if (typeof layer === 'object' && layer !== null && isLayerObject(layer)) {
    // An object literal or a class instance: its methods are called on it.
    const { onRequest, onNotification } = layer;
    if (onRequest !== undefined && typeof onRequest !== 'function') throw new TypeError('middleware layer: onRequest must be a function (ctx, next) => ...');
    if (onNotification !== undefined && typeof onNotification !== 'function') throw new TypeError('middleware layer: onNotification must be a function (ctx, next) => ...');
    if (onRequest === undefined && onNotification === undefined) throw new TypeError('middleware layer: give onRequest, onNotification or both');
    const name = layer.constructor !== Object && typeof layer.constructor === 'function' ? layer.constructor.name : '';
    const bound = <F extends (...a: never[]) => unknown>(f: F, what: string): F =>
      Object.defineProperty(f.bind(layer), 'name', { value: name ? `${name}.${what}` : f.name || what }) as F;
    server.addMiddleware(
      onRequest ? add(adapt(bound(onRequest, 'onRequest'))) : null,
      onNotification ? notifier(bound(onNotification, 'onNotification')) : null,
    );
    return;
  }
  if (typeof layer !== 'object' || layer === null || typeof (layer as { name?: unknown }).name !== 'string') {
    throw new TypeError(
      'middleware must be a function (ctx, next) => ..., an object { onRequest, onNotification }, or a built-in ' +
        '(rateLimit(), requestLog(), maskErrors(), timing()) ' +
        `or its config object { name, ...options }, not ${layer === null ? 'null' : typeof layer}`,
    );
  }
  if (layer.name === 'timing') {
    const { hook, ...rest } = layer as { name: 'timing'; hook?: unknown };
    const extra = Object.keys(rest).filter((k) => k !== 'name');
    if (typeof hook !== 'function') throw new TypeError('middleware timing: hook must be a function');
    if (extra.length > 0) throw new TypeError(`middleware timing: unknown option ${extra.join(', ')}`);
    const f = hook as (e: TimingEvent) => void;
    server.addTimingHook((e) => {
      try {
        f(e as TimingEvent);
      } catch (err) {
        report(`timing hook ${layerName(f)}`, err);
      }
    });
    return;
  }
  server.addMiddlewareConfig(layer);
}
