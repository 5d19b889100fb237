import { describe, expect, it } from 'vitest';
import { L1_BLOCK_SLOTS, readL1CostParams } from '../../../../../src/main/primitives/op/l1BlockStorage.js';
import { l1CostFromCostData, rollupCostData } from '../../../../../src/main/primitives/op/l1Cost.js';
import { operatorFee } from '../../../../../src/main/primitives/op/operatorFee.js';
import { EMPTY_TX } from './vectors.js';

// Builds slots the way Solidity packs L1Block (op-geth's testStateGetter): big-endian words, low end first.
function state(s: {
  baseFee: bigint;
  overhead: bigint;
  scalar: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  daFootprintGasScalar?: bigint;
}) {
  const slots = new Map<bigint, bigint>([
    [L1_BLOCK_SLOTS.l1BaseFee, s.baseFee],
    [L1_BLOCK_SLOTS.overhead, s.overhead],
    [L1_BLOCK_SLOTS.scalar, s.scalar],
    [L1_BLOCK_SLOTS.blobBaseFee, s.blobBaseFee],
    // sequence number 7 in the low 8 bytes must not leak into the scalars
    [L1_BLOCK_SLOTS.feeScalars, (s.baseFeeScalar << 96n) | (s.blobBaseFeeScalar << 64n) | 7n],
    [
      L1_BLOCK_SLOTS.operatorFeeParams,
      ((s.daFootprintGasScalar ?? 0n) << 96n) | ((s.operatorFeeScalar ?? 0n) << 64n) | (s.operatorFeeConstant ?? 0n),
    ],
  ]);
  return (slot: bigint) => slots.get(slot) ?? 0n;
}

const base = {
  baseFee: 1000n * 1_000_000n,
  overhead: 50n,
  scalar: 7_000_000n,
  blobBaseFee: 10_000_000n,
  baseFeeScalar: 2n,
  blobBaseFeeScalar: 3n,
  operatorFeeScalar: 1439103868n,
  operatorFeeConstant: 1256417826609331460n,
  daFootprintGasScalar: 400n,
};
const cd = rollupCostData(EMPTY_TX);
const fee = (read: (s: bigint) => bigint, fork: Parameters<typeof readL1CostParams>[1]) => {
  const p = readL1CostParams(read, fork);
  return l1CostFromCostData(cd, p, p.costFork).fee;
};

describe('readL1CostParams (op-geth TestNewL1CostFunc)', () => {
  const read = state(base);
  it('selects the cost function per fork', () => {
    expect(fee(read, 'bedrock')).toBe(11326000000000n);
    expect(fee(read, 'regolith')).toBe(3710000000000n);
    expect(fee(read, 'ecotone')).toBe(960900n);
    expect(fee(read, 'fjord')).toBe(3203000n);
  });

  it('prices the first Ecotone block like Regolith while the Ecotone values are unset', () => {
    const first = state({ ...base, baseFeeScalar: 0n, blobBaseFeeScalar: 0n, blobBaseFee: 0n });
    expect(fee(first, 'ecotone')).toBe(3710000000000n);
    expect(fee(first, 'fjord')).toBe(3710000000000n);
  });

  it('reads the operator fee from Isthmus and the DA footprint scalar from Jovian', () => {
    expect(readL1CostParams(read, 'holocene')).toMatchObject({ operatorFeeScalar: 0n, operatorFeeConstant: 0n });
    const isthmus = readL1CostParams(read, 'isthmus');
    expect(isthmus).toMatchObject({ operatorFeeScalar: 1439103868n, daFootprintGasScalar: 0n });
    expect(operatorFee(1618n, isthmus, 'isthmus')).toBe(1256417826611659930n);
    const jovian = readL1CostParams(read, 'jovian');
    expect(jovian).toMatchObject({ baseFeeScalar: 2n, blobBaseFeeScalar: 3n, daFootprintGasScalar: 400n });
    expect(operatorFee(1618n, jovian, 'jovian')).toBe(1256650673615173860n);
  });
});
