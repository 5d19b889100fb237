// Channel assembler (Holocene; specs/protocol/holocene/derivation.md "Channel Bank"): at most one staging channel,
// frames strictly in order. A first frame always starts a new channel (dropping an unfinished one); a non-first
// frame with no channel, or out of order, is dropped; the channel is dropped when timed out or when its size passes
// MAX_RLP_BYTES_PER_CHANNEL. Drops are debug-logged and counted.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import { channelTimeout, maxRlpBytesPerChannel, type RollupConfig } from '../../primitives/rollup/config.js';
import { Channel } from '../../protocol/channel/channel.js';
import { channelIdHex, type Frame } from '../../protocol/channel/frame.js';
import type { ChannelDataSource, ChannelStageStats } from './channelBank.js';
import { type FrameSource, type StageDeps, stageLogger } from './frameQueue.js';

export class ChannelAssembler implements ChannelDataSource {
  readonly stats: ChannelStageStats = { framesDropped: 0, channelsTimedOut: 0, channelsPruned: 0, channelsRead: 0 };
  private channel: Channel | undefined;
  private readonly log: Logger;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly prev: FrameSource,
    deps: StageDeps = {},
  ) {
    this.log = stageLogger(deps, 'channel-assembler');
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  async nextData(): Promise<Uint8Array | undefined> {
    const origin0 = this.origin();
    if (this.channel && origin0 && this.timedOut(this.channel, origin0)) {
      this.stats.channelsTimedOut++;
      this.log.debug('channel timed out', { channel: this.channel.idHex });
      this.channel = undefined;
    }
    if (this.channel?.isReady()) {
      throw new TernError('CHANNEL_ASSEMBLER', 'unexpected ready channel', { severity: 'critical' });
    }
    // Ingest until a channel completes: the frames of one L1 block are bounded by its batcher transactions.
    for (;;) {
      const frame = await this.prev.nextFrame();
      if (frame === undefined) return undefined;
      const origin = this.origin() as L1BlockRef;
      if (frame.number === 0) this.channel = new Channel(frame.id, origin, true);
      const ch = this.channel;
      if (ch === undefined) {
        this.drop(frame, 'non-first frame without a channel');
        continue;
      }
      const why = ch.addFrame(frame, origin);
      if (why !== undefined) {
        this.drop(frame, why);
        continue;
      }
      if (ch.size > maxRlpBytesPerChannel(this.cfg, origin.timestamp)) {
        this.stats.channelsPruned++;
        this.log.debug('dropping oversized channel', { channel: ch.idHex, size: ch.size });
        this.channel = undefined;
        continue;
      }
      if (frame.isLast) {
        this.channel = undefined;
        this.stats.channelsRead++;
        return ch.data();
      }
    }
  }

  private timedOut(ch: Channel, origin: L1BlockRef): boolean {
    return ch.openBlock.number + channelTimeout(this.cfg, origin.timestamp) < origin.number;
  }

  private drop(frame: Frame, reason: string): void {
    this.stats.framesDropped++;
    this.log.debug('dropping frame', { channel: channelIdHex(frame.id), frame: frame.number, reason });
  }

  /** The staging channel's id, if any (tests, metrics). */
  stagingChannelId(): string | undefined {
    return this.channel?.idHex;
  }

  reset(): void {
    this.channel = undefined;
  }
}
