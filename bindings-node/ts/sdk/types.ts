/**
 * `ferromcp/types.js`: the part of the TypeScript SDK's `@modelcontextprotocol/sdk/types.js`
 * that ported servers use besides the classes: `McpError` and `ErrorCode` (the `ferromcp`
 * ones), the protocol revision constants, the JSON-RPC type guards (`isInitializeRequest` for
 * the Express examples, ...) and the result types. The SDK's zod schemas are here by name as
 * {@link MessageSchema} objects: a request or notification schema carries its `method`, which
 * is what `setRequestHandler(CallToolRequestSchema, ...)` and
 * `setNotificationHandler(LoggingMessageNotificationSchema, ...)` key their handlers by; a result
 * schema given to `client.request(req, CallToolResultSchema)` passes the result through (the
 * engine has checked the message already). They validate nothing themselves.
 * @module
 */
export { ErrorCode, McpError, UrlElicitationRequiredError } from '../errors';
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

/**
 * One of the SDK's message schemas by name: `method` for a request or notification (what
 * handlers are keyed by), `parse`/`safeParse` pass a value through unchanged (ferromcp's engine
 * validates messages; these do not).
 */
export interface MessageSchema<M extends string | undefined = string | undefined> {
  readonly name: string;
  readonly method: M;
  /** The SDK reads a schema's method as `shape.method.value` (zod 3). */
  readonly shape: M extends string ? { readonly method: { readonly value: M } } : Record<string, never>;
  parse<T>(value: T): T;
  safeParse<T>(value: T): { success: true; data: T };
}

function messageSchema<M extends string | undefined>(name: string, method: M): MessageSchema<M> {
  return Object.freeze({
    name,
    method,
    shape: (method === undefined ? {} : { method: { value: method } }) as MessageSchema<M>['shape'],
    parse: <T>(value: T): T => value,
    safeParse: <T>(value: T) => ({ success: true as const, data: value }),
  });
}

/** The method a schema (or a method name) stands for, as the handler tables key it. */
export function methodOf(schema: unknown): string {
  if (typeof schema === 'string') return schema;
  if (typeof schema === 'object' && schema !== null) {
    const s = schema as { method?: unknown; shape?: { method?: { value?: unknown } } };
    if (typeof s.method === 'string') return s.method;
    if (typeof s.shape?.method?.value === 'string') return s.shape.method.value;
  }
  throw new TypeError('expected a request or notification schema (e.g. CallToolRequestSchema) or a method name');
}

