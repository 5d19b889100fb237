// Batch queue before Holocene (derivation.md "Batch Queue"): buffers batches by L1 inclusion, picks the first valid
// one for the next L2 block, keeps `future` ones, and derives empty batches once the sequencing window of the
// current epoch has passed. The origin bookkeeping and empty-batch rule are shared with the Holocene batch stage
// (batchStage.ts) through BaseBatchStage.
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { SingularBatch } from '../../protocol/batch/singularBatch.js';
import {
  type Batch,
  checkSingularBatch,
  checkSpanBatch,
  type SafeBlockFetcher,
  spanToSingularBatches,
  type Verdict,
} from './batchValidator.js';
import { type StageDeps, stageLogger } from './frameQueue.js';
import {
  blockIdString,
  criticalError,
  type DropCounter,
  fromHex,
  type L1BlockRef,
  type L2BlockRef,
  noopDropCounter,
  resetError,
} from './types.js';

/** What the batch stages read: the channel reader's decoded batches. */
export interface BatchSource {
  origin(): L1BlockRef | undefined;
  nextBatch(): Promise<Batch | undefined>;
  /** Drops the rest of the channel being read (Holocene fast channel invalidation). */
  flushChannel(): void;
}

export interface NextBatch {
  batch: SingularBatch;
  /** The last block of its span batch (always true for singular batches). */
  last: boolean;
}

/** What the attributes queue reads: the pre-Holocene queue or the Holocene stage. */
export interface SingularBatchProvider {
  origin(): L1BlockRef | undefined;
  /** The next batch on top of `parent`; undefined when the origin must advance first. */
  nextBatch(parent: L2BlockRef): Promise<NextBatch | undefined>;
  flushChannel(): void;
  reset(base: L1BlockRef): void;
}

export interface BatchStageDeps extends StageDeps {
  drops?: DropCounter;
}

/** State and rules both batch stages share (op-node's baseBatchStage). */
export class BaseBatchStage {
  /** Where this stage has read up to. */
  protected originRef: L1BlockRef | undefined;
  /** Consecutive L1 blocks from the safe head's epoch on (at most a sequencing window of them). */
  l1Blocks: L1BlockRef[] = [];
  /** Singular batches still to come from the current span batch. */
  protected nextSpan: SingularBatch[] = [];
  protected readonly log: Logger;
  protected readonly drops: DropCounter;

