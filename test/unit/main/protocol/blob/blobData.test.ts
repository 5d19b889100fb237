import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TernError } from '../../../../../src/main/common/errors.js';
import {
  BYTES_PER_BLOB,
  decodeBlobData,
  encodeBlobData,
  MAX_BLOB_DATA_SIZE,
} from '../../../../../src/main/protocol/blob/blobData.js';

const rand = (n: number) => new Uint8Array(randomBytes(n));

describe('OP blob encoding', () => {
  it('has the spec maximum: (4·31+3)·1024 − 4', () => {
    expect(MAX_BLOB_DATA_SIZE).toBe(130_044);
  });

  it('lays out the header and the first bytes as the spec says', () => {
    const data = new Uint8Array(200).map((_, i) => (i * 7 + 3) & 0xff);
    const blob = encodeBlobData(data);
    expect(blob.length).toBe(BYTES_PER_BLOB);
    // Element 0: 6-bit piece, version 0, length 200 as 3 bytes, then data[0..27).
    expect([...blob.subarray(1, 5)]).toEqual([0, 0, 0, 200]);
    expect([...blob.subarray(5, 32)]).toEqual([...data.subarray(0, 27)]);
    // Element 1 carries data[28..59): byte 27 is spread over the elements' first bytes.
    expect([...blob.subarray(33, 64)]).toEqual([...data.subarray(28, 59)]);
    const x = data[27] as number;
    expect(blob[0]).toBe(x & 0x3f);
    expect((blob[32] as number) >> 4).toBe(x >> 6);
    // Round 1 starts at data offset 123 in element 4.
    expect([...blob.subarray(4 * 32 + 1, 5 * 32)]).toEqual([...data.subarray(123, 154)]);
    for (let fe = 0; fe < 4096; fe++) expect((blob[fe * 32] as number) & 0xc0).toBe(0);
  });

  it.each([0, 1, 27, 28, 122, 123, 124, 127 * 5, 4096, 65_537, MAX_BLOB_DATA_SIZE - 1, MAX_BLOB_DATA_SIZE])(
    'round-trips %i bytes',
    (n) => {
      const data = rand(n);
      expect(Buffer.from(decodeBlobData(encodeBlobData(data))).equals(Buffer.from(data))).toBe(true);
    },
  );

  it('round-trips all-0xff data (every 6-bit piece saturated)', () => {
    const data = new Uint8Array(MAX_BLOB_DATA_SIZE).fill(0xff);
    expect(decodeBlobData(encodeBlobData(data))).toEqual(data);
  });

  it('refuses data that does not fit', () => {
    expect(() => encodeBlobData(new Uint8Array(MAX_BLOB_DATA_SIZE + 1))).toThrow(/at most 130044/);
  });

  const code = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (err) {
      return (err as TernError).code;
    }
    return undefined;
  };

  it('rejects a wrong version, size or length', () => {
    const blob = encodeBlobData(rand(100));
    const v = blob.slice();
    v[1] = 1;
    expect(() => decodeBlobData(v)).toThrow(/version 1/);
    expect(code(() => decodeBlobData(blob.subarray(0, BYTES_PER_BLOB - 1)))).toBe('BLOB_DATA_INVALID');
    const long = blob.slice();
    long.set([0x01, 0xfc, 0xfd], 2); // 130045
    expect(() => decodeBlobData(long)).toThrow(/exceeds/);
  });

  it('rejects a field element with its top bits set', () => {
    const blob = encodeBlobData(rand(1000));
    blob[32 * 5] = (blob[32 * 5] as number) | 0x80;
    expect(() => decodeBlobData(blob)).toThrow(/field element 5/);
  });

  it('rejects trailing bytes past the data, inside and after the last round', () => {
    const inside = encodeBlobData(rand(10));
    inside[5 + 20] = 1; // data byte 20 ≥ length 10
    expect(() => decodeBlobData(inside)).toThrow(/past its length/);
    const after = encodeBlobData(rand(10));
    after[BYTES_PER_BLOB - 1] = 1;
    expect(() => decodeBlobData(after)).toThrow(/past its last data round/);
  });
});
