// A channel under assembly (the frames received so far, by number) and, for the batcher, the channel builder:
// RLP-wrapped batches compressed with zlib, or from Fjord brotli behind the 0x01 version byte, cut into frames.
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, constants as zc } from 'node:zlib';
import { TernError } from '../../primitives/errors.js';
import { rlpEncode } from '../../primitives/rlp.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import { MAX_FRAME_LEN } from '../../primitives/rollup/config.js';
import { CHANNEL_ID_LENGTH, channelIdHex, FRAME_BANK_OVERHEAD, FRAME_OVERHEAD_BYTES, type Frame } from './frame.js';

/** Fjord's versioned channel encoding: this byte, then a brotli stream (no dictionary). */
export const CHANNEL_VERSION_BROTLI = 0x01;

const bankSize = (f: Frame) => f.data.length + FRAME_BANK_OVERHEAD;

export class Channel {
  readonly idHex: string;
  private readonly inputs = new Map<number, Frame>();
  private closed = false;
  private endFrameNumber = 0;
  private highestFrameNumber = 0;
  private _size = 0;
  private _highestL1: L1BlockRef;

  /** `requireInOrder` (Holocene): frames must arrive numbered 0, 1, 2, … with no gap. */
  constructor(
    readonly id: Uint8Array,
    readonly openBlock: L1BlockRef,
    private readonly requireInOrder = false,
  ) {
    this.idHex = channelIdHex(id);
    this._highestL1 = openBlock;
  }

  /**
   * Adds a frame; returns why it was rejected (the spec's insertion conditions), or undefined when it was buffered.
   * A closing frame removes any higher-numbered frames already buffered.
   */
  addFrame(frame: Frame, l1InclusionBlock: L1BlockRef): string | undefined {
    if (channelIdHex(frame.id) !== this.idHex) return 'frame belongs to another channel';
    if (frame.isLast && this.closed) return 'duplicate closing frame';
    if (this.inputs.has(frame.number)) return `duplicate frame ${frame.number}`;
    if (this.closed && frame.number >= this.endFrameNumber) {
      return `frame ${frame.number} is past the closing frame ${this.endFrameNumber}`;
    }
    if (this.requireInOrder && frame.number !== this.inputs.size) {
      return `frame ${frame.number} out of order, want ${this.inputs.size}`;
    }
    if (frame.isLast) {
      this.endFrameNumber = frame.number;
      this.closed = true;
      if (this.endFrameNumber < this.highestFrameNumber) {
        // op-node and kona subtract every buffered frame here, not only the pruned ones; the size feeds the
        // pre-Holocene bank pruning, which is consensus, so the quirk is kept.
        for (const [n, f] of [...this.inputs]) {
          if (n >= this.endFrameNumber) this.inputs.delete(n);
          this._size -= bankSize(f);
        }
        this.highestFrameNumber = this.endFrameNumber;
      }
    }
    if (frame.number > this.highestFrameNumber) this.highestFrameNumber = frame.number;
    if (l1InclusionBlock.number > this._highestL1.number) this._highestL1 = l1InclusionBlock;
    this.inputs.set(frame.number, frame);
    this._size += bankSize(frame);
    return undefined;
  }

  /** Buffered frame data plus 200 bytes per frame (the spec's channel size). */
  get size(): number {
    return this._size;
  }

