// L1 retrieval's alt-DA step (op-node's AltDADataSource): batcher data starting with version byte 1 is a
// commitment whose input comes from the DA server through the DA manager; other data passes through untouched
// (the frame queue validates it). Commitments that do not decode or are not of the chain's type are skipped, and
// so are keccak inputs over the spec's size limit.

import type { Logger } from '../../../common/logger/index.js';
import {
  type Commitment,
  decodeCommitmentTxData,
  KECCAK_COMMITMENT,
  MAX_INPUT_SIZE,
  TX_DATA_VERSION_ALTDA,
} from '../../../protocol/altda/commitment.js';
import type { L1BlockRef } from '../types.js';
import type { AltDaMetrics, DaManager } from './daManager.js';

export class AltDaInputs {
  constructor(
    readonly manager: DaManager,
    private readonly commitmentType: number,
    private readonly log: Logger,
    private readonly metrics: AltDaMetrics = {},
  ) {}

  /** Called on every read: challenge tracking follows the pipeline's origin. */
  advance(block: L1BlockRef): Promise<void> {
    return this.manager.advanceL1Origin(block);
  }

  reset(base: L1BlockRef): void {
    this.manager.reset(base);
  }

  /** The data to hand the frame queue for one batcher item, or undefined to skip it. */
  async resolve(item: Uint8Array, block: L1BlockRef): Promise<Uint8Array | undefined> {
    if (item[0] !== TX_DATA_VERSION_ALTDA) return item;
    let comm: Commitment;
    try {
      comm = decodeCommitmentTxData(item);
    } catch (err) {
      this.metrics.recordSkipped?.('invalid');
      this.log.warn('ignoring invalid alt-DA commitment', { l1: block.number, err: (err as Error).message });
      return undefined;
    }
    if (comm.type !== this.commitmentType) {
      this.metrics.recordSkipped?.('type');
      this.log.warn('ignoring alt-DA commitment of another type', { l1: block.number, type: comm.type });
      return undefined;
    }
    const res = await this.manager.getInput(comm, block);
    if (res.kind === 'skip') return undefined;
    if (comm.type === KECCAK_COMMITMENT && res.data.length > MAX_INPUT_SIZE) {
      this.metrics.recordSkipped?.('too-large');
      this.log.warn('alt-DA input over the size limit skipped', {
        l1: block.number,
        size: res.data.length,
        max: MAX_INPUT_SIZE,
      });
      return undefined;
    }
    return res.data;
  }
}
