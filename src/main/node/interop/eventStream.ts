// The managed node's outgoing event queue (op-service's rpc.Stream): events go to the one active subscription
// as `{"data": event}` notifications, or, with no subscription, are buffered (oldest dropped beyond the limit) for
// the supervisor to pull one by one. Pulling closes an active subscription (`{"data": null, "close": true}`),
// since the two ways of reading are exclusive; an empty queue answers error -39001 "out of events".
import type { Logger } from '../../common/logger/index.js';
import type { Subscription } from '../../common/rpc/registry.js';
import { RpcError } from '../../protocol/jsonrpc/errors.js';

/** op-service's OutOfEventsErrCode: no buffered event to pull, the client should back off. */
export const OUT_OF_EVENTS_CODE = -39001;
/** op-node keeps at most 100 events for manual pulling. */
export const EVENT_QUEUE_LIMIT = 100;

export class EventStream<E> {
  readonly #log: Logger;
  readonly #limit: number;
  #queue: E[] = [];
  #sub: Subscription | undefined;

  constructor(log: Logger, limit = EVENT_QUEUE_LIMIT) {
    this.#log = log;
    this.#limit = limit;
  }

  /** Directs every later event to `sub`, dropping what was buffered (one subscription at a time). */
  subscribe(sub: Subscription): void {
    this.#closeSub();
    this.#sub = sub;
    this.#queue = [];
    sub.signal.addEventListener('abort', () => {
      if (this.#sub === sub) this.#sub = undefined;
    });
  }

  /** Sends to the subscription, or buffers. */
  send(ev: E): void {
    const sub = this.#sub;
    if (sub !== undefined) {
      if (sub.notify({ data: ev })) return;
      this.#sub = undefined;
    }
    this.#queue.push(ev);
    const overflow = this.#queue.length - this.#limit;
    if (overflow > 0) {
      this.#log.warn('Event queue filled up, dropping oldest events', { overflow });
      this.#queue.splice(0, overflow);
    }
  }

  /** Hands out the oldest buffered event (interop_pullEvent). */
  pull(): E {
    this.#closeSub();
    const ev = this.#queue.shift();
    if (ev === undefined) throw new RpcError(OUT_OF_EVENTS_CODE, 'out of events');
    return ev;
  }

  #closeSub(): void {
    if (this.#sub === undefined) return;
    this.#sub.notify({ data: null, close: true });
    this.#sub = undefined;
  }
}
