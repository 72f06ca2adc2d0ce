/**
 * Authorization per tool, resource and prompt, server composition and tool transforms: the
 * engine's (`core/src/server/authorization.rs`, `compose.rs`, `transform.rs`, through
 * `embed/src/compose.rs`; see `docs/composition.md`) from Node, with the names of the
 * Python binding's `ferromcp.composition` in camelCase.
 *
 * ```ts
 * const weather = new McpServer({ name: 'weather', version: '1' });
 * weather.registerTool('forecast', { inputSchema: { city: z.string(), days: z.number().optional() } }, ...);
 * // A tool made from `forecast`: `place` for `city`, always 7 days.
 * weather.transformTool('forecast', 'weekly', {
 *   description: "The week's forecast for a city.",
 *   arguments: { city: { name: 'place' }, days: { hide: true, default: 7 } },
 * });
 * const main = new McpServer({ name: 'main', version: '1' }, {
 *   middleware: [new Authorization([['tool', 'admin_*', ['admin']]])],
 * });
 * main.mount('weather', weather);          // weather_forecast, weather_weekly: live
 * // main.importServer('notes', notes);    // copied once
 * ```
 * @module
 */
import { asMcpError, callSync, ErrorCode, thrownMessage } from './errors';
import { isThenable } from './dispatch';
import native, { type NativeServer } from './native';
import { type SchemaInput, toJsonSchema } from './schema';

/** What an authorization rule is about. */
export type ItemKind = 'tool' | 'resource' | 'prompt';

/** One scope rule: items of `kind` whose name (a resource's URI, a template's URI template)
 * matches `pattern` (`*` stands for any run of characters) need every one of `scopes`. */
export interface AuthorizationRule {
  kind: ItemKind;
  pattern: string;
  scopes: string[];
}

/** The engine's authorization layer by name, as `server.use` takes it. */
export interface AuthorizationLayer {
  name: 'authorization';
  rules: AuthorizationRule[];
  /** Hide the items no rule matches (default: they are shown). */
  denyUnmatched: boolean;
}

/**
 * Which tools, resources and prompts a caller may list and use, from the scopes of its token
 * (`ctx.auth`: a protected HTTP server's bearer token or client certificate). An item every
 * matching rule of which the caller's scopes meet is shown; others are hidden: absent from
 * `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list` (pages stay
 * full) and refused as unknown ones (-32602 `Unknown tool: name` / `Unknown prompt: name`,
 * -32002 `Resource not found`). A middleware layer run by the engine: pass it to `server.use`
 * or the `middleware` option. It is its own config object (`{ name: 'authorization', rules,
 * denyUnmatched }`), which works as well.
 */
export class Authorization implements AuthorizationLayer {
  readonly name = 'authorization' as const;
  readonly rules: AuthorizationRule[] = [];
  readonly denyUnmatched: boolean;

  /** `rules` as `[kind, pattern, scopes]` tuples or rule objects. */
  constructor(
    rules: Iterable<readonly [ItemKind, string, readonly string[]] | AuthorizationRule> = [],
    options: { denyUnmatched?: boolean } = {},
  ) {
    this.denyUnmatched = options.denyUnmatched === true;
    for (const r of rules) {
      if (Array.isArray(r)) this.requireScopes(r[0], r[1], r[2]);
      else {
        const o = r as AuthorizationRule;
        this.requireScopes(o.kind, o.pattern, o.scopes);
      }
    }
  }

  /** Items of `kind` named (or with a URI) matching `pattern` need all of `scopes`. */
  requireScopes(kind: ItemKind, pattern: string, scopes: readonly string[]): this {
    if (kind !== 'tool' && kind !== 'resource' && kind !== 'prompt') {
      throw new TypeError(`Authorization: kind must be 'tool', 'resource' or 'prompt', not ${JSON.stringify(kind)}`);
    }
    if (typeof pattern !== 'string') throw new TypeError('Authorization: pattern must be a string');
    if (typeof scopes === 'string' || !Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) {
      throw new TypeError('Authorization: scopes must be an array of scope names');
    }
    this.rules.push({ kind, pattern, scopes: [...scopes] });
    return this;
  }
}

/** What {@link McpServer.transformTool} changes of one argument of the original tool. */
export interface ArgTransform {
  /** Its name in the new tool (clients send this; the original gets its own name). */
  name?: string;
  /** Its description in the new tool. */
  description?: string;
  /** The value when left out (the argument becomes optional); with `hide`, always. */
  default?: unknown;
  /** Gone from the new tool's schema, always `default` (which is then required). */
  hide?: boolean;
  /** JSON Schema keywords merged into its schema (`{ maximum: 20 }`, `{ enum: [...] }`),
   * enforced before the original runs. */
  constraints?: Record<string, unknown>;
}

