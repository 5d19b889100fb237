// The KECCAK256 opcode's hash: keccak-256 of a range of the frame's memory, as the BigInt stack word. Natively it
// hashes the memory where it lies and builds the BigInt from the digest's words; the JS twin hashes with
// @noble/hashes and reads the digest as four 64-bit words (no hex string, no byte loop).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { nativeFunction } from './index.js';

function rangeError(offset: number, len: number, length: number): TypeError {
  const message = `keccak256Word: range [${offset}, ${offset} + ${len}) is outside data (length ${length})`;
  return Object.assign(new TypeError(message), { code: 'ERR_INVALID_ARG_VALUE' });
}

/** `bytes[at, at + 32)` read as a big-endian 256-bit number. */
export function wordAt(view: DataView, at: number): bigint {
  return (
    (view.getBigUint64(at) << 192n) |
    (view.getBigUint64(at + 8) << 128n) |
    (view.getBigUint64(at + 16) << 64n) |
    view.getBigUint64(at + 24)
  );
}

/** {@link keccak256Word} in JS. */
export function keccak256WordJs(data: Uint8Array, offset: number, len: number): bigint {
  if (!(Number.isInteger(offset) && Number.isInteger(len) && offset >= 0 && len >= 0 && offset + len <= data.length))
    throw rangeError(offset, len, data.length);
  const digest = keccak_256(data.subarray(offset, offset + len));
  return wordAt(new DataView(digest.buffer, digest.byteOffset, 32), 0);
}

/** keccak-256 of data[offset, offset + len) as a BigInt; TypeError (ERR_INVALID_ARG_VALUE) for a range outside data. */
export const keccak256Word: (data: Uint8Array, offset: number, len: number) => bigint =
  nativeFunction('keccak256Word') ?? keccak256WordJs;
