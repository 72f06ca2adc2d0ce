/**
 * MCP wire types (2025-11-25), as the handlers and the client see them. Objects are open
 * (`[key: string]: unknown`) where the spec allows extra fields such as `_meta`. Checked against
 * the types generated from the spec's schema (2025-11-25 and 2026-07-28) by
 * `ts-type-tests/wire_types.check.ts`: a field added, renamed or retyped on either side fails
 * that check, so a change here goes with a change there.
 * @module
 */

/** JSON-RPC request id. */
export type RequestId = string | number;
/** RFC 5424 log level. */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** An icon for a server, tool, resource or prompt. */
export interface Icon { src: string; mimeType?: string; sizes?: string[]; theme?: 'light' | 'dark' }
/** `clientInfo` / `serverInfo`. */
export interface Implementation { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[]; [key: string]: unknown }
/** Content annotations. */
export interface Annotations { audience?: ('user' | 'assistant')[]; priority?: number; lastModified?: string }

/** Text content. */
export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: Record<string, unknown> }
/** Image content (base64). */
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }
/** Audio content (base64). */
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }
/** Text contents of a resource. */
export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
/** Binary contents of a resource (base64). */
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> }
/** Contents of a resource. */
export type ResourceContents = TextResourceContents | BlobResourceContents;
/** An embedded resource. */
export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: Record<string, unknown> }
/** A link to a resource. */
export interface ResourceLink { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; annotations?: Annotations; icons?: Icon[]; _meta?: Record<string, unknown> }
/** Any content block of a tool result or prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** Tool behaviour hints. */
export interface ToolAnnotations { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean }
/** A tool definition as listed. */
export interface Tool {
  name: string; title?: string; description?: string;
  inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations; icons?: Icon[]; execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Record<string, unknown>;
}
/** The result of `tools/call`. */
export interface CallToolResult { content: ContentBlock[]; structuredContent?: Record<string, unknown>; isError?: boolean; _meta?: Record<string, unknown>; [key: string]: unknown }
/** Where a task is in its life. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
/**
 * A task (2025-11-25 tasks, or the tasks extension `io.modelcontextprotocol/tasks` of
 * 2026-07-28 read into the same shape): `ttl` and `pollInterval` in ms. With the extension,
 * `result` / `error` carry what `tasks/get` inlines once the task ended.
 */
export interface Task {
  taskId: string; status: TaskStatus; statusMessage?: string; createdAt: string; lastUpdatedAt: string;
  ttl: number | null; pollInterval?: number; _meta?: Record<string, unknown>; [key: string]: unknown;
}
/** What `Client.callToolAsTask` resolves with. */
export interface CreateTaskResult { task: Task; _meta?: Record<string, unknown>; [key: string]: unknown }

/** A resource as listed. */
export interface Resource { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number; annotations?: Annotations; icons?: Icon[]; _meta?: Record<string, unknown> }
/** A resource template as listed. */
export interface ResourceTemplateInfo { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string; annotations?: Annotations; icons?: Icon[]; _meta?: Record<string, unknown> }
/** The result of `resources/read`. */
export interface ReadResourceResult { contents: ResourceContents[]; _meta?: Record<string, unknown>; [key: string]: unknown }

/** A prompt argument. */
export interface PromptArgument { name: string; title?: string; description?: string; required?: boolean }
/** A prompt as listed. */
export interface Prompt { name: string; title?: string; description?: string; arguments?: PromptArgument[]; icons?: Icon[]; _meta?: Record<string, unknown> }
/** A prompt message. */
export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
/** The result of `prompts/get`. */
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: Record<string, unknown>; [key: string]: unknown }

/** A completion answer. */
export interface Completion { values: string[]; total?: number; hasMore?: boolean }
/** The result of `completion/complete`. */
export interface CompleteResult { completion: Completion; _meta?: Record<string, unknown>; [key: string]: unknown }
/** What `completion/complete` asks. */
export interface CompleteRequestParams {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
  _meta?: Record<string, unknown>;
}

/** A root the client exposes. */
export interface Root { uri: string; name?: string; _meta?: Record<string, unknown> }

/** Params of `sampling/createMessage`. */
export interface CreateMessageRequestParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number; systemPrompt?: string; temperature?: number; stopSequences?: string[];
  modelPreferences?: Record<string, unknown>; includeContext?: 'none' | 'thisServer' | 'allServers';
  metadata?: Record<string, unknown>; tools?: unknown[]; toolChoice?: unknown;
  /** Asks for the request to run as a task (2025-11-25 tasks): `ttl` in ms. */
  task?: { ttl?: number }; _meta?: Record<string, unknown>; [key: string]: unknown;
}
/** The result of `sampling/createMessage`. */
export interface CreateMessageResult { role: 'user' | 'assistant'; content: unknown; model: string; stopReason?: string; _meta?: Record<string, unknown>; [key: string]: unknown }
/** Params of `elicitation/create` (form mode, or URL mode with `mode: 'url'`). */
export interface ElicitRequestParams {
  message: string; mode?: 'form' | 'url'; requestedSchema?: Record<string, unknown>; url?: string; elicitationId?: string;
  /** Asks for the request to run as a task (2025-11-25 tasks): `ttl` in ms. */
  task?: { ttl?: number }; _meta?: Record<string, unknown>; [key: string]: unknown;
}
/** The result of `elicitation/create`. */
export interface ElicitResult { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown>; _meta?: Record<string, unknown>; [key: string]: unknown }

/** A list result page. */
export interface Paginated { nextCursor?: string; _meta?: Record<string, unknown>; [key: string]: unknown }
/** `tools/list`. */
export interface ListToolsResult extends Paginated { tools: Tool[] }
/** `resources/list`. */
export interface ListResourcesResult extends Paginated { resources: Resource[] }
/** `resources/templates/list`. */
export interface ListResourceTemplatesResult extends Paginated { resourceTemplates: ResourceTemplateInfo[] }
/** `prompts/list`. */
export interface ListPromptsResult extends Paginated { prompts: Prompt[] }
/** The `initialize` result. */
export interface InitializeResult { protocolVersion: string; capabilities: Record<string, unknown>; serverInfo: Implementation; instructions?: string; _meta?: Record<string, unknown>; [key: string]: unknown }

/** A notification from the peer. */
export interface Notification { method: string; params?: Record<string, unknown> }
/** `notifications/progress` params. */
export interface Progress { progress: number; total?: number; message?: string; progressToken?: string | number }
