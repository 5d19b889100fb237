// The chain configuration tern-exec runs with, settled before the node starts (op-geth's
// SetupGenesisBlockWithOverride): --stack-network writes a bundled network's genesis into an empty database and
// checks a non-empty one holds that genesis; --rollup.superchain-upgrades replaces the stored config of a known
// registry chain with the registry's; the --override.* flags go on top. The result replaces the stored config,
// unless it would change blocks already imported.
import type { Settings } from '../../cli/parse.js';
import { TernError, UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { type ChainConfig, isOptimism } from '../../primitives/chainConfig.js';
import { ChainStore } from '../chain/chainStore.js';
import {
  applyOverrides,
  assertCompatible,
  type ChainOverrides,
  hasOverrides,
  OVERRIDE_FORKS,
} from '../chain/overrides.js';
import { writeChainConfig } from '../db/chain.js';
import type { Database } from '../db/open.js';
import {
  BUNDLED_EXEC_NETWORKS,
  loadNetworkGenesis,
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
}

export function chainSetupOptions(settings: Settings): ChainSetupOptions {
  const overrides: ChainOverrides = {};
  for (const fork of OVERRIDE_FORKS) {
    const name = `override.${fork}`;
    if (settings.source(name) !== 'default') overrides[fork] = BigInt(settings.get<number>(name));
  }
  return {
    network: settings.get<string | undefined>('stack-network'),
    overrides,
    superchainUpgrades: settings.get<boolean>('rollup.superchain-upgrades'),
  };
}

export function notBundledMessage(network: string): string {
  return (
    `--stack-network ${network}: tern-exec does not bundle this network's genesis (bundled: ${BUNDLED_EXEC_NETWORKS.join(', ')}); ` +
    'initialise the data directory with `tern-exec init --datadir <dir> <genesis.json>` using the chain’s genesis file, ' +
    'then start without --stack-network'
  );
}

/** The registry config when superchain upgrades apply to this chain, else the config itself. */
function upgraded(config: ChainConfig, apply: boolean, logger: Logger): ChainConfig {
  if (!apply || !isOptimism(config)) return config;
  const registry = superchainConfigForChainId(config.chainId);
  if (registry === undefined) return config;
  logger.debug('Applying superchain-registry chain config', { chainId: config.chainId });
  return registry;
}

/** Settles the chain config in `db` (see the module comment). Throws UsageError for what the operator must fix. */
export async function setupChainConfig(db: Database, opts: ChainSetupOptions, deps: { logger: Logger }): Promise<void> {
  const { logger } = deps;
  const store = new ChainStore(db);
  let next: ChainConfig | undefined;
  try {
    if (opts.network !== undefined) {
      if (!BUNDLED_EXEC_NETWORKS.includes(opts.network)) throw new UsageError(notBundledMessage(opts.network));
      const genesis = loadNetworkGenesis(opts.network);
      genesis.config = applyOverrides(upgraded(genesis.config, opts.superchainUpgrades, logger), opts.overrides);
      const fresh = store.genesisHash() === undefined;
      let hash: Uint8Array;
      try {
        ({ hash } = await store.initGenesis(genesis));
      } catch (err) {
        if (err instanceof TernError && err.code === 'GENESIS_MISMATCH') {
          throw new UsageError(
            `--stack-network ${opts.network}: database contains incompatible genesis (have ${hex(store.genesisHash() ?? new Uint8Array())}); use another --datadir`,
          );
        }
        throw err;
      }
      // Overrides active at genesis change the genesis header, so only the unmodified genesis can be checked.
      if (!hasOverrides(opts.overrides) && hex(hash) !== registryGenesisHash(opts.network)) {
        throw new TernError(
          'GENESIS_MISMATCH',
          `bundled ${opts.network} genesis hashes to ${hex(hash)}, the registry says ${registryGenesisHash(opts.network)}`,
        );
      }
      if (fresh) {
        logger.info('Wrote genesis block of bundled network', { network: opts.network, hash: hex(hash) });
        return;
      }
      next = genesis.config;
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
