/**
 * `ferromcp/server/auth/oauthProxy.js`: an OAuth 2.1 authorization server fronting an upstream
 * identity provider that has no dynamic client registration (GitHub, Google, Entra ID, Auth0,
 * any OpenID provider): MCP clients register with the proxy and run the authorization code
 * flow with PKCE against it; the upstream only sees the proxy's one pre-registered client.
 *
 * Every rule of the endpoints (metadata, `/register`, `/authorize` with the consent page,
 * `/oauth/callback`, `/token`, `/revoke`, the OAuth error codes) is the engine's
 * (`ferromcp::auth::OAuthProxy`, docs/oauth-proxy.md), the same in Python, Swift and Rust;
 * this module only adapts Express or `node:http` requests to it.
 *
 * ```ts
 * const proxy = await OAuthProxy.create({
 *   issuerUrl: 'https://mcp.example.com',
 *   resourceServerUrl: 'https://mcp.example.com/mcp',
 *   upstream: { preset: 'github', clientId: process.env.GH_ID!, clientSecret: process.env.GH_SECRET! },
 * });
 * app.use(proxy.router());                                   // the OAuth endpoints
 * app.post('/mcp', requireBearerAuth({ verifier: proxy }), mcpHandler);
 * // Register proxy.callbackUrl as the redirect URI of the upstream app.
 * ```
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import native from '../../../native';
import type * as Native from '../../../../native/index';
import { InvalidTokenError } from './errors';
import type { OAuthMetadata } from './router';
import type { AuthInfo } from './types';
import { oauthProxySettings, type OAuthProxyOptions } from '../../../oauth_proxy_options';

export type { ClientIdDocumentOptions, OAuthProxyOptions, OAuthProxyUpstream } from '../../../oauth_proxy_options';

type Next = (err?: unknown) => void;
type Req = IncomingMessage & { body?: unknown; originalUrl?: string };

/** Largest body read from a request stream (the engine refuses larger ones itself). */
const MAX_BODY = 64 * 1024 + 1;

/** The request body as bytes: a body parser's result re-encoded, or the stream read. */
async function bodyOf(req: Req): Promise<Buffer> {
  const b = req.body;
  if (Buffer.isBuffer(b)) return b;
  if (typeof b === 'string') return Buffer.from(b);
  if (b !== undefined && b !== null && typeof b === 'object' && req.readableEnded !== false) {
    const type = String(req.headers['content-type'] ?? '');
    if (type.includes('application/json')) return Buffer.from(JSON.stringify(b));
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) {
      for (const one of Array.isArray(v) ? v : [v]) form.append(k, String(one));
    }
    return Buffer.from(form.toString());
  }
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += c.length;
    if (size > MAX_BODY) break;
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** An OAuth proxy (see the module's notes). Also an `OAuthTokenVerifier` for `requireBearerAuth`. */
export class OAuthProxy {
  readonly #native: Native.NativeOAuthProxy;
  /**
   * The scopes the options require of every token at the MCP endpoint (`requiredScopes`):
   * what `requireBearerAuth({ verifier: proxy })` requires when it is given none of its own.
   */
  readonly requiredScopes: readonly string[];

  private constructor(n: Native.NativeOAuthProxy, requiredScopes: readonly string[]) {
    this.#native = n;
    this.requiredScopes = Object.freeze([...requiredScopes]);
  }

  /**
   * Makes a proxy (an `oidc` preset reads the provider's discovery document first), to mount in
   * a host framework. `listen({ oauthProxy })` serves the same options from the engine's listener.
   */
  static async create(options: OAuthProxyOptions): Promise<OAuthProxy> {
    return new OAuthProxy(await native.createOauthProxy(oauthProxySettings(options)), options.requiredScopes ?? []);
  }

  /** The redirect URI to register at the upstream identity provider. */
  get callbackUrl(): string {
    return this.#native.callbackUrl;
  }

  /** The authorization server metadata (RFC 8414) the proxy serves. */
  metadata(): OAuthMetadata {
    return this.#native.metadata() as OAuthMetadata;
  }

  /** Verifies a token the proxy issued (what `requireBearerAuth({ verifier })` calls). */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const v = (await this.#native.verify(token)) as
      | { clientId: string; subject?: string; scopes: string[]; audience: string[]; expiresAt?: number; claims?: Record<string, unknown> }
      | null;
    if (!v) throw new InvalidTokenError('Invalid or expired token');
    const resource = v.audience[0];
    return {
      token,
      clientId: v.clientId,
      scopes: v.scopes,
      ...(v.expiresAt !== undefined && v.expiresAt !== null ? { expiresAt: v.expiresAt } : {}),
      ...(resource ? { resource: new URL(resource) } : {}),
      extra: { ...(v.claims ?? {}), ...(v.subject ? { subject: v.subject } : {}) },
    };
  }

  /**
   * Answers `req` when its path is one of the proxy's endpoints and resolves true; resolves
   * false (nothing written) for any other path.
   */
  async handleRequest(req: Req, res: ServerResponse): Promise<boolean> {
    const url = req.originalUrl ?? req.url ?? '/';
    const path = url.split('?')[0]!;
    if (!this.#native.serves(path)) return false;
    const answer = await this.#native.handle(req.method ?? 'GET', url, req.rawHeaders, await bodyOf(req));
    if (!answer) return false;
    for (const [k, v] of answer.headers) res.appendHeader(k!, v!);
    res.statusCode = answer.status;
    res.end(answer.body);
    return true;
  }

  /** Express (or `(req, res, next)`) middleware serving the proxy's endpoints; other paths go to `next`. */
  router(): (req: Req, res: ServerResponse, next: Next) => void {
    return (req, res, next) => {
      this.handleRequest(req, res).then(
        (done) => {
          if (!done) next();
        },
        (e: unknown) => next(e),
      );
    };
  }
}
