import { describe, expect, it } from 'vitest';
import { applyOverrides, assertCompatible, checkCompatible } from '../../../../../src/main/exec/chain/overrides.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';

const OP = parseChainConfig({
  chainId: 10,
  homesteadBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  bedrockBlock: 0,
  regolithTime: 0,
  canyonTime: 100,
  shanghaiTime: 100,
  ecotoneTime: 200,
  cancunTime: 200,
  terminalTotalDifficulty: 0,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
});

describe('applyOverrides', () => {
  it('moves the L1 fork with its OP fork, as op-geth does', () => {
    const c = applyOverrides(OP, { canyon: 50n, ecotone: 150n, isthmus: 300n, jovian: 400n, interop: 500n });
    expect(c.times.canyonTime).toBe(50n);
    expect(c.times.shanghaiTime).toBe(50n);
    expect(c.times.ecotoneTime).toBe(150n);
    expect(c.times.cancunTime).toBe(150n);
    expect(c.times.isthmusTime).toBe(300n);
    expect(c.times.pragueTime).toBe(300n);
    expect(c.times.jovianTime).toBe(400n);
    expect(c.times.interopTime).toBe(500n);
    // Canyon without a Canyon denominator gets op-geth's default.
    expect(c.optimism?.eip1559DenominatorCanyon).toBe(250n);
    // The input is untouched.
    expect(OP.times.canyonTime).toBe(100n);
    expect(OP.raw.optimism).toEqual({ eip1559Elasticity: 6, eip1559Denominator: 50 });
  });

  it('applies Ecotone after Cancun (the later override wins) and returns the config itself without overrides', () => {
    expect(applyOverrides(OP, { cancun: 110n, ecotone: 120n }).times.cancunTime).toBe(120n);
    expect(applyOverrides(OP, {})).toBe(OP);
  });

  it('refuses an override that puts L1 forks out of order', () => {
    expect(() => applyOverrides(OP, { isthmus: 150n })).toThrow(
      /pragueTime \(150\) activates before cancunTime \(200\)/,
    );
  });
});

describe('checkCompatible', () => {
  it('reports the first fork moved at or below the head with geth’s message and rewind point', () => {
    const next = applyOverrides(OP, { ecotone: 180n });
    expect(checkCompatible(OP, next, { number: 5n, time: 150n })).toBeUndefined();
    const err = checkCompatible(OP, next, { number: 5n, time: 190n });
    expect(err?.message).toBe(
      'mismatching Cancun fork timestamp in database (have timestamp 200, want timestamp 180, rewindto timestamp 179)',
    );
    expect(err?.rewindTo).toBe(179n);
  });

  it('finds the lowest conflict when several forks move', () => {
    const next = applyOverrides(OP, { canyon: 90n, ecotone: 180n });
    expect(checkCompatible(OP, next, { number: 9n, time: 300n })?.what).toBe('Shanghai fork timestamp');
  });

  it('ignores activations before the genesis timestamp (a migrated chain)', () => {
    const next = applyOverrides(OP, { canyon: 5n });
    expect(checkCompatible(OP, next, { number: 9n, time: 300n }, 10n)).toBeUndefined();
    expect(checkCompatible(OP, next, { number: 9n, time: 300n }, 1n)).toBeDefined();
  });

  it('refuses to rewrite imported blocks but lets a chain at genesis change', () => {
    const next = applyOverrides(OP, { ecotone: 180n });
    expect(() => assertCompatible(OP, next, { number: 3n, time: 250n })).toThrow(
      /mismatching Cancun fork timestamp.*would change blocks already imported \(head 3\)/,
    );
    expect(() => assertCompatible(OP, next, { number: 0n, time: 250n })).not.toThrow();
    expect(() => assertCompatible(OP, applyOverrides(OP, { ecotone: 900n }), { number: 3n, time: 150n })).not.toThrow();
  });
});
