/**
 * Errors: {@link McpError} carries a JSON-RPC `code` and optional `data`; {@link TransportError}
 * (a subclass) marks failures of the connection itself (closed, spawn or I/O failure, HTTP
 * status), so callers can tell "the server said no" from "the server is gone".
 * @module
 */
import native from './native';

/**
 * The engine's error codes by name (`ParseError`, `InvalidRequest`, `MethodNotFound`,
 * `InvalidParams`, `InternalError`, `ConnectionClosed`, `RequestTimeout`, `ResourceNotFound`,
 * `RateLimited`, `TransportError`, `UnsupportedProtocolVersion`, `HeaderMismatch`, `MissingRequiredClientCapability`,
 * `InputRequired`, `UrlElicitationRequired`, `RequestCancelled`).
 * Read from the engine's own table, so every language uses the same numbers.
 */
export const ErrorCode: Readonly<Record<ErrorCodeName, number>> = Object.freeze(
  native.errorCodes() as Record<ErrorCodeName, number>,
);

/** The names of {@link ErrorCode}. */
export type ErrorCodeName =
  | 'ParseError'
  | 'InvalidRequest'
  | 'MethodNotFound'
  | 'InvalidParams'
  | 'InternalError'
  | 'ConnectionClosed'
  | 'RequestTimeout'
  | 'ResourceNotFound'
  | 'RateLimited'
  | 'TransportError'
  | 'UnsupportedProtocolVersion'
  | 'HeaderMismatch'
  | 'MissingRequiredClientCapability'
  | 'InputRequired'
  | 'UrlElicitationRequired'
  | 'RequestCancelled';

/**
 * An MCP / JSON-RPC error. Thrown from a resource, prompt or completion handler (or a client's
 * sampling/elicitation handler) it answers with exactly this JSON-RPC error. Tools are
 * different: what a tool throws is a tool execution error (`isError: true`), except code
 * `UrlElicitationRequired`.
 */
export class McpError extends Error {
  /** The JSON-RPC error code (see {@link ErrorCode}). */
  readonly code: number;
  /** Structured details, if any. */
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/**
 * `UrlElicitationRequired` (-32042) with the URL elicitations the user must complete (the
 * TypeScript SDK's class): thrown by a tool, the client gets this JSON-RPC error; a client's
 * call answered with it rejects with this class.
 */
export class UrlElicitationRequiredError extends McpError {
  constructor(elicitations: Record<string, unknown>[], message = `URL elicitation${elicitations.length > 1 ? 's' : ''} required`) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations });
    this.name = 'UrlElicitationRequiredError';
  }

  /** The elicitations (`{ mode: 'url', url, message, elicitationId }`). */
  get elicitations(): Record<string, unknown>[] {
    return ((this.data as { elicitations?: Record<string, unknown>[] } | undefined)?.elicitations) ?? [];
  }
}

/** The connection failed or closed (codes `ConnectionClosed` and `TransportError`). */
export class TransportError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.name = 'TransportError';
  }
}

/** One input request of {@link inputRequired} and `RequestContext.input`. */
export interface InputRequest {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  method: string;
  /** The request's params. */
  params?: Record<string, unknown>;
}

/**
 * The error that answers `input_required` (2026-07-28): throw it from a tool, prompt or
 * resource handler. `requests` maps keys of your choosing to input requests; `state` (any JSON)
 * comes back, sealed so the client cannot alter it, as `ctx.requestState` on the retry, where
 * `ctx.inputResponse(key)` gives the answers.
 */
export function inputRequired(requests: Record<string, InputRequest>, state?: unknown): McpError {
  const entries = Object.entries(requests ?? {});
  if (entries.length === 0) throw new TypeError('inputRequired needs at least one input request');
  for (const [key, r] of entries) {
    if (typeof r?.method !== 'string') throw new TypeError(`input request ${JSON.stringify(key)} needs a string method`);
  }
  return new McpError(ErrorCode.InputRequired, 'input required', { inputRequests: requests, state: state ?? null });
}

const MARKER = '\u0001ferromcp-error:';

/** The engine's `ErrorKind`: an error the peer answered with (`rpc`) or a local failure. */
export type ErrorKind = 'rpc' | 'transport' | 'closed' | 'timeout' | 'cancelled';

