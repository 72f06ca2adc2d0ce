// `ferromcp/server/auth/errors.js` as an ES module: re-exports the CommonJS build.
import cjs from '../../../dist/sdk/server/auth/errors.js';

export const {
  AccessDeniedError,
  CustomOAuthError,
  InsufficientScopeError,
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
  MethodNotAllowedError,
  OAuthError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnauthorizedClientError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
  UnsupportedTokenTypeError,
} = cjs;
