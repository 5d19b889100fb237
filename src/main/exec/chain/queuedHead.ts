// The head a forkchoiceUpdated answered with while its batch (flat state, reverse changes, code, canonical index,
// head) is still on its way to the database (ChainStore.commitBlock with `queueHead`), one record per database
// handle. op-geth answers once its in-memory head has moved; tern answers once the batch is queued, and until it
// lands everything that reads the chain on this thread learns the head from here: ChainStore's head and canonical
// index, the user RPC's views (./chainView.ts), whose reads of the head's rows wait for `landed()`. The executor's
// thread records the head with its commit; the coordinator of the worker twin records it from the setHead answer and
// learns the landing by reading the database (headLanded below).
import { TernError } from '../../common/errors.js';
import type { Header } from '../../primitives/block/header.js';
import { equalBytes } from '../../primitives/bytes.js';
import * as chain from '../db/chain.js';
import type { Database } from '../db/open.js';

export interface QueuedHeadRef {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly header: Header;
}

export class QueuedHead {
  #head: QueuedHeadRef | undefined;
  #landed: Promise<void> = Promise.resolve();

  /** The head whose batch is queued and has not landed yet; undefined when the database holds the head. */
  get head(): QueuedHeadRef | undefined {
    return this.#head;
  }

  /** Records `head`, queued; `landed` settles when its batch has committed (rejects when it failed). */
  queue(head: QueuedHeadRef, landed: Promise<void>): void {
    this.#head = head;
    const settled = landed.finally(() => {
      if (this.#head === head) this.#head = undefined;
    });
    this.#landed = settled;
    settled.catch(() => {}); // seen by whoever waits in landed()
  }

  /** Forgets the queued head: the database's head is the one to report (another thread moved it on). */
  clear(): void {
    this.#head = undefined;
  }

  /** Resolves once the queued head (if any) has landed; rejects with its batch's error. */
  landed(): Promise<void> {
    return this.#head === undefined ? Promise.resolve() : this.#landed;
  }
}

const records = new WeakMap<object, QueuedHead>();

/** The queued-head record of a database handle (created on first use). */
export function queuedHead(db: object): QueuedHead {
  let r = records.get(db);
  if (!r) {
    r = new QueuedHead();
    records.set(db, r);
  }
  return r;
}

/** How often another thread's head batch is looked for (followQueuedHead). */
const LANDING_POLL_MS = 1;

/**
 * Records `head`, whose batch another thread queued (the executor's), and learns its landing by reading the database:
 * the returned promise resolves once the database shows it as the head, or once a later head replaced the record;
 * it rejects with DB_TIMEOUT after `timeoutMs`, which only a stuck or failed batch reaches (the executor reports the
 * failure itself to its next caller).
 */
export function followQueuedHead(db: Database, head: QueuedHeadRef, timeoutMs = 10_000): Promise<void> {
  const record = queuedHead(db);
  const landed = (async () => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      await new Promise((r) => setTimeout(r, LANDING_POLL_MS));
      if (record.head !== head) return;
      db.kv.renewReads?.();
      const stored = chain.readHeadBlockHash(db);
      if (stored !== undefined && equalBytes(stored, head.hash)) return;
      if (performance.now() > deadline)
        throw new TernError('DB_TIMEOUT', `the head batch of block ${head.number} did not land within ${timeoutMs} ms`);
    }
  })();
  record.queue(head, landed);
  return landed;
}
