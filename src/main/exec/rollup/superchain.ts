// The superchain-registry networks as tern-exec uses them (--stack-network, --rollup.superchain-upgrades): the chain
// config op-geth derives from a registry chain (built from the same rollup config tern-node serves, by the one
// builder in primitives/rollup/opChainConfig.ts) and the genesis block (op-geth's LoadOPStackGenesis: the registry's
// genesis file with that chain config).
import { UsageError } from '../../common/errors.js';
import { registryGenesisDoc, registryNetwork, registryNetworkByChainId } from '../../networks/registry.js';
import { loadNetworkRollupConfig } from '../../networks/rollupConfig.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { chainConfigFromRollup } from '../../primitives/rollup/opChainConfig.js';
import { type Genesis, parseGenesis } from '../chain/genesis.js';

/** op-geth's LoadOPStackChainConfig for a bundled network. */
export function networkChainConfig(name: string): ChainConfig {
  return chainConfigFromRollup(loadNetworkRollupConfig(name));
}

/** The registry config of a chain id, for --rollup.superchain-upgrades; undefined for chains outside the registry. */
export function superchainConfigForChainId(chainId: bigint): ChainConfig | undefined {
  const n = registryNetworkByChainId(chainId);
  return n === undefined ? undefined : networkChainConfig(n.name);
}

/** The genesis block hash the registry records for a network (genesis.l2.hash). */
export function registryGenesisHash(name: string): string | undefined {
  return registryNetwork(name)?.chain.genesis.l2.hash;
}

/** What to do for a chain whose genesis is a migrated database (the registry holds only its state root). */
export function migratedDatabaseMessage(name: string, stateHash: string): string {
  const n = registryNetwork(name);
  const block = n?.chain.genesis.l2.number ?? 0;
  return (
    `--stack-network ${name} needs special sync: the chain starts from a migrated database (its genesis, block ${block}, ` +
    `${n?.chain.genesis.l2.hash ?? ''}, has state root ${stateHash} and the registry does not ship its allocations), ` +
    'so tern-exec cannot create it from the bundle. Start from a data directory that already holds the chain at ' +
    'that block: initialise one with `tern-exec init --datadir <dir> <genesis.json>` from a genesis file carrying ' +
    `the full state of that block (taken from a datadir snapshot of the chain), then run with --datadir <dir> --stack-network ${name}`
  );
}

/** op-geth's LoadOPStackGenesis: the bundled network's genesis with its registry chain config. */
export function loadNetworkGenesis(name: string): Genesis {
  const config = networkChainConfig(name);
  const doc = registryGenesisDoc(name);
  if (typeof doc.stateHash === 'string') throw new UsageError(migratedDatabaseMessage(name, doc.stateHash));
  return parseGenesis(doc, { config });
}
