/**
 * `ferromcp/server/auth/router.js`: the TypeScript SDK's OAuth 2.1 authorization server for
 * Express (`mcpAuthRouter`), its metadata (`createOAuthMetadata`), and the routes a resource
 * server publishes (`mcpAuthMetadataRouter`, `getOAuthProtectedResourceMetadataUrl`).
 *
 * ferromcp's engine is a resource server (`ProtectedResource`) and an OAuth client; an app
 * that also wants to be the authorization server (as the SDK's examples do, with their demo
 * provider) gets these endpoints, written here in TypeScript over the app's
 * {@link OAuthServerProvider}:
 * - metadata (RFC 8414) at `/.well-known/oauth-authorization-server`, and protected-resource
 *   metadata (RFC 9728) for the resource server;
 * - `/authorize`: the client and its redirect URI are checked first (errors answered 400, as
 *   the redirect URI is not trusted yet), then `response_type=code`, the PKCE S256 challenge,
 *   the scopes the client registered and the `resource` (errors redirected back with `state`);
 *   the provider authenticates the user and redirects with a code;
 * - `/token`: client authentication (`client_secret_post`, `client_secret_basic` or `none`),
 *   the `authorization_code` grant with the PKCE verifier checked against the challenge the
 *   provider kept (unless the provider checks it itself), and `refresh_token`;
 * - `/register` (RFC 7591) when the clients store can register: a `client_id`, and a secret
 *   unless the client asks for `none`;
 * - `/revoke` (RFC 7009) when the provider can revoke.
 * Express is the app's own dependency (an optional peer dependency of ferromcp), loaded when a
 * router is made. No rate limiting is applied (the SDK's uses `express-rate-limit`): put the
 * app's own in front when the server is public.
 * @module
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  MethodNotAllowedError,
  OAuthError,
  ServerError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
} from './errors';
import type { OAuthClientInformationFull, OAuthServerProvider } from './provider';

export type { AuthorizationParams, OAuthServerProvider } from './provider';

/** Authorization-server metadata (RFC 8414). */
export interface OAuthMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  revocation_endpoint_auth_methods_supported?: string[];
  introspection_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
  service_documentation?: string;
  [key: string]: unknown;
}

/** Protected-resource metadata (RFC 9728). */
export interface OAuthProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  [key: string]: unknown;
}

/** Options of {@link mcpAuthRouter} and {@link createOAuthMetadata}. */
export interface AuthRouterOptions {
  /** The app's authorization-server logic. */
  provider: OAuthServerProvider;
  /** The issuer (https, or http on a loopback host; no query or fragment). */
  issuerUrl: URL;
  /** Where the endpoints are served (default: the issuer). */
  baseUrl?: URL;
  /** Documentation for developers (metadata's `service_documentation`). */
  serviceDocumentationUrl?: URL;
  /** The scopes offered (metadata's `scopes_supported`). */
  scopesSupported?: string[];
  /** The resource's name in the protected-resource metadata this router also serves. */
  resourceName?: string;
  /** The resource server this router's protected-resource metadata describes (default: the issuer). */
  resourceServerUrl?: URL;
  /** Registration: seconds a client secret lives (default 30 days; 0: forever); whether to issue client ids (default true). */
  clientRegistrationOptions?: { clientSecretExpirySeconds?: number; clientIdGeneration?: boolean };
}

