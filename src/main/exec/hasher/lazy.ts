// A trie hasher whose thread starts with the first block that needs it. The node's coordinator keeps block-import
// stages for its inline BlockExecutor twin, but with the worker twin (the default on LMDB) blocks are hashed on the
// executor thread's own hasher: the coordinator's would be a thread started only to idle.
import type { StateDiff } from '../../primitives/trie/commitment.js';
import type { TrieCommit, TrieHasher } from './interface.js';

export class LazyTrieHasher implements TrieHasher {
  #inner: TrieHasher | undefined;

  /** `start` makes the hasher on first use; `prefetching` and `warming` are what it will answer (read before). */
  constructor(
    private readonly start: () => TrieHasher,
    readonly prefetching: boolean,
    readonly warming = false,
  ) {}

  /** Whether the hasher (and its thread) has been started. */
  get started(): boolean {
    return this.#inner !== undefined;
  }

  commit(stateRoot: Uint8Array, diff: StateDiff, opts?: { keep?: boolean }): Promise<TrieCommit> {
    this.#inner ??= this.start();
    return this.#inner.commit(stateRoot, diff, opts);
  }

  prefetch(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (!this.prefetching) return;
    this.#inner ??= this.start();
    this.#inner.prefetch(stateRoot, addresses);
  }

  warm(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void {
    if (!this.warming) return;
    this.#inner ??= this.start();
    this.#inner.warm(stateRoot, addresses);
  }

  release(layer: number): void {
    // A layer comes from a commit, so the hasher is started when there is one to release.
    this.#inner?.release(layer);
  }

  async close(): Promise<void> {
    await this.#inner?.close();
  }
}
