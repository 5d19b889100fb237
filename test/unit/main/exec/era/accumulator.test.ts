// The era1 accumulator against an independent SSZ implementation (@chainsafe/ssz, Lodestar's): the hash_tree_root
// of List[{block_hash: Bytes32, total_difficulty: uint256}, 8192] for empty, odd, and full lists.
import { randomBytes } from 'node:crypto';
import { ByteVectorType, ContainerType, ListCompositeType, UintBigintType } from '@chainsafe/ssz';
import { describe, expect, it } from 'vitest';
import {
  computeAccumulator,
  ERA1_MAX_BLOCKS,
  uint256FromLE,
  uint256LE,
} from '../../../../../src/main/exec/era/accumulator.js';

const HeaderRecord = new ContainerType({ blockHash: new ByteVectorType(32), totalDifficulty: new UintBigintType(32) });
const Accumulator = new ListCompositeType(HeaderRecord, ERA1_MAX_BLOCKS);

function records(n: number, seed: number) {
  return Array.from({ length: n }, (_, i) => ({
    hash: new Uint8Array(randomBytes(32)),
    // Small, large and near-2^256 difficulties: the uint256 is written little-endian.
    totalDifficulty:
      i % 3 === 0 ? BigInt(seed + i) : i % 3 === 1 ? (1n << 200n) + BigInt(i) : (1n << 256n) - 1n - BigInt(i),
  }));
}

describe('era1 accumulator', () => {
  for (const n of [0, 1, 2, 3, 127, 128, 1000, ERA1_MAX_BLOCKS]) {
    it(`matches @chainsafe/ssz for ${n} records`, () => {
      const recs = records(n, n);
      const expected = Accumulator.hashTreeRoot(
        recs.map((r) => ({ blockHash: r.hash, totalDifficulty: r.totalDifficulty })),
      );
      expect(Buffer.from(computeAccumulator(recs)).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    });
  }

  it('refuses more than 8192 records and a hash that is not 32 bytes', () => {
    expect(() => computeAccumulator(records(ERA1_MAX_BLOCKS + 1, 0))).toThrow(/too many records/);
    expect(() => computeAccumulator([{ hash: new Uint8Array(31), totalDifficulty: 1n }])).toThrow(/32 bytes/);
  });

  it('writes uint256 little-endian and reads it back', () => {
    expect(Buffer.from(uint256LE(0x0102n)).toString('hex')).toBe(`0201${'00'.repeat(30)}`);
    expect(uint256FromLE(uint256LE((1n << 255n) + 7n))).toBe((1n << 255n) + 7n);
    expect(() => uint256LE(1n << 256n)).toThrow(/uint256/);
    expect(() => uint256LE(-1n)).toThrow(/uint256/);
  });
});
