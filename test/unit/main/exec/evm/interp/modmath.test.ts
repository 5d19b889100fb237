// ADDMOD and MULMOD's fast routes against the definition ((a op b) mod c by BigInt division, 0 for c = 0) over edge
// words and random ones, with each modulus used several times in a row so Barrett's route (taken from the second
// consecutive use of a modulus of 193 bits and more) runs as often as the plain one.
import { describe, expect, it } from 'vitest';
import { xorshiftRng } from '../../../../../../bench/rng.js';
import { addmod, mulmod } from '../../../../../../src/main/exec/evm/interp/modmath.js';

const MAX = (1n << 256n) - 1n;
const EDGES = [
  0n,
  1n,
  2n,
  3n,
  19n,
  (1n << 64n) - 1n,
  1n << 128n,
  (1n << 192n) - 1n,
  1n << 192n,
  (1n << 192n) + 1n,
  (1n << 255n) - 19n,
  (1n << 255n) - 1n,
  1n << 255n,
  (1n << 255n) + 1n,
  MAX - 1n,
  MAX,
];

const addRef = (a: bigint, b: bigint, c: bigint): bigint => (c === 0n ? 0n : (a + b) % c);
const mulRef = (a: bigint, b: bigint, c: bigint): bigint => (c === 0n ? 0n : (a * b) % c);

function randomWord(next: () => number): bigint {
  // A random bit length, then random bits below it: small, mid-sized and full words alike.
  const bits = next() % 257;
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(next() >>> 0);
  return bits === 0 ? 0n : v >> BigInt(256 - bits);
}

describe('ADDMOD and MULMOD over 256-bit words', () => {
  it('agree with the definition on every triple of edge words, each modulus three times in a row', () => {
    for (const c of EDGES)
      for (let pass = 0; pass < 3; pass++)
        for (const a of EDGES)
          for (const b of EDGES) {
            expect(addmod(a, b, c)).toBe(addRef(a, b, c));
            expect(mulmod(a, b, c)).toBe(mulRef(a, b, c));
          }
  });

  it('agree with the definition on random words, moduli repeated and alternating', () => {
    const rng = xorshiftRng(0x5eed);
    const next = rng.next;
    const moduli = Array.from({ length: 40 }, () => randomWord(next));
    moduli.push((1n << 255n) - 19n, MAX, 1n << 200n);
    let checked = 0;
    for (const c of moduli) {
      for (let i = 0; i < 200; i++) {
        // Mostly this modulus (Barrett's route once it repeats), sometimes another in between (its constants reset).
        const m = i % 17 === 16 ? (moduli[next() % moduli.length] as bigint) : c;
        const a = i % 3 === 0 ? randomWord(next) % (m === 0n ? 1n : m) : randomWord(next);
        const b = randomWord(next);
        expect(mulmod(a, b, m)).toBe(mulRef(a, b, m));
        expect(addmod(a, b, m)).toBe(addRef(a, b, m));
        checked++;
      }
    }
    expect(checked).toBe(moduli.length * 200);
  });

  it('reduces products whose Barrett estimate needs both corrective subtractions', () => {
    // Products just below multiples of the modulus, where the quotient estimate falls short the most.
    for (const c of [(1n << 255n) - 19n, (1n << 193n) + 12345n, MAX - 2n]) {
      for (let k = 0n; k < 50n; k++) {
        const a = c - 1n - k;
        const b = c - 1n;
        mulmod(1n, 1n, c);
        expect(mulmod(a, b, c)).toBe(mulRef(a, b, c));
        expect(mulmod(a, a, c)).toBe(mulRef(a, a, c));
      }
    }
  });
});
