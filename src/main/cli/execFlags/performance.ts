// tern-exec flags, section 2.12 of the seed: Performance.
import type { FlagSpec } from '../flag.js';
import { PERF } from './shared.js';

export const PERFORMANCE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'cache',
    kind: 'uint',
    default: 4096,
    defaultNote: '4096 for a mainnet full node; 128 in light mode',
    help: 'Megabytes of memory allocated to internal caching',
    category: PERF,
    toml: 'Tern.Cache',
    implemented: true,
  },
  {
    name: 'cache.blocklogs',
    kind: 'uint',
    default: 32,
    help: 'Size, in blocks, of the log cache for filtering',
    category: PERF,
    toml: 'Eth.FilterLogCacheSize',
    implemented: true,
  },
  {
    name: 'cache.database',
    kind: 'uint',
    max: 100,
    default: 50,
    help:
      'Percentage of the cache allowance for database I/O: a cache of decoded headers, blocks and receipts ' +
      '(LMDB reads go through the OS page cache), at most a quarter of the JS heap limit',
    category: PERF,
    toml: 'Tern.CacheDatabase',
    implemented: true,
  },
  {
    name: 'cache.gc',
    kind: 'uint',
    max: 100,
    default: 25,
    defaultNote: '25 full mode; 0 archive mode',
    help: 'Percentage of the cache allowance for trie pruning',
    category: PERF,
    toml: 'Tern.CacheGC',
    implemented: true,
  },
  {
    name: 'cache.noprefetch',
    kind: 'bool',
    default: false,
    help:
      'Disable heuristic state prefetch during block import (by default the trie hasher thread reads the accounts ' +
      'a newPayload block changes (fee recipient, recipients, senders) while the block executes, so its state root ' +
      'skips those trie walks; on machines with more than 2 cores it also walks the account-trie paths of a ' +
      "block's senders and recipients into its node cache for `tern-exec import` and newPayload; with 2 cores or " +
      'fewer that part is off, its CPU slowed import)',
    category: PERF,
    toml: 'Eth.NoPrefetch',
    implemented: true,
  },
  {
    name: 'cache.preimages',
    kind: 'bool',
    default: false,
    help: 'Record the keccak preimages of trie keys (address and storage slot of every account and non-zero slot a block writes), served by debug_preimage; always on with --gcmode archive, as in geth',
    category: PERF,
    toml: 'Eth.Preimages',
    implemented: true,
  },
  {
    name: 'cache.snapshot',
    kind: 'uint',
    max: 100,
    default: 10,
    defaultNote: '10 full; 20 archive',
    help:
      'Percentage of the cache allowance for snapshot caching: the accounts, storage and code the block importer ' +
      'keeps warm across blocks (a quarter, at most 64 MiB, for code)',
    category: PERF,
    toml: 'Tern.CacheSnapshot',
    implemented: true,
  },
  {
    name: 'cache.trie',
    kind: 'uint',
    max: 100,
    default: 15,
    defaultNote: '15 full; 30 archive',
    help:
      'Percentage of the cache allowance for trie caching: the LRU cache of trie nodes read from the database, ' +
      "kept by the trie hasher that computes each block's state root",
    category: PERF,
    toml: 'Tern.CacheTrie',
    implemented: true,
  },
  {
    name: 'crypto.kzg',
    kind: 'enum',
    values: ['gokzg', 'ckzg'],
    default: 'gokzg',
    help: 'KZG library implementation (gokzg recommended). tern has one: the c-kzg binding; ckzg is checked to load at startup, gokzg maps to c-kzg (same functions and results)',
    category: PERF,
    toml: 'Tern.CryptoKZG',
    implemented: true,
  },
  {
    name: 'fdlimit',
    kind: 'uint',
    defaultNote: 'system fd limit',
    help:
      'Raise the open file descriptor limit to this value (capped at the hard limit, with a warning; by default ' +
      'raised to the hard limit)',
    category: PERF,
    toml: 'Tern.FDLimit',
    implemented: true,
  },
];
