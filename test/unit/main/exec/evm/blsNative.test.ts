// BLS12_G1ADD / BLS12_G2ADD through @chainsafe/blst (src/main/exec/evm/blsNative.ts), cross-checked against
// @ethereumjs/evm's default precompiles on random and edge inputs: same output, same gas, same failure.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM, type ExecResult, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../bench/rng.js';
import {
  applyNativeBls,
  BLS_G1_ADD_ADDRESS,
  BLS_G2_ADD_ADDRESS,
  blsG1AddNative,
  blsG2AddNative,
} from '../../../../../src/main/exec/evm/blsNative.js';
import { bytesToBigintUnsigned } from '../../../../../src/main/primitives/bytes.js';

const P = bls12_381.fields.Fp.ORDER;
const R = bls12_381.fields.Fr.ORDER;
const Fp = bls12_381.fields.Fp;
const Fp2 = bls12_381.fields.Fp2;

const be = (v: bigint, len: number) => new Uint8Array(Buffer.from(v.toString(16).padStart(len * 2, '0'), 'hex'));
const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const fp64 = (v: bigint) => be(v, 64);
type G1 = ReturnType<typeof bls12_381.G1.Point.BASE.multiply>;
type G2 = ReturnType<typeof bls12_381.G2.Point.BASE.multiply>;
const g1 = (p: G1) => {
  if (p.is0()) return new Uint8Array(128);
  const a = p.toAffine();
  return cat(fp64(a.x), fp64(a.y));
};
const g2 = (p: G2) => {
  if (p.is0()) return new Uint8Array(256);
  const a = p.toAffine();
  return cat(fp64(a.x.c0), fp64(a.x.c1), fp64(a.y.c0), fp64(a.y.c1));
};

// Deterministic pseudo-random scalars, so a failure reproduces.
const scalars = xorshiftRng(0x9e3779b9);
const rnd = (): bigint => (bytesToBigintUnsigned(scalars.bytes(32)) % (R - 1n)) + 1n;
const randG1 = () => bls12_381.G1.Point.BASE.multiply(rnd());
const randG2 = () => bls12_381.G2.Point.BASE.multiply(rnd());

/** A point on E1 (y² = x³ + 4) outside the r-torsion subgroup: EIP-2537 addition must still accept it. */
function g1NotInSubgroup(start: bigint): Uint8Array {
  for (let x = start; ; x++) {
    const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
    let y: bigint;
    try {
      y = Fp.sqrt(rhs);
    } catch {
      continue;
    }
    if (Fp.eql(Fp.sqr(y), rhs)) return cat(fp64(x), fp64(y));
  }
}
/** The same on E2 (y² = x³ + 4(1 + i)). */
function g2NotInSubgroup(start: bigint): Uint8Array {
  const b = Fp2.fromBigTuple([4n, 4n]);
  for (let c0 = start; ; c0++) {
    const x = Fp2.fromBigTuple([c0, 1n]);
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b);
    let y: typeof x;
    try {
      y = Fp2.sqrt(rhs);
    } catch {
      continue;
    }
    if (Fp2.eql(Fp2.sqr(y), rhs)) return cat(fp64(x.c0), fp64(x.c1), fp64(y.c0), fp64(y.c1));
  }
}

let evm: EVM;
let common: Common;
let defaultG1: PrecompileFunc;
let defaultG2: PrecompileFunc;
let nativeG1: PrecompileFunc;
let nativeG2: PrecompileFunc;
let fallbacks = 0;

beforeAll(async () => {
  common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  evm = await createEVM({ common });
  defaultG1 = evm.getPrecompile(`0x${BLS_G1_ADD_ADDRESS}`) as PrecompileFunc;
  defaultG2 = evm.getPrecompile(`0x${BLS_G2_ADD_ADDRESS}`) as PrecompileFunc;
  const counting =
    (f: PrecompileFunc): PrecompileFunc =>
    (input) => {
      fallbacks++;
      return f(input);
    };
  nativeG1 = blsG1AddNative(counting(defaultG1));
  nativeG2 = blsG2AddNative(counting(defaultG2));
});

const input = (data: Uint8Array, gasLimit = 100_000n) =>
  ({ data, gasLimit, common, _EVM: evm, _debug: undefined }) as unknown as PrecompileInput;

const shape = (r: ExecResult) => ({
  out: Buffer.from(r.returnValue).toString('hex'),
  gas: r.executionGasUsed,
  failed: r.exceptionError !== undefined,
});

/** Runs both implementations; returns the native one's result and whether it stayed native. */
async function both(g2Op: boolean, data: Uint8Array, gasLimit?: bigint) {
  const before = fallbacks;
  const native = shape(await (g2Op ? nativeG2 : nativeG1)(input(data, gasLimit)));
  const native_ = fallbacks === before;
  const ref = shape(await (g2Op ? defaultG2 : defaultG1)(input(data, gasLimit)));
  expect(native).toEqual(ref);
  return { ...native, native: native_ };
}

