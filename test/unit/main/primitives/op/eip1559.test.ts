// Vectors from op-geth consensus/misc/eip1559/eip1559_test.go (opConfig: elasticity 6, denominator 50,
// Canyon denominator 250 from time 10, Holocene from 12, Jovian from 14) and the Holocene/Jovian specs.
import { describe, expect, it } from 'vitest';
import {
  decodeEip1559Params,
  decodeOpExtraData,
  encodeEip1559Params,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  extraDataForPayload,
  nextBaseFeeOp,
  type OpBaseFeeConfig,
  validateEip1559Params,
  validateHoloceneExtraData,
  validateJovianExtraData,
  validateOpExtraData,
} from '../../../../../src/main/primitives/op/eip1559.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const config: OpBaseFeeConfig = {
  elasticity: 6n,
  denominator: 50n,
  denominatorCanyon: 250n,
  canyonTime: 10n,
  holoceneTime: 12n,
  jovianTime: 14n,
};
const INITIAL = 1_000_000_000n;

describe('extraData and eip1559Params encodings', () => {
  it('encodes Jovian extraData as version | denominator | elasticity | minBaseFee', () => {
    const extra = encodeJovianExtraData({ denominator: 250n, elasticity: 6n }, 1_000_000_000n);
    expect(hex(extra)).toBe(`01000000fa00000006000000003b9aca00`);
    expect(() => validateJovianExtraData(extra)).not.toThrow();
    expect(decodeOpExtraData(extra)).toEqual({ version: 1, denominator: 250n, elasticity: 6n, minBaseFee: INITIAL });
  });

  it('encodes Holocene extraData and eip1559Params', () => {
    expect(hex(encodeHoloceneExtraData({ denominator: 250n, elasticity: 6n }))).toBe('00000000fa00000006');
    expect(hex(encodeEip1559Params({ denominator: 250n, elasticity: 6n }))).toBe('000000fa00000006');
    expect(decodeEip1559Params(encodeEip1559Params({ denominator: 8n, elasticity: 2n }))).toEqual({
      denominator: 8n,
      elasticity: 2n,
    });
    expect(() => encodeEip1559Params({ denominator: 1n << 32n, elasticity: 6n })).toThrow(/uint32/);
  });

  it('validates the header formats', () => {
    const holo = encodeHoloceneExtraData({ denominator: 250n, elasticity: 6n });
    const jov = encodeJovianExtraData({ denominator: 250n, elasticity: 6n }, 0n);
    expect(() => validateHoloceneExtraData(holo)).not.toThrow();
    expect(() => validateHoloceneExtraData(jov)).toThrow(/9 bytes, got 17/);
    expect(() => validateJovianExtraData(holo)).toThrow(/17 bytes, got 9/);
    expect(() => validateJovianExtraData(Uint8Array.of(0, ...jov.subarray(1)))).toThrow(/version/);
    expect(() => validateHoloceneExtraData(encodeHoloceneExtraData({ denominator: 0n, elasticity: 6n }))).toThrow(
      /non-zero/,
    );
    expect(() => validateOpExtraData(config, 10n, holo)).toThrow(/empty before Holocene/);
    expect(() => validateOpExtraData(config, 12n, jov)).toThrow(/9 bytes/);
    expect(() => validateOpExtraData(config, 14n, holo)).toThrow(/17 bytes/);
    expect(() => validateOpExtraData(config, 10n, new Uint8Array(0))).not.toThrow();
  });

  it('accepts 0/0 payload params (use defaults) but not a zero denominator alone', () => {
    expect(() => validateEip1559Params(new Uint8Array(8))).not.toThrow();
    expect(() => validateEip1559Params(encodeEip1559Params({ denominator: 0n, elasticity: 6n }))).toThrow();
    expect(() => validateEip1559Params(new Uint8Array(9))).toThrow(/8 bytes/);
  });

  it('builds a payload extraData per fork, defaults for 0/0', () => {
    const params = encodeEip1559Params({ denominator: 10n, elasticity: 2n });
    expect(extraDataForPayload(config, 11n, undefined, undefined)).toEqual(new Uint8Array(0));
    expect(hex(extraDataForPayload(config, 12n, params, undefined))).toBe('000000000a00000002');
    expect(hex(extraDataForPayload(config, 12n, new Uint8Array(8), undefined))).toBe('00000000fa00000006');
    expect(hex(extraDataForPayload(config, 14n, params, 7n))).toBe('010000000a000000020000000000000007');
    expect(() => extraDataForPayload(config, 14n, params, undefined)).toThrow(/minBaseFee/);
    expect(() => extraDataForPayload(config, 12n, undefined, undefined)).toThrow(/eip1559Params/);
  });
});

