// The chain configuration tern-exec runs with, settled before the node starts (op-geth's
// SetupGenesisBlockWithOverride): --stack-network and the L1 network flags (--mainnet ...) write the network's
// genesis into an empty database and check a non-empty one holds that genesis; --rollup.superchain-upgrades
// replaces the stored config of a known registry chain with the registry's; the --override.* flags go on top. The
// result replaces the stored config, unless it would change blocks already imported.
import { TernError, UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { L1_PRESETS, type L1Network } from '../../networks/l1.js';
import { migratedStateHash } from '../../networks/registry.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { type ChainConfig, isOptimism } from '../../primitives/chainConfig.js';
import { ChainStore } from '../chain/chainStore.js';
import type { Genesis } from '../chain/genesis.js';
import { loadL1Genesis } from '../chain/l1Genesis.js';
import { applyOverrides, assertCompatible, type ChainOverrides, hasOverrides } from '../chain/overrides.js';
import { writeChainConfig } from '../db/chain.js';
import type { Database } from '../db/open.js';
import {
  loadNetworkGenesis,
  migratedDatabaseMessage,
  networkChainConfig,
  registryGenesisHash,
  superchainConfigForChainId,
} from './superchain.js';

export interface ChainSetupOptions {
  /** --stack-network / --beta.stack-network */
  network?: string | undefined;
  /** --override.* given on the command line (op-geth applies an override only when its flag is set). */
  overrides: ChainOverrides;
  /** --rollup.superchain-upgrades */
  superchainUpgrades: boolean;
  /** --mainnet / --sepolia / --holesky / --hoodi */
  l1Network?: L1Network | undefined;
}

/** The registry config when superchain upgrades apply to this chain, else the config itself. */
function upgraded(config: ChainConfig, apply: boolean, logger: Logger): ChainConfig {
  if (!apply || !isOptimism(config)) return config;
  const registry = superchainConfigForChainId(config.chainId);
  if (registry === undefined) return config;
  logger.debug('Applying superchain-registry chain config', { chainId: config.chainId });
  return registry;
}

/** A network the command line names, whose genesis tern-exec writes itself (geth's SetupGenesisBlock). */
interface PresetGenesis {
  /** The flag as the operator typed it, for messages. */
  flag: string;
  network: string;
  genesis: Genesis;
  /** The hash the network's genesis block has (the registry's, or geth's for the L1s). */
  expectedHash: string | undefined;
}

/** Writes the preset's genesis into an empty database or checks a non-empty one holds it; true when written. */
async function settlePresetGenesis(store: ChainStore, p: PresetGenesis, overrides: ChainOverrides, logger: Logger) {
  const fresh = store.genesisHash() === undefined;
  let hash: Uint8Array;
  try {
    ({ hash } = await store.initGenesis(p.genesis));
  } catch (err) {
    if (err instanceof TernError && err.code === 'GENESIS_MISMATCH') {
      throw new UsageError(
        `${p.flag}: database contains incompatible genesis (have ${hex(store.genesisHash() ?? new Uint8Array())}); use another --datadir`,
      );
    }
    throw err;
  }
  // Overrides active at genesis change the genesis header, so only the unmodified genesis can be checked.
  if (!hasOverrides(overrides) && hex(hash) !== p.expectedHash) {
    throw new TernError(
      'GENESIS_MISMATCH',
      `bundled ${p.network} genesis hashes to ${hex(hash)}, the network's is ${p.expectedHash}`,
    );
  }
  if (fresh) logger.info('Wrote genesis block of bundled network', { network: p.network, hash: hex(hash) });
  return fresh;
}

/** Settles the chain config in `db` (see the module comment). Throws UsageError for what the operator must fix. */
export async function setupChainConfig(db: Database, opts: ChainSetupOptions, deps: { logger: Logger }): Promise<void> {
  const { logger } = deps;
  const store = new ChainStore(db);
  let next: ChainConfig | undefined;
  try {
    let preset: PresetGenesis | undefined;
    if (opts.l1Network !== undefined) {
      const genesis = loadL1Genesis(opts.l1Network);
      genesis.config = applyOverrides(genesis.config, opts.overrides);
      const expectedHash = L1_PRESETS[opts.l1Network].genesisHash;
      preset = { flag: `--${opts.l1Network}`, network: opts.l1Network, genesis, expectedHash };
    } else if (opts.network !== undefined) {
      const migrated = migratedStateHash(opts.network);
      if (migrated !== undefined) {
        // A migrated chain's database comes from elsewhere; once it is there, the registry config applies to it.
        if (store.genesisHash() === undefined) throw new UsageError(migratedDatabaseMessage(opts.network, migrated));
        next = applyOverrides(networkChainConfig(opts.network), opts.overrides);
      } else {
        const genesis = loadNetworkGenesis(opts.network);
        genesis.config = applyOverrides(upgraded(genesis.config, opts.superchainUpgrades, logger), opts.overrides);
        const expectedHash = registryGenesisHash(opts.network);
        preset = { flag: `--stack-network ${opts.network}`, network: opts.network, genesis, expectedHash };
      }
    }
    if (preset !== undefined) {
      if (await settlePresetGenesis(store, preset, opts.overrides, logger)) return;
      next = preset.genesis.config;
    }
    if (store.genesisHash() === undefined) return; // startExecNode names `init`
    const stored = store.config();
    next ??= applyOverrides(upgraded(stored, opts.superchainUpgrades, logger), opts.overrides);
    if (JSON.stringify(next.raw) === JSON.stringify(stored.raw)) return;
    const head = store.head();
    const genesisHeader = store.headerByNumber(0n) ?? store.headerByHash(store.genesisHash() as Uint8Array);
    assertCompatible(stored, next, { number: head.number, time: head.header.timestamp }, genesisHeader?.timestamp);
    logger.info('Chain configs differ, overwriting stored config with new config', {
      overrides: hasOverrides(opts.overrides) ? Object.keys(opts.overrides).join(',') : 'none',
    });
    const b = db.kv.batch();
    writeChainConfig(b, JSON.stringify(next.raw));
    await b.commit();
  } catch (err) {
    if (err instanceof TernError && (err.code === 'CHAIN_CONFIG' || err.code === 'CHAIN_CONFIG_INCOMPATIBLE'))
      throw new UsageError(err.message);
    throw err;
  }
}
