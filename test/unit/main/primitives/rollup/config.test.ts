import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { resolveL1ChainConfig } from '../../../../../src/main/networks/l1ChainConfig.js';
import { loadNetworkRollupConfig } from '../../../../../src/main/networks/rollupConfig.js';
import {
  applyOverrides,
  channelTimeout,
  isActivationBlock,
  isEcotone,
  isFjord,
  maxChannelBankSize,
  maxRlpBytesPerChannel,
  maxSequencerDrift,
  parseRollupConfig,
  type RollupConfig,
  rollupConfigToJson,
} from '../../../../../src/main/primitives/rollup/config.js';
import {
  blobBaseFeeUpdateFraction,
  parseL1ChainConfig,
} from '../../../../../src/main/primitives/rollup/l1ChainConfig.js';
import { FIXTURES } from '../../../../helpers/paths.js';

// biome-ignore lint/suspicious/noExplicitAny: registry TOML read field by field
type Toml = Record<string, any>;

const H1 = `0x${'11'.repeat(32)}`;
const H2 = `0x${'22'.repeat(32)}`;

function base(): Record<string, unknown> {
  return {
    genesis: {
      l1: { hash: H1, number: 10 },
      l2: { hash: H2, number: 0 },
      l2_time: 1000,
      system_config: {
        batcherAddr: `0x${'aa'.repeat(20)}`,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x${'00'.repeat(31)}01`,
        gasLimit: 30000000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 100,
    fjord_time: 200,
    granite_time: 300,
    batch_inbox_address: `0x${'ff'.repeat(20)}`,
    deposit_contract_address: `0x${'dd'.repeat(20)}`,
    l1_system_config_address: `0x${'cc'.repeat(20)}`,
  };
}

const parseWith = (patch: Record<string, unknown>) => parseRollupConfig({ ...base(), ...patch });

describe('parseRollupConfig', () => {
  it('parses a complete rollup.json', () => {
    const cfg = parseWith({
      alt_da: { da_commitment_type: 'KeccakCommitment', da_challenge_window: 16, da_resolve_window: 16 },
      chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
      pectra_blob_schedule_time: 400,
    });
    expect(cfg.forks.ecotone).toBe(100);
    expect(cfg.l2ChainId).toBe(901n);
    expect(cfg.altDa?.daChallengeWindow).toBe(16);
    expect(cfg.chainOpConfig?.eip1559DenominatorCanyon).toBe(250n);
    expect(cfg.channelTimeoutGranite).toBe(50);
    expect(parseRollupConfig(rollupConfigToJson(cfg))).toEqual(cfg);
  });

  it.each([
    ['missing genesis', { genesis: undefined }, /genesis is missing/],
    ['fork out of order', { fjord_time: 50 }, /fjord.*ecotone activates later/],
    ['fork without predecessor', { delta_time: undefined }, /ecotone is set.*delta is missing/],
    ['bad address', { batch_inbox_address: '0x1234' }, /batch_inbox_address must be 20 bytes/],
    ['zero block time', { block_time: 0 }, /block_time cannot be 0/],
    ['same chain ids', { l2_chain_id: 900 }, /must be different/],
    ['unknown field', { bogus_time: 1 }, /unknown field.*bogus_time/],
    ['negative number', { seq_window_size: -1 }, /seq_window_size must be a non-negative integer/],
  ])('rejects %s', (_name, patch, msg) => {
    expect(() => parseWith(patch)).toThrow(msg);
  });

  it('rejects a missing genesis hash', () => {
    const b = base();
    (b.genesis as { l1: unknown }).l1 = { hash: `0x${'00'.repeat(32)}`, number: 1 };
    expect(() => parseRollupConfig(b)).toThrow(/genesis.l1.hash is missing/);
  });
});

describe('fork predicates and parameters', () => {
  const cfg = parseWith({});
  it('activates at the fork time', () => {
    expect(isEcotone(cfg, 99)).toBe(false);
    expect(isEcotone(cfg, 100)).toBe(true);
    expect(isFjord(cfg, 10_000)).toBe(true);
    expect(isActivationBlock(cfg, 'ecotone', 100)).toBe(true);
    expect(isActivationBlock(cfg, 'ecotone', 102)).toBe(false);
    expect(isActivationBlock(cfg, 'canyon', 0)).toBe(false); // genesis activation does not count
    expect(isActivationBlock(cfg, 'holocene', 1000)).toBe(false);
  });
  it('changes limits at Fjord and Granite', () => {
    expect(maxRlpBytesPerChannel(cfg, 199)).toBe(10_000_000);
    expect(maxRlpBytesPerChannel(cfg, 200)).toBe(100_000_000);
    expect(maxChannelBankSize(cfg, 199)).toBe(100_000_000);
    expect(maxChannelBankSize(cfg, 200)).toBe(1_000_000_000);
    expect(maxSequencerDrift(cfg, 199)).toBe(600);
    expect(maxSequencerDrift(cfg, 200)).toBe(1800);
    expect(channelTimeout(cfg, 299)).toBe(300);
    expect(channelTimeout(cfg, 300)).toBe(50);
  });
  it('applies overrides and checks the result', () => {
    const o = applyOverrides(cfg, { holocene: 500, pectrablobschedule: 450 });
    expect(o.forks.holocene).toBe(500);
    expect(o.pectraBlobScheduleTime).toBe(450);
    expect(cfg.forks.holocene).toBeUndefined();
    expect(() => applyOverrides(cfg, { granite: 150 })).toThrow(/granite/);
  });
});

describe('bundled networks', () => {
  it('op-sepolia matches the superchain registry', () => {
    const cfg: RollupConfig = loadNetworkRollupConfig('op-sepolia');
    const chain = parse(readFileSync(join(FIXTURES, 'superchain/op-sepolia.toml'), 'utf8')) as Toml;
    const sup = parse(readFileSync(join(FIXTURES, 'superchain/sepolia-superchain.toml'), 'utf8')) as Toml;
    expect(cfg.l2ChainId).toBe(BigInt(chain.chain_id));
    expect(cfg.l1ChainId).toBe(BigInt(sup.l1.chain_id));
    expect(cfg.blockTime).toBe(chain.block_time);
    expect(cfg.seqWindowSize).toBe(chain.seq_window_size);
    expect(cfg.maxSequencerDrift).toBe(chain.max_sequencer_drift);
    expect(cfg.batchInboxAddress).toBe(chain.batch_inbox_addr.toLowerCase());
    expect(cfg.depositContractAddress).toBe(chain.addresses.OptimismPortalProxy.toLowerCase());
    expect(cfg.l1SystemConfigAddress).toBe(chain.addresses.SystemConfigProxy.toLowerCase());
    expect(cfg.protocolVersionsAddress).toBe(sup.protocol_versions_addr.toLowerCase());
    expect(cfg.genesis.l1).toEqual({ hash: chain.genesis.l1.hash, number: chain.genesis.l1.number });
    expect(cfg.genesis.l2).toEqual({ hash: chain.genesis.l2.hash, number: chain.genesis.l2.number });
    expect(cfg.genesis.l2Time).toBe(chain.genesis.l2_time);
    const sc = chain.genesis.system_config;
    expect(cfg.genesis.systemConfig.batcherAddr).toBe(sc.batcherAddress.toLowerCase());
    expect(cfg.genesis.systemConfig.overhead).toBe(sc.overhead);
    expect(cfg.genesis.systemConfig.scalar).toBe(sc.scalar);
    expect(cfg.genesis.systemConfig.gasLimit).toBe(BigInt(sc.gasLimit));
    for (const [k, v] of Object.entries(chain.hardforks as Record<string, number>)) {
      const fork = k.replace(/_time$/, '');
      if (fork === 'pectra_blob_schedule') expect(cfg.pectraBlobScheduleTime).toBe(v);
      else expect(cfg.forks[fork as 'canyon']).toBe(v);
    }
    expect(cfg.chainOpConfig).toEqual({
      eip1559Elasticity: BigInt(chain.optimism.eip1559_elasticity),
      eip1559Denominator: BigInt(chain.optimism.eip1559_denominator),
      eip1559DenominatorCanyon: BigInt(chain.optimism.eip1559_denominator_canyon),
    });
  });
  it('names the way out for networks outside the registry', () => {
    expect(() => loadNetworkRollupConfig('base-mainnet-x')).toThrow(/unknown network.*--rollup.config/);
  });
});

describe('L1 chain config', () => {
  const chainConfig = {
    chainId: 900,
    cancunTime: 0,
    pragueTime: 100,
    osakaTime: 200,
    bpo1Time: 300,
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
    },
  };
  it('reads both shapes', () => {
    expect(parseL1ChainConfig({ config: chainConfig, alloc: {} })).toEqual(parseL1ChainConfig(chainConfig));
  });
  it('gives the blob base fee fraction per fork, with the Pectra blob schedule fix', () => {
    const l1 = parseL1ChainConfig(chainConfig);
    const rollup = parseWith({ pectra_blob_schedule_time: 150 });
    expect(blobBaseFeeUpdateFraction(l1, rollup, 50)).toBe(3338477n);
    expect(blobBaseFeeUpdateFraction(l1, rollup, 120)).toBe(3338477n); // fix pending: Cancun's
    expect(blobBaseFeeUpdateFraction(l1, rollup, 150)).toBe(5007716n);
    expect(blobBaseFeeUpdateFraction(l1, rollup, 300)).toBe(8346193n);
  });
  it('requires params for BPO forks and a matching chain id', () => {
    expect(() => parseL1ChainConfig({ ...chainConfig, blobSchedule: {} })).toThrow(/bpo1/);
    expect(() => parseL1ChainConfig({ chainId: 1, cancunTime: 10, pragueTime: 5 })).toThrow(/before cancun/);
    const rollup = parseWith({});
    expect(() => resolveL1ChainConfig(rollup)).toThrow(/--rollup.l1-chain-config/);
    expect(() => resolveL1ChainConfig(rollup, { ...chainConfig, chainId: 5 })).toThrow(/does not match/);
    expect(resolveL1ChainConfig(parseWith({ l1_chain_id: 11155111 })).times.prague).toBe(1741159776);
  });
  it('knows the public L1s’ schedules as geth v1.16 defines them', () => {
    expect(resolveL1ChainConfig(parseWith({ l1_chain_id: 1 }))).toEqual({
      chainId: 1n,
      times: { cancun: 1710338135, prague: 1746612311, osaka: 1764798551, bpo1: 1765290071, bpo2: 1767747671 },
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477n },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716n },
        osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716n },
        bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193n },
        bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671n },
      },
    });
    expect(resolveL1ChainConfig(parseWith({ l1_chain_id: 17000 })).times.osaka).toBe(1759308480);
    expect(resolveL1ChainConfig(parseWith({ l1_chain_id: 560048 })).times.cancun).toBe(0);
  });
});
