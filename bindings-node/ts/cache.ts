/**
 * The engine's response cache as a middleware layer (Rust's
 * `ferromcp::server::middleware::ResponseCache`): `tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list` and `resources/read` answered from memory for
 * `ttlMs` (and `tools/call` of the tools named in `tools`, by arguments). Entries are keyed by
 * method, params (without `_meta`), protocol revision and `scope`: `'principal'` (default: the
 * token's subject, client id and scopes; the session without a token), `'session'` or
 * `'shared'`, so one principal's or session's answer never reaches another. The server's own
 * `list_changed` and `resources/updated` notifications forget the entries they concern
 * (docs/middleware.md, "Response caching"); `invalidateCache` (`cache_invalidation.ts`) forgets
 * them explicitly (Rust's `invalidate_all`, `invalidate` and `invalidate_resource`). This module
 * describes the layer only, so `middleware.ts` can name it without reaching `server.ts`.
 * @module
 */

/** {@link responseCache}'s options. */
export interface ResponseCacheOptions {
  /** How long an answer is served from the cache, in milliseconds (at least 1). */
  ttlMs: number;
  /** The list and read methods cached (default: all five). */
  methods?: string[];
  /** The tools whose `tools/call` results are cached, by arguments. */
  tools?: string[];
  /** Who shares an entry (default `'principal'`). */
  scope?: 'principal' | 'session' | 'shared';
  /** At most this many entries (default 10,000). */
  maxEntries?: number;
}

/** The built-in `responseCache` layer, for `server.use(...)` or the `middleware` option. */
export function responseCache(options: ResponseCacheOptions): { name: 'responseCache' } & ResponseCacheOptions {
  if (!options || typeof options.ttlMs !== 'number' || !(options.ttlMs >= 1)) {
    throw new TypeError('responseCache: ttlMs must be a number of milliseconds, at least 1');
  }
  return { name: 'responseCache', ...options };
}
