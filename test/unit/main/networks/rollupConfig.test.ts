// --network: the rollup config op-node builds from a registry chain, for every one of the 60 names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { NETWORK_NAMES } from '../../../../src/main/cli/networks.js';
import { knownL1ChainConfig } from '../../../../src/main/networks/l1ChainConfig.js';
import { requireRegistryNetwork } from '../../../../src/main/networks/registry.js';
import { loadNetworkRollupConfig, registryRollupJson } from '../../../../src/main/networks/rollupConfig.js';
import { rollupConfigToJson } from '../../../../src/main/primitives/rollup/config.js';
import { FIXTURES } from '../../../helpers/paths.js';

// biome-ignore lint/suspicious/noExplicitAny: TOML documents are untyped
type Toml = Record<string, any>;
const REGISTRY = join(FIXTURES, 'superchain-registry', 'configs');

function tomls(name: string): { chain: Toml; superchain: Toml } {
  const n = requireRegistryNetwork(name);
  const stem = name.slice(0, -(n.superchainName.length + 1));
  const read = (f: string) => parseToml(readFileSync(join(REGISTRY, n.superchainName, f), 'utf8')) as Toml;
  return { chain: read(`${stem}.toml`), superchain: read('superchain.toml') };
}

describe('--network rollup configs', () => {
  it('every name builds a valid rollup config whose values are the registry’s', () => {
    for (const name of NETWORK_NAMES) {
      const cfg = loadNetworkRollupConfig(name);
      const { chain, superchain } = tomls(name);
      expect(cfg.l2ChainId, name).toBe(BigInt(chain.chain_id));
      expect(cfg.l1ChainId, name).toBe(BigInt(superchain.l1.chain_id));
      // Both L1s are mainnet or Sepolia, whose fork schedules tern knows without --rollup.l1-chain-config.
      expect(knownL1ChainConfig(cfg.l1ChainId), name).toBeDefined();
      expect(cfg.blockTime, name).toBe(chain.block_time);
      expect(cfg.seqWindowSize, name).toBe(chain.seq_window_size);
      expect(cfg.maxSequencerDrift, name).toBe(chain.max_sequencer_drift);
      expect(cfg.channelTimeout, name).toBe(300);
      expect(cfg.batchInboxAddress, name).toBe(chain.batch_inbox_addr.toLowerCase());
      expect(cfg.depositContractAddress, name).toBe(chain.addresses.OptimismPortalProxy.toLowerCase());
      expect(cfg.l1SystemConfigAddress, name).toBe(chain.addresses.SystemConfigProxy.toLowerCase());
      expect(cfg.protocolVersionsAddress, name).toBe(superchain.protocol_versions_addr.toLowerCase());
      expect(cfg.superchainConfigAddress, name).toBe(superchain.superchain_config_addr.toLowerCase());
      expect(cfg.genesis.l1, name).toEqual({ hash: chain.genesis.l1.hash, number: chain.genesis.l1.number });
      expect(cfg.genesis.l2, name).toEqual({ hash: chain.genesis.l2.hash, number: chain.genesis.l2.number });
      expect(cfg.genesis.l2Time, name).toBe(chain.genesis.l2_time);
      const sc = chain.genesis.system_config;
      expect(cfg.genesis.systemConfig, name).toEqual({
        batcherAddr: sc.batcherAddress.toLowerCase(),
        overhead: sc.overhead,
        scalar: sc.scalar,
        gasLimit: BigInt(sc.gasLimit),
      });
      const forks: Record<string, number> = { regolith: 0 };
      for (const [k, v] of Object.entries(chain.hardforks as Record<string, number>)) {
        if (k === 'pectra_blob_schedule_time') expect(cfg.pectraBlobScheduleTime, name).toBe(v);
        else forks[k.replace(/_time$/, '')] = v;
      }
      if (chain.hardforks.pectra_blob_schedule_time === undefined) expect(cfg.pectraBlobScheduleTime).toBeUndefined();
      expect(cfg.forks, name).toEqual(forks);
      expect(cfg.chainOpConfig, name).toEqual({
        eip1559Elasticity: BigInt(chain.optimism.eip1559_elasticity),
        eip1559Denominator: BigInt(chain.optimism.eip1559_denominator),
        eip1559DenominatorCanyon: BigInt(chain.optimism.eip1559_denominator_canyon),
      });
      if (chain.alt_da === undefined) expect(cfg.altDa, name).toBeUndefined();
      else
        expect(cfg.altDa, name).toEqual({
          daChallengeContractAddress: chain.alt_da.da_challenge_contract_address.toLowerCase(),
          daCommitmentType: chain.alt_da.da_commitment_type,
          daChallengeWindow: chain.alt_da.da_challenge_window,
          daResolveWindow: chain.alt_da.da_resolve_window,
        });
    }
  });

  it('serves op-sepolia as op-node’s rollup.json has it', () => {
    expect(rollupConfigToJson(loadNetworkRollupConfig('op-sepolia'))).toMatchObject({
      genesis: {
        l1: { hash: '0x48f520cf4ddaf34c8336e6e490632ea3cf1e5e93b0b2bc6e917557e31845371b', number: 4071408 },
        l2: { hash: '0x102de6ffb001480cc9b8b548fd05c34cd4f46ae4aa91759393db90ea0409887d', number: 0 },
        l2_time: 1691802540,
        system_config: {
          batcherAddr: '0x8f23bb38f531600e5d8fddaaec41f13fab46e98c',
          overhead: '0x00000000000000000000000000000000000000000000000000000000000000bc',
          scalar: '0x00000000000000000000000000000000000000000000000000000000000a6fe0',
          gasLimit: 30000000,
        },
      },
      block_time: 2,
      max_sequencer_drift: 600,
      seq_window_size: 3600,
      channel_timeout: 300,
      l1_chain_id: 11155111,
      l2_chain_id: 11155420,
      regolith_time: 0,
      canyon_time: 1699981200,
      delta_time: 1703203200,
      ecotone_time: 1708534800,
      fjord_time: 1716998400,
      granite_time: 1723478400,
      holocene_time: 1732633200,
      pectra_blob_schedule_time: 1742486400,
      isthmus_time: 1744905600,
      batch_inbox_address: '0xff00000000000000000000000000000011155420',
      deposit_contract_address: '0x16fc5058f25648194471939df75cf27a2fdc48bc',
      l1_system_config_address: '0x034edd2a225f7f429a63e0f1d2084b9e0a93b538',
      protocol_versions_address: '0x79add5713b383daa0a138d3c4780c7a1804a8090',
      chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
  });

  it('carries alt-DA, interop and chain-specific parameters', () => {
    const redstone = loadNetworkRollupConfig('redstone-mainnet');
    expect(redstone.altDa).toEqual({
      daChallengeContractAddress: '0x97a2da87d3439b172e6dd027220e01c9cb565b80',
      daCommitmentType: 'KeccakCommitment',
      daChallengeWindow: 3600,
      daResolveWindow: 3600,
    });
    expect(loadNetworkRollupConfig('rehearsal-0-bn-0-rehearsal-0-bn').forks.interop).toBe(1749150000);
    expect(loadNetworkRollupConfig('unichain-mainnet').blockTime).toBe(1);
    const fraxtal = loadNetworkRollupConfig('fraxtal-mainnet');
    expect(fraxtal.forks.granite).toBe(1738958401);
    expect(fraxtal.forks.holocene).toBeUndefined();
    // OP Mainnet's rollup genesis is its Bedrock block.
    expect(registryRollupJson(requireRegistryNetwork('op-mainnet')).genesis).toMatchObject({
      l2: { hash: '0xdbf6a80fef073de06add9b0d14026d6e5a86c85f6d102c36d3d8e9cf89c2afd3', number: 105235063 },
    });
  });

  it('refuses a name outside the registry, naming --rollup.config', () => {
    expect(() => loadNetworkRollupConfig('op-goerli')).toThrow(/unknown network "op-goerli".*--rollup.config/);
  });
});
