// The OP-Stack blob encoding (specs/protocol/derivation.md, "Blob Encoding", version 0): 4096 field elements of
// 32 bytes, each carrying 31 whole bytes plus 6 low bits of its first byte (the top two bits stay zero so the
// element is below the BLS modulus). Four elements form a round of 127 bytes: their four 6-bit pieces make three
// extra bytes. The first element of round 0 holds the version byte and a 3-byte big-endian length, so round 0
// carries 123 bytes of data and the blob at most 123 + 1023 × 127 = 130,044.
import { TernError } from '../../primitives/errors.js';

export const BYTES_PER_BLOB = 131_072;
export const FIELD_ELEMENTS_PER_BLOB = 4096;
export const ROUNDS_PER_BLOB = FIELD_ELEMENTS_PER_BLOB / 4;
export const BLOB_ENCODING_VERSION = 0;
export const MAX_BLOB_DATA_SIZE = (4 * 31 + 3) * ROUNDS_PER_BLOB - 4;

function bad(message: string): never {
  throw new TernError('BLOB_DATA_INVALID', message);
}

/** Output offset of round r: round 0 starts 4 bytes "early" (its first element's header bytes are not data). */
const roundBase = (r: number): number => r * 127 - 4;

/** Encodes up to MAX_BLOB_DATA_SIZE bytes into a blob (the batcher's side). */
export function encodeBlobData(data: Uint8Array): Uint8Array {
  if (data.length > MAX_BLOB_DATA_SIZE) {
    throw new TernError('BLOB_DATA_TOO_LARGE', `blob data is ${data.length} bytes, at most ${MAX_BLOB_DATA_SIZE} fit`);
  }
  const blob = new Uint8Array(BYTES_PER_BLOB);
  blob[1] = BLOB_ENCODING_VERSION;
  blob[2] = (data.length >>> 16) & 0xff;
  blob[3] = (data.length >>> 8) & 0xff;
  blob[4] = data.length & 0xff;
  const at = (i: number): number => (i >= 0 && i < data.length ? (data[i] as number) : 0);
  for (let r = 0; r < ROUNDS_PER_BLOB; r++) {
    const o = roundBase(r);
    if (r > 0 && o >= data.length) break;
    for (let j = 0; j < 4; j++) {
      const fe = (4 * r + j) * 32;
      const from = o + 32 * j;
      // Round 0's first element keeps bytes 1..4 for the version and length.
      for (let k = r === 0 && j === 0 ? 5 : 1; k < 32; k++) blob[fe + k] = at(from + k - 1);
    }
    const x = at(o + 31);
    const y = at(o + 63);
    const z = at(o + 95);
    const fe0 = 4 * r * 32;
    blob[fe0] = x & 0x3f;
    blob[fe0 + 32] = ((x >> 6) << 4) | (y & 0x0f);
    blob[fe0 + 64] = z & 0x3f;
    blob[fe0 + 96] = ((z >> 6) << 4) | (y >> 4);
  }
  return blob;
}

/**
 * Decodes a version-0 blob. Rejects (BLOB_DATA_INVALID) a wrong size or version, a length above the maximum, a
 * field element with its top bits set, and non-zero bytes past the data (the encoding is canonical).
 */
export function decodeBlobData(blob: Uint8Array): Uint8Array {
  if (blob.length !== BYTES_PER_BLOB) bad(`blob is ${blob.length} bytes, want ${BYTES_PER_BLOB}`);
  if (blob[1] !== BLOB_ENCODING_VERSION) bad(`blob encoding version ${blob[1]} is not ${BLOB_ENCODING_VERSION}`);
  const len = ((blob[2] as number) << 16) | ((blob[3] as number) << 8) | (blob[4] as number);
  if (len > MAX_BLOB_DATA_SIZE) bad(`blob data length ${len} exceeds ${MAX_BLOB_DATA_SIZE}`);
  // Rounds holding data (round 0 always), decoded into a buffer that ends with the last of them.
  let rounds = 1;
  while (rounds < ROUNDS_PER_BLOB && roundBase(rounds) < len) rounds++;
  const out = new Uint8Array(roundBase(rounds));
  for (let r = 0; r < rounds; r++) {
    const o = roundBase(r);
    const e = [0, 0, 0, 0];
    for (let j = 0; j < 4; j++) {
      const fe = (4 * r + j) * 32;
      const first = blob[fe] as number;
      if (first & 0xc0)
        bad(`blob field element ${4 * r + j} has its top bits set (first byte 0x${first.toString(16)})`);
      e[j] = first;
      const from = o + 32 * j;
      for (let k = r === 0 && j === 0 ? 5 : 1; k < 32; k++) out[from + k - 1] = blob[fe + k] as number;
    }
    const [e0, e1, e2, e3] = e as [number, number, number, number];
    out[o + 31] = (e0 & 0x3f) | ((e1 & 0x30) << 2);
    out[o + 63] = (e1 & 0x0f) | ((e3 & 0x0f) << 4);
    out[o + 95] = (e2 & 0x3f) | ((e3 & 0x30) << 2);
  }
  for (let i = len; i < out.length; i++) {
    if (out[i] !== 0) bad(`blob has non-zero data byte at ${i}, past its length ${len}`);
  }
  for (let i = rounds * 4 * 32; i < BYTES_PER_BLOB; i++) {
    if (blob[i] !== 0) bad(`blob has non-zero byte ${i} past its last data round`);
  }
  return out.length === len ? out : out.slice(0, len);
}
