/**
 * OAuth 2.1: {@link OAuth} authorizes a client with a protected server
 * (`Client.http(url, { auth: new OAuth({...}) })`), {@link ProtectedResource} protects a server
 * with bearer tokens (`listen({ auth })`, `createHttpHandler({ auth })`), and handlers read the
 * verified identity as `ctx.auth` ({@link AuthInfo}).
 *
 * The engine runs the flow (metadata discovery, client registration, PKCE, the `resource`
 * parameter, the `iss` check, refresh, step-up on 403 `insufficient_scope`) and the checks
 * (expiry, audience, scopes, `WWW-Authenticate`, the Protected Resource Metadata); these classes
 * only say how to reach the user, where tokens live and how a token is verified.
 * @module
 */
import { callSync } from './errors';
import native from './native';
import type { NativeOAuth, NativeProtection } from './native';

/** What a token store keeps per server (JSON: `tokens`, `client`, ...; treat it as opaque). */
export type StoredAuth = Record<string, unknown>;

/**
 * Keeps tokens and dynamic registrations between runs, keyed by the server's URL. The methods
 * are synchronous (the engine waits for them); `load` returns `null`/`undefined` for an
 * unknown key.
 */
export interface TokenStore {
  load(key: string): StoredAuth | null | undefined;
  save(key: string, value: StoredAuth): void;
  remove(key: string): void;
}

/** Options of {@link OAuth}. */
export interface OAuthOptions {
  /**
   * The redirect step: show `authorizationUrl` to the user and return (or resolve with) the
   * full URL the authorization server redirected back to (with `code` and `state`). Needs
   * {@link redirectUri}. Without it, a loopback listener on `127.0.0.1:loopbackPort` receives
   * the browser's redirect and {@link openBrowser} shows the URL.
   */
  onRedirect?: (authorizationUrl: string) => string | Promise<string>;
  /** The redirect URI registered for {@link onRedirect}. */
  redirectUri?: string;
  /** The loopback listener's port (default 0: any free port). */
  loopbackPort?: number;
  /** Shows the authorization URL in the loopback flow (default: printed to stderr). */
  openBrowser?: (url: string) => void;
  /** `client_name` for dynamic registration (default `ferromcp client`). */
  clientName?: string;
  /** A pre-registered client's id. */
  clientId?: string;
  /** A pre-registered client's secret (none for a public client). */
  clientSecret?: string;
  /** The HTTPS URL of this client's Client ID Metadata Document, used where the server accepts it. */
  clientMetadataUrl?: string;
  /** Use the client credentials grant with `clientId`/`clientSecret` (no user, no redirect). */
  clientCredentials?: boolean;
  /** Where tokens live: memory (default), a JSON file path (owner-only), or a {@link TokenStore}. */
  tokenStore?: string | TokenStore;
  /** Scopes requested when neither the server's challenge nor its metadata names any. */
  scopes?: string[];
  /** Authorizations per request before giving up (401 and 403 together; default 3). */
  maxAttempts?: number;
  /**
   * The authorization server (issuer URL) the client's credentials belong to: a server whose
   * resource names another is refused (`issuer_mismatch`) before anything is sent to it.
   */
  expectedIssuer?: string;
}

/** How a client authorizes with a protected MCP server (`Client.http(url, { auth })`). */
export class OAuth {
  readonly options: Readonly<OAuthOptions>;

  constructor(options: OAuthOptions = {}) {
    if (options.onRedirect && options.redirectUri === undefined) {
      throw new TypeError('onRedirect needs redirectUri (the URI registered for it)');
    }
    if (options.clientCredentials && (options.clientId === undefined || options.clientSecret === undefined)) {
      throw new TypeError('clientCredentials needs clientId and clientSecret');
    }
    if (options.maxAttempts !== undefined && !(options.maxAttempts >= 1)) {
      throw new RangeError('maxAttempts must be at least 1');
    }
    this.options = { ...options };
  }

  /** @internal The engine's OAuth client for one connection (a loopback listener binds now). */
  _native(): NativeOAuth {
    const o = this.options;
    const settings: Record<string, unknown> = {
      clientCredentials: o.clientCredentials === true,
      loopbackPort: o.loopbackPort ?? 0,
    };
    for (const k of ['redirectUri', 'clientName', 'clientId', 'clientSecret', 'clientMetadataUrl', 'scopes', 'maxAttempts', 'expectedIssuer'] as const) {
      if (o[k] !== undefined) settings[k] = o[k];
    }
    const store = o.tokenStore;
    if (typeof store === 'string') settings.tokenFile = store;
    const onRedirect = o.onRedirect;
    const redirect = onRedirect ? async (url: string): Promise<string> => String(await onRedirect(url)) : null;
    const storeFn =
      store !== undefined && typeof store !== 'string'
        ? (op: string, key: string, value: unknown): unknown => {
            if (op === 'load') return store.load(key) ?? null;
            if (op === 'save') store.save(key, value as StoredAuth);
            else store.remove(key);
            return null;
          }
        : null;
    return callSync(() => new native.NativeOAuth(settings, redirect, o.openBrowser ?? null, storeFn));
  }
}

/** The verified identity of a request's bearer token (`ctx.auth`). */
export interface AuthInfo {
  /** The subject (user) the token was issued for. */
  subject: string | null;
  /** The client the token was issued to. */
  clientId: string | null;
  /** The granted scopes. */
  scopes: string[];
  /** The audiences the token is valid for. */
  audience: string[];
  /** Expiry, Unix seconds. */
  expiresAt: number | null;
  /** Other claims the verifier passed on. */
  claims: unknown;
}

