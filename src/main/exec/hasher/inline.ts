// The trie hasher on the calling thread: the same HasherCore the worker runs, reading nodes from a fresh snapshot
// of the caller's store for each commit. Used with the memory engine (no directory another thread could open), by
// the Engine API path and in tests.
import type { KVReader } from '../../common/db/interface.js';
import type { StateDiff } from '../../primitives/trie/commitment.js';
import { HasherCore } from '../../primitives/trie/hasherCore.js';
import type { NodeReader } from '../../primitives/trie/interface.js';
import { readTrieNode } from '../db/state.js';
import {
  cacheBytes,
  type TrieCommit,
  type TrieHasher,
  type TrieHasherOptions,
  trieHasherDefaults,
} from './interface.js';

/** What the inline hasher reads nodes from: a store that hands out read snapshots (KVStore). */
export interface NodeSource {
  snapshot(): KVReader & { release(): void };
}

export class InlineTrieHasher implements TrieHasher {
  readonly core: HasherCore;
  readonly #db: NodeSource;
  readonly #prefetch: boolean;

  get prefetching(): boolean {
    return this.#prefetch;
  }
  #nextLayer = 1;

  constructor(opts: TrieHasherOptions, deps: { db: NodeSource }) {
    this.core = new HasherCore(cacheBytes(opts));
    this.#db = deps.db;
    this.#prefetch = opts.prefetch ?? trieHasherDefaults.prefetch;
  }

  #withReader<T>(f: (reader: NodeReader) => T): T {
    const snap = this.#db.snapshot();
    try {
      return f({ get: (hash) => readTrieNode(snap, hash) });
    } finally {
      snap.release();
    }
  }

  async commit(stateRoot: Uint8Array, diff: StateDiff, opts: { keep?: boolean } = {}): Promise<TrieCommit> {
    const layer = opts.keep === true ? this.#nextLayer++ : undefined;
    const result = this.#withReader((db) => this.core.commit(db, stateRoot, diff, layer));
    return { ...result, layer };
  }

  prefetch(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (!this.#prefetch || addresses.length === 0) return;
    try {
      this.#withReader((db) => this.core.prefetch(db, stateRoot, addresses));
    } catch {
      // A hint only.
    }
  }

  /** On the calling thread reading ahead overlaps nothing: the commit reads them. */
  readonly warming = false;

  warm(): void {}

  release(layer: number): void {
    this.core.release([layer]);
  }

  async close(): Promise<void> {}
}
