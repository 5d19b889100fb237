// --safedb.path: which L2 block was safe after each L1 block (op-node's safedb, the answers of
// optimism_safeHeadAtL1Block). One LMDB keyspace, op-node's record layout: key 0x00 ‖ L1 number (u64 BE), value
// L1 hash ‖ L2 hash ‖ L2 number (u64 BE). Written when derivation makes a block safe, truncated when the safe head
// is reset below what was recorded. Without the flag a disabled store answers SAFEDB_DISABLED.

import type { KVStore } from '../../common/db/interface.js';
import { LmdbStore } from '../../common/db/lmdb.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { BlockId, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { fromHex, toHex } from '../derive/types.js';

export interface SafeHeadAt {
  l1Block: BlockId;
  safeHead: BlockId;
}

export interface SafeHeadStore {
  readonly enabled: boolean;
  /** `safeHead` became safe with the data of `l1Block`. */
  safeHeadUpdated(safeHead: BlockId, l1Block: BlockId): Promise<void>;
  /** The safe head went back to `safeHead`: forget what was recorded past it. */
  safeHeadReset(safeHead: L2BlockRef): Promise<void>;
  /** The safe head recorded at or before L1 block `l1Number`; SAFEDB_NOT_FOUND when none. */
  safeHeadAtL1(l1Number: number): Promise<SafeHeadAt>;
  close(): Promise<void>;
}

const PREFIX = 0;
const VALUE_LEN = 72;

function keyOf(l1Number: number | bigint): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = PREFIX;
  new DataView(k.buffer).setBigUint64(1, BigInt(l1Number));
  return k;
}

const MAX_KEY = keyOf(0xffff_ffff_ffff_ffffn);

function recordValue(l1: BlockId, l2: BlockId): Uint8Array {
  const v = new Uint8Array(VALUE_LEN);
  v.set(fromHex(l1.hash), 0);
  v.set(fromHex(l2.hash), 32);
  new DataView(v.buffer).setBigUint64(64, BigInt(l2.number));
  return v;
}

function decode(key: Uint8Array, value: Uint8Array): SafeHeadAt {
  if (key.length !== 9 || key[0] !== PREFIX || value.length !== VALUE_LEN) {
    throw new TernError('SAFEDB_INVALID_ENTRY', 'invalid safe head database entry');
  }
  const kv = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const vv = new DataView(value.buffer, value.byteOffset, value.byteLength);
  return {
    l1Block: { hash: toHex(value.subarray(0, 32)), number: Number(kv.getBigUint64(1)) },
    safeHead: { hash: toHex(value.subarray(32, 64)), number: Number(vv.getBigUint64(64)) },
  };
}

export class SafeDb implements SafeHeadStore {
  readonly enabled = true;
  readonly #db: KVStore;
  readonly #log: Logger;
  /** Writes run one after another, so a reset never interleaves with an update. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(db: KVStore, deps: { logger: Logger }) {
    this.#db = db;
    this.#log = deps.logger.child('safedb');
  }

  /** Opens (creating) the LMDB database at --safedb.path. */
  static open(path: string, deps: { logger: Logger }): SafeDb {
    return new SafeDb(new LmdbStore({ path }, { logger: deps.logger }), deps);
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  safeHeadUpdated(safeHead: BlockId, l1Block: BlockId): Promise<void> {
    return this.#serial(async () => {
      this.#log.debug('Record safe head', { l2: safeHead.number, l1: l1Block.number });
      const batch = this.#db.batch();
      batch.put(keyOf(l1Block.number), recordValue(l1Block, safeHead));
      await batch.commit();
    });
  }

  safeHeadReset(safeHead: L2BlockRef): Promise<void> {
    return this.#serial(async () => {
      let prev: Uint8Array | undefined;
      for (const { key } of this.#db.iterate({
        lt: keyOf(safeHead.l1origin.number),
        gte: keyOf(0),
        reverse: true,
        limit: 1,
      })) {
        prev = key;
      }
      for (const { key, value } of this.#db.iterate({ gte: keyOf(safeHead.l1origin.number), lt: MAX_KEY })) {
        const entry = decode(key, value);
        if (entry.safeHead.number < safeHead.number) {
          prev = key;
          continue;
        }
        // The first record at or past the new safe head: it and everything after are gone; if earlier records
        // exist, the new safe head is what this L1 block made safe.
        const batch = this.#db.batch();
        for (const e of this.#db.iterate({ gte: key, lt: MAX_KEY })) batch.delete(e.key);
        if (prev !== undefined) batch.put(key, recordValue(entry.l1Block, safeHead));
        await batch.commit();
        this.#log.info('Reset safe head database', { l2: safeHead.number, fromL1: entry.l1Block.number });
        return;
      }
    });
  }

  async safeHeadAtL1(l1Number: number): Promise<SafeHeadAt> {
    for (const { key, value } of this.#db.iterate({
      gte: keyOf(0),
      lt: keyOf(BigInt(l1Number) + 1n),
      reverse: true,
      limit: 1,
    })) {
      return decode(key, value);
    }
    throw new TernError('SAFEDB_NOT_FOUND', 'not found');
  }

  close(): Promise<void> {
    return this.#serial(() => this.#db.close());
  }
}

/** The store without --safedb.path: records nothing, answers SAFEDB_DISABLED. */
export class DisabledSafeDb implements SafeHeadStore {
  readonly enabled = false;
  async safeHeadUpdated(): Promise<void> {}
  async safeHeadReset(): Promise<void> {}
  async safeHeadAtL1(): Promise<SafeHeadAt> {
    throw new TernError('SAFEDB_DISABLED', 'safe head database not enabled: start the node with --safedb.path');
  }
  async close(): Promise<void> {}
}
