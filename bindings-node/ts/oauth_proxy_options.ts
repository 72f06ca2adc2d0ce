/**
 * The OAuth proxy's options (the engine's `OAuthProxySettings`, docs/oauth-proxy.md), shared by
 * `listen({ oauthProxy })` and `OAuthProxy.create` so that both read them one way.
 * @module
 */

/** The upstream identity provider (the engine's `UpstreamSettings`). */
export interface OAuthProxyUpstream {
  /** `github`, `google`, `entra` (with `tenant`), `auth0` (with `domain`), `oidc` (with `issuer`: discovery); none: give the endpoints. */
  preset?: 'github' | 'google' | 'entra' | 'auth0' | 'oidc';
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  revocationEndpoint?: string;
  /** The proxy's client id at the upstream. */
  clientId: string;
  /** The proxy's client secret at the upstream. */
  clientSecret?: string;
  /** How the secret is sent (default `client_secret_post`). */
  authMethod?: 'client_secret_post' | 'client_secret_basic';
  /** Scopes always asked of the upstream (replace the preset's). */
  scopes?: string[];
  /** Extra parameters of the upstream authorization request. */
  authorizeParams?: Record<string, string>;
  tenant?: string;
  domain?: string;
  issuer?: string;
  /** Extra CA certificates (PEM) trusted for the upstream. */
  rootCertificates?: string[];
}

/**
 * How the proxy treats `https://` client ids, Client ID Metadata Documents (the engine's
 * `ClientIdDocuments`): on by default with the engine's limits; each key left out keeps its default.
 */
export interface ClientIdDocumentOptions {
  /** Accept `https://` client ids and advertise `client_id_metadata_document_supported` (default true). */
  enabled?: boolean;
  /** Largest document read, in bytes (default 5120). */
  maxBytes?: number;
  /** Time allowed for resolving, connecting and reading a document, in seconds (default 5). */
  timeoutSeconds?: number;
  /** How long a document is reused when its answer has no `Cache-Control: max-age`, in seconds (default 600). */
  defaultCacheSeconds?: number;
  /** The longest a document is reused, whatever its `max-age`, in seconds (default 86400). */
  maxCacheSeconds?: number;
  /** Fetch documents from loopback and private addresses too. Tests only: a client could otherwise make the proxy reach its private network. */
  allowPrivateAddresses?: boolean;
  /** Extra CA certificates (PEM) trusted for the documents' servers (tests). */
  rootCertificates?: string[];
}

/**
 * An OAuth proxy's options: `listen({ oauthProxy })` (the engine's listener serves the proxy
 * beside the MCP endpoint) and `OAuthProxy.create` (`ferromcp/server/auth/oauthProxy.js`, to
 * mount in Express or `node:http`) take the same.
 */
export interface OAuthProxyOptions {
  /** The proxy's issuer (https, or http on a loopback host); endpoints are served below it. */
  issuerUrl: URL | string;
  /** The MCP endpoint the issued tokens are for (RFC 8707 resource, the tokens' audience). */
  resourceServerUrl: URL | string;
  upstream: OAuthProxyUpstream;
  /** Scopes offered (empty: any). */
  scopesSupported?: string[];
  /**
   * Scopes every request to the MCP endpoint needs (`listen({ oauthProxy })`): a proxy token
   * without one of them is refused 403 `insufficient_scope`, the challenge listing them (checked
   * in the engine); each must be one of `scopesSupported` when that is set.
   */
  requiredScopes?: string[];
  /** Pass a client's scopes on to the upstream. */
  forwardScopes?: boolean;
  /** Show users a consent page per client (default true; see docs/oauth-proxy.md before turning it off). */
  requireConsent?: boolean;
  /** Offer dynamic client registration (default true). */
  allowRegistration?: boolean;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  codeTtlSeconds?: number;
  clientTtlSeconds?: number;
  /**
   * Keep registrations, codes and tokens on this Redis, so every replica given the same URL
   * serves any leg of the flow (with `listen`, the server's own `redisUrl` is used when this is absent).
   */
  redisUrl?: string;
  /** Client ID Metadata Documents: turn them off or change their limits (see {@link ClientIdDocumentOptions}). */
  clientIdDocuments?: ClientIdDocumentOptions;
}

/** The engine's `OAuthProxySettings` JSON for these options (`issuer`, `resource`, the rest as given). */
export function oauthProxySettings(options: OAuthProxyOptions): Record<string, unknown> {
  const { issuerUrl, resourceServerUrl, ...rest } = options;
  const issuer = String(issuerUrl).replace(/\/$/, '');
  return { issuer, resource: String(resourceServerUrl), ...rest };
}
