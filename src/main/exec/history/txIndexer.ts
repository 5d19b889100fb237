// The transaction index maintainer (--history.transactions), after geth's core/txindexer.go: block import writes the
// lookups of every new canonical block (chain/chainStore.ts); this keeps the indexed range at the last `limit`
// blocks (0: the whole chain) by indexing older blocks downwards when the range grows (or on a database that has
// no tail yet) and deleting the lookups of blocks that fell out of it, moving the recorded tail in the same batch.
// Work is done in steps of at most `batchBlocks` blocks, so the coordinator thread stays responsive.

import type { KVStore } from '../../common/db/interface.js';
import type { Logger } from '../../common/logger/index.js';
import * as chain from '../db/chain.js';
import { TablePrefix, tablePrefix } from '../db/schema.js';
import { blockTxHashes } from './blockData.js';

export interface TxIndexerOptions {
  /** Blocks kept indexed, counting the head; 0 = all. */
  limit: number;
  /** Most blocks indexed or unindexed by one step. */
  batchBlocks: number;
}

/** geth's TxIndexProgress. */
export interface TxIndexProgress {
  indexed: number;
  remaining: number;
}

export interface ChainDb extends chain.ChainReader {
  readonly kv: KVStore;
}

/** The head block number of the database, or undefined before genesis. */
export function headNumber(db: chain.ChainReader): number | undefined {
  const hash = chain.readHeadBlockHash(db);
  return hash === undefined ? undefined : chain.readHeaderNumber(db, hash);
}

export class TxIndexer {
  readonly #db: ChainDb;
  readonly #opts: TxIndexerOptions;
  readonly #logger: Logger | undefined;

  constructor(db: ChainDb, opts: TxIndexerOptions, logger?: Logger) {
    this.#db = db;
    this.#opts = opts;
    this.#logger = logger;
  }

  /** The oldest block the index should cover with `head` as the head. */
  target(head: number): number {
    return chain.txIndexTail(head, this.#opts.limit);
  }

  /**
   * The recorded tail; none means 0: ChainStore writes the lookups of every canonical block as it commits it, so a
   * database nobody trimmed has the whole chain indexed.
   */
  #tail(): number {
    return chain.readTxIndexTail(this.#db) ?? 0;
  }

  /** geth's report(): how many of the blocks that should be indexed are. */
  progress(): TxIndexProgress {
    const head = headNumber(this.#db);
    if (head === undefined) return { indexed: 0, remaining: 0 };
    const total = this.#opts.limit === 0 || this.#opts.limit > head ? head + 1 : this.#opts.limit;
    const tail = this.#tail();
    const indexed = tail > head ? 0 : head - tail + 1;
    return { indexed, remaining: Math.max(0, total - indexed) };
  }

  /** geth's TxIndexDone: every block that should be indexed is. */
  done(): boolean {
    return this.progress().remaining === 0;
  }

  /** Drops an index whose tail is above the head (a rewind below it): geth's repair. */
  async repair(): Promise<void> {
    const head = headNumber(this.#db);
    const tail = chain.readTxIndexTail(this.#db);
    if (head === undefined || tail === undefined || tail <= head) return;
    this.#logger?.warn('Purge transaction indexes', { head, tail });
    for (;;) {
      const b = this.#db.kv.batch();
      for (const { key } of this.#db.kv.iterate({ prefix: tablePrefix(TablePrefix.txLookup), limit: 10_000 }))
        b.delete(key);
      if (b.size === 0) break;
      await b.commit();
    }
    const b = this.#db.kv.batch();
    b.delete(chain.txIndexTailKey());
    await b.commit();
  }

  /** One bounded step towards the target range; returns true while more work remains. */
  async step(): Promise<boolean> {
    const head = headNumber(this.#db);
    if (head === undefined) return false;
    const target = this.target(head);
    const tail = this.#tail();
    const max = Math.max(1, this.#opts.batchBlocks);
    if (tail > target) {
      // Index downwards from the tail, recent blocks first.
      const end = Math.min(tail, head + 1);
      const from = Math.max(target, end - max);
      const b = this.#db.kv.batch();
      for (let n = end - 1; n >= from; n--) {
        const hash = chain.readCanonicalHash(this.#db, n);
        const hashes = hash === undefined ? undefined : blockTxHashes(this.#db, n, hash);
        if (hashes !== undefined) chain.writeTxLookups(b, n, hashes);
      }
      chain.writeTxIndexTail(b, from);
      await b.commit();
      if (from === target) this.#logger?.debug('Indexed transactions', { tail: from, head });
      return from > target;
    }
    if (tail < target) {
      const to = Math.min(target, tail + max);
      const b = this.#db.kv.batch();
      for (let n = tail; n < to; n++) {
        const hash = chain.readCanonicalHash(this.#db, n);
        const hashes = hash === undefined ? undefined : blockTxHashes(this.#db, n, hash);
        if (hashes !== undefined) chain.deleteTxLookups(b, hashes);
      }
      chain.writeTxIndexTail(b, to);
      await b.commit();
      return to < target;
    }
    return false;
  }
}
