// The batcher's queue of L2 blocks and channels (op-batcher's channel manager). Blocks go into one open channel at
// a time; a closed channel's frames are handed out in order, channel after channel, so L1 receives them in the
// strict order Holocene requires (one sender, increasing nonces). A failed transaction, or a channel that landed
// over more than channel_timeout L1 blocks, invalidates that channel and every later one: their blocks are queued
// again and go out in new channels. A fully submitted channel is kept, with the L1 blocks (number and hash) its
// transactions landed in, until its data can no longer matter (prune): when the driver finds one of those blocks
// reorged out of L1, that channel and every later one are rebuilt the same way (l1Reorged).
import { TernError } from '../common/errors.js';
import type { Logger } from '../common/logger/index.js';
import { channelIdHex, type Frame } from '../protocol/channel/frame.js';
import { ChannelBuilder, type ChannelConfig } from './channelBuilder.js';
import type { L2Block } from './l2Block.js';
import { MAX_BLOBS_PER_TX } from './options.js';

export interface L1Head {
  readonly number: number;
  readonly timestamp: number;
}

/** An L1 block a batcher transaction landed in. */
export interface L1BlockId {
  readonly number: number;
  /** Lower-case 0x hash. */
  readonly hash: string;
}

/** The data of one batcher transaction: one frame (calldata) or one frame per blob. */
export interface TxData {
  readonly id: string;
  readonly channelId: string;
  readonly frames: readonly Frame[];
  readonly useBlobs: boolean;
}

interface ChannelState {
  readonly builder: ChannelBuilder;
  frames: Frame[] | undefined;
  /** Next frame to hand out. */
  cursor: number;
  readonly confirmed: Set<number>;
  minInclusion: number;
  maxInclusion: number;
  /** The L1 blocks its confirmed transactions landed in (those with a known hash). */
  readonly inclusions: L1BlockId[];
}

const BLOCK_HASH = /^0x[0-9a-f]{64}$/;

export interface ChannelManagerDeps {
  readonly logger: Logger;
}

export class ChannelManager {
  private blocks: L2Block[] = [];
  private channels: ChannelState[] = [];
  /** Fully submitted channels, oldest first, kept while an L1 reorg could still take their data away. */
  private submitted: ChannelState[] = [];
  private readonly txs = new Map<string, { channel: ChannelState; frames: number[] }>();
  private last: L2Block | undefined;
  private readonly logger: Logger;

  constructor(
    /** The channel settings for a channel opened at this L1 head (DA type, compression and batch type by fork). */
    private readonly configFor: (head: L1Head) => ChannelConfig,
    deps: ChannelManagerDeps,
  ) {
    this.logger = deps.logger;
  }

  /** The newest block queued. */
  get tip(): L2Block | undefined {
    return this.last;
  }

  /** Blocks not yet in a closed channel. */
  get pendingBlocks(): number {
    const open = this.openChannel();
    return this.blocks.length + (open ? open.builder.blocks.length : 0);
  }

  /** Channels still being submitted. */
  get channelCount(): number {
    return this.channels.length;
  }

  /** Fully submitted channels still watched for L1 reorgs. */
  get submittedCount(): number {
    return this.submitted.length;
  }

  /** Queues the next L2 block; throws L2_REORG when it does not build on the previous one. */
  addL2Block(block: L2Block): void {
    if (this.last !== undefined && block.parentHash !== this.last.hash) {
      throw new TernError(
        'L2_REORG',
        `block ${block.number} has parent ${block.parentHash}, but block ${this.last.number} is ${this.last.hash}`,
      );
    }
    this.blocks.push(block);
    this.last = block;
  }

  /** Forgets everything (an L2 reorg, or the safe head moved past what was queued). */
  clear(): void {
    this.blocks = [];
    this.channels = [];
    this.submitted = [];
    this.txs.clear();
    this.last = undefined;
  }