  constructor(
    protected readonly cfg: RollupConfig,
    protected readonly prev: BatchSource,
    protected readonly l2: SafeBlockFetcher,
    deps: BatchStageDeps,
    module: string,
  ) {
    this.log = stageLogger(deps, module);
    this.drops = deps.drops ?? noopDropCounter;
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  /**
   * Takes over another stage's L1 origins (the Holocene transition: the first Holocene channels may still hold
   * batches with pre-Holocene origins). Any span batch still being consumed is dropped, as op-node does.
   */
  adopt(from: BaseBatchStage): void {
    this.originRef = from.originRef;
    this.l1Blocks = [...from.l1Blocks];
    this.nextSpan = [];
  }

  reset(base: L1BlockRef): void {
    this.originRef = base;
    // Only the initial case keeps `base`: after a regular reset updateOrigins sees the origin behind and clears it.
    this.l1Blocks = [base];
    this.nextSpan = [];
  }

  flushChannel(): void {
    this.nextSpan = [];
    this.prev.flushChannel();
  }

  protected dropped(kind: string, v: Verdict, ctx: Record<string, unknown>): void {
    this.drops.drop(kind, v.reason ?? v.validity);
    this.log.debug(`dropping ${kind}`, { reason: v.reason, ...ctx });
  }

  protected popNextBatch(parent: L2BlockRef): SingularBatch {
    const b = this.nextSpan.shift() as SingularBatch;
    // The span's parent check already tied it to the chain: each block builds on the one before.
    return { ...b, parentHash: fromHex(parent.hash) };
  }

  /** The next cached span block when it is the one after `parent`; otherwise the cache is stale and dropped. */
  protected nextFromSpanBatch(parent: L2BlockRef): NextBatch | undefined {
    const head = this.nextSpan[0];
    if (head === undefined) return undefined;
    if (head.timestamp === parent.timestamp + this.cfg.blockTime) {
      const batch = this.popNextBatch(parent);
      return { batch, last: this.nextSpan.length === 0 };
    }
    this.log.warn('parent does not match the next span block: dropping the rest of the span', {
      parent: blockIdString(parent),
      next: head.timestamp,
    });
    this.nextSpan = [];
    return undefined;
  }

  protected originBehind(parent: L2BlockRef): boolean {
    const o = this.prev.origin();
    return o !== undefined && o.number < parent.l1origin.number;
  }

  protected updateOrigins(parent: L2BlockRef): void {
    const behind = this.originBehind(parent);
    const o = this.prev.origin();
    if (o !== undefined && (this.originRef === undefined || o.hash !== this.originRef.hash)) {
      this.originRef = o;
      // Startup is the one time the origin is not behind right after a reset.
      if (!behind) this.l1Blocks.push(o);
      else this.l1Blocks = [];
      this.log.debug('advancing batch origin', { origin: blockIdString(o), behind });
    }
    const first = this.l1Blocks[0];
    if (first !== undefined && parent.l1origin.number > first.number) {
      const at = this.l1Blocks.findIndex((b) => b.number === parent.l1origin.number);
      if (at >= 0) this.l1Blocks = this.l1Blocks.slice(at);
    }
  }

  /** The safe head's epoch must be l1Blocks[0] or the block before it (after empty batches advanced the epoch). */
  protected checkEpoch(parent: L2BlockRef): void {
    const epoch = this.l1Blocks[0];
    if (epoch === undefined) throw criticalError('BATCH_NO_ORIGIN', 'batch stage has no L1 origin buffered');
    const sameEpoch = parent.l1origin.hash === epoch.hash && parent.l1origin.number === epoch.number;
    if (!sameEpoch && parent.l1origin.number !== epoch.number - 1) {
      throw resetError(
        'BATCH_EPOCH_MISMATCH',
        `buffered L1 epoch ${blockIdString(epoch)} does not match safe head origin ${blockIdString(parent.l1origin)}`,
      );
    }
  }

  /**
   * An empty batch when the sequencing window of the current epoch has expired: the same epoch while the next L1
   * origin is still ahead in time (or for the epoch's first block), otherwise the epoch is advanced and undefined
   * returned so the caller tries again.
   */
  protected deriveNextEmptyBatch(outOfData: boolean, parent: L2BlockRef): SingularBatch | undefined {
    const epoch = this.l1Blocks[0] as L1BlockRef;
    const origin = this.originRef as L1BlockRef;
    const expiry = epoch.number + this.cfg.seqWindowSize;
    const force = (expiry === origin.number && outOfData) || expiry < origin.number;
    if (!force) return undefined;
    const nextEpoch = this.l1Blocks[1];
    if (nextEpoch === undefined) return undefined;
    const nextTimestamp = parent.timestamp + this.cfg.blockTime;
    const firstOfEpoch = epoch.number === parent.l1origin.number + 1;
    if (nextTimestamp < nextEpoch.timestamp || firstOfEpoch) {
      this.log.debug('generating empty batch', { epoch: epoch.number, timestamp: nextTimestamp });
      return {
        parentHash: fromHex(parent.hash),
        epochNum: epoch.number,
        epochHash: fromHex(epoch.hash),
        timestamp: nextTimestamp,
        transactions: [],
      };
    }
    // Every empty batch this epoch can have exists: move on to the next epoch.
    this.l1Blocks = this.l1Blocks.slice(1);
    return undefined;
  }
}

interface BufferedBatch {
  inclusion: L1BlockRef;
  batch: Batch;
}

function batchContext(b: Batch): Record<string, unknown> {
  if (b.type === 'singular') return { type: 'singular', timestamp: b.batch.timestamp, epoch: b.batch.epochNum };
  const els = b.batch.batches;
  return { type: 'span', start: els[0]?.timestamp, end: els[els.length - 1]?.timestamp, blocks: els.length };
}

export class BatchQueue extends BaseBatchStage implements SingularBatchProvider {
  private batches: BufferedBatch[] = [];

