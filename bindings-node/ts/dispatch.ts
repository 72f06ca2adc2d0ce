/**
 * The JavaScript end of the native dispatcher: handler functions by id, the running calls'
 * contexts by key, and the envelopes the native layer expects (`{ok, value}` or
 * `{ok: false, error}`). A handler that answers at once is answered in the same crossing; a
 * promise is answered later through `answerText` (the text of a tool result that is one text
 * block: {@link soleText}), `answerJson` (its value's JSON text, when that text reads
 * back as the native walk of the value would: {@link isPlainJson}), `answer` (the value, walked
 * natively) or `complete` (an error envelope). Shared by the server and the client (whose
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

/** The envelope of a handler that threw `e`: what `rescue` makes of it, else the error. */
function rescued(rescue: ((e: unknown) => unknown) | undefined, e: unknown): Envelope {
  if (!rescue) return fail(e);
  try {
    const value = rescue(e);
    return { ok: true, value: value === undefined ? null : value };
  } catch (e2) {
    return fail(e2);
  }
}

/** How deep and how large a value {@link isPlainJson} looks at before it leaves the value to
 * the native walk (which has its own limits and names what is wrong and where). */
const PLAIN_DEPTH = 64;
const PLAIN_NODES = 10_000;
let plainBudget = PLAIN_NODES;

/**
 * Whether `v` is JSON whose `JSON.stringify` text reads back as exactly the value the native
 * walk (`convert.rs`, `Answer`) reads from it: `null`, booleans, strings, integers from -2^31
 * to 2^32-1 (the walk reads other numbers as floats, and a float's shortest text may read
 * back one unit off), and arrays and plain objects (prototype `Array.prototype`,
 * `Object.prototype` or `null`) of those, `undefined` properties left out as both do. Anything
 * else (a class instance, a `Date` or anything with `toJSON`, a function, a `BigInt`, a hole
 * or `undefined` in an array, too deep or too large) answers false, and the walk reads it.
 */
export function isPlainJson(v: unknown): boolean {
  plainBudget = PLAIN_NODES;
  return plainAt(v, PLAIN_DEPTH);
}

/** {@link isPlainJson} of `v`, `depth` levels deep, within what is left of `plainBudget`. */
function plainAt(v: unknown, depth: number): boolean {
  if (--plainBudget < 0) return false;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isInteger(v) && (v as number) >= -2147483648 && (v as number) <= 4294967295;
    case 'object': {
      if (v === null) return true;
      if (depth === 0) return false;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return false;
        for (let i = 0; i < v.length; i++) if (!plainAt(v[i], depth - 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k in v) {
        // An enumerable inherited property: the walk reads it, JSON.stringify does not.
        if (!Object.hasOwn(v, k)) return false;
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined && !plainAt(x, depth - 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * The text of `v` when `v` is exactly `{ content: [{ type: 'text', text }] }` with a string
 * `text` (the official SDK examples' tool result): plain objects (prototype
 * `Object.prototype`) with those own enumerable properties and no others, the list a plain
 * array of that one block. The native side builds from it the value the JSON text of `v` reads
 * as (`answerText`), so such an answer costs no `JSON.stringify` and no parse; anything else
 * answers undefined and takes the general path ({@link isPlainJson}).
 */
export function soleText(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  let keys = 0;
  for (const k in v) if (k !== 'content' || ++keys > 1) return undefined;
  const content = (v as { content?: unknown }).content;
  if (!Array.isArray(content) || content.length !== 1 || Object.getPrototypeOf(content) !== Array.prototype) return undefined;
  const block: unknown = content[0];
  if (typeof block !== 'object' || block === null || Object.getPrototypeOf(block) !== Object.prototype) return undefined;
  keys = 0;
  for (const k in block) if ((k !== 'type' && k !== 'text') || ++keys > 2) return undefined;
  // Own properties only (`for...in` also lists inherited enumerable ones, which JSON skips).
  if (keys !== 2 || !Object.hasOwn(v, 'content') || !Object.hasOwn(block, 'type') || !Object.hasOwn(block, 'text')) {
    return undefined;
  }
  const { type, text } = block as { type: unknown; text: unknown };
  return type === 'text' && typeof text === 'string' ? text : undefined;
}

/** Handler table plus the native dispatcher calling into it. */
export class Dispatch {
  readonly #handlers = new Map<number, RawHandler>();
  readonly #rescues = new Map<number, (e: unknown) => unknown>();
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

  /**
   * Registers `handler` and returns its id (`fixed` reuses an id, e.g. 0 for clients).
   * `rescue`, when given, makes whatever the handler throws (or its promise rejects with) an
   * answer: its return value answers the call, what it throws fails it. Given here rather than
   * chained onto the handler's promise, it costs an `async` handler no second promise.
   */
  add(handler: RawHandler, fixed?: number, rescue?: (e: unknown) => unknown): number {
    const id = fixed ?? this.#nextId++;
    this.#handlers.set(id, handler);
    if (rescue) this.#rescues.set(id, rescue);
    else this.#rescues.delete(id);
    return id;
  }

  /** Forgets a handler. */
  delete(id: number): void {
    this.#handlers.delete(id);
    this.#rescues.delete(id);
  }

  /** Runs a call; never throws (a throw here would be an uncaught exception in Node). */
  #call(id: number, payload: unknown, key: number): Envelope | undefined {
    const handler = this.#handlers.get(id);
    if (!handler) return { ok: false, error: { code: -32603, message: `no handler registered under id ${id}` } };
    const ctx = new RequestContext(this.native, key);
    const rescue = this.#rescues.get(id);
    let out: unknown;
    try {
      out = currentContext.run(ctx, handler, payload, ctx);
    } catch (e) {
      return rescued(rescue, e);
    }
    if (!isThenable(out)) return { ok: true, value: out === undefined ? null : out };
    this.#running.set(key, ctx);
    Promise.resolve(out).then(
      (value) => this.#answer(key, value),
      (e) => this.#finish(key, rescued(rescue, e)),
    );
    return undefined;
  }

  /**
   * Answers call `key` that returned a promise with the value it resolved to: a one-text-block
   * tool result as its text alone ({@link soleText}), else as its JSON text
   * when {@link isPlainJson} says that text is exactly what the native side's walk of the value
   * would read (one string crosses instead of a walk through every property, each a call into
   * V8), else (or when the native side cannot read the text) as the value itself.
   */
  #answer(key: number, value: unknown): void {
    this.#running.delete(key);
    try {
      const v = value === undefined ? null : value;
      const text = soleText(v);
      if (text !== undefined) this.native.answerText(key, text);
      else if (!(isPlainJson(v) && this.native.answerJson(key, JSON.stringify(v)))) {
        this.native.answer(key, v);
      }
    } catch (e) {
      this.native.fail(key, e instanceof Error ? e.message : String(e));
    }
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
