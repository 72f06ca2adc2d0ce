/**
 * `subscriptions/listen` (protocol revision 2026-07-28): {@link Client.listen} resolves with a
 * {@link Subscription}, an `AsyncIterable` of the change notifications the server agreed to send.
 *
 * ```ts
 * await using sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
 * for await (const n of sub) console.log(n.method, n.params);
 * ```
 * @module
 */
import { errorFromCode, type ErrorKind, type McpError } from './errors';
import type { NativeSubscription } from './native';
import type { Notification } from './types';

/** The `_meta` key under which every notification of a subscription carries its id. */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/**
 * What a subscription asks for, or ({@link Subscription.filter}) what the server agreed to send
 * (the wire's `SubscriptionFilter`): list changes of tools, prompts and resources, updates of
 * the resources named, and the status notifications of the tasks named.
 */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
  /**
   * `notifications/tasks` (the tasks extension `io.modelcontextprotocol/tasks`) for these task
   * ids, e.g. the `taskId` of {@link Client.callToolAsTask}: the task's state at once, then each
   * change up to its terminal state (what `tasks/get` answers). A server acknowledges only the
   * ids of tasks it runs (an unknown id is left out); a client without the extension
   * (`tasksExtension: false`) naming task ids is refused with -32021
   * (`MissingRequiredClientCapability`), as the extension requires.
   */
  taskIds?: string[];
}

/** How a subscription ended, as the native layer reports it. */
type End = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown; kind?: ErrorKind };
};

/**
 * An open `subscriptions/listen` subscription. Iterate it (`for await`) for its notifications
 * until it is over: the server ended it ({@link Subscription.result}), the connection closed or
 * it was closed ({@link Subscription.error}). {@link Subscription.close} (or leaving an
 * `await using` scope, or `break` out of a `for await`) ends it on the server and ends a pending
 * iteration. Its notifications go only here, not to the client's `'notification'` event.
 */
export class Subscription implements AsyncIterable<Notification>, AsyncDisposable {
  readonly #native: NativeSubscription;
  /** The subscription id (the `subscriptions/listen` request's JSON-RPC id). */
  readonly id: string | number;
  /** What the server agreed to send (kinds it does not support are left out). */
  readonly filter: ListenFilter;

  /** @internal Made by {@link Client.listen}. */
  constructor(native: NativeSubscription) {
    this.#native = native;
    this.id = native.id as string | number;
    this.filter = native.acknowledged as ListenFilter;
  }

  #end(): End | null {
    return this.#native.end as End | null;
  }

  /** Whether the subscription is over. */
  get ended(): boolean {
    return this.#end() !== null;
  }

  /** The server's final `subscriptions/listen` result, if it ended the subscription. */
  get result(): Record<string, unknown> | undefined {
    return this.#end()?.result;
  }

  /**
   * What ended the subscription otherwise: a `TransportError` (-32000) when the connection
   * closed, an {@link McpError} -32800 once this side closed it, or the server's error (an
   * {@link McpError} whatever its code: a server's own -32000 is not a closed connection; the
   * engine's kind of the error decides, as for calls).
   */
  get error(): McpError | undefined {
    const e = this.#end()?.error;
    return e ? errorFromCode(e.code, e.message, e.data ?? undefined, e.kind) : undefined;
  }

  /** The next notification, or `undefined` once the subscription is over. */
  async next(): Promise<Notification | undefined> {
    const n = await this.#native.next();
    return n ?? undefined;
  }

  /** The notifications until the subscription is over; `break` closes the subscription. */
  [Symbol.asyncIterator](): AsyncIterator<Notification> {
    return {
      next: async (): Promise<IteratorResult<Notification>> => {
        const n = await this.next();
        return n ? { value: n, done: false } : { value: undefined, done: true };
      },
      return: async (): Promise<IteratorResult<Notification>> => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /** Ends the subscription on the server (idempotent); a pending `next()` resolves as over. */
  close(): void {
    this.#native.close();
  }

  /** `await using sub = await client.listen(...)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }
}
