import { describe, expect, it } from 'vitest';
import { AttributesBuilder } from '../../../../../src/main/node/derive/attributesBuilder.js';
import { systemConfigFromGenesis } from '../../../../../src/main/node/derive/systemConfig.js';
import { fromHex, type L2BlockRef, toHex } from '../../../../../src/main/node/derive/types.js';
import { initializesCrossL2InboxAtInterop } from '../../../../../src/main/node/derive/upgrades/interop.js';
import { parseDependencySet } from '../../../../../src/main/node/interop/dependencySet.js';
import type { L1BlockInfo } from '../../../../../src/main/node/l1/interface.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';
import { decodeL1InfoCalldata } from '../../../../../src/main/primitives/op/l1Info.js';
import type { Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { decodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { configUpdateLog, depositLog, testRollupConfig } from './fixtures.js';

const hh = (n: number) => `0x${n.toString(16).padStart(8, '0')}${'cd'.repeat(28)}` as `0x${string}`;
function info(n: number, t: number): L1BlockInfo {
  const header = {
    baseFeePerGas: 7n,
    mixHash: fromHex('55'.repeat(32)),
    excessBlobGas: 0n,
    parentBeaconBlockRoot: fromHex('66'.repeat(32)),
  } as unknown as Header;
  return { number: n, hash: hh(n), parentHash: hh(n - 1), timestamp: t, header };
}

describe('attributes builder', () => {
  // Fjord activates at L2 time 1012; Holocene and Jovian-era fields off except where set.
  const cfg = testRollupConfig({ ecotone_time: 0, fjord_time: 1012 });
  const blocks = new Map([100, 101].map((n) => [hh(n), info(n, 1000 + (n - 100) * 12)]));
  const deposit = depositLog({
    from: `0x${'01'.repeat(20)}`,
    to: `0x${'02'.repeat(20)}`,
    mint: 1n,
    value: 0n,
    gas: 50_000n,
    creation: false,
    data: '',
  });
  deposit.address = fromHex(cfg.depositContractAddress);
  const receipts: Receipt[] = [
    {
      type: 2,
      status: 1,
      cumulativeGasUsed: 0n,
      logsBloom: new Uint8Array(256),
      logs: [deposit, configUpdateLog(2, (45_000_000).toString(16).padStart(64, '0'))],
    },
  ];
  const l1 = {
    infoByHash: async (h: string) => blocks.get(h as `0x${string}`) as L1BlockInfo,
    fetchReceipts: async (h: string) => ({ info: blocks.get(h as `0x${string}`) as L1BlockInfo, receipts }),
  };
  const sc = systemConfigFromGenesis(cfg.genesis.systemConfig);
  const builder = new AttributesBuilder(cfg, l1, { systemConfigByL2Hash: async () => sc });
  const parent: L2BlockRef = {
    number: 5,
    hash: hh(0x2005),
    parentHash: hh(0x2004),
    timestamp: 1010,
    l1origin: { number: 100, hash: hh(100) },
    sequenceNumber: 3,
  };

  it('in an epoch: L1 info with the next sequence number, no deposits', async () => {
    const a = await builder.prepare({ ...parent, timestamp: 1008 }, { number: 100, hash: hh(100) });
    expect(a.transactions).toHaveLength(1);
    const l1info = decodeL1InfoCalldata(decodeDepositTx(a.transactions[0] as Uint8Array).data);
    expect(l1info.format).toBe('ecotone');
    expect(l1info.sequenceNumber).toBe(4n);
    expect(l1info.number).toBe(100n);
    expect(a.timestamp).toBe(1010);
    expect(a.gasLimit).toBe(30_000_000n);
    expect(a.noTxPool).toBe(true);
    expect(a.withdrawals).toEqual([]);
    expect(toHex(a.parentBeaconBlockRoot as Uint8Array)).toBe(`0x${'66'.repeat(32)}`);
    expect(toHex(a.prevRandao)).toBe(`0x${'55'.repeat(32)}`);
    expect(a.suggestedFeeRecipient).toBe('0x4200000000000000000000000000000000000011');
    expect(a.eip1559Params).toBeUndefined();
    expect(a.minBaseFee).toBeUndefined();
  });

  it('first block of an epoch at the Fjord activation: L1 info, deposits, system config, upgrade txs in order', async () => {
    const a = await builder.prepare(parent, { number: 101, hash: hh(101) });
    const txs = a.transactions.map((t) => decodeDepositTx(t));
    expect(txs).toHaveLength(1 + 1 + 3);
    const l1info = decodeL1InfoCalldata(txs[0]!.data);
    expect(l1info.sequenceNumber).toBe(0n);
    expect(l1info.number).toBe(101n);
    expect(toHex(txs[1]!.from)).toBe(`0x${'01'.repeat(20)}`);
    expect(toHex(txs[2]!.sourceHash)).toBe('0x86122c533fdcb89b16d8713174625e44578a89751d96c098ec19ab40a51a8ea3');
    expect(a.gasLimit).toBe(45_000_000n);
  });

  it('asks for a reset when the epoch does not build on the parent origin', async () => {
    await expect(
      builder.prepare({ ...parent, l1origin: { number: 100, hash: hh(99) } }, { number: 101, hash: hh(101) }),
    ).rejects.toMatchObject({
      severity: 'reset',
    });
  });

  it('from Holocene gives eip1559Params; from Jovian minBaseFee and the Jovian L1 info after activation', async () => {
    const j = testRollupConfig({
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      isthmus_time: 0,
      jovian_time: 0,
    });
    const s = { ...sc, eip1559Params: fromHex('000000fa00000006'), minBaseFee: 9n };
    const b = new AttributesBuilder(j, l1, { systemConfigByL2Hash: async () => s });
    const a = await b.prepare({ ...parent, timestamp: 1008 }, { number: 100, hash: hh(100) });
    expect(toHex(a.eip1559Params as Uint8Array)).toBe('0x000000fa00000006');
    expect(a.minBaseFee).toBe(9n);
    const l1info = decodeL1InfoCalldata(decodeDepositTx(a.transactions[0] as Uint8Array).data);
    expect(l1info.format).toBe('jovian');
    expect(l1info.daFootprintGasScalar).toBe(400n);
  });

  // Each fork's activation block (L2 time 1010 here) appends that fork's upgrade transactions after the L1 info,
  // built from the bundled bytecode; the L1 info keeps the previous fork's format.
  for (const [fork, count, first, format] of [
    ['isthmus', 8, '0x3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf', 'ecotone'],
    ['jovian', 5, '0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8', 'isthmus'],
    ['interop', 2, '0xf5484697c7a9a791db32a3bf0763bf2ba686c77ae7d4c0a5ee8c222a92a8dcc2', 'jovian'],
  ] as const) {
    it(`builds the ${fork} activation block with its upgrade transactions`, async () => {
      const forks = ['ecotone', 'fjord', 'granite', 'holocene', 'isthmus', 'jovian', 'interop'];
      const times = Object.fromEntries(forks.map((f) => [`${f}_time`, f === fork ? 1010 : 0]));
      for (const later of forks.slice(forks.indexOf(fork) + 1)) delete times[`${later}_time`];
      const b = new AttributesBuilder(testRollupConfig(times), l1, { systemConfigByL2Hash: async () => sc });
      const at = await b.prepare({ ...parent, timestamp: 1008 }, { number: 100, hash: hh(100) });
      const txs = at.transactions.map((t) => decodeDepositTx(t));
      expect(txs).toHaveLength(1 + count);
      expect(decodeL1InfoCalldata(txs[0]!.data).format).toBe(format);
      expect(toHex(txs[1]!.sourceHash)).toBe(first);
      const next = await b.prepare({ ...parent, timestamp: 1010 }, { number: 100, hash: hh(100) });
      expect(next.transactions).toHaveLength(1);
    });
  }

  describe('the CrossL2Inbox initialization (interop/derivation.md, as op-node implements it)', () => {
    // Interop activates at L2 time 1010 on chain 901 (every earlier fork at genesis).
    const forks = ['ecotone', 'fjord', 'granite', 'holocene', 'isthmus', 'jovian'];
    const interopCfg = testRollupConfig({
      ...Object.fromEntries(forks.map((f) => [`${f}_time`, 0])),
      interop_time: 1010,
    });
    const deps = (...chains: [id: number, activationTime?: number][]) =>
      parseDependencySet({
        dependencies: Object.fromEntries(
          chains.map(([id, activationTime], chainIndex) => [
            `${id}`,
            { chainIndex, ...(activationTime === undefined ? {} : { activationTime }) },
          ]),
        ),
      });
    // Source hashes from the spec: the messenger's deployment and proxy update, then the inbox's.
    const MESSENGER = [
      '0xf5484697c7a9a791db32a3bf0763bf2ba686c77ae7d4c0a5ee8c222a92a8dcc2',
      '0xe54b4d06bbcc857f41ae00e89d820339ac5ce0034aac722c817b2873e03a7e68',
    ];
    const INBOX = [
      '0x6e5e214f73143df8fe6f6054a3ed7eb472d373376458a9c8aecdf23475beb616',
      '0x88c6b48354c367125a59792a93a7b60ad7cd66e516157dbba16558c68a46d3cb',
    ];
    const builderWith = (dependencySet?: ReturnType<typeof deps>) =>
      new AttributesBuilder(interopCfg, l1, { systemConfigByL2Hash: async () => sc }, { dependencySet });
    /** The source hashes of the block after a parent at `parentTime` (same epoch, so no user deposits). */
    const sources = async (b: AttributesBuilder, parentTime: number) => {
      const a = await b.prepare({ ...parent, timestamp: parentTime }, { number: 100, hash: hh(100) });
      return a.transactions.map((t) => toHex(decodeDepositTx(t).sourceHash)).slice(1);
    };

    it('the activation block of a chain in a set of two: the messenger first, then the inbox, and only there', async () => {
      const b = builderWith(deps([901], [902]));
      expect(await sources(b, 1006)).toEqual([]);
      expect(await sources(b, 1008)).toEqual([...MESSENGER, ...INBOX]);
      expect(await sources(b, 1010)).toEqual([]);
      expect(await sources(b, 1012)).toEqual([]);
    });

    it('the inbox txs carry the spec fields: deployer nonce 0 at 420k gas, then upgradeTo from address zero', async () => {
      const a = await builderWith(deps([901], [902])).prepare(
        { ...parent, timestamp: 1008 },
        { number: 100, hash: hh(100) },
      );
      const [deploy, update] = a.transactions.slice(3).map((t) => decodeDepositTx(t));
      expect(toHex(deploy!.from)).toBe('0x4220000000000000000000000000000000000000');
      expect(deploy!.to).toBeUndefined();
      expect(deploy!.gasLimit).toBe(420_000n);
      expect(toHex(update!.from)).toBe(`0x${'00'.repeat(20)}`);
      expect(toHex(update!.to as Uint8Array)).toBe('0x4200000000000000000000000000000000000022');
      expect(update!.gasLimit).toBe(50_000n);
      expect(toHex(update!.data)).toBe('0x3659cfe6000000000000000000000000691300f512e48b463c2617b34eef1a9f82ee7dbf');
      expect(a.noTxPool).toBe(true);
    });

    it('in the first block of an epoch: L1 info, user deposits, messenger, inbox', async () => {
      // Activation at 1012: the block after the parent at 1010, the first of epoch 101 (with one user deposit).
      const later = testRollupConfig({ ...Object.fromEntries(forks.map((f) => [`${f}_time`, 0])), interop_time: 1012 });
      const b = new AttributesBuilder(
        later,
        l1,
        { systemConfigByL2Hash: async () => sc },
        { dependencySet: deps([901], [902]) },
      );
      const a = await b.prepare(parent, { number: 101, hash: hh(101) });
      const txs = a.transactions.map((t) => decodeDepositTx(t));
      expect(txs).toHaveLength(1 + 1 + 4);
      expect(decodeL1InfoCalldata(txs[0]!.data).sequenceNumber).toBe(0n);
      expect(toHex(txs[1]!.from)).toBe(`0x${'01'.repeat(20)}`);
      expect(txs.slice(2).map((t) => toHex(t.sourceHash))).toEqual([...MESSENGER, ...INBOX]);
    });

    it('never comes for a set of this chain alone, or without a set: only the messenger is deployed', async () => {
      for (const b of [builderWith(deps([901])), builderWith(undefined)]) {
        for (let t = 1004; t <= 1030; t += 2) {
          expect(await sources(b, t), `block at ${t + 2}`).toEqual(t === 1008 ? MESSENGER : []);
        }
      }
    });

    it('never comes when interop is active at genesis (no activation block)', async () => {
      const atGenesis = testRollupConfig({
        ...Object.fromEntries(forks.map((f) => [`${f}_time`, 0])),
        interop_time: 0,
      });
      const b = new AttributesBuilder(
        atGenesis,
        l1,
        { systemConfigByL2Hash: async () => sc },
        { dependencySet: deps([901], [902]) },
      );
      expect(
        (await b.prepare({ ...parent, timestamp: 1000 }, { number: 100, hash: hh(100) })).transactions,
      ).toHaveLength(1);
    });

    it("counts the set's chains only, as op-node does: activation times and membership are not consulted", () => {
      expect(initializesCrossL2InboxAtInterop(undefined)).toBe(false);
      expect(initializesCrossL2InboxAtInterop(deps([901]))).toBe(false);
      expect(initializesCrossL2InboxAtInterop(deps([902]))).toBe(false);
      expect(initializesCrossL2InboxAtInterop(deps([901], [902]))).toBe(true);
      expect(initializesCrossL2InboxAtInterop(deps([901], [902, 2_000_000_000]))).toBe(true);
      expect(initializesCrossL2InboxAtInterop(deps([902], [903]))).toBe(true);
    });
  });
});
