// One outgoing channel (op-batcher's channel builder): takes L2 blocks until the compressor says the channel would
// pass its target size or a timeout comes near, then compresses the blocks' batches (singular, or one span batch)
// and cuts the result into frames. The target is targetNumFrames frames' worth of compressed data.
import { randomBytes } from 'node:crypto';
import { TernError } from '../common/errors.js';
import { encodeBatchData, SINGULAR_BATCH_TYPE, SPAN_BATCH_TYPE } from '../protocol/batch/batchCodec.js';
import { SpanBatchBuilder } from '../protocol/batch/spanBatch.js';
import { ChannelOut, type CompressionAlgo, splitIntoFrames } from '../protocol/channel/channel.js';
import { CHANNEL_ID_LENGTH, FRAME_OVERHEAD_BYTES, type Frame } from '../protocol/channel/frame.js';
import { blockInputSize, type L2Block, toSingularBatch } from './l2Block.js';
import type { CompressorKind } from './options.js';

export interface ChannelConfig {
  readonly compression: CompressionAlgo;
  readonly level: number;
  readonly spanBatches: boolean;
  /** L2 genesis time and chain id, for span batches. */
  readonly genesisTime: number;
  readonly chainId: bigint;
  /** Largest encoded frame (calldata: the tx payload less its version byte; blobs: a blob's capacity less it). */
  readonly maxFrameSize: number;
  readonly targetNumFrames: number;
  readonly compressor: CompressorKind;
  readonly approxComprRatio: number;
  /** MAX_RLP_BYTES_PER_CHANNEL of the fork. */
  readonly maxRlpBytes: number;
  readonly useBlobs: boolean;
  /** In L1 blocks. */
  readonly channelTimeout: number;
  readonly seqWindowSize: number;
  readonly subSafetyMargin: number;
  /** 0: none. */
  readonly maxChannelDuration: number;
}

export type FullReason = 'compressor-full' | 'rlp-limit' | 'max-duration' | 'channel-timeout' | 'seq-window' | 'forced';

export class ChannelBuilder {
  readonly id: Uint8Array;
  readonly blocks: L2Block[] = [];
  private full: FullReason | undefined;
  private measured = 0;
  private unmeasured = 0;
  private inputBytes = 0;
  private timeoutBlock: number;
  private timeoutReason: FullReason;

  constructor(
    readonly cfg: ChannelConfig,
    /** The L1 head when the channel was opened. */
    readonly openedAt: number,
    id?: Uint8Array,
  ) {
    this.id = id ?? new Uint8Array(randomBytes(CHANNEL_ID_LENGTH));
    this.timeoutBlock = openedAt + cfg.channelTimeout - cfg.subSafetyMargin;
    this.timeoutReason = 'channel-timeout';
    if (cfg.maxChannelDuration > 0 && openedAt + cfg.maxChannelDuration < this.timeoutBlock) {
      this.timeoutBlock = openedAt + cfg.maxChannelDuration;
      this.timeoutReason = 'max-duration';
    }
  }

  /** Compressed bytes aimed at. */
  get targetSize(): number {
    return this.cfg.targetNumFrames * (this.cfg.maxFrameSize - FRAME_OVERHEAD_BYTES);
  }

  get fullReason(): FullReason | undefined {
    return this.full;
  }

  get isFull(): boolean {
    return this.full !== undefined;
  }

  /** The L1 block at which the channel must be closed. */
  get timeout(): number {
    return this.timeoutBlock;
  }

  /**
   * Adds a block. Returns false, and marks the channel full, when the block does not fit: it then belongs in the next
   * channel. A block alone in a channel is always taken, however large.
   */
  addBlock(block: L2Block): boolean {
    if (this.full) throw new TernError('CHANNEL_FULL', 'channel is full');
    const size = blockInputSize(block);
    const empty = this.blocks.length === 0;
    if (!empty && this.inputBytes + size > this.cfg.maxRlpBytes) {
      this.full = 'rlp-limit';
      return false;
    }
    if (this.cfg.compressor === 'ratio') {
      const estimate = (this.inputBytes + size) * this.cfg.approxComprRatio;
      if (!empty && estimate > this.targetSize) {
        this.full = 'compressor-full';
        return false;
      }
      this.accept(block, size);
      if (estimate >= this.targetSize) this.full = 'compressor-full';
      return true;
    }
    // shadow: compressed output grows by at most the input added (plus framing), so only compress for real when
    // that bound could pass the target.
    if (this.measured + this.unmeasured + size <= this.targetSize) {
      this.accept(block, size);
      this.unmeasured += size;
      return true;
    }
    const real = this.compress([...this.blocks, block]).length;
    if (!empty && real > this.targetSize) {
      this.full = 'compressor-full';
      return false;
    }
    this.accept(block, size);
    this.measured = real;
    this.unmeasured = 0;
    if (real >= this.targetSize) this.full = 'compressor-full';
    return true;
  }

  private accept(block: L2Block, size: number): void {
    this.blocks.push(block);
    this.inputBytes += size;
    const seqTimeout = block.l1Origin.number + this.cfg.seqWindowSize - this.cfg.subSafetyMargin;
    if (seqTimeout < this.timeoutBlock) {
      this.timeoutBlock = seqTimeout;
      this.timeoutReason = 'seq-window';
    }
  }

  /** Marks the channel full when the L1 head has reached its timeout. */
  checkTimeout(l1Head: number): void {
    if (!this.full && this.blocks.length > 0 && l1Head >= this.timeoutBlock) this.full = this.timeoutReason;
  }

  /** Closes the channel whatever its fill (shutdown, or the last blocks are wanted out). */
  forceClose(): void {
    this.full ??= 'forced';
  }

  /** The channel's compressed data. */
  compress(blocks: readonly L2Block[] = this.blocks): Uint8Array {
    if (blocks.length === 0) throw new TernError('CHANNEL_EMPTY', 'channel has no blocks');
    const out = new ChannelOut({ compression: this.cfg.compression, level: this.cfg.level, id: this.id });
    if (this.cfg.spanBatches) {
      const span = new SpanBatchBuilder(this.cfg.genesisTime, this.cfg.chainId);
      for (const b of blocks) span.append(toSingularBatch(b), b.sequenceNumber);
      out.addBatch(encodeBatchData({ type: SPAN_BATCH_TYPE, batch: span.toRaw() }));
    } else {
      for (const b of blocks) out.addBatch(encodeBatchData({ type: SINGULAR_BATCH_TYPE, batch: toSingularBatch(b) }));
    }
    return out.compressed();
  }

  /** The frames of the closed channel, in order; the last one has is_last set. */
  frames(): Frame[] {
    return splitIntoFrames(this.id, this.compress(), this.cfg.maxFrameSize);
  }
}
