import { describe, expect, it } from 'vitest';
import { operatorFee } from '../../../../../src/main/primitives/op/operatorFee.js';

// op-geth rollup_cost_test.go TestNewOperatorCostFunc: gas 1618 with these parameters.
const p = { operatorFeeScalar: 1439103868n, operatorFeeConstant: 1256417826609331460n };

describe('operatorFee', () => {
  it('is zero before Isthmus', () => {
    expect(operatorFee(1618n, p, 'fjord')).toBe(0n);
    expect(operatorFee(1618n, p, 'holocene')).toBe(0n);
  });
  it('Isthmus: gas * scalar / 1e6 + constant', () => {
    expect(operatorFee(1618n, p, 'isthmus')).toBe(1256417826611659930n);
  });
  it('Jovian: gas * scalar * 100 + constant', () => {
    expect(operatorFee(1618n, p, 'jovian')).toBe(1256650673615173860n);
  });
  it('stays exact at the maximum inputs (103 bits under Jovian)', () => {
    const max = { operatorFeeScalar: 2n ** 32n - 1n, operatorFeeConstant: 2n ** 64n - 1n };
    expect(operatorFee(2n ** 64n - 1n, max, 'jovian')).toBe(
      (2n ** 64n - 1n) * (2n ** 32n - 1n) * 100n + 2n ** 64n - 1n,
    );
  });
});