export const InitializeRequestSchema = messageSchema('InitializeRequestSchema', 'initialize');
export const PingRequestSchema = messageSchema('PingRequestSchema', 'ping');
export const GetTaskRequestSchema = messageSchema('GetTaskRequestSchema', 'tasks/get');
export const GetTaskPayloadRequestSchema = messageSchema('GetTaskPayloadRequestSchema', 'tasks/result');
export const ListTasksRequestSchema = messageSchema('ListTasksRequestSchema', 'tasks/list');
export const CancelTaskRequestSchema = messageSchema('CancelTaskRequestSchema', 'tasks/cancel');
export const ListResourcesRequestSchema = messageSchema('ListResourcesRequestSchema', 'resources/list');
export const ListResourceTemplatesRequestSchema = messageSchema('ListResourceTemplatesRequestSchema', 'resources/templates/list');
export const ReadResourceRequestSchema = messageSchema('ReadResourceRequestSchema', 'resources/read');
export const SubscribeRequestSchema = messageSchema('SubscribeRequestSchema', 'resources/subscribe');
export const UnsubscribeRequestSchema = messageSchema('UnsubscribeRequestSchema', 'resources/unsubscribe');
export const ListPromptsRequestSchema = messageSchema('ListPromptsRequestSchema', 'prompts/list');
export const GetPromptRequestSchema = messageSchema('GetPromptRequestSchema', 'prompts/get');
export const ListToolsRequestSchema = messageSchema('ListToolsRequestSchema', 'tools/list');
export const CallToolRequestSchema = messageSchema('CallToolRequestSchema', 'tools/call');
export const SetLevelRequestSchema = messageSchema('SetLevelRequestSchema', 'logging/setLevel');
export const CreateMessageRequestSchema = messageSchema('CreateMessageRequestSchema', 'sampling/createMessage');
export const ElicitRequestSchema = messageSchema('ElicitRequestSchema', 'elicitation/create');
export const CompleteRequestSchema = messageSchema('CompleteRequestSchema', 'completion/complete');
export const ListRootsRequestSchema = messageSchema('ListRootsRequestSchema', 'roots/list');
export const CancelledNotificationSchema = messageSchema('CancelledNotificationSchema', 'notifications/cancelled');
export const InitializedNotificationSchema = messageSchema('InitializedNotificationSchema', 'notifications/initialized');
export const ProgressNotificationSchema = messageSchema('ProgressNotificationSchema', 'notifications/progress');
export const TaskStatusNotificationSchema = messageSchema('TaskStatusNotificationSchema', 'notifications/tasks/status');
export const ResourceListChangedNotificationSchema = messageSchema('ResourceListChangedNotificationSchema', 'notifications/resources/list_changed');
export const ResourceUpdatedNotificationSchema = messageSchema('ResourceUpdatedNotificationSchema', 'notifications/resources/updated');
export const PromptListChangedNotificationSchema = messageSchema('PromptListChangedNotificationSchema', 'notifications/prompts/list_changed');
export const ToolListChangedNotificationSchema = messageSchema('ToolListChangedNotificationSchema', 'notifications/tools/list_changed');
export const LoggingMessageNotificationSchema = messageSchema('LoggingMessageNotificationSchema', 'notifications/message');
export const ElicitationCompleteNotificationSchema = messageSchema('ElicitationCompleteNotificationSchema', 'notifications/elicitation/complete');
export const RootsListChangedNotificationSchema = messageSchema('RootsListChangedNotificationSchema', 'notifications/roots/list_changed');
export const ResultSchema = messageSchema('ResultSchema', undefined);
export const EmptyResultSchema = messageSchema('EmptyResultSchema', undefined);
export const InitializeResultSchema = messageSchema('InitializeResultSchema', undefined);
export const PaginatedResultSchema = messageSchema('PaginatedResultSchema', undefined);
export const CreateTaskResultSchema = messageSchema('CreateTaskResultSchema', undefined);
export const GetTaskResultSchema = messageSchema('GetTaskResultSchema', undefined);
export const GetTaskPayloadResultSchema = messageSchema('GetTaskPayloadResultSchema', undefined);
export const ListTasksResultSchema = messageSchema('ListTasksResultSchema', undefined);
export const CancelTaskResultSchema = messageSchema('CancelTaskResultSchema', undefined);
export const ListResourcesResultSchema = messageSchema('ListResourcesResultSchema', undefined);
export const ListResourceTemplatesResultSchema = messageSchema('ListResourceTemplatesResultSchema', undefined);
export const ReadResourceResultSchema = messageSchema('ReadResourceResultSchema', undefined);
export const ListPromptsResultSchema = messageSchema('ListPromptsResultSchema', undefined);
export const GetPromptResultSchema = messageSchema('GetPromptResultSchema', undefined);
export const ListToolsResultSchema = messageSchema('ListToolsResultSchema', undefined);
export const CallToolResultSchema = messageSchema('CallToolResultSchema', undefined);
export const CompatibilityCallToolResultSchema = messageSchema('CompatibilityCallToolResultSchema', undefined);
export const CreateMessageResultSchema = messageSchema('CreateMessageResultSchema', undefined);
export const ElicitResultSchema = messageSchema('ElicitResultSchema', undefined);
export const CompleteResultSchema = messageSchema('CompleteResultSchema', undefined);
export const ListRootsResultSchema = messageSchema('ListRootsResultSchema', undefined);
export const ClientResultSchema = messageSchema('ClientResultSchema', undefined);
export const ServerResultSchema = messageSchema('ServerResultSchema', undefined);

/** `_meta` key relating a message to a task (the SDK's constant). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
