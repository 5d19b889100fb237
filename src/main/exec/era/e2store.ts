// e2store, the container of era and era1 files: a sequence of entries, each an 8-byte header (type: uint16 LE,
// length: uint32 LE, two reserved zero bytes) followed by `length` bytes of value.
import { TernError } from '../../common/errors.js';

export const E2_HEADER_SIZE = 8;
/** geth's limit on one entry's value (50 MB): a larger declared length is refused before anything is read. */
export const E2_VALUE_LIMIT = 50 * 1024 * 1024;

export interface E2Entry {
  type: number;
  value: Uint8Array;
}

export function e2EntryHeader(type: number, length: number): Uint8Array {
  const h = new Uint8Array(E2_HEADER_SIZE);
  const v = new DataView(h.buffer);
  v.setUint16(0, type, true);
  v.setUint32(2, length, true);
  return h;
}

/** One entry: header then value. */
export function encodeE2Entry(type: number, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(E2_HEADER_SIZE + value.length);
  out.set(e2EntryHeader(type, value.length));
  out.set(value, E2_HEADER_SIZE);
  return out;
}

/** Reads `length` bytes at `offset` of a file or buffer; fewer bytes back means the source ended. */
export type ReadAt = (offset: number, length: number) => Uint8Array;

/** The type and value length of the entry whose header is at `offset`. */
export function readE2Header(read: ReadAt, offset: number): { type: number; length: number } {
  const h = read(offset, E2_HEADER_SIZE);
  if (h.length < E2_HEADER_SIZE) throw new TernError('ERA_INVALID', `truncated e2store entry header at ${offset}`);
  const v = new DataView(h.buffer, h.byteOffset, h.byteLength);
  if (h[6] !== 0 || h[7] !== 0)
    throw new TernError('ERA_INVALID', `e2store entry at ${offset}: reserved bytes are not zero`);
  return { type: v.getUint16(0, true), length: v.getUint32(2, true) };
}

/** The entry at `offset`, its value bounded by E2_VALUE_LIMIT. */
export function readE2Entry(read: ReadAt, offset: number): E2Entry & { size: number } {
  const { type, length } = readE2Header(read, offset);
  if (length > E2_VALUE_LIMIT)
    throw new TernError(
      'ERA_INVALID',
      `e2store entry at ${offset} is ${length} bytes, over the ${E2_VALUE_LIMIT} limit`,
    );
  const value = length === 0 ? new Uint8Array(0) : read(offset + E2_HEADER_SIZE, length);
  if (value.length < length) throw new TernError('ERA_INVALID', `truncated e2store entry at ${offset}`);
  return { type, value, size: E2_HEADER_SIZE + length };
}
