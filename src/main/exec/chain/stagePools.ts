// The off-thread stages of block import (ARCHITECTURE.md, data flow steps 1 and 3) for whoever executes blocks:
// sender recovery on the worker pool and state roots on the trie hasher's thread, or both on the calling thread.
// `tern-exec import` and the running node (newPayload, the Engine API path) open them the same way.
import { availableParallelism } from 'node:os';
import type { PoolLogger } from '../../pool/interface.js';
import type { Database } from '../db/open.js';
import { InlineTrieHasher } from '../hasher/inline.js';
import type { TrieHasher, TrieHasherOptions } from '../hasher/interface.js';
import { LazyTrieHasher } from '../hasher/lazy.js';
import { PooledTrieHasher } from '../hasher/pooled.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import type { SenderRecovery } from '../senders/interface.js';
import { PooledSenderRecovery } from '../senders/pooled.js';

/**
 * Cores the machine needs beyond this for the trie prefetch to run: it spends CPU (~17 ms a block) to hide database
 * latency, and with 2 cores or fewer that CPU is taken from the executor (bench/import ran ~15 % slower,
 * bench/RESULTS.md).
 */
const PREFETCH_MIN_CORES = 2;

export interface StagePoolOptions {
  /** false: both stages on the calling thread (tests, tiny machines). Workers need an on-disk database. */
  workers: boolean;
  /** The node cache and whether prefetch is wanted (it runs only on the hasher thread with a spare core). */
  hasher: TrieHasherOptions;
  /** Transactions per recovery task. */
  senderChunk: number;
}

export interface StagePools {
  readonly senders: SenderRecovery;
  readonly hasher: TrieHasher;
  /** Where state roots are computed: 'worker' (the trie hasher's thread) or 'inline' (the calling thread). */
  readonly thread: 'worker' | 'inline';
  readonly prefetch: boolean;
  close(): Promise<void>;
}

export function openStagePools(db: Database, opts: StagePoolOptions, deps: { logger?: PoolLogger } = {}): StagePools {
  if (!opts.workers) {
    return {
      senders: new InlineSenderRecovery(),
      hasher: inlineHasher(db, opts),
      thread: 'inline',
      prefetch: false,
      close: async () => {},
    };
  }
  const senders = new PooledSenderRecovery({ chunkSize: opts.senderChunk }, deps);
  // The memory engine has no directory the hasher thread could open: its state roots are computed here.
  const path = db.paths?.chaindata;
  const prefetch = path !== undefined && (opts.hasher.prefetch ?? false) && availableParallelism() > PREFETCH_MIN_CORES;
  // The hasher's thread starts with the first block hashed (a node on the executor thread never hashes here).
  // Reading a block's accounts ahead moves work off its critical path rather than adding any: on every machine,
  // unless --cache.noprefetch.
  const warm = opts.hasher.prefetch ?? true;
  const hasher =
    path === undefined
      ? inlineHasher(db, opts)
      : new LazyTrieHasher(() => new PooledTrieHasher({ ...opts.hasher, prefetch, warm, path }, deps), prefetch, warm);
  return {
    senders,
    hasher,
    thread: path === undefined ? 'inline' : 'worker',
    prefetch,
    close: async () => {
      await Promise.all([senders.close(), hasher.close()]);
    },
  };
}

/** Prefetching on the thread that hashes next overlaps nothing: off there. */
function inlineHasher(db: Database, opts: StagePoolOptions): InlineTrieHasher {
  return new InlineTrieHasher({ ...opts.hasher, prefetch: false }, { db: db.kv });
}
