import { describe, expect, it } from 'vitest';
import type { TernError } from '../../../../../src/main/common/errors.js';
import { L1Traversal } from '../../../../../src/main/node/derive/l1Traversal.js';
import { systemConfigFromGenesis } from '../../../../../src/main/node/derive/systemConfig.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { configUpdateLog, testRollupConfig, word } from './fixtures.js';
import { FakeL1 } from './l1Fake.js';

const cfg = testRollupConfig({ ecotone_time: 0 });
const genesisSc = () => systemConfigFromGenesis(cfg.genesis.systemConfig);
const newBatcher = `0x${'ab'.repeat(20)}`;

function setup(n = 4) {
  const l1 = new FakeL1(100, 1_000_000);
  for (let i = 0; i < n; i++) l1.add();
  const t = new L1Traversal(cfg, l1);
  t.reset(l1.block(100).ref, genesisSc());
  return { l1, t };
}

describe('L1 traversal', () => {
  it('is unusable before a reset', async () => {
    const t = new L1Traversal(cfg, new FakeL1(100, 0));
    expect(t.origin()).toBeUndefined();
    expect(t.nextL1Block()).toBeUndefined();
    await expect(t.advanceOrigin()).rejects.toMatchObject({ code: 'DERIVE_NOT_RESET', severity: 'reset' });
  });

  it('yields the current block exactly once, then the next one after advancing', async () => {
    const { l1, t } = setup();
    expect(t.nextL1Block()).toEqual(l1.block(100).ref);
    expect(t.nextL1Block()).toBeUndefined();
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()).toEqual(l1.block(101).ref);
    expect(t.nextL1Block()).toEqual(l1.block(101).ref);
    expect(t.nextL1Block()).toBeUndefined();
    // Advancing reads the next block by number and its receipts (for system config updates).
    expect(l1.calls).toEqual(['byNumber:101', `receipts:${l1.block(101).ref.hash}`]);
  });

  it('reports "not yet" at the head of L1 without moving', async () => {
    const { l1, t } = setup(2);
    expect(await t.advanceOrigin()).toBe(true);
    expect(await t.advanceOrigin()).toBe(false);
    expect(t.origin()).toEqual(l1.block(101).ref);
    l1.add();
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()?.number).toBe(102);
  });

  it('passes other L1 errors through unchanged (temporary), without moving', async () => {
    const { l1, t } = setup(3);
    l1.blockRefByNumber = async () => {
      throw Object.assign(new Error('boom'), { code: 'L1_RPC', severity: 'temporary' });
    };
    await expect(t.advanceOrigin()).rejects.toMatchObject({ code: 'L1_RPC', severity: 'temporary' });
    expect(t.origin()?.number).toBe(100);
  });

  it('detects an L1 reorg (next block does not build on the origin) with a reset error', async () => {
    const { l1, t } = setup(3);
    await t.advanceOrigin();
    // Blocks above the origin changing is no reorg for traversal: the new 102 still builds on 101.
    l1.reorgFrom(102);
    const b102 = l1.add();
    l1.add();
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()).toEqual(b102.ref);
    // The origin itself replaced: the new 103 builds on a new 102.
    l1.reorgFrom(102);
    l1.add();
    l1.add();
    const err = (await t.advanceOrigin().catch((e: unknown) => e)) as TernError;
    expect(err.code).toBe('L1_REORG');
    expect(err.severity).toBe('reset');
    expect(t.origin()).toEqual(b102.ref);
  });

  it('applies system config updates of the new block when it advances there, not before', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add();
    l1.add();
    l1.add({
      logs: [configUpdateLog(0, `${'00'.repeat(12)}${newBatcher.slice(2)}`), configUpdateLog(2, word(45_000_000))],
      failedLogs: [configUpdateLog(2, word(99_000_000))],
    });
    // A ConfigUpdate from another contract is ignored.
    l1.add({ logs: [configUpdateLog(2, word(1), { address: `0x${'01'.repeat(20)}` })] });
    const t = new L1Traversal(cfg, l1);
    const start = genesisSc();
    t.reset(l1.block(100).ref, start);
    await t.advanceOrigin();
    expect(t.systemConfig().batcherAddr).toBe(cfg.genesis.systemConfig.batcherAddr.toLowerCase());
    const before = t.systemConfig();
    await t.advanceOrigin();
    expect(t.systemConfig().batcherAddr).toBe(newBatcher);
    expect(t.systemConfig().gasLimit).toBe(45_000_000n);
    // The config of the earlier origin (and the one passed to reset) is not mutated.
    expect(before.gasLimit).toBe(30_000_000n);
    expect(start.batcherAddr).toBe(cfg.genesis.systemConfig.batcherAddr.toLowerCase());
    await t.advanceOrigin();
    expect(t.systemConfig().gasLimit).toBe(45_000_000n);
  });

  it('does not move (nor change the config) when the receipts cannot be fetched', async () => {
    const { l1, t } = setup(3);
    l1.fetchReceipts = async () => {
      throw Object.assign(new Error('down'), { code: 'L1_RPC', severity: 'temporary' });
    };
    await expect(t.advanceOrigin()).rejects.toMatchObject({ severity: 'temporary' });
    expect(t.origin()?.number).toBe(100);
    expect(t.nextL1Block()?.number).toBe(100);
  });

  it('stops with a critical error on a malformed ConfigUpdate log', async () => {
    const l1 = new FakeL1(100, 1_000_000);
    l1.add();
    l1.add({ logs: [configUpdateLog(2, word(1), { len: 31 })] });
    const t = new L1Traversal(cfg, l1);
    t.reset(l1.block(100).ref, genesisSc());
    await expect(t.advanceOrigin()).rejects.toMatchObject({ severity: 'critical' });
  });

  it('reset starts over at the base with its config and yields the base again', async () => {
    const { l1, t } = setup(4);
    await t.advanceOrigin();
    await t.advanceOrigin();
    const sc = genesisSc();
    sc.batcherAddr = newBatcher;
    t.reset(l1.block(101).ref, sc);
    expect(t.origin()).toEqual(l1.block(101).ref);
    expect(t.systemConfig().batcherAddr).toBe(newBatcher);
    expect(t.nextL1Block()).toEqual(l1.block(101).ref);
    expect(toHex(t.systemConfig().overhead)).toBe(toHex(sc.overhead));
  });
});

