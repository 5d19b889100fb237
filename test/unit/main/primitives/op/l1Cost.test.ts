// Vectors from op-geth core/types/rollup_cost_test.go (parameters and expected fees/gas for its emptyTx).
import { describe, expect, it } from 'vitest';
import {
  blockDAFootprint,
  estimatedDASize,
  type L1CostParams,
  l1Cost,
  l1CostFromCostData,
  l1DataGas,
  rollupCostData,
  txDAFootprint,
} from '../../../../../src/main/primitives/op/l1Cost.js';
import { EMPTY_TX } from './vectors.js';

const baseFee = 1000n * 1_000_000n;
const overhead = 50n;
const scalar = 7n * 1_000_000n;
const blobBaseFee = 10n * 1_000_000n;
const baseFeeScalar = 2n;
const blobBaseFeeScalar = 3n;
const params = { l1BaseFee: baseFee, overhead, scalar, l1BlobBaseFee: blobBaseFee, baseFeeScalar, blobBaseFeeScalar };

describe('l1Cost (op-geth vectors, emptyTx)', () => {
  it('Bedrock: 11326000000000 wei, l1GasUsed 1618', () => {
    expect(l1Cost(EMPTY_TX, params, 'bedrock')).toEqual({ fee: 11326000000000n, gasUsed: 1618n });
  });
  it('Regolith: 3710000000000 wei, l1GasUsed 530 (no 68-byte signature surcharge)', () => {
    expect(l1Cost(EMPTY_TX, params, 'regolith')).toEqual({ fee: 3710000000000n, gasUsed: 530n });
    expect(l1Cost(EMPTY_TX, params, 'canyon')).toEqual({ fee: 3710000000000n, gasUsed: 530n });
  });
  it('Ecotone: 960900 wei, l1GasUsed 480', () => {
    expect(l1Cost(EMPTY_TX, params, 'ecotone')).toEqual({ fee: 960900n, gasUsed: 480n });
  });
  it('Fjord: 3203000 wei at the minimum size, l1GasUsed 1600', () => {
    expect(l1Cost(EMPTY_TX, params, 'fjord')).toEqual({ fee: 3203000n, gasUsed: 1600n });
    expect(l1Cost(EMPTY_TX, params, 'isthmus')).toEqual({ fee: 3203000n, gasUsed: 1600n });
  });
  it('l1DataGas excludes the overhead', () => {
    expect(l1DataGas(EMPTY_TX, 'bedrock')).toBe(1568n);
    expect(l1DataGas(EMPTY_TX, 'regolith')).toBe(480n);
    expect(l1DataGas(EMPTY_TX, 'fjord')).toBe(1600n);
  });
  it('charges nothing for empty cost data', () => {
    expect(l1Cost(new Uint8Array(0), params, 'fjord')).toEqual({ fee: 0n, gasUsed: 0n });
  });
});

describe('Fjord cost function', () => {
  const fjord = (fastLzSize: bigint, p: L1CostParams = params) =>
    l1CostFromCostData({ zeroes: 0n, ones: 0n, fastLzSize }, p, 'fjord');

  it('floors the estimate at 100 bytes (TestFjordL1CostFuncMinimumBounds)', () => {
    for (const size of [100n, 150n, 170n]) expect(fjord(size)).toEqual({ fee: 3203000n, gasUsed: 1600n });
    for (const size of [171n, 175n, 200n]) {
      const r = fjord(size);
      expect(r.gasUsed).toBeGreaterThan(1600n);
      expect(r.fee).toBeGreaterThan(3203000n);
    }
  });

  it('matches the Solidity GasPriceOracle (TestFjordL1CostSolidityParity)', () => {
    const p = { l1BaseFee: 2_000_000n, l1BlobBaseFee: 3_000_000n, baseFeeScalar: 20n, blobBaseFeeScalar: 15n };
    expect(fjord(235n, p)).toEqual({ fee: 105484n, gasUsed: 2463n });
  });
});

describe('Jovian DA footprint', () => {
  it('uses the Fjord size estimate, floored at 100 bytes', () => {
    expect(estimatedDASize(0n)).toBe(100n);
    // (-42_585_600 + 836_500 * 235) / 1e6 = 153.99…
    expect(estimatedDASize(235n)).toBe(153n);
    expect(txDAFootprint(235n, 400n)).toBe(61200n);
  });

  it('sums non-deposit transactions only', () => {
    const deposit = Uint8Array.of(0x7e, 0xc0);
    expect(blockDAFootprint([deposit, EMPTY_TX, EMPTY_TX], 400n)).toBe(2n * 100n * 400n);
    expect(rollupCostData(EMPTY_TX)).toEqual({ zeroes: 0n, ones: 30n, fastLzSize: 31n });
  });
});
