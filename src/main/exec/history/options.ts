// Storage and history settings of tern-exec (geth's eth/ethconfig and cmd/utils SetEthConfig, reduced to what tern
// has): how much chain history is indexed and kept, how old state is pruned, and how --cache is split. One resolved
// object, built from the flags by cli/execOptions.ts and handed to the history service and the RPC.
import { CACHED_ACCOUNT_BYTES, type FlatStateOptions, flatStateDefaults } from '../state/flatState.js';

export type GcMode = 'full' | 'archive';
export type StateScheme = 'hash' | 'path';
export type ChainHistoryMode = 'all' | 'postmerge';

/** geth keeps this many recent tries in memory in hash-scheme full mode (core/blockchain.go TriesInMemory). */
export const TRIES_IN_MEMORY = 128;

export interface HistoryOptions {
  /** --history.transactions: blocks whose transactions are indexed; 0 = the whole chain. */
  txHistory: number;
  /** --history.logs: blocks kept in the log index; 0 = the whole chain. */
  logHistory: number;
  /** --history.logs.disable: keep no log index (and delete one that exists). */
  logsDisabled: boolean;
  /** --history.logs.export: file the log index checkpoints are written to (./logCheckpoints.ts); '' = none. */
  logExportFile: string;
  /** --history.chain */
  chainHistory: ChainHistoryMode;
  /** Blocks this far behind the head move to the ancient store (geth's FullImmutabilityThreshold, 90 000). */
  freezeThreshold: number;
  /** --gcmode */
  gcMode: GcMode;
  /** --state.scheme as given (undefined: the database's, or path for a new one, as geth). */
  stateScheme: StateScheme | undefined;
  /** --history.state: with the path scheme, blocks whose state stays readable; 0 = all. */
  stateHistory: number;
  /** Run the trie pruner once the head has advanced this many blocks since the last run. */
  pruneInterval: number;
  /** Most blocks handled by one step of an indexer or the freezer (a step is one write batch). */
  batchBlocks: number;
  /** Poll interval of the background tasks besides head events, ms. */
  intervalMs: number;
}

export const historyDefaults: HistoryOptions = {
  txHistory: 2_350_000,
  logHistory: 2_350_000,
  logsDisabled: false,
  logExportFile: '',
  chainHistory: 'all',
  freezeThreshold: 90_000,
  gcMode: 'full',
  stateScheme: undefined,
  stateHistory: 90_000,
  pruneInterval: 1024,
  batchBlocks: 1000,
  intervalMs: 10_000,
};

/**
 * Canonical blocks whose state (trie nodes under their state root) is kept, counting the head; 0 keeps all.
 * hash + full: geth's TriesInMemory; hash + archive: all; path: --history.state (geth's state history window).
 */
export function stateRetention(o: Pick<HistoryOptions, 'gcMode' | 'stateHistory'>, scheme: StateScheme): number {
  if (scheme === 'hash') return o.gcMode === 'archive' ? 0 : TRIES_IN_MEMORY;
  if (o.gcMode === 'archive' || o.stateHistory === 0) return 0;
  return Math.max(o.stateHistory, TRIES_IN_MEMORY);
}

/** The --cache budget in MB per use, as geth splits it (percentages of --cache). */
export interface CacheAllocation {
  totalMB: number;
  /** --cache.database */
  databaseMB: number;
  /** --cache.trie (geth's TrieCleanCache) */
  trieCleanMB: number;
  /** --cache.gc (geth's TrieDirtyCache) */
  trieDirtyMB: number;
  /** --cache.snapshot; 0 with --snapshot=false (its share goes to the trie cache, as geth) */
  snapshotMB: number;
  /** --cache.blocklogs: blocks whose logs the filter cache holds */
  blockLogs: number;
}

export interface CacheInput {
  cache: number;
  database: number;
  trie: number;
  gc: number;
  snapshot: number;
  blockLogs: number;
  snapshotEnabled: boolean;
}

export function cacheAllocation(c: CacheInput): CacheAllocation {
  const share = (pct: number) => Math.floor((c.cache * pct) / 100);
  let trieCleanMB = share(c.trie);
  let snapshotMB = share(c.snapshot);
  if (!c.snapshotEnabled) {
    trieCleanMB += snapshotMB;
    snapshotMB = 0;
  }
  return {
    totalMB: c.cache,
    databaseMB: share(c.database),
    trieCleanMB,
    trieDirtyMB: share(c.gc),
    snapshotMB,
    blockLogs: c.blockLogs,
  };
}

/**
 * tern's "snapshot" is its flat state: accounts, storage and code in the database, read through the importer's
 * overlay (state/flatState.ts), which keeps what blocks touched warm across blocks. The --cache.snapshot share
 * bounds that warm cache: a quarter of it (at most geth's 64 MiB) for contract code, the rest for accounts with their
 * slots at CACHED_ACCOUNT_BYTES each. A share of 0 (--snapshot=false, or --cache.snapshot=0) keeps nothing across
 * blocks: each block starts from a cold overlay that reads the database, as geth without its snapshot reads the trie.
 */
export function snapshotCacheOptions(snapshotMB: number): FlatStateOptions {
  const bytes = Math.max(0, Math.floor(snapshotMB)) * 1024 * 1024;
  const codeCacheBytes = Math.min(flatStateDefaults.codeCacheBytes, Math.floor(bytes / 4));
  return { codeCacheBytes, maxCachedAccounts: Math.floor((bytes - codeCacheBytes) / CACHED_ACCOUNT_BYTES) };
}

export interface ResolvedStorageSettings {
  history: HistoryOptions;
  cache: CacheAllocation;
  /** The block importer's flat-state caches, from the snapshot share (snapshotCacheOptions). */
  flatState: FlatStateOptions;
  /** --datadir.minfreedisk in MB (0 disables); geth's default is twice the --cache.gc share. */
  minFreeDiskMB: number;
  /** Notes for the log (settings overridden as geth overrides them). */
  notes: string[];
}
