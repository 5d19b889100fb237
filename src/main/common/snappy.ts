// Snappy as the P2P protocols and era1 archives use it: the *block* format for gossip messages (one compressed block, its decoded
// length up front) and the *framed* format for request-response payloads (stream identifier, then chunks of at
// most 64 KiB with a masked CRC-32C each, as in the snappy framing format description). Decoding never trusts a
// length it has not bounded first: a declared size above `maxLength` is refused before anything is allocated.
import { createRequire } from 'node:module';
import { TernError } from './errors.js';

interface SnappyJs {
  compress(data: Uint8Array): Uint8Array;
  uncompress(data: Uint8Array, maxLength?: number): Uint8Array;
}
const snappyjs = createRequire(import.meta.url)('snappyjs') as SnappyJs;

function bad(message: string): TernError {
  return new TernError('P2P_SNAPPY', message);
}

/** A plain Uint8Array view (snappyjs treats Buffers differently and returns Buffers for them). */
function plain(b: Uint8Array): Uint8Array {
  return Buffer.isBuffer(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b;
}

/** The decoded length a snappy block declares (its leading uvarint), or undefined if it is not a valid varint. */
export function snappyDecodedLength(data: Uint8Array): number | undefined {
  let result = 0;
  for (let i = 0, shift = 0; i < data.length && shift < 35; i++, shift += 7) {
    const c = data[i] as number;
    result += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) return result <= 0xffff_ffff ? result : undefined;
  }
  return undefined;
}

export function snappyCompress(data: Uint8Array): Uint8Array {
  return snappyjs.compress(plain(data));
}

/**
 * Decodes a snappy block of at most `maxLength` decoded bytes; anything else throws P2P_SNAPPY. The decoder is
 * tern's own, with every length and offset bounded: snappyjs's decoder (still used to compress) loops forever on
 * some malformed inputs (a literal length that wraps negative moves its cursor backwards) and zero-fills output a
 * short stream never wrote — both found by the fuzz harness.
 */