/**
 * Builds the right error class for a code. `kind`, when the error comes from the engine, says
 * whether the peer answered with it (`rpc`): such an error is never a {@link TransportError},
 * whatever its code (a server's own -32000 is not a closed connection). Without it the code
 * alone decides.
 */
export function errorFromCode(code: number, message: string, data?: unknown, kind?: ErrorKind): McpError {
  if (kind !== 'rpc' && (code === ErrorCode.ConnectionClosed || code === ErrorCode.TransportError)) {
    return new TransportError(code, message, data);
  }
  const elicitations = (data as { elicitations?: unknown } | undefined)?.elicitations;
  if (code === ErrorCode.UrlElicitationRequired && Array.isArray(elicitations)) {
    return new UrlElicitationRequiredError(elicitations as Record<string, unknown>[], message);
  }
  return new McpError(code, message, data);
}

/** The engine's {@link ErrorKind} of an error thrown by the native layer, if it is one.
 * `'cancelled'` says the engine cancelled the request, which a peer's or a handler's own
 * -32800 (`'rpc'`) does not. @internal */
export function nativeErrorKind(e: unknown): ErrorKind | undefined {
  if (!(e instanceof Error) || !e.message.startsWith(MARKER)) return undefined;
  try {
    return (JSON.parse(e.message.slice(MARKER.length)) as { kind?: ErrorKind }).kind;
  } catch {
    return undefined;
  }
}

/** Turns an error thrown by the native layer into an {@link McpError} (others pass through). */
export function fromNative(e: unknown): unknown {
  if (e instanceof Error && e.message.startsWith(MARKER)) {
    try {
      const body = JSON.parse(e.message.slice(MARKER.length)) as {
        code: number;
        message: string;
        data?: unknown;
        kind?: ErrorKind;
      };
      return errorFromCode(body.code, body.message, body.data ?? undefined, body.kind);
    } catch {
      return e;
    }
  }
  return e;
}

/** Awaits a native promise, converting its rejection with {@link fromNative}. */
export async function call<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw fromNative(e);
  }
}

/** Runs a native function, converting what it throws with {@link fromNative}. */
export function callSync<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw fromNative(e);
  }
}

/**
 * What was thrown, as an {@link McpError} when it is one: an `McpError`, or any object with an
 * integer `code` and a string `message` (the TypeScript SDK's own `McpError` from another copy
 * of the package, `throw { code: -32602, message: 'bad' }`): as the SDK's protocol layer does,
 * a thrown value with a numeric JSON-RPC code answers as that error. Undefined otherwise.
 */
export function asMcpError(e: unknown): McpError | undefined {
  if (e instanceof McpError) return e;
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, message, data } = e as { code?: unknown; message?: unknown; data?: unknown };
  // JSON-RPC codes are 32-bit integers; anything else (Node's 'ENOENT', ...) is no JSON-RPC code.
  if (typeof code !== 'number' || !Number.isInteger(code) || code !== (code | 0) || typeof message !== 'string') {
    return undefined;
  }
  return errorFromCode(code, message, data);
}

/**
 * The message of something thrown that is not an {@link McpError}: an `Error`'s message, a
 * plain object's `message` when it is a string, else its JSON (`{"foo":1}`, never
 * `[object Object]`), else `String(e)`.
 */
export function thrownMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null) {
    const m = (e as { message?: unknown }).message;
    if (typeof m === 'string') return m;
    try {
      const json = JSON.stringify(e);
      if (typeof json === 'string') return json;
    } catch {
      // a cycle or a BigInt: fall through
    }
  }
  return String(e);
}

/** The JSON-RPC error object for what a handler threw. */
export function toErrorObject(e: unknown): { code: number; message: string; data?: unknown; exception?: true } {
  const m = asMcpError(e);
  if (m) return { code: m.code, message: m.message, data: m.data };
  // `exception`: not an McpError. A tool's is a tool execution error, in a task of the tasks
  // extension too, where an McpError ends the task `failed` (McpError::handler_exception).
  if (e instanceof Error) return { code: ErrorCode.InternalError, message: `${e.name}: ${e.message}`, exception: true };
  return { code: ErrorCode.InternalError, message: thrownMessage(e), exception: true };
}
