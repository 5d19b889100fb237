// Splits a byte stream of concatenated RLP items (an `import` file, chain.rlp) into the items' raw bytes.
import { TernError } from './errors.js';

/** The length of the RLP item at `offset` (header and payload), without decoding its contents. */
export function rlpItemLength(data: Uint8Array, offset: number): number {
  const b = data[offset];
  if (b === undefined) throw new TernError('RLP_INVALID', 'invalid RLP: unexpected end of data');
  if (b < 0x80) return 1;
  if (b < 0xb8) return 1 + (b - 0x80);
  if (b < 0xc0) return 1 + (b - 0xb7) + readLength(data, offset + 1, b - 0xb7);
  if (b < 0xf8) return 1 + (b - 0xc0);
  return 1 + (b - 0xf7) + readLength(data, offset + 1, b - 0xf7);
}

function readLength(data: Uint8Array, offset: number, size: number): number {
  if (offset + size > data.length) throw new TernError('RLP_INVALID', 'invalid RLP: truncated length');
  let n = 0;
  for (let i = 0; i < size; i++) n = n * 256 + (data[offset + i] as number);
  return n;
}

/** Yields each complete item; a truncated last item is an error that says at which byte it starts. */
export function* rlpItems(data: Uint8Array): Generator<Uint8Array> {
  let offset = 0;
  while (offset < data.length) {
    const len = rlpItemLength(data, offset);
    if (offset + len > data.length) {
      throw new TernError('RLP_INVALID', `invalid RLP: item at byte ${offset} runs past the end of the data`);
    }
    yield data.subarray(offset, offset + len);
    offset += len;
  }
}
