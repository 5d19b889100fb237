import { describe, expect, it } from 'vitest';
import { DerivationPipeline, type PipelineOptions } from '../../../../../src/main/node/derive/pipeline.js';
import { type L2BlockRef, toHex } from '../../../../../src/main/node/derive/types.js';
import { parseDependencySet } from '../../../../../src/main/node/interop/dependencySet.js';
import { parseRollupConfig, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { decodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { FakeL1, FakeL2, l2Hash } from './l1Fake.js';

function setup(holocene?: number, extra: { forks?: Record<string, number>; l1Blocks?: number } & PipelineOptions = {}) {
  const { forks, l1Blocks, ...opts } = extra;
  const l1 = new FakeL1(100, 1_000_000);
  for (let i = 0; i < (l1Blocks ?? 4); i++) l1.add();
  const cfg: RollupConfig = parseRollupConfig({
    genesis: {
      l1: { hash: l1.block(100).ref.hash, number: 100 },
      l2: { hash: l2Hash(0, 1_000_000), number: 0 },
      l2_time: 1_000_000,
      system_config: {
        batcherAddr: `0x${'bb'.repeat(20)}`,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x${'00'.repeat(31)}01`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 10,
    channel_timeout: 30,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    fjord_time: 0,
    ...(holocene === undefined ? {} : { granite_time: 0, holocene_time: holocene }),
    ...forks,
    batch_inbox_address: `0x${'ff'.repeat(20)}`,
    deposit_contract_address: `0x${'dd'.repeat(20)}`,
    l1_system_config_address: `0x${'5c'.repeat(20)}`,
  });
  const l2 = new FakeL2(cfg);
  return { cfg, l1, l2, p: new DerivationPipeline(cfg, { l1, l2 }, opts) };
}

describe('derivation pipeline: reset and stepping', () => {
  it('starts at the genesis L1 block from the genesis L2 block, with the genesis system config', async () => {
    const { l1, l2, p } = setup();
    await p.reset(l2.head);
    expect(p.origin()).toEqual(l1.block(100).ref);
    expect(p.traversal.systemConfig().batcherAddr).toBe(`0x${'bb'.repeat(20)}`);
    // No batches anywhere: the origin moves block by block, then L1 runs out.
    const kinds: string[] = [];
    for (let i = 0; i < 10; i++) kinds.push((await p.step(l2.head)).kind);
    expect(kinds).toEqual(['progress', 'progress', 'progress', 'eof', 'eof', 'eof', 'eof', 'eof', 'eof', 'eof']);
    expect(p.origin()).toEqual(l1.block(103).ref);
  });

  it('an unavailable L2 parent during the walk back is a reset error', async () => {
    const { l1, l2, p } = setup();
    const orphan: L2BlockRef = {
      hash: `0x${'0e'.repeat(32)}`,
      number: 5,
      parentHash: `0x${'0f'.repeat(32)}`,
      timestamp: 1_000_010,
      l1origin: { hash: l1.block(101).ref.hash, number: 101 },
      sequenceNumber: 0,
    };
    await expect(p.reset(orphan)).rejects.toMatchObject({ code: 'DERIVE_RESET_L2', severity: 'reset' });
    await expect(p.step(l2.head)).rejects.toMatchObject({ code: 'DERIVE_NOT_RESET' });
  });

  it('an unavailable system config is a temporary error; an unknown L1 origin is the L1 source temporary error', async () => {
    const { l2, p } = setup();
    l2.systemConfigByL2Hash = async () => {
      throw new Error('engine down');
    };
    await expect(p.reset(l2.head)).rejects.toMatchObject({ code: 'DERIVE_RESET_SYSCFG', severity: 'temporary' });
    const b = setup();
    const head = { ...b.l2.head, l1origin: { hash: `0x${'77'.repeat(32)}`, number: 100 } };
    await expect(b.p.reset(head)).rejects.toMatchObject({ code: 'L1_NOT_FOUND', severity: 'temporary' });
  });

  it('switches to the Holocene stages when the L1 origin crosses the activation time', async () => {
    const { l1, l2, p } = setup(l1Time(102));
    await p.reset(l2.head);
    expect(p.batches.holocene).toBe(false);
    await p.step(l2.head); // -> 101
    expect(p.batches.holocene).toBe(false);
    await p.step(l2.head); // -> 102
    expect(p.origin()).toEqual(l1.block(102).ref);
    expect(p.batches.holocene).toBe(true);
    // A reset to a base past the activation starts with the Holocene stages.
    const q = setup(l1Time(100));
    await q.p.reset(q.l2.head);
    expect(q.p.batches.holocene).toBe(true);
  });
});

describe('derivation pipeline: the interop activation block', () => {
  // No batches: once the sequencing window of epoch 100 has passed, derivation fills it with deposit-only blocks.
  // Interop activates at L2 block 2 (time 1_000_004).
  async function upgradeSources(opts: PipelineOptions): Promise<string[][]> {
    const { l2, p } = setup(undefined, { forks: { interop_time: 1_000_004 }, l1Blocks: 14, ...opts });
    await p.reset(l2.head);
    for (let i = 0; i < 100 && l2.head.number < 4; i++) {
      const r = await p.step(l2.head);
      if (r.kind === 'attributes') l2.accept(r.attributes);
    }
    expect(l2.head.number).toBe(4);
    return l2.blocks.slice(1).map((b) => b.transactions.slice(1).map((t) => toHex(decodeDepositTx(t).sourceHash)));
  }
  const messenger = [
    '0xf5484697c7a9a791db32a3bf0763bf2ba686c77ae7d4c0a5ee8c222a92a8dcc2',
    '0xe54b4d06bbcc857f41ae00e89d820339ac5ce0034aac722c817b2873e03a7e68',
  ];
  const inbox = [
    '0x6e5e214f73143df8fe6f6054a3ed7eb472d373376458a9c8aecdf23475beb616',
    '0x88c6b48354c367125a59792a93a7b60ad7cd66e516157dbba16558c68a46d3cb',
  ];

  it('initializes the CrossL2Inbox after the messenger when the dependency set lists two chains', async () => {
    const dependencySet = parseDependencySet({ dependencies: { '901': { chainIndex: 0 }, '902': { chainIndex: 1 } } });
    expect(await upgradeSources({ dependencySet })).toEqual([[], [...messenger, ...inbox], [], []]);
  });

  it('deploys only the messenger for a set of this chain alone or without a set', async () => {
    const alone = parseDependencySet({ dependencies: { '901': { chainIndex: 0 } } });
    expect(await upgradeSources({ dependencySet: alone })).toEqual([[], messenger, [], []]);
    expect(await upgradeSources({})).toEqual([[], messenger, [], []]);
  });
});

function l1Time(n: number): number {
  return 1_000_000 + 12 * (n - 100);
}
