// Block references and system configs read back from L2 blocks (op-node's SystemConfigFromHeaderAndDeposit).
import { describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import { blockRefFromBlock, systemConfigFromBlock } from '../../../../../src/main/node/engine/l2Block.js';
import { encodeHoloceneExtraData } from '../../../../../src/main/primitives/op/eip1559.js';
import { BATCHER, GENESIS_L1, GENESIS_L2, l1Hash, l1InfoTx, testConfig } from './fakeEngine.js';

const header = (extra: Uint8Array = new Uint8Array(0)) => ({
  hash: `0x${'ab'.repeat(32)}`,
  number: 7,
  parentHash: `0x${'cd'.repeat(32)}`,
  timestamp: 1014,
  gasLimit: 25_000_000n,
  extraData: extra,
});

describe('blockRefFromBlock', () => {
  const cfg = testConfig();
  it('reads the L1 origin and sequence number from the L1-info deposit', () => {
    const ref = blockRefFromBlock(cfg, header(), l1InfoTx(3, 2));
    expect(ref.l1origin).toEqual({ hash: l1Hash(3), number: 3 });
    expect(ref.sequenceNumber).toBe(2);
  });
  it('takes genesis from the config and refuses another genesis', () => {
    const g = { ...header(), number: 0, hash: GENESIS_L2 };
    expect(blockRefFromBlock(cfg, g, undefined).l1origin).toEqual({ hash: GENESIS_L1, number: 0 });
    const err = (() => {
      try {
        blockRefFromBlock(cfg, { ...g, hash: `0x${'01'.repeat(32)}` }, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TernError);
    expect((err as TernError).code).toBe('ENGINE_WRONG_CHAIN');
  });
  it('rejects a block without an L1-info deposit', () => {
    expect(() => blockRefFromBlock(cfg, header(), Uint8Array.of(2, 1))).toThrow(/not a deposit/);
  });
});

describe('systemConfigFromBlock', () => {
  it('rebuilds the versioned Ecotone scalar, batcher and gas limit', () => {
    const sc = systemConfigFromBlock(testConfig(), header(), l1InfoTx(3, 0));
    expect(sc.batcherAddr).toBe(BATCHER);
    expect(sc.gasLimit).toBe(25_000_000n);
    const scalar = sc.scalar;
    expect(scalar[0]).toBe(1);
    expect(toHex(scalar.subarray(24, 28))).toBe('0x00000006');
    expect(toHex(scalar.subarray(28, 32))).toBe('0x00000005');
    expect(sc.overhead.every((b) => b === 0)).toBe(true);
    expect(sc.eip1559Params.every((b) => b === 0)).toBe(true);
  });
  it('reads the EIP-1559 parameters from the header after Holocene', () => {
    const cfg = testConfig({ fjord_time: 0, granite_time: 0, holocene_time: 0 });
    const sc = systemConfigFromBlock(
      cfg,
      header(encodeHoloceneExtraData({ denominator: 250n, elasticity: 6n })),
      l1InfoTx(3, 0),
    );
    expect(toHex(sc.eip1559Params)).toBe('0x000000fa00000006');
    expect(() => systemConfigFromBlock(cfg, header(), l1InfoTx(3, 0))).toThrow(/extraData/);
  });
});
