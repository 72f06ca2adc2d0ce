/**
 * The JavaScript end of the native dispatcher: handler functions by id, one `AbortController`
 * per running call, and the envelope the native layer expects (`{ok, value}` or
 * `{ok: false, error}`). Shared by the server and the client (whose sampling, elicitation and
 * roots handlers are called the same way).
 * @internal
 * @module
 */
import { RequestContext } from './context';
import { toErrorObject } from './errors';
import native, { type NativeContext, type NativeDispatcher } from './native';

/** A registered handler: gets the JSON payload and the context, returns the JSON answer. */
export type RawHandler = (payload: unknown, ctx: RequestContext) => unknown;

type Envelope = { ok: true; value: unknown } | { ok: false; error: { code: number; message: string; data?: unknown } };

/** Handler table plus the native dispatcher calling into it. */
export class Dispatch {
  readonly #handlers = new Map<number, RawHandler>();
  readonly #running = new Map<number, AbortController>();
  #nextId = 1;
  /** The native object handed to the server or client. */
  readonly native: NativeDispatcher;

  constructor(onNotification?: (method: string, params: unknown) => void) {
    this.native = new native.NativeDispatcher(
      (id: number, payload: unknown, ctx: NativeContext) => this.#call(id, payload, ctx),
      (key: number) => this.#running.get(key)?.abort(new Error('request cancelled')),
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

  async #call(id: number, payload: unknown, nctx: NativeContext): Promise<Envelope> {
    const handler = this.#handlers.get(id);
    if (!handler) return { ok: false, error: { code: -32603, message: `no handler registered under id ${id}` } };
    const key = nctx.key;
    const controller = new AbortController();
    this.#running.set(key, controller);
    try {
      const value = await handler(payload, new RequestContext(nctx, controller.signal));
      return { ok: true, value: value === undefined ? null : value };
    } catch (e) {
      return { ok: false, error: toErrorObject(e) };
    } finally {
      this.#running.delete(key);
    }
  }
}
