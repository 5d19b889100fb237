// The default KVStore: an embedded LMDB environment (the `lmdb` package) holding one keyspace of binary keys and
// values. Reads are synchronous and memory-mapped; a batch is one LMDB write transaction run on lmdb-js's writer
// thread; a snapshot is an LMDB read transaction. Other threads (and processes) can open the same directory and read.

import { open, type RootDatabaseOptions } from 'lmdb';
import { LMDB_ENV_SETTINGS } from '../../protocol/db/sharedEnv.js';
import { TernError } from '../errors.js';
import type { Logger } from '../logger/index.js';
import {
  checkKey,
  checkLimit,
  checkValue,
  DbErrorCode,
  type IterateOptions,
  type KVEntry,
  type KVStore,
  type ReadSnapshot,
  resolveRange,
  type WriteBatch,
} from './interface.js';

export interface LmdbStoreOptions {
  /** Directory of the environment (data.mdb, lock.mdb); created when missing unless read-only. */
  path: string;
  /** Open read-only: batch() throws DB_READONLY. */
  readonly?: boolean;
  /** Concurrent read transactions (snapshots, iterators, reader threads) across all processes; default 1024. */
  maxReaders?: number;
}

export const lmdbStoreDefaults = { readonly: false, maxReaders: 1024 } as const;

export interface LmdbStoreDeps {
  logger?: Logger;
}

type LmdbDatabase = ReturnType<typeof open<Uint8Array, Uint8Array>>;
type LmdbTransaction = ReturnType<LmdbDatabase['useReadTransaction']>;