/** Options of {@link mcpAuthMetadataRouter}. */
export interface AuthMetadataOptions {
  /** The authorization server's metadata (as {@link createOAuthMetadata} makes it). */
  oauthMetadata: OAuthMetadata;
  /** The MCP endpoint's URL: the protected resource. */
  resourceServerUrl: URL;
  serviceDocumentationUrl?: URL;
  scopesSupported?: string[];
  resourceName?: string;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
type Req = IncomingMessage & { body?: any; query?: any; method: string };
type Res = ServerResponse & { status(code: number): Res; json(v: unknown): void; redirect(url: string): void; setHeader(k: string, v: string): Res };
type Next = (err?: unknown) => void;
type Handler = (req: Req, res: Res, next: Next) => void | Promise<void>;
interface Router {
  use(...args: unknown[]): Router;
  get(path: string, ...h: unknown[]): Router;
  post(path: string, ...h: unknown[]): Router;
  all(path: string, ...h: unknown[]): Router;
  options(path: string, ...h: unknown[]): Router;
}
interface Express {
  Router(): Router;
  json(): Handler;
  urlencoded(o?: { extended: boolean }): Handler;
}

function loadExpress(): Express {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('express') as Express;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function checkIssuer(issuer: URL): void {
  if (issuer.protocol !== 'https:' && !LOOPBACK.has(issuer.hostname)) {
    throw new Error(`the issuer URL must be https (http only on a loopback host): ${issuer.href}`);
  }
  if (issuer.hash) throw new Error(`the issuer URL must not have a fragment: ${issuer.href}`);
  if (issuer.search) throw new Error(`the issuer URL must not have a query: ${issuer.href}`);
}

/** The authorization server's metadata for `options` (RFC 8414). */
export function createOAuthMetadata(options: AuthRouterOptions): OAuthMetadata {
  const { provider, issuerUrl, baseUrl, serviceDocumentationUrl, scopesSupported } = options;
  checkIssuer(issuerUrl);
  const at = (path: string) => new URL(path, baseUrl ?? issuerUrl).href;
  const metadata: OAuthMetadata = {
    issuer: issuerUrl.href,
    authorization_endpoint: at('/authorize'),
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint: at('/token'),
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
  };
  if (scopesSupported) metadata.scopes_supported = scopesSupported;
  if (serviceDocumentationUrl) metadata.service_documentation = serviceDocumentationUrl.href;
  if (provider.revokeToken) {
    metadata.revocation_endpoint = at('/revoke');
    metadata.revocation_endpoint_auth_methods_supported = ['client_secret_post', 'client_secret_basic'];
  }
  if (provider.clientsStore.registerClient) metadata.registration_endpoint = at('/register');
  return metadata;
}

/** The protected-resource metadata URL of an MCP endpoint (RFC 9728: the path after the well-known prefix). */
export function getOAuthProtectedResourceMetadataUrl(serverUrl: URL): string {
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname;
  return new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl).href;
}

/** Answers an OAuth error as JSON with its status. */
function sendError(res: Res, e: OAuthError): void {
  const status =
    e instanceof InvalidClientError ? 401 : e instanceof MethodNotAllowedError ? 405 : e instanceof ServerError ? 500 : 400;
  res.status(status).setHeader('Cache-Control', 'no-store');
  res.json(e.toResponseObject());
}

/** A thrown value as an OAuth error: OAuth errors as they are, anything else a server error (logged). */
function asOAuthError(e: unknown, where: string): OAuthError {
  if (e instanceof OAuthError) return e;
  console.error(`ferromcp auth: ${where} failed:`, e);
  return new ServerError('Internal Server Error');
}

/** CORS for endpoints a browser-based client calls (metadata, token, registration, revocation). */
const cors: Handler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, MCP-Protocol-Version');
    res.status(204).end();
    return;
  }
  next();
};

/** Only `methods` (405 otherwise, with `Allow`). */
function allow(...methods: string[]): Handler {
  return (req, res, next) => {
    if (methods.includes(req.method)) return next();
    res.setHeader('Allow', methods.join(', '));
    sendError(res, new MethodNotAllowedError(`The method ${req.method} is not allowed for this endpoint`));
  };
}

/** Wraps an async handler so a rejection is answered, never left unhandled. */
function handle(where: string, f: (req: Req, res: Res) => Promise<void>): Handler {
  return (req, res) => {
    f(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendError(res, asOAuthError(e, where));
    });
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The client a token or revocation request authenticates as: `client_secret_basic` (the
 * `Authorization: Basic` header) or the body's `client_id` (+ `client_secret`).
 */
async function authenticateClient(provider: OAuthServerProvider, req: Req): Promise<OAuthClientInformationFull> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  let id = str(body.client_id);
  let secret = str(body.client_secret);
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString();
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new InvalidClientError('Malformed Basic credentials');
    id = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  if (!id) throw new InvalidRequestError('client_id is required');
  const client = await provider.clientsStore.getClient(id);
  if (!client) throw new InvalidClientError('Invalid client_id');
  if (client.client_secret) {
    if (!secret) throw new InvalidClientError('Client secret is required');
    if (!equalSecret(secret, client.client_secret)) throw new InvalidClientError('Invalid client_secret');
    const expires = client.client_secret_expires_at;
    if (expires && expires < Math.floor(Date.now() / 1000)) throw new InvalidClientError('Client secret has expired');
  }
  return client;
}

/** A `resource` parameter (RFC 8707): an absolute URL without a fragment, or undefined. */
function resourceParam(v: unknown): URL | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new InvalidTargetError(`resource is not an absolute URL: ${s}`);
  }
  if (u.hash) throw new InvalidTargetError('resource must not have a fragment');
  return u;
}

