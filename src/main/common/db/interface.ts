// The key-value store under tern-exec: synchronous reads (LMDB reads are memory-mapped), ordered iteration, atomic
// durable write batches and consistent read snapshots. `lmdb.ts` is the default engine, `memory.ts` the ephemeral
// one (--dev without a datadir, tests); one test suite runs over both. Keys are compared as unsigned bytes.

import { TernError } from '../errors.js';

export const DbErrorCode = {
  /** --db.engine names an engine tern does not have (pebble, leveldb, or anything unknown). */
  unsupportedEngine: 'UNSUPPORTED_DB_ENGINE',
  /** The chaindata directory was written by another engine (geth's pebble or leveldb, or tern's lmdb). */
  engineMismatch: 'DB_ENGINE_MISMATCH',
  /** The database was written by a newer tern (a schema version this build does not know). */
  schemaTooNew: 'DB_SCHEMA_TOO_NEW',
  /** The database has an older schema version that this build cannot migrate, or no version at all. */
  schemaUnsupported: 'DB_SCHEMA_UNSUPPORTED',
  /** A read-only open of a database that does not exist. */
  notFound: 'DB_NOT_FOUND',
  /** The store (or the snapshot, or the batch) is closed, released or already committed. */
  closed: 'DB_CLOSED',
  /** A key that is empty or longer than MAX_KEY_LENGTH, or a value that is not a Uint8Array. */
  invalidKey: 'DB_INVALID_KEY',
  /** A write to a store opened read-only. */
  readonly: 'DB_READONLY',
  /** The engine failed to commit a batch (nothing of it was written). */
  writeFailed: 'DB_WRITE_FAILED',
  /** An accessor was given a malformed argument (hash length, block number) or found a malformed stored value. */
  invalidArgument: 'DB_INVALID_ARGUMENT',
  /** The ancient store is inconsistent with the key-value store, or an append is out of order. */
  ancientMismatch: 'DB_ANCIENT_MISMATCH',
  /** Data that had to be present (a canonical block being frozen) is missing. */
  missingData: 'DB_MISSING_DATA',
} as const;

/**
 * Longest key accepted, in bytes: LMDB's portable limit (its compile-time default MDB_MAXKEYSIZE). The schema's
 * longest key is 53 bytes.
 */
export const MAX_KEY_LENGTH = 511;

export interface KVEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/**
 * A key range. Bounds combine: `prefix` restricts to keys starting with it, `gte`/`lt` narrow further. Entries come in
 * ascending key order, or descending with `reverse` (still the same range); `limit` caps how many.
 */
export interface IterateOptions {
  gte?: Uint8Array;
  lt?: Uint8Array;
  prefix?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/** Reads. Every returned array is the caller's own (never a view into the engine's memory). */
export interface KVReader {
  get(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): boolean;
  /**
   * Lazily iterates a range over one consistent view (for the live store, the state when iteration started).
   * Breaking out of the loop releases the cursor; an iterator left unfinished without `return()` holds the view.
   */
  iterate(opts?: IterateOptions): IterableIterator<KVEntry>;
}

/**
 * A consistent read view: later commits do not change what it reads. Release it when done (LMDB keeps the pages of
 * the view from being reused while it is held); reads after release throw DB_CLOSED. Releasing twice is harmless.
 */
export interface ReadSnapshot extends KVReader {
  release(): void;
}

/**
 * Writes applied in order (a put then a delete of the same key deletes it) and committed atomically: after a crash
 * (kill -9, power loss) either every write of a committed batch is there or none is. The key and value bytes are
 * copied by put, so the caller may reuse its buffers at once. A batch is used once: after commit, put/delete/commit
 * throw DB_CLOSED.
 */
export interface WriteBatch {
  put(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
  /** Operations queued so far. */
  readonly size: number;
  /** Approximate bytes queued (keys plus values), for callers that flush large batches early. */
  readonly byteSize: number;
  /**
   * Resolves once the batch is durable (on disk for LMDB) and visible to reads and to new snapshots; rejects with
   * DB_WRITE_FAILED when nothing of it was written. Commits land in the order commit() was called.
   */
  commit(): Promise<void>;
}

export interface KVStore extends KVReader {
  batch(): WriteBatch;
  snapshot(): ReadSnapshot;
  /**
   * Makes the next read see every commit made so far by another thread of this process (LMDB: this thread's shared
   * read transaction is renewed at most once per event turn, so a read right after another thread's commit could
   * still see the state before it). Snapshots already taken keep their view. Absent where nothing is shared.
   */
  renewReads?(): void;
  /** Waits for commits in flight, releases snapshots still held and closes; later calls throw DB_CLOSED. */
  close(): Promise<void>;
}

export function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw new TernError(
      DbErrorCode.invalidKey,
      key instanceof Uint8Array
        ? `database key of ${key.length} bytes: keys are 1 to ${MAX_KEY_LENGTH} bytes`
        : 'database key must be a Uint8Array',
    );
}

export function checkValue(value: Uint8Array): void {
  if (!(value instanceof Uint8Array))
    throw new TernError(DbErrorCode.invalidKey, 'database value must be a Uint8Array');
}

/** Unsigned lexicographic byte order, the order of both engines. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The smallest key greater than every key starting with `prefix`, or undefined when there is none (all 0xff). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] !== 0xff) {
      const end = prefix.slice(0, i + 1);
      end[i]!++;
      return end;
    }
  }
  return undefined;
}

/** A resolved range: lower bound inclusive, upper bound exclusive, either possibly open. */
export interface KeyRange {
  lower: Uint8Array | undefined;
  upper: Uint8Array | undefined;
  /** True when the bounds exclude every key. */
  empty: boolean;
}

/** Combines prefix, gte and lt into one [lower, upper) range. */
export function resolveRange(opts: IterateOptions): KeyRange {
  let lower = opts.gte;
  let upper = opts.lt;
  if (opts.prefix !== undefined && opts.prefix.length > 0) {
    const p = opts.prefix;
    if (lower === undefined || compareBytes(lower, p) < 0) lower = p;
    const end = prefixEnd(p);
    if (end !== undefined && (upper === undefined || compareBytes(end, upper) < 0)) upper = end;
  }
  if (lower !== undefined && lower.length === 0) lower = undefined;
  const empty =
    (upper !== undefined && upper.length === 0) ||
    (lower !== undefined && upper !== undefined && compareBytes(lower, upper) >= 0) ||
    (opts.limit !== undefined && opts.limit <= 0);
  return { lower, upper, empty };
}

export function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && !(Number.isInteger(limit) || limit === Number.POSITIVE_INFINITY))
    throw new TernError(DbErrorCode.invalidArgument, `iteration limit must be an integer: ${limit}`);
}
