/**
 * {@link invalidateCache}: forgets entries of the response caches configured on a server (the
 * `responseCache` layer of `cache.ts`). Apart from `cache.ts` because it takes an
 * {@link McpServer}: this module sits above `server.ts`, `cache.ts` below `middleware.ts`.
 * @module
 */
import native from './native';
import type { McpServer } from './server';

/** What {@link invalidateCache} forgets: one method's entries, or one resource's cached reads. */
export interface InvalidateCacheOptions {
  /** `'tools/list'`, `'resources/read'`, `'tools/call'`, ... */
  method?: string;
  /** A resource URI: its cached `resources/read` answers. */
  uri?: string;
}

/**
 * Forgets entries of the response caches configured on `server` (`responseCache` in its
 * `middleware` or added with `use`): all of them without options, one method's with `method`,
 * one resource's reads with `uri`. The next such request runs its handler again. Throws a
 * `TypeError` when `server` has no response cache, or when both are given.
 */
export function invalidateCache(server: McpServer, options: InvalidateCacheOptions = {}): void {
  try {
    native.invalidateCache(server._native, options.method, options.uri);
  } catch (e) {
    throw new TypeError((e as Error).message);
  }
}