describe('L1 traversal, managed mode (interop: the supervisor hands over L1 blocks)', () => {
  function managed(n = 4) {
    const l1 = new FakeL1(100, 1_000_000);
    for (let i = 0; i < n; i++) l1.add();
    const t = new L1Traversal(cfg, l1, {}, true);
    t.reset(l1.block(100).ref, genesisSc());
    return { l1, t };
  }

  it('never looks for the next L1 block itself: without a provided block it stays, however far L1 is', async () => {
    const { l1, t } = managed(4);
    expect(t.nextL1Block()).toEqual(l1.block(100).ref);
    expect(await t.advanceOrigin()).toBe(false);
    expect(await t.advanceOrigin()).toBe(false);
    expect(t.origin()).toEqual(l1.block(100).ref);
    expect(l1.calls).toEqual([]);
  });

  it('moves to the provided next block (reading its receipts for system config updates), once', async () => {
    const { l1, t } = managed(4);
    t.provideNextL1(l1.block(101).ref);
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()).toEqual(l1.block(101).ref);
    expect(t.nextL1Block()).toEqual(l1.block(101).ref);
    expect(l1.calls).toEqual([`receipts:${l1.block(101).ref.hash}`]);
    // Taken: the next step waits for the supervisor again.
    expect(await t.advanceOrigin()).toBe(false);
    t.provideNextL1(l1.block(102).ref);
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()?.number).toBe(102);
  });

  it('drops a provided block that is not the next by number, and resets on one that does not build on the origin', async () => {
    const { l1, t } = managed(4);
    t.provideNextL1(l1.block(103).ref);
    expect(await t.advanceOrigin()).toBe(false);
    expect(t.origin()?.number).toBe(100);
    // Dropped: a retry without a new block does not take it either.
    expect(await t.advanceOrigin()).toBe(false);
    const fork = { ...l1.block(101).ref, hash: `0x${'77'.repeat(32)}`, parentHash: `0x${'66'.repeat(32)}` };
    t.provideNextL1(fork);
    await expect(t.advanceOrigin()).rejects.toMatchObject({ code: 'L1_REORG', severity: 'reset' });
    expect(t.origin()?.number).toBe(100);
  });

  it('keeps the provided block when its receipts cannot be read yet, and takes it on the retry', async () => {
    const { l1, t } = managed(3);
    const fetch = l1.fetchReceipts.bind(l1);
    l1.fetchReceipts = async () => {
      throw Object.assign(new Error('down'), { code: 'L1_RPC', severity: 'temporary' });
    };
    t.provideNextL1(l1.block(101).ref);
    await expect(t.advanceOrigin()).rejects.toMatchObject({ severity: 'temporary' });
    l1.fetchReceipts = fetch;
    expect(await t.advanceOrigin()).toBe(true);
    expect(t.origin()?.number).toBe(101);
  });

  it('forgets a provided block at a reset, and refuses provideNextL1 when not managed', async () => {
    const { l1, t } = managed(3);
    t.provideNextL1(l1.block(101).ref);
    t.reset(l1.block(100).ref, genesisSc());
    expect(await t.advanceOrigin()).toBe(false);
    expect(() => new L1Traversal(cfg, l1).provideNextL1(l1.block(101).ref)).toThrow(/managed/);
  });
});
