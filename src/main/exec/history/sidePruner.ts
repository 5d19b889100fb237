// Deleting the blocks stored beside the chain once they can no longer become canonical. Engine-driven nodes store
// every payload they are sent (insertBlock, newPayload on a non-canonical parent) with its forward state changes
// ('f'), and every block a reorg unwinds keeps its forward changes; without this they would stay for ever, and the
// state pruner would keep their states for ever too (it retains the root of every block with forward changes).
//
// A side block at height n can no longer become canonical when n is at or below
//   - the finalized block (geth drops side blocks below finalized: its freezer moves everything up to finalized to
//     the ancient store and deletes the side chains there), or
//   - the reorg window: setHead must unwind the canonical blocks above the fork point, which needs their reverse
//     changes ('d'); a fork point below the oldest reverse changes is REORG_TOO_DEEP, whatever is finalized.
// The cutoff is the higher of the two (never above the head). Each step, one write batch of at most `batchBlocks`
// rows, from the history service's background loop (off the import path), deletes every per-block row of such
// blocks (chain/chainStore.ts deleteSideBlock) and drops them from the block cache. Forward changes of canonical
// blocks at or below the cutoff go too: setHead only reads forward changes of blocks being made canonical, and
// unwinding a canonical block writes them afresh. The finder is the 'f' table (every executed side block has a row
// there, orphans left by the freezer included), plus one pass over the headers above the ancient store for side
// blocks stored without state. Side blocks above the cutoff whose branch forked below it are dead too; they go once
// the cutoff passes them.
import type { Logger } from '../../common/logger/index.js';
import { equalBytes } from '../../primitives/bytes.js';
import { deleteSideBlock } from '../chain/chainStore.js';
import * as chain from '../db/chain.js';
import {
  decodeNumber,
  encodeNumber,
  HASH_LENGTH,
  headerNumberPrefix,
  NUMBER_LENGTH,
  TablePrefix,
  tablePrefix,
} from '../db/schema.js';
import { readLogIndexRange } from './logIndex.js';
import { type ChainDb, headNumber } from './txIndexer.js';

export interface SidePrunerOptions {
  /** Most rows (blocks, or heights scanned) handled by one step. */
  batchBlocks: number;
}

const equal = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && equalBytes(a, b);

/** Key of `table` at block number `n` (the start of that height's rows). */
function numberKey(table: number, n: number): Uint8Array {
  const k = new Uint8Array(1 + NUMBER_LENGTH);
  k[0] = table;
  k.set(encodeNumber(n), 1);
  return k;
}

/**
 * The highest block number at or below which no stored side block can become canonical; undefined when there is
 * none (no head, or nothing below it qualifies).
 */
export function sideBlockCutoff(db: chain.ChainReader): number | undefined {
  const head = headNumber(db);
  if (head === undefined) return undefined;
  let cutoff = head;
  for (const { key } of db.kv.iterate({ prefix: tablePrefix(TablePrefix.reverseChanges), limit: 1 }))
    cutoff = decodeNumber(key, 1) - 1;
  const finalizedHash = chain.readFinalizedBlockHash(db);
  const finalized = finalizedHash === undefined ? undefined : chain.readHeaderNumber(db, finalizedHash);
  // Only a finalized marker on the canonical chain counts (a stale marker after a rewind says nothing).
  if (finalized !== undefined && equal(chain.readCanonicalHash(db, finalized), finalizedHash!))
    cutoff = Math.max(cutoff, finalized);
  cutoff = Math.min(cutoff, head);
  return cutoff >= 1 ? cutoff : undefined;
}

export class SideBlockPruner {
  readonly #db: ChainDb;
  readonly #opts: SidePrunerOptions;
  readonly #logger: Logger | undefined;
  /** Next height whose headers are scanned (the pass for side blocks without state). */
  #headerCursor: number | undefined;

  constructor(db: ChainDb, opts: SidePrunerOptions, logger?: Logger) {
    this.#db = db;
    this.#opts = opts;
    this.#logger = logger;
  }

  /** One bounded step (one write batch); returns true while more work remains. */
  async step(): Promise<boolean> {
    const db = this.#db;
    const kv = db.kv;
    // The log indexer unwinds a reorged-out indexed head by reading those blocks' receipts: leave them until it has.
    const range = readLogIndexRange(kv);
    if (range !== undefined && !equal(chain.readCanonicalHash(db, range.head.number), range.head.hash)) return false;
    const cutoff = sideBlockCutoff(db);
    if (cutoff === undefined) return false;
    const max = Math.max(1, this.#opts.batchBlocks);
    const b = kv.batch();
    const deleted = new Map<string, Uint8Array>();
    const drop = (n: number, hash: Uint8Array) => {
      const k = Buffer.from(hash).toString('hex');
      if (deleted.has(k)) return;
      deleteSideBlock(b, n, hash);
      deleted.set(k, hash);
    };
    const isCanonical = (n: number, hash: Uint8Array) => equal(chain.readCanonicalHash(db, n), hash);

    // Blocks with state changes at or below the cutoff.
    let rows = 0;
    for (const table of [TablePrefix.forwardChanges, TablePrefix.reverseChanges]) {
      if (rows >= max) break;
      for (const { key } of kv.iterate({ gte: tablePrefix(table), lt: numberKey(table, cutoff + 1) })) {
        const n = decodeNumber(key, 1);
        const hash = key.slice(1 + NUMBER_LENGTH);
        if (!isCanonical(n, hash)) drop(n, hash);
        else if (table === TablePrefix.forwardChanges) chain.deleteForwardChanges(b, n, hash);
        else continue; // a canonical block's reverse changes belong to the chain store's reorg window
        if (++rows >= max) break;
      }
    }

    // Side blocks stored without state: one pass over the heights above the ancient store, then newly cut ones.
    if (this.#headerCursor === undefined) this.#headerCursor = Math.max(1, db.ancients?.ancients() ?? 1);
    const from = this.#headerCursor;
    const to = Math.min(cutoff, from + max - 1);
    if (from <= to) {
      const lt = headerNumberPrefix(to + 1);
      for (const { key } of kv.iterate({ gte: headerNumberPrefix(from), lt })) {
        if (key.length !== 1 + NUMBER_LENGTH + HASH_LENGTH) continue;
        const n = decodeNumber(key, 1);
        const hash = key.slice(1 + NUMBER_LENGTH);
        if (!isCanonical(n, hash)) drop(n, hash);
      }
      this.#headerCursor = to + 1;
    }

    if (b.size > 0) {
      await b.commit();
      // Deleted blocks leave the decoded-block cache (readers confirm hits anyway; this frees the memory).
      for (const hash of deleted.values()) db.blockCache?.delete(hash);
      if (deleted.size > 0) this.#logger?.debug('Deleted side blocks', { blocks: deleted.size, cutoff });
    }
    return rows >= max || this.#headerCursor <= cutoff;
  }
}
