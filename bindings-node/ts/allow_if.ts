/**
 * Authorization by a predicate of your own, in JavaScript: {@link allowIf} hides the tools,
 * resources, resource templates and prompts for which `predicate(access)` is false, as Rust's
 * `Authorization::allow_if` does. Hidden items are absent from `tools/list`, `resources/list`,
 * `resources/templates/list` and `prompts/list`, and refused exactly as unknown ones:
 * `tools/call` and `prompts/get` with -32602 `Unknown tool: name` / `Unknown prompt: name`,
 * `resources/read` and `resources/subscribe` with -32002 `Resource not found: uri`,
 * `completion/complete` of a hidden prompt as unknown and of a hidden template with no values.
 *
 * It is a JavaScript middleware layer (the predicate runs on the event loop, once per listed
 * item and once per call), so it filters each page the engine answers: a page may come back
 * shorter than the page size, with the engine's `nextCursor`. The engine's scope rules
 * ({@link Authorization}) keep pages full; use them where scopes say enough.
 * @module
 */
import type { AuthInfo } from './auth';
import { McpError } from './errors';
import type { MiddlewareContext, MiddlewareFunction } from './middleware';

/** What an item is. */
export type AccessKind = 'tool' | 'resource' | 'prompt';

/** What the predicate is asked about: an item and the caller. */
export interface Access {
  kind: AccessKind;
  /** The tool's or prompt's name, the resource's URI or the template's URI template. */
  name: string;
  /** The verified token's identity, undefined without one. */
  principal: AuthInfo | undefined;
  /** The principal's scopes (empty without a token). */
  scopes: string[];
  sessionId: string | undefined;
  sessionKey: string;
  /** The whole middleware context (`requestContext.peerInfo` is the client's `clientInfo`). */
  context: MiddlewareContext;
}

const LISTS: Record<string, [string, AccessKind, string]> = {
  'tools/list': ['tools', 'tool', 'name'],
  'prompts/list': ['prompts', 'prompt', 'name'],
  'resources/list': ['resources', 'resource', 'uri'],
  'resources/templates/list': ['resourceTemplates', 'resource', 'uriTemplate'],
};

/** A middleware layer showing an item only when `predicate(access)` is true (see the module). */
export function allowIf(predicate: (access: Access) => boolean): MiddlewareFunction {
  if (typeof predicate !== 'function') throw new TypeError('allowIf(predicate): predicate must be a function');
  const allows = (ctx: MiddlewareContext, kind: AccessKind, name: string): boolean =>
    Boolean(
      predicate({
        kind,
        name,
        principal: ctx.principal,
        scopes: [...(ctx.principal?.scopes ?? [])],
        sessionId: ctx.sessionId,
        sessionKey: ctx.sessionKey,
        context: ctx,
      }),
    );
  const layer: MiddlewareFunction = async (ctx, next) => {
    const params = (ctx.params ?? {}) as Record<string, unknown>;
    const listed = LISTS[ctx.method];
    if (listed) {
      const [field, kind, key] = listed;
      const result = await next();
      const items = result[field];
      if (Array.isArray(items)) {
        result[field] = items.filter(
          (i) => typeof i !== 'object' || i === null || allows(ctx, kind, String((i as Record<string, unknown>)[key] ?? '')),
        );
      }
      return result;
    }
    const { name, uri } = params;
    if (ctx.method === 'tools/call' && typeof name === 'string' && !allows(ctx, 'tool', name)) {
      throw new McpError(-32602, `Unknown tool: ${name}`, { tool: name });
    }
    if (ctx.method === 'prompts/get' && typeof name === 'string' && !allows(ctx, 'prompt', name)) {
      throw new McpError(-32602, `Unknown prompt: ${name}`, { prompt: name });
    }
    if ((ctx.method === 'resources/read' || ctx.method === 'resources/subscribe') && typeof uri === 'string' && !allows(ctx, 'resource', uri)) {
      throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
    }
    if (ctx.method === 'completion/complete') {
      const ref = (params.ref ?? {}) as Record<string, unknown>;
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string' && !allows(ctx, 'prompt', ref.name)) {
        throw new McpError(-32602, `Unknown prompt: ${ref.name}`, { prompt: ref.name });
      }
      if (ref.type === 'ref/resource' && typeof ref.uri === 'string' && !allows(ctx, 'resource', ref.uri)) {
        return { completion: { values: [] } };
      }
    }
    return next();
  };
  return layer;
}
