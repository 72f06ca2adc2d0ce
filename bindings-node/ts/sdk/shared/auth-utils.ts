/**
 * `ferromcp/shared/auth-utils.js`: the TypeScript SDK's helpers for RFC 8707 resource
 * indicators, as its authorization-server examples use them.
 * @module
 */

/** The resource identifier of an MCP server URL: the URL without its fragment. */
export function resourceUrlFromServerUrl(url: URL | string): URL {
  const u = new URL(typeof url === 'string' ? url : url.href);
  u.hash = '';
  return u;
}

/**
 * Whether a token's resource (`requestedResource`) covers the configured one: same origin,
 * and the configured path is the requested path or below it (at a `/` boundary).
 */
export function checkResourceAllowed({ requestedResource, configuredResource }: { requestedResource: URL | string; configuredResource: URL | string }): boolean {
  const requested = resourceUrlFromServerUrl(requestedResource);
  const configured = resourceUrlFromServerUrl(configuredResource);
  if (requested.origin !== configured.origin) return false;
  const dir = (p: string) => (p.endsWith('/') ? p : `${p}/`);
  return dir(configured.pathname).startsWith(dir(requested.pathname));
}
