// Keeps the log index (logIndex.ts) in step with the canonical chain, in the background (--history.logs,
// --history.logs.disable): each step, one batch of at most `batchBlocks` blocks, does the first thing needed of
//   1. disabled: delete the index;
//   2. the indexed head left the canonical chain (a reorg): unindex it, walking back by parent hash (the old
//      blocks stay stored as side blocks, so their receipts are still readable);
//   3. index new canonical blocks above the indexed head;
//   4. unindex blocks that fell below the retention window, or index older ones when the window grew.
// The index range is recorded with each batch, so a query (which reads the range from the same snapshot as the
// entries) always knows which blocks the index covers; the rest it scans.
import type { Logger } from '../../common/logger/index.js';
import { equalBytes } from '../../primitives/bytes.js';
import * as chain from '../db/chain.js';
import { TablePrefix, tablePrefix } from '../db/schema.js';
import { blockLogList } from './blockData.js';
import {
  deleteBlockLogIndex,
  deleteLogIndexRange,
  type LogIndexRange,
  readLogIndexRange,
  writeBlockLogIndex,
  writeLogIndexRange,
} from './logIndex.js';
import { type ChainDb, headNumber } from './txIndexer.js';

export interface LogIndexerOptions {
  /** Blocks kept indexed, counting the head; 0 = all. */
  history: number;
  disabled: boolean;
  batchBlocks: number;
}

const equal = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a !== undefined && b !== undefined && equalBytes(a, b);

export class LogIndexer {
  readonly #db: ChainDb;
  readonly #opts: LogIndexerOptions;
  readonly #logger: Logger | undefined;

  constructor(db: ChainDb, opts: LogIndexerOptions, logger?: Logger) {
    this.#db = db;
    this.#opts = opts;
    this.#logger = logger;
  }

  #target(head: number): number {
    return this.#opts.history === 0 ? 0 : Math.max(0, head - this.#opts.history + 1);
  }

  #logs(n: number, hash: Uint8Array) {
    return blockLogList(this.#db, n, hash) ?? [];
  }

  /** One bounded step; returns true while more work remains. */
  async step(): Promise<boolean> {
    const kv = this.#db.kv;
    const range = readLogIndexRange(kv);
    if (this.#opts.disabled) return this.#deleteAll(range);
    const head = headNumber(this.#db);
    if (head === undefined) return false;
    const max = Math.max(1, this.#opts.batchBlocks);
    const target = this.#target(head);

    if (range === undefined) {
      // Fresh index: start at the window's tail and grow towards the head.
      const last = Math.min(head, target + max - 1);
      return this.#extend(target, target - 1, last, head);
    }
    // 2. Reorg: unwind the indexed head until it is canonical again.
    if (!equal(chain.readCanonicalHash(this.#db, range.head.number), range.head.hash)) {
      const b = kv.batch();
      let { number, hash } = range.head;
      let done = 0;
      while (done < max && number >= range.tail && !equal(chain.readCanonicalHash(this.#db, number), hash)) {
        const header = chain.readHeaderRlp(this.#db, number, hash);
        deleteBlockLogIndex(b, number, this.#logs(number, hash));
        if (header === undefined || number === 0) break;
        hash = parentHashOf(header);
        number--;
        done++;
      }
      if (number < range.tail || chain.readHeaderRlp(this.#db, number, hash) === undefined) deleteLogIndexRange(b);
      else writeLogIndexRange(b, { tail: range.tail, head: { number, hash } });
      await b.commit();
      this.#logger?.debug('Unwound log index', { head: number });
      return true;
    }
    // 3. New blocks.
    if (range.head.number < head) {
      const last = Math.min(head, range.head.number + max);
      return this.#extend(range.tail, range.head.number, last, head);
    }
    // 4. The tail.
    if (range.tail < target) {
      const to = Math.min(target, range.tail + max);
      const b = kv.batch();
      for (let n = range.tail; n < to; n++) {
        const hash = chain.readCanonicalHash(this.#db, n);
        if (hash !== undefined) deleteBlockLogIndex(b, n, this.#logs(n, hash));
      }
      if (to > range.head.number) deleteLogIndexRange(b);
      else writeLogIndexRange(b, { tail: to, head: range.head });
      await b.commit();
      return to < target;
    }
    if (range.tail > target) {
      const from = Math.max(target, range.tail - max);
      const b = kv.batch();
      for (let n = range.tail - 1; n >= from; n--) {
        const hash = chain.readCanonicalHash(this.#db, n);
        if (hash !== undefined) writeBlockLogIndex(b, n, this.#logs(n, hash));
      }
      writeLogIndexRange(b, { tail: from, head: range.head });
      await b.commit();
      return from > target;
    }
    return false;
  }

  /** Indexes canonical blocks (after, last] and records [tail, last]. */
  async #extend(tail: number, after: number, last: number, head: number): Promise<boolean> {
    const b = this.#db.kv.batch();
    let top: { number: number; hash: Uint8Array } | undefined;
    for (let n = after + 1; n <= last; n++) {
      const hash = chain.readCanonicalHash(this.#db, n);
      if (hash === undefined) break;
      writeBlockLogIndex(b, n, this.#logs(n, hash));
      top = { number: n, hash };
    }
    if (top === undefined) return false;
    writeLogIndexRange(b, { tail, head: top });
    await b.commit();
    return top.number < head;
  }

  async #deleteAll(range: LogIndexRange | undefined): Promise<boolean> {
    const kv = this.#db.kv;
    const b = kv.batch();
    // The range goes first, so queries stop trusting the entries at once.
    if (range !== undefined) deleteLogIndexRange(b);
    for (const { key } of kv.iterate({ prefix: tablePrefix(TablePrefix.logIndex), limit: 10_000 })) b.delete(key);
    if (b.size === 0) return false;
    await b.commit();
    if (range !== undefined) this.#logger?.info('Deleted the log index (--history.logs.disable)');
    return true;
  }
}

/** The parent hash of a header RLP: the first field. */
function parentHashOf(headerRlp: Uint8Array): Uint8Array {
  // A header is a long list; its first item is a 32-byte string (0xa0 prefix).
  const lenOfLen = headerRlp[0]! - 0xf7;
  const at = 1 + lenOfLen;
  return headerRlp.slice(at + 1, at + 1 + 32);
}
