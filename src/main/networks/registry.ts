// The superchain-registry data tern bundles (data/, written by scripts/gen-networks.mjs from the registry at commit
// cf79287da3bf176509f740786cafca06106eb72e): every chain's TOML and its superchain's TOML as parsed values, and each
// chain's genesis file. This module only reads the bundle; rollupConfig.ts and chainConfig.ts turn it into what
// op-node and op-geth build from it. A network's name is op-node's `<toml stem>-<superchain dir>`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TernError } from '../common/errors.js';
import { projectRoot } from '../common/paths.js';

export type HardforkKey =
  | 'canyon_time'
  | 'delta_time'
  | 'ecotone_time'
  | 'fjord_time'
  | 'granite_time'
  | 'holocene_time'
  | 'pectra_blob_schedule_time'
  | 'isthmus_time'
  | 'jovian_time'
  | 'interop_time';

/** A chain TOML (superchain/configs/<superchain>/<chain>.toml), the fields tern reads. */
export interface RegistryChainToml {
  readonly name: string;
  readonly chain_id: number;
  readonly batch_inbox_addr: string;
  readonly block_time: number;
  readonly seq_window_size: number;
  readonly max_sequencer_drift: number;
  readonly superchain_time?: number;
  readonly data_availability_type?: string;
  readonly hardforks: Readonly<Partial<Record<HardforkKey, number>>>;
  readonly optimism: {
    readonly eip1559_elasticity: number;
    readonly eip1559_denominator: number;
    readonly eip1559_denominator_canyon?: number;
  };
  readonly alt_da?: {
    readonly da_challenge_contract_address: string;
    readonly da_challenge_window: number;
    readonly da_resolve_window: number;
    readonly da_commitment_type: string;
  };
  readonly interop?: { readonly dependencies?: Readonly<Record<string, unknown>> };
  readonly genesis: {
    readonly l2_time: number;
    readonly l1: { readonly hash: string; readonly number: number };
    readonly l2: { readonly hash: string; readonly number: number };
    readonly system_config: {
      readonly batcherAddress: string;
      readonly overhead: string;
      readonly scalar: string;
      readonly gasLimit: number;
    };
  };
  readonly addresses: Readonly<Record<string, string>>;
  readonly roles?: Readonly<Record<string, string>>;
}

/** A superchain TOML (superchain/configs/<superchain>/superchain.toml). */
export interface RegistrySuperchainToml {
  readonly name: string;
  readonly protocol_versions_addr?: string;
  readonly superchain_config_addr?: string;
  readonly hardforks: Readonly<Partial<Record<HardforkKey, number>>>;
  readonly l1: { readonly chain_id: number };
}

export interface RegistryNetwork {
  readonly name: string;
  readonly chain: RegistryChainToml;
  readonly superchainName: string;
  readonly superchain: RegistrySuperchainToml;
}

interface Bundle {
  superchains: Record<string, RegistrySuperchainToml>;
  chains: Record<string, { superchain: string; config: RegistryChainToml }>;
}

const dataFile = (...parts: string[]) => join(projectRoot(), 'src', 'main', 'networks', 'data', ...parts);

let bundle: Bundle | undefined;
function load(): Bundle {
  bundle ??= JSON.parse(readFileSync(dataFile('chains.json'), 'utf8')) as Bundle;
  return bundle;
}

/** Every bundled network name, sorted. */
export function registryNetworkNames(): string[] {
  return Object.keys(load().chains).sort();
}

/** A bundled network, or undefined for a name the registry does not have. */
export function registryNetwork(name: string): RegistryNetwork | undefined {
  const b = load();
  const entry = Object.hasOwn(b.chains, name) ? b.chains[name] : undefined;
  if (entry === undefined) return undefined;
  const superchain = b.superchains[entry.superchain];
  if (superchain === undefined) throw new TernError('NETWORK_BUNDLE', `bundled ${name} names a missing superchain`);
  return { name, chain: entry.config, superchainName: entry.superchain, superchain };
}

/** The bundled network of an L2 chain id, or undefined. */
export function registryNetworkByChainId(chainId: bigint): RegistryNetwork | undefined {
  for (const [name, entry] of Object.entries(load().chains)) {
    if (BigInt(entry.config.chain_id) === chainId) return registryNetwork(name);
  }
  return undefined;
}

/** A bundled network or a clear error naming the valid choice. */
export function requireRegistryNetwork(name: string): RegistryNetwork {
  const n = registryNetwork(name);
  if (n === undefined) {
    throw new TernError(
      'ROLLUP_CONFIG',
      `unknown network ${JSON.stringify(name)}: the bundled superchain-registry has ${registryNetworkNames().length} networks ` +
        '(see --help); pass a rollup.json with --rollup.config for any other chain',
      { severity: 'critical' },
    );
  }
  return n;
}

let codes: Record<string, string> | undefined;
const CODE_REF = /"@([0-9a-f]{64})"/g;

function slimGenesis(name: string): string {
  requireRegistryNetwork(name);
  return gunzipSync(readFileSync(dataFile('genesis', `${name}.json.gz`))).toString('utf8');
}

/** The registry's genesis file of a network, byte for byte (the bundle keeps each contract code once, by hash). */
export function registryGenesisText(name: string): string {
  const slim = slimGenesis(name);
  codes ??= JSON.parse(gunzipSync(readFileSync(dataFile('codes.json.gz'))).toString('utf8')) as Record<string, string>;
  const table = codes;
  return slim.replace(CODE_REF, (_, hash: string) => {
    const code = table[hash];
    if (code === undefined)
      throw new TernError('NETWORK_BUNDLE', `bundled ${name} genesis names a missing code ${hash}`);
    return `"${code}"`;
  });
}

/** The registry's genesis document (geth genesis.json shape, `config` null: the chain config comes from the TOML). */
export function registryGenesisDoc(name: string): Record<string, unknown> {
  return JSON.parse(registryGenesisText(name)) as Record<string, unknown>;
}

/**
 * The genesis state root of a chain that starts from a migrated database (its registry genesis gives `stateHash`
 * instead of the allocations, e.g. op-mainnet), or undefined when the allocations are bundled.
 */
export function migratedStateHash(name: string): string | undefined {
  // Only the top level of a genesis file has a "stateHash" key (alloc keys are addresses and storage slots).
  return /"stateHash"\s*:\s*"(0x[0-9a-fA-F]{64})"/.exec(slimGenesis(name))?.[1];
}
