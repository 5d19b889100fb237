// The rollup config of a bundled network, built from its chain TOML and its superchain TOML the way op-node's
// LoadOPStackRollupConfig does: Regolith at genesis for every registry chain, the Bedrock channel timeout (300) as a
// protocol constant, the L1 chain id and the protocol-versions / superchain-config addresses from the superchain,
// the portal and system config from the chain's addresses, every hardfork time as the chain TOML gives it (the
// registry's tooling has already copied the superchain's default activations into each chain TOML that follows
// them, from its superchain_time on), alt-DA and the EIP-1559 parameters (chain_op_config). The interop dependency
// set is not part of op-node's rollup config (the supervisor reads it), so only interop_time is carried over.
import { TernError } from '../common/errors.js';
import { parseRollupConfig, type RollupConfig } from '../primitives/rollup/config.js';
import { type HardforkKey, type RegistryNetwork, requireRegistryNetwork } from './registry.js';

/** op-node's ChannelTimeoutBedrock for every registry chain. */
const CHANNEL_TIMEOUT_BEDROCK = 300;

/** Hardfork times a chain TOML may carry, in the rollup.json key they become (the same name). */
const HARDFORK_KEYS: readonly HardforkKey[] = [
  'canyon_time',
  'delta_time',
  'ecotone_time',
  'fjord_time',
  'granite_time',
  'holocene_time',
  'pectra_blob_schedule_time',
  'isthmus_time',
  'jovian_time',
  'interop_time',
];

const lower = (a: string) => a.toLowerCase();

function required(n: RegistryNetwork, value: string | undefined, what: string): string {
  if (value === undefined) throw new TernError('NETWORK_BUNDLE', `bundled ${n.name} has no ${what}`);
  return lower(value);
}

/** The rollup.json op-node builds for a registry network. */
export function registryRollupJson(n: RegistryNetwork): Record<string, unknown> {
  const c = n.chain;
  const sc = c.genesis.system_config;
  const out: Record<string, unknown> = {
    genesis: {
      l1: { hash: c.genesis.l1.hash, number: c.genesis.l1.number },
      l2: { hash: c.genesis.l2.hash, number: c.genesis.l2.number },
      l2_time: c.genesis.l2_time,
      system_config: {
        batcherAddr: lower(sc.batcherAddress),
        overhead: sc.overhead,
        scalar: sc.scalar,
        gasLimit: sc.gasLimit,
      },
    },
    block_time: c.block_time,
    max_sequencer_drift: c.max_sequencer_drift,
    seq_window_size: c.seq_window_size,
    channel_timeout: CHANNEL_TIMEOUT_BEDROCK,
    l1_chain_id: n.superchain.l1.chain_id,
    l2_chain_id: c.chain_id,
    regolith_time: 0,
  };
  for (const k of HARDFORK_KEYS) {
    const t = c.hardforks[k];
    if (t !== undefined) out[k] = t;
  }
  out.batch_inbox_address = lower(c.batch_inbox_addr);
  out.deposit_contract_address = required(n, c.addresses.OptimismPortalProxy, 'OptimismPortalProxy address');
  out.l1_system_config_address = required(n, c.addresses.SystemConfigProxy, 'SystemConfigProxy address');
  if (n.superchain.protocol_versions_addr !== undefined) {
    out.protocol_versions_address = lower(n.superchain.protocol_versions_addr);
  }
  if (n.superchain.superchain_config_addr !== undefined) {
    out.superchain_config_address = lower(n.superchain.superchain_config_addr);
  }
  if (c.alt_da !== undefined) {
    out.alt_da = {
      da_commitment_type: c.alt_da.da_commitment_type,
      da_challenge_contract_address: lower(c.alt_da.da_challenge_contract_address),
      da_challenge_window: c.alt_da.da_challenge_window,
      da_resolve_window: c.alt_da.da_resolve_window,
    };
  }
  out.chain_op_config = {
    eip1559Elasticity: c.optimism.eip1559_elasticity,
    eip1559Denominator: c.optimism.eip1559_denominator,
    ...(c.optimism.eip1559_denominator_canyon !== undefined
      ? { eip1559DenominatorCanyon: c.optimism.eip1559_denominator_canyon }
      : {}),
  };
  return out;
}

/** The rollup config of a bundled network (--network); an unknown name is a clear usage error. */
export function loadNetworkRollupConfig(name: string): RollupConfig {
  return parseRollupConfig(registryRollupJson(requireRegistryNetwork(name)));
}
