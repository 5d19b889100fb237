import { describe, expect, it } from 'vitest';
import {
  BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN,
  BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE,
  blobGas,
  cappedRefund,
  effectiveGasPrice,
  effectivePriorityFee,
  requiredBalance,
} from '../../../../../src/main/exec/evm/fees.js';
import { blobBaseFee } from '../../../../../src/main/primitives/block/fees.js';

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
  it("prices blob gas with Cancun's and Prague's update fractions", () => {
    const cancun = { baseFeeUpdateFraction: BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN };
    const prague = { baseFeeUpdateFraction: BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE };
    expect(blobBaseFee(0n, cancun)).toBe(1n);
    // e^(10,000,000 / 3,338,477) = e^2.9954 = 19.99
    expect(blobBaseFee(10_000_000n, cancun)).toBe(19n);
    // e^(100,000,000 / 3,338,477) = e^29.954 = 1.0204e13
    expect(blobBaseFee(100_000_000n, cancun)).toBe(10_203_769_476_395n);
    // e^(100,000,000 / 5,007,716) = e^19.969 = 4.704e8
    expect(blobBaseFee(100_000_000n, prague)).toBe(470_442_149n);
  });

  it('counts 131072 blob gas per blob', () => {
    expect(blobGas(3)).toBe(393_216n);
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
