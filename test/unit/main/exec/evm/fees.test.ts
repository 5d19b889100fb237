import { describe, expect, it } from 'vitest';
import {
  BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN,
  BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE,
  blobBaseFee,
  blobGas,
  calcExcessBlobGas,
  cappedRefund,
  effectiveGasPrice,
  effectivePriorityFee,
  fakeExponential,
  requiredBalance,
} from '../../../../../src/main/exec/evm/fees.js';

describe('effective gas price (EIP-1559)', () => {
  it('is baseFee + tip, capped at maxFeePerGas', () => {
    const tx = { maxFeePerGas: 100n, maxPriorityFeePerGas: 5n };
    expect(effectiveGasPrice(tx, 90n)).toBe(95n);
    expect(effectivePriorityFee(tx, 90n)).toBe(5n);
    expect(effectiveGasPrice(tx, 98n)).toBe(100n); // 98 + 5 > 100
    expect(effectivePriorityFee(tx, 98n)).toBe(2n);
  });

  it('is the gas price for legacy transactions, the tip being what exceeds the base fee', () => {
    expect(effectiveGasPrice({ gasPrice: 50n }, 40n)).toBe(50n);
    expect(effectivePriorityFee({ gasPrice: 50n }, 40n)).toBe(10n);
    expect(effectiveGasPrice({ gasPrice: 50n }, undefined)).toBe(50n);
  });
});

describe('blob fees (EIP-4844)', () => {
  it('computes fake_exponential', () => {
    expect(fakeExponential(1n, 0n, 3_338_477n)).toBe(1n);
    // e^1 = 2.718...: floor in integers is 2.
    expect(fakeExponential(1n, 3_338_477n, 3_338_477n)).toBe(2n);
    // 10 · e^2 = 73.89...; with denominator 1 the truncated Taylor terms sum to 10+20+20+13+6+2 = 71.
    expect(fakeExponential(10n, 2_000n, 1_000n)).toBe(73n);
    expect(fakeExponential(10n, 2n, 1n)).toBe(71n);
  });

  it('prices blob gas from the excess blob gas', () => {
    expect(blobBaseFee(0n, BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN)).toBe(1n);
    // e^(10,000,000 / 3,338,477) = e^2.9954 = 19.99
    expect(blobBaseFee(10_000_000n, BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN)).toBe(19n);
    // e^(100,000,000 / 3,338,477) = e^29.954 = 1.0204e13
    expect(blobBaseFee(100_000_000n, BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN)).toBe(10_203_769_476_395n);
    // e^(100,000,000 / 5,007,716) = e^19.969 = 4.704e8
    expect(blobBaseFee(100_000_000n, BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE)).toBe(470_442_149n);
  });

  it('counts 131072 blob gas per blob and carries the excess over the target', () => {
    expect(blobGas(3)).toBe(393_216n);
    expect(calcExcessBlobGas(0n, 786_432n, 393_216n)).toBe(393_216n);
    expect(calcExcessBlobGas(100n, 0n, 393_216n)).toBe(0n);
  });
});

describe('balance and refunds', () => {
  it('requires gasLimit · feeCap + value + blob gas · blob fee cap', () => {
    expect(requiredBalance(21_000n, { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, 5n, 131_072n, 2n)).toBe(
      210_000n + 5n + 262_144n,
    );
    expect(requiredBalance(21_000n, { gasPrice: 3n }, 0n, 0n, 0n)).toBe(63_000n);
  });

  it('caps the refund at a fifth of the gas used from London on, half before', () => {
    expect(cappedRefund(100_000n, 30_000n, true)).toBe(20_000n);
    expect(cappedRefund(100_000n, 10_000n, true)).toBe(10_000n);
    expect(cappedRefund(100_000n, 60_000n, false)).toBe(50_000n);
  });
});
