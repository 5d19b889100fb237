// Attributes queue (derivation.md "Payload Attributes Derivation"): turns the next batch into payload attributes on
// top of the safe head: the builder's deposits and upgrade transactions, then the batch's transactions.
import type { Logger } from '../../common/logger/index.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { SingularBatch } from '../../protocol/batch/singularBatch.js';
import type { SingularBatchProvider } from './batchQueue.js';
import { type StageDeps, stageLogger } from './frameQueue.js';
import {
  type AttributesWithParent,
  type BlockId,
  criticalError,
  type L1BlockRef,
  type L2BlockRef,
  type PayloadAttributes,
  resetError,
  toHex,
} from './types.js';

/** What the attributes queue uses to build attributes (attributesBuilder.ts). */
export interface AttributesPreparer {
  prepare(parent: L2BlockRef, epoch: BlockId): Promise<PayloadAttributes>;
}

const DEPOSIT_TX_TYPE = 0x7e;

export class AttributesQueue {
  private batch: { batch: SingularBatch; last: boolean } | undefined;
  private last: AttributesWithParent | undefined;
  private readonly log: Logger;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly builder: AttributesPreparer,
    private readonly prev: SingularBatchProvider,
    deps: StageDeps = {},
  ) {
    this.log = stageLogger(deps, 'attributes-queue');
  }

  origin(): L1BlockRef | undefined {
    return this.prev.origin();
  }

  /** Attributes for the block after `parent`; undefined when the L1 origin must advance first. */
  async nextAttributes(parent: L2BlockRef): Promise<AttributesWithParent | undefined> {
    if (this.batch === undefined) {
      const next = await this.prev.nextBatch(parent);
      if (next === undefined) return undefined;
      this.batch = next;
    }
    const { batch, last } = this.batch;
    if (toHex(batch.parentHash) !== parent.hash) {
      throw resetError(
        'ATTRIBUTES_BAD_PARENT',
        `valid batch has parent ${toHex(batch.parentHash)}, want ${parent.hash}`,
      );
    }
    if (batch.timestamp !== parent.timestamp + this.cfg.blockTime) {
      throw resetError(
        'ATTRIBUTES_BAD_TIME',
        `valid batch has timestamp ${batch.timestamp}, want ${parent.timestamp + this.cfg.blockTime}`,
      );
    }
    const attributes = await this.builder.prepare(parent, { number: batch.epochNum, hash: toHex(batch.epochHash) });
    attributes.transactions.push(...batch.transactions);
    const derivedFrom = this.origin();
    if (derivedFrom === undefined) throw criticalError('DERIVE_NOT_RESET', 'attributes queue has no origin');
    const out: AttributesWithParent = { attributes, parent, derivedFrom, isLastInSpan: last };
    this.log.debug('derived attributes', { timestamp: batch.timestamp, txs: attributes.transactions.length });
    this.batch = undefined;
    this.last = out;
    return out;
  }

  /**
   * Holocene steady block derivation: the engine rejected the last attributes, so the block is rebuilt from their
   * deposits alone and the rest of the span batch and channel is dropped.
   */
  depositsOnlyAttributes(parent: BlockId): AttributesWithParent {
    const last = this.last;
    if (last === undefined || last.parent.hash !== parent.hash) {
      throw criticalError('DEPOSITS_ONLY_MISMATCH', `no derived attributes on top of ${parent.hash} to replace`);
    }
    this.prev.flushChannel();
    const attributes = {
      ...last.attributes,
      transactions: last.attributes.transactions.filter((t) => t[0] === DEPOSIT_TX_TYPE),
    };
    this.last = { ...last, attributes, isLastInSpan: true };
    return this.last;
  }

  reset(): void {
    this.batch = undefined;
    this.last = undefined;
  }
}
