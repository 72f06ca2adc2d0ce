/**
 * The Node option types against the engine's configuration schema (`embed/config-schema.json`,
 * derived from embed's `ServerConfig`, `HttpConfig` and `ClientConfig` with schemars and checked
 * against them by `cargo test -p ferromcp-embed`; `generate.mjs` turns it into
 * `generated/config/<Name>.ts`), checked by the compiler: `listen()` and `new McpServer()` pass
 * their options to the engine as they are (`server.ts`: `...rest`), so every key of ours must be
 * a key of the engine's config and the other way round, but for the differences named below
 * with their reasons. A key renamed, added or removed on either side fails here, naming it; a
 * listed difference that is no longer one fails too. Keys only: the value types differ on
 * purpose (the schema's optional values are `T | null`, ours `T`; middleware and TLS take
 * richer forms here). Nothing runs: the checks are types.
 *
 * The client does not pass its options through: `Client`'s connect builds the engine's config
 * key by key (`ClientConfigSent`, the type of the object it sends, so a misspelt key fails tsc
 * there), so both are checked: the keys sent against `ClientConfig`, and the keys of
 * `ClientOptions` against `ClientConfig` (a handler option is sent as its flag of the same
 * name, `timeoutMs` as `requestTimeoutMs`). `HttpClientOptions`' own keys (headers,
 * legacyFallback, auth, rootCertificates) are the transport's arguments, not `ClientConfig`'s.
 * @module
 */
import type { ClientConfigSent, ClientOptions } from '../ts/client';
import type { ListenOptions, ServerInfo, ServerOptions } from '../ts/server_options';
import type { ClientConfig } from './generated/config/ClientConfig';
import type { HttpConfig } from './generated/config/HttpConfig';
import type { ServerConfig } from './generated/config/ServerConfig';

/** The string keys of `T`, index signatures left out. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] } & string;

/**
 * `true` when `Ours` and `Engine` have the same keys but for `OursOnly` and `EngineOnly`
 * (each of which must still be a difference); otherwise an object naming what differs.
 */
type CheckKeys<Ours, Engine, OursOnly extends string = never, EngineOnly extends string = never> = [
  Exclude<Exclude<KnownKeys<Ours>, KnownKeys<Engine>>, OursOnly> | Exclude<Exclude<KnownKeys<Engine>, KnownKeys<Ours>>, EngineOnly>,
  Exclude<OursOnly, Exclude<KnownKeys<Ours>, KnownKeys<Engine>>> | Exclude<EngineOnly, Exclude<KnownKeys<Engine>, KnownKeys<Ours>>>,
] extends [never, never]
  ? true
  : {
      keyOnlyInOurs: Exclude<Exclude<KnownKeys<Ours>, KnownKeys<Engine>>, OursOnly>;
      keyOnlyInEngine: Exclude<Exclude<KnownKeys<Engine>, KnownKeys<Ours>>, EngineOnly>;
      exceptionNoLongerNeeded: Exclude<OursOnly, Exclude<KnownKeys<Ours>, KnownKeys<Engine>>> | Exclude<EngineOnly, Exclude<KnownKeys<Engine>, KnownKeys<Ours>>>;
    };
type Assert<T extends true> = T;

/** What `new McpServer(info, options)` sends: `{ ...info, ...rest, ...capabilityOptions(capabilities) }`. */
type SentServerConfig = ServerInfo & Omit<ServerOptions, 'capabilities' | 'middleware' | 'taskStore' | 'taskMessageQueue'>;

export type ConfigChecks = [
  // port/host: the listener's address; auth: the endpoint's protection, handed over apart.
  // The engine's keys Node does not offer yet: the per-client connection cap, the SSE idle
  // timeout, the connections kept for sessions, the per-stream and per-session buffer caps and
  // the readiness endpoint (the engine's defaults apply).
  Assert<CheckKeys<ListenOptions, HttpConfig, 'port' | 'host' | 'auth',
    'maxConnectionsPerClient' | 'sseIdleTimeoutMs' | 'connectionsKeptForSessions' | 'maxStreamBufferedBytes' | 'maxSessionBufferedBytes' | 'healthPath'>>,
  // enableTools/Resources/Prompts/Logging: sent from the SDK's `capabilities` option
  // (capabilityOptions in server.ts); middleware: added through server.use(), each built-in's
  // config handed to the engine apart.
  Assert<CheckKeys<SentServerConfig, ServerConfig, never,
    'enableTools' | 'enableResources' | 'enablePrompts' | 'enableLogging' | 'middleware'>>,
  // samplingTools (declaring tool use inside sampling, 2025-11-25): Node's sampling handler
  // offers no way to ask for it yet (Python's Client neither); the engine's default (off) applies.
  Assert<CheckKeys<ClientConfigSent, ClientConfig, never, 'samplingTools'>>,
  // timeoutMs: sent as requestTimeoutMs (the SDK's name for the option); onNotification: the
  // binding's own delivery of server notifications, not engine configuration.
  Assert<CheckKeys<ClientOptions, ClientConfig, 'timeoutMs' | 'onNotification', 'requestTimeoutMs' | 'samplingTools'>>,
];
