// Channel frames (specs/protocol/derivation.md "Batcher Transaction Format", "Frame Format"): parsing from batcher
// transaction data with every malformed-input rule of the spec, and the batcher-side encoding.
//   batcher tx data = version_byte ++ frame ...      (version 0; anything else is ignored)
//   frame = channel_id(16) ++ frame_number(u16) ++ frame_data_length(u32) ++ frame_data ++ is_last(0|1)
import { TernError } from '../../primitives/errors.js';
import { MAX_FRAME_LEN } from '../../primitives/rollup/config.js';

export const DERIVATION_VERSION_0 = 0;
export const CHANNEL_ID_LENGTH = 16;
/** Fixed bytes of a frame besides its data: 16 + 2 + 4 + 1. */
export const FRAME_OVERHEAD_BYTES = 23;
/** Bytes a frame counts for in the pre-Holocene channel bank size (its data plus this). */
export const FRAME_BANK_OVERHEAD = 200;

export interface Frame {
  /** 16 bytes. */
  readonly id: Uint8Array;
  readonly number: number;
  readonly data: Uint8Array;
  readonly isLast: boolean;
}

export function channelIdHex(id: Uint8Array): string {
  return Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex');
}

function malformed(message: string): never {
  throw new TernError('FRAME_INVALID', message, { severity: 'temporary' });
}

/** Reads one frame at `offset`; returns it and the offset after it. Throws FRAME_INVALID on malformed input. */
export function parseFrame(data: Uint8Array, offset: number): { frame: Frame; next: number } {
  if (data.length - offset < CHANNEL_ID_LENGTH) malformed('frame: truncated channel_id');
  const id = data.slice(offset, offset + CHANNEL_ID_LENGTH);
  let p = offset + CHANNEL_ID_LENGTH;
  if (data.length - p < 2) malformed('frame: truncated frame_number');
  const number = ((data[p] as number) << 8) | (data[p + 1] as number);
  p += 2;
  if (data.length - p < 4) malformed('frame: truncated frame_data_length');
  const len =
    (data[p] as number) * 0x1000000 +
    (data[p + 1] as number) * 0x10000 +
    (data[p + 2] as number) * 0x100 +
    (data[p + 3] as number);
  p += 4;
  // Checked before allocating, so a huge announced length costs nothing.
  if (len > MAX_FRAME_LEN) malformed(`frame: frame_data_length ${len} exceeds ${MAX_FRAME_LEN}`);
  if (data.length - p < len) malformed('frame: truncated frame_data');
  const frameData = data.slice(p, p + len);
  p += len;
  if (data.length - p < 1) malformed('frame: missing is_last');
  const last = data[p] as number;
  if (last > 1) malformed(`frame: is_last byte is ${last}, want 0 or 1`);
  return { frame: { id, number, data: frameData, isLast: last === 1 }, next: p + 1 };
}

/**
 * Parses all frames of one batcher transaction's data. All-or-nothing: if any frame is malformed, or data is left
 * over, or there is no frame, the whole transaction is rejected (TernError FRAME_INVALID).
 */
export function parseFrames(data: Uint8Array): Frame[] {
  if (data.length === 0) malformed('batcher data is empty');
  if (data[0] !== DERIVATION_VERSION_0) malformed(`unknown derivation version ${data[0]}`);
  const frames: Frame[] = [];
  let offset = 1;
  while (offset < data.length) {
    const { frame, next } = parseFrame(data, offset);
    frames.push(frame);
    offset = next;
  }
  if (frames.length === 0) malformed('batcher data holds no frame');
  return frames;
}

/** The encoded size of a frame. */
export function frameSize(frame: Frame): number {
  return FRAME_OVERHEAD_BYTES + frame.data.length;
}

/** Encodes one frame (batcher side). */
export function encodeFrame(frame: Frame): Uint8Array {
  if (frame.id.length !== CHANNEL_ID_LENGTH) throw new TernError('FRAME_INVALID', 'channel id must be 16 bytes');
  if (!Number.isInteger(frame.number) || frame.number < 0 || frame.number > 0xffff) {
    throw new TernError('FRAME_INVALID', `frame number ${frame.number} is not a uint16`);
  }
  if (frame.data.length > MAX_FRAME_LEN) {
    throw new TernError('FRAME_INVALID', `frame data of ${frame.data.length} bytes exceeds ${MAX_FRAME_LEN}`);
  }
  const out = new Uint8Array(frameSize(frame));
  out.set(frame.id, 0);
  const view = new DataView(out.buffer);
  view.setUint16(16, frame.number);
  view.setUint32(18, frame.data.length);
  out.set(frame.data, 22);
  out[22 + frame.data.length] = frame.isLast ? 1 : 0;
  return out;
}

/** Batcher transaction data (calldata or blob payload): the version byte, then the frames. */
export function encodeBatcherData(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 0) throw new TernError('FRAME_INVALID', 'batcher data needs at least one frame');
  const parts = frames.map(encodeFrame);
  const out = new Uint8Array(1 + parts.reduce((n, p) => n + p.length, 0));
  out[0] = DERIVATION_VERSION_0;
  let o = 1;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
