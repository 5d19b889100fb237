// The --cache.database share at work: a byte-bounded LRU cache of decoded chain data (headers, blocks, receipts) by
// block hash. LMDB has no block cache of its own — reads come from the memory map, i.e. the OS page cache — so what
// repeated reads cost is the copy out of the map (or the file read from the ancient store) and, mostly, decoding
// the RLP again. Keeping the decoded objects saves both.
//
// Correctness across reorgs and rewrites follows from the key: what is stored under a block hash never changes (a
// block hash commits to the header, which commits to the body and the receipts), and what a reorg does change — the
// canonical index, head markers, the transaction index — is never cached here. The one thing that does happen to
// a block's data is deletion (side-chain blocks at frozen heights): the freezer drops those entries, and the readers
// (chain/chainStore.ts) confirm every hit against the view they read from (its hash → number entry), so a view
// never sees a block it does not hold.
//
// The cache lives on the V8 heap, so sizes are estimates of what the decoded objects take there (approxSize, with
// constants measured on Node 20 x64 by test/unit/main/exec/db/blockCache.test.ts). Values are handed out shared:
// callers copy before mutating (the readers in chainStore.ts hand out shallow copies).
import { getHeapStatistics } from 'node:v8';

/** What the cache holds per block hash. */
export type BlockCacheKind = 'header' | 'block' | 'receipts';

export interface BlockCacheOptions {
  /** Upper bound of the estimated bytes held; 0 disables the cache. */
  maxBytes: number;
}

export const blockCacheDefaults: BlockCacheOptions = { maxBytes: 64 * 1024 * 1024 };

/**
 * The most of the JS heap the cache may take: decoded objects live on the V8 heap (unlike geth's off-heap pebble
 * block cache), and a cache near the heap limit would turn into garbage-collection stalls or an out-of-memory abort.
 */
export const MAX_HEAP_SHARE = 0.25;

/** The cache size for a --cache.database share of `mb` MiB, capped at MAX_HEAP_SHARE of the heap limit. */
export function blockCacheBytes(
  mb: number,
  heapLimit: number = getHeapStatistics().heap_size_limit,
): {
  maxBytes: number;
  capped: boolean;
} {
  const wanted = Math.max(0, Math.floor(mb)) * 1024 * 1024;
  const cap = Math.floor(heapLimit * MAX_HEAP_SHARE);
  return wanted > cap ? { maxBytes: cap, capped: true } : { maxBytes: wanted, capped: false };
}

export interface BlockCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

interface Slot {
  value: unknown;
  bytes: number;
}

const PREFIX: Record<BlockCacheKind, string> = { header: 'h', block: 'b', receipts: 'r' };
const KINDS = Object.values(PREFIX);

const keyOf = (kind: BlockCacheKind, hash: Uint8Array): string =>
  PREFIX[kind] + Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1');

export class BlockCache {
  readonly maxBytes: number;
  /** Insertion order is recency order: a hit moves its entry to the end, eviction takes from the front. */
  readonly #slots = new Map<string, Slot>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(opts: Partial<BlockCacheOptions> = {}) {
    const maxBytes = opts.maxBytes ?? blockCacheDefaults.maxBytes;
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0))
      throw new RangeError(`block cache size must be a non-negative integer, got ${maxBytes}`);
    this.maxBytes = maxBytes;
  }

  get<T>(kind: BlockCacheKind, hash: Uint8Array): T | undefined {
    if (this.maxBytes === 0) return undefined;
    const key = keyOf(kind, hash);
    const slot = this.#slots.get(key);
    if (slot === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#slots.delete(key);
    this.#slots.set(key, slot);
    return slot.value as T;
  }

  /** Stores `value` (estimated at `bytes`, approxSize by default); something larger than the whole cache is not kept. */
  set(kind: BlockCacheKind, hash: Uint8Array, value: unknown, bytes: number = approxSize(value)): void {
    if (this.maxBytes === 0 || bytes > this.maxBytes) return;
    const key = keyOf(kind, hash);
    const old = this.#slots.get(key);
    if (old !== undefined) {
      this.#slots.delete(key);
      this.#bytes -= old.bytes;
    }
    this.#slots.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, slot] of this.#slots) {
      if (this.#bytes <= this.maxBytes) break;
      this.#slots.delete(k);
      this.#bytes -= slot.bytes;
      this.#evictions++;
    }
  }

  /** Forgets everything held for block `hash` (its data was deleted). */
  delete(hash: Uint8Array): void {
    const tail = Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1');
    for (const p of KINDS) {
      const slot = this.#slots.get(p + tail);
      if (slot === undefined) continue;
      this.#slots.delete(p + tail);
      this.#bytes -= slot.bytes;
    }
  }

  clear(): void {
    this.#slots.clear();
    this.#bytes = 0;
  }

  stats(): BlockCacheStats {
    return {
      entries: this.#slots.size,
      bytes: this.#bytes,
      maxBytes: this.maxBytes,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
    };
  }
}

// V8 heap costs on 64-bit Node (pointer compression off), measured with process.memoryUsage() around 10^5
// allocations: a small Uint8Array from slice() (JSTypedArray + JSArrayBuffer + its backing store) ~200 bytes plus
// its length; a BigInt 16 bytes plus 8 per 64-bit digit; an object 24 bytes plus 8 per property; an array 32
// bytes plus 8 per element. Numbers, booleans and undefined sit in their slots.
const TYPED_ARRAY_BYTES = 200;
const OBJECT_BYTES = 24;
const ARRAY_BYTES = 32;
const SLOT_BYTES = 8;
const BIGINT_BYTES = 16;
const MAX_U64 = 0xffff_ffff_ffff_ffffn;

/** Estimated V8 heap bytes of a decoded structure (objects, arrays, Uint8Arrays, bigints, strings). */
export function approxSize(value: unknown): number {
  switch (typeof value) {
    case 'bigint': {
      const v = value < 0n ? -value : value;
      return BIGINT_BYTES + SLOT_BYTES * (v <= MAX_U64 ? 1 : Math.ceil(v.toString(16).length / 16));
    }
    case 'string':
      return OBJECT_BYTES + value.length;
    case 'object': {
      if (value === null) return 0;
      if (value instanceof Uint8Array) return TYPED_ARRAY_BYTES + value.byteLength;
      if (Array.isArray(value)) {
        let n = ARRAY_BYTES + SLOT_BYTES * value.length;
        for (const v of value) n += approxSize(v);
        return n;
      }
      let n = OBJECT_BYTES;
      for (const k in value) n += SLOT_BYTES + approxSize((value as Record<string, unknown>)[k]);
      return n;
    }
    default:
      return 0;
  }
}
