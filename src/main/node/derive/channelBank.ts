// Channel bank (before Holocene; specs/protocol/derivation.md "Channel Bank"): buffers frames of many channels in
// FIFO order of opening, bounded by MAX_CHANNEL_BANK_SIZE (oldest channels pruned first) and by the channel timeout.
// Reads the first channel when it is ready (pre-Canyon), or the first ready one in FIFO order (Canyon, by L1 origin
// time). Frames that break the insertion rules are dropped with a debug log and counted.
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import { channelTimeout, isCanyon, maxChannelBankSize, type RollupConfig } from '../../primitives/rollup/config.js';
import { Channel } from '../../protocol/channel/channel.js';
import { channelIdHex, type Frame } from '../../protocol/channel/frame.js';
import { type FrameSource, type StageDeps, stageLogger } from './frameQueue.js';

/** What the channel reader reads: complete channels' compressed data, in order. */
export interface ChannelDataSource {
  origin(): L1BlockRef | undefined;
  nextData(): Promise<Uint8Array | undefined>;
}

export interface ChannelStageStats {
  framesDropped: number;
  channelsTimedOut: number;
  /** Pre-Holocene: dropped for bank size; Holocene: dropped for exceeding MAX_RLP_BYTES_PER_CHANNEL. */
  channelsPruned: number;
  channelsRead: number;
}

export class ChannelBank implements ChannelDataSource {
  readonly stats: ChannelStageStats = { framesDropped: 0, channelsTimedOut: 0, channelsPruned: 0, channelsRead: 0 };
  private channels = new Map<string, Channel>();
  private queue: string[] = [];
  private readonly log: Logger;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly prev: FrameSource,
    deps: StageDeps = {},
  ) {
    this.log = stageLogger(deps, 'channel-bank');
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  /** Reads before loading, as op-node does, so pruning sees the same bank contents. */
  async nextData(): Promise<Uint8Array | undefined> {
    for (;;) {
      const r = this.read();
      if (r instanceof Uint8Array) return r;
      if (r === 'retry') continue;
      const frame = await this.prev.nextFrame();
      if (frame === undefined) return undefined;
      this.ingestFrame(frame);
    }
  }

  private timedOut(ch: Channel, origin: L1BlockRef): boolean {
    return ch.openBlock.number + channelTimeout(this.cfg, origin.timestamp) < origin.number;
  }

  /** Adds a frame at the current origin: opens its channel if new, then prunes the bank to its size limit. */
  ingestFrame(frame: Frame): void {
    const origin = this.origin();
    if (origin === undefined) return;
    const id = channelIdHex(frame.id);
    let ch = this.channels.get(id);
    if (ch === undefined) {
      ch = new Channel(frame.id, origin);
      this.channels.set(id, ch);
      this.queue.push(id);
    }
    if (this.timedOut(ch, origin)) {
      this.drop(frame, 'channel timed out');
      return;
    }
    const why = ch.addFrame(frame, origin);
    if (why !== undefined) {
      this.drop(frame, why);
      return;
    }
    this.prune(origin);
  }

  private drop(frame: Frame, reason: string): void {
    this.stats.framesDropped++;
    this.log.debug('dropping frame', { channel: channelIdHex(frame.id), frame: frame.number, reason });
  }

  private prune(origin: L1BlockRef): void {
    let total = 0;
    for (const ch of this.channels.values()) total += ch.size;
    const max = maxChannelBankSize(this.cfg, origin.timestamp);
    while (total > max && this.queue.length > 0) {
      const id = this.queue.shift() as string;
      const ch = this.channels.get(id) as Channel;
      this.channels.delete(id);
      total -= ch.size;
      this.stats.channelsPruned++;
      this.log.debug('pruning channel', { channel: id, size: ch.size, total });
    }
  }

  /** Data of a ready channel, 'retry' after removing a timed-out head channel, or undefined if nothing is ready. */
  private read(): Uint8Array | 'retry' | undefined {
    const origin = this.origin();
    if (this.queue.length === 0 || origin === undefined) return undefined;
    const firstId = this.queue[0] as string;
    const first = this.channels.get(firstId) as Channel;
    if (this.timedOut(first, origin)) {
      this.channels.delete(firstId);
      this.queue.shift();
      this.stats.channelsTimedOut++;
      this.log.debug('channel timed out', { channel: firstId, frames: first.frameCount });
      return 'retry';
    }
    const scan = isCanyon(this.cfg, origin.timestamp) ? this.queue.length : 1;
    for (let i = 0; i < scan; i++) {
      const id = this.queue[i] as string;
      const ch = this.channels.get(id) as Channel;
      if (this.timedOut(ch, origin) || !ch.isReady()) continue;
      this.channels.delete(id);
      this.queue.splice(i, 1);
      this.stats.channelsRead++;
      this.log.debug('reading channel', { channel: id, frames: ch.frameCount });
      return ch.data();
    }
    return undefined;
  }

  /** Channels buffered, in FIFO order (for tests and metrics). */
  channelIds(): string[] {
    return [...this.queue];
  }

  reset(): void {
    this.channels = new Map();
    this.queue = [];
  }
}
