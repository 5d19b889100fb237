// Frame queue: turns the batcher data items L1 retrieval yields into frames. A malformed item is dropped whole
// (debug log, counted). From Holocene (by L1 origin time) the queue is pruned so it only holds ordered, contiguous
// frames per channel (specs/protocol/holocene/derivation.md "Frame Queue").
//
// Stage contract shared by the stages of this folder: `origin()` is the L1 block the stage reads at, `next*()`
// resolves to `undefined` when there is nothing more until the origin advances (op-node's io.EOF), and `reset()`
// clears the stage's own buffers (the pipeline resets every stage in its listed order).
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef } from '../../primitives/rollup/blockRef.js';
import { isHolocene, type RollupConfig } from '../../primitives/rollup/config.js';
import { channelIdHex, type Frame, parseFrames } from '../../protocol/channel/frame.js';

export interface OriginSource {
  origin(): L1BlockRef | undefined;
}

/** What the frame queue reads: L1 retrieval (calldata or blobs of batcher transactions, in order). */
export interface L1DataSource extends OriginSource {
  nextData(): Promise<Uint8Array | undefined>;
}

/** What channel bank and channel assembler read. */
export interface FrameSource extends OriginSource {
  nextFrame(): Promise<Frame | undefined>;
}

export interface StageDeps {
  logger?: Logger;
}

const NOOP = (): void => undefined;
const NOOP_LOGGER: Logger = {
  error: NOOP,
  warn: NOOP,
  info: NOOP,
  debug: NOOP,
  detail: NOOP,
  child: () => NOOP_LOGGER,
  isEnabled: () => false,
};

/** The module logger of a stage (a silent one when none is given, as in unit tests). */
export function stageLogger(deps: StageDeps, module: string): Logger {
  return deps.logger ? deps.logger.child(module) : NOOP_LOGGER;
}

export interface FrameQueueStats {
  /** Batcher data items rejected whole (malformed frame, bad version, trailing bytes). */
  dataDropped: number;
  /** Frames removed by Holocene pruning. */
  framesPruned: number;
  framesQueued: number;
}

export class FrameQueue implements FrameSource {
  readonly stats: FrameQueueStats = { dataDropped: 0, framesPruned: 0, framesQueued: 0 };
  private frames: Frame[] = [];
  private readonly log: Logger;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly prev: L1DataSource,
    deps: StageDeps = {},
  ) {
    this.log = stageLogger(deps, 'frame-queue');
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  async nextFrame(): Promise<Frame | undefined> {
    while (this.frames.length === 0) {
      const data = await this.prev.nextData();
      if (data === undefined) return undefined;
      this.load(data);
    }
    return this.frames.shift();
  }

  /** Parses one batcher data item into the queue (exposed for tests and for callers that push data). */
  load(data: Uint8Array): void {
    let frames: Frame[];
    try {
      frames = parseFrames(data);
    } catch (err) {
      this.stats.dataDropped++;
      this.log.debug('dropping malformed batcher data', {
        origin: this.origin()?.number,
        err: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    this.frames.push(...frames);
    this.stats.framesQueued += frames.length;
    const origin = this.origin();
    // Only adding frames can break ordering, so pruning after a load is enough.
    if (origin !== undefined && isHolocene(this.cfg, origin.timestamp)) {
      const before = this.frames.length;
      this.frames = pruneFrameQueue(this.frames);
      const pruned = before - this.frames.length;
      if (pruned > 0) {
        this.stats.framesPruned += pruned;
        this.log.debug('pruned out-of-order frames', { pruned, origin: origin.number });
      }
    }
  }

  /** Frames waiting to be read. */
  get length(): number {
    return this.frames.length;
  }

  reset(): void {
    this.frames = [];
  }
}

const sameId = (a: Frame, b: Frame) => channelIdHex(a.id) === channelIdHex(b.id);

/**
 * Holocene frame-queue rules, applied to neighbouring pairs: within a channel, frames follow each other by number
 * and nothing follows a closing frame; a first frame of a new channel drops the still-open previous channel's frames
 * (backwards, as far as they go); a non-first frame of a different channel is dropped.
 */
export function pruneFrameQueue(input: readonly Frame[]): Frame[] {
  const frames = input.slice();
  let i = 0;
  while (i < frames.length - 1) {
    const current = frames[i] as Frame;
    const next = frames[i + 1] as Frame;
    if (sameId(current, next)) {
      if (current.isLast || next.number !== current.number + 1) {
        frames.splice(i + 1, 1);
        continue;
      }
    } else {
      if (next.number === 0 && !current.isLast) {
        frames.splice(i, 1);
        if (i > 0) i--;
        continue;
      }
      if (next.number !== 0) {
        frames.splice(i + 1, 1);
        continue;
      }
    }
    i++;
  }
  return frames;
}
