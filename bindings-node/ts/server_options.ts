/**
 * What a server and its Streamable HTTP listener are configured with: {@link ServerOptions}
 * (with `serverInfo` and the SDK's `capabilities`), {@link ListenOptions}, and the running
 * {@link HttpServer} `listen` returns. Kept apart from `server.ts` so the option types, which
 * mirror the engine's configs field by field, are read on their own; `server.ts` re-exports them.
 * @module
 */
import type { ProtectedResource } from './auth';
import { call } from './errors';
import type { Middleware } from './middleware';
import type { NativeHttpServer } from './native';
import type { OAuthProxyOptions } from './oauth_proxy_options';
import type { TaskStore } from './sdk/experimental/tasks/interfaces';
import type { TlsOptions } from './tls';
import type { Icon } from './types';

/** `serverInfo` and server-wide options. */
export interface ServerInfo {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`. */
  title?: string;
  /** `serverInfo.websiteUrl`. */
  websiteUrl?: string;
  /** `serverInfo.icons`. */
  icons?: Icon[];
}

/**
 * The TypeScript SDK's `ServerOptions.capabilities`, as {@link McpServer} takes it. ferromcp
 * advertises what is registered (a tool, a resource, ...) on its own; naming a capability here
 * advertises it from the start, before anything is registered (tools, resources and prompts are
 * added later with `list_changed`). With `capabilities` given, `logging` is advertised only when
 * named (as the SDK does); without, it always is.
 */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, never> | Record<string, unknown>;
  /** Advertised once a completion handler is registered (`completable`, `registerCompletion`). */
  completions?: Record<string, unknown>;
  /** The SDK's task capability, advertised for a server with a `taskStore` (its
   * `registerToolTask` tools); the engine's own task tools advertise theirs. */
  tasks?: Record<string, unknown>;
}

/** Options of {@link McpServer}. */
export interface ServerOptions {
  /** The capabilities to advertise (the TypeScript SDK's option): see {@link ServerCapabilities}. */
  capabilities?: ServerCapabilities;
  /** `instructions` sent at initialize. */
  instructions?: string;
  /** Items per page of the list methods (default 100). */
  pageSize?: number;
  /** Timeout of requests the server sends to clients (elicitation, sampling, roots), in ms. */
  requestTimeoutMs?: number;
  /** Largest message accepted in bytes (default 4 MiB): a request over it is answered with an
   * error carrying its id. */
  maxMessageSize?: number;
  /** `ttlMs` of cacheable 2026-07-28 results (`server/discover`, the list methods,
   * `resources/read`); default 0 (immediately stale). */
  cacheTtlMs?: number;
  /** `cacheScope` of cacheable results (default `'private'`). */
  cacheScope?: CacheScope;
  /** Per method overrides, e.g. `{ 'tools/list': { ttlMs: 60000, cacheScope: 'public' } }`;
   * only cacheable methods may be named. */
  cacheHints?: Record<string, { ttlMs?: number; cacheScope?: CacheScope }>;
  /** Most `subscriptions/listen` streams open at once (default 1024); one more is refused. */
  maxListenStreams?: number;
  /** The key ring sealing 2026-07-28 `requestState` (share it between replicas): the first key
   * seals, every key opens (rotation). `secret`: 32 bytes as 64 hex digits. Default: one
   * random key of this process. */
  requestStateKeys?: { id: string; secret: string }[];
  /** Opened `requestState` tokens remembered for single use (default 131072). */
  requestStateReplayCapacity?: number;
  /** Declare and serve the tasks extension `io.modelcontextprotocol/tasks` to 2026-07-28 clients
   * (default false): calls of tools registered with `execution: { taskSupport: 'optional' }` (or
   * `'required'`) from requests that declare it answer with task handles polled with
   * `tasks/get`; `ctx.input` in such a tool parks the task until `tasks/update` answers. */
  tasksExtension?: boolean;
  /** The protocol revisions this server speaks (default: all of them). `['2026-07-28']` serves
   * only per-request clients (`initialize` is answered -32022, HTTP 400, naming the supported
   * revisions); leaving `'2026-07-28'` out serves only handshake clients (a 2026-07-28 request
   * is answered -32022). An empty list or an unknown revision throws at construction. */
  supportedVersions?: readonly ProtocolRevision[];
  /** Middleware around every request, outermost first: functions `(ctx, next) => ...` and
   * built-ins (`rateLimit()`, `requestLog()`, `maskErrors()`, `timing()`); see {@link McpServer.use}. */
  middleware?: readonly Middleware[];
  /** The TypeScript SDK's task store: tasks of tools registered with
   * `server.experimental.tasks.registerToolTask` live there (see `sdk/experimental/tasks/mcpServer.ts`). */
  taskStore?: TaskStore;
  /** Accepted for the SDK's shape and not used: a task's requests reach the client directly. */
  taskMessageQueue?: unknown;
}

/** A protocol revision ferromcp speaks: the handshake era up to `'2025-11-25'`, and the
 * per-request era `'2026-07-28'`. */
export type ProtocolRevision = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

/** Who may cache a result: `'private'` (one authorization context) or `'public'` (anyone). */
export type CacheScope = 'private' | 'public';

/** Options of {@link McpServer.listen}: the engine's Streamable HTTP options. */
export interface ListenOptions {
  /** Port (0: any free port; default 3000). */
  port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  host?: string;
  /** Endpoint path (default `/mcp`). */
  path?: string;
  /** No sessions: every POST is handled on its own. */
  stateless?: boolean;
  /** Answer each POST with one JSON body instead of an SSE stream. */
  jsonResponse?: boolean;
  /** Allowed `Host` header values (DNS-rebinding protection). */
  allowedHosts?: string[];
  /** Allowed `Origin` header values. */
  allowedOrigins?: string[];
  /** Force the Host/Origin checks on or off (default: on for a loopback bind). */
  dnsRebindingProtection?: boolean;
  /** Most sessions alive at once. */
  maxSessions?: number;
  /** Idle sessions are removed after this long (ms). */
  sessionIdleTimeoutMs?: number;
  /** Largest request body (bytes; 413 beyond). */
  maxBodySize?: number;
  /** SSE `retry:` hint in ms (`null`: none). */
  retryIntervalMs?: number | null;
  /** Offer the GET stream (default true). */
  enableGetStream?: boolean;
  /** Also serve the 2024-11-05 HTTP+SSE endpoints (default true). */
  legacySse?: boolean;
  /** The legacy SSE stream's path (default `/sse`). */
  legacySsePath?: string;
  /** The legacy message endpoint's path, named in the SSE stream's `endpoint` event (default `/messages`). */
  legacyMessagesPath?: string;
  /** An idle SSE stream gets a `: keep-alive` comment this often (ms; `null`: never; default 15 000). */
  sseKeepAliveMs?: number | null;
  /** Messages buffered per SSE stream before a slow reader's stream is closed. */
  streamQueueCapacity?: number;
  /** Close long-running request streams after this long (ms) so clients poll. */
  closeStreamsAfterMs?: number;
  /** Most connections served at once (default 1024; more wait). `listen` only. */
  maxConnections?: number;
  /** Largest request head in bytes (default 64 KiB; 431 beyond). `listen` only. */
  maxHeadSize?: number;
  /** Time a new connection has to send its first head (ms, default 10 000). `listen` only. */
  headerReadTimeoutMs?: number;
  /** Time a request may take to arrive once begun (ms, default 30 000; 408). `listen` only. */
  requestTimeoutMs?: number;
  /** Time a kept-alive connection may sit idle (ms, default 300 000). `listen` only. */
  keepAliveTimeoutMs?: number;
  /** Time a write may go without progress before the connection closes (ms, default 30 000). `listen` only. */
  writeTimeoutMs?: number;
  /** Bytes all connections may buffer together (default 256 MiB; 503 beyond). `listen` only. */
  maxBufferedBytes?: number;
  /**
   * Keep sessions, SSE events and the replicas' bus on this Redis/Valkey
   * (`redis://[user:password@]host:port[/db]`), so that several servers (processes or machines)
   * behind one load balancer serve the same sessions. `listen` connects before it listens: a
   * URL that is not a Redis URL rejects with an `McpError` of code -32602, a Redis that cannot
   * be reached with -32603.
   */
  redisUrl?: string;
  /**
   * Bearer-token protection (OAuth 2.1 resource server): see {@link ProtectedResource}.
   * Handlers read the verified identity as `ctx.auth`.
   */
  auth?: ProtectedResource;
  /**
   * Serve `https://` (see {@link TlsOptions}): certificate and key as files or PEM, optionally
   * a client CA for mutual TLS, the client certificate's identity then in `ctx.auth`. `listen`
   * only: files that do not load reject with an `McpError` naming the file before listening.
   */
  tls?: TlsOptions;
  /**
   * `Content-Encoding` of answers and request bodies (docs/compression.md): `false` turns it
   * off, `true` (the default) answers in zstd, br or gzip as the client's `Accept-Encoding`
   * allows from 1,024 bytes, or `{ codings, minSize, level, streams }`.
   */
  compression?: boolean | {
    codings?: Array<'zstd' | 'br' | 'gzip'>;
    minSize?: number;
    level?: 'fastest' | 'default' | 'smallest';
    streams?: boolean;
  };
  /**
   * Be the OAuth authorization server of this endpoint, in front of an identity provider
   * without dynamic client registration (GitHub, Google, Entra ID, Auth0, any OpenID provider;
   * docs/oauth-proxy.md): the listener serves the proxy's metadata, `/register`, `/authorize`,
   * consent, callback, `/token` and `/revoke` beside the endpoint, which accepts the proxy's
   * tokens (checked in the engine) unless `auth` is given. Its records go to its own
   * `redisUrl`, else to the server's `redisUrl`, else to memory. Bad options reject with an
   * `McpError` of code -32602 before anything listens. `listen` only (in a host framework,
   * mount `OAuthProxy.create(...)`'s `router()` from `ferromcp/server/auth/oauthProxy.js`).
   */
  oauthProxy?: OAuthProxyOptions;
}

/** A running Streamable HTTP server (from {@link McpServer.listen}). */
export class HttpServer {
  readonly #native: NativeHttpServer;
  readonly #stopped: Promise<void>;

  /** @internal */
  constructor(n: NativeHttpServer) {
    this.#native = n;
    // A pending native wait() keeps the process alive while the server runs.
    this.#stopped = call(n.wait());
  }

  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  get url(): string {
    return this.#native.url;
  }

  /** The bound port. */
  get port(): number {
    return this.#native.port;
  }

  /** Stops accepting connections, lets in-flight requests finish, closes the sessions. */
  async close(): Promise<void> {
    await call(this.#native.close());
    await this.#stopped;
  }

  /** Resolves once the server has stopped. */
  wait(): Promise<void> {
    return this.#stopped;
  }

  /** `await using server = await mcp.listen(...)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