/** A plain Uint8Array over the same memory: Buffer's `slice` is a view where Uint8Array's is a copy. */
function plain(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function* rangeOf(
  db: LmdbDatabase,
  opts: IterateOptions,
  transaction: LmdbTransaction | undefined,
): Generator<KVEntry> {
  checkLimit(opts.limit);
  const { lower, upper, empty } = resolveRange(opts);
  if (empty) return;
  const range: Parameters<LmdbDatabase['getRange']>[0] = {};
  if (opts.reverse === true) {
    // lmdb-js walks backwards from `start` (made exclusive: our upper bound) down to `end` (made inclusive).
    range.reverse = true;
    if (upper !== undefined) {
      range.start = upper;
      range.exclusiveStart = true;
    }
    // Without an end lmdb-js stops (exclusively) at its default beginning key [0x00], which would drop key 0x00.
    range.end = lower ?? Uint8Array.of(0);
    range.inclusiveEnd = true;
  } else {
    if (lower !== undefined) range.start = lower;
    if (upper !== undefined) range.end = upper;
  }
  if (opts.limit !== undefined && Number.isFinite(opts.limit)) range.limit = opts.limit;
  if (transaction !== undefined) range.transaction = transaction;
  for (const { key, value } of db.getRange(range)) yield { key: plain(key), value: plain(value) };
}

export class LmdbStore implements KVStore {
  readonly path: string;
  readonly readonly: boolean;
  readonly #db: LmdbDatabase;
  readonly #logger: Logger | undefined;
  readonly #snapshots = new Set<LmdbSnapshot>();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(opts: LmdbStoreOptions, deps: LmdbStoreDeps = {}) {
    this.path = opts.path;
    this.readonly = opts.readonly ?? lmdbStoreDefaults.readonly;
    this.#logger = deps.logger;
    const options: RootDatabaseOptions = {
      ...LMDB_ENV_SETTINGS,
      maxReaders: opts.maxReaders ?? lmdbStoreDefaults.maxReaders,
      readOnly: this.readonly,
    };
    this.#db = open<Uint8Array, Uint8Array>(opts.path, options);
    this.#logger?.debug('Opened LMDB database', { path: opts.path, readonly: this.readonly });
  }

  get(key: Uint8Array): Uint8Array | undefined {
    this.#check();
    const v = this.#db.get(key);
    return v === undefined ? undefined : plain(v);
  }

  has(key: Uint8Array): boolean {
    this.#check();
    return this.#db.getBinaryFast(key) !== undefined;
  }

  iterate(opts: IterateOptions = {}): IterableIterator<KVEntry> {
    this.#check();
    return rangeOf(this.#db, opts, undefined);
  }

  batch(): WriteBatch {
    this.#check();
    if (this.readonly) throw new TernError(DbErrorCode.readonly, `database ${this.path} is open read-only`);
    return new LmdbBatch(this.#db, () => this.#check());
  }

  renewReads(): void {
    this.#check();
    this.#db.resetReadTxn();
  }

  snapshot(): ReadSnapshot {
    this.#check();
    const snap = new LmdbSnapshot(this.#db, this.#db.useReadTransaction(), (s) => this.#snapshots.delete(s));
    this.#snapshots.add(snap);
    return snap;
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    for (const snap of [...this.#snapshots]) snap.release();
    await this.#db.close();
    this.#logger?.debug('Closed LMDB database', { path: this.path });
  }

  #check(): void {
    if (this.#closed) throw new TernError(DbErrorCode.closed, `database ${this.path} is closed`);
  }
}

class LmdbSnapshot implements ReadSnapshot {
  readonly #db: LmdbDatabase;
  #txn: LmdbTransaction | undefined;
  readonly #onRelease: (s: LmdbSnapshot) => void;

  constructor(db: LmdbDatabase, txn: LmdbTransaction, onRelease: (s: LmdbSnapshot) => void) {
    this.#db = db;
    this.#txn = txn;
    this.#onRelease = onRelease;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const v = this.#db.get(key, { transaction: this.#use() });
    return v === undefined ? undefined : plain(v);
  }

  has(key: Uint8Array): boolean {
    // getBinaryFast reads into a shared buffer (no copy); lmdb-js accepts the transaction option its typings omit.
    const fast = this.#db.getBinaryFast as (key: Uint8Array, options: { transaction: LmdbTransaction }) => unknown;
    return fast.call(this.#db, key, { transaction: this.#use() }) !== undefined;
  }

  iterate(opts: IterateOptions = {}): IterableIterator<KVEntry> {
    return rangeOf(this.#db, opts, this.#use());
  }

  release(): void {
    const txn = this.#txn;
    if (txn === undefined) return;
    this.#txn = undefined;
    txn.done();
    this.#onRelease(this);
  }

  #use(): LmdbTransaction {
    if (this.#txn === undefined) throw new TernError(DbErrorCode.closed, 'read snapshot already released');
    return this.#txn;
  }
}

type LmdbOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'remove'; key: Uint8Array };

class LmdbBatch implements WriteBatch {
  readonly #db: LmdbDatabase;
  readonly #checkOpen: () => void;
  #ops: LmdbOp[] = [];
  #bytes = 0;
  #done = false;

  constructor(db: LmdbDatabase, checkOpen: () => void) {
    this.#db = db;
    this.#checkOpen = checkOpen;
  }

  get size(): number {
    return this.#ops.length;
  }

  get byteSize(): number {
    return this.#bytes;
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.#check();
    checkKey(key);
    checkValue(value);
    // Copies: lmdb-js may read the bytes on its writer thread after commit() returns.
    this.#ops.push({ type: 'put', key: key.slice(), value: value.slice() });
    this.#bytes += key.length + value.length;
  }

  delete(key: Uint8Array): void {
    this.#check();
    checkKey(key);
    this.#ops.push({ type: 'remove', key: key.slice() });
    this.#bytes += key.length;
  }

  async commit(): Promise<void> {
    this.#check();
    this.#checkOpen();
    this.#done = true;
    const ops = this.#ops;
    this.#ops = [];
    if (ops.length === 0) return;
    // Every key was validated by put/delete, so lmdb-js cannot fail half-way through queueing the operations (which
    // would commit the ones already queued). The returned promise settles after the transaction's durable commit.
    try {
      const db = this.#db;
      // Inside a batch callback lmdb-js's put/remove return an already-settled promise; the batch's promise is the one
      // that reports the commit.
      await db.batch(() => {
        for (const op of ops) {
          if (op.type === 'put') void db.put(op.key, op.value);
          else void db.remove(op.key);
        }
      });
    } catch (err) {
      throw new TernError(
        DbErrorCode.writeFailed,
        `database commit failed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  #check(): void {
    if (this.#done) throw new TernError(DbErrorCode.closed, 'write batch already committed');
  }
}