  private openChannel(): ChannelState | undefined {
    const c = this.channels[this.channels.length - 1];
    return c !== undefined && c.frames === undefined ? c : undefined;
  }

  /** The next transaction's data, or undefined when nothing is ready. */
  nextTxData(head: L1Head): TxData | undefined {
    for (const c of this.channels) if (c.frames !== undefined && c.cursor < c.frames.length) return this.take(c);
    let open = this.openChannel();
    if (open === undefined && this.blocks.length > 0) {
      open = {
        builder: new ChannelBuilder(this.configFor(head), head.number),
        frames: undefined,
        cursor: 0,
        confirmed: new Set(),
        minInclusion: Number.POSITIVE_INFINITY,
        maxInclusion: -1,
        inclusions: [],
      };
      this.channels.push(open);
      this.logger.debug('Opened channel', { channel: channelIdHex(open.builder.id), l1Head: head.number });
    }
    if (open === undefined) return undefined;
    const b = open.builder;
    while (this.blocks.length > 0 && !b.isFull) {
      if (!b.addBlock(this.blocks[0] as L2Block)) break;
      this.blocks.shift();
    }
    b.checkTimeout(head.number);
    if (!b.isFull) return undefined;
    return this.close(open);
  }

  /** Closes the open channel now, whatever its fill (shutdown, tests); returns its first transaction. */
  forceClose(head: L1Head): TxData | undefined {
    const ready = this.nextTxData(head);
    if (ready !== undefined) return ready;
    const open = this.openChannel();
    if (open === undefined) return undefined;
    open.builder.forceClose();
    return this.close(open);
  }

  private close(c: ChannelState): TxData | undefined {
    c.frames = c.builder.frames();
    const blocks = c.builder.blocks;
    this.logger.info('Channel closed', {
      channel: channelIdHex(c.builder.id),
      reason: c.builder.fullReason,
      blocks: blocks.length,
      first: blocks[0]?.number,
      last: blocks[blocks.length - 1]?.number,
      frames: c.frames.length,
      blobs: c.builder.cfg.useBlobs,
    });
    return this.take(c);
  }

  private take(c: ChannelState): TxData {
    const frames = c.frames as Frame[];
    const n = c.builder.cfg.useBlobs
      ? Math.min(c.builder.cfg.targetNumFrames, MAX_BLOBS_PER_TX, frames.length - c.cursor)
      : 1;
    const taken = frames.slice(c.cursor, c.cursor + n);
    const channelId = channelIdHex(c.builder.id);
    const id = `${channelId}:${c.cursor}-${c.cursor + n - 1}`;
    this.txs.set(id, { channel: c, frames: taken.map((f) => f.number) });
    c.cursor += n;
    return { id, channelId, frames: taken, useBlobs: c.builder.cfg.useBlobs };
  }

  /**
   * A transaction is included (with enough confirmations) in L1 block `inclusionBlock` (hash `inclusionHash`, kept to
   * notice a later L1 reorg; without it the inclusion is not watched).
   */
  txConfirmed(id: string, inclusionBlock: number, inclusionHash?: string): void {
    const tx = this.txs.get(id);
    if (tx === undefined) return; // its channel was invalidated meanwhile
    this.txs.delete(id);
    const c = tx.channel;
    for (const f of tx.frames) c.confirmed.add(f);
    const hash = inclusionHash?.toLowerCase();
    if (hash !== undefined && BLOCK_HASH.test(hash)) c.inclusions.push({ number: inclusionBlock, hash });
    c.minInclusion = Math.min(c.minInclusion, inclusionBlock);
    c.maxInclusion = Math.max(c.maxInclusion, inclusionBlock);
    if (c.maxInclusion - c.minInclusion >= c.builder.cfg.channelTimeout) {
      this.logger.warn('Channel timed out on L1, resubmitting its blocks', {
        channel: channelIdHex(c.builder.id),
        firstInclusion: c.minInclusion,
        lastInclusion: c.maxInclusion,
      });
      this.invalidate(c);
      return;
    }
    // Done channels leave from the front only: a later channel's blocks must stay while an earlier one may fail.
    // They move to the submitted list, watched for L1 reorgs until prune() lets them go.
    while (this.channels.length > 0) {
      const head = this.channels[0] as ChannelState;
      if (head.frames === undefined || head.confirmed.size < head.frames.length) break;
      this.channels.shift();
      this.submitted.push(head);
      const blocks = head.builder.blocks;
      this.logger.info('Channel fully submitted', {
        channel: channelIdHex(head.builder.id),
        first: blocks[0]?.number,
        last: blocks[blocks.length - 1]?.number,
        l1: head.maxInclusion,
      });
    }
  }