const parent = (
  gasLimit: bigint,
  gasUsed: bigint,
  baseFeePerGas: bigint,
  timestamp: bigint,
  extraData: Uint8Array = new Uint8Array(0),
) => ({
  number: 32n,
  gasLimit,
  gasUsed,
  baseFeePerGas,
  timestamp,
  extraData,
});

describe('nextBaseFeeOp', () => {
  it('uses the Canyon denominator from Canyon on (TestCalcBaseFeeOptimism)', () => {
    const cases: Array<[bigint, bigint, boolean]> = [
      [5_000_000n, INITIAL, false],
      [4_000_000n, 996_000_000n, false],
      [10_000_000n, 1_020_000_000n, false],
      [5_000_000n, INITIAL, true],
      [4_000_000n, 999_200_000n, true],
      [10_000_000n, 1_004_000_000n, true],
    ];
    for (const [used, want, canyon] of cases) {
      const t = canyon ? 8n : 6n;
      expect(nextBaseFeeOp(parent(30_000_000n, used, INITIAL, t), config, t + 2n)).toBe(want);
    }
  });

  it('reads denominator and elasticity from a Holocene parent (TestCalcBaseFeeOptimismHolocene)', () => {
    const cases: Array<[bigint, bigint, bigint, bigint]> = [
      [15_000_000n, 10_000_000n, 10n, 2n],
      [10_000_000n, 9_666_667n, 10n, 2n],
      [20_000_000n, 10_333_333n, 10n, 2n],
      [3_000_000n, 10_000_000n, 2n, 10n],
      [1_000_000n, 6_666_667n, 2n, 10n],
      [30_000_000n, 55_000_000n, 2n, 10n],
    ];
    for (const [used, want, denominator, elasticity] of cases) {
      const extra = encodeHoloceneExtraData({ denominator, elasticity });
      expect(nextBaseFeeOp(parent(30_000_000n, used, 10_000_000n, 12n, extra), config, 14n)).toBe(want);
    }
  });

  it('clamps to a Jovian parent minimum (TestCalcBaseFeeJovian)', () => {
    const target = 30_000_000n / 3n;
    const jov = (min: bigint) => encodeJovianExtraData({ denominator: 50n, elasticity: 3n }, min);
    const holo = encodeHoloceneExtraData({ denominator: 50n, elasticity: 3n });
    const at = (baseFee: bigint, used: bigint, t: bigint, extra: Uint8Array) =>
      nextBaseFeeOp({ ...parent(30_000_000n, used, baseFee, t, extra), blobGasUsed: 0n }, config, t + 2n);
    expect(at(1n, target - 1_000_000n, 12n, holo)).toBe(1n);
    expect(at(1n, target, 14n, jov(INITIAL))).toBe(INITIAL);
    expect(at(1n, target + 1_000_000n, 14n, jov(INITIAL))).toBe(INITIAL);
    expect(at(2n * INITIAL, target + 10_000_000n, 14n, jov(INITIAL))).toBe(2_040_000_000n);
    expect(at(INITIAL, target - 1_000_000n, 14n, jov(INITIAL))).toBe(INITIAL);
    expect(at(2n * INITIAL, target - 1_000_000n, 14n, jov(INITIAL))).toBe(1_996_000_000n);
    expect(at(INITIAL, target - 1_000_000n, 14n, jov(0n))).toBe(998_000_000n);
    expect(at(1n, target - 1_000_000n, 14n, holo)).toBe(1n);
  });

  it('meters a Jovian parent by max(gasUsed, DA footprint)', () => {
    const extra = encodeJovianExtraData({ denominator: 50n, elasticity: 3n }, 0n);
    const p = { ...parent(30_000_000n, 10_000_000n, INITIAL, 14n, extra), blobGasUsed: 20_000_000n };
    // as if 20M gas were used: 1e9 + 1e9 * 10M / 10M / 50
    expect(nextBaseFeeOp(p, config, 16n)).toBe(1_020_000_000n);
    // before Jovian the DA footprint is ignored
    const holo = { ...p, timestamp: 12n, extraData: encodeHoloceneExtraData({ denominator: 50n, elasticity: 3n }) };
    expect(nextBaseFeeOp(holo, config, 14n)).toBe(INITIAL);
    expect(() => nextBaseFeeOp({ ...p, blobGasUsed: undefined }, config, 16n)).toThrow(/blobGasUsed/);
  });

  it('returns the initial base fee for the first London block', () => {
    expect(nextBaseFeeOp(parent(30_000_000n, 0n, 0n, 0n), { ...config, londonBlock: 33n }, 2n)).toBe(INITIAL);
  });
});
