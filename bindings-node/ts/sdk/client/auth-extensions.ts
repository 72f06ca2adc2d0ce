/**
 * `ferromcp/client/auth-extensions.js`: the TypeScript SDK's providers for machine-to-machine
 * OAuth (no user, no redirect), for `StreamableHTTPClientTransport({ authProvider })`:
 * {@link ClientCredentialsProvider} runs the engine's client credentials grant with the
 * client's id and secret, only with the authorization server `expectedIssuer` names (another
 * is refused before the secret is sent). {@link PrivateKeyJwtProvider} (`private_key_jwt`
 * client authentication) is refused at connect with an error saying so: the engine does not
 * sign client assertions.
 * @module
 */
import { OAuth } from '../../auth';
import type { OAuthClientInformation, OAuthTokens } from './auth';

/** @internal How the transport recognises a machine-to-machine provider. */
export const MACHINE_GRANT: unique symbol = Symbol.for('ferromcp.machineGrant') as never;

/** Options of {@link ClientCredentialsProvider} (the SDK's names). */
export interface ClientCredentialsProviderOptions {
  clientId: string;
  clientSecret: string;
  /** The issuer URL of the authorization server the credentials were registered with. */
  expectedIssuer: string;
  /** `client_name` (not sent: the client is pre-registered). */
  clientName?: string;
  /** Scopes to request (space separated). */
  scope?: string;
}

function checkedIssuer(issuer: string): string {
  if (typeof issuer !== 'string' || issuer === '') {
    throw new TypeError('expectedIssuer is required: the issuer URL of the authorization server the credentials were registered with');
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new TypeError(`expectedIssuer must be a URL, not ${JSON.stringify(issuer)}`);
  }
  if (url.search || url.hash) throw new TypeError(`expectedIssuer must be an issuer URL without query or fragment, not ${JSON.stringify(issuer)}`);
  return issuer;
}

/** The client credentials grant with a client secret (see the module's notes). */
export class ClientCredentialsProvider {
  readonly #options: ClientCredentialsProviderOptions;
  #tokens: OAuthTokens | undefined;

  constructor(options: ClientCredentialsProviderOptions) {
    checkedIssuer(options.expectedIssuer);
    if (!options.clientId || !options.clientSecret) throw new TypeError('ClientCredentialsProvider needs clientId and clientSecret');
    this.#options = { ...options };
  }

  /** No redirect: the grant has no user. */
  get redirectUrl(): undefined {
    return undefined;
  }

  /** The client's metadata as the SDK gives it. */
  get clientMetadata(): Record<string, unknown> {
    return {
      client_name: this.#options.clientName ?? 'client-credentials-client',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(this.#options.scope ? { scope: this.#options.scope } : {}),
    };
  }

  /** The pre-registered client. */
  clientInformation(): OAuthClientInformation {
    return { client_id: this.#options.clientId, client_secret: this.#options.clientSecret, issuer: this.#options.expectedIssuer };
  }

  /** The last tokens the engine obtained. */
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  /** Keeps the tokens (the engine reports them). */
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  /** Not used by this grant. */
  redirectToAuthorization(): never {
    throw new Error('redirectToAuthorization is not used for client_credentials flow');
  }

  /** @internal The engine's OAuth settings for this provider. */
  [MACHINE_GRANT](): OAuth {
    const o = this.#options;
    return new OAuth({
      clientCredentials: true,
      clientId: o.clientId,
      clientSecret: o.clientSecret,
      expectedIssuer: o.expectedIssuer,
      ...(o.scope ? { scopes: o.scope.split(' ') } : {}),
      tokenStore: {
        load: () => null,
        save: (_key, value) => {
          const t = value.tokens as { access_token?: string; expires_at?: number; scope?: string } | undefined;
          if (!t?.access_token) return;
          const tokens: OAuthTokens = { access_token: t.access_token, token_type: 'Bearer' };
          if (t.scope) tokens.scope = t.scope;
          if (t.expires_at) tokens.expires_in = Math.max(0, t.expires_at - Math.floor(Date.now() / 1000));
          this.#tokens = tokens;
        },
        remove: () => {
          this.#tokens = undefined;
        },
      },
    });
  }
}

/** Options of {@link PrivateKeyJwtProvider} (the SDK's names). */
export interface PrivateKeyJwtProviderOptions {
  clientId: string;
  privateKey: string | Uint8Array | Record<string, unknown>;
  algorithm: string;
  expectedIssuer: string;
  clientName?: string;
  jwtLifetimeSeconds?: number;
  scope?: string;
}

/**
 * The client credentials grant with `private_key_jwt` client authentication: accepted here,
 * refused at connect with an error saying so (the engine does not sign client assertions).
 */
export class PrivateKeyJwtProvider {
  readonly #options: PrivateKeyJwtProviderOptions;

  constructor(options: PrivateKeyJwtProviderOptions) {
    checkedIssuer(options.expectedIssuer);
    this.#options = { ...options };
  }

  /** No redirect: the grant has no user. */
  get redirectUrl(): undefined {
    return undefined;
  }

  /** The client's metadata as the SDK gives it. */
  get clientMetadata(): Record<string, unknown> {
    return {
      client_name: this.#options.clientName ?? 'private-key-jwt-client',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      ...(this.#options.scope ? { scope: this.#options.scope } : {}),
    };
  }

  /** The pre-registered client. */
  clientInformation(): OAuthClientInformation {
    return { client_id: this.#options.clientId, issuer: this.#options.expectedIssuer };
  }

  /** No tokens: this provider cannot be used with ferromcp's engine. */
  tokens(): undefined {
    return undefined;
  }

  /** Not used. */
  saveTokens(): void {}

  /** Not used by this grant. */
  redirectToAuthorization(): never {
    throw new Error('redirectToAuthorization is not used for client_credentials flow');
  }

  /** @internal Refused: see the class notes. */
  [MACHINE_GRANT](): OAuth {
    throw new TypeError(
      `PrivateKeyJwtProvider (client ${this.#options.clientId}): private_key_jwt client authentication is not supported by ferromcp's engine; use ClientCredentialsProvider (client_secret_basic) or ferromcp's OAuth({ clientCredentials: true, clientId, clientSecret })`,
    );
  }
}