  /**
   * Forgets submitted channels, oldest first, whose data can no longer matter: their blocks are all safe and their
   * last transaction landed before the safe head's L1 origin, or it landed more than channel_timeout L1 blocks ago.
   */
  prune(safeL2: number, safeL1Origin: number | undefined, l1Head: number): void {
    while (this.submitted.length > 0) {
      const c = this.submitted[0] as ChannelState;
      const blocks = c.builder.blocks;
      const last = blocks[blocks.length - 1]?.number ?? -1;
      const derived = last <= safeL2 && safeL1Origin !== undefined && c.maxInclusion < safeL1Origin;
      const expired = c.maxInclusion + c.builder.cfg.channelTimeout < l1Head;
      if (!derived && !expired) return;
      this.submitted.shift();
    }
  }

  /** The distinct L1 blocks confirmed batcher transactions landed in (of channels still kept), newest first. */
  inclusionBlocks(): L1BlockId[] {
    const seen = new Map<string, L1BlockId>();
    for (const c of [...this.submitted, ...this.channels]) for (const b of c.inclusions) seen.set(b.hash, b);
    return [...seen.values()].sort((a, b) => b.number - a.number);
  }

  /**
   * These L1 blocks are no longer canonical: the first channel (in submission order) with a transaction in one of
   * them is rebuilt from its L2 blocks, and every later channel with it (Holocene's strict ordering). Returns whether
   * a channel was requeued.
   */
  l1Reorged(gone: readonly L1BlockId[]): boolean {
    const hashes = new Set(gone.map((b) => b.hash.toLowerCase()));
    const hit = [...this.submitted, ...this.channels].find((c) => c.inclusions.some((b) => hashes.has(b.hash)));
    if (hit === undefined) return false;
    const blocks = hit.builder.blocks;
    this.logger.warn('Batcher transaction reorged out of L1, resubmitting its channel and later ones', {
      channel: channelIdHex(hit.builder.id),
      first: blocks[0]?.number,
      last: blocks[blocks.length - 1]?.number,
      l1: hit.inclusions.filter((b) => hashes.has(b.hash)).map((b) => b.number),
    });
    this.invalidate(hit);
    return true;
  }

  /** A transaction was given up on (or failed on L1): its channel and every later one are rebuilt. */
  txFailed(id: string): void {
    const tx = this.txs.get(id);
    if (tx === undefined) return;
    this.txs.delete(id);
    this.logger.warn('Batcher transaction failed, rebuilding its channel', { tx: id });
    this.invalidate(tx.channel);
  }

  private invalidate(c: ChannelState): void {
    let dropped: ChannelState[];
    const done = this.submitted.indexOf(c);
    if (done >= 0) {
      dropped = [...this.submitted.splice(done), ...this.channels.splice(0)];
    } else {
      const at = this.channels.indexOf(c);
      if (at < 0) return;
      dropped = this.channels.splice(at);
    }
    for (const [id, tx] of this.txs) if (dropped.includes(tx.channel)) this.txs.delete(id);
    this.blocks = [...dropped.flatMap((d) => d.builder.blocks), ...this.blocks];
  }
}
