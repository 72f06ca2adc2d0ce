/**
 * `ferromcp/server/auth/errors.js`: the OAuth 2.0 errors of the TypeScript SDK's
 * authorization-server and bearer-token code (`ferromcp/server/auth/router.js`,
 * `ferromcp/server/auth/middleware/bearerAuth.js`). Each carries the RFC 6749 / RFC 6750 /
 * RFC 7591 `error` code; a provider throws one to have the endpoint answer with it (as the
 * JSON body `{ error, error_description }`, or in the redirect of an authorization request).
 * @module
 */

/** An OAuth error: the `error` code, its description and an optional `error_uri`. */
export class OAuthError extends Error {
  /** The `error` code (`invalid_request`, `invalid_grant`, ...). */
  static errorCode = 'server_error';

  constructor(
    message: string,
    readonly errorUri?: string,
  ) {
    super(message);
    this.name = this.constructor.name;
  }

  /** The `error` code of this error's class. */
  get errorCode(): string {
    return (this.constructor as typeof OAuthError).errorCode;
  }

  /** The JSON body an endpoint answers with. */
  toResponseObject(): { error: string; error_description: string; error_uri?: string } {
    return { error: this.errorCode, error_description: this.message, ...(this.errorUri ? { error_uri: this.errorUri } : {}) };
  }
}

/** The request is missing a parameter, repeats one or is otherwise malformed. */
export class InvalidRequestError extends OAuthError {
  static override errorCode = 'invalid_request';
}
/** Client authentication failed (unknown client, wrong or expired secret). */
export class InvalidClientError extends OAuthError {
  static override errorCode = 'invalid_client';
}
/** The authorization code or refresh token is invalid, expired, revoked or not this client's. */
export class InvalidGrantError extends OAuthError {
  static override errorCode = 'invalid_grant';
}
/** The client may not use this grant type. */
export class UnauthorizedClientError extends OAuthError {
  static override errorCode = 'unauthorized_client';
}
/** The grant type is not supported by this server. */
export class UnsupportedGrantTypeError extends OAuthError {
  static override errorCode = 'unsupported_grant_type';
}
/** The requested scope is invalid, unknown or beyond what the client may ask. */
export class InvalidScopeError extends OAuthError {
  static override errorCode = 'invalid_scope';
}
/** The resource owner or the server denied the request. */
export class AccessDeniedError extends OAuthError {
  static override errorCode = 'access_denied';
}
/** The server failed while handling the request. */
export class ServerError extends OAuthError {
  static override errorCode = 'server_error';
}
/** The server is temporarily unable to handle the request. */
export class TemporarilyUnavailableError extends OAuthError {
  static override errorCode = 'temporarily_unavailable';
}
/** The response type is not supported by this server. */
export class UnsupportedResponseTypeError extends OAuthError {
  static override errorCode = 'unsupported_response_type';
}
/** The token type (revocation's `token_type_hint`) is not supported. */
export class UnsupportedTokenTypeError extends OAuthError {
  static override errorCode = 'unsupported_token_type';
}
/** The access token is missing, malformed, expired or revoked (RFC 6750: 401). */
export class InvalidTokenError extends OAuthError {
  static override errorCode = 'invalid_token';
}
/** The HTTP method is not allowed on this endpoint (405). */
export class MethodNotAllowedError extends OAuthError {
  static override errorCode = 'method_not_allowed';
}
/** Too many requests (429). */
export class TooManyRequestsError extends OAuthError {
  static override errorCode = 'too_many_requests';
}
/** The client metadata of a registration is invalid (RFC 7591). */
export class InvalidClientMetadataError extends OAuthError {
  static override errorCode = 'invalid_client_metadata';
}
/** The access token lacks a scope the request needs (RFC 6750: 403). */
export class InsufficientScopeError extends OAuthError {
  static override errorCode = 'insufficient_scope';
}
/** The requested resource (RFC 8707 `resource`) is invalid or not served here. */
export class InvalidTargetError extends OAuthError {
  static override errorCode = 'invalid_target';
}
/** A custom error code. */
export class CustomOAuthError extends OAuthError {
  constructor(
    private readonly customErrorCode: string,
    message: string,
    errorUri?: string,
  ) {
    super(message, errorUri);
  }

  override get errorCode(): string {
    return this.customErrorCode;
  }
}
