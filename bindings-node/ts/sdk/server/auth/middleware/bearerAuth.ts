/**
 * `ferromcp/server/auth/middleware/bearerAuth.js`: the TypeScript SDK's `requireBearerAuth`,
 * Express (or `node:http`-style) middleware that lets a request through only with a valid
 * `Authorization: Bearer` token, verified by the app's verifier, and sets `req.auth`.
 *
 * Refusals follow RFC 6750: 401 `invalid_token` (no or malformed header, a token the verifier
 * refuses, expired, or issued for another resource), 403 `insufficient_scope`, each with a
 * `WWW-Authenticate: Bearer` challenge naming the error and, when given, the protected-resource
 * metadata URL (RFC 9728 `resource_metadata`) through which an MCP client finds the
 * authorization server. A verifier that fails with something other than an OAuth error is
 * answered 500 `server_error` (as the SDK does).
 *
 * For a server served by ferromcp's own listener, `ProtectedResource` (`ferromcp`) does this
 * in the engine; this middleware is for apps that route requests themselves.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkResourceAllowed } from '../../../shared/auth-utils';
import { InsufficientScopeError, InvalidTokenError, OAuthError, ServerError } from '../errors';
import type { OAuthTokenVerifier } from '../provider';
import type { AuthInfo } from '../types';

/** Options of {@link requireBearerAuth}. */
export interface BearerAuthMiddlewareOptions {
  /** Verifies a token into its {@link AuthInfo} (throws `InvalidTokenError` for a bad one). */
  verifier: OAuthTokenVerifier;
  /** Scopes every request needs (403 `insufficient_scope` without one of them); default: the
   * verifier's own `requiredScopes` (an `OAuthProxy` created with them), else none. */
  requiredScopes?: string[];
  /** The protected-resource metadata URL, named in the challenge (`resource_metadata`). */
  resourceMetadataUrl?: string;
  /** The MCP endpoint's URL: a token whose `resource` does not cover it is refused (RFC 8707 audience). */
  expectedResource?: URL;
}

type Next = (err?: unknown) => void;

/** Middleware `(req, res, next)` requiring a valid bearer token (see the module's notes). */
export function requireBearerAuth(options: BearerAuthMiddlewareOptions): (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, next: Next) => Promise<void> {
  const { verifier, resourceMetadataUrl, expectedResource } = options;
  if (typeof verifier?.verifyAccessToken !== 'function') throw new TypeError('requireBearerAuth: verifier.verifyAccessToken must be a function');
  const requiredScopes = options.requiredScopes ?? verifier.requiredScopes ?? [];
  const refuse = (res: ServerResponse, e: OAuthError) => {
    const status = e instanceof InvalidTokenError ? 401 : e instanceof InsufficientScopeError ? 403 : e instanceof ServerError ? 500 : 400;
    const quote = (s: string) => s.replace(/["\\]/g, '\\$&');
    const parts = [`error="${e.errorCode}"`, `error_description="${quote(e.message)}"`];
    if (requiredScopes.length > 0) parts.push(`scope="${quote(requiredScopes.join(' '))}"`);
    if (resourceMetadataUrl) parts.push(`resource_metadata="${quote(resourceMetadataUrl)}"`);
    res.writeHead(status, { 'Content-Type': 'application/json', 'WWW-Authenticate': `Bearer ${parts.join(', ')}` });
    res.end(JSON.stringify(e.toResponseObject()));
  };
  return async (req, res, next) => {
    let auth: AuthInfo;
    try {
      const header = req.headers.authorization;
      if (!header) throw new InvalidTokenError('Missing Authorization header');
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) throw new InvalidTokenError("Invalid Authorization header format, expected 'Bearer TOKEN'");
      auth = await verifier.verifyAccessToken(m[1]!);
      if (typeof auth !== 'object' || auth === null) throw new InvalidTokenError('The token was not verified');
      if (auth.expiresAt !== undefined && (typeof auth.expiresAt !== 'number' || Number.isNaN(auth.expiresAt))) {
        throw new InvalidTokenError('Token has no valid expiration time');
      }
      if (auth.expiresAt !== undefined && auth.expiresAt < Date.now() / 1000) throw new InvalidTokenError('Token has expired');
      if (expectedResource) {
        if (!auth.resource) throw new InvalidTokenError(`Token names no resource; this server is ${expectedResource.href}`);
        if (!checkResourceAllowed({ requestedResource: auth.resource, configuredResource: expectedResource })) {
          throw new InvalidTokenError(`Token was issued for ${String(auth.resource)}, not for ${expectedResource.href}`);
        }
      }
      const scopes = Array.isArray(auth.scopes) ? auth.scopes : [];
      if (!requiredScopes.every((s) => scopes.includes(s))) throw new InsufficientScopeError('Insufficient scope');
    } catch (e) {
      if (e instanceof OAuthError) return refuse(res, e);
      console.error('ferromcp auth: the token verifier failed:', e);
      return refuse(res, new ServerError('Internal Server Error'));
    }
    req.auth = auth;
    next();
  };
}
