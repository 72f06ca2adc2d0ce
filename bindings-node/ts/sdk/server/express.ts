/**
 * `ferromcp/server/express.js`: the TypeScript SDK's `createMcpExpressApp`, an Express app
 * with `express.json()` and, for a loopback bind, a `Host` check against DNS rebinding (as
 * the SDK's). Express is the app's own dependency (an optional peer dependency of ferromcp):
 * it is loaded when the function is called.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Options of {@link createMcpExpressApp}. */
export interface CreateMcpExpressAppOptions {
  /** The interface the app will listen on (default `127.0.0.1`): a loopback one turns the `Host` check on. */
  host?: string;
  /** The `Host` names accepted (turns the check on for any bind). */
  allowedHosts?: string[];
}

type Next = (err?: unknown) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

function refuse(res: ServerResponse, message: string): void {
  res.writeHead(403, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Express middleware refusing requests whose `Host` names none of `allowedHostnames` (403). */
export function hostHeaderValidation(allowedHostnames: string[]): Middleware {
  return (req, res, next) => {
    const host = req.headers.host;
    if (!host) return refuse(res, 'Missing Host header');
    let hostname: string;
    try {
      hostname = new URL(`http://${host}`).hostname;
    } catch {
      return refuse(res, `Invalid Host header: ${host}`);
    }
    if (!allowedHostnames.includes(hostname)) return refuse(res, `Invalid Host: ${hostname}`);
    next();
  };
}

/** {@link hostHeaderValidation} for `localhost`, `127.0.0.1` and `[::1]`. */
export function localhostHostValidation(): Middleware {
  return hostHeaderValidation(['localhost', '127.0.0.1', '[::1]']);
}

/**
 * An Express app for an MCP endpoint (as the SDK's): `express.json()`, and a `Host` check for
 * `allowedHosts`, or for the loopback names when `host` is a loopback one.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function createMcpExpressApp(options: CreateMcpExpressAppOptions = {}): any {
  const { host = '127.0.0.1', allowedHosts } = options;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as { (): { use(m: unknown): void }; json(): unknown };
  const app = express();
  app.use(express.json());
  if (allowedHosts) app.use(hostHeaderValidation(allowedHosts));
  else if (['127.0.0.1', 'localhost', '::1'].includes(host)) app.use(localhostHostValidation());
  else if (host === '0.0.0.0' || host === '::') {
    console.warn(`Warning: the MCP server binds ${host} without a Host check; pass allowedHosts to protect it against DNS rebinding.`);
  }
  return app;
}