/** The S256 challenge of a PKCE verifier (RFC 7636). */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** The authorization endpoint. */
function authorizeHandler(provider: OAuthServerProvider): Handler {
  return handle('authorize', async (req, res) => {
    const p = (req.method === 'POST' ? req.body : req.query) ?? {};
    // The client and its redirect URI first: until both are known, errors cannot be redirected.
    const clientId = str(p.client_id);
    if (!clientId) throw new InvalidRequestError('client_id is required');
    const client = await provider.clientsStore.getClient(clientId);
    if (!client) throw new InvalidClientError('Invalid client_id');
    let redirectUri = str(p.redirect_uri);
    if (redirectUri !== undefined) {
      if (!client.redirect_uris.includes(redirectUri)) throw new InvalidRequestError('Unregistered redirect_uri');
    } else if (client.redirect_uris.length === 1) {
      redirectUri = client.redirect_uris[0]!;
    } else {
      throw new InvalidRequestError('redirect_uri must be given when the client registered several');
    }
    const state = str(p.state);
    const back = (e: OAuthError) => {
      const u = new URL(redirectUri!);
      u.searchParams.set('error', e.errorCode);
      u.searchParams.set('error_description', e.message);
      if (e.errorUri) u.searchParams.set('error_uri', e.errorUri);
      if (state !== undefined) u.searchParams.set('state', state);
      res.redirect(u.href);
    };
    try {
      if (p.response_type !== 'code') throw new UnsupportedResponseTypeError('response_type must be code');
      const codeChallenge = str(p.code_challenge);
      if (!codeChallenge) throw new InvalidRequestError('code_challenge is required (PKCE)');
      if (p.code_challenge_method !== 'S256') throw new InvalidRequestError('code_challenge_method must be S256');
      const scopes = str(p.scope)?.split(' ').filter((s) => s !== '');
      if (scopes && client.scope !== undefined) {
        const allowed = new Set(client.scope.split(' '));
        const extra = scopes.filter((s) => !allowed.has(s));
        if (extra.length > 0) throw new InvalidScopeError(`Client was not registered with scope ${extra.join(' ')}`);
      }
      const resource = resourceParam(p.resource);
      await provider.authorize(client, { ...(state !== undefined ? { state } : {}), ...(scopes ? { scopes } : {}), redirectUri, codeChallenge, ...(resource ? { resource } : {}) }, res);
    } catch (e) {
      if (!res.headersSent) back(asOAuthError(e, 'authorize'));
    }
  });
}

/** The token endpoint. */
function tokenHandler(provider: OAuthServerProvider): Handler {
  return handle('token', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const client = await authenticateClient(provider, req);
    const grant = str(body.grant_type);
    if (!grant) throw new InvalidRequestError('grant_type is required');
    let tokens;
    if (grant === 'authorization_code') {
      const code = str(body.code);
      const verifier = str(body.code_verifier);
      if (!code) throw new InvalidRequestError('code is required');
      if (!verifier) throw new InvalidRequestError('code_verifier is required (PKCE)');
      if (!provider.skipLocalPkceValidation) {
        const challenge = await provider.challengeForAuthorizationCode(client, code);
        if (!equalSecret(s256(verifier), challenge)) throw new InvalidGrantError('code_verifier does not match the challenge');
      }
      tokens = await provider.exchangeAuthorizationCode(
        client,
        code,
        provider.skipLocalPkceValidation ? verifier : undefined,
        str(body.redirect_uri),
        resourceParam(body.resource),
      );
    } else if (grant === 'refresh_token') {
      const refresh = str(body.refresh_token);
      if (!refresh) throw new InvalidRequestError('refresh_token is required');
      const scopes = str(body.scope)?.split(' ').filter((s) => s !== '');
      tokens = await provider.exchangeRefreshToken(client, refresh, scopes, resourceParam(body.resource));
    } else {
      throw new UnsupportedGrantTypeError(`The grant type ${grant} is not supported by this authorization server`);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json(tokens);
  });
}

const AUTH_METHODS = new Set(['none', 'client_secret_post', 'client_secret_basic']);

/** The registration endpoint (RFC 7591). */
function registerHandler(provider: OAuthServerProvider, options: AuthRouterOptions['clientRegistrationOptions'] = {}): Handler {
  const register = provider.clientsStore.registerClient!.bind(provider.clientsStore);
  const expiry = options.clientSecretExpirySeconds ?? 30 * 24 * 3600;
  return handle('register', async (req, res) => {
    const m = req.body;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new InvalidClientMetadataError('the body must be a JSON object of client metadata');
    const uris = m.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u: unknown) => typeof u === 'string' && URL.canParse(u))) {
      throw new InvalidClientMetadataError('redirect_uris must be a non-empty array of URLs');
    }
    const method = m.token_endpoint_auth_method ?? 'client_secret_post';
    if (typeof method !== 'string' || !AUTH_METHODS.has(method)) {
      throw new InvalidClientMetadataError(`token_endpoint_auth_method must be one of ${[...AUTH_METHODS].join(', ')}`);
    }
    for (const k of ['client_name', 'client_uri', 'logo_uri', 'scope', 'tos_uri', 'policy_uri', 'jwks_uri', 'software_id', 'software_version']) {
      if (m[k] !== undefined && typeof m[k] !== 'string') throw new InvalidClientMetadataError(`${k} must be a string`);
    }
    for (const k of ['grant_types', 'response_types', 'contacts']) {
      if (m[k] !== undefined && !(Array.isArray(m[k]) && m[k].every((v: unknown) => typeof v === 'string'))) {
        throw new InvalidClientMetadataError(`${k} must be an array of strings`);
      }
    }
    const now = Math.floor(Date.now() / 1000);
    const client: OAuthClientInformationFull = { ...m, redirect_uris: uris, token_endpoint_auth_method: method };
    if (options.clientIdGeneration !== false) {
      client.client_id = randomUUID();
      client.client_id_issued_at = now;
    }
    if (method !== 'none') {
      client.client_secret = randomBytes(32).toString('hex');
      client.client_secret_expires_at = expiry > 0 ? now + expiry : 0;
    }
    const saved = await register(client);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(saved);
  });
}