  constructor(cfg: RollupConfig, prev: BatchSource, l2: SafeBlockFetcher, deps: BatchStageDeps = {}) {
    super(cfg, prev, l2, deps, 'batch-queue');
  }

  override reset(base: L1BlockRef): void {
    super.reset(base);
    this.batches = [];
  }

  async nextBatch(parent: L2BlockRef): Promise<NextBatch | undefined> {
    for (;;) {
      const cached = this.nextFromSpanBatch(parent);
      if (cached !== undefined) return cached;
      this.updateOrigins(parent);
      const behind = this.originBehind(parent);
      const b = await this.prev.nextBatch();
      const outOfData = b === undefined;
      if (b !== undefined && !behind) await this.addBatch(b, parent);
      // Behind the safe head's origin: drain the earlier stages without keeping anything.
      if (behind) {
        if (outOfData) return undefined;
        continue;
      }
      const next = await this.deriveNextBatch(outOfData, parent);
      if (next === undefined) {
        if (outOfData) return undefined;
        continue;
      }
      if (next.type === 'singular') return { batch: next.batch, last: true };
      const singles = spanToSingularBatches(next.batch, this.l1Blocks, parent);
      if (!Array.isArray(singles)) {
        // Already fully validated, so this cannot happen short of a bug; never stall on it.
        this.dropped('span batch', singles, batchContext(next));
        continue;
      }
      this.nextSpan = singles;
      const batch = this.popNextBatch(parent);
      return { batch, last: this.nextSpan.length === 0 };
    }
  }

  private async check(b: BufferedBatch, parent: L2BlockRef): Promise<Verdict> {
    if (b.batch.type === 'singular') {
      return checkSingularBatch(this.cfg, this.l1Blocks, parent, b.batch.batch, b.inclusion);
    }
    return checkSpanBatch(this.cfg, this.l1Blocks, parent, b.batch.batch, b.inclusion, this.l2);
  }

  private async addBatch(batch: Batch, parent: L2BlockRef): Promise<void> {
    if (this.l1Blocks.length === 0) throw criticalError('BATCH_NO_ORIGIN', 'batch queue has no L1 origin prepared');
    const b = { inclusion: this.originRef as L1BlockRef, batch };
    const v = await this.check(b, parent);
    if (v.validity === 'drop') {
      this.dropped('batch', v, batchContext(batch));
      return;
    }
    this.batches.push(b);
  }

  /** The first buffered batch, in inclusion order, that is valid on top of `parent`; else maybe an empty batch. */
  private async deriveNextBatch(outOfData: boolean, parent: L2BlockRef): Promise<Batch | undefined> {
    this.checkEpoch(parent);
    const remaining: BufferedBatch[] = [];
    let found: BufferedBatch | undefined;
    for (let i = 0; i < this.batches.length; i++) {
      const b = this.batches[i] as BufferedBatch;
      const v = await this.check(b, parent);
      if (v.validity === 'future') {
        remaining.push(b);
      } else if (v.validity === 'drop' || v.validity === 'past') {
        this.dropped('batch', v, batchContext(b.batch));
      } else if (v.validity === 'accept') {
        found = b;
        remaining.push(...this.batches.slice(i + 1));
        break;
      } else {
        remaining.push(...this.batches.slice(i));
        this.batches = remaining;
        return undefined;
      }
    }
    this.batches = remaining;
    if (found !== undefined) {
      this.log.debug('found next batch', batchContext(found.batch));
      return found.batch;
    }
    const empty = this.deriveNextEmptyBatch(outOfData, parent);
    return empty === undefined ? undefined : { type: 'singular', batch: empty };
  }
}
