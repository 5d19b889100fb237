// Byte-level helpers of the batch formats: a bounds-checked reader, protobuf uvarints (Go's binary.Uvarint rules),
// and the span-batch "standard bitlist" (big-endian integer, left-padded to whole bytes).
import { TernError } from '../../primitives/errors.js';

export { equalBytes, toHex } from '../../primitives/bytes.js';

export function batchError(message: string): never {
  throw new TernError('BATCH_INVALID', message, { severity: 'temporary' });
}

export class ByteReader {
  offset = 0;
  constructor(readonly data: Uint8Array) {}

  get remaining(): number {
    return this.data.length - this.offset;
  }

  bytes(n: number, what: string): Uint8Array {
    if (this.remaining < n) batchError(`${what}: unexpected end of data`);
    const out = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** Go's binary.ReadUvarint: at most 10 bytes, no overflow past 64 bits. */
  uvarint(what: string): bigint {
    let x = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.remaining < 1) batchError(`${what}: unexpected end of data`);
      const b = this.data[this.offset++] as number;
      if (b < 0x80) {
        if (i === 9 && b > 1) batchError(`${what}: uvarint overflows 64 bits`);
        return x | (BigInt(b) << shift);
      }
      x |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    }
    return batchError(`${what}: uvarint overflows 64 bits`);
  }

  /** A uvarint that must fit a JS number (counts, timestamps, block numbers). */
  uvarintNumber(what: string): number {
    const v = this.uvarint(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) batchError(`${what}: ${v} is too large`);
    return Number(v);
  }
}

export function encodeUvarint(value: bigint | number, out: number[]): void {
  let v = BigInt(value);
  if (v < 0n || v >= 1n << 64n) throw new TernError('BATCH_ENCODE', `uvarint ${v} out of range`);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** Reads a bitlist of `n` bits; bit i is element i. Bits set beyond `n` make it invalid (op-node's rule). */
export function readBits(r: ByteReader, n: number, what: string): Uint8Array {
  const len = Math.ceil(n / 8);
  const buf = r.bytes(len, what);
  const spare = len * 8 - n;
  if (spare > 0 && (buf[0] as number) >> (8 - spare) !== 0) batchError(`${what}: bitfield longer than ${n} bits`);
  const bits = new Uint8Array(n);
  for (let i = 0; i < n; i++) bits[i] = ((buf[len - 1 - (i >> 3)] as number) >> (i & 7)) & 1;
  return bits;
}

export function writeBits(bits: Uint8Array, out: number[]): void {
  const len = Math.ceil(bits.length / 8);
  const buf = new Uint8Array(len);
  for (let i = 0; i < bits.length; i++) {
    if (bits[i]) buf[len - 1 - (i >> 3)] = (buf[len - 1 - (i >> 3)] as number) | (1 << (i & 7));
  }
  for (const b of buf) out.push(b);
}

export function pushBytes(out: number[], bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i] as number);
}

export function fromHex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h.replace(/^0x/, ''), 'hex'));
}