/** What `verify(token)` answers for a valid token (every field optional). */
export interface VerifiedToken {
  subject?: string;
  clientId?: string;
  /** A list, or a space-separated string. */
  scopes?: string[] | string;
  /** A list, or one string. */
  audience?: string[] | string;
  /** Unix seconds. */
  expiresAt?: number;
  claims?: unknown;
}

/**
 * The built-in JWT access-token verifier (`new ProtectedResource({ ..., jwt: {...} })`). Give
 * `jwksUrl` (the authorization server's JWKS: fetched on first use, cached, fetched again for an
 * unknown `kid` at most every 30 s) or `jwks` (the document itself, `{ keys: [...] }`). A token
 * passes when its `alg` is one of `algorithms` and fits the key (`none` and `HS*` are always
 * refused), its signature verifies, `iss` is `issuer`, `aud` holds `audience` and `exp`/`nbf`
 * hold, give or take `leewaySeconds`. `ctx.auth` then has `subject` (`sub`), `clientId`,
 * `scopes` (`scope` or `scp`) and every claim.
 */
export interface JwtVerifierOptions {
  /** The JWKS URL (`https://` or `http://`, like the rest of the HTTP client). */
  jwksUrl?: string;
  /** The JWKS document, instead of a URL. */
  jwks?: { keys: unknown[] };
  /** The accepted `iss` (default: any of `authorizationServers`). */
  issuer?: string;
  /** The required `aud` (default: `resource`). */
  audience?: string;
  /** Accepted algorithms (default: RS256/384/512, PS256/384/512, ES256, ES384, EdDSA). */
  algorithms?: string[];
  /** Clock skew allowed on `exp`/`nbf`, seconds (default 60). */
  leewaySeconds?: number;
}

/**
 * The built-in RFC 7662 token introspection verifier (`new ProtectedResource({ ...,
 * introspection: {...} })`): each token goes to the authorization server's `endpoint`,
 * authenticated with `clientId`/`clientSecret` (HTTP Basic) when given.
 */
export interface IntrospectionOptions {
  /** The introspection endpoint. */
  endpoint: string;
  /** This resource server's client id at the authorization server. */
  clientId?: string;
  /** Its client secret. */
  clientSecret?: string;
}

/** Options of {@link ProtectedResource}. Give exactly one of `verify`, `jwt` and `introspection`. */
export interface ProtectedResourceOptions {
  /** This server's URL (e.g. `https://mcp.example.com/mcp`): the audience tokens must carry. */
  resource: string;
  /**
   * Checks a token yourself (a lookup, a JWT library): the identity, or `null`/`undefined`
   * to refuse it (a thrown error's message becomes the `error_description`).
   */
  verify?: (token: string) => VerifiedToken | null | undefined | Promise<VerifiedToken | null | undefined>;
  /** Verify JWT access tokens with the authorization server's keys (built in). */
  jwt?: JwtVerifierOptions;
  /** Verify tokens by RFC 7662 introspection (built in). */
  introspection?: IntrospectionOptions;
  /** The accepted authorization servers (issuer URLs), published in the metadata. */
  authorizationServers: string[];
  /** Scopes every request needs (403 `insufficient_scope` without them). */
  requiredScopes?: string[];
  /** `scopes_supported` of the Protected Resource Metadata (default: `requiredScopes`). */
  scopesSupported?: string[];
  /**
   * Refuse tokens whose audience lacks `resource` (default true; off when `verify` checks it;
   * with `jwt` the verifier checks its `audience`).
   */
  checkAudience?: boolean;
}

/**
 * Bearer-token protection of an HTTP server. Requests without a valid token get 401 (or 403
 * for missing scopes) with a `WWW-Authenticate` naming the Protected Resource Metadata, which
 * is served at `/.well-known/oauth-protected-resource` + the resource's path. The engine refuses
 * expired tokens and tokens for another audience after the verifier accepted them.
 */
export class ProtectedResource {
  readonly options: Readonly<ProtectedResourceOptions>;
  #native: NativeProtection | undefined;

  constructor(options: ProtectedResourceOptions) {
    const { verify, jwt, introspection } = options;
    if (verify !== undefined && typeof verify !== 'function') throw new TypeError('verify must be a function');
    if ([verify, jwt, introspection].filter((x) => x !== undefined).length !== 1) {
      throw new TypeError('give exactly one of verify, jwt and introspection');
    }
    if (!options.authorizationServers?.length) {
      throw new TypeError('authorizationServers must name at least one issuer');
    }
    this.options = { ...options };
  }

  /** The path the Protected Resource Metadata is served at (mount a handler there too). */
  get metadataPath(): string {
    return this._native().metadataPath;
  }

  /** @internal */
  _native(): NativeProtection {
    if (!this.#native) {
      const { verify, resource, authorizationServers, requiredScopes, scopesSupported, checkAudience, jwt, introspection } =
        this.options;
      const settings: Record<string, unknown> = { resource, authorizationServers };
      if (requiredScopes !== undefined) settings.requiredScopes = requiredScopes;
      if (scopesSupported !== undefined) settings.scopesSupported = scopesSupported;
      if (checkAudience !== undefined) settings.checkAudience = checkAudience;
      if (jwt !== undefined) settings.jwt = jwt;
      if (introspection !== undefined) settings.introspection = introspection;
      const check =
        verify === undefined ? undefined : async (token: string): Promise<unknown> => (await verify(token)) ?? null;
      this.#native = callSync(() => new native.NativeProtection(settings, check));
    }
    return this.#native;
  }
}
