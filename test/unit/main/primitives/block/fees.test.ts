import { describe, expect, it } from 'vitest';
import {
  blobBaseFee,
  fakeExponential,
  nextBaseFee,
  nextExcessBlobGas,
} from '../../../../../src/main/primitives/block/fees.js';
import { DEFAULT_BLOB_SCHEDULE } from '../../../../../src/main/primitives/chainConfig.js';

const cancun = DEFAULT_BLOB_SCHEDULE.cancun as NonNullable<typeof DEFAULT_BLOB_SCHEDULE.cancun>;

describe('EIP-1559 base fee', () => {
  it.each([
    // gasLimit, gasUsed, baseFee → next (hand-computed from the EIP's formula)
    [30_000_000n, 15_000_000n, 1_000_000_000n, 1_000_000_000n],
    [30_000_000n, 30_000_000n, 1_000_000_000n, 1_125_000_000n],
    [30_000_000n, 0n, 1_000_000_000n, 875_000_000n],
    [30_000_000n, 15_000_001n, 8n, 9n], // the increase is at least 1
    [30_000_000n, 20_000_000n, 100n, 104n],
  ])('limit %d used %d fee %d → %d', (gasLimit, gasUsed, baseFeePerGas, next) => {
    expect(nextBaseFee({ gasLimit, gasUsed, baseFeePerGas })).toBe(next);
  });
});

describe('EIP-4844 blob gas', () => {
  it('fake exponential matches the EIP test values', () => {
    expect(fakeExponential(1n, 0n, 1n)).toBe(1n);
    expect(fakeExponential(38493n, 0n, 1000n)).toBe(38493n);
    expect(fakeExponential(0n, 1234n, 2345n)).toBe(0n);
    expect(fakeExponential(1n, 2n, 1n)).toBe(6n);
    expect(fakeExponential(2n, 5n, 2n)).toBe(23n);
    expect(fakeExponential(1n, 50000000n, 2225652n)).toBe(5709098764n);
    // e^1 = 2.718...: floor in integers is 2.
    expect(fakeExponential(1n, 3_338_477n, 3_338_477n)).toBe(2n);
    // 10 · e^2 = 73.89...; with denominator 1 the truncated Taylor terms sum to 10+20+20+13+6+2 = 71.
    expect(fakeExponential(10n, 2_000n, 1_000n)).toBe(73n);
    expect(fakeExponential(10n, 2n, 1n)).toBe(71n);
  });

  it('computes the excess and the blob base fee', () => {
    expect(nextExcessBlobGas({ excessBlobGas: 0n, blobGasUsed: 393216n }, cancun)).toBe(0n);
    expect(nextExcessBlobGas({ excessBlobGas: 0n, blobGasUsed: 786432n }, cancun)).toBe(393216n);
    expect(nextExcessBlobGas({ excessBlobGas: 100n, blobGasUsed: 0n }, cancun)).toBe(0n);
    expect(blobBaseFee(0n, cancun)).toBe(1n);
    expect(blobBaseFee(10_000_000n, cancun)).toBe(19n);
  });
});
