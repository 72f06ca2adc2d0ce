/**
 * `ferromcp/client/sse.js`: the TypeScript SDK's `SSEClientTransport` (the deprecated
 * HTTP+SSE transport of protocol 2024-11-05) for `client.connect(transport)`, on the engine's
 * HTTP client: the engine tries Streamable HTTP first and falls back to HTTP+SSE when the
 * server refuses it with a 4xx, as the specification's backward compatibility asks, so the
 * transport also works against a server that speaks both.
 * @module
 */
import { Client as EngineClient, type ClientOptions } from '../../client';
import { CONNECT_CLIENT, type Client, type ClientTransportLike } from './index';
import type { StreamableHTTPClientTransportOptions } from './streamableHttp';

/** Options of {@link SSEClientTransport} (the SDK's names; `requestInit.headers` are sent). */
export type SSEClientTransportOptions = Pick<StreamableHTTPClientTransportOptions, 'requestInit'> & { [key: string]: unknown };

type HeadersInitLike = Record<string, string> | [string, string][] | Headers;

/** The SDK's HTTP+SSE client transport, on the engine's HTTP client. */
export class SSEClientTransport implements ClientTransportLike {
  readonly #url: URL;
  readonly #headers: Record<string, string> | undefined;
  #engine: EngineClient | undefined;
  /** Called when the connection closes. */
  onclose?: () => void;
  /** Errors of the transport (the engine reports them as rejected requests). */
  onerror?: (error: Error) => void;

  constructor(url: URL, options: SSEClientTransportOptions = {}) {
    if (options.authProvider !== undefined) {
      throw new TypeError('SSEClientTransport: authProvider is not supported; use Client.http(url, { auth: new OAuth({...}) }) from ferromcp');
    }
    this.#url = url;
    const h = options.requestInit?.headers as HeadersInitLike | undefined;
    if (h !== undefined) {
      const out: Record<string, string> = {};
      if (typeof Headers !== 'undefined' && h instanceof Headers) h.forEach((v, k) => (out[k] = v));
      else if (Array.isArray(h)) for (const [k, v] of h) out[k] = v;
      else Object.assign(out, h);
      this.#headers = out;
    }
  }

  /** @internal */
  async [CONNECT_CLIENT](options: ClientOptions): Promise<EngineClient> {
    return EngineClient.http(this.#url, { ...options, legacyFallback: true, ...(this.#headers ? { headers: this.#headers } : {}) });
  }

  /** @internal */
  _attached(_client: Client, engine: EngineClient): void {
    this.#engine = engine;
    engine.once('close', () => this.onclose?.());
  }

  /** No-op (`connect` starts the transport). */
  async start(): Promise<void> {}

  /** Closes the connection (the SSE stream). */
  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    if (engine) await engine.close();
  }
}
