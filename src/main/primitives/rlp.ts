// RLP: the strict decoder and the encoder, over @ethereumjs/rlp (canonical-form checks included: no leading
// zeros in lengths, no single byte below 0x80 wrapped in a string header, no trailing bytes), plus the
// integer helpers every structure here needs.
import { RLP } from '@ethereumjs/rlp';
import { TernError } from './errors.js';

export type RlpInput = Uint8Array | bigint | number | string | RlpInput[] | null | undefined;
export type RlpDecoded = Uint8Array | RlpDecoded[];

export function rlpEncode(input: RlpInput): Uint8Array {
  return RLP.encode(input as Parameters<typeof RLP.encode>[0]);
}

/** Decodes one complete RLP item; throws TernError RLP_INVALID on any malformed or non-canonical input. */
export function rlpDecode(data: Uint8Array): RlpDecoded {
  if (data.length === 0) throw new TernError('RLP_INVALID', 'invalid RLP: empty input');
  try {
    return RLP.decode(data) as RlpDecoded;
  } catch (err) {
    throw new TernError('RLP_INVALID', `invalid RLP: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Minimal big-endian bytes of a non-negative integer (0 → empty), as RLP and the state trie store integers. */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError('negative integer');
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Reads an RLP integer: big-endian, no leading zero byte (canonical), empty = 0. */
export function bytesToBigint(bytes: Uint8Array, what = 'integer'): bigint {
  if (!(bytes instanceof Uint8Array)) throw new TernError('RLP_INVALID', `${what}: expected bytes, got a list`);
  if (bytes.length === 0) return 0n;
  if (bytes[0] === 0) throw new TernError('RLP_INVALID', `${what}: leading zero byte`);
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

export function asBytes(item: RlpDecoded | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new TernError('RLP_INVALID', `${what}: expected bytes`);
  return item;
}

export function asList(item: RlpDecoded | undefined, what: string): RlpDecoded[] {
  if (!Array.isArray(item)) throw new TernError('RLP_INVALID', `${what}: expected a list`);
  return item;
}
