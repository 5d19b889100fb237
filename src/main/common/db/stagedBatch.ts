// A write batch whose reads see its own pending writes over a base reader: several blocks built into one
// transaction (the importer's group commit, exec/chain/chainStore.ts commitBlocks) each read the state the blocks
// before them in the same batch leave, although nothing of the batch is in the database yet.

import {
  checkKey,
  checkLimit,
  compareBytes,
  type IterateOptions,
  type KVEntry,
  type KVReader,
  resolveRange,
  type WriteBatch,
} from './interface.js';

const mapKey = (k: Uint8Array) => Buffer.from(k.buffer, k.byteOffset, k.length).toString('latin1');

export class StagedBatch implements WriteBatch, KVReader {
  /** The pending value of every key written so far (null: deleted), the last write winning. */
  readonly #staged = new Map<string, { key: Uint8Array; value: Uint8Array | null }>();

  constructor(
    private readonly batch: WriteBatch,
    private readonly base: KVReader,
  ) {}

  get size(): number {
    return this.batch.size;
  }

  get byteSize(): number {
    return this.batch.byteSize;
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.batch.put(key, value);
    // The batch has validated and copied them; keep copies of our own too (the caller may reuse its buffers).
    this.#staged.set(mapKey(key), { key: key.slice(), value: value.slice() });
  }

  delete(key: Uint8Array): void {
    this.batch.delete(key);
    this.#staged.set(mapKey(key), { key: key.slice(), value: null });
  }

  commit(): Promise<void> {
    return this.batch.commit();
  }

  get(key: Uint8Array): Uint8Array | undefined {
    checkKey(key);
    const s = this.#staged.get(mapKey(key));
    if (s !== undefined) return s.value === null ? undefined : s.value.slice();
    return this.base.get(key);
  }

  has(key: Uint8Array): boolean {
    checkKey(key);
    const s = this.#staged.get(mapKey(key));
    return s !== undefined ? s.value !== null : this.base.has(key);
  }

  /** The base's entries in the range with the pending writes applied (materialised when any falls in the range). */
  *iterate(opts: IterateOptions = {}): IterableIterator<KVEntry> {
    checkLimit(opts.limit);
    const { lower, upper, empty } = resolveRange(opts);
    if (empty) return;
    const inRange = (k: Uint8Array) =>
      (lower === undefined || compareBytes(k, lower) >= 0) && (upper === undefined || compareBytes(k, upper) < 0);
    const staged = [...this.#staged.values()].filter((s) => inRange(s.key));
    if (staged.length === 0) {
      yield* this.base.iterate(opts);
      return;
    }
    const merged = new Map<string, KVEntry>();
    const { limit: _limit, reverse: _reverse, ...range } = opts;
    for (const e of this.base.iterate(range)) merged.set(mapKey(e.key), e);
    for (const s of staged) {
      if (s.value === null) merged.delete(mapKey(s.key));
      else merged.set(mapKey(s.key), { key: s.key.slice(), value: s.value.slice() });
    }
    const entries = [...merged.values()].sort((a, b) => compareBytes(a.key, b.key));
    if (opts.reverse === true) entries.reverse();
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < entries.length && i < limit; i++) yield entries[i]!;
  }
}