export function snappyUncompress(data: Uint8Array, maxLength: number): Uint8Array {
  const total = snappyDecodedLength(data);
  if (total === undefined) throw bad('invalid snappy length header');
  if (total > maxLength) throw bad(`snappy data decodes to ${total} bytes, more than the ${maxLength} allowed`);
  const out = new Uint8Array(total);
  let pos = 0;
  while ((data[pos] as number) >= 0x80) pos++;
  pos++;
  let outPos = 0;
  const need = (n: number) => {
    if (pos + n > data.length) throw bad('truncated snappy data');
  };
  while (pos < data.length) {
    const c = data[pos++] as number;
    const type = c & 3;
    if (type === 0) {
      let len = (c >>> 2) + 1;
      if (len > 60) {
        const n = len - 60;
        need(n);
        len = 0;
        for (let i = 0; i < n; i++) len += (data[pos + i] as number) * 2 ** (8 * i);
        len += 1;
        pos += n;
      }
      need(len);
      if (outPos + len > total) throw bad('snappy literal runs past the declared length');
      out.set(data.subarray(pos, pos + len), outPos);
      pos += len;
      outPos += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (type === 1) {
      need(1);
      len = ((c >>> 2) & 7) + 4;
      offset = ((c >>> 5) << 8) | (data[pos] as number);
      pos += 1;
    } else if (type === 2) {
      need(2);
      len = (c >>> 2) + 1;
      offset = (data[pos] as number) | ((data[pos + 1] as number) << 8);
      pos += 2;
    } else {
      need(4);
      len = (c >>> 2) + 1;
      offset = new DataView(data.buffer, data.byteOffset + pos, 4).getUint32(0, true);
      pos += 4;
    }
    if (offset === 0 || offset > outPos) throw bad('snappy copy offset out of range');
    if (outPos + len > total) throw bad('snappy copy runs past the declared length');
    // Byte by byte: source and destination may overlap (a run).
    for (let i = 0; i < len; i++) out[outPos + i] = out[outPos + i - offset] as number;
    outPos += len;
  }
  if (outPos !== total) throw bad(`snappy data decodes to ${outPos} bytes, its header says ${total}`);
  return out;
}

// CRC-32C (Castagnoli), reflected polynomial 0x82f63b78.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = (CRC_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The framing format's masked checksum: rotate right by 15 and add 0xa282ead8. */
export function maskedCrc32c(data: Uint8Array): number {
  const c = crc32c(data);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}

const STREAM_IDENTIFIER = Uint8Array.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const CHUNK_COMPRESSED = 0x00;
const CHUNK_UNCOMPRESSED = 0x01;
const MAX_CHUNK_DATA = 65536;

function chunkHeader(type: number, length: number, crc: number): Uint8Array {
  const h = new Uint8Array(8);
  h[0] = type;
  h[1] = length & 0xff;
  h[2] = (length >>> 8) & 0xff;
  h[3] = (length >>> 16) & 0xff;
  new DataView(h.buffer).setUint32(4, crc, true);
  return h;
}

/** Snappy framing format: the stream identifier, then one chunk per 64 KiB of input. */
export function snappyFrameEncode(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_IDENTIFIER];
  for (let at = 0; at < data.length || at === 0; at += MAX_CHUNK_DATA) {
    const piece = data.subarray(at, Math.min(data.length, at + MAX_CHUNK_DATA));
    const crc = maskedCrc32c(piece);
    const compressed = snappyCompress(piece);
    // Keep a chunk uncompressed when compression does not pay (the format allows either).
    const [type, body] =
      compressed.length < piece.length ? [CHUNK_COMPRESSED, compressed] : [CHUNK_UNCOMPRESSED, piece];
    parts.push(chunkHeader(type, body.length + 4, crc), body);
    if (data.length === 0) break;
  }
  return plain(Buffer.concat(parts));
}

/** Decodes a whole snappy-framed stream to at most `maxLength` bytes; bad framing or a checksum throws. */
export function snappyFrameDecode(data: Uint8Array, maxLength: number): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let at = 0;
  let sawIdentifier = false;
  while (at < data.length) {
    if (at + 4 > data.length) throw bad('truncated snappy frame header');
    const type = data[at] as number;
    const len = (data[at + 1] as number) | ((data[at + 2] as number) << 8) | ((data[at + 3] as number) << 16);
    const bodyAt = at + 4;
    if (bodyAt + len > data.length) throw bad('truncated snappy frame');
    const body = data.subarray(bodyAt, bodyAt + len);
    at = bodyAt + len;
    if (type === 0xff) {
      if (len !== 6 || Buffer.compare(body, STREAM_IDENTIFIER.subarray(4)) !== 0)
        throw bad('bad snappy stream identifier');
      sawIdentifier = true;
      continue;
    }
    if (!sawIdentifier) throw bad('snappy frame stream does not start with the stream identifier');
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      if (len < 4) throw bad('snappy chunk too short for its checksum');
      const crc = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
      const payload = type === CHUNK_COMPRESSED ? snappyUncompress(body.subarray(4), MAX_CHUNK_DATA) : body.subarray(4);
      if (payload.length > MAX_CHUNK_DATA) throw bad('snappy chunk holds more than 64 KiB');
      if (maskedCrc32c(payload) !== crc) throw bad('snappy chunk checksum mismatch');
      total += payload.length;
      if (total > maxLength) throw bad(`snappy frames decode to more than the ${maxLength} bytes allowed`);
      out.push(payload);
    } else if (type >= 0x02 && type <= 0x7f) {
      throw bad(`unskippable snappy chunk type 0x${type.toString(16)}`);
    }
    // 0x80-0xfe (padding included) are skippable.
  }
  if (!sawIdentifier) throw bad('empty snappy frame stream');
  return plain(Buffer.concat(out));
}
