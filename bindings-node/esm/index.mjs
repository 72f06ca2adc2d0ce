// The ES module entry point: re-exports the CommonJS build (one instance of every class, so
// `instanceof McpError` holds whichever way the package was loaded). test/esm.test.mjs checks
// that this list matches the CommonJS exports.
import cjs from '../dist/index.js';

export const {
  OAuth,
  ProtectedResource,
  Client,
  Authorization,
  ConfigError,
  MultiClient,
  parseConfig,
  RequestContext,
  Subscription,
  SUBSCRIPTION_ID_META,
  ErrorCode,
  inputRequired,
  McpError,
  ProtocolError,
  ProtocolErrorCode,
  TransportError,
  UrlElicitationRequiredError,
  completable,
  HttpServer,
  McpHttpHandler,
  maskErrors,
  MiddlewareContext,
  openTelemetry,
  rateLimit,
  requestLog,
  timing,
  McpServer,
  ResourceTemplate,
  StdioServerTransport,
  ENGINE_VERSION,
} = cjs;
export default cjs;
