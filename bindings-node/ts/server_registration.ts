/**
 * What `registerTool`, `registerResource` and `registerPrompt` take and what their handlers may
 * return: the configs, the handler signatures, {@link ResourceTemplate} and {@link completable}.
 * Kept apart from `server.ts` (which registers and dispatches) so the registration surface is
 * read on its own; `server.ts` re-exports it.
 * @module
 */
import type { RequestContext } from './context';
import type { SchemaInput } from './schema';
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Icon,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  ToolAnnotations,
} from './types';

/** What a tool handler may return: a full `CallToolResult`, or a value the engine shapes (a
 * string, content blocks, or — for a tool with an `outputSchema` — the structured value). */
export type ToolResult = CallToolResult | string | ContentBlock | ContentBlock[] | Record<string, unknown>;

/** Configuration of {@link McpServer.registerTool}. */
export interface ToolConfig<In extends SchemaInput | undefined = SchemaInput | undefined> {
  title?: string;
  description?: string;
  /** JSON Schema, a Standard Schema exporting JSON Schema (zod 4, arktype, valibot), or an object of them per property. */
  inputSchema?: In;
  /** Like `inputSchema`; a tool with one answers with `structuredContent`. */
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Task support of the tool (2025-11-25 tasks). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Record<string, unknown>;
}

/** The argument type of a tool with input schema `S` (Standard Schema types are inferred). */
export type ToolArgs<S> = S extends { readonly '~standard': { readonly types?: { readonly output: infer O } } }
  ? O
  : S extends { [k: string]: { readonly '~standard': { readonly types?: { readonly output: unknown } } } }
    ? { [K in keyof S]: S[K] extends { readonly '~standard': { readonly types?: { readonly output: infer O } } } ? O : unknown }
    : Record<string, unknown>;

/** A tool handler: `(args, ctx)` with an input schema, `(ctx)` without. */
export type ToolCallback<In extends SchemaInput | undefined> = In extends undefined
  ? (ctx: RequestContext) => ToolResult | Promise<ToolResult>
  : (args: ToolArgs<In>, ctx: RequestContext) => ToolResult | Promise<ToolResult>;

/** Metadata of a resource or resource template. */
export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** What a resource handler may return: a `ReadResourceResult`, contents, or text. */
export type ResourceResult = ReadResourceResult | ResourceContents | ResourceContents[] | string | Uint8Array;
/** Handler of a static resource. */
export type ReadResourceCallback = (uri: URL, ctx: RequestContext) => ResourceResult | Promise<ResourceResult>;
/** Handler of a resource template: `variables` holds the template's variables. */
export type ReadResourceTemplateCallback = (
  uri: URL,
  variables: Record<string, string>,
  ctx: RequestContext,
) => ResourceResult | Promise<ResourceResult>;
/** Completes a value: gets the partial value and the other arguments already given. */
export type CompleteCallback = (
  value: string,
  context: { arguments?: Record<string, string> } | undefined,
) => string[] | Promise<string[]>;

/** A resource template: a URI template (RFC 6570) and completion callbacks of its variables. */
export class ResourceTemplate {
  /** The URI template, e.g. `file:///{path}`. */
  readonly uriTemplate: string;
  /** Completion callbacks by variable name. */
  readonly complete: Record<string, CompleteCallback>;

  /**
   * `list` must be `undefined`: ferromcp lists a template as a template (enumerating its
   * resources through a callback is not supported yet and is refused rather than ignored).
   */
  constructor(
    uriTemplate: string,
    options: { list: undefined; complete?: Record<string, CompleteCallback> },
  ) {
    if (options?.list !== undefined) {
      throw new TypeError('ResourceTemplate: a list callback is not supported by ferromcp yet; pass list: undefined');
    }
    this.uriTemplate = uriTemplate;
    this.complete = options?.complete ?? {};
  }
}

/** @internal The property {@link completable} sets on a schema: its completion callback. */
export const COMPLETE = Symbol.for('ferromcp.complete');

/** Marks a prompt argument's schema as completable with `complete` (as the TypeScript SDK's `completable`). */
export function completable<S extends object>(schema: S, complete: CompleteCallback): S {
  Object.defineProperty(schema, COMPLETE, { value: complete, enumerable: false });
  return schema;
}

/** What a prompt handler may return: a `GetPromptResult`, messages, or text (one user message). */
export type PromptResult = GetPromptResult | PromptMessage | PromptMessage[] | string;

/** Configuration of {@link McpServer.registerPrompt}. */
export interface PromptConfig {
  title?: string;
  description?: string;
  /** Arguments: an object of (string) schemas per argument, or a JSON Schema object. */
  argsSchema?: SchemaInput;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** Registration handle, as the TypeScript SDK returns. */
export interface Registered {
  /** Removes the registration. */
  remove(): void;
}
