// Checks made when tern-exec opens its database with the storage flags: --state.scheme against the scheme the
// database was created with (geth's rawdb.ParseStateScheme), and --history.chain against what the chain and the
// database allow (geth's history.NewPolicy and BlockChain.initializeHistoryPruning).
//
// tern has one state layout whichever name is given: trie nodes stored by hash (the hash scheme's node table) beside
// a flat state keyed by address (what the path scheme's snapshot gives geth). The name decides how old state is
// pruned (options.ts stateRetention): `hash` follows --gcmode (full keeps 128 recent states, archive all), `path`
// follows --history.state. The name is recorded at creation and a different one is refused later, as geth does.

import type { KVStore } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { MetaKey, metaKey } from '../db/schema.js';
import type { ChainHistoryMode, StateScheme } from './options.js';

export const HistoryErrorCode = {
  /** --state.scheme differs from the scheme recorded in the database. */
  schemeMismatch: 'STATE_SCHEME_MISMATCH',
  /** --history.chain=postmerge cannot be honoured for this chain or database. */
  historyUnavailable: 'HISTORY_PRUNING_UNAVAILABLE',
} as const;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function readStateScheme(kv: KVStore): StateScheme | undefined {
  const v = kv.get(metaKey(MetaKey.stateScheme));
  const s = v === undefined ? undefined : fromUtf8.decode(v);
  return s === 'hash' || s === 'path' ? s : undefined;
}

/**
 * The scheme to run with: the given one (recorded when the database has none yet), or the database's, or path for
 * a database without one (geth's default). A given scheme that differs from the recorded one is refused.
 */
export async function resolveStateScheme(kv: KVStore, provided: StateScheme | undefined): Promise<StateScheme> {
  const stored = readStateScheme(kv);
  if (provided !== undefined && stored !== undefined && provided !== stored)
    throw new TernError(
      HistoryErrorCode.schemeMismatch,
      `incompatible state scheme, stored: ${stored}, provided: ${provided} (the database was created with ` +
        `--state.scheme=${stored}; run with that, or use a fresh --datadir)`,
    );
  const scheme = provided ?? stored ?? 'path';
  if (stored === undefined) {
    const b = kv.batch();
    b.put(metaKey(MetaKey.stateScheme), utf8.encode(scheme));
    await b.commit();
  }
  return scheme;
}

/** Networks for which geth has a static postmerge prune point, by genesis hash. */
const POSTMERGE_NETWORKS: Record<string, string> = {
  '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3': 'mainnet',
  '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9': 'sepolia',
};

/** True when the chain has no proof-of-work prefix: merged at genesis, or an OP chain born at Bedrock. */
export function mergedAtGenesis(config: ChainConfig): boolean {
  if (config.terminalTotalDifficulty === 0n) return true;
  if (config.optimism !== undefined) return (config.blocks.bedrockBlock ?? 0n) === 0n;
  return false;
}

/**
 * The first block whose history is kept under `mode` (for every chain tern accepts it is block 0), or
 * HISTORY_PRUNING_UNAVAILABLE. A chain merged at genesis has no pre-merge history, so postmerge keeps all of it.
 * Mainnet and sepolia have pre-merge blocks; geth drops them with its prune-history command or by starting its
 * sync at the merge, and tern has neither, so it refuses rather than keep history the operator asked to drop.
 * Other chains with a proof-of-work prefix are refused as geth refuses them (no known prune point).
 */
export function historyCutoff(mode: ChainHistoryMode, genesisHash: string, config: ChainConfig): number {
  if (mode === 'all' || mergedAtGenesis(config)) return 0;
  const network = POSTMERGE_NETWORKS[genesisHash.toLowerCase()];
  throw new TernError(
    HistoryErrorCode.historyUnavailable,
    network === undefined
      ? `postmerge history pruning not available for network ${genesisHash}: run with --history.chain=all`
      : `--history.chain=postmerge on ${network} needs pre-merge blocks pruned, which tern cannot do ` +
          '(no prune-history command, no sync from the merge): run with --history.chain=all',
  );
}
