/**
 * `ferromcp/types.js`: the part of the TypeScript SDK's `@modelcontextprotocol/sdk/types.js`
 * that ported servers use besides the classes: `McpError` and `ErrorCode` (the `ferromcp`
 * ones), the protocol revision constants, the JSON-RPC type guards (`isInitializeRequest` for
 * the Express examples, ...) and the result types. The SDK's zod schemas
 * (`CallToolResultSchema`, ...) are not here: ferromcp validates in its engine, and its client
 * takes no result schema.
 * @module
 */
export { ErrorCode, McpError } from '../errors';
export type * from '../types';

/** The newest handshake-era revision (as the SDK's constant). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
/** The handshake-era revisions ferromcp negotiates, newest first (2026-07-28, the per-request
 * era, is served beside them: see `ServerOptions.supportedVersions`). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** A JSON-RPC request message (`jsonrpc: "2.0"`, an id, a method). */
export function isJSONRPCRequest(value: unknown): boolean {
  return isObject(value) && value.jsonrpc === '2.0' && isId(value.id) && typeof value.method === 'string'
    && (value.params === undefined || isObject(value.params));
}

/** A JSON-RPC notification message (a method, no id). */
export function isJSONRPCNotification(value: unknown): boolean {
  return isObject(value) && value.jsonrpc === '2.0' && !('id' in value) && typeof value.method === 'string'
    && (value.params === undefined || isObject(value.params));
}

/** A JSON-RPC result response. */
export function isJSONRPCResultResponse(value: unknown): boolean {
  return isObject(value) && value.jsonrpc === '2.0' && isId(value.id) && isObject(value.result);
}

/** The SDK's older name of {@link isJSONRPCResultResponse}. */
export const isJSONRPCResponse = isJSONRPCResultResponse;

/** A JSON-RPC error response. */
export function isJSONRPCErrorResponse(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0' || !isObject(value.error)) return false;
  return (value.id === undefined || isId(value.id)) && Number.isInteger(value.error.code) && typeof value.error.message === 'string';
}

/** The SDK's older name of {@link isJSONRPCErrorResponse}. */
export const isJSONRPCError = isJSONRPCErrorResponse;

/**
 * An `initialize` request (as the SDK checks it: the method and the params' `protocolVersion`,
 * `capabilities`, `clientInfo`; the JSON-RPC envelope may be there or not), e.g. a parsed POST
 * body in an Express route.
 */
export function isInitializeRequest(value: unknown): boolean {
  if (!isObject(value) || value.method !== 'initialize' || !isObject(value.params)) return false;
  const p = value.params;
  return typeof p.protocolVersion === 'string' && isObject(p.capabilities) && isObject(p.clientInfo)
    && typeof p.clientInfo.name === 'string' && typeof p.clientInfo.version === 'string';
}

/** A `notifications/initialized` notification. */
export function isInitializedNotification(value: unknown): boolean {
  return isObject(value) && value.method === 'notifications/initialized';
}