/**
 * A tool transform in its JSON form, as a configuration file holds it (what
 * {@link McpServer.addTransformedTool} takes): the new tool's `name`, `title` and `description`,
 * and the changes per argument of the original, by its name there. An output reshape is a
 * function, which has no JSON form ({@link McpServer.transformTool} takes one).
 */
export interface ToolTransformConfig {
  name: string;
  title?: string;
  description?: string;
  arguments?: Record<string, ArgTransform>;
}

/** The options of {@link McpServer.transformTool}. */
export interface TransformToolOptions {
  title?: string;
  description?: string;
  /** Changes per argument of the original, by its name there. */
  arguments?: Record<string, ArgTransform>;
  /**
   * Reshapes the original's structured output (its `structuredContent`, else its first text
   * block read as JSON, else that text) into the new tool's, which becomes the result's
   * `structuredContent` and text. A plain function, called synchronously: keep it short. What
   * it throws answers the call with an internal error (-32603) naming the tool. Error results
   * of the original pass through unchanged.
   */
  transformOutput?: (structured: any) => unknown;
  /** The new tool's `outputSchema` (what `transformOutput` returns; checked by the engine,
   * a mismatch is -32603). Needs `transformOutput`. */
  outputSchema?: SchemaInput;
}

/**
 * What the functions below use of an {@link McpServer}: its native server. A structural type, so
 * this module (which `server.ts` and `middleware.ts` import) never imports `server.ts`.
 */
interface EngineServer {
  readonly _native: NativeServer;
}

/** See {@link McpServer.mount}. @internal */
export function mountServer(server: EngineServer, prefix: string, other: EngineServer): void {
  callSync(() => native.mountServer(server._native, prefix, other._native));
}

/** See {@link McpServer.importServer}. @internal */
export function importServer(server: EngineServer, prefix: string, other: EngineServer): void {
  callSync(() => native.importServer(server._native, prefix, other._native));
}

function argConfig(arg: string, t: ArgTransform): Record<string, unknown> {
  if (typeof t !== 'object' || t === null) throw new TypeError(`transformTool: arguments.${arg} must be an object`);
  const c: Record<string, unknown> = {};
  for (const k of ['name', 'description', 'hide', 'constraints'] as const) {
    if (t[k] !== undefined) c[k] = t[k];
  }
  if (t.default !== undefined) c.default = t.default;
  return c;
}

/** A failed `transformOutput` as the engine reads it (the envelope of a handler call). */
type ReshapeError = { code: number; message: string; data?: unknown; exception?: true };

function reshapeException(message: string): ReshapeError {
  return { code: ErrorCode.InternalError, message, exception: true };
}

/** See {@link McpServer.addTransformedTool}. @internal */
export function addTransformedTool(server: EngineServer, original: string, transform: ToolTransformConfig): void {
  if (typeof transform !== 'object' || transform === null || Array.isArray(transform)) {
    throw new TypeError('addTransformedTool: transform must be an object (its JSON form)');
  }
  // Handed over as it is: the engine reads it and refuses members it does not know.
  callSync(() => native.addTransformedTool(server._native, original, transform, null, null));
}

/** See {@link McpServer.transformTool}. @internal */
export function transformTool(server: EngineServer, original: string, name: string, options: TransformToolOptions = {}): void {
  const config: Record<string, unknown> = { name };
  if (options.title !== undefined) config.title = options.title;
  if (options.description !== undefined) config.description = options.description;
  if (options.arguments !== undefined) {
    config.arguments = Object.fromEntries(Object.entries(options.arguments).map(([a, t]) => [a, argConfig(a, t)]));
  }
  const f = options.transformOutput;
  if (f !== undefined && typeof f !== 'function') throw new TypeError('transformTool: transformOutput must be a function');
  const outputSchema = toJsonSchema(options.outputSchema, `tool ${name}: outputSchema`, 'output') ?? null;
  // The engine waits for this envelope on one of its threads; nothing thrown may escape.
  const reshape = f
    ? (structured: unknown): { ok: true; value: unknown } | { ok: false; error: ReshapeError } => {
        try {
          const value = f(structured);
          if (isThenable(value)) {
            Promise.resolve(value).catch(() => undefined);
            return { ok: false, error: reshapeException('it returned a promise: transformOutput must return the value itself') };
          }
          return { ok: true, value: value === undefined ? null : value };
        } catch (e) {
          // An McpError keeps its code (the call fails with it as it is); anything else is an
          // exception the engine words as -32603 naming the tool (embed/src/compose.rs).
          const m = asMcpError(e);
          return { ok: false, error: m ? { code: m.code, message: m.message, data: m.data } : reshapeException(thrownMessage(e)) };
        }
      }
    : null;
  callSync(() => native.addTransformedTool(server._native, original, config, reshape, outputSchema));
}
