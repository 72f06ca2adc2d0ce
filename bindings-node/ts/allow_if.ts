/**
 * Authorization by a predicate of your own, in JavaScript: {@link allowIf} hides the tools,
 * resources, resource templates and prompts for which `predicate(access)` is false, as Rust's
 * `Authorization::allow_if` does. Hidden items are absent from `tools/list`, `resources/list`,
 * `resources/templates/list` and `prompts/list`, and refused exactly as unknown ones:
 * `tools/call` and `prompts/get` with -32602 `Unknown tool: name` / `Unknown prompt: name`,
 * `resources/read` and `resources/subscribe` with -32002 `Resource not found: uri`,
 * `completion/complete` of a hidden prompt as unknown and of a hidden template with no values.
 *
 * The decision is the engine's: the layer `server.use(allowIf(...))` adds is the engine's
 * `Authorization` layer, at that place in the chain, asking the predicate (on the event loop)
 * about every item of the whole list once per list request, then paging what is left with the
 * server's `pageSize`: pages stay full and cursors valid. It asks once per call, read or get
 * about the one item. A predicate that throws hides that item (reported on stderr with its
 * stack); the request itself never fails for it.
 * @module
 */
import type { AuthInfo } from './auth';
import type { RequestContext } from './context';
import { MiddlewareContext, type MiddlewareFunction } from './middleware';
import { ErrorCode, McpError } from './errors';

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

/** The server `use` adds an engine-run layer to. @internal */
export interface AccessPredicateHost {
  addAccessPredicate(handlerId: number): void;
}

/** The key under which a layer the engine runs carries its installer (read by `use`). @internal */
export const ENGINE_LAYER: unique symbol = Symbol.for('ferromcp.engineLayer') as never;

/** The predicate as the dispatcher calls it: `{request, kind, names}` in, one boolean per name out. */
function answers(predicate: (access: Access) => boolean): (payload: unknown, rctx: RequestContext) => boolean[] {
  return (payload, rctx) => {
    const { request, kind, names } = payload as {
      request: ConstructorParameters<typeof MiddlewareContext>[0];
      kind: AccessKind;
      names: string[];
    };
    const context = new MiddlewareContext(request, rctx);
    const scopes = [...(context.principal?.scopes ?? [])];
    return names.map((name) => {
      try {
        return Boolean(
          predicate({ kind, name, principal: context.principal, scopes, sessionId: context.sessionId, sessionKey: context.sessionKey, context }),
        );
      } catch (e) {
        console.error(`ferromcp: allowIf predicate failed for ${kind} ${JSON.stringify(name)} (hidden):`, e);
        return false;
      }
    });
  };
}

/** A middleware layer showing an item only when `predicate(access)` is true (see the module).
 * Add it with `server.use(...)` or the `middleware` option: the engine runs it. */
export function allowIf(predicate: (access: Access) => boolean): MiddlewareFunction {
  if (typeof predicate !== 'function') throw new TypeError('allowIf(predicate): predicate must be a function');
  const layer: MiddlewareFunction = () => {
    throw new McpError(ErrorCode.InternalError, 'allowIf runs in the engine: add it with server.use(...) or the middleware option, do not call it');
  };
  const install = (host: AccessPredicateHost, add: (handler: (payload: unknown, ctx: RequestContext) => unknown) => number): void =>
    host.addAccessPredicate(add(answers(predicate)));
  Object.defineProperty(layer, ENGINE_LAYER, { value: install });
  return layer;
}
