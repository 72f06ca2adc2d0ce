/**
 * `ferromcp/client/auth.js`: the TypeScript SDK's OAuth client side as ported code uses it: an
 * `OAuthClientProvider` given to `StreamableHTTPClientTransport({ authProvider })`,
 * `UnauthorizedError` when the user must authorize first, and `transport.finishAuth(code)`.
 *
 * The engine runs the flow (metadata discovery, dynamic registration, PKCE, the `resource`
 * parameter, token exchange and refresh); the provider says where the user goes
 * (`redirectToAuthorization`), the redirect URL and client metadata, and gets the tokens and
 * the registration (`saveTokens`, `saveClientInformation`). As with the SDK: `connect` rejects
 * with {@link UnauthorizedError} once the user was sent to authorize; the app takes the code
 * from its redirect URL and calls `transport.finishAuth(code)`, which resolves once the tokens
 * are saved; then a new transport with the same provider connects with them.
 * @module
 */
import { OAuth, type StoredAuth } from '../../auth';
import type { Client as EngineClient } from '../../client';

/** Thrown by `connect` when the user must authorize first (the SDK's). */
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? 'Unauthorized');
    this.name = 'UnauthorizedError';
  }
}

/** Tokens as the SDK's providers keep them (`OAuthTokens`). */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/** A registered client as the SDK's providers keep it (`OAuthClientInformation`). */
export interface OAuthClientInformation {
  client_id: string;
  client_secret?: string;
  [key: string]: unknown;
}

type MaybePromise<T> = T | Promise<T>;

/** The SDK's `OAuthClientProvider` (the members the engine's flow uses). */
export interface OAuthClientProvider {
  readonly redirectUrl: string | URL | undefined;
  readonly clientMetadata: { client_name?: string; scope?: string; [key: string]: unknown };
  readonly clientMetadataUrl?: string | undefined;
  clientInformation(): MaybePromise<OAuthClientInformation | undefined>;
  saveClientInformation?(info: OAuthClientInformation): MaybePromise<void>;
  tokens(): MaybePromise<OAuthTokens | undefined>;
  saveTokens(tokens: OAuthTokens): MaybePromise<void>;
  redirectToAuthorization(authorizationUrl: URL): MaybePromise<void>;
  [key: string]: unknown;
}

/** What the engine stored per provider (tokens and registration, by server), between transports. */
const stores = new WeakMap<OAuthClientProvider, Map<string, StoredAuth>>();

/** One connection's authorization through a provider (see the module's notes). @internal */
export class ProviderFlow {
  readonly #provider: OAuthClientProvider;
  #connecting: Promise<EngineClient> | undefined;
  #connected = false;
  #redirected: (() => void) | undefined;
  #waiting: { code: (code: string) => void; fail: (e: Error) => void } | undefined;

  constructor(provider: OAuthClientProvider) {
    this.#provider = provider;
  }

  /** The engine's OAuth settings for this provider. */
  async oauth(): Promise<OAuth> {
    const p = this.#provider;
    if (p.redirectUrl === undefined) {
      throw new TypeError('authProvider: a provider without redirectUrl (non-interactive grants) is not supported; ferromcp: OAuth({ clientCredentials: true, clientId, clientSecret })');
    }
    let store = stores.get(p);
    if (!store) stores.set(p, (store = new Map()));
    const meta = p.clientMetadata ?? {};
    // A client the app registered beforehand (none stored by an earlier flow of this provider).
    const info = store.size === 0 ? await p.clientInformation() : undefined;
    const saved = store;
    return new OAuth({
      redirectUri: String(p.redirectUrl),
      ...(typeof meta.client_name === 'string' ? { clientName: meta.client_name } : {}),
      ...(info?.client_id ? { clientId: info.client_id, ...(info.client_secret ? { clientSecret: info.client_secret } : {}) } : {}),
      ...(p.clientMetadataUrl ? { clientMetadataUrl: String(p.clientMetadataUrl) } : {}),
      ...(typeof meta.scope === 'string' && meta.scope ? { scopes: meta.scope.split(' ') } : {}),
      tokenStore: {
        load: (key) => saved.get(key) ?? null,
        save: (key, value) => {
          saved.set(key, value);
          this.#tell(value);
        },
        remove: (key) => {
          saved.delete(key);
        },
      },
      onRedirect: (url) => this.#redirect(url),
    });
  }

  /** The provider is told what the engine stored (its own copy, as the SDK's flow keeps it). */
  #tell(value: StoredAuth): void {
    const p = this.#provider;
    const t = value.tokens as { access_token?: string; refresh_token?: string; expires_at?: number; scope?: string } | undefined;
    if (t?.access_token) {
      const tokens: OAuthTokens = { access_token: t.access_token, token_type: 'Bearer' };
      if (t.refresh_token) tokens.refresh_token = t.refresh_token;
      if (t.expires_at) tokens.expires_in = Math.max(0, t.expires_at - Math.floor(Date.now() / 1000));
      if (t.scope) tokens.scope = t.scope;
      void Promise.resolve(p.saveTokens(tokens)).catch(() => undefined);
    }
    const c = value.client as OAuthClientInformation | undefined;
    if (c?.client_id && p.saveClientInformation) void Promise.resolve(p.saveClientInformation(c)).catch(() => undefined);
  }

  /** The engine's redirect step: the provider sends the user; the code comes from `finish`. */
  async #redirect(url: string): Promise<string> {
    const authorizationUrl = new URL(url);
    await this.#provider.redirectToAuthorization(authorizationUrl);
    // Once connected (tokens refused later and not refreshable), the request fails as the
    // SDK's does; the app authorizes again with a new transport.
    if (this.#connected) throw new UnauthorizedError('Authorization required again: the user was sent to authorize');
    const state = authorizationUrl.searchParams.get('state');
    const back = new URL(String(this.#provider.redirectUrl));
    const code = await new Promise<string>((resolve, reject) => {
      this.#waiting = { code: resolve, fail: reject };
      this.#redirected?.();
    });
    back.searchParams.set('code', code);
    if (state !== null) back.searchParams.set('state', state);
    return back.href;
  }

  /** `connecting`, or {@link UnauthorizedError} as soon as the user was sent to authorize. */
  race(connecting: Promise<EngineClient>): Promise<EngineClient> {
    this.#connecting = connecting;
    return new Promise((resolve, reject) => {
      this.#redirected = () => reject(new UnauthorizedError('Authorization required: the user was sent to authorize (then call transport.finishAuth(code))'));
      connecting.then((engine) => {
        this.#connected = true;
        resolve(engine);
      }, reject);
    });
  }

  /** Whether a code is awaited. */
  get waiting(): boolean {
    return this.#waiting !== undefined;
  }

  /** Hands the code to the engine and resolves once the tokens are saved. */
  async finish(code: string): Promise<void> {
    const w = this.#waiting;
    if (!w) throw new UnauthorizedError('finishAuth: no authorization is waiting for a code');
    this.#waiting = undefined;
    w.code(code);
    // The engine exchanges the code, saves the tokens and completes that connection, which
    // the app does not use (it connects again with a new transport): close it.
    const engine = await this.#connecting!;
    await engine.close();
  }
}
