/**
 * ferromcp for Node.js: MCP servers and clients on one Rust engine, in the shape of the official
 * TypeScript SDK (`McpServer.registerTool`, `Client.callTool`, `McpError`).
 *
 * ```ts
 * import { McpServer } from 'ferromcp';
 * const server = new McpServer({ name: 'demo', version: '1.0.0' });
 * server.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
 *   ({ a, b }) => String(Number(a) + Number(b)));
 * await server.connectStdio();
 * ```
 * @module
 */
export { OAuth, ProtectedResource } from './auth';
export {
  checkUiResourceMeta,
  checkUiUri,
  clientSupportsUi,
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_URI_META_KEY,
  UI_EXTENSION,
  UI_MIME_TYPE,
  uiClientCapability,
} from './apps';
export type { AppResourceConfig, AppToolConfig, UiCsp, UiResourceMeta, UiToolMeta } from './apps';
export type {
  AuthInfo,
  IntrospectionOptions,
  JwtVerifierOptions,
  OAuthOptions,
  ProtectedResourceOptions,
  StoredAuth,
  TokenStore,
  VerifiedToken,
} from './auth';
export { Client } from './client';
export { Authorization } from './composition';
export type { ArgTransform, AuthorizationLayer, AuthorizationRule, ItemKind, ToolTransformConfig, TransformToolOptions } from './composition';
export type { ClientOptions, HttpClientOptions, RequestOptions, StdioServerParameters } from './client';
export { RequestContext } from './context';
export { ConfigError, MultiClient, parseConfig } from './multi';
export type { ServerEntry } from './multi';
export { Subscription, SUBSCRIPTION_ID_META } from './listen';
export type { ListenFilter } from './listen';
export type { Pem, TlsOptions } from './tls';
export type { ClientIdDocumentOptions, OAuthProxyOptions, OAuthProxyUpstream } from './oauth_proxy_options';
export { openTelemetry, type ClientOpenTelemetryOptions, type OpenTelemetryLayer, type OpenTelemetryOptions } from './otel';
export { ErrorCode, inputRequired, McpError, TransportError, UrlElicitationRequiredError } from './errors';
/** The TypeScript SDK v2 names of {@link McpError} and {@link ErrorCode}. */
export { McpError as ProtocolError, ErrorCode as ProtocolErrorCode } from './errors';
export { McpHttpHandler } from './http';
export { maskErrors, MiddlewareContext, rateLimit, requestLog, timing } from './middleware';
export { logLevel, setLogHandler, setLogLevel } from './logging';
export type { LogHandler, LogLevel, LogRecord } from './logging';
export { allowIf } from './allow_if';
export type { Access, AccessKind } from './allow_if';
export { responseCache } from './cache';
export type { ResponseCacheOptions } from './cache';
export { invalidateCache } from './cache_invalidation';
export type { InvalidateCacheOptions } from './cache_invalidation';
export type {
  BuiltinMiddleware,
  MaskErrorsOptions,
  Middleware,
  MiddlewareFunction,
  MiddlewareLayer,
  MiddlewareResult,
  NextFunction,
  NotificationContext,
  NotificationHook,
  NotificationNext,
  RateKey,
  RateLimitOptions,
  RequestLogOptions,
  TimingEvent,
} from './middleware';
export type { ErrorCodeName, InputRequest } from './errors';
export type { JsonSchema, SchemaInput, StandardJsonSchemaV1 } from './schema';
export { completable, HttpServer, McpServer, ResourceTemplate, StdioServerTransport } from './server';
export type {
  CacheScope,
  CompleteCallback,
  ListenOptions,
  PromptConfig,
  PromptResult,
  ProtocolRevision,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  Registered,
  ResourceMetadata,
  ResourceResult,
  ServerCapabilities,
  ServerInfo,
  ServerOptions,
  ToolArgs,
  ToolCallback,
  ToolConfig,
  ToolResult,
} from './server';
export type * from './types';
/** The engine's version. */
export const ENGINE_VERSION: string = require('../native/index.js').engineVersion();