describe('BLS12_G1ADD through blst', () => {
  it('matches the default on random points, natively, at 375 gas', async () => {
    for (let i = 0; i < 40; i++) {
      const a = randG1();
      const b = randG1();
      const r = await both(false, cat(g1(a), g1(b)));
      expect(r).toMatchObject({ native: true, gas: 375n, failed: false });
      expect(r.out).toBe(Buffer.from(g1(a.add(b))).toString('hex'));
    }
  });

  it('handles doubling, P + (-P), infinity and points outside the subgroup', async () => {
    const a = randG1();
    expect(await both(false, cat(g1(a), g1(a)))).toMatchObject({ native: true, failed: false });
    const cancel = await both(false, cat(g1(a), g1(a.negate())));
    expect(cancel).toMatchObject({ native: true, out: '00'.repeat(128), gas: 375n, failed: false });
    expect(await both(false, cat(new Uint8Array(128), g1(a)))).toMatchObject({
      out: Buffer.from(g1(a)).toString('hex'),
    });
    expect(await both(false, cat(g1(a), new Uint8Array(128)))).toMatchObject({ failed: false });
    expect(await both(false, new Uint8Array(256))).toMatchObject({ out: '00'.repeat(128), failed: false });
    const odd = g1NotInSubgroup(5n);
    expect(await both(false, cat(odd, g1(a)))).toMatchObject({ native: true, failed: false });
    expect(await both(false, cat(odd, odd))).toMatchObject({ native: true, failed: false });
  });

  it('fails like the default (all gas) on invalid input', async () => {
    const a = g1(randG1());
    const b = g1(randG1());
    const offCurve = cat(a.subarray(0, 127), new Uint8Array([(a[127] as number) ^ 1]));
    const xTooBig = cat(fp64(P), a.subarray(64));
    const padded = cat(a);
    padded[3] = 1;
    const cases: [Uint8Array, bigint?][] = [
      [cat(offCurve, b)],
      [cat(b, offCurve)],
      [cat(xTooBig, b)],
      [cat(padded, b)],
      [cat(a, b).subarray(0, 255)],
      [cat(a, b, new Uint8Array(1))],
      [new Uint8Array(0)],
      [cat(a, b), 374n],
      // infinity must be all zeros: (0, 1) is not it
      [cat(cat(fp64(0n), fp64(1n)), b)],
    ];
    for (const [data, gas] of cases) {
      const r = await both(false, data, gas ?? 100_000n);
      expect(r.failed).toBe(true);
      expect(r.gas).toBe(gas ?? 100_000n);
    }
  });
});

describe('BLS12_G2ADD through blst', () => {
  it('matches the default on random points, natively, at 600 gas', async () => {
    for (let i = 0; i < 25; i++) {
      const a = randG2();
      const b = randG2();
      const r = await both(true, cat(g2(a), g2(b)));
      expect(r).toMatchObject({ native: true, gas: 600n, failed: false });
      expect(r.out).toBe(Buffer.from(g2(a.add(b))).toString('hex'));
    }
  });

  it('handles doubling, P + (-P), infinity and points outside the subgroup', async () => {
    const a = randG2();
    expect(await both(true, cat(g2(a), g2(a)))).toMatchObject({ native: true, failed: false });
    expect(await both(true, cat(g2(a), g2(a.negate())))).toMatchObject({
      native: true,
      out: '00'.repeat(256),
      failed: false,
    });
    expect(await both(true, cat(new Uint8Array(256), g2(a)))).toMatchObject({
      out: Buffer.from(g2(a)).toString('hex'),
    });
    expect(await both(true, new Uint8Array(512))).toMatchObject({ out: '00'.repeat(256), failed: false });
    const odd = g2NotInSubgroup(3n);
    expect(await both(true, cat(odd, g2(a)))).toMatchObject({ native: true, failed: false });
  });

  it('fails like the default (all gas) on invalid input', async () => {
    const a = g2(randG2());
    const b = g2(randG2());
    const offCurve = cat(a.subarray(0, 255), new Uint8Array([(a[255] as number) ^ 1]));
    const c1TooBig = cat(a.subarray(0, 64), fp64(P + 1n), a.subarray(128));
    const padded = cat(b);
    padded[200] = 7;
    const cases: [Uint8Array, bigint?][] = [
      [cat(offCurve, b)],
      [cat(b, offCurve)],
      [cat(c1TooBig, b)],
      [cat(a, padded)],
      [cat(a, b).subarray(0, 511)],
      [cat(a, b), 599n],
    ];
    for (const [data, gas] of cases) {
      const r = await both(true, data, gas ?? 100_000n);
      expect(r.failed).toBe(true);
      expect(r.gas).toBe(gas ?? 100_000n);
    }
  });
});

describe('applyNativeBls', () => {
  it('replaces only the two addition precompiles that the map has', () => {
    const other = (() => ({})) as unknown as PrecompileFunc;
    const map = new Map<string, PrecompileFunc | undefined>([
      [BLS_G1_ADD_ADDRESS, defaultG1],
      [BLS_G2_ADD_ADDRESS, defaultG2],
      ['000000000000000000000000000000000000000c', other],
    ]);
    applyNativeBls(map);
    expect(map.get(BLS_G1_ADD_ADDRESS)).not.toBe(defaultG1);
    expect(map.get(BLS_G2_ADD_ADDRESS)).not.toBe(defaultG2);
    expect(map.get('000000000000000000000000000000000000000c')).toBe(other);
    const pre = new Map<string, PrecompileFunc | undefined>();
    applyNativeBls(pre);
    expect(pre.size).toBe(0);
  });
});
