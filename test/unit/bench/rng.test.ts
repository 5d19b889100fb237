// The seeded streams are pinned: fuzz seeds, the EVM differential cases, the synthetic chains and the import
// benchmark's cached chain all depend on them, so a change to a generator must fail here first.
import { describe, expect, it } from 'vitest';
import { mulberryRng, sfc32Rng, xorshiftRng } from '../../../bench/rng.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('xorshiftRng', () => {
  it('is xorshift32 (13, 17, 5), and a seed of 0 runs as 1', () => {
    const r = xorshiftRng(1);
    expect([r.next(), r.next(), r.next()]).toEqual([270369, 67634689, 2647435461]);
    expect(xorshiftRng(0).next()).toBe(270369);
  });

  it('draws int by modulo, bytes from the low 8 bits and float over 2^32', () => {
    expect(hex(xorshiftRng(7).bytes(8))).toBe('e7074345ff94ba57');
    const r = xorshiftRng(42);
    expect([r.int(1000), r.pick(['a', 'b', 'c', 'd', 'e']), r.chance(0.5), hex(r.bytes(4))]).toEqual([
      432,
      'd',
      true,
      'c0c4b6d8',
    ]);
    const a = xorshiftRng(9);
    const b = xorshiftRng(9);
    expect(a.float()).toBe(b.next() / 2 ** 32);
    expect(a.int(7)).toBe(b.next() % 7);
  });
});

describe('mulberryRng', () => {
  it('is mulberry32, scaled to [0, 1)', () => {
    const r = mulberryRng(5);
    expect([r.float(), r.float(), r.float()]).toEqual([0.6897749109193683, 0.7727432732935995, 0.21976301027461886]);
    expect(mulberryRng(0).float()).toBe(0.26642920868471265);
  });

  it('draws int, pick and bytes by scaling float', () => {
    const r = mulberryRng(42);
    expect([r.int(1000), r.pick(['a', 'b', 'c', 'd', 'e']), r.chance(0.5), hex(r.bytes(4))]).toEqual([
      601,
      'c',
      false,
      'ab2c8645',
    ]);
    const a = mulberryRng(3);
    const b = mulberryRng(3);
    expect(a.int(1000)).toBe(Math.floor(b.float() * 1000));
  });
});

describe('sfc32Rng', () => {
  it('is sfc32 after 16 warm-up rounds', () => {
    const r = sfc32Rng(1);
    expect([r.next(), r.next()]).toEqual([3964317691, 2295682031]);
    expect(sfc32Rng(1).float()).toBe(3964317691 / 2 ** 32);
  });
});
