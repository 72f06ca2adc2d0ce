/**
 * `ferromcp/server/auth/provider.js` and `clients.js`: what an app implements for the
 * authorization server of `mcpAuthRouter` (the TypeScript SDK's `OAuthServerProvider`,
 * `OAuthRegisteredClientsStore`) and for `requireBearerAuth` (`OAuthTokenVerifier`).
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { AuthInfo } from './types';

/** A registered client (RFC 7591 metadata plus the identifiers issued to it). */
export interface OAuthClientInformationFull {
  client_id: string;
  client_secret?: string;
  client_id_issued_at?: number;
  /** 0: never. */
  client_secret_expires_at?: number;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  contacts?: string[];
  tos_uri?: string;
  policy_uri?: string;
  jwks_uri?: string;
  jwks?: unknown;
  software_id?: string;
  software_version?: string;
  software_statement?: string;
  [key: string]: unknown;
}

/** The tokens a token request answers with (RFC 6749 section 5.1). */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
  [key: string]: unknown;
}

/** A token revocation request (RFC 7009). */
export interface OAuthTokenRevocationRequest {
  token: string;
  token_type_hint?: string;
}

/** Where registered clients are kept. */
export interface OAuthRegisteredClientsStore {
  /** The client registered as `clientId`, or undefined. */
  getClient(clientId: string): OAuthClientInformationFull | undefined | Promise<OAuthClientInformationFull | undefined>;
  /** Keeps a new client (its `client_id` and secret already issued); without it, registration is not offered. */
  registerClient?(client: OAuthClientInformationFull): OAuthClientInformationFull | Promise<OAuthClientInformationFull>;
}

/** An authorization request, checked by the router (client, redirect URI, PKCE challenge). */
export interface AuthorizationParams {
  state?: string;
  scopes?: string[];
  codeChallenge: string;
  redirectUri: string;
  resource?: URL;
}

/** The authorization server's logic behind `mcpAuthRouter`. */
export interface OAuthServerProvider {
  /** The registered clients. */
  get clientsStore(): OAuthRegisteredClientsStore;
  /** Authenticates the user and redirects to `params.redirectUri` with a code (or an error). */
  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: ServerResponse): Promise<void>;
  /** The PKCE `code_challenge` the code was issued with (the router checks the verifier). */
  challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string>;
  /** Exchanges a code for tokens (`codeVerifier` given only with `skipLocalPkceValidation`). */
  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens>;
  /** Exchanges a refresh token for new tokens. */
  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens>;
  /** Verifies an access token. */
  verifyAccessToken(token: string): Promise<AuthInfo>;
  /** Revokes a token; without it, revocation is not offered. */
  revokeToken?(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void>;
  /** The provider checks PKCE itself (e.g. a proxy to an upstream server): the verifier is passed on. */
  skipLocalPkceValidation?: boolean;
}

/** Verifies access tokens (what `requireBearerAuth` needs). */
export interface OAuthTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo>;
  /** Scopes every token must hold where this verifier guards a route (ferromcp: an
   * `OAuthProxy`'s `requiredScopes`); `requireBearerAuth` uses them when given none itself. */
  readonly requiredScopes?: readonly string[];
}
