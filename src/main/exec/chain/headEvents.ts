// "The canonical head moved" for everything that follows the chain in-process (the transaction pool, eth_subscribe
// newHeads/logs, polling filters). One emitter per database, so whichever code moves the head (block import, the
// Engine API's forkchoiceUpdated, the --dev sealer) reaches every listener by calling headEvents(db).emit(...).
import type { Header } from '../../primitives/block/header.js';

export interface NewHeadEvent {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly header: Header;
}

export type NewHeadListener = (head: NewHeadEvent) => void;

export class HeadEvents {
  readonly #listeners = new Set<NewHeadListener>();

  /** Adds a listener; returns its removal. Listeners run synchronously and must not throw. */
  on(listener: NewHeadListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(head: NewHeadEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(head);
      } catch {
        // A failing listener must not stop the chain or the other listeners.
      }
    }
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}

const emitters = new WeakMap<object, HeadEvents>();

/** The head emitter of a database (created on first use). */
export function headEvents(db: object): HeadEvents {
  let e = emitters.get(db);
  if (!e) {
    e = new HeadEvents();
    emitters.set(db, e);
  }
  return e;
}
