/**
 * The JavaScript end of the native dispatcher: handler functions by id, the running calls'
 * contexts by key, and the envelopes the native layer expects (`{ok, value}` or
 * `{ok: false, error}`). A handler that answers at once is answered in the same crossing; a
 * promise is answered later through `complete`. Shared by the server and the client (whose
 * sampling, elicitation and roots handlers are called the same way).
 * @internal
 * @module
 */
import { currentContext, RequestContext } from './context';
import { toErrorObject } from './errors';
import native, { type NativeDispatcher } from './native';

/** A registered handler: gets the JSON payload and the context, returns the JSON answer (or a
 * promise of it). */
export type RawHandler = (payload: unknown, ctx: RequestContext) => unknown;

type Envelope =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: number; message: string; data?: unknown; exception?: true } };

/** Whether `v` is a promise (or any thenable). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Applies `f` to `v`, or to what `v` resolves to (keeping synchronous answers synchronous). */
export function then<T, R>(v: T | PromiseLike<T>, f: (x: T) => R): R | Promise<Awaited<R>> {
  return isThenable(v) ? Promise.resolve(v).then(f) as Promise<Awaited<R>> : f(v as T);
}

const fail = (e: unknown): Envelope => ({ ok: false, error: toErrorObject(e) });

/** Handler table plus the native dispatcher calling into it. */
export class Dispatch {
  readonly #handlers = new Map<number, RawHandler>();
  readonly #running = new Map<number, RequestContext>();
  #nextId = 1;
  /** The native object handed to the server or client. */
  readonly native: NativeDispatcher;

  constructor(onNotification?: (method: string, params: unknown) => void) {
    this.native = new native.NativeDispatcher(
      (id: number, payload: unknown, key: number) => this.#call(id, payload, key),
      (key: number) => this.#running.get(key)?._abort(),
      onNotification ?? null,
    );
  }

  /** Registers `handler` and returns its id (`fixed` reuses an id, e.g. 0 for clients). */
  add(handler: RawHandler, fixed?: number): number {
    const id = fixed ?? this.#nextId++;
    this.#handlers.set(id, handler);
    return id;
  }

  /** Forgets a handler. */
  delete(id: number): void {
    this.#handlers.delete(id);
  }

  /** Runs a call; never throws (a throw here would be an uncaught exception in Node). */
  #call(id: number, payload: unknown, key: number): Envelope | undefined {
    const handler = this.#handlers.get(id);
    if (!handler) return { ok: false, error: { code: -32603, message: `no handler registered under id ${id}` } };
    const ctx = new RequestContext(this.native, key);
    let out: unknown;
    try {
      out = currentContext.run(ctx, () => handler(payload, ctx));
    } catch (e) {
      return fail(e);
    }
    if (!isThenable(out)) return { ok: true, value: out === undefined ? null : out };
    this.#running.set(key, ctx);
    Promise.resolve(out).then(
      (value) => this.#finish(key, { ok: true, value: value === undefined ? null : value }),
      (e) => this.#finish(key, fail(e)),
    );
    return undefined;
  }

  #finish(key: number, envelope: Envelope): void {
    this.#running.delete(key);
    try {
      this.native.complete(key, envelope);
    } catch (e) {
      this.native.fail(key, e instanceof Error ? e.message : String(e));
    }
  }
}