  get frameCount(): number {
    return this.inputs.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The newest L1 block that contributed a frame. */
  get highestL1Block(): L1BlockRef {
    return this._highestL1;
  }

  /** Closed, with every frame from 0 to the closing one. */
  isReady(): boolean {
    if (!this.closed || this.inputs.size !== this.endFrameNumber + 1) return false;
    for (let i = 0; i <= this.endFrameNumber; i++) if (!this.inputs.has(i)) return false;
    return true;
  }

  /** The channel's compressed data: the frames' data in order. Only for a ready channel. */
  data(): Uint8Array {
    if (!this.isReady()) throw new TernError('CHANNEL_NOT_READY', 'channel is not ready', { severity: 'critical' });
    const parts: Uint8Array[] = [];
    let total = 0;
    for (let i = 0; i <= this.endFrameNumber; i++) {
      const f = this.inputs.get(i) as Frame;
      parts.push(f.data);
      total += f.data.length;
    }
    const out = new Uint8Array(total);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

// ---- batcher side ----

export type CompressionAlgo = 'zlib' | 'brotli';

export interface ChannelOutOptions {
  compression: CompressionAlgo;
  /** 16 bytes; random when absent (the spec recommends unique ids). */
  id?: Uint8Array;
  /** zlib level (default 9, as op-batcher) or brotli quality (default 10). */
  level?: number;
  /** Refuse batches that would take the uncompressed RLP data past this (MAX_RLP_BYTES_PER_CHANNEL of the fork). */
  maxRlpBytes?: number;
}

/** Builds one channel: add typed batches (batch_version ++ content), then cut the compressed data into frames. */
export class ChannelOut {
  readonly id: Uint8Array;
  private readonly chunks: Uint8Array[] = [];
  private rlpBytes = 0;

  constructor(private readonly opts: ChannelOutOptions) {
    this.id = opts.id ?? new Uint8Array(randomBytes(CHANNEL_ID_LENGTH));
    if (this.id.length !== CHANNEL_ID_LENGTH) throw new TernError('CHANNEL_OUT', 'channel id must be 16 bytes');
  }

  /** Adds one encoded batch; each is an RLP byte string in the channel. */
  addBatch(typedBatch: Uint8Array): void {
    const item = rlpEncode(typedBatch);
    if (this.opts.maxRlpBytes !== undefined && this.rlpBytes + item.length > this.opts.maxRlpBytes) {
      throw new TernError(
        'CHANNEL_FULL',
        `batch of ${item.length} bytes would exceed the channel limit of ${this.opts.maxRlpBytes} RLP bytes`,
      );
    }
    this.chunks.push(item);
    this.rlpBytes += item.length;
  }

  /** Uncompressed bytes added so far. */
  get inputBytes(): number {
    return this.rlpBytes;
  }

  /** The channel data the frames carry. */
  compressed(): Uint8Array {
    const input = Buffer.concat(this.chunks);
    if (this.opts.compression === 'zlib') {
      return new Uint8Array(deflateSync(input, { level: this.opts.level ?? 9 }));
    }
    const body = brotliCompressSync(input, {
      params: { [zc.BROTLI_PARAM_QUALITY]: this.opts.level ?? 10, [zc.BROTLI_PARAM_SIZE_HINT]: input.length },
    });
    const out = new Uint8Array(body.length + 1);
    out[0] = CHANNEL_VERSION_BROTLI;
    out.set(body, 1);
    return out;
  }

  /** Cuts the compressed channel into frames of at most `maxFrameSize` encoded bytes each. */
  frames(maxFrameSize: number): Frame[] {
    return splitIntoFrames(this.id, this.compressed(), maxFrameSize);
  }
}

/** Cuts channel data into numbered frames; the last one closes the channel. */
export function splitIntoFrames(id: Uint8Array, data: Uint8Array, maxFrameSize: number): Frame[] {
  const maxData = Math.min(maxFrameSize - FRAME_OVERHEAD_BYTES, MAX_FRAME_LEN);
  if (maxData < 1) throw new TernError('CHANNEL_OUT', `max frame size ${maxFrameSize} leaves no room for data`);
  const count = Math.max(1, Math.ceil(data.length / maxData));
  if (count > 0x10000) throw new TernError('CHANNEL_OUT', `channel needs ${count} frames, more than 65536`);
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) {
    frames.push({ id, number: i, data: data.slice(i * maxData, (i + 1) * maxData), isLast: i === count - 1 });
  }
  return frames;
}
