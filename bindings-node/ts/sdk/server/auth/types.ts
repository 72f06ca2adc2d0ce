/**
 * `ferromcp/server/auth/types.js`: what a bearer token verifies to (the TypeScript SDK's
 * `AuthInfo`), as `requireBearerAuth` sets it on `req.auth`.
 * @module
 */

/** A verified access token's identity. */
export interface AuthInfo {
  /** The access token. */
  token: string;
  /** The client it was issued to. */
  clientId: string;
  /** Its scopes. */
  scopes: string[];
  /** When it expires, in seconds since the epoch. */
  expiresAt?: number;
  /** The resource (RFC 8707) it was issued for. */
  resource?: URL;
  /** Anything else the verifier knows. */
  extra?: Record<string, unknown>;
}
