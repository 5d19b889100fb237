// The trie hasher's clean-node cache (--cache.trie, geth's TrieCleanCache): trie nodes by hash, bounded by bytes,
// least recently used first out. Nodes are content-addressed (a hash names one RLP forever), so a cached node never
// goes stale, whatever snapshot it was read from.

/** Bytes charged per entry on top of the node's RLP: the 32-char key string and the Map slot. */
export const NODE_CACHE_ENTRY_OVERHEAD = 96;

/** The hash bytes as a latin1 string: one char per byte, the cheapest Map key to build. */
export function nodeKey(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('latin1');
}

export class NodeCache {
  readonly maxBytes: number;
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  /** Insertion order is recency order: a hit moves the entry to the end, eviction takes from the front. */
  readonly #nodes = new Map<string, Uint8Array>();

  /** `maxBytes` 0 disables the cache. */
  constructor(maxBytes: number) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) throw new RangeError(`node cache size must be ≥ 0: ${maxBytes}`);
    this.maxBytes = Math.floor(maxBytes);
  }

  get(key: string): Uint8Array | undefined {
    const rlp = this.#nodes.get(key);
    if (rlp === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#nodes.delete(key);
    this.#nodes.set(key, rlp);
    return rlp;
  }

  /** Caches a node (the caller hands over `rlp`: it must not change afterwards). */
  set(key: string, rlp: Uint8Array): void {
    const cost = rlp.length + NODE_CACHE_ENTRY_OVERHEAD;
    if (cost > this.maxBytes) return;
    const old = this.#nodes.get(key);
    if (old !== undefined) {
      this.#nodes.delete(key);
      this.#bytes -= old.length + NODE_CACHE_ENTRY_OVERHEAD;
    }
    this.#nodes.set(key, rlp);
    this.#bytes += cost;
    if (this.#bytes > this.maxBytes) this.#evict();
  }

  #evict(): void {
    for (const [key, rlp] of this.#nodes) {
      if (this.#bytes <= this.maxBytes) break;
      this.#nodes.delete(key);
      this.#bytes -= rlp.length + NODE_CACHE_ENTRY_OVERHEAD;
    }
  }

  get size(): number {
    return this.#nodes.size;
  }

  /** Bytes charged for the cached nodes (RLP plus the per-entry overhead); never above maxBytes. */
  get bytes(): number {
    return this.#bytes;
  }

  get stats(): { hits: number; misses: number; size: number; bytes: number } {
    return { hits: this.#hits, misses: this.#misses, size: this.#nodes.size, bytes: this.#bytes };
  }

  clear(): void {
    this.#nodes.clear();
    this.#bytes = 0;
  }
}
