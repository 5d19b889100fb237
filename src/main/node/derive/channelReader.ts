// Channel reader (derivation.md "Channel Reader", fjord/derivation.md "Brotli Channel Compression"): decompresses
// a channel (decompress.ts: zlib; from Fjord also brotli behind the 0x01 version byte), keeping at most
// MAX_RLP_BYTES_PER_CHANNEL decompressed bytes (on the decompression pool when given one), then reads RLP byte
// strings, each a typed batch. A malformed batch ends the channel; a span batch before Delta, or one whose
// transactions cannot be rebuilt, is dropped alone. Drops are debug-logged, counted.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { rlpDecode } from '../../primitives/rlp.js';
import { rlpItemLength } from '../../primitives/rlpStream.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import { isDelta, isFjord, maxRlpBytesPerChannel, type RollupConfig } from '../../primitives/rollup/config.js';
import { type BatchData, decodeBatchData, SINGULAR_BATCH_TYPE } from '../../protocol/batch/batchCodec.js';
import { batchError } from '../../protocol/batch/bytes.js';
import type { SingularBatch } from '../../protocol/batch/singularBatch.js';
import { deriveSpanBatch, type SpanBatch } from '../../protocol/batch/spanBatch.js';
import type { CompressionAlgo } from '../../protocol/channel/channel.js';
import {
  type ChannelDecompress,
  DECOMPRESS_UNAVAILABLE,
  decompressChannel,
} from '../../protocol/channel/decompress.js';
import type { ChannelDataSource } from './channelBank.js';
import { type StageDeps, stageLogger } from './frameQueue.js';

export type DecodedBatch =
  | { readonly type: 'singular'; readonly batch: SingularBatch; readonly compression: CompressionAlgo }
  | { readonly type: 'span'; readonly batch: SpanBatch; readonly compression: CompressionAlgo };

/** Reads the typed batches (RLP byte strings) of decompressed channel data, in order. */
export class BatchReader {
  private offset = 0;
  constructor(private readonly data: Uint8Array) {}

  /** The next typed batch's bytes, or undefined at the end. Throws BATCH_INVALID on malformed RLP. */
  next(): Uint8Array | undefined {
    if (this.offset >= this.data.length) return undefined;
    const head = this.data[this.offset] as number;
    if (head >= 0xc0) batchError('channel: batch must be an RLP string, got a list');
    let len: number;
    try {
      len = rlpItemLength(this.data, this.offset);
    } catch {
      return batchError('channel: truncated RLP header');
    }
    if (this.offset + len > this.data.length) batchError('channel: batch runs past the end (or the size limit)');
    const item = rlpDecode(this.data.subarray(this.offset, this.offset + len));
    this.offset += len;
    return item as Uint8Array;
  }

  get consumed(): number {
    return this.offset;
  }
}

export interface ChannelReaderStats {
  channelsDropped: number;
  batchesDropped: number;
  singularBatches: number;
  spanBatches: number;
}

export interface ChannelReaderDeps extends StageDeps {
  /** Decompression, e.g. on the worker pool (decompressPooled.ts); defaults to decompressChannel in this thread. */
  decompress?: ChannelDecompress;
}

export class ChannelReader {
  readonly stats: ChannelReaderStats = { channelsDropped: 0, batchesDropped: 0, singularBatches: 0, spanBatches: 0 };
  private reader: { batches: BatchReader; algo: CompressionAlgo } | undefined;
  /** A channel taken from the previous stage whose decompression could not run yet; retried on the next call. */
  private pending: Uint8Array | undefined;
  private readonly log: Logger;
  private readonly decompress: NonNullable<ChannelReaderDeps['decompress']>;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly prev: ChannelDataSource,
    deps: ChannelReaderDeps = {},
  ) {
    this.log = stageLogger(deps, 'channel-reader');
    this.decompress = deps.decompress ?? decompressChannel;
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  async nextBatch(): Promise<DecodedBatch | undefined> {
    for (;;) {
      if (this.reader === undefined) {
        const channel = this.pending ?? (await this.prev.nextData());
        if (channel === undefined) return undefined;
        this.pending = channel;
        await this.open(channel);
        this.pending = undefined;
        continue;
      }
      let data: BatchData;
      try {
        const typed = this.reader.batches.next();
        if (typed === undefined) {
          this.reader = undefined;
          continue;
        }
        data = decodeBatchData(typed);
      } catch (err) {
        this.dropChannel(err);
        continue;
      }
      const algo = this.reader.algo;
      if (data.type === SINGULAR_BATCH_TYPE) {
        this.stats.singularBatches++;
        return { type: 'singular', batch: data.batch, compression: algo };
      }
      const origin = this.origin();
      // Checked with the inclusion block's time; the batch queue checks the batch's own L1 origin again.
      if (origin === undefined || !isDelta(this.cfg, origin.timestamp)) {
        this.dropBatch('span batch before Delta', origin);
        continue;
      }
      try {
        const batch = deriveSpanBatch(data.batch, this.cfg.blockTime, this.cfg.genesis.l2Time, this.cfg.l2ChainId);
        this.stats.spanBatches++;
        return { type: 'span', batch, compression: algo };
      } catch (err) {
        this.dropBatch(err instanceof Error ? err.message : String(err), origin);
      }
    }
  }

  private async open(channel: Uint8Array): Promise<void> {
    const origin = this.origin();
    const t = origin?.timestamp ?? 0;
    try {
      const out = await this.decompress(channel, {
        fjord: isFjord(this.cfg, t),
        maxBytes: maxRlpBytesPerChannel(this.cfg, t),
      });
      if (out.error !== undefined) this.log.debug('channel decompression stopped early', { err: out.error });
      this.reader = { batches: new BatchReader(out.data), algo: out.algo };
    } catch (err) {
      // Not the channel's fault (the decompression pool is closed or lost a thread): keep it for the retry.
      if (err instanceof TernError && err.code === DECOMPRESS_UNAVAILABLE) throw err;
      this.dropChannel(err);
    }
  }

  private dropChannel(err: unknown): void {
    this.reader = undefined;
    this.stats.channelsDropped++;
    this.log.debug('dropping rest of channel', {
      origin: this.origin()?.number,
      err: err instanceof Error ? err.message : String(err),
    });
  }

  private dropBatch(reason: string, origin: L1BlockRef | undefined): void {
    this.stats.batchesDropped++;
    this.log.debug('dropping batch', { origin: origin?.number, reason });
  }

  /** Holocene fast channel invalidation: the batch stage found an invalid batch, so the rest of the channel goes. */
  flushChannel(): void {
    this.reader = undefined;
  }

  reset(): void {
    this.reader = undefined;
    this.pending = undefined;
  }
}
