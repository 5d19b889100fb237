// The era1 file layout, written and read back: geth's TestEra1Builder (128 blocks of raw bytes), the exact bytes of
// the version entry and the block index (offsets relative to the index entry), geth's file-name vectors
// (TestEraFilename), and malformed files refused with a clear error.
import { describe, expect, it } from 'vitest';
import { snappyFrameDecode } from '../../../../../src/main/common/snappy.js';
import { computeAccumulator } from '../../../../../src/main/exec/era/accumulator.js';
import { E2_HEADER_SIZE, readE2Entry } from '../../../../../src/main/exec/era/e2store.js';
import { Era1Builder, Era1Reader, Era1Type, era1Filename } from '../../../../../src/main/exec/era/era1.js';

function build(count: number, start = 0n): { file: Uint8Array; root: Uint8Array } {
  const chunks: Uint8Array[] = [];
  const b = new Era1Builder((c) => chunks.push(c));
  for (let i = 0; i < count; i++) {
    b.add({
      number: start + BigInt(i),
      hash: Uint8Array.from({ length: 32 }, (_, j) => (j === 0 ? i : 0)),
      totalDifficulty: BigInt(i),
      header: Uint8Array.from([0x68, i]),
      body: Uint8Array.from([0x62, i]),
      receipts: Uint8Array.from([0x72, i]),
    });
  }
  const root = b.finish();
  return { file: Buffer.concat(chunks), root };
}

const readerOf = (file: Uint8Array) => new Era1Reader((o, l) => file.subarray(o, o + l), file.length);

describe('era1 files', () => {
  it('reads back what it wrote (geth TestEra1Builder)', () => {
    const { file, root } = build(128);
    const r = readerOf(file);
    expect(r.start).toBe(0n);
    expect(r.count).toBe(128);
    for (let i = 0; i < 128; i++) {
      const b = r.block(BigInt(i));
      expect([...b.header]).toEqual([0x68, i]);
      expect([...b.body]).toEqual([0x62, i]);
      expect([...b.receipts]).toEqual([0x72, i]);
      expect(b.totalDifficulty).toBe(BigInt(i));
      expect([...r.header(BigInt(i))]).toEqual([0x68, i]);
    }
    expect(Buffer.from(r.accumulator()).equals(Buffer.from(root))).toBe(true);
    const records = Array.from({ length: 128 }, (_, i) => ({
      hash: Uint8Array.from({ length: 32 }, (_, j) => (j === 0 ? i : 0)),
      totalDifficulty: BigInt(i),
    }));
    expect(Buffer.from(root).equals(Buffer.from(computeAccumulator(records)))).toBe(true);
  });

  it('lays out entries as geth: version, snappy-framed tuples, accumulator, index relative to its entry', () => {
    const { file } = build(2, 5n);
    const read = (o: number, l: number) => file.subarray(o, o + l);
    // Version: type 0x3265 ("e2"), length 0.
    expect(Buffer.from(file.subarray(0, 8)).toString('hex')).toBe('6532000000000000');
    let off = 8;
    const types: number[] = [];
    const starts: number[] = [];
    while (off < file.length) {
      const e = readE2Entry(read, off);
      if (e.type === Era1Type.compressedHeader) starts.push(off);
      types.push(e.type);
      if (e.type === Era1Type.compressedBody)
        expect([...snappyFrameDecode(e.value, 100)]).toEqual([0x62, starts.length - 1]);
      if (e.type === Era1Type.blockIndex) {
        const v = new DataView(e.value.buffer, e.value.byteOffset, e.value.byteLength);
        expect(e.value.length).toBe(16 + 2 * 8);
        expect(v.getBigUint64(0, true)).toBe(5n);
        expect(v.getBigUint64(24, true)).toBe(2n);
        // Offsets are negative (two's complement) distances from the start of this entry.
        expect(off + Number(v.getBigInt64(8, true))).toBe(starts[0]);
        expect(off + Number(v.getBigInt64(16, true))).toBe(starts[1]);
      }
      off += e.size;
    }
    expect(types).toEqual([3, 4, 5, 6, 3, 4, 5, 6, Era1Type.accumulator, Era1Type.blockIndex]);
    expect(readerOf(file).has(4n)).toBe(false);
    expect(() => readerOf(file).block(7n)).toThrow(/not in this era1 file/);
  });

  it('names files as geth (TestEraFilename)', () => {
    const one = new Uint8Array(32);
    one[0] = 1;
    expect(era1Filename('mainnet', 1, one)).toBe('mainnet-00001-01000000.era1');
    const dead = Buffer.from(`deadbeef${'00'.repeat(28)}`, 'hex');
    expect(era1Filename('goerli', 99999, dead)).toBe('goerli-99999-deadbeef.era1');
  });

  it('refuses blocks out of order and an empty file', () => {
    const b = new Era1Builder(() => {});
    const blk = {
      hash: new Uint8Array(32),
      totalDifficulty: 0n,
      header: new Uint8Array(1),
      body: new Uint8Array(1),
      receipts: new Uint8Array(1),
    };
    b.add({ ...blk, number: 1n });
    expect(() => b.add({ ...blk, number: 3n })).toThrow(/consecutive/);
    expect(() => new Era1Builder(() => {}).finish()).toThrow(/at least one block/);
  });

  it('refuses malformed files with a clear error', () => {
    const { file } = build(3);
    expect(() => readerOf(file.subarray(0, 20))).toThrow(/too short|block index/);
    expect(() => readerOf(file.subarray(0, file.length - 8))).toThrow(/block index/);
    const badReserved = Uint8Array.from(file);
    badReserved[E2_HEADER_SIZE + 6] = 1; // the first header entry's reserved bytes
    expect(() => readerOf(badReserved).block(0n)).toThrow(/reserved bytes/);
    const badVersion = Uint8Array.from(file);
    badVersion[0] = 0;
    expect(() => readerOf(badVersion)).toThrow(/version entry/);
    const badCrc = Uint8Array.from(file);
    badCrc[E2_HEADER_SIZE + E2_HEADER_SIZE + 10 + 4] ^= 0xff; // inside the first header's snappy chunk checksum
    expect(() => readerOf(badCrc).block(0n)).toThrow(/checksum|snappy/);
  });
});
