// TrieHasher: the third stage of block import (ARCHITECTURE.md, data flow step 3) — the state root of a block's
// diff, computed off the executor's path. Implementations: inline (the calling thread; the memory engine, tests) and
// pooled (one worker thread reading the LMDB environment read-only, so block N is hashed while N+1 executes).
import type { StateCommitmentResult, StateDiff } from '../../primitives/trie/commitment.js';

export interface TrieHasherOptions {
  /** --cache.trie share of --cache in MB: the bounded LRU cache of trie nodes read from the database. */
  cacheMB?: number;
  /** Walk the account-trie paths of a block's senders and recipients before its commitment (off: --cache.noprefetch). */
  prefetch?: boolean;
  /** Read the accounts a block changes while it executes (TrieHasher.warm); only a hasher on its own thread does. */
  warm?: boolean;
}

export const trieHasherDefaults = { cacheMB: 0, prefetch: true, warm: true } as const;

export interface TrieCommit extends StateCommitmentResult {
  /** The layer holding the new nodes until release() (commit with `keep`); undefined otherwise. */
  layer: number | undefined;
}

export interface TrieHasher {
  /** Whether prefetch() does anything (callers skip gathering addresses otherwise). */
  readonly prefetching: boolean;
  /**
   * The commitment of `diff` on the state at `stateRoot`: root, new nodes, storage roots. Commits run in call
   * order; with `keep` the new nodes stay readable to later commits (a child block is hashed before this block is
   * written) until release(layer). Without it the nodes must be in the database before a commit builds on the root.
   */
  commit(stateRoot: Uint8Array, diff: StateDiff, opts?: { keep?: boolean }): Promise<TrieCommit>;
  /**
   * A hint: warm the node cache with the account-trie paths of `addresses` (a block's senders and recipients) in the
   * trie at `stateRoot`, ahead of the block's commitment. Does nothing when prefetching is off. Never fails.
   */
  prefetch(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void;
  /**
   * Whether warm() does anything: the hasher has a thread of its own to read accounts on while the block executes
   * (and --cache.noprefetch is not set).
   */
  readonly warming: boolean;
  /**
   * Read the accounts at `addresses` (ones the executing block changes) in the trie at `stateRoot` now, for the
   * block's commitment on that root, which then skips their walks. Does nothing when not warming. Never fails.
   */
  warm(stateRoot: Uint8Array, addresses: readonly Uint8Array[]): void;
  /** The layer's block is written (or discarded): its nodes are read from the database (and cache) from now on. */
  release(layer: number): void;
  close(): Promise<void>;
}

/** MB → bytes for the node cache. */
export function cacheBytes(opts: TrieHasherOptions): number {
  const mb = opts.cacheMB ?? trieHasherDefaults.cacheMB;
  return Math.max(0, Math.floor(mb * 1024 * 1024));
}