/** The revocation endpoint (RFC 7009). */
function revokeHandler(provider: OAuthServerProvider): Handler {
  return handle('revoke', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const client = await authenticateClient(provider, req);
    const token = str(body.token);
    if (!token) throw new InvalidRequestError('token is required');
    const hint = str(body.token_type_hint);
    await provider.revokeToken!(client, { token, ...(hint ? { token_type_hint: hint } : {}) });
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({});
  });
}

/** A JSON document at `path` (GET, with CORS). */
function metadataRoute(router: Router, path: string, doc: unknown): void {
  router.all(path, cors, allow('GET', 'OPTIONS'), (_req: Req, res: Res) => {
    res.status(200).json(doc);
  });
}

/** The path of the RFC 9728 metadata of `resource`. */
function protectedResourcePath(resource: URL): string {
  return new URL(getOAuthProtectedResourceMetadataUrl(resource)).pathname;
}

/**
 * An Express router serving an authorization server over the app's `provider` (see the
 * module's notes): metadata, `/authorize`, `/token`, and `/register`, `/revoke` when the
 * provider offers them. Mount it at the root of the issuer's origin.
 */
export function mcpAuthRouter(options: AuthRouterOptions): Router {
  const metadata = createOAuthMetadata(options);
  const express = loadExpress();
  const router = express.Router();
  const { provider } = options;
  const path = (url: string) => new URL(url).pathname;
  router.all(path(metadata.authorization_endpoint), allow('GET', 'POST'), express.urlencoded({ extended: false }), authorizeHandler(provider));
  router.all(path(metadata.token_endpoint), cors, allow('POST'), express.urlencoded({ extended: false }), express.json(), tokenHandler(provider));
  if (metadata.registration_endpoint) {
    router.all(path(metadata.registration_endpoint), cors, allow('POST'), express.json(), registerHandler(provider, options.clientRegistrationOptions));
  }
  if (metadata.revocation_endpoint) {
    router.all(path(metadata.revocation_endpoint), cors, allow('POST'), express.urlencoded({ extended: false }), express.json(), revokeHandler(provider));
  }
  metadataRoute(router, '/.well-known/oauth-authorization-server', metadata);
  const resource = options.resourceServerUrl ?? options.issuerUrl;
  metadataRoute(router, protectedResourcePath(resource), protectedResourceMetadata(resource, metadata, options));
  return router;
}

function protectedResourceMetadata(
  resource: URL,
  oauthMetadata: OAuthMetadata,
  o: { serviceDocumentationUrl?: URL | undefined; scopesSupported?: string[] | undefined; resourceName?: string | undefined },
): OAuthProtectedResourceMetadata {
  return {
    resource: resource.href,
    authorization_servers: [oauthMetadata.issuer],
    ...(o.scopesSupported ? { scopes_supported: o.scopesSupported } : {}),
    ...(o.resourceName ? { resource_name: o.resourceName } : {}),
    ...(o.serviceDocumentationUrl ? { resource_documentation: o.serviceDocumentationUrl.href } : {}),
  };
}

/**
 * An Express router for a resource server whose authorization server is elsewhere: its
 * protected-resource metadata (RFC 9728, at the path `getOAuthProtectedResourceMetadataUrl`
 * names) and a copy of the authorization server's metadata at
 * `/.well-known/oauth-authorization-server` (for clients of older revisions).
 */
export function mcpAuthMetadataRouter(options: AuthMetadataOptions): Router {
  checkIssuer(new URL(options.oauthMetadata.issuer));
  const router = loadExpress().Router();
  metadataRoute(router, protectedResourcePath(options.resourceServerUrl), protectedResourceMetadata(options.resourceServerUrl, options.oauthMetadata, options));
  metadataRoute(router, '/.well-known/oauth-authorization-server', options.oauthMetadata);
  return router;
}
