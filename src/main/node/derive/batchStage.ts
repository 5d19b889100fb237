// Batch stage from Holocene (holocene/derivation.md "Span Batches", "Batch Queue", "Fast Channel Invalidation"):
// batches must arrive in order, so nothing is buffered. Each singular batch, and each block of a span batch, is
// checked as it comes: `past` ones are skipped, an invalid one is dropped together with the rest of its span batch
// and channel. Empty batches are still derived when the sequencing window expires. BatchMux picks this stage or
// the pre-Holocene queue by the L1 origin time and carries the origin state across the activation.
import type { RollupConfig } from '../../primitives/rollup/config.js';
import { isHolocene } from '../../primitives/rollup/config.js';
import type { SingularBatch } from '../../protocol/batch/singularBatch.js';
import {
  BaseBatchStage,
  BatchQueue,
  type BatchSource,
  type BatchStageDeps,
  type NextBatch,
  type SingularBatchProvider,
} from './batchQueue.js';
import {
  checkSingularBatch,
  checkSpanBatchPrefix,
  type SafeBlockFetcher,
  spanToSingularBatches,
} from './batchValidator.js';
import { criticalError, type L1BlockRef, type L2BlockRef } from './types.js';

export class BatchStage extends BaseBatchStage implements SingularBatchProvider {
  constructor(cfg: RollupConfig, prev: BatchSource, l2: SafeBlockFetcher, deps: BatchStageDeps = {}) {
    super(cfg, prev, l2, deps, 'batch-stage');
  }

  async nextBatch(parent: L2BlockRef): Promise<NextBatch | undefined> {
    for (;;) {
      // Nothing is backwards-invalidated any more, so origins can always be updated and pruned.
      this.updateOrigins(parent);
      const origin = this.originRef;
      // Behind or at the parent's origin, the channel can only hold past batches: drain it.
      if (this.originBehind(parent) || (origin !== undefined && parent.l1origin.number === origin.number)) {
        if ((await this.prev.nextBatch()) === undefined) return undefined;
        continue;
      }
      if (this.l1Blocks.length < 2) {
        throw criticalError(
          'BATCH_NO_ORIGIN',
          `batch stage holds ${this.l1Blocks.length} L1 origins at ${origin?.number}; derivation did not start at a safe head`,
        );
      }
      this.checkEpoch(parent);
      const candidate = await this.nextCandidate(parent);
      if (candidate === 'retry') continue;
      if (candidate === undefined) {
        // Only once the span and the earlier stages are drained may an empty batch be derived.
        const empty = this.deriveNextEmptyBatch(true, parent);
        return empty === undefined ? undefined : { batch: empty, last: false };
      }
      const v = checkSingularBatch(this.cfg, this.l1Blocks, parent, candidate, origin as L1BlockRef);
      switch (v.validity) {
        case 'accept':
          return { batch: candidate, last: this.nextSpan.length === 0 };
        case 'past':
          this.log.debug('skipping past batch', { timestamp: candidate.timestamp });
          continue;
        case 'drop':
          this.dropped('batch', v, { timestamp: candidate.timestamp, epoch: candidate.epochNum });
          this.flushChannel();
          continue;
        case 'undecided':
          // Cannot happen with two origins buffered; like op-node, move on rather than stall.
          this.log.debug('undecided batch', { reason: v.reason });
          continue;
        default:
          throw criticalError('BATCH_VALIDITY', `impossible batch validity ${v.validity} after Holocene`);
      }
    }
  }

  /** The next singular batch: from the current span, or the next decoded batch (a span's prefix checked first). */
  private async nextCandidate(parent: L2BlockRef): Promise<SingularBatch | undefined | 'retry'> {
    const cached = this.nextFromSpanBatch(parent);
    if (cached !== undefined) return cached.batch;
    const b = await this.prev.nextBatch();
    if (b === undefined) return undefined;
    if (b.type === 'singular') return b.batch;
    const span = b.batch;
    const ctx = { start: span.batches[0]?.timestamp, blocks: span.batches.length };
    const v = await checkSpanBatchPrefix(this.cfg, this.l1Blocks, parent, span, this.originRef as L1BlockRef, this.l2);
    switch (v.validity) {
      case 'accept':
        break;
      case 'past':
        this.log.debug('skipping past span batch', ctx);
        return 'retry';
      case 'drop':
        this.dropped('span batch', v, ctx);
        this.flushChannel();
        return 'retry';
      case 'undecided':
        this.log.debug('undecided span batch', { reason: v.reason, ...ctx });
        return 'retry';
      default:
        throw criticalError('BATCH_VALIDITY', `impossible span batch validity ${v.validity} after Holocene`);
    }
    const singles = spanToSingularBatches(span, this.l1Blocks, parent);
    if (!Array.isArray(singles)) {
      this.dropped('span batch', singles, ctx);
      this.flushChannel();
      return 'retry';
    }
    this.nextSpan = singles;
    return this.popNextBatch(parent);
  }
}

/** Chooses the pre-Holocene queue or the Holocene stage (op-node's BatchMux). */
export class BatchMux implements SingularBatchProvider {
  private readonly queue: BatchQueue;
  private readonly stage: BatchStage;
  private active: BatchQueue | BatchStage;

  constructor(
    private readonly cfg: RollupConfig,
    prev: BatchSource,
    l2: SafeBlockFetcher,
    deps: BatchStageDeps = {},
  ) {
    this.queue = new BatchQueue(cfg, prev, l2, deps);
    this.stage = new BatchStage(cfg, prev, l2, deps);
    this.active = this.queue;
  }

  get holocene(): boolean {
    return this.active === this.stage;
  }

  origin(): L1BlockRef | undefined {
    return this.active.origin();
  }

  nextBatch(parent: L2BlockRef): Promise<NextBatch | undefined> {
    return this.active.nextBatch(parent);
  }

  flushChannel(): void {
    this.active.flushChannel();
  }

  reset(base: L1BlockRef): void {
    this.active = isHolocene(this.cfg, base.timestamp) ? this.stage : this.queue;
    this.active.reset(base);
  }

  /** At the Holocene activation origin: the stage takes over the queue's origins; buffered batches are discarded. */
  activateHolocene(): void {
    if (this.active === this.stage) return;
    this.stage.adopt(this.queue);
    this.queue.reset(this.queue.l1Blocks[0] as L1BlockRef);
    this.active = this.stage;
  }
}
