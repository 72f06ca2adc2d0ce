/**
 * `ferromcp/client/streamableHttp.js`: the TypeScript SDK's `StreamableHTTPClientTransport`
 * for `client.connect(transport)`; the engine's HTTP client does the transport (POST, SSE,
 * resumption, the session header, `DELETE` on close).
 * @module
 */
import { Client as EngineClient, type ClientOptions } from '../../client';
import { type OAuthClientProvider, ProviderFlow } from './auth';
import { MACHINE_GRANT } from './auth-extensions';
import { CONNECT_CLIENT, type Client, type ClientTransportLike } from './index';

/** Options of {@link StreamableHTTPClientTransport} (the SDK's names). */
export interface StreamableHTTPClientTransportOptions {
  /** `headers` are sent with every request (other `RequestInit` fields are not used). */
  requestInit?: { headers?: HeadersInitLike };
  /** OAuth through an SDK `OAuthClientProvider` (see `ferromcp/client/auth.js`). */
  authProvider?: OAuthClientProvider;
  /** Not supported: the engine starts a new session (resuming a session by id needs engine support). */
  sessionId?: string;
  /** Accepted; the engine's reconnection policy applies. */
  reconnectionOptions?: unknown;
  [key: string]: unknown;
}

type HeadersInitLike = Record<string, string> | [string, string][] | Headers;

function headerRecord(h: HeadersInitLike | undefined): Record<string, string> | undefined {
  if (h === undefined) return undefined;
  const out: Record<string, string> = {};
  if (typeof Headers !== 'undefined' && h instanceof Headers) h.forEach((v, k) => (out[k] = v));
  else if (Array.isArray(h)) for (const [k, v] of h) out[k] = v;
  else Object.assign(out, h);
  return out;
}

/** The SDK's Streamable HTTP client transport, on the engine's HTTP client. */
export class StreamableHTTPClientTransport implements ClientTransportLike {
  readonly #url: URL;
  readonly #options: StreamableHTTPClientTransportOptions;
  #engine: EngineClient | undefined;
  #flow: ProviderFlow | undefined;
  /** Called when the connection closes. */
  onclose?: () => void;
  /** Errors of the transport (the engine reports them as rejected requests). */
  onerror?: (error: Error) => void;

  constructor(url: URL, options: StreamableHTTPClientTransportOptions = {}) {
    if (options.sessionId !== undefined) {
      throw new TypeError('StreamableHTTPClientTransport: resuming a session by id (sessionId) is not supported');
    }
    this.#url = url;
    this.#options = options;
  }

  /** @internal */
  async [CONNECT_CLIENT](options: ClientOptions): Promise<EngineClient> {
    const headers = headerRecord(this.#options.requestInit?.headers);
    const provider = this.#options.authProvider as OAuthClientProvider | undefined;
    if (provider === undefined) return EngineClient.http(this.#url, { ...options, ...(headers ? { headers } : {}) });
    const machine = (provider as { [MACHINE_GRANT]?: () => import('../../auth').OAuth })[MACHINE_GRANT];
    if (typeof machine === 'function') {
      // ClientCredentialsProvider & co.: the engine's client credentials grant, no user.
      return EngineClient.http(this.#url, { ...options, ...(headers ? { headers } : {}), auth: machine.call(provider) });
    }
    const flow = new ProviderFlow(provider);
    this.#flow = flow;
    const auth = await flow.oauth();
    return flow.race(EngineClient.http(this.#url, { ...options, ...(headers ? { headers } : {}), auth }));
  }

  /**
   * After `connect` rejected with `UnauthorizedError`: the authorization code from the
   * redirect URL. Resolves once the tokens are saved (to the provider too); then connect a new
   * transport with the same provider.
   */
  async finishAuth(authorizationCode: string): Promise<void> {
    if (!this.#flow?.waiting) throw new Error('finishAuth: no authorization is waiting for a code (connect first)');
    await this.#flow.finish(authorizationCode);
  }

  /** @internal */
  _attached(_client: Client, engine: EngineClient): void {
    this.#engine = engine;
    engine.once('close', () => this.onclose?.());
  }

  /**
   * The session's id (`Mcp-Session-Id`) once connected; undefined before, on a stateless
   * server, and after {@link close}/{@link terminateSession}.
   */
  get sessionId(): string | undefined {
    return this.#engine?.sessionId;
  }

  /** No-op (`connect` starts the transport). */
  async start(): Promise<void> {}

  /** Ends the session (`DELETE`) and the connection. */
  async terminateSession(): Promise<void> {
    await this.close();
  }

  /** Closes the connection; the engine ends the session with `DELETE`. */
  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    if (engine) await engine.close();
  }
}
