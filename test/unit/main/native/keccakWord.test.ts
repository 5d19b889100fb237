// The KECCAK256 opcode's hash (keccak-256 of a memory range as a BigInt): native and JS against the independent
// `keccak` package, at offsets and lengths around the 136-byte rate, and the same refusal of ranges outside memory.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { nativeFunction, nativeStatus } from '../../../../src/main/native/index.js';
import { keccak256Word, keccak256WordJs } from '../../../../src/main/native/keccakWord.js';

type CreateKeccak = (algorithm: 'keccak256') => { update(data: Uint8Array): { digest(): Buffer } };
const createKeccak = createRequire(import.meta.url)('keccak') as CreateKeccak;
const reference = (data: Uint8Array): bigint =>
  BigInt(`0x${createKeccak('keccak256').update(Buffer.from(data)).digest().toString('hex')}`);

const memory = Uint8Array.from({ length: 1024 }, (_, i) => (i * 31 + 7) & 0xff);
const native = nativeFunction('keccak256Word');

describe('keccak256Word', () => {
  it('is the native function when the module loaded, the JS twin otherwise', () => {
    if (nativeStatus().loaded) {
      expect(native).toBeTypeOf('function');
      expect(keccak256Word).toBe(native);
    } else expect(keccak256Word).toBe(keccak256WordJs);
  });

  for (const [name, fn] of [
    ['native', native ?? keccak256WordJs],
    ['JS', keccak256WordJs],
  ] as const) {
    it(`${name}: hashes memory[offset, offset + len) to the digest read big-endian`, () => {
      for (const offset of [0, 1, 31, 32, 500, 1024 - 137])
        for (const len of [0, 1, 31, 32, 33, 64, 135, 136, 137]) {
          expect(fn(memory, offset, len)).toBe(reference(memory.subarray(offset, offset + len)));
        }
      // The empty input, at the very end of memory: keccak-256("").
      expect(fn(memory, 1024, 0)).toBe(0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470n);
      // A digest with leading zero bytes still comes back as the right number (no sign, no truncation).
      const small = Uint8Array.of(0x1f);
      expect(fn(small, 0, 1)).toBe(reference(small));
    });

    it(`${name}: refuses a range outside the data with a TypeError coded ERR_INVALID_ARG_VALUE`, () => {
      for (const [offset, len] of [
        [1020, 5],
        [1025, 0],
        [-1, 2],
        [0.5, 1],
        [0, 2 ** 53],
        [Number.NaN, 1],
      ] as const) {
        expect(() => fn(memory, offset, len)).toThrow(TypeError);
        try {
          fn(memory, offset, len);
        } catch (err) {
          expect((err as { code?: string }).code).toBe('ERR_INVALID_ARG_VALUE');
        }
      }
    });
  }
});
